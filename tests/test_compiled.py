"""The compiled core (trickroom/compiled.py): used only when it matches the sources, and
both it and the pure fallback pass the rules' tests.

``make test`` builds the core where a C compiler is, so the suite runs on the compiled
engines there; the pure modules then pass the engines' tests here in a process of their
own (``TRICKROOM_PURE=1``), and where the suite runs pure, a build of the core does. CI
sets ``TRICKROOM_REQUIRE_COMPILED=1``: there the core must have been built and be the
one running.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from trickroom import compiled

ROOT = Path(__file__).resolve().parent.parent
REQUIRED = os.environ.get("TRICKROOM_REQUIRE_COMPILED") == "1"


def status_with(env: dict[str, str]) -> str:
    """What a fresh process says of the compiled core under ``env``."""
    done = subprocess.run([sys.executable, "-m", "trickroom.compiled", "status"],
                          env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=60, check=True)
    return done.stdout.strip()


def fake_build(where: Path, **changes: object) -> Path:
    """A manifest as a build writes it, for the sources as they are, with ``changes``."""
    where.mkdir(parents=True, exist_ok=True)
    manifest = {"cache_tag": sys.implementation.cache_tag,
                "sources": {m: compiled._digest(compiled.source_of(m)) for m in compiled.MODULES}}
    manifest.update(changes)
    (where / "manifest.json").write_text(json.dumps(manifest))
    return where


def test_a_build_that_matches_the_sources_is_used(tmp_path):
    assert status_with({"TRICKROOM_COMPILED_DIR": str(fake_build(tmp_path))}).startswith(
        "compiled by mypyc")


def test_a_source_changed_since_the_build_leaves_the_whole_core_pure(tmp_path):
    sources = {m: compiled._digest(compiled.source_of(m)) for m in compiled.MODULES}
    sources["trickroom.game.spades"] = "0" * 64  # spades.py was edited after the build
    said = status_with({"TRICKROOM_COMPILED_DIR": str(fake_build(tmp_path, sources=sources))})
    assert said == "pure Python (trickroom.game.spades changed since the build: build again)"


def test_a_build_for_another_python_or_none_is_not_used(tmp_path):
    other = fake_build(tmp_path / "other", cache_tag="cpython-399")
    assert "built for cpython-399" in status_with({"TRICKROOM_COMPILED_DIR": str(other)})
    assert "not built" in status_with({"TRICKROOM_COMPILED_DIR": str(tmp_path / "none")})
    assert "TRICKROOM_PURE=1" in status_with({"TRICKROOM_PURE": "1"})


def test_the_core_that_was_built_is_the_one_running():
    used, why = compiled.status()
    if REQUIRED:
        assert used, f"TRICKROOM_REQUIRE_COMPILED=1, but the core is {why}"
    # Compiled modules are extensions; the pure ones are the sources themselves.
    assert compiled.active() == used, why


def test_the_other_build_of_the_core_passes_the_engines_tests(tmp_path):
    """The engines' tests in a process on the core this suite does not run on: the pure
    modules if the suite runs compiled, else a build made here."""
    used, why = compiled.status()
    if used:
        env = {"TRICKROOM_PURE": "1"}
    else:
        if shutil.which("cc") is None and shutil.which("gcc") is None and not REQUIRED:
            pytest.skip(f"no C compiler here to build the core ({why})")
        env = {"TRICKROOM_COMPILED_DIR": str(compiled.build(tmp_path / "core", quiet=True))}
    check = subprocess.run(
        [sys.executable, "-c", "from trickroom import compiled; print(compiled.active())"],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=60, check=True)
    assert check.stdout.strip() == str(not used)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-n", "0",
         "tests/game"], cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True,
        timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
