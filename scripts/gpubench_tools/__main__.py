"""`python3 -m gpubench_tools`: the same command as gpubench-tools."""

from gpubench_tools.cli.main import entry

entry()
