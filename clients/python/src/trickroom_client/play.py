"""Playing whole games through the socket: a bot author writes ``choose``, this does the rest.

The steps of a game, each a function of its own so that a program can take the ones it
needs (``trickroom bot`` takes them all, with the server's robots as its ``choose``):

- :func:`sign_in`: an account (logged in, or registered when the name is new) or a guest;
- :func:`take_a_seat`: a given table, a new one with any ``create_table`` fields, or a
  waiting table of the room, and robots in the empty seats if asked;
- :func:`play_games`: every prompt answered with ``choose(prompt)``, ``play_again`` after
  each ``game_over`` until the caller's number of games is played.

:func:`play` is the three in a row on a new connection. A prompt is the dict the server
sends (docs/protocol.md): ``legal`` (the legal actions, empty for a Hearts pass), ``view``
(the seat's view of the table), ``phase``, ``hand``, ``pass_count``. ``choose`` returns an
action, one of ``legal`` or a pass; it may be a coroutine function.

Two things a loop of one's own gets wrong are handled here: a turn may be prompted again
(same ``seq``: answered once), and a prompt may be stale by the time it is answered (the
turn's time ran out and a robot played it: the server says ``timed_out``, then refuses
the late answer with ``not_your_turn`` or ``wrong_phase``, which is not an error of the
bot's). A ``moved`` reply to ``sit`` is followed by :meth:`TrickroomClient.request`.
"""

from __future__ import annotations

import asyncio
import inspect
import random
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from trickroom_client.client import ServerError, TrickroomClient

Prompt = dict[str, Any]
Action = dict[str, Any]
Choose = Callable[[Prompt], Action | Awaitable[Action]]
Observer = Callable[[dict[str, Any]], None]

# Refusals of an answer to a prompt that a timer overtook: the next prompt comes anyway.
STALE = frozenset({"not_your_turn", "wrong_phase"})
# Refusals of a sit at a listed table that another player filled or started first.
TAKEN = frozenset({"seat_taken", "table_full", "no_such_table"})
SEAT_TRIES = 5


def random_action(prompt: Prompt, rng: random.Random | None = None) -> Action:
    """A random legal action: one of ``legal``, or, for a Hearts pass (whose ``legal`` is
    empty), ``pass_count`` random cards of the hand."""
    rng = rng or random.Random()
    if prompt.get("phase") == "pass" and not prompt.get("legal"):
        count = prompt.get("pass_count") or prompt["view"]["rules"]["pass_count"]
        return {"type": "pass", "cards": rng.sample(list(prompt["hand"]), int(count))}
    return dict(rng.choice(prompt["legal"]))


async def sign_in(client: TrickroomClient, name: str | None = None,
                  password: str | None = None) -> dict[str, Any]:
    """Log in with a password (registering the account when no such name exists yet), or
    play as a guest (``name`` a wish, made unique by the server). Returns the welcome."""
    if password is None:
        return await client.request({"type": "guest", "name": name} if name
                                    else {"type": "guest"})
    if not name:
        raise ValueError("a password needs a name")
    login = {"type": "login", "name": name, "password": password}
    if client.device:
        login["device"] = client.device
    try:
        return await client.request(login)
    except ServerError as refused:
        if refused.code != "bad_credentials":
            raise
        try:
            return await client.request({"type": "register", "name": name,
                                         "password": password})
        except ServerError as again:
            if again.code == "name_taken":  # the account exists: its password was wrong
                raise refused from None
            raise


async def find_or_create_table(client: TrickroomClient, room: str,
                               create: Mapping[str, Any] | None = None) -> str | None:
    """A waiting table of the room with a free seat, or a new one; with ``create``, always a
    new one, opened with those extra ``create_table`` fields (``private``, ``rules``...).
    None: none may be opened now (the address's waiting tables are at the server's cap, or
    it said to slow down): look again soon."""
    if create is None:
        listing = await client.request({"type": "list_tables", "room": room})
        for table in listing["tables"]:
            if table["state"] == "waiting" and any(s["kind"] == "empty" for s in table["seats"]):
                return str(table["id"])
    try:
        created = await client.request({"type": "create_table", "room": room, **(create or {})})
    except ServerError as exc:
        if exc.code == "rate_limited":
            await asyncio.sleep(exc.reply.get("retry_after") or 0.5)
            return None
        raise
    return str(created["table"]["id"])


async def take_a_seat(client: TrickroomClient, room: str = "spades", *,
                      table: str | None = None, seat: int | None = None,
                      invite: str | None = None, create: Mapping[str, Any] | None = None,
                      fill_robots: bool | str = False) -> tuple[str, int]:
    """Sit at ``table`` (at ``seat`` if given; with ``invite``, a private table's code),
    else at a new table of ``room`` opened with
    ``create``'s fields, else at a waiting table of the room or a new one. Then, if asked,
    robots fill the empty seats (``fill_robots`` True: the server's default level; a string:
    that level). Returns the table's id and the seat.

    A listed table may fill or start before our ``sit`` reaches it: another is tried, a few
    times. A table that four players filled first is not an error of ``fill_robots``."""
    for _ in range(SEAT_TRIES):
        chosen = table or await find_or_create_table(client, room, create)
        if chosen is None:
            continue
        sit: dict[str, Any] = {"type": "sit", "table": chosen}
        if seat is not None:
            sit["seat"] = seat
        if invite is not None:
            sit["invite"] = invite
        try:
            seated = await client.request(sit)
        except ServerError as exc:
            if table is None and create is None and exc.code in TAKEN:
                continue
            raise
        if fill_robots:
            fill: dict[str, Any] = {"type": "fill_robots", "table": chosen}
            if isinstance(fill_robots, str):
                fill["level"] = fill_robots
            try:
                await client.request(fill)
            except ServerError as exc:
                if exc.code != "table_full":
                    raise
        return chosen, int(seated["seat"])
    raise ServerError({"code": "table_full", "message": f"no seat came free in room {room!r}"})


async def play_games(client: TrickroomClient, table: str, choose: Choose, games: int = 1, *,
                     on_message: Observer | None = None, play_again: bool = True,
                     again: Mapping[str, Any] | None = None,
                     seat: int | None = None) -> list[dict[str, Any]]:
    """Answer every prompt of ``table`` with ``choose(prompt)`` until ``games`` games are
    over, and return each game's ``game_over`` event, with ``seat``: the seat this player
    had in it (a rematch with ``"seats": "rotate"`` moves it, told by a ``seated``).

    After each game but the last it asks ``play_again`` (with ``again``'s extra fields,
    such as ``{"seats": "rotate"}``); with ``play_again`` False it waits for a next game
    that the table starts by itself. ``on_message`` sees every pushed message first (to
    print progress, keep a log...).

    Raises:
        ConnectionError: the socket closed before the games were played.
        ServerError: an answer was refused for a reason other than a stale prompt.
    """
    results: list[dict[str, Any]] = []
    answered = -1  # the seq of the last prompt answered: a prompt with it again is a repeat
    async for message in client.messages():
        if on_message is not None:
            on_message(message)
        if message.get("table") != table:
            continue
        kind = message.get("type")
        if kind == "seated":
            seat = int(message["seat"])
        elif kind == "prompt" and message["seq"] > answered:
            answered = message["seq"]
            seat = int(message["seat"])
            action = choose(message)
            if inspect.isawaitable(action):
                action = await action
            try:
                await client.act(table, action)
            except ServerError as exc:
                if exc.code not in STALE:
                    raise
        elif kind == "event" and message["event"]["type"] == "game_over":
            results.append({**message["event"], "seat": seat})
            if len(results) >= games:
                return results
            if play_again:
                await client.request({"type": "play_again", "table": table, **(again or {})})
    raise ConnectionError(f"the connection closed after {len(results)} of {games} game(s)")


async def play(url: str, choose: Choose = random_action, *, room: str = "spades",
               games: int = 1, name: str | None = None, password: str | None = None,
               table: str | None = None, seat: int | None = None, invite: str | None = None,
               create: Mapping[str, Any] | None = None, fill_robots: bool | str = False,
               play_again: bool = True, again: Mapping[str, Any] | None = None,
               on_message: Observer | None = None,
               **connect_options: Any) -> list[dict[str, Any]]:
    """Connect to ``url``, sign in (:func:`sign_in`), take a seat (:func:`take_a_seat`) and
    play ``games`` games (:func:`play_games`); return each game's ``game_over`` event.

    Example: a random bot's game against robots at a new private table::

        results = await play("ws://127.0.0.1:8765/ws", random_action, room="hearts",
                             create={"private": True}, fill_robots=True)

    ``connect_options`` go to websockets' ``connect`` (``additional_headers``...)."""
    async with TrickroomClient.connect(url, **connect_options) as client:
        await sign_in(client, name, password)
        at, sat = await take_a_seat(client, room, table=table, seat=seat, invite=invite,
                                    create=create, fill_robots=fill_robots)
        return await play_games(client, at, choose, games, on_message=on_message,
                                play_again=play_again, again=again, seat=sat)
