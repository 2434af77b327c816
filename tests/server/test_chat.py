"""Chat limits (issue 13): past its rate a flood is refused and its readers get none of it,
the sockets of one address share one rate, and blank or control-character lines are
refused."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

import pytest

from tests.server.conftest import url
from tests.server.refusals import refused
from trickroom.server.client import ServerError, TrickroomClient


async def test_a_chat_flood_is_refused_past_the_chat_rate_and_its_readers_get_none_of_it(app):
    """Each chat line goes to every subscriber of the room: past ``chat_burst`` lines at
    once (then ``chat_per_second``) the rest are refused, with when to try again."""
    async with TrickroomClient.connect(url(app)) as spammer, \
            TrickroomClient.connect(url(app)) as reader:
        await spammer.request({"type": "guest", "name": "spam"})
        await reader.request({"type": "guest", "name": "reader"})
        await reader.request({"type": "list_tables", "room": "spades"})  # the room's reader
        burst = app.config.settings.chat_burst
        for i in range(burst):
            await spammer.request({"type": "chat", "room": "spades", "text": f"line {i}"})
        error = await refused(spammer, {"type": "chat", "room": "spades", "text": "one more"})
        assert error["code"] == "rate_limited" and 0 < error["retry_after"] <= 1.0
        assert "chat" in error["message"]
        await reader.request({"type": "ping"})  # everything sent before this has arrived
        lines = [m["text"] for m in reader.received if m.get("type") == "chat"]
        assert lines == [f"line {i}" for i in range(burst)]
        await asyncio.sleep(error["retry_after"])
        await spammer.request({"type": "chat", "room": "spades", "text": "later"})


async def test_many_sockets_of_one_address_share_one_chat_rate(make_app):
    app = await make_app(chat_burst=5, chat_burst_per_address=8)
    async with AsyncExitStack() as stack:
        socks = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                 for _ in range(3)]
        for i, sock in enumerate(socks):
            await sock.request({"type": "guest", "name": f"many{i}"})
        sent = 0
        for sock in socks:
            for _ in range(5):
                try:
                    await sock.request({"type": "chat", "room": "spades", "text": "hi"})
                    sent += 1
                except ServerError as exc:
                    assert exc.reply["code"] == "rate_limited"
        assert sent == 8  # the address's burst, though each socket had 5 of its own


@pytest.mark.parametrize("text", ["", "   ", "\u200b", "hi\x1b[2J", "line\nbreak",
                                  "\u202eevil"])
async def test_blank_or_control_character_chat_is_refused(app, text):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        await client.request({"type": "list_tables", "room": "spades"})
        error = await refused(client, {"type": "chat", "room": "spades", "text": text})
        assert error["code"] == "invalid_field"
