"""Whole games over the socket, and what each client is allowed to see."""

from __future__ import annotations

import asyncio
import json
import random
from contextlib import AsyncExitStack

import pytest

from tests.server.conftest import play_until_over, seat_four, url
from trickroom.game.actions import action_from_wire
from trickroom.game.cards import CARD_TEXT, cards_of, parse_cards
from trickroom.game.hearts import HeartsGame
from trickroom.game.spades import SpadesGame
from trickroom.server.client import TrickroomClient

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
        audit_hidden_cards(clients, watcher, engine, stored["record"])


PUBLIC_EVENTS = {"played", "trick_won", "hand_scored", "game_over"}


def hands_by_hand(engine, record):
    """Each hand's cards per seat, before and after the pass, rebuilt from the record."""
    game = engine.replay({**record, "actions": []})
    held = {0: [set(cards_of(h)) for h in game.hands]}
    for item in record["actions"]:
        if game.phase == "hand_over":
            game.next_hand()
            held[game.hand_no] = [set(cards_of(h)) for h in game.hands]
        game.apply(action_from_wire(item), item["seat"])
        if game.phase == "play":
            for seat in range(4):
                held[game.hand_no][seat] |= set(cards_of(game.dealt[seat]))
    return held


def audit_hidden_cards(clients, watcher, engine, record):
    """No message names a card that another seat holds, from the deal to the end of the hand.

    Every message each client received is checked, with the cards that may
    legitimately appear removed: played cards in public events and in a view's
    tricks, and the seat's own cards (dealt, passed and received).
    """
    held = hands_by_hand(engine, record)
    checked = 0
    for viewer, client in [*enumerate(clients), (None, watcher)]:
        hand_no = None
        for message in client.received:
            event = message.get("event", {})
            if event.get("type") == "hand_started":
                hand_no = event["hand"]
            view = message.get("view")
            if isinstance(view, dict) and "hand_no" in view:
                hand_no = view["hand_no"]
            if hand_no is None or event.get("type") in PUBLIC_EVENTS:
                continue
            if event.get("type") in ("dealt", "received", "passed"):
                assert event["seat"] == viewer, (viewer, event)
            scrubbed = dict(message)
            if isinstance(view, dict):
                scrubbed["view"] = {k: v for k, v in view.items()
                                    if k not in ("tricks", "trick", "hand_results")}
            text = json.dumps(scrubbed)
            own = held[hand_no][viewer] if viewer is not None else set()
            others = set().union(*(held[hand_no][s] for s in range(4) if s != viewer))
            for card in others - own:
                assert f'"{CARD_TEXT[card]}"' not in text, (viewer, CARD_TEXT[card], message)
            checked += 1
    assert checked > 0


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
