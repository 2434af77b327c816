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


# Blank-looking lines (issue 32, item 17): letters and symbols that draw nothing (the
# Hangul fillers, the blank braille pattern) and the zero-width characters, alone or mixed.
BLANK_LOOKING = ["\u3164", "\u2800\u2800", "\u200b\u200c\u2060", "\u3164 \u2800 \ufeff",
                 "\u115f\u1160\uffa0", "\u200d", "\u034f\u034f", "\u00ad"]


@pytest.mark.parametrize("text", BLANK_LOOKING)
async def test_a_blank_looking_chat_line_is_refused(app, text):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        await client.request({"type": "list_tables", "room": "spades"})
        error = await refused(client, {"type": "chat", "room": "spades", "text": text})
        assert error["code"] == "invalid_field"
        assert "visible" in error["message"]


# Unicode's other line breaks (item 18): refused like a newline.
@pytest.mark.parametrize("text", ["one\u2028two", "one\u2029two", "one\x85two",
                                  "one\rtwo", "one\x0btwo"])
async def test_every_line_or_paragraph_separator_is_refused_like_a_newline(app, text):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        await client.request({"type": "list_tables", "room": "spades"})
        error = await refused(client, {"type": "chat", "room": "spades", "text": text})
        assert error["code"] == "invalid_field"
        assert "line break" in error["message"]


async def _room_line(app, text: str) -> str:
    """What a reader of the room sees of a line sent as ``text``."""
    async with TrickroomClient.connect(url(app)) as sender, \
            TrickroomClient.connect(url(app)) as reader:
        await sender.request({"type": "guest", "name": "sender"})
        await reader.request({"type": "guest", "name": "reader"})
        await reader.request({"type": "list_tables", "room": "spades"})
        await sender.request({"type": "chat", "room": "spades", "text": text})
        await reader.request({"type": "ping"})
        [line] = [m["text"] for m in reader.received if m.get("type") == "chat"]
        return line


# Invisible characters that reorder or join text (item 19): stripped from the line, so
# that the table reads what it sees.
@pytest.mark.parametrize(("text", "shown"), [
    ("I bid \u200f4\u200e", "I bid 4"),                       # RLM, LRM
    ("\u061c10-2 us", "10-2 us"),                             # ALM
    ("gg\u200d wp\u200d", "gg wp"),                           # ZWJ outside any emoji
    ("a\u200bb\u2060c\ufeffd", "abcd"),                       # zero-width space, joiners
    ("\u2066nice\u2069", None),                               # isolates stay refused
])
async def test_direction_marks_and_stray_joiners_are_stripped(app, text, shown):
    if shown is None:
        async with TrickroomClient.connect(url(app)) as client:
            await client.request({"type": "guest"})
            error = await refused(client, {"type": "chat", "room": "spades", "text": text})
            assert error["code"] == "invalid_field"
        return
    assert await _room_line(app, text) == shown


# What the stripping keeps: joiners that belong to what is written.
@pytest.mark.parametrize("text", [
    "\U0001f468\u200d\U0001f469\u200d\U0001f467 family",  # an emoji ZWJ sequence
    "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # a tag flag
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",     # Persian: ZWNJ between letters
    "\u0915\u094d\u200d\u0937",                            # Devanagari: ZWJ after a virama
    "Vi\u1ec7t",                                          # precomposed
    "Vie\u0323\u0302t",                                   # two marks on one letter
])
async def test_joiners_within_emoji_and_scripts_are_kept(app, text):
    assert await _room_line(app, text) == text


async def test_a_stack_of_combining_marks_is_refused(app):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        for text in ["z" + "\u0301\u0316" * 50, "ok a\u0301\u0302\u0303\u0304\u0305"]:
            error = await refused(client, {"type": "chat", "room": "spades", "text": text})
            assert error["code"] == "invalid_field"
            assert "combining marks" in error["message"]
        await client.request({"type": "chat", "room": "spades",
                              "text": "ok a\u0301\u0302\u0303\u0304"})  # four still fit
