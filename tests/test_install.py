"""``pip install .`` (not editable) gives a server that finds its rooms and its web client."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_installed_copy_serves_the_web_client_and_the_default_rooms(tmp_path):
    source = tmp_path / "source"  # a copy: the build's own files stay out of the checkout
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    # The server ships the Python client's package from its own folder (no PyPI package).
    for folder in ("trickroom", "clients/python/src"):
        shutil.copytree(ROOT / folder, source / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                    "--target", str(target), str(source)], check=True, timeout=240)
    shutil.rmtree(source)  # nothing may be read from the source tree
    # Packages of our own name in site-packages: nothing called game, server or web
    # to clash with other software; the client's package, typed, beside the server's.
    installed = {p.name for p in target.iterdir() if not p.name.endswith((".dist-info",
                                                                          ".egg-info"))}
    assert installed == {"trickroom", "trickroom_client"} | ({"bin"} & installed), installed
    assert (target / "trickroom_client" / "py.typed").exists()
    assert (target / "trickroom/i18n/locale/el/LC_MESSAGES/messages.po").exists()
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(target), "XDG_DATA_HOME": str(tmp_path / "data")}
    server = subprocess.Popen(
        [sys.executable, "-c", "import sys; from trickroom.server.cli import main; "
         "import trickroom, trickroom_client; "
         "assert trickroom.__file__.startswith(sys.argv[1]), trickroom.__file__; "
         "assert trickroom_client.__file__.startswith(sys.argv[1]), trickroom_client.__file__; "
         f"main(['serve', '--port', '{port}'])", str(target)],
        cwd=tmp_path, env=env, stderr=subprocess.PIPE)
    try:
        page = rooms = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and server.poll() is None:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/").read()
                script = urllib.request.urlopen(f"http://127.0.0.1:{port}/js/app.js").read()
                rooms = urllib.request.urlopen(f"http://127.0.0.1:{port}/api/rooms").read()
                break
            except OSError:
                time.sleep(0.2)
        assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
        assert page is not None and b"<script" in page and b"import" in script
        assert rooms is not None and b"spades-zone" in rooms
        # The catalogs come with it (package data): the rules form reads in Greek.
        rules = urllib.request.urlopen(f"http://127.0.0.1:{port}/api/rules?lang=el").read()
        assert "Παιχνίδι μέχρι (πόντους)" in rules.decode("unicode_escape")
    finally:
        server.terminate()
        server.wait(10)
