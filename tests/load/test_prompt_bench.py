"""``bench.prompt``: a prompt's view with the game's kept hand results, against the same
view with its results made afresh, by the hand of a long game; and its kept tricks at the
last trick of a hand, against them made afresh."""

from __future__ import annotations

import math

from bench import prompt


def test_both_ways_send_the_same_view_at_the_tenth_hand():
    game = prompt.game_at(10, seed=1)
    assert game.hand_no == 9 and len(game.hand_results) == 9 and game.to_act is not None
    assert prompt.kept(game, game.to_act) == prompt.afresh(game, game.to_act)


def test_both_ways_send_the_same_view_at_the_last_trick():
    game = prompt.game_at(1, seed=1, trick=13)
    assert len(game.tricks) == 12 and not game.trick and game.to_act is not None
    assert prompt.kept(game, game.to_act) == prompt.tricks_afresh(game, game.to_act)


def test_the_bench_prints_its_figures_on_its_last_line(capsys):
    assert prompt.main(["--repeat", "3"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    name, *pairs = last.split()
    figures = dict(pair.split("=") for pair in pairs)
    assert name == "prompt" and set(figures) == {
        "view_us_hand1", "view_us_hand10", "view_us_hand15", "afresh_us_hand10", "ratio_hand10",
        "view_us_trick13", "afresh_us_trick13", "ratio_trick13"}
    assert all(math.isfinite(float(v)) and float(v) > 0 for v in figures.values())
