"""Load, crash and fuzz tests: they start ``bench/load.py``'s pieces (a server process, bots)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def bench_module(name: str):
    """Import ``bench/<name>.py`` (bench is scripts, not a package)."""
    if name in sys.modules:
        return sys.modules[name]
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run_bench(name: str, *args: str) -> tuple[str, dict[str, str]]:
    """Run ``bench/<name>.py`` with ``args`` (it must succeed); its output and the
    ``key=value`` figures of its last line."""
    run = subprocess.run([sys.executable, str(BENCH / f"{name}.py"), *args],
                         capture_output=True, text=True, timeout=240, cwd=BENCH.parent)
    assert run.returncode == 0, run.stderr[-2000:]
    last = run.stdout.strip().splitlines()[-1]
    return run.stdout, dict(re.findall(r"(\w+)=([\d.]+)", last))
