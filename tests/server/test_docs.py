"""docs/protocol.md teaches the protocol: every example in it must be a valid message."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from trickroom.server.protocol import (
    CLIENT_TYPES,
    ERROR_CODES,
    GAME_EVENT_MODELS,
    SERVER_MODELS,
    TABLE_EVENT_MODELS,
    parse_client_message,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
BLOCK = re.compile(r"```json (client|server)\n(.*?)\n```", re.S)
SERVER_BY_TYPE = {m.model_fields["type"].default: m for m in SERVER_MODELS}
EVENT_BY_TYPE = {m.model_fields["type"].default: m
                 for m in (*TABLE_EVENT_MODELS, *GAME_EVENT_MODELS)}


def examples(side: str) -> list[dict]:
    return [json.loads(body) for kind, body in BLOCK.findall(DOC.read_text()) if kind == side]


@pytest.mark.parametrize("message", examples("client"), ids=lambda m: m["type"])
def test_every_client_example_is_a_valid_request(message):
    parsed = parse_client_message(json.dumps(message))
    assert parsed.type == message["type"]


@pytest.mark.parametrize("message", examples("server"), ids=lambda m: m["type"])
def test_every_server_example_matches_its_model(message):
    model = SERVER_BY_TYPE[message["type"]]
    model.model_validate(message)


@pytest.mark.parametrize("message", [m for m in examples("server") if m["type"] == "event"
                                     and m["event"]["type"] in EVENT_BY_TYPE],
                         ids=lambda m: m["event"]["type"])
def test_every_table_event_example_matches_its_model(message):
    EVENT_BY_TYPE[message["event"]["type"]].model_validate(message["event"])


def test_the_doc_names_every_request_type_and_error_code():
    text = DOC.read_text()
    for kind in CLIENT_TYPES:
        assert f'"{kind}"' in text or f"`{kind}`" in text, kind
    for code in ERROR_CODES:
        assert f"`{code}`" in text, code


def test_a_session_example_covers_both_directions():
    assert len(examples("client")) >= 10 and len(examples("server")) >= 10


def test_the_doc_gives_every_rule_s_bounds_as_the_engines_check_them():
    from trickroom.game.variants import HEARTS_BOUNDS, SPADES_BOUNDS

    text = DOC.read_text()
    for game, bounds in (("spades", SPADES_BOUNDS), ("hearts", HEARTS_BOUNDS)):
        for rule, (least, most) in bounds.items():
            row = re.search(rf"^\| {game} \| `{rule}` \| ([^|]+) \|$", text, re.M)
            assert row is not None, (game, rule)
            assert row.group(1).startswith(f"{least}..{most}"), (game, rule, row.group(1))


def test_every_message_and_event_the_server_sends_has_an_example():
    shown = {m["type"] for m in examples("server")}
    assert set(SERVER_BY_TYPE) <= shown, set(SERVER_BY_TYPE) - shown
    events = {m["event"]["type"] for m in examples("server") if m["type"] == "event"}
    assert set(EVENT_BY_TYPE) <= events, set(EVENT_BY_TYPE) - events


@pytest.mark.parametrize("room", ["spades", "hearts"])
async def test_the_example_bot_in_the_doc_plays_a_whole_game(app, room, tmp_path):
    import asyncio
    import sys

    code = re.search(r"```python example\n(.*?)\n```", DOC.read_text(), re.S).group(1)
    assert len(code.splitlines()) <= 40
    script = tmp_path / "bot.py"
    script.write_text(code)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(script), f"ws://127.0.0.1:{app.port}/ws", room,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 0, err.decode()
    scores = json.loads(out.decode())
    assert len(scores) == (2 if room == "spades" else 4)


def test_the_changelog_has_the_protocol_version_the_server_speaks():
    from trickroom.server.protocol import CLIENT_TYPES, PROTOCOL

    text = (DOC.parent / "changelog.md").read_text()
    assert f"\n## {PROTOCOL} (" in text
    for kind in ("invite", "follow", "friends", "challenge", "answer_challenge"):
        assert kind in CLIENT_TYPES and f"`{kind}`" in text, kind
