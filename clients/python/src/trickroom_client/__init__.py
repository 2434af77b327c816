"""trickroom's Python client: the socket (:class:`TrickroomClient`) and whole games on it
(:func:`play`, with a ``choose(prompt) -> action`` of the bot's own).

It needs only ``websockets``. It is built on its own from clients/python
(``pip install ./clients/python``), and the server's distribution ships the same package,
so ``trickroom bot`` and the server's tests use this code, not a copy.
"""

from trickroom_client.client import ServerError, TrickroomClient
from trickroom_client.play import (
    Action,
    Choose,
    Prompt,
    find_or_create_table,
    play,
    play_games,
    random_action,
    sign_in,
    take_a_seat,
)

__all__ = [
    "Action",
    "Choose",
    "Prompt",
    "ServerError",
    "TrickroomClient",
    "find_or_create_table",
    "play",
    "play_games",
    "random_action",
    "sign_in",
    "take_a_seat",
]
