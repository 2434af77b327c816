"""The C allocator's free pages go back to the system, so a server's memory follows what it
uses instead of keeping every peak it reached."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from tests.server.conftest import wait_for
from trickroom.server.config import ConfigError, load_config
from trickroom.server.heap import MALLOC_TRIM, HeapTrimmer

GLIBC = platform.libc_ver()[0] == "glibc"


def resident_anonymous_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1])
    raise AssertionError("no RssAnon in /proc/self/status")


def test_memory_freed_between_chunks_still_in_use_goes_back_once_trimmed():
    """64 MiB of 1 KiB objects, every sixteenth kept: glibc keeps the pages of the rest,
    which lie between chunks in use, until they are trimmed."""
    trimmer = HeapTrimmer(10.0)
    if not GLIBC:  # musl, macOS: nothing to call, and nothing done
        assert MALLOC_TRIM is None and not trimmer.trim()
        return
    trimmer.trim()
    chunks = [i.to_bytes(8, "little") * 128 for i in range(64 * 1024)]  # each one written
    kept = chunks[::16]
    del chunks
    before = resident_anonymous_kib()
    trimmer.trim()
    after = resident_anonymous_kib()
    assert before - after > 32 * 1024, (before, after)  # of the 60 MiB freed
    assert len(kept) == 4096 and trimmer.trims == 2


def test_heap_trim_seconds_is_a_number_of_seconds_zero_or_more():
    assert load_config().settings.heap_trim_seconds == 10
    assert not HeapTrimmer(load_config(heap_trim_seconds=0).settings.heap_trim_seconds).works
    for wrong in (-1, "often"):
        with pytest.raises(ConfigError, match="heap_trim_seconds"):
            load_config(heap_trim_seconds=wrong)


async def test_a_server_trims_its_heap_every_heap_trim_seconds(make_app):
    app = await make_app(heap_trim_seconds=0.05)
    assert app.heap.works == GLIBC
    if GLIBC:
        await wait_for(lambda: app.heap.trims >= 2)
