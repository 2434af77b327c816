"""``/readyz``: a proxy sends players only to a node that can serve them (issue 34).

``/healthz`` says the process answers; ``/readyz`` says more: the node's database answers,
it is not draining, and (a cluster node) Redis answers and its leases are proved. An
unready node says why, in words, as JSON with status 503.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from tests.server.conftest import http_get
from tests.server.test_postgres import app_behind_a_proxy
from trickroom.server.app import App


async def readiness(app: App) -> tuple[int, dict[str, Any]]:
    status, headers, body = await http_get(app, "/readyz")
    assert headers["Content-Type"] == "application/json"
    return status, json.loads(body)


async def until_status(app: App, status: int, timeout: float = 10.0) -> dict[str, Any]:
    """Probe as a proxy does (every tenth of a second) until ``/readyz`` answers ``status``."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        got, body = await readiness(app)
        if got == status:
            return body
        assert asyncio.get_running_loop().time() < deadline, (got, body)
        await asyncio.sleep(0.1)


async def test_a_node_is_ready_while_it_can_serve_and_unready_while_it_drains(app):
    assert await readiness(app) == (200, {"ready": True, "problems": []})
    app.readiness.draining = True
    status, body = await readiness(app)
    assert status == 503 and not body["ready"]
    assert body["problems"] == ["this node is draining: its tables are moving to other nodes"]
    assert (await http_get(app, "/healthz"))[0] == 200  # the process still answers


async def test_a_node_whose_database_goes_away_is_unready_until_it_is_back(schema):
    async with app_behind_a_proxy(schema) as (app, database):
        await until_status(app, 200)
        database.cut()
        body = await until_status(app, 503)
        assert [p.split(":")[0] for p in body["problems"]] == ["the database"]
        assert "postgres@" not in json.dumps(body)  # no URL, no secret, in what it says
        assert (await http_get(app, "/healthz"))[0] == 200
        database.restore()
        assert await until_status(app, 200) == {"ready": True, "problems": []}


async def test_a_flood_of_probes_costs_the_database_one_query_a_half_second(app):
    asked = 0
    ping = app.store.ping

    async def counted() -> None:
        nonlocal asked
        asked += 1
        await ping()

    app.readiness.store_ping = counted
    answers = await asyncio.gather(*(readiness(app) for _ in range(50)))
    assert {status for status, _ in answers} == {200}
    assert asked == 1
