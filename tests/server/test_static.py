"""The web client's files: gzipped, fingerprinted and cached, so that a repeat visit
downloads almost nothing (issue 33, item 16: 153 KB every visit, ``no-store``,
uncompressed)."""

from __future__ import annotations

import asyncio
import gzip
import re
from pathlib import Path

from trickroom.server.assets import Assets

WEB = Path(__file__).resolve().parents[2] / "trickroom" / "web"


async def browse(app, path: str, *headers: str) -> tuple[int, dict[str, str], bytes, int]:
    """GET ``path`` as a browser would (accepting gzip): status, headers, body (as sent)
    and the whole answer's size in bytes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", app.port)
    head = "".join(f"{h}\r\n" for h in ("Accept-Encoding: gzip, deflate, br", *headers))
    writer.write(f"GET {path} HTTP/1.1\r\nHost: localhost\r\n{head}Connection: close\r\n\r\n"
                 .encode())
    await writer.drain()
    raw = await reader.read()
    writer.close()
    top, _, body = raw.partition(b"\r\n\r\n")
    lines = top.decode().split("\r\n")
    return (int(lines[0].split()[1]), dict(line.split(": ", 1) for line in lines[1:]), body,
            len(raw))


def text_of(headers: dict[str, str], body: bytes) -> str:
    return (gzip.decompress(body) if headers.get("Content-Encoding") == "gzip" else body).decode()


async def page_files(app) -> list[str]:
    """Every file the first page loads: its links, and the modules app.js imports, and
    theirs."""
    _, headers, body, _ = await browse(app, "/")
    page = text_of(headers, body)
    found = re.findall(r'(?:href|src)="(/[^"]+)"', page)
    modules = [p for p in found if p.endswith(".js")]
    while modules:
        path = modules.pop()
        _, headers, body, _ = await browse(app, path)
        for name in re.findall(r'from "\./([^"]+)"', text_of(headers, body)):
            child = path.rsplit("/", 1)[0] + "/" + name
            if child not in found:
                found.append(child)
                modules.append(child)
    return found


async def test_the_page_loads_every_file_by_its_version_and_keeps_it_for_good(app):
    files = await page_files(app)
    assert len(files) > 10  # the style sheet, the icon and every module
    first = (await browse(app, "/"))[3]
    for path in files:
        status, headers, body, size = await browse(app, path)
        first += size
        assert status == 200 and path.startswith("/v/"), path
        assert headers["Cache-Control"] == "public, max-age=31536000, immutable", path
        if len(gzip.decompress(body) if headers.get("Content-Encoding") else body) > 1024:
            assert headers["Content-Encoding"] == "gzip", path
            assert headers["Vary"] == "Accept-Encoding"
    raw = sum(p.stat().st_size for p in WEB.rglob("*") if p.is_file())
    assert first < raw / 2, (first, raw)  # compressed: less than half the files' size


async def test_a_repeat_visit_downloads_under_five_kilobytes(app):
    status, headers, _, _ = await browse(app, "/")
    assert status == 200 and headers["Cache-Control"] == "no-cache"
    # The browser keeps every versioned file (immutable) and asks only whether the page
    # itself changed.
    status, headers, body, size = await browse(app, "/", f"If-None-Match: {headers['ETag']}")
    assert status == 304 and body == b""
    assert size <= 5_000
    assert "Content-Security-Policy" in headers  # a 304 is secured as every answer


async def test_an_unversioned_path_is_revalidated_and_an_old_version_is_gone(app):
    status, headers, _, _ = await browse(app, "/js/app.js")
    assert status == 200 and headers["Cache-Control"] == "no-cache"
    status, _, _, _ = await browse(app, "/v/0000000000000000/js/app.js")
    assert status == 404


def test_a_changed_file_makes_a_new_version(tmp_path):
    (tmp_path / "js").mkdir()
    (tmp_path / "index.html").write_text('<link href="style.css"><script src="js/a.js">'
                                         '</script><a href="#/">home</a>')
    (tmp_path / "style.css").write_text("body { color: red }")
    (tmp_path / "js" / "a.js").write_text("export const a = 1;")
    before = Assets(tmp_path)
    page = before.find("/")
    assert page is not None
    assert page[0].body.decode() == (f'<link href="/v/{before.version}/style.css"><script '
                                     f'src="/v/{before.version}/js/a.js"></script>'
                                     '<a href="#/">home</a>')
    (tmp_path / "js" / "a.js").write_text("export const a = 2;")
    after = Assets(tmp_path)
    assert after.version != before.version
    assert after.find(f"/v/{before.version}/js/a.js") is None
    assert after.find(f"/v/{after.version}/js/a.js") is not None
