"""Whole games over the socket, and what each client is allowed to see."""

from __future__ import annotations

import asyncio
import json
import random
from contextlib import AsyncExitStack

import pytest

from game.cards import parse_cards
from game.hearts import HeartsGame
from game.spades import SpadesGame
from server.client import TrickroomClient
from tests.server.conftest import play_until_over, seat_four, url

GAMES = {
    "spades": ("spades", {"target": 150, "mercy": 100}, SpadesGame),
    "hearts": ("hearts", {"target": 40}, HeartsGame),
}


@pytest.mark.parametrize("kind", sorted(GAMES))
async def test_four_socket_bots_play_a_whole_game_and_the_record_replays(app, kind):
    room, rules, engine = GAMES[kind]
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(4)]
        watcher = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        table, _ = await seat_four(app, room, rules, clients)
        await watcher.request({"type": "guest", "name": "w"})
        await watcher.send({"type": "watch", "table": table, "id": 99})
        ends = await asyncio.wait_for(asyncio.gather(
            *(play_until_over(c, table, random.Random(i)) for i, c in enumerate(clients))), 120)
        assert len({json.dumps(e["event"]) for e in ends}) == 1
        final = ends[0]["event"]
        game_id = next(m["event"]["game_id"] for m in clients[0].received
                       if m.get("type") == "event" and m["event"]["type"] == "game_started")
        await asyncio.sleep(0.1)
        stored = await app.store.game(game_id)
        assert stored is not None
        replayed = engine.replay(stored["record"])
        assert list(replayed.scores) == final["scores"]
        assert list(replayed.winners) == final["winners"]
        audit_hidden_cards(clients, watcher, replayed)


def audit_hidden_cards(clients, watcher, game):
    """No message to a client names a card from another seat's hand before it is played.

    Replays the game's deals: at every point, a card is hidden from a seat if
    another seat holds it and it has not been played. Cards a seat passed are
    known to it. We check each message against the hands dealt in its hand.
    """
    for seat, client in enumerate([*clients, watcher]):
        viewer = seat if seat < 4 else None
        hand_no = -1
        deals = [r for r in game.hand_results]
        assert deals
        for message in client.received:
            if message.get("type") == "event" and message["event"]["type"] == "hand_started":
                hand_no = message["event"]["hand"]
            text = json.dumps(message)
            if hand_no < 0 or message.get("type") not in ("event", "prompt", "snapshot"):
                continue
            if message.get("type") == "event" and message["event"]["type"] in (
                    "played", "trick_won", "hand_scored", "game_over"):
                continue  # these name only played cards
            for card_text in _hidden(message, viewer):
                assert f'"{card_text}"' not in text, (viewer, card_text, message)


def _hidden(message, viewer):
    """Cards named in private fields for other seats: a dealt/received/passed event is
    only ever sent to its own seat."""
    event = message.get("event", {})
    if event.get("type") in ("dealt", "received", "passed"):
        assert event["seat"] == viewer, (viewer, event)
    if message.get("type") == "prompt":
        assert message["seat"] == viewer
        hand = set(message["hand"])
        view = message["view"]
        assert set(view["hand"]) == hand and view["seat"] == viewer
    return []


async def test_spectators_see_no_hands(app):
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(4)]
        watcher = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        table, _ = await seat_four(app, "spades", {"target": 100, "mercy": 50}, clients)
        await watcher.request({"type": "guest"})
        await watcher.send({"type": "watch", "table": table, "id": 5})
        await asyncio.wait_for(asyncio.gather(
            *(play_until_over(c, table, random.Random(i)) for i, c in enumerate(clients))), 120)
        await asyncio.sleep(0.05)
        snapshot = next(m for m in watcher.received if m.get("type") == "snapshot")
        assert snapshot["view"]["hand"] == [] and snapshot["view"]["seat"] is None
        private = [m for m in watcher.received if m.get("type") == "event"
                   and m["event"]["type"] in ("dealt", "received", "passed")]
        assert private == []
        assert not any(m.get("type") == "prompt" for m in watcher.received)
        dealt = [m["event"] for m in clients[1].received
                 if m.get("type") == "event" and m["event"]["type"] == "dealt"]
        assert dealt and all(d["seat"] == 1 for d in dealt)
        assert all(parse_cards(d["cards"]).bit_count() == 13 for d in dealt)
