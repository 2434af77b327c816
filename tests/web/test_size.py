"""The first page stays small: everything the browser loads for it, with no build step."""

from __future__ import annotations

from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "trickroom" / "web"


def test_the_first_page_loads_under_200_kb():
    # index.html loads style.css and js/app.js, which imports every module in js/.
    files = [WEB / "index.html", WEB / "style.css", WEB / "favicon.svg", *WEB.glob("js/*.js")]
    total = sum(f.stat().st_size for f in files)
    assert total < 200_000, f"the first page is {total} bytes"
