"""Bad input gets a typed error (or a clean close) and never changes a table."""

from __future__ import annotations

import asyncio
import json
import logging
from contextlib import AsyncExitStack
from types import SimpleNamespace

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.protocol import State

from tests.server.conftest import seat_four, url, wait_for
from tests.server.refusals import answers
from tests.server.test_seats import solo_table
from trickroom.server.client import ServerError, TrickroomClient
from trickroom.server.metrics import METRICS


async def raw_reply(ws, text):
    await ws.send(text)
    return json.loads(await asyncio.wait_for(ws.recv(), 5))


@pytest.mark.parametrize(
    ("text", "code", "words"),
    [
        ("{not json", "bad_json", "not valid JSON"),
        ("[1, 2]", "bad_json", "JSON object"),
        # Not JSON, though Python's own parser takes them: no NaN or infinity reaches a table.
        ('{"type": "sit", "table": "t", "seat": NaN}', "bad_json", "not valid JSON"),
        ('{"type": "sit", "table": "t", "seat": -1e999}', "bad_json", "not valid JSON"),
        ('{"type": "teleport", "id": 4}', "unknown_type", "unknown message type 'teleport'"),
        ('{"type": "sit", "table": "t", "seat": 9, "id": 5}', "invalid_field", "'seat'"),
        ('{"type": "sit", "id": 6}', "invalid_field", "'table'"),
        ('{"type": "list_tables", "room": "x", "id": 7}', "not_authorized", "log in"),
    ],
)
async def test_malformed_messages_get_a_typed_error_naming_the_problem(app, text, code, words):
    async with connect(url(app)) as ws:
        reply = await raw_reply(ws, text)
        assert reply["type"] == "error" and reply["code"] == code and words in reply["message"]
        if '"id"' in text:
            assert reply["id"] == json.loads(text)["id"]


async def test_illegal_and_out_of_turn_actions_change_nothing(app):
    async with TrickroomClient.connect(url(app)) as client, \
            TrickroomClient.connect(url(app)) as stranger:
        table_id, _ = await solo_table(client, rules={"target": 500})
        table = app.lobby.tables[table_id].machine
        table.settings = type(table.settings)(**{**table.settings.__dict__, "robot_delay": 5})
        # Seat 0's turn: no robot has a move in flight while the refusals are checked.
        await wait_for(lambda: table.state.game.awaiting == (0,))
        cases = [
            ({"type": "play", "card": "ZZ"}, "invalid_field"),
            ({"type": "bid", "value": 14}, None),
            ({"type": "dance"}, "invalid_field"),
        ]
        for action, code in cases:
            before = (len(table.state.game.actions), repr(table.state.game.view(None)))
            with pytest.raises(ServerError) as err:
                await client.act(table_id, action)
            if code:
                assert err.value.code == code
            else:
                assert err.value.code in ("illegal_action", "not_your_turn", "wrong_phase")
            assert (len(table.state.game.actions), repr(table.state.game.view(None))) == before
        await stranger.request({"type": "guest"})
        with pytest.raises(ServerError) as err:
            await stranger.act(table_id, {"type": "bid", "value": 3})
        assert err.value.code == "not_seated"
        with pytest.raises(ServerError) as err:
            await stranger.act("nosuchtable", {"type": "bid", "value": 3})
        assert err.value.code == "no_such_table"


async def test_acting_out_of_turn_is_refused_and_changes_nothing(app):
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(4)]
        table_id, _ = await seat_four(app, "spades", {}, clients)
        table = app.lobby.tables[table_id].machine
        to_act = table.state.game.to_act
        wrong = clients[(to_act + 1) % 4]
        before = (len(table.state.game.actions), repr(table.state.game.view(None)))
        with pytest.raises(ServerError) as err:
            await wrong.act(table_id, {"type": "bid", "value": 3})
        assert err.value.code == "not_your_turn" and "is to act" in str(err.value)
        assert (len(table.state.game.actions), repr(table.state.game.view(None))) == before


async def test_an_oversized_frame_closes_the_connection_cleanly(app):
    async with connect(url(app), max_size=None) as ws:
        await ws.send("x" * (app.config.settings.max_frame_bytes + 10))
        with pytest.raises(ConnectionClosed) as err:
            await asyncio.wait_for(ws.recv(), 5)
        assert err.value.rcvd.code == 1009


async def test_a_burst_beyond_the_limit_is_read_late_not_refused_nor_closed(make_app):
    """Over the message rate the server reads a socket more slowly: every request is still
    answered, in order, and the socket stays open. (A slow rate: on a busy machine the
    bucket must not refill while the server reads the burst.)"""
    app = await make_app(message_burst=10, messages_per_second=5.0)
    burst, extra = 10, 8
    delayed = METRICS.messages_delayed._value.get()
    async with connect(url(app)) as ws:
        for i in range(burst + extra):
            await ws.send(json.dumps({"type": "ping", "id": i}))
        replies, slowed = await answers(ws, burst + extra)
        assert slowed == 1  # told once that its messages wait, not at each
        assert [r["type"] for r in replies] == ["pong"] * (burst + extra)
        assert [r["id"] for r in replies] == list(range(burst + extra))
        assert METRICS.messages_delayed._value.get() - delayed >= extra - 1
        assert (await raw_reply(ws, '{"type": "ping", "id": "after"}'))["type"] == "pong"


async def test_an_address_shares_one_message_budget_across_its_sockets(app):
    """More sockets do not buy a flood more messages: past the address's burst, a second
    socket's requests wait too."""
    per_address = app.config.settings.message_burst_per_address
    delayed = METRICS.messages_delayed._value.get()
    sockets = [await connect(url(app)) for _ in range(8)]
    try:
        each = per_address // 8 + 20  # under each socket's own burst, over the address's
        for ws in sockets:
            for i in range(each):
                await ws.send(json.dumps({"type": "ping", "id": i}))
        for ws in sockets:
            replies, _ = await answers(ws, each)
            assert [r["id"] for r in replies] == list(range(each))
        # Each socket stayed under its own burst: every wait was the address's.
        assert METRICS.messages_delayed._value.get() - delayed >= (8 * each - per_address) / 2
    finally:
        for ws in sockets:
            await ws.close()


async def test_too_many_connections_from_one_address_are_refused(app):
    limit = app.config.settings.connections_per_ip
    sockets = [await connect(url(app)) for _ in range(limit)]
    try:
        await wait_for(lambda: app.sessions.per_ip["127.0.0.1"] >= limit)
        with pytest.raises(InvalidStatus) as err:
            await connect(url(app))
        assert err.value.response.status_code == 429
    finally:
        for ws in sockets:
            await ws.close()


async def test_wrong_password_and_taken_names(app):
    async with TrickroomClient.connect(url(app)) as a, TrickroomClient.connect(url(app)) as b:
        await a.request({"type": "register", "name": "alice", "password": "s3cret-pw"})
        with pytest.raises(ServerError) as err:
            await b.request({"type": "register", "name": "Alice", "password": "another1"})
        assert err.value.code == "name_taken"
        with pytest.raises(ServerError) as err:
            await b.request({"type": "login", "name": "alice", "password": "wrong-pw"})
        assert err.value.code == "bad_credentials"
        with pytest.raises(ServerError) as err:
            await b.request({"type": "login", "name": "nobody", "password": "wrong-pw"})
        assert err.value.code == "bad_credentials"
        welcome = await b.request({"type": "login", "name": "alice", "password": "s3cret-pw"})
        assert welcome["name"] == "alice" and not welcome["guest"]
        with pytest.raises(ServerError) as err:
            await b.request({"type": "register", "name": "bad name!", "password": "s3cret-pw"})
        assert err.value.code == "invalid_field"


class StuckTransport:
    """A transport whose peer never reads: every byte sent stays in its buffer."""

    def __init__(self):
        self.buffered = 0

    def get_write_buffer_size(self):
        return self.buffered

    def write(self, data):
        self.buffered += len(data)

    def is_closing(self):
        return False


class StuckSocket:
    """What the server sees of a slow consumer: its unread bytes pile up."""

    remote_address = ("127.0.0.1", 9)

    def __init__(self):
        self.transport = StuckTransport()
        self.protocol = SimpleNamespace(state=State.OPEN)
        self.closed_with = None

    async def close(self, code, reason):
        self.closed_with = (code, reason)


@pytest.mark.raw_messages  # it sends made-up frames straight to connections
async def test_a_client_that_stops_reading_is_cut_off_not_buffered_for_ever(app):
    from trickroom.server.sessions import Connection

    ws = StuckSocket()
    conn = Connection(ws, app.config.settings)
    limit = app.config.settings.outbox_bytes
    message = '{"type": "event", "padding": "' + "x" * 1000 + '"}'
    for _ in range(limit // len(message) + 500):
        conn.send_text(message)
    await asyncio.sleep(0)
    assert ws.closed_with == (1008, "slow consumer")
    # Then nothing more (a frame is the message and a few bytes of header).
    assert limit <= ws.transport.buffered <= limit + len(message) + 10


async def test_a_session_token_logs_back_in_and_a_bad_one_is_refused(app):
    async with TrickroomClient.connect(url(app)) as first:
        welcome = await first.request({"type": "register", "name": "bob", "password": "pw-123456"})
    async with TrickroomClient.connect(url(app)) as again:
        back = await again.request({"type": "resume", "token": welcome["session"]})
        assert back["name"] == "bob" and not back["guest"]
        with pytest.raises(ServerError) as err:
            await again.request({"type": "resume", "token": "x" * 32})
        assert err.value.code == "not_authorized"


async def test_room_chat_respects_ignore(app):
    async with TrickroomClient.connect(url(app)) as a, TrickroomClient.connect(url(app)) as b:
        name_a = (await a.request({"type": "guest", "name": "a"}))["name"]
        await b.request({"type": "guest", "name": "b"})
        for client in (a, b):
            await client.request({"type": "list_tables", "room": "spades"})
        await a.request({"type": "chat", "room": "spades", "text": "anyone for spades?"})
        await wait_for(lambda: any(m.get("type") == "chat" for m in b.received))
        await b.request({"type": "ignore", "name": name_a})
        await a.request({"type": "chat", "room": "spades", "text": "hello?"})
        await asyncio.sleep(0.1)
        texts = [m["text"] for m in b.received if m.get("type") == "chat"]
        assert texts == ["anyone for spades?"]
        with pytest.raises(ServerError) as err:
            await a.request({"type": "chat", "room": "nowhere", "text": "hi"})
        assert err.value.code == "not_found"


@pytest.mark.raw_messages  # it frames a made-up message
async def test_a_message_for_many_clients_is_framed_once_and_closing_ones_are_skipped(app):
    from trickroom.server.sessions import Connection
    from trickroom.server.tables.log import Shared

    sockets = [StuckSocket() for _ in range(3)]
    writes: list[list[bytes]] = [[] for _ in sockets]
    for ws, log in zip(sockets, writes, strict=True):
        ws.transport.write = log.append
    sockets[2].protocol.state = State.CLOSING
    message = Shared(json.dumps({"type": "event", "seq": 7, "event": {"type": "played"}}))
    for ws in sockets:
        Connection(ws, app.config.settings).send_text(message)
    await asyncio.sleep(0)  # a turn's frames are written at its end
    assert writes[0] and writes[0][0] is writes[1][0]  # the same bytes, framed once
    assert writes[2] == []  # a closing socket gets nothing more
    frame = writes[0][0]
    assert frame[0] == 0x81 and frame[1] == len(frame) - 2  # one final text frame, unmasked
    assert json.loads(frame[2:]) == {"type": "event", "seq": 7, "event": {"type": "played"}}


@pytest.mark.raw_messages  # it frames a made-up message
async def test_frames_waiting_for_the_turns_end_are_dropped_once_the_socket_closed(app):
    """A socket whose close handshake ended in the turn its frames were sent (a server
    stopping, a client leaving): the frames are not written after the close (asyncio
    raised 'Cannot call write() after write_eof()' in a callback, and a data frame after a
    close frame breaks the protocol)."""
    from trickroom.server.sessions import Connection

    ws = StuckSocket()
    writes: list[bytes] = []

    def write(data: bytes) -> None:
        if ws.protocol.state is not State.OPEN:
            raise RuntimeError("Cannot call write() after write_eof()")
        writes.append(data)

    ws.transport.write = write
    conn = Connection(ws, app.config.settings)
    conn.send_text(json.dumps({"type": "event", "seq": 9}))
    ws.protocol.state = State.CLOSED
    loop = asyncio.get_running_loop()
    failed: list[dict] = []
    loop.set_exception_handler(lambda _, context: failed.append(context))
    try:
        await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(None)
    assert writes == [] and failed == []
    conn.send_text(json.dumps({"type": "event", "seq": 10}))  # and nothing is queued now
    await asyncio.sleep(0)
    assert writes == []


@pytest.mark.parametrize("depth", [40, 1000, 1500])
async def test_json_nested_too_deep_is_refused_with_its_id_and_logs_nothing(app, caplog,
                                                                           depth):
    """A value nested a thousand deep (in a table's rules, or in an action) is refused
    like any malformed message, naming its request, and nothing is logged as a failure of
    the server's. Past the parser's own bound (1,024) the request's id cannot be read."""
    nested = "[" * depth + "]" * depth
    internal = METRICS.errors.labels("internal")._value.get()
    async with connect(url(app)) as ws:
        await raw_reply(ws, '{"type": "guest", "name": "deep"}')
        table = await raw_reply(ws, '{"type": "create_table", "room": "spades"}')
        table_id = table["table"]["id"]
        with caplog.at_level(logging.WARNING, logger="trickroom"):
            for rid, head, field in (
                    (11, '{"type": "create_table", "room": "spades", "id": 11, ',
                     '"rules": {"target": '),
                    (12, f'{{"type": "act", "table": "{table_id}", "id": 12, ',
                     '"action": {"type": "play", "card": ')):
                text = head + field + nested + "}}"
                reply = await raw_reply(ws, text)
                assert reply["type"] == "error" and reply["code"] == "bad_json", reply
                assert "deep" in reply["message"], reply
                assert reply["id"] == (rid if depth <= 1000 else None)
        assert (await raw_reply(ws, '{"type": "ping", "id": "after"}'))["type"] == "pong"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert METRICS.errors.labels("internal")._value.get() == internal
    assert len(app.lobby.tables) == 1


async def test_json_nested_as_deep_as_a_real_message_is_read(app):
    """A pass's cards in an action, lists in a table's rules: a few levels, well inside the
    bound."""
    async with connect(url(app)) as ws:
        await raw_reply(ws, '{"type": "guest", "name": "shallow"}')
        reply = await raw_reply(ws, json.dumps(
            {"type": "create_table", "room": "hearts", "id": 3,
             "rules": {"target": 100, "unknown": [[[[1]]]]}}))
        assert reply["code"] == "invalid_field" and reply["id"] == 3


@pytest.mark.raw_messages  # it frames made-up messages
async def test_a_connection_s_messages_of_one_turn_go_out_in_order_in_one_write(app):
    """An action sends a player its answer and the table's event (or the event and the
    next prompt): one system call for them, not one each (issue 40), and in order."""
    from trickroom.server.sessions import Connection

    ws = StuckSocket()
    writes: list[bytes] = []
    ws.transport.write = writes.append
    conn = Connection(ws, app.config.settings)
    conn.send_text('{"type": "ack", "id": 1}')
    conn.send_many(['{"type": "event", "seq": 1}', '{"type": "event", "seq": 2}'])
    conn.send_text('{"type": "prompt", "seq": 2}')
    assert writes == []  # not yet: at the end of this turn of the loop
    await asyncio.sleep(0)
    assert len(writes) == 1
    data, frames = writes[0], []
    while data:
        size = data[1]
        frames.append(json.loads(data[2:2 + size]))
        data = data[2 + size:]
    assert frames == [{"type": "ack", "id": 1}, {"type": "event", "seq": 1},
                      {"type": "event", "seq": 2}, {"type": "prompt", "seq": 2}]
