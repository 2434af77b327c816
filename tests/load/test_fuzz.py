"""Bad input at volume, over the live socket of a server in its own process (``bench.fuzz``,
small): every reply typed, no ``internal`` error, clean closes only; a table whose players
never act does not change, and a table of bots plays on. Hypothesis-made messages get
typed errors too. (How much the fuzz slows the bots is the bench's figure to print.)"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench import fuzz
from bench.harness import Server, room_file


async def test_bad_messages_at_volume_change_nothing_and_stop_no_one(tmp_path: Path):
    out = await fuzz.fuzz_run(frames=3000, sockets=4, workdir=tmp_path, settle=0.3)
    tally = out["tally"]
    assert tally.sent == 3000 and tally.replies >= 3000 // 250  # a ping came back per batch
    assert tally.bad == [] and tally.unclean_closes == 0, (tally.bad[:5], tally.closes)
    assert out["server_alive"]
    assert not out["frozen_changed"]
    assert out["canary_playing"]  # the table of bots still plays after the fuzz


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12)
messages = st.fixed_dictionaries(
    {"type": st.sampled_from(fuzz.TYPES) | st.text(max_size=10)},
    optional={"id": st.integers() | st.text(max_size=10) | st.none(),
              "table": st.text(max_size=45), "seat": json_values, "room": st.text(max_size=30),
              "action": json_values, "text": st.text(max_size=400), "last_seq": st.integers(),
              "level": st.text(max_size=10), "rules": json_values, "seat_token": st.text()})


async def test_hypothesis_messages_get_typed_errors(tmp_path: Path):
    drawn: list[str | bytes] = []

    @settings(max_examples=400, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(messages)
    def collect(msg: dict[str, Any]) -> None:
        if msg["type"] in ("register", "login", "create_table", "fill_robots"):
            msg = {**msg, "name": 5, "room": 5}  # invalid: no accounts or robot tables made
        drawn.append(json.dumps(msg))

    collect()
    tally = fuzz.Tally()
    with Server(tmp_path / "fuzz.sqlite3", room_file(tmp_path, "fuzz")) as server:
        await asyncio.gather(*(fuzz.fuzz_socket(server.url, drawn[i::4], tally, i % 2 == 0)
                               for i in range(4)))
        assert server.alive
    assert tally.sent == len(drawn) >= 200
    assert tally.bad == [] and tally.unclean_closes == 0, (tally.bad[:5], tally.closes)
