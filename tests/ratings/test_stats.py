"""Stats kept beside a rating: counted from the result and the change, as a pure function."""

from __future__ import annotations

from tests.ratings.helpers import at, spades
from trickroom.ratings import (
    SYSTEMS,
    Departure,
    GameResult,
    NilRecord,
    PlayerStats,
    Rating,
    Seat,
    Standing,
    apply_changes,
    record,
)

EVEN = at(A=1500, B=1500, C=1500, D=1500)


def test_a_win_counts_a_game_a_win_and_the_new_rating():
    r = spades("wocg", "ABCD", "NS")
    a = SYSTEMS["wocg"].rate(r, EVEN)[0]
    s = record(PlayerStats(), r, a)
    assert (s.games, s.wins, s.losses, s.ties, s.incomplete, s.quits) == (1, 1, 0, 0, 0, 0)
    assert s.history == (1525.0,)


def test_nil_numbers_and_the_skill_ratio_accumulate():
    seats = (Seat(0, "A", nil=NilRecord(bid=1, made=1, faced=2, set_opponents=1)),
             Seat(1, "B"), Seat(2, "C"), Seat(3, "D"))
    r = GameResult("spades", "wocg", "random_queue", seats, (500, 300, 500, 300))
    a = SYSTEMS["wocg"].rate(r, EVEN)[0]
    s = record(record(PlayerStats(), r, a), r, a)
    assert (s.nil_faced, s.nil_set, s.nil_bid, s.nil_made) == (4, 2, 2, 2)
    assert s.skill_ratio == 0.5


def test_a_wocg_quit_counts_a_loss_an_incomplete_game_and_a_quit():
    r = spades("wocg", "ABCD", "NS", departures=[Departure("D", "quit", 2)])
    d = SYSTEMS["wocg"].rate_quit(r, EVEN, "D")
    assert d is not None
    s = record(PlayerStats(), r, d)
    assert (s.games, s.losses, s.incomplete, s.quits) == (1, 1, 1, 1)


def test_a_zone_leaver_is_charged_an_incomplete_game_and_nothing_else():
    r = spades("zone", "ABCD", "NS", departures=[Departure("D", "dropped", 2, "dont_wait")])
    changes = {c.player: c for c in SYSTEMS["zone"].rate(r, at(A=1600, B=1600, C=1600, D=1600))}
    d = record(PlayerStats(), r, changes["D"])
    a = record(PlayerStats(), r, changes["A"])
    assert (d.games, d.incomplete, d.quits, d.history) == (0, 1, 0, ())
    assert a == PlayerStats()


def test_apply_changes_builds_a_new_book_and_leaves_the_old_one():
    r = spades("wocg", "ABCD", "EW")
    book = {("A", "spades", "wocg"): Standing(Rating(1500))}
    new = apply_changes(book, r, SYSTEMS["wocg"].rate(r, EVEN), start=Rating(1500))
    assert book == {("A", "spades", "wocg"): Standing(Rating(1500))}
    assert new[("A", "spades", "wocg")].rating == Rating(1475.0)
    assert new[("B", "spades", "wocg")].stats.wins == 1
    assert len(new) == 4


def test_an_unrated_change_keeps_the_rating():
    r = spades("zone", "ABCD", "NS", robots=[3])
    a = SYSTEMS["zone"].rate(r, at(A=1600, B=1600, C=1600))[0]
    assert Standing(Rating(1600)).after(r, a) == Standing(Rating(1600))
