"""A short ``bench/abuse.py``: a password guesser gets a handful of checks, not a thousand."""

from __future__ import annotations

from tests.load.conftest import bench_module


async def test_a_guesser_gets_a_handful_of_checks_whatever_it_sends(tmp_path):
    abuse = bench_module("abuse")
    checked, _, codes = await abuse.guess_run(60, tmp_path)
    assert checked <= 20 and codes.get("bad_credentials", 0) == checked
    assert codes.get("rate_limited", 0) == 60 - checked  # the rest refused, unchecked
