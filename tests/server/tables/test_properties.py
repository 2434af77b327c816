"""Random command sequences, good and bad, against the machine: its invariants always hold.

* No message carries a card its receiver may not see: a private event
  (``dealt``, ``passed``, ``received``) reaches only the connection holding its
  seat, and a view (snapshot or prompt) shows a hand only to that seat's own.
* A refused command changes nothing and sends nothing.
* Nothing is told before it is stored: a ``Persist`` comes alone, and no
  connection hears of more actions of a game than the store holds; a command
  whose write fails leaves the table as it was.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.server.tables.harness import Bench, bench
from tests.server.tables.test_machine import TIMERS, fingerprint
from trickroom.server.protocol import ProtocolError
from trickroom.server.tables.commands import (
    Act,
    CastVote,
    Chat,
    Command,
    Disconnect,
    Fill,
    PlayAgain,
    Rejoin,
    Sit,
    Stand,
    Start,
    Unwatch,
    Watch,
)
from trickroom.server.tables.effects import Send
from trickroom.server.tables.records import ActionTaken

ROOMS = ["spades", "hearts", "spades-zone", "hearts-zone", "spades-wocg", "hearts-wocg",
         "spades-points", "hearts-points"]
CLIENTS = st.integers(1, 6)
PRIVATE = ("dealt", "passed", "received")
ACTION_EVENTS = ("bid", "played", "pass_chosen", "looked")
JUNK_ACTIONS = [{"type": "bid", "value": 99}, {"type": "play", "card": "ZZ"}, {"type": "x"},
                {"type": "pass", "cards": ["2C"]}, {"type": "play", "card": "AS"},
                {"type": "bid", "value": 0, "blind": True}, {}]


class Audit:
    """What the invariants need to remember across commands."""

    def __init__(self) -> None:
        self.action_seqs: dict[str, set[int]] = defaultdict(set)  # game -> seqs told

    def check_sends(self, table: Bench, start: int) -> None:
        machine = table.machine
        seat_of = {s.client: s.index for s in machine.state.seats if s.client is not None}
        stored: dict[str, int] = defaultdict(int)
        for record in table.stored:
            if isinstance(record, ActionTaken):
                stored[record.game_id] += 1
        for effect in table.effects[start:]:
            if not isinstance(effect, Send):
                continue
            message = json.loads(effect.message.data)
            for client in effect.to:
                self.check_one(client, seat_of.get(client), message)
            if message.get("type") == "event" and message["event"]["type"] in ACTION_EVENTS:
                game = machine.state.game_id or ""
                self.action_seqs[game].add(message["seq"])
                assert len(self.action_seqs[game]) <= stored[game], "told before stored"

    @staticmethod
    def check_one(client: int, seat: int | None, message: dict[str, Any]) -> None:
        if message.get("type") == "event":
            event = message["event"]
            if event["type"] in PRIVATE:
                assert event["seat"] == seat, f"{event['type']} of seat {event['seat']} " \
                                              f"sent to client {client} at seat {seat}"
        view = message.get("view")
        if message.get("type") in ("snapshot", "prompt") and view:
            assert view["seat"] in (None, seat), "another seat's view"
            if view["seat"] is None:
                assert view["hand"] == []
        if message.get("type") == "prompt":
            assert message["seat"] == seat


def draw_command(data: st.DataObject, table: Bench) -> Command | str:
    """One command a client (or the world) might send now: often sensible, sometimes not."""
    machine = table.machine
    client = data.draw(CLIENTS)
    who = table.who(client)
    kind = data.draw(st.sampled_from(
        ["act", "act", "act", "act", "timer", "timer", "timer", "sit", "sit", "stand",
         "watch", "unwatch", "fill", "start", "again", "drop", "rejoin", "vote", "chat",
         "junk", "fail", "burst", "burst"]))
    if kind == "burst":
        return "burst"
    if kind == "act":
        game = machine.state.game
        turns = [s.client for s in machine.state.seats if s.client is not None and game
                 and s.index in game.awaiting]
        if turns and data.draw(st.integers(0, 9)) > 0:  # mostly the player whose turn it is
            client = data.draw(st.sampled_from(turns))
            who = table.who(client)
        seat = machine.seat_of(client)
        if game and seat and seat.index in game.awaiting and table.prompts(client):
            prompt = table.prompts(client)[-1]
            if prompt["phase"] == "pass":
                cards = data.draw(st.permutations(prompt["hand"]))[:prompt["pass_count"]]
                return Act(who, 1, {"type": "pass", "cards": cards})
            if prompt["legal"]:
                return Act(who, 1, data.draw(st.sampled_from(prompt["legal"])))
        kind = "junk"
    if kind == "junk":
        return Act(who, 2, data.draw(st.sampled_from(JUNK_ACTIONS)))
    if kind == "timer":
        # An idle table closing ends the story: let that happen now and then only.
        keys = sorted(k for k in table.timers if k != "idle" or data.draw(st.integers(0, 19)) == 0)
        if not keys:
            return "nothing"
        return table.timers[data.draw(st.sampled_from(keys))]
    if kind == "sit":
        return Sit(who, 3, data.draw(st.none() | st.integers(0, 3)))
    if kind == "rejoin":
        if not table.tokens:
            return "nothing"
        owner = data.draw(st.sampled_from(sorted(table.tokens)))  # maybe someone else's
        return Rejoin(table.who(client, f"p{owner}"), 4, table.tokens[owner],
                      data.draw(st.sampled_from([0, 1, machine.log.seq - 3, machine.log.seq])))
    if kind == "vote":
        vote = machine.state.vote
        vote_id = vote.id if vote and data.draw(st.booleans()) else "zzz"
        return CastVote(who, 5, vote_id,
                        data.draw(st.sampled_from(["wait", "dont_wait", "yes", "no", "?"])))
    if kind == "fail":
        return "fail"
    simple: dict[str, Command] = {
        "stand": Stand(who, 6), "watch": Watch(who, 7), "unwatch": Unwatch(who, 8),
        "fill": Fill(who, 9, "random"), "start": Start(who, 10), "again": PlayAgain(who, 11),
        "drop": Disconnect(client), "chat": Chat(who, 12, "hi"),
    }
    return simple[kind]


def next_move(table: Bench) -> Command | None:
    """What happens next in a game nobody disturbs: a prompted player answers (the first
    legal action, or the first cards of a pass), else a robot's or the deal's timer fires."""
    machine = table.machine
    game = machine.state.game
    if game is None or machine.state.phase != "playing" or machine.state.paused:
        return None
    for seat in machine.state.seats:
        if seat.client is not None and seat.index in game.awaiting and table.prompts(seat.client):
            prompt = table.prompts(seat.client)[-1]
            if prompt["phase"] == "pass":
                action = {"type": "pass", "cards": prompt["hand"][:prompt["pass_count"]]}
            else:
                action = prompt["legal"][-1]
            return Act(table.who(seat.client), 13, action)
    key = next((k for k in sorted(table.timers) if k.startswith(("robot-", "deal", "turn-"))),
               None)
    return table.timers[key] if key else None


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), room=st.sampled_from(ROOMS), seed=st.integers(0, 2**16))
def test_random_commands_keep_hands_hidden_refusals_harmless_and_writes_first(data, room,
                                                                             seed):
    target = data.draw(st.sampled_from([10, 100]))  # short games end within the sequence
    rules = {"target": target} if "hearts" in room else {"target": target, "mercy": target}
    table = bench(room, rules, seed=seed)
    audit = Audit()
    for client in range(1, data.draw(st.integers(0, 4)) + 1):  # a head start: seats taken
        table.sit(client)
    if (table.machine.state.phase == "waiting" and not table.machine.room.rated
            and table.machine.seat_of(1) is not None and data.draw(st.booleans())):
        table.do(Fill(table.who(1), None, "random"))
    for _ in range(data.draw(st.integers(10, 120))):
        if table.machine.state.phase == "closed":
            break
        command = draw_command(data, table)
        if command == "nothing":
            continue
        if command == "fail":
            table.fail_writes = 1
            continue
        if command == "burst":  # the game goes on for a while: turns answered, robots move
            for _ in range(data.draw(st.integers(1, 60))):
                step = next_move(table)
                if step is None:
                    break
                start = len(table.effects)
                table.do(step)
                audit.check_sends(table, start)
            continue
        assert isinstance(command, Command)
        start = len(table.effects)
        before = fingerprint(table)
        failing = table.fail_writes
        table.failed.clear()
        try:
            if isinstance(command, Sit) and command.who.client not in table.tokens:
                table.do(command)
                seated = [m for m in table.inbox[command.who.client] if m["type"] == "seated"]
                if seated:
                    table.tokens[command.who.client] = seated[-1]["seat_token"]
            else:
                table.do(command)
        except ProtocolError:
            assert fingerprint(table) == before, f"{command} was refused but changed the table"
            assert len(table.effects) == start, f"{command} was refused but did something"
            continue
        audit.check_sends(table, start)
        if failing and table.failed[-1:] == [command]:  # its write failed: no trace of it
            after = fingerprint(table)
            # All but the timers: a timer's own key is spent, and a retry may be set.
            assert after[TIMERS + 1:] == before[TIMERS + 1:], \
                f"{command} failed to store but changed the table"
