"""The compiled core: the rules engines and robots built by mypyc, used when they match.

``trickroom.game`` is pure Python, typed ``mypy --strict``, and mypyc compiles the same
source into C extensions: the engines run about twice as fast (``bench/engine.py``) and a
game's analysis about three times (a server's CPU an action moves little: the engines are
a small share of it, ``docs/design.md`` section 13). The compiled modules are optional:
``make run`` and ``make test`` build them where a C compiler is (``python -m
trickroom.compiled build``) and the pure modules are the fallback everywhere else.

They are built apart, into :data:`DEFAULT_DIR` (``trickroom/_compiled``, or
``TRICKROOM_COMPILED_DIR``), with a manifest of the SHA-256 of each source compiled.
A package of the core (``trickroom.game``, ``trickroom.game.robots``) calls
:func:`activate` first thing: when every source still has its manifest's hash and the
build is for this interpreter, the package's ``__path__`` puts the compiled modules
before the sources, and an import finds them first. A source edited since the build
(or ``TRICKROOM_PURE=1``) leaves every package pure: never a stale extension, never half
the core compiled against the other half's older types.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent  # the trickroom package
DEFAULT_DIR = ROOT / "_compiled"
GROUP = "trickroom.game._core"  # the shared library of the compiled modules

# What is compiled: the engines, their events and rules, the robots that play on them and
# the analysis. The rest of ``game`` (reviews, duplicate deals) runs a few times a game and
# stays pure.
MODULES = (
    "trickroom.game.cards",
    "trickroom.game.actions",
    "trickroom.game.events",
    "trickroom.game.outcome",
    "trickroom.game.variants",
    "trickroom.game.trickgame",
    "trickroom.game.spades",
    "trickroom.game.hearts",
    "trickroom.game.engine",
    "trickroom.game.analysis",
    "trickroom.game.robots.base",
    "trickroom.game.robots.position",
    "trickroom.game.robots.sampling",
    "trickroom.game.robots.playout",
    "trickroom.game.robots.bidding",
    "trickroom.game.robots.passing",
    "trickroom.game.robots.spades_heuristic",
    "trickroom.game.robots.hearts_heuristic",
    "trickroom.game.robots.heuristic",
    "trickroom.game.robots.random_robot",
    "trickroom.game.robots.search",
)
PACKAGES = ("trickroom.game", "trickroom.game.robots")


def source_of(module: str) -> Path:
    """The source file of a module of the core."""
    return ROOT.parent.joinpath(*module.split(".")).with_suffix(".py")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compiled_dir() -> Path:
    return Path(os.environ.get("TRICKROOM_COMPILED_DIR") or DEFAULT_DIR)


@cache
def status() -> tuple[bool, str]:
    """Whether the compiled core is used, and why (or why not), in a few words."""
    if os.environ.get("TRICKROOM_PURE") == "1":
        return False, "pure Python (TRICKROOM_PURE=1)"
    where = compiled_dir()
    try:
        manifest = json.loads((where / "manifest.json").read_text())
    except FileNotFoundError:
        return False, "pure Python (not built: python -m trickroom.compiled build)"
    except (OSError, ValueError) as exc:
        return False, f"pure Python (the build's manifest is unreadable: {exc})"
    if manifest.get("cache_tag") != sys.implementation.cache_tag:
        return False, (f"pure Python (built for {manifest.get('cache_tag')}, this is "
                       f"{sys.implementation.cache_tag})")
    sources = manifest.get("sources", {})
    if set(sources) != set(MODULES):
        return False, "pure Python (the build compiled other modules: build again)"
    for module, digest in sources.items():
        try:
            if _digest(source_of(module)) != digest:
                return False, f"pure Python ({module} changed since the build: build again)"
        except OSError:
            return False, f"pure Python ({module} has no source here)"
    return True, f"compiled by mypyc ({len(sources)} modules)"


def activate(package: str, path: list[str]) -> None:
    """Put the compiled modules of ``package`` before its sources on its ``__path__``, if
    the build matches (:func:`status`). Called by each package of the core on import."""
    used, _ = status()
    if not used:
        return
    inside = compiled_dir().joinpath(*package.split(".")[1:])
    if inside.is_dir() and str(inside) not in path:
        path.insert(0, str(inside))


def active() -> bool:
    """Whether the engines running are the compiled ones."""
    from trickroom.game import spades

    return Path(spades.__file__ or "").suffix != ".py"


def build(out: Path | None = None, *, quiet: bool = False) -> Path:
    """Compile :data:`MODULES` with mypyc into ``out`` (default :func:`compiled_dir`), and
    write its manifest last (a build cut short is never used). Raises ``RuntimeError``
    saying why when it cannot (no mypy, no C compiler, a compile error)."""
    import shutil
    import subprocess
    import tempfile

    out = out or compiled_dir()
    try:
        import mypyc  # noqa: F401
    except ImportError as exc:
        raise RuntimeError("mypyc is not installed (it comes with mypy: "
                           "pip install 'trickroom[compiled]')") from exc
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        raise RuntimeError("no C compiler (cc or gcc) on PATH")
    digests = {module: _digest(source_of(module)) for module in MODULES}
    with tempfile.TemporaryDirectory(prefix="trickroom-compile-") as tmp:
        work = Path(tmp)
        # The sources are copied to a folder of their own: setuptools then reads no
        # pyproject.toml of ours, and the build writes nowhere in the checkout.
        for package in ("trickroom", "trickroom.i18n", *PACKAGES):
            folder = source_of(package + ".__init__").parent
            target = work.joinpath(*package.split("."))
            target.mkdir(parents=True, exist_ok=True)
            for file in folder.glob("*.py"):
                shutil.copy2(file, target / file.name)
        (work / "mypy.ini").write_text("[mypy]\npython_version = 3.11\n")
        paths = [str(Path(*m.split(".")).with_suffix(".py")) for m in MODULES]
        (work / "setup.py").write_text(
            "from setuptools import setup\n"
            "from mypyc.build import mypycify\n"
            f"setup(name='trickroom-compiled', ext_modules=mypycify(['--config-file', "
            f"'mypy.ini', *{paths!r}], group_name={GROUP!r}, opt_level='3'))\n")
        done = subprocess.run(
            [sys.executable, "setup.py", "build_ext", "--inplace"], cwd=work,
            capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError("mypyc could not compile the core:\n"
                               + (done.stdout + done.stderr)[-4000:])
        staging = out.with_name(out.name + ".new")
        shutil.rmtree(staging, ignore_errors=True)
        inplace = work / "trickroom"
        built = sorted(inplace.rglob("*.so")) + sorted(inplace.rglob("*.pyd"))
        for file in built:
            relative = file.relative_to(inplace)
            (staging / relative.parent).mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, staging / relative)
        (staging / "manifest.json").write_text(json.dumps(
            {"cache_tag": sys.implementation.cache_tag, "sources": digests}, indent=1))
        shutil.rmtree(out, ignore_errors=True)
        staging.rename(out)
    if not quiet:
        print(f"compiled {len(MODULES)} modules into {out}")
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m trickroom.compiled [build|status]``; ``build --optional`` says why it
    could not build and exits 0 (the pure modules then run), for ``make``."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["build"]:
        try:
            build()
        except RuntimeError as exc:
            if "--optional" not in args:
                print(f"error: {exc}", file=sys.stderr)
                return 1
            print(f"the core stays pure Python: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 0
    if args[:1] in (["status"], []):
        print(status()[1])
        return 0
    print("usage: python -m trickroom.compiled [build [--optional] | status]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
