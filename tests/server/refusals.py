"""What an attack meets: a refusal, a typed error that echoes its request's id."""

from __future__ import annotations

from typing import Any

import pytest

from trickroom.server.client import ServerError, TrickroomClient


async def refused(client: TrickroomClient, message: dict[str, Any]) -> dict[str, Any]:
    """Send a request that must be refused; return the error, checking it echoes the id."""
    with pytest.raises(ServerError) as err:
        await client.request(message)
    reply = err.value.reply
    assert reply["id"] is not None, reply  # the request had one: the error carries it
    return reply


async def answers(ws: Any, count: int, timeout: float = 10.0) -> tuple[list[dict[str, Any]], int]:
    """The next ``count`` answers on a raw socket, in order, and how many ``slowed`` notices
    came among them (a flood is told once that its messages wait: issue 36)."""
    import asyncio
    import json

    got: list[dict[str, Any]] = []
    slowed = 0
    while len(got) < count:
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if message.get("type") == "slowed":
            slowed += 1
        else:
            got.append(message)
    return got, slowed
