"""Every drop path of every room policy, every vote outcome and every timer, at the machine.

The rules are DESIGN section 7's (from the seed pages): casual rooms hand a
dropped seat to a robot at once; Zone rooms pause and vote Wait / Don't wait;
WoCG rooms rate a quit at once, ban for an hour and open the seat to a
substitute or an invited robot; points rooms end the game after the hand.
"""

from __future__ import annotations

import random

import pytest

from tests.server.tables.harness import NOW, Bench, bench
from tests.server.tables.test_machine import play_out
from trickroom.server.tables.commands import CastVote, Rejoin, Sit, Stand
from trickroom.server.tables.records import Banned, GameEnded, Rated, SeatsChanged
from trickroom.server.tables.seats import VOTE_CHOICES


def four(room: str, rules: dict | None = None, **settings) -> Bench:
    long = {"target": 100} if "hearts" in room else {"target": 500, "mercy": 500}
    table = bench(room, rules or long, **settings)
    table.seat_four()
    assert table.machine.state.phase == "playing"
    return table


def play(table: Bench, actions: int, clients=(1, 2, 3, 4)) -> None:
    """Play on (players answer, robots move) until ``actions`` more actions are in."""
    target = len(table.machine.state.game.actions) + actions
    play_out(table, clients, until=lambda: len(table.machine.state.game.actions) >= target)


def hand_over(table: Bench) -> bool:
    return table.machine.state.game.phase == "hand_over" or table.machine.state.phase != "playing"


# -- casual ---------------------------------------------------------------------------------


def test_casual_a_dropped_seat_is_played_by_its_robot_at_once():
    table = four("spades")
    play(table, 6)
    seat = table.machine.state.game.to_act
    table.drop(seat + 1)
    assert table.machine.state.seats[seat].away and f"window-{seat}" in table.timers
    assert f"robot-{seat}" in table.timers and f"turn-{seat}" not in table.timers
    acted = len(table.machine.state.game.actions)
    table.fire(f"robot-{seat}")
    assert len(table.machine.state.game.actions) == acted + 1


def test_casual_a_player_back_within_the_window_has_the_seat_again():
    table = four("spades")
    play(table, 6)
    seat = table.machine.state.game.to_act
    table.drop(seat + 1)
    table.rejoin(seat + 1, new_client=9)
    assert table.machine.state.seats[seat].client == 9 and f"window-{seat}" not in table.timers
    assert table.prompts(9)


def test_casual_after_the_window_the_seat_is_the_robot_s_and_stored_so():
    table = four("spades")
    table.drop(2)
    table.fire("window-1")
    seat = table.machine.state.seats[1]
    assert seat.kind == "robot" and seat.name == "p2 (robot)" and seat.token_hash is None
    assert isinstance(table.stored[-1], SeatsChanged)
    assert table.stored[-1].seats[1]["kind"] == "robot"
    dead = Rejoin(table.who(9, "p2"), None, table.tokens[2], 0)  # the token is dead
    assert table.refused(dead).code == "not_authorized"
    assert table.machine.state.seats[1].client is None


def test_casual_leaving_during_a_game_hands_the_seat_to_a_robot_at_once():
    table = four("spades")
    table.do(Stand(table.who(3), None))
    assert table.machine.state.seats[2].kind == "robot"
    assert table.events(1, "quit") == []  # not a quit in a casual room


# -- Zone: pause and vote --------------------------------------------------------------------


def zone_drop(room: str = "spades-zone", who: int = 2) -> Bench:
    table = four(room)
    play(table, 5)
    table.drop(who)
    return table


def test_zone_a_drop_pauses_the_game_and_asks_the_others():
    table = zone_drop()
    started = table.events(1, "vote_started")[-1]
    assert started["kind"] == "wait" and started["voters"] == [0, 2, 3]
    assert started["choices"] == ["wait", "dont_wait"] and started["player"] == "p2"
    assert table.machine.state.paused and "vote" in table.timers
    assert not any(k.startswith(("robot-", "turn-")) for k in table.timers)
    to_act = table.machine.state.game.to_act
    if to_act != 1:
        error = table.refused(CastVote(table.who(to_act + 1), None, "nope", "wait"))
        assert error.code == "wrong_phase"


def test_zone_all_wait_keeps_the_game_paused_until_the_window_ends_then_asks_again():
    table = zone_drop()
    for client in (1, 3, 4):
        table.vote(client, "wait")
    assert table.events(1, "vote_result")[-1]["outcome"] == "wait"
    assert table.machine.state.paused == "waiting for p2 to return"
    acted = len(table.machine.state.game.actions)
    assert table.run_timers() == 0 and len(table.machine.state.game.actions) == acted
    table.fire("window-1")
    assert len(table.events(1, "vote_started")) == 2 and "window-1" in table.timers


def test_zone_no_answer_counts_as_wait():
    table = zone_drop()
    table.vote(1, "wait")
    table.fire("vote")
    assert table.events(1, "vote_result")[-1]["outcome"] == "wait" and table.machine.state.paused


def test_zone_any_dont_wait_hands_the_seat_to_a_robot_unrated_and_charges_the_leaver():
    table = zone_drop()
    table.vote(1, "wait")
    table.vote(3, "dont_wait")
    assert table.events(1, "vote_result")[-1]["outcome"] == "dont_wait"
    assert table.machine.state.seats[1].kind == "robot" and not table.machine.state.paused
    departure = table.machine.state.ranked.departures[-1]
    assert (departure.player, departure.how, departure.vote) == ("p2", "dropped", "dont_wait")
    play_out(table, (1, 3, 4))
    rated = next(r for r in table.stored if isinstance(r, Rated))
    changes = {c.player: c for c in rated.changes}
    assert not any(changes[p].rated for p in ("p1", "p3", "p4"))
    assert table.events(1, "game_over")[-1]["ratings"] == [c.to_wire() for c in rated.changes]


def test_zone_a_player_back_during_the_vote_ends_it_and_the_game_goes_on():
    table = zone_drop()
    table.vote(1, "wait")
    table.rejoin(2, new_client=9)
    assert table.events(1, "vote_result")[-1]["outcome"] == "returned"
    assert table.events(1, "resumed") and not table.machine.state.paused
    play_out(table, (1, 9, 3, 4))
    rated = next(r for r in table.stored if isinstance(r, Rated))
    assert all(c.rated for c in rated.changes)


def test_zone_a_turn_refused_during_the_pause_is_prompted_again_after_it():
    table = zone_drop(who=2)
    to_act = table.machine.state.game.to_act + 1
    before = len(table.prompts(to_act)) if to_act != 2 else 0
    table.rejoin(2, new_client=9)
    client = 9 if to_act == 2 else to_act
    assert len(table.prompts(client)) == before + 1


def test_zone_leaving_on_purpose_is_a_quit_at_once():
    table = four("spades-zone")
    table.do(Stand(table.who(4), None))
    quit_event = table.events(1, "quit")[-1]
    assert (quit_event["seat"], quit_event["player"], quit_event["rating"]) == (3, "p4", None)
    assert table.machine.state.ranked.departures[-1].how == "quit"
    assert table.machine.state.seats[3].kind == "robot" and table.machine.state.vote is None


def test_zone_hearts_rates_each_opponent_and_a_dont_wait_leaves_it_unrated():
    table = zone_drop("hearts-zone", who=3)
    table.vote(1, "dont_wait")
    play_out(table, (1, 2, 4))
    over = table.events(1, "game_over")[-1]
    assert {c["player"] for c in over["ratings"]} == {"p1", "p2", "p3", "p4"}


# -- WoCG: quits rated at once, substitutes, invited robots ------------------------------------


def test_wocg_a_drop_is_played_by_the_robot_without_a_pause():
    table = four("spades-wocg")
    table.drop(2)
    assert not table.machine.state.paused and table.machine.state.vote is None
    assert table.machine.state.ranked.first_disconnect == "p2"


def test_wocg_not_back_in_time_is_a_quit_rated_at_once_and_banned_an_hour():
    table = four("spades-wocg")
    table.drop(2)
    table.fire("window-1")
    rated = [r for r in table.stored if isinstance(r, Rated)]
    banned = [r for r in table.stored if isinstance(r, Banned)]
    assert len(rated) == 1 and rated[0].changes[0].player == "p2"
    assert rated[0].changes[0].after.value == pytest.approx(1600 - 25)  # K 25, equal teams
    assert banned == [Banned("p2", NOW + 3600, "quit a ranked game")]
    quit_event = table.events(1, "quit")[-1]
    assert quit_event["rating"]["delta"] == pytest.approx(-25)
    assert quit_event["banned_until"] and table.machine.state.ranked.departures[-1].how == "dropped"
    assert table.machine.state.ranked.open_seats == {1}
    assert table.events(1, "vote_started")[-1]["kind"] == "invite_robot"


def test_wocg_a_substitute_takes_the_open_seat_unrated_and_leaving_reopens_it():
    table = four("spades-wocg")
    table.do(Stand(table.who(2), None))
    assert table.events(1, "quit")[-1]["player"] == "p2"
    assert table.refused(Sit(table.who(2), None, 1)).code == "not_eligible"
    table.sit(7, 1)
    seat = table.machine.state.seats[1]
    assert seat.substitute and seat.client == 7 and table.machine.state.ranked.open_seats == set()
    assert isinstance(table.stored[-1], SeatsChanged) and table.events(1, "substitute")
    assert table.inbox[7][0]["type"] == "snapshot"
    table.do(Stand(table.who(7), None))
    assert (table.machine.state.seats[1].kind == "robot"
            and table.machine.state.ranked.open_seats == {1})


def test_wocg_the_others_may_invite_a_robot_by_majority():
    table = four("spades-wocg")
    table.do(Stand(table.who(1), None))
    table.vote(2, "yes")
    table.vote(3, "yes")
    table.vote(4, "no")
    assert table.events(2, "vote_result")[-1]["outcome"] == "robot"
    assert table.machine.state.ranked.open_seats == set()
    assert table.refused(Sit(table.who(8), None, 0)).code == "table_full"


@pytest.mark.parametrize("answers", [("no", "no", "yes"), ()])
def test_wocg_without_a_majority_or_an_answer_the_seat_stays_open(answers):
    table = four("spades-wocg")
    table.do(Stand(table.who(1), None))
    for client, choice in zip((2, 3, 4), answers, strict=False):
        table.vote(client, choice)
    if not answers:
        table.fire("vote")
    assert table.events(2, "vote_result")[-1]["outcome"] == "no"
    assert table.machine.state.ranked.open_seats == {0}


def test_wocg_back_within_the_window_is_no_quit_and_everyone_is_rated():
    table = four("spades-wocg", {"target": 100, "mercy": 100})
    table.drop(3)
    table.rejoin(3, new_client=9)
    assert not table.machine.state.ranked.departures
    play_out(table, (1, 2, 9, 4))
    rated = next(r for r in table.stored if isinstance(r, Rated))
    assert {c.player for c in rated.changes if c.rated} == {"p1", "p2", "p3", "p4"}


def test_wocg_a_quitter_is_not_rated_again_at_the_end():
    table = four("spades-wocg", {"target": 100, "mercy": 100})
    table.do(Stand(table.who(4), None))
    table.fire("vote")
    play_out(table, (1, 2, 3))
    final = [r for r in table.stored if isinstance(r, Rated)][-1]
    assert "p4" not in {c.player for c in final.changes}


# -- points: the game ends after the hand ------------------------------------------------------


def test_points_a_drop_ends_the_game_after_the_hand_with_the_multipliers():
    table = four("spades-points")
    play(table, 3)
    table.drop(2)
    play_out(table, (1, 3, 4))
    over = table.events(1, "game_over")[-1]
    assert over["abandoned"] and len(table.machine.state.game.hand_results) == 1
    changes = {c["player"]: c["delta"] for c in over["ratings"]}
    assert sum(changes.values()) == pytest.approx(0.0)
    if changes["p1"] > 0:  # p2's side lost: opponents 1, disconnected -3/2, partner -1/2
        assert changes["p2"] == pytest.approx(-1.5 * changes["p1"])
        assert changes["p4"] == pytest.approx(-0.5 * changes["p1"])
    else:  # p2's side won: disconnected 0, partner 1/2, opponents -1/4
        assert changes["p2"] == pytest.approx(0.0)
        assert changes["p1"] == pytest.approx(-0.5 * changes["p4"])
    ended = next(r for r in table.stored if isinstance(r, GameEnded))
    assert ended.ratings == tuple(over["ratings"])


def test_points_back_before_the_hand_ends_the_game_goes_on():
    table = four("spades-points")
    play(table, 3)
    table.drop(2)
    table.rejoin(2, new_client=9)
    play_out(table, (1, 9, 3, 4), until=lambda: len(table.machine.state.game.hand_results) >= 2)
    assert table.machine.state.phase == "playing" and table.events(1, "game_over") == []


def test_points_leaving_is_a_quit_and_the_game_ends_after_the_hand():
    table = four("hearts-points")
    table.do(Stand(table.who(3), None))
    assert table.events(1, "quit")[-1]["player"] == "p3"
    play_out(table, (1, 2, 4))
    over = table.events(1, "game_over")[-1]
    assert over["abandoned"] and len(table.machine.state.game.hand_results) == 1


# -- votes: bad input ------------------------------------------------------------------------


def test_a_vote_from_a_non_voter_a_second_vote_a_bad_choice_and_a_stale_id_are_refused():
    table = zone_drop()
    vote = table.machine.state.vote
    cases = [
        (CastVote(table.who(9), None, vote.id, "wait"), "not_seated"),
        (CastVote(table.who(1), None, vote.id, "maybe"), "invalid_field"),
        (CastVote(table.who(1), None, "000000", "wait"), "wrong_phase"),
    ]
    for command, code in cases:
        assert table.refused(command).code == code
    table.vote(1, "wait")
    assert table.refused(CastVote(table.who(1), None, vote.id, "dont_wait")).code == \
        "invalid_field"
    for client in (3, 4):
        table.vote(client, "wait")
    late = table.refused(CastVote(table.who(3), None, vote.id, "dont_wait"))
    assert late.code == "wrong_phase" and table.machine.state.seats[1].kind == "human"


def test_the_player_voted_about_may_not_vote():
    table = four("spades-wocg")
    table.do(Stand(table.who(1), None))
    table.sit(7, 0)  # a substitute came: not a voter of the vote that opened before
    vote = table.machine.state.vote
    assert table.refused(CastVote(table.who(7), None, vote.id, "yes")).code == "not_authorized"


def test_casual_tables_have_no_votes():
    table = four("spades")
    assert table.refused(CastVote(table.who(1), None, "abc", "wait")).code == "wrong_phase"


def test_every_policy_s_game_ends_with_random_drops_and_returns():
    """A smoke run over every room: drops, returns and quits at random, the game still ends."""
    for room in ("spades", "hearts", "spades-zone", "hearts-zone", "spades-wocg",
                 "hearts-wocg", "spades-points", "hearts-points"):
        rng = random.Random(room)
        table = four(room, {"target": 100} if "hearts" in room else {"target": 100,
                                                                        "mercy": 100})
        clients = {1, 2, 3, 4}
        for _ in range(400):
            if table.machine.state.phase != "playing":
                break
            roll = rng.random()
            client = rng.choice(sorted(clients))
            if roll < 0.02:
                table.drop(client)
            elif roll < 0.04 and table.machine.state.vote:
                vote = table.machine.state.vote
                voter = rng.choice(sorted(vote.voters))
                if voter not in vote.cast and table.machine.state.seats[voter].connected:
                    table.do(CastVote(table.who(voter + 1), None, vote.id,
                                      rng.choice(VOTE_CHOICES[vote.kind])))
            else:
                play(table, 1, tuple(clients))
                for key in [k for k in table.timers if k.startswith(("window", "vote"))]:
                    if rng.random() < 0.1:
                        table.fire(key)
        play_out(table, clients, until=lambda: False)


def test_wocg_a_substitute_not_back_in_time_reopens_the_seat_and_quits_no_one():
    """Found by the property test: the starter was charged a second quit for it."""
    table = four("spades-wocg")
    table.do(Stand(table.who(1), None))
    table.sit(5, 0)
    table.drop(5)
    table.fire("window-0")
    state = table.machine.state
    assert state.seats[0].kind == "robot" and state.ranked.open_seats == {0}
    assert [d.player for d in table.machine.state.ranked.departures] == ["p1"]
    assert len([r for r in table.stored if isinstance(r, Banned)]) == 1


def test_wocg_a_substitute_may_not_hold_two_seats():
    """Found by the property test: one account in two seats made the game unrateable."""
    table = four("spades-wocg")
    table.do(Stand(table.who(2), None))
    table.sit(5, 1)
    table.drop(5)  # away, but the seat is still theirs
    table.do(Stand(table.who(3), None))
    assert table.refused(Sit(table.who(5), None, 2)).code == "seat_taken"


def test_wocg_a_substitute_who_sits_at_the_seat_whose_turn_it_is_is_prompted():
    # Found by the table's property test: the turn had been prompted to the quitter, and
    # "once per turn" kept it from the substitute, who waited with no prompt.
    table = four("spades-wocg")
    index = min(table.machine.state.game.awaiting)
    quitter = index + 1  # four(): the player at seat i is client i + 1
    assert any(m["type"] == "prompt" for m in table.inbox[quitter])
    table.do(Stand(table.who(quitter), None))
    table.sit(7, index)  # before the seat's robot moves
    assert table.inbox[7][0]["type"] == "snapshot"
    prompts = [m for m in table.inbox[7] if m["type"] == "prompt"]
    assert len(prompts) == 1 and prompts[0]["seat"] == index and prompts[0]["legal"]
