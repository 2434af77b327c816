"""The first page stays small: everything the browser loads for it, with no build step,
as it goes over the wire (gzipped where that pays, server/assets.py)."""

from __future__ import annotations

from pathlib import Path

from trickroom.server.assets import Assets

WEB = Path(__file__).resolve().parents[2] / "trickroom" / "web"


def test_the_first_page_downloads_under_100_kb():
    # index.html loads style.css and js/app.js, which imports every module in js/, and
    # js/i18n.js the active language's catalog alone: the largest is counted (issue 37).
    assets = Assets(WEB)
    catalogs = sorted(WEB.glob("locales/*.json"))
    assert {p.stem for p in catalogs} >= {"en", "el"}
    largest = max(catalogs, key=lambda p: _sent(assets, f"/locales/{p.name}"))
    names = ["/", "/style.css", "/favicon.svg", f"/locales/{largest.name}",
             *(f"/js/{p.name}" for p in sorted(WEB.glob("js/*.js")))]
    total = 0
    for name in names:
        found = assets.find(name)
        assert found is not None, name
        asset = found[0]
        total += len(asset.gzipped if asset.gzipped is not None else asset.body)
    assert total < 100_000, f"the first page downloads {total} bytes"


def _sent(assets: Assets, name: str) -> int:
    found = assets.find(name)
    assert found is not None, name
    asset = found[0]
    return len(asset.gzipped if asset.gzipped is not None else asset.body)
