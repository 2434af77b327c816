"""The server finds systems by name and calls them all the same way."""

from __future__ import annotations

import pytest

from tests.ratings.helpers import hearts, spades
from trickroom.ratings import SYSTEMS, UnknownSystem, rate, rate_quit, system_named
from trickroom.ratings.registry import BETTER, FAITHFUL, with_constants


def test_the_presets_by_name():
    assert list(SYSTEMS) == ["zone", "wocg", "points_en", "points_el", "zone_tuned",
                             "wocg_tuned", "openskill", "openskill_tuned", "margin"]
    assert [s.name for s in FAITHFUL] == ["zone", "wocg", "points_en", "points_el"]
    assert all(s.name.startswith(("zone_", "wocg_", "openskill", "margin")) for s in BETTER)


def test_an_unknown_name_lists_the_known_ones():
    with pytest.raises(UnknownSystem, match="known: zone, wocg"):
        system_named("glicko")


def test_a_room_s_refitted_constants_replace_the_preset_s_under_the_same_name():
    system = with_constants("wocg_tuned", {"k": 12, "scale": 300.0})
    assert (system.name, system.k, system.scale) == ("wocg_tuned", 12.0, 300.0)
    assert with_constants("zone", {}) == SYSTEMS["zone"]


@pytest.mark.parametrize(("name", "constants", "message"), [
    ("zone", {"step": 8}, "faithful preset"),
    ("points_en", {"step": 8}, "faithful preset"),
    ("openskill_tuned", {"tau": 1.0}, "no refitted constant 'tau'; it has beta, sigma"),
    ("zone_tuned", {"step": 0}, "must be a positive number"),
    ("zone_tuned", {"step": "8"}, "must be a positive number"),
    ("glicko", {"beta": 1.0}, "no rating system named"),
])
def test_constants_a_preset_does_not_refit_are_refused(name, constants, message):
    with pytest.raises(UnknownSystem, match=message):
        with_constants(name, constants)


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_every_system_rates_both_games_and_predicts(name):
    system = SYSTEMS[name]
    ratings = {p: system.start_rating for p in "ABCD"}
    assert len(rate(spades(name, "ABCD", "NS"), ratings)) == 4
    assert len(rate(hearts(name, {"A": 20, "B": 40, "C": 60, "D": 100}), ratings)) == 4
    assert sum(system.win_probability("spades", "ABCD", ratings)) == pytest.approx(1)
    assert system.win_probability("hearts", "ABCD", ratings) == pytest.approx((0.25,) * 4)


def test_rate_quit_only_where_the_system_rates_quits_at_once():
    from trickroom.ratings import Departure

    r = spades("wocg", "ABCD", "NS", departures=[Departure("B", "quit", 1)])
    ratings = {p: SYSTEMS["wocg"].start_rating for p in "ABCD"}
    assert rate_quit(r, ratings, "B") is not None
    r = spades("zone", "ABCD", "NS", departures=[Departure("B", "quit", 1)])
    assert rate_quit(r, ratings, "B") is None


def test_the_package_never_imports_game_or_server():
    import ast
    import pathlib

    from trickroom import ratings

    for path in pathlib.Path(ratings.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [m for m in names
                    if m.startswith(("trickroom.game", "trickroom.server"))], path.name
