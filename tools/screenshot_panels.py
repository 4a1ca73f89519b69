#!/usr/bin/env python3
"""Screenshots of an HTML page's figure panels, as a browser shows them: the evidence that a
report's figures read as they should. Each NAME picks the first panel whose data-name starts
with it; its picture goes to OUT_DIR/<n>.png, named by the order given.

  tools/screenshot_panels.py PAGE.html OUT_DIR NAME [NAME ...]

Needs playwright and a Chromium (scripts/tests/find_chromium.py says which, .ci/install
--browser installs both); exit 1 naming a panel not on the page.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts" / "tests"))

from find_chromium import chromium_path  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) < 3 or any(arg.startswith("-") for arg in argv):
        print("screenshot_panels.py: usage: " + __doc__.strip().splitlines()[-4].strip(),
              file=sys.stderr)
        return 2
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("screenshot_panels.py: needs playwright (.ci/install --browser installs it)",
              file=sys.stderr)
        return 2
    page_path, out_dir, names = Path(argv[0]).resolve(), Path(argv[1]), argv[2:]
    if not page_path.is_file():
        print(f"screenshot_panels.py: {argv[0]}: no such page", file=sys.stderr)
        return 2
    out_dir.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(playwright.chromium.executable_path))
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(page_path.as_uri())
        for index, name in enumerate(names, start=1):
            panel = page.locator(f'figure.panel[data-name^="{name}"]').first
            if panel.count() == 0:
                print(f"screenshot_panels.py: no panel named {name!r}", file=sys.stderr)
                return 1
            panel.scroll_into_view_if_needed()
            panel.screenshot(path=str(out_dir / f"{index}.png"))
            print(f"wrote {out_dir / f'{index}.png'}: {name}")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
