"""The figures, drawn with matplotlib. setup.py configures matplotlib before any module here
imports it: importing this package runs it first."""

from gpubench_tools.renderers.figures import setup  # noqa: F401  (before matplotlib)
