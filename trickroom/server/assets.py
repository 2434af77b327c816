"""The web client's files as the port sends them: compressed once, fingerprinted, cached.

The client has no build step: ``index.html`` loads ``style.css`` and ``js/app.js``,
which imports the other modules by relative path. So the fingerprint is of the whole
folder: every file is also served under ``/v/<version>/<path>``, where the version is a
hash of every file's name and bytes, and the page is sent rewritten to load its files
from there (a module's relative imports then resolve under the same version). A
versioned file never changes (a change makes another version), so it is sent
``Cache-Control: public, max-age=31536000, immutable`` and a browser does not ask for
it again; the page itself, and any file asked for without a version, is sent
``no-cache`` with an ``ETag``, so a repeat visit costs one ``304 Not Modified`` of a few
hundred bytes (issue 33, item 16: every visit had downloaded 153 KB, ``no-store`` and
uncompressed).

Text files are gzipped once, when the server starts (level 9; brotli would save a
little more at the cost of a dependency), and sent so to a browser that accepts it.
The files are read when the server starts: a changed client is served after a restart.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
PREFIX = "/v/"
# What is worth compressing: text, of more than a packet's size.
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")
SMALLEST_GZIPPED = 1024
# A reference of the page to a file of its own: href="style.css", src="js/app.js".
LOCAL_REFERENCE = re.compile(r'(href|src)="(?![a-z]+:|/|#)([^"]+)"')


@dataclass(frozen=True, slots=True)
class Asset:
    """One file as sent: its bytes, gzipped too where that pays, its type and its tag."""

    body: bytes
    gzipped: bytes | None
    kind: str
    etag: str


@functools.lru_cache(maxsize=512)
def _asset(body: bytes, name: str) -> Asset:
    """A file as sent, made once a process for the same name and bytes: gzip at level 9
    was most of what starting a server cost, and a process that starts several servers
    (a test suite starts hundreds) compressed the same files again for each."""
    kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind == "application/javascript":
        kind += "; charset=utf-8"
    gzipped = None
    if kind.startswith(COMPRESSIBLE) and len(body) >= SMALLEST_GZIPPED:
        gzipped = gzip.compress(body, compresslevel=9, mtime=0)
    return Asset(body, gzipped, kind, f'"{hashlib.sha256(body).hexdigest()[:20]}"')


class Assets:
    """Every file under ``root``, by its path, and the version they make together."""

    def __init__(self, root: Path) -> None:
        files = {p.relative_to(root).as_posix(): p.read_bytes()
                 for p in sorted(root.rglob("*")) if p.is_file()}
        digest = hashlib.sha256()
        for name, body in files.items():
            digest.update(name.encode() + b"\0" + hashlib.sha256(body).digest())
        self.version = digest.hexdigest()[:16]
        self.prefix = f"{PREFIX}{self.version}/"
        page = files.get("index.html")
        if page is not None:
            files["index.html"] = LOCAL_REFERENCE.sub(
                lambda m: f'{m[1]}="{self.prefix}{m[2]}"', page.decode()).encode()
        self._files = {name: _asset(body, name) for name, body in files.items()}

    def find(self, path: str) -> tuple[Asset, bool] | None:
        """The file at ``path`` (the page for ``/``) and whether it is a versioned one,
        or None. An old version's path is not found: its files are gone."""
        versioned = path.startswith(self.prefix)
        relative = path[len(self.prefix):] if versioned else path.lstrip("/")
        asset = self._files.get(relative or "index.html")
        return None if asset is None else (asset, versioned)
