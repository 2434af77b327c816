"""The table machine, commands in and effects out: a game's life, prompts, timers, refusals.

No socket, clock or database: each test feeds commands to a ``Bench`` (which
does what the runner does, synchronously) and reads what was stored, sent and
scheduled.
"""

from __future__ import annotations

import json
import random
from dataclasses import fields

import pytest

from tests.server.tables.harness import Bench, bench
from trickroom.game.actions import Bid, action_from_wire
from trickroom.server.tables import effects as fx
from trickroom.server.tables.commands import (
    Act,
    CastVote,
    Chat,
    Fill,
    PlayAgain,
    Rejoin,
    RobotChose,
    Sit,
    Stand,
    Start,
    Unwatch,
    Watch,
    Who,
)
from trickroom.server.tables.effects import Persist, Send
from trickroom.server.tables.records import ActionTaken, GameCreated, GameEnded


def fingerprint(table: Bench) -> tuple[object, ...]:
    """Everything a refused command must leave as it was: every field of the table's state
    (a field added later included), the game as a spectator sees it, and the log's seq."""
    m = table.machine
    state = {f.name: getattr(m.state, f.name) for f in fields(m.state)}
    game, timers = state.pop("game"), state.pop("timers")
    return (repr(timers), repr(state), m.log.seq, len(game.actions) if game else None,
            repr(game.view(None)) if game else None)


TIMERS = 0
"""Where a fingerprint holds the table's timers."""


def play_out(table: Bench, clients=(1, 2, 3, 4), seed: int = 0, until=None,
             limit: int = 20_000) -> None:
    """Everyone answers prompts at random (robots and deals too) until ``until`` or game over."""
    rng = random.Random(seed)
    for _ in range(limit):
        if until is not None and until():
            return
        if table.machine.state.phase != "playing":
            return
        acted = any([table.answer(c, rng) for c in clients])
        if not acted and not table.run_timers(limit=1, keys=("robot-", "deal")):
            if until is None:
                raise AssertionError(f"stuck: timers {list(table.timers)}")
            return
    raise AssertionError("the game never ended")


# -- a game's life --------------------------------------------------------------------------


def test_four_seats_start_a_game_stored_before_anyone_hears_of_it():
    table = bench()
    table.seat_four()
    assert table.machine.state.phase == "playing"
    persist = next(i for i, e in enumerate(table.effects) if isinstance(e, Persist))
    first_deal = next(i for i, e in enumerate(table.effects)
                      if isinstance(e, Send) and b'"dealt"' in e.message.data)
    assert persist < first_deal
    assert isinstance(table.stored[0], GameCreated)
    assert table.stored[0].seats[0]["account"] == "p1"


def test_each_seat_is_dealt_its_own_cards_only():
    table = bench()
    table.seat_four()
    for client in (1, 2, 3, 4):
        dealt = table.events(client, "dealt")
        assert [d["seat"] for d in dealt] == [client - 1]
        assert len(dealt[0]["cards"]) == 13


def test_an_action_is_acknowledged_only_after_it_is_stored():
    table = bench()
    table.seat_four()
    first = table.machine.state.game.to_act + 1
    table.answer(first)
    effects = table.effects
    persisted = max(i for i, e in enumerate(effects) if isinstance(e, Persist))
    bid_sent = next(i for i, e in enumerate(effects)
                    if isinstance(e, Send) and b'"event":{"type":"bid"' in e.message.data)
    assert persisted < bid_sent
    assert isinstance(table.stored[-1], ActionTaken)
    assert table.inbox[first][-1]["type"] == "ok" or any(
        m["type"] == "ok" for m in table.inbox[first])


def test_a_failed_write_undoes_the_action_and_tells_the_player():
    table = bench()
    table.seat_four()
    first = table.machine.state.game.to_act + 1
    before = fingerprint(table)
    heard = {c: len(table.inbox[c]) for c in (1, 2, 3, 4)}
    table.fail_writes = 1
    table.act(first, {"type": "bid", "value": 3})
    assert fingerprint(table) == before  # the game, the log, the timers: all as they were
    error = table.inbox[first][-1]
    assert error["type"] == "error" and error["code"] == "unavailable"  # send it again
    assert error["retry_after"] > 0
    assert error["message"].startswith("the server could not confirm it stored that")
    sent = table.effects[-1]
    assert isinstance(sent, fx.Send) and sent.message.localize is not None
    greek = json.loads(sent.message.localize("el"))  # a Greek reader's (issue 37)
    assert {k: v for k, v in greek.items() if k != "message"} == {
        k: v for k, v in error.items() if k != "message"}
    assert greek["message"].startswith("ο διακομιστής")
    assert all(len(table.inbox[c]) == heard[c] for c in (1, 2, 3, 4) if c != first)
    assert any(n.event == "store_failed" for n in table.notes)
    table.act(first, {"type": "bid", "value": 3})  # the store is back: the same bid goes in
    assert table.stored_actions()[-1].action == {"type": "bid", "value": 3}


def test_a_failed_write_of_a_robot_s_move_is_tried_again_shortly():
    table = bench()
    table.sit(1, 0)
    table.do(Fill(table.who(1), None, "random"))
    while table.machine.state.game.to_act == 0:  # seat 0 bids first: answer it
        table.answer(1)
    table.fail_writes = 1
    key = next(k for k in table.timers if k.startswith("robot-"))
    acted = len(table.machine.state.game.actions)
    table.fire(key)
    assert len(table.machine.state.game.actions) == acted
    assert "retry" in table.timers
    table.fire("retry")
    table.fire(key)
    assert len(table.machine.state.game.actions) == acted + 1


def test_the_whole_game_ends_stored_rated_and_over():
    table = bench(rules={"target": 250, "mercy": 250})
    table.seat_four()
    play_out(table)
    ended = [r for r in table.stored if isinstance(r, GameEnded)]
    assert len(ended) == 1 and ended[0].casual_players == ("p1", "p2", "p3", "p4")
    over = table.events(1, "game_over")
    assert len(over) == 1 and over[0]["ratings"] == []
    assert table.machine.state.phase == "over"
    assert len(table.stored_actions()) == len(table.machine.state.game.actions)


def test_a_game_shorter_than_half_its_rooms_target_counts_toward_no_eligibility():
    """Issue 32, item 7: five games to one point, a hand each, with a second account of
    one's own, made an account eligible for ranked play in 0.6 s."""
    for target, counted in ((1, ()), (249, ()), (250, ("p1", "p2", "p3", "p4"))):
        table = bench(rules={"target": target, "mercy": 250})
        table.seat_four()
        play_out(table)
        [ended] = [r for r in table.stored if isinstance(r, GameEnded)]
        assert ended.casual_players == counted, target


def test_accounts_of_one_address_group_count_as_one_player_toward_eligibility():
    """Issue 32, item 7: one person's accounts (one address group) count as one player: a
    game counts only with registered players from two groups, then for each account."""
    everyone = ("p1", "p2", "p3", "p4")
    for groups, counted in ((("a", "a", "a", "a"), ()), (("a", "a", "a", "b"), everyone),
                            (("a", "", "", ""), everyone)):  # "": unknown, each its own
        table = bench(rules={"target": 250, "mercy": 250})
        for seat, group in enumerate(groups):
            client = seat + 1
            table.do(Sit(Who(client, f"p{client}", False, group), client * 100, seat))
        play_out(table)
        [ended] = [r for r in table.stored if isinstance(r, GameEnded)]
        assert ended.casual_players == counted, groups


def test_play_again_starts_a_new_game_once_every_player_asked():
    table = bench(rules={"target": 100, "mercy": 100})
    table.seat_four()
    play_out(table)
    first = table.machine.state.game_id
    for client in (1, 2, 3):
        table.do(PlayAgain(table.who(client), None))
        assert table.machine.state.phase == "over"
    table.do(PlayAgain(table.who(4), None))
    assert table.machine.state.phase == "playing" and table.machine.state.game_id != first


@pytest.mark.parametrize("comes_back", [True, False])
def test_a_player_who_drops_as_the_game_ends_keeps_their_seat_for_a_moment(comes_back):
    """The others' instant *play again* used to start the next game at once, with a robot
    in the seat of a player whose connection had dropped a moment before (a deploy moves
    every player at once): their rejoin was then refused. They are waited for the grace;
    back in it, they play the next game; not back, a robot takes the seat after it."""
    table = bench(rules={"target": 100, "mercy": 100}, resume_grace_seconds=5.0)
    table.seat_four()
    play_out(table, until=lambda: len(table.machine.state.game.actions) > 40)
    table.drop(4)
    play_out(table, clients=(1, 2, 3))  # the others finish the game, a robot for 4
    assert table.machine.state.phase == "over"
    for client in (1, 2, 3):
        table.do(PlayAgain(table.who(client), None))
    assert table.machine.state.phase == "over"  # the away player is waited for
    if comes_back:
        table.now += 4.0
        table.rejoin(4)
        table.do(PlayAgain(table.who(4), None))
        assert table.machine.state.phase == "playing"
        assert table.machine.state.seats[3].connected
    else:
        table.now += 5.0
        table.fire("again")
        assert table.machine.state.phase == "playing"
        assert table.machine.state.seats[3].kind == "robot"


# -- prompts and turns ---------------------------------------------------------------------


def test_a_turn_is_prompted_once_while_others_pass():
    table = bench("hearts")
    table.seat_four()
    assert all(len(table.prompts(c)) == 1 for c in (1, 2, 3, 4))
    table.answer(1)
    table.answer(2)
    assert len(table.prompts(3)) == 1 and len(table.prompts(4)) == 1


def test_a_turn_clock_does_not_restart_when_another_seat_acts():
    table = bench("hearts")
    table.seat_four()
    clock = table.timers["turn-3"]
    table.answer(1)
    table.answer(2)
    assert table.timers["turn-3"] == clock
    assert sum(1 for e in table.effects if getattr(e, "key", None) == "turn-3") == 1


def test_a_player_out_of_time_has_their_turn_played_once_by_the_robot():
    table = bench("hearts")
    table.seat_four()
    table.fire("turn-2")  # seat 2, client 3
    passed = table.events(3, "passed")
    assert len(passed) == 1 and passed[0]["seat"] == 2
    err = table.refused(Act(table.who(3), None, {"type": "pass",
                                                 "cards": table.prompts(3)[-1]["hand"][:3]}))
    assert err.code in ("wrong_phase", "illegal_action", "not_your_turn")


def test_a_rejoining_player_is_prompted_again():
    table = bench()
    table.seat_four()
    first = table.machine.state.game.to_act + 1
    table.drop(first)
    table.rejoin(first, new_client=9)
    assert table.prompts(9) and table.prompts(9)[-1]["seat"] == first - 1


def test_a_seat_s_own_connection_rejoining_to_catch_up_tells_no_one_else():
    """Catching up changes no seat: the others hear nothing of it and the lobby no change
    (told to everyone, a player asking again and again was a write to each of them)."""
    table = bench()
    table.seat_four()
    seq = table.machine.log.seq
    before = {c: len(table.inbox[c]) for c in (1, 3, 4)}
    lobby = len(table.lobby)
    for _ in range(5):
        table.rejoin(2, last_seq=seq)  # seat 1's own connection, still there
    assert {c: len(table.inbox[c]) for c in (1, 3, 4)} == before
    assert len(table.lobby) == lobby
    assert [m["type"] for m in table.inbox[2][-5:]] == ["ok"] * 5
    table.drop(2)  # a real return is told: the seat is no longer away
    table.rejoin(2, new_client=9, last_seq=seq)
    assert table.events(1, "table")[-1]["info"]["seats"][1]["away"] is False


def test_a_robot_answer_for_a_seat_its_player_took_back_is_dropped():
    """The flake: a robot played an away seat's turn after its player came back and was
    prompted, so the player's answer to that prompt was refused. A robot's answer is only
    for a seat still robot-played, at the same turn."""
    table = bench()
    table.seat_four()
    first = table.machine.state.game.to_act + 1
    seat = first - 1
    table.drop(first)
    robot_turn = table.timers[f"robot-{seat}"]
    table.rejoin(first, new_client=9)
    assert f"robot-{seat}" not in table.timers  # the robot's move is cancelled...
    acted = len(table.machine.state.game.actions)
    # ...and its answer, if it was already thinking, comes too late.
    table.do(RobotChose(seat, robot_turn.turn, Bid(3)))
    assert len(table.machine.state.game.actions) == acted
    assert any(n.event == "stale_robot" for n in table.notes)
    table.answer(9)  # the player's answer to the rejoin prompt is accepted
    assert len(table.machine.state.game.actions) == acted + 1


def test_a_stale_pass_from_a_robot_is_dropped():
    table = bench("hearts")
    table.seat_four()
    table.drop(2)
    turn = table.timers["robot-1"].turn
    table.rejoin(2, new_client=7)
    cards = table.prompts(7)[-1]["hand"][:3]
    table.do(RobotChose(1, turn, action_from_wire({"type": "pass", "cards": cards})))
    assert table.events(7, "passed") == []


# -- refusals change nothing ----------------------------------------------------------------


def test_out_of_turn_illegal_and_unseated_actions_are_refused_and_change_nothing():
    table = bench()
    table.seat_four()
    to_act = table.machine.state.game.to_act + 1
    other = to_act % 4 + 1
    before = fingerprint(table)
    cases = [
        (Act(table.who(other), 1, {"type": "bid", "value": 3}), "not_your_turn"),
        (Act(table.who(to_act), 2, {"type": "bid", "value": 14}), "illegal_action"),
        (Act(table.who(to_act), 3, {"type": "play", "card": "2C"}), "wrong_phase"),
        (Act(table.who(to_act), 4, {"type": "dance"}), "invalid_field"),
        (Act(table.who(8), 5, {"type": "bid", "value": 3}), "not_seated"),
        (Sit(table.who(1), 6, 1), "seat_taken"),
        (Sit(table.who(8), 7, None), "table_full"),
        (Fill(table.who(1), 8, "random"), "table_full"),
        (PlayAgain(table.who(1), 9), "wrong_phase"),
        (Stand(table.who(8), 10), "not_seated"),
        (CastVote(table.who(1), 11, "abc", "wait"), "wrong_phase"),
        (Chat(table.who(8), 12, "hi"), "not_seated"),
    ]
    for command, code in cases:
        assert table.refused(command).code == code, command
        assert fingerprint(table) == before, command


def test_a_game_starts_only_with_four_seats_filled():
    table = bench()
    table.sit(1, 0)
    assert table.refused(Start(table.who(1), None)).code == "wrong_phase"
    assert table.machine.state.phase == "waiting"


def test_a_seat_taken_or_a_ranked_room_s_refusal_is_named():
    table = bench()
    table.sit(1, 0)
    assert table.refused(Sit(table.who(2), None, 0)).code == "seat_taken"
    ranked = bench("spades-zone")
    error = ranked.refused(Sit(ranked.who(1), None, 0, refusal="not experienced yet"))
    assert error.code == "not_eligible" and error.message == "not experienced yet"
    assert ranked.refused(Fill(ranked.who(1), None)).code == "not_authorized"


def test_random_seating_draws_the_seat_whatever_was_asked():
    drawn = set()
    for seed in range(12):
        table = bench(seating="random_seating", seed=seed)
        table.sit(1, 0)
        drawn.add(table.machine.seat_of(1).index)
    assert len(drawn) > 1


# -- watchers and chat ------------------------------------------------------------------------


def test_a_watcher_sees_public_events_and_no_hand():
    table = bench()
    table.do(Watch(table.who(9), 1))
    table.seat_four()
    snapshot = table.inbox[9][0]
    assert snapshot["type"] == "snapshot" and snapshot["view"] is None
    assert table.events(9, "dealt") == [] and table.events(9, "game_started")
    table.do(Unwatch(table.who(9), 2))
    heard = len(table.inbox[9])
    table.answer(table.machine.state.game.to_act + 1)
    assert len(table.inbox[9]) == heard


def test_chat_skips_those_who_ignore_the_sender():
    table = bench()
    table.seat_four()
    table.do(Chat(table.who(1), None, "hello", frozenset({"p3"})))
    heard = {c for c in (1, 2, 3, 4) if any(m["type"] == "chat" for m in table.inbox[c])}
    assert heard == {1, 2, 4}


# -- the table's life ----------------------------------------------------------------------


def test_a_waiting_table_nobody_sits_at_closes_when_idle():
    table = bench()
    assert "idle" in table.timers
    table.sit(1, 0)
    assert "idle" not in table.timers  # someone sits: no expiry
    table.do(Stand(table.who(1), None))
    table.fire("idle")
    assert table.machine.state.phase == "closed" and table.closed == "nobody sat at the table"
    assert table.lobby[-1].state == "closed"


def test_a_finished_table_closes_when_its_last_player_leaves():
    table = bench(rules={"target": 100, "mercy": 100})
    table.seat_four()
    table.do(Watch(table.who(9), None))
    play_out(table)
    for client in (1, 2, 3):
        table.do(Stand(table.who(client), None))
        assert table.machine.state.phase == "over"
    table.drop(4)
    assert table.machine.state.phase == "closed"
    assert table.events(9, "closed")[0]["reason"] == "the game is over and every player has left"
    assert table.timers == {}
    error = table.refused(Sit(table.who(5), 42, None))
    assert error.code == "no_such_table" and error.request_id == 42


def test_a_robots_only_table_closes_as_its_game_ends():
    table = bench(rules={"target": 100, "mercy": 100})
    table.sit(1, 0)
    table.do(Fill(table.who(1), None, "random"))
    table.do(Stand(table.who(1), None))  # leaves during the game: a robot keeps the seat
    table.run_timers()
    assert table.machine.state.phase == "closed"
    assert any(isinstance(r, GameEnded) for r in table.stored)


def test_a_finished_table_left_idle_closes():
    table = bench(rules={"target": 100, "mercy": 100})
    table.seat_four()
    play_out(table)
    table.fire("idle")
    assert table.machine.state.phase == "closed"


def test_a_player_who_dropped_at_the_end_may_still_come_back_to_the_result():
    table = bench(rules={"target": 100, "mercy": 100})
    table.seat_four()
    play_out(table, until=lambda: len(table.machine.state.game.actions) > 20)
    table.drop(2)
    for client in (1, 3, 4):
        table.do(Stand(table.who(client), None))
    table.run_timers()  # robots finish the game
    assert table.machine.state.phase == "over"  # seat 1 is still p2's until the window ends
    table.rejoin(2, new_client=6)
    assert table.inbox[6][-1]["type"] in ("snapshot", "event")
    table.drop(6)
    assert table.machine.state.phase == "closed"


@pytest.mark.parametrize("room", ["spades", "hearts"])
def test_the_log_is_bounded(room):
    table = bench(room, rules={"target": 100}, event_log_size=50)
    table.seat_four()
    play_out(table)
    assert len(table.machine.log) == 50


def test_a_connection_holds_one_seat_a_seat_token_cannot_give_it_a_second():
    """Found by the property test: a seated connection rejoining with another seat's token
    held both seats and was dealt both hands."""
    table = bench()
    table.seat_four()
    table.drop(1)
    error = table.refused(Rejoin(table.who(2, "p1"), None, table.tokens[1], 0))
    assert error.code == "seat_taken" and "already sits at seat 1" in error.message
    assert table.machine.state.seats[0].away


def test_a_failed_write_just_after_a_new_deal_keeps_the_new_hand():
    """Found by the property test: undoing the first bid of a new hand replayed the stored
    actions, which stop at the end of the hand before, and the table went back to it."""
    table = bench(rules={"target": 500, "mercy": 500})
    table.seat_four()
    rng = random.Random(1)
    while table.machine.state.game.hand_no == 0:
        if not any(table.answer(client, rng) for client in (1, 2, 3, 4)):
            table.run_timers(keys=("deal",))
    game = table.machine.state.game
    assert game.phase == "bid" and not any(b is not None for b in game.bids)
    before = game.view(None)
    table.fail_writes = 1
    table.act(game.to_act + 1, {"type": "bid", "value": 3})
    assert table.failed  # refused: nothing stored
    assert table.machine.state.game.hand_no == 1 and table.machine.state.game.view(None) == before


# -- chances and turns ----------------------------------------------------------------------------


def test_a_ranked_game_s_chances_start_with_it_and_a_failed_start_leaves_none():
    from trickroom.server.tables.commands import Resume

    t = bench("spades-zone")
    t.standing = 1650.0
    t.fail_writes = 1  # the game's creation is not stored: no game, no chances
    t.seat_four()
    m = t.machine
    assert m.state.phase == "waiting" and m.state.chances is None and m.info().chances is None
    t.fire("retry")
    assert m.state.phase == "playing" and m.state.chances == [0.5, 0.5]
    [started] = t.events(1, "game_started")
    assert started["system"] == "zone" and started["chances"] == [0.5, 0.5]
    assert t.lobby[-1].chances == [0.5, 0.5]
    # A restarted server's table tells them again once the standings are read.
    again = bench("spades-zone")
    again.do(Resume(m.state.game, m.state.game_id, tuple(s.stored() for s in m.state.seats)))
    assert again.machine.state.chances == [0.5, 0.5] and again.lobby[-1].chances == [0.5, 0.5]


def test_a_failed_action_leaves_no_turn_behind_and_the_next_event_tells_the_true_one():
    t = bench("spades")
    t.sit(1, 0)
    t.do(Fill(t.who(1), None, "random"))
    t.run_timers()
    m = t.machine
    assert m.state.game.to_act == 0
    turns = [msg["turn"] for msg in t.inbox[1] if msg["type"] == "event" and "turn" in msg]
    assert turns[-1] == {"phase": m.state.game.phase, "to_act": 0, "awaiting": [0]}
    seq = m.log.seq
    t.fail_writes = 1
    t.answer(1)
    assert m.log.seq == seq and m.state.game.to_act == 0  # undone: nothing numbered, nothing sent
    t.answer(1)
    mine = [msg for msg in t.inbox[1] if msg["type"] == "event" and msg["seq"] == seq + 1]
    assert mine and mine[0]["turn"]["to_act"] == 1


# -- a game resumed on another server ----------------------------------------------------------


def test_a_resumed_games_robots_wait_for_the_away_players_before_playing_for_them():
    """A deploy or a fail-over moves a game to another server, and every player is away
    for the moment it takes to reconnect. They did not leave: their robots wait
    ``resume_grace_seconds`` for them (at a robot delay of 0, a bench's robots had played
    out whole games meanwhile, and their players' rejoins were refused)."""
    from trickroom.server.tables.commands import Resume
    from trickroom.server.tables.effects import SetTimer

    t = bench("spades", resume_grace_seconds=5.0)
    t.seat_four()
    t.run_timers(keys=("deal",))
    m = t.machine
    assert m.state.game.phase == "bid"
    again = bench("spades", resume_grace_seconds=5.0)
    again.tokens = t.tokens
    again.do(Resume(m.state.game, m.state.game_id, tuple(s.stored() for s in m.state.seats)))
    to_act = again.machine.state.game.to_act
    [robot] = [e for e in again.effects if isinstance(e, SetTimer) and e.key.startswith("robot-")]
    assert robot.delay == 5.0  # not the robot's own delay (0 here): the grace
    # The player is back within it: prompted, and the robot's timer gone.
    again.rejoin(to_act + 1)
    assert again.prompts(to_act + 1)[-1]["seq"] > 0
    assert robot.key not in again.timers
    # Another who never comes back: once the grace is over, the robot plays for them.
    again.act(to_act + 1, {"type": "bid", "value": 3})
    nxt = again.machine.state.game.to_act
    assert nxt != to_act
    again.now += 5.0
    again.fire(f"robot-{nxt}")
    assert again.machine.state.game.bids[nxt] is not None
