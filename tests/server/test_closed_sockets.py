"""What a server keeps of a socket once it has closed: nothing, from the moment it closes."""

from __future__ import annotations

import gc
import weakref

from tests.server.conftest import url, wait_for
from trickroom.server.client import TrickroomClient


async def test_a_closed_sockets_protocol_goes_as_it_closes_not_at_the_next_full_collection(
        app):
    """Each socket's handshake refusals are wrapped to carry the security headers
    (``routes.SecuredConnection``); the wrapper and the socket's protocol held each other,
    so every closed socket's protocol, parser and buffers waited for a full collection,
    which comes only once the heap has grown by a quarter."""
    gc.collect()
    gc.disable()
    try:
        async with TrickroomClient.connect(url(app)) as client:
            await client.request({"type": "guest", "name": "passing"})
            (connection,) = app.server.connections
            protocol = weakref.ref(connection.protocol)
            del connection
        # (freed once websockets' parser has read the end of the stream, with the gc off)
        await wait_for(lambda: protocol() is None, 5)
    finally:
        gc.enable()
