"""Duplicate rooms (issue 39), over the live socket: each game's deals are a board set's,
played at two tables in Spades (the second one's seats shifted one place) and four in
Hearts; a table is told how the same cards went at the others only once every table has
played the deal, and nothing of a deal reaches anyone (socket, API, review) who has yet
to play it."""

from __future__ import annotations

import asyncio
import json
import random
from contextlib import AsyncExitStack
from typing import Any

import pytest

from tests.server.conftest import (
    choose,
    guests,
    http_get,
    next_pushed,
    play_until_over,
    url,
)
from tests.server.refusals import refused
from trickroom.game.duplicate import field_margins, to_board
from trickroom.server.client import TrickroomClient
from trickroom.server.tables import board

RULES = {"hand_limit": 2}


async def duplicate_table(client: TrickroomClient, room: str) -> str:
    """A table of ``room`` with the client at seat 0 and robots in the others (it starts)."""
    made = await client.request({"type": "create_table", "room": room, "rules": RULES})
    table = made["table"]["id"]
    assert made["table"]["duplicate"] is True and made["table"]["board"] is None
    await client.request({"type": "sit", "table": table, "seat": 0})
    await client.request({"type": "fill_robots", "table": table})
    return str(table)


def events(client: TrickroomClient, kind: str) -> list[dict[str, Any]]:
    return [m["event"] for m in client.received
            if m.get("type") == "event" and m["event"]["type"] == kind]


def board_of(client: TrickroomClient, table: str) -> dict[str, Any]:
    """The table's board set as its last table line said it."""
    lines = [m["event"]["info"] for m in client.received if m.get("type") == "event"
             and m["event"]["type"] == "table" and m["event"]["info"]["id"] == table]
    boards = [line["board"] for line in lines if line.get("board")]
    assert boards, "the table never said its board set"
    return dict(boards[-1])


async def review(app: Any, game_id: str) -> tuple[int, dict[str, Any] | None]:
    status, _, body = await http_get(app, f"/api/games/{game_id}")
    return status, json.loads(body) if status == 200 else None


def cards_in(text: str, hands: list[list[str]]) -> bool:
    """Whether ``text`` (a message as received) holds a hand of ``hands`` as a hand (its
    cards in order, as a hand is sent)."""
    return any(json.dumps(hand)[1:-1] in text for hand in hands)


async def test_a_spades_board_set_is_played_at_two_tables_the_cards_swapped(app):
    async with AsyncExitStack() as stack:
        ann, bob = await guests(stack, app, "ann", "bob")
        first = await duplicate_table(ann, "spades-duplicate")
        await play_until_over(ann, first, random.Random(1))
        board_a = board_of(ann, first)
        assert board_a["slot"] == 0 and board_a["tables"] == 2
        # The other table has not played: nothing of the field, and no review of the game.
        assert not events(ann, "board_deal") and not events(ann, "board_result")
        info = await ann.request({"type": "list_tables", "room": "spades-duplicate"})
        game_id = next(t["game_id"] for t in info["tables"] if t["id"] == first)
        assert (await review(app, game_id))[0] == 404

        # Ann may not play the same set again: her next table takes a new one.
        again = await duplicate_table(ann, "spades-duplicate")
        await next_pushed(ann, "event", lambda m: m["event"]["type"] == "game_started")
        assert board_of(ann, again)["board_set"] != board_a["board_set"]
        await ann.request({"type": "stand", "table": again})

        # Bob's table takes the free table of the set: seats shifted one place.
        second = await duplicate_table(bob, "spades-duplicate")
        await play_until_over(bob, second, random.Random(2))
        board_b = board_of(bob, second)
        assert board_b["board_set"] == board_a["board_set"] and board_b["slot"] == 1
        deal_a = await next_pushed(ann, "event", lambda m: m["event"]["type"] == "board_deal")
        result_a = await next_pushed(ann, "event",
                                     lambda m: m["event"]["type"] == "board_result")
        await next_pushed(bob, "event", lambda m: m["event"]["type"] == "board_result")

        # Now the review: Bob (seat 0, second table) held what East held at Ann's table.
        status, record = await review(app, game_id)
        assert status == 200 and record is not None
        hands_a = record["record"]["deals"]
        bob_dealt = [e["cards"] for e in events(bob, "dealt")]
        assert sorted(bob_dealt[0]) == sorted(hands_a[0][1])
        assert sorted(bob_dealt[1]) == sorted(hands_a[1][1])

        # The field as Ann was told it: Bob's table is her field, its seats shifted.
        told = {e["deal"]: e for e in [deal_a["event"], *events(ann, "board_deal")]}
        assert sorted(told) == [0, 1] and deal_a["event"]["deal"] == 0
        told_b = {e["deal"]: e for e in events(bob, "board_deal")}
        for deal in (0, 1):
            here, there = told[deal], told_b[deal]
            assert here["board_set"] == board_a["board_set"]
            # Each table is told in its own seats: Bob's seat s held the set's seat s + 1.
            for key in ("players", "points", "tricks"):
                assert there["field"][0][key] == [here["here"][key][(s + 1) % 4]
                                                  for s in range(4)]
                assert here["field"][0][key] == [there["here"][key][(s - 1) % 4]
                                                 for s in range(4)]
            # Ann's cards (seat 0) were held at Bob's table by its seat 3 (West).
            assert here["field"][0]["players"][0] == there["here"]["players"][3]
            points = [to_board(here["here"]["points"], 0),
                      to_board(here["field"][0]["points"], 0)]
            assert here["margins"] == field_margins(points, 0)
            assert here["margins"][0] == here["margins"][2]  # partners share a side's points

        # The set's result: each player's margin deal by deal, the field's mean cancelled.
        result = result_a["event"]
        assert result["tables"] == 2 and result["deals"] == 2
        ann_margin = next(p for p in result["players"] if p["name"] == "guest-ann")
        assert len(ann_margin["deals"]) == 2 and result["ratings"] == []


async def test_a_finished_table_hears_the_field_as_the_other_table_plays_not_at_its_poll(
        app, monkeypatch):
    """Both tables on one node: the one that finished first is told each deal's field as
    the other table stores the deal, without waiting for its poll of the store (made a
    minute here, longer than the test waits)."""
    monkeypatch.setattr(board, "POLL_SECONDS", 60.0)
    async with AsyncExitStack() as stack:
        ann, bob = await guests(stack, app, "ann", "bob")
        first = await duplicate_table(ann, "spades-duplicate")
        await play_until_over(ann, first, random.Random(1))
        second = await duplicate_table(bob, "spades-duplicate")
        await play_until_over(bob, second, random.Random(2))
        assert board_of(bob, second)["board_set"] == board_of(ann, first)["board_set"]
        for deal in (0, 1):
            told = await next_pushed(ann, "event", lambda m: m["event"]["type"] == "board_deal")
            assert told["event"]["deal"] == deal and told["table"] == first
        await next_pushed(ann, "event", lambda m: m["event"]["type"] == "board_result")


async def test_nothing_of_a_deal_reaches_a_table_that_has_yet_to_play_it(app):
    """Recorded traffic: every message Bob received before he played a deal, against the
    cards and points of that deal at Ann's table."""
    async with AsyncExitStack() as stack:
        ann, bob = await guests(stack, app, "ann", "bob")
        first = await duplicate_table(ann, "spades-duplicate")
        await play_until_over(ann, first, random.Random(3))
        info = await ann.request({"type": "list_tables", "room": "spades-duplicate"})
        game_id = next(t["game_id"] for t in info["tables"] if t["id"] == first)
        second = await duplicate_table(bob, "spades-duplicate")
        turn = await play_until_over(bob, second, random.Random(4), stop_after=1)
        mid_game_review = (await review(app, game_id))[0]
        # Bob answers the turn he stopped at (else his clock runs out and his robot does).
        await bob.act(second, choose(turn, random.Random(5)))
        await play_until_over(bob, second, random.Random(5))
        seen = [json.dumps(m) for m in bob.received]  # all Bob was sent, in order
        assert mid_game_review == 404  # Ann's game is not shown while Bob plays its deals
        sequence = [m["seq"] for m in bob.received if m.get("type") == "event"]
        assert sequence == sorted(sequence)  # the field comes after the events before it
        _, record = await review(app, game_id)
        assert record is not None
        hands_a = record["record"]["deals"]
        # Split Bob's traffic where each of his deals is dealt and where it is scored.
        starts = [i for i, text in enumerate(seen) if '"type": "dealt"' in text]
        ends = [i for i, text in enumerate(seen) if '"hand_scored"' in text]
        assert len(starts) == len(ends) == 2
        for deal in (0, 1):
            # Before Bob's deal is dealt, no hand of it as Ann's table held it...
            assert not any(cards_in(text, hands_a[deal]) for text in seen[:starts[deal]])
            # ...and until he has played it, nothing of Ann's table: not its table, its
            # game, nor the field of the deal.
            for text in seen[:ends[deal]]:
                assert first not in text and game_id not in text
                assert not ('"board_deal"' in text and f'"deal": {deal}' in text)
        assert not any('"board_deal"' in text for text in seen[:ends[0]])


async def test_a_hearts_board_set_waits_for_four_tables(app):
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(4)]
        ann = clients[0]
        for k, client in enumerate(clients):
            await client.request({"type": "guest", "name": f"p{k}" if k else "ann"})
        tables = []
        for k in range(4):
            table = await duplicate_table(clients[k], "hearts-duplicate")
            await play_until_over(clients[k], table, random.Random(k))
            tables.append(table)
            board = board_of(clients[k], table)
            assert board["slot"] == k and board["tables"] == 4
            if k < 3:  # until the fourth table has played, no table hears of the field
                assert not any(events(c, "board_deal") for c in clients)
        told = await next_pushed(ann, "event", lambda m: m["event"]["type"] == "board_deal")
        assert len(told["event"]["field"]) == 3
        # The table of slot k held at its seat 0 what Ann's seat k held: there, p_k.
        for k, there in enumerate(told["event"]["field"], start=1):
            assert there["players"][k] == f"guest-p{k}"
        result = await next_pushed(ann, "event", lambda m: m["event"]["type"] == "board_result")
        assert result["event"]["tables"] == 4


async def test_no_one_watches_a_table_of_a_set_in_play(app):
    async with AsyncExitStack() as stack:
        ann, bob = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                    for _ in range(2)]
        for name, client in (("ann", ann), ("bob", bob)):
            await client.request({"type": "guest", "name": name})
        first = await duplicate_table(ann, "spades-duplicate")
        error = await refused(bob, {"type": "watch", "table": first})
        assert error["code"] == "not_authorized" and "duplicate" in error["message"]
        await play_until_over(ann, first, random.Random(6))
        # After the game, its set incomplete: still not watched...
        assert (await refused(bob, {"type": "watch", "table": first}))["code"] == \
            "not_authorized"
        set_a = board_of(ann, first)["board_set"]
        # Bob has seen nothing of it: he takes its other table.
        second = await duplicate_table(bob, "spades-duplicate")
        await next_pushed(bob, "event", lambda m: m["event"]["type"] == "game_started")
        assert board_of(bob, second)["board_set"] == set_a


async def test_a_ranked_board_set_is_rated_once_by_the_duplicate_rating(tmp_path):
    from tests.server.test_ranked import (
        Clock,
        autoplay,
        game_id_of,
        players,
        ranked_config,
        seat,
    )
    from trickroom.ratings import DUPLICATE_SYSTEMS
    from trickroom.server.app import App

    app = App(ranked_config(), tmp_path / "ranked.sqlite3", wall_clock=Clock())
    await app.start("127.0.0.1", 0)
    try:
        names = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"]
        async with AsyncExitStack() as stack:
            clients = await players(app, stack, names)
            room = "spades-duplicate-zone"
            first = await seat(clients[:4], room)
            over = await asyncio.gather(*(autoplay(c, first, i)
                                          for i, c in enumerate(clients[:4])))
            assert all(o["ratings"] for o in over)  # the room's zone rates each game
            game_a = game_id_of(clients[0])
            _, _, profile = await http_get(app, "/api/players/ann")
            recent = json.loads(profile)["recent_games"]
            assert game_a not in json.dumps(recent)  # its score is its deals' points: not yet
            second = await seat(clients[4:], room)
            await asyncio.gather(*(autoplay(c, second, i) for i, c in enumerate(clients[4:])))
            results = [await next_pushed(c, "event",
                                         lambda m: m["event"]["type"] == "board_result",
                                         timeout=20)
                       for c in (clients[0], clients[4])]
        shown = {c["player"]: c for r in results for c in r["event"]["ratings"]}
        assert set(shown) == set(names)
        assert all(c["rated"] and c["breakdown"] for c in shown.values())
        # Both tables show the changes the store applied, once.
        status, _, body = await http_get(app, "/api/leaderboard?game=spades&system=duplicate")
        board = {p["player"]: p for p in json.loads(body)["players"]}
        assert status == 200 and set(board) == set(names)
        _, _, profile = await http_get(app, "/api/players/ann")
        assert game_a in profile.decode()  # the set complete: in her recent games
        assert all(p["games"] == 1 for p in board.values())
        for name in names:
            assert board[name]["rating"] == pytest.approx(shown[name]["after"]["value"])
        start = DUPLICATE_SYSTEMS["duplicate"].start_rating.value
        assert sum(c["after"]["value"] - start for c in shown.values()) == pytest.approx(
            sum(c["delta"] for c in shown.values()))
    finally:
        await app.stop()


async def test_a_restarted_server_resumes_a_board_sets_game_on_its_deals(tmp_path):
    from tests.server.conftest import FAST
    from trickroom.server.app import App
    from trickroom.server.config import load_config

    db = tmp_path / "trickroom.sqlite3"
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    async with TrickroomClient.connect(url(app)) as ann:
        await ann.request({"type": "guest", "name": "ann"})
        first = await duplicate_table(ann, "spades-duplicate")
        await play_until_over(ann, first, random.Random(7), stop_after=20)
        machine = app.lobby.tables[first].machine
        board, game = machine.state.board, machine.state.game
        assert board is not None and game is not None
        held = (board.set_id, board.slot, len(game.hand_results), game.record()["deals"])
    await app.stop()
    again = App(load_config(**FAST), db)
    await again.start("127.0.0.1", 0)
    try:
        resumed = again.lobby.tables[first].machine.state
        assert resumed.board is not None and resumed.game is not None
        assert (resumed.board.set_id, resumed.board.slot, resumed.board.played,
                resumed.game.record()["deals"]) == held
    finally:
        await again.stop()
