"""A short ``bench.abuse`` guesser: it gets a handful of checks, not one a guess."""

from __future__ import annotations

from bench import abuse


async def test_a_guesser_gets_a_handful_of_checks_whatever_it_sends(tmp_path):
    checked, _, codes = await abuse.guess_run(20, tmp_path)
    assert checked <= 10 and codes.get("bad_credentials", 0) == checked
    assert codes.get("rate_limited", 0) == 20 - checked  # the rest refused, unchecked
