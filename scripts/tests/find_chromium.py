#!/usr/bin/env python3
"""The Chromium the browser tests drive: Playwright's own where `playwright install chromium`
fetched it, else one on PATH (Debian's chromium-headless-shell, which `.ci/install --browser`
installs). Run as a script, it prints that browser's path, or exits 1 with the reason."""

import shutil
import sys
from pathlib import Path

SYSTEM_CHROMIUMS = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")
NO_PLAYWRIGHT = "no playwright package (pip install playwright)"
NO_CHROMIUM = ("no Chromium: neither Playwright's own (python3 -m playwright install chromium) "
               "nor " + ", ".join(SYSTEM_CHROMIUMS) + " on PATH")


def chromium_path(own: str | None) -> str | None:
    """`own` (Playwright's browser path) where it exists, else the first Chromium on PATH."""
    if own and Path(own).is_file():
        return own
    for name in SYSTEM_CHROMIUMS:
        if found := shutil.which(name):
            return found
    return None


def main() -> int:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print(NO_PLAYWRIGHT, file=sys.stderr)
        return 1
    with sync_playwright() as playwright:
        path = chromium_path(playwright.chromium.executable_path)
    if path is None:
        print(NO_CHROMIUM, file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
