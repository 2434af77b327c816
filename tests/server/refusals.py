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
