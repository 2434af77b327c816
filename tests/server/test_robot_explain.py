"""A robot's bid tells the table why, in words that name no card of its hand."""

from __future__ import annotations

import asyncio
import json
import re

from tests.server.conftest import http_get, url
from tests.server.test_seats import solo_table
from trickroom.game.actions import BIDS
from trickroom.server.client import TrickroomClient
from trickroom.server.protocol import WHY_LENGTH, BidEvent
from trickroom.server.tables.commands import RobotChose
from trickroom.server.tables.play import _robot_reason

CARD_TEXT = re.compile(r"[♣♦♥♠]|\b(10|[2-9TJQKA])[CDHS]\b|\b(ace|king|queen|jack|ten) of\b",
                       re.IGNORECASE)


def chose(why: str = "") -> RobotChose:
    return RobotChose(1, (1, 0, 0), BIDS[4], False, why)


def test_a_reason_that_could_name_a_card_is_not_told():
    for leak in ("4: nil too risky with A♠", "nil too risky: AS", "3: the ace of spades",
                 "10♥ wins a trick"):
        assert _robot_reason(chose(leak)) == ""
    kept = "4: about 3.6 tricks expected, 6.1 with partner; nil too risky: a high spade"
    assert _robot_reason(chose(kept)) == kept
    assert _robot_reason(chose("x" * (WHY_LENGTH + 1))) == ""
    assert _robot_reason(chose("two\nlines")) == "two lines"
    assert _robot_reason(chose()) == ""


def test_the_bid_event_model_takes_a_short_reason():
    event = BidEvent(seat=1, value=4, why="4: about 3.6 tricks expected")
    assert '"why":"4: about 3.6 tricks expected"' in event.encode()
    assert "why" not in BidEvent(seat=1, value=4).encode()


async def test_a_search_robots_bid_carries_why_over_the_socket_and_into_the_review(app):
    async with TrickroomClient.connect(url(app)) as client:
        # A target of one point: the game ends after its first hand a side scores in.
        table, _ = await solo_table(client, rules={"target": 1, "mercy": 1000},
                                    level="search", name="asker")

        async def play_to_the_end() -> tuple[str, list[dict]]:
            game_id, bids, answered = "", [], -1
            async for message in client.messages():
                if message["type"] == "prompt" and message["seq"] > answered:
                    answered = message["seq"]
                    legal = [a for a in message["legal"] if a.get("value")] or message["legal"]
                    await client.act(table, legal[0])
                if message["type"] == "event":
                    event = message["event"]
                    if event["type"] == "game_started":
                        game_id = event["game_id"]
                    elif event["type"] == "bid":
                        bids.append(event)
                    elif event["type"] == "game_over":
                        return game_id, bids
            raise AssertionError("the connection closed before the game ended")

        game_id, bids = await asyncio.wait_for(play_to_the_end(), 240)
    assert len(bids) >= 4
    for bid in bids:
        if bid["seat"] == 0:
            assert "why" not in bid  # a player's own bid has no robot's reason
            continue
        why = bid.get("why")
        assert why, bid
        assert len(why) <= WHY_LENGTH and "\n" not in why
        assert not CARD_TEXT.search(why), why
        value = "blind nil" if bid.get("blind") else "nil" if bid["value"] == 0 else str(
            bid["value"])
        assert why.startswith(value + ":"), why
    status, _, body = await http_get(app, f"/api/games/{game_id}")
    assert status == 200
    reviewed = [a for hand in json.loads(body)["hands"] for a in hand["actions"]
                if a["type"] == "bid"]
    told = [(b["seat"], b.get("why")) for b in bids]
    assert [(a["seat"], a.get("why")) for a in reviewed] == told
