"""Take the README's screenshots of the page: mid-solve and a finished certification.

python docs/screenshots.py [--model DIR]   -> docs/screenshot-solve.png, docs/screenshot-certify.png
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main():
    from sketchpad.certify.browser_backend import page_for, run_page_suite
    from sketchpad.model import DEFAULT_MODEL_DIR
    from sketchpad.server.live import page_server

    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=str(DEFAULT_MODEL_DIR))
    args = ap.parse_args()
    with page_server(args.model) as url, page_for(url, "wasm", query="&speed=2") as page:
        page.set_viewport_size({"width": 1280, "height": 1000})
        out = run_page_suite(page)
        print(out["result_text"])
        page.locator("section[aria-label=certification]").scroll_into_view_if_needed()
        page.screenshot(path=str(ROOT / "docs" / "screenshot-certify.png"), full_page=True)
        page.fill("#expr", "31415926535897932384 * 27182818284590452353")
        page.click("#solve")
        page.wait_for_function(
            "Number(document.getElementById('c-batches').textContent.replace(/,/g, '')) >= 9", timeout=60_000
        )
        page.screenshot(path=str(ROOT / "docs" / "screenshot-solve.png"), full_page=True)
        print("mid-solve at", page.inner_text("#view-line"))


if __name__ == "__main__":
    main()
