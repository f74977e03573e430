"""docs/frontier.png from the figure ``chunkviz tune --plot FILE`` wrote (a self-contained HTML
file: plotly's script inline, no network), screenshotted in Debian's headless Chromium.

    python docs/frontier_png.py frontier.html docs/frontier.png
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def main(html: str, png: str) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1100, "height": 620})
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
        page.goto(Path(html).resolve().as_uri())
        page.wait_for_selector(".js-plotly-plot .scatterlayer")
        page.locator(".js-plotly-plot").first.screenshot(path=png)
        browser.close()
    print(f"wrote {png}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
