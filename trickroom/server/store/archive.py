"""A finished game's record as one compact value: what its ``games`` row keeps for good.

The record (:meth:`~trickroom.game.trickgame.TrickGame.record`: rules, seed, dealer,
deal and every action) is all the review and ``GET /api/games/<id>`` need. While a
game is played its moves are also rows of ``actions``, one a move (a restarted server
replays them); once it has ended, they repeat what the record holds, and are dropped
after a while (:mod:`trickroom.server.retention`). What stays is this value.

Packed, a record is JSON whose runs of plays are one string, three characters a play
(the seat, then the card: ``"2QH0AS1TS"``), compressed with zlib and written as base64
text (``z1:`` first, so that a record stored whole, as JSON, is told apart: older
games, and those finished before this form, keep theirs, and both read the same).
Text rather than bytes: the column is ``TEXT`` in both engines, and PostgreSQL's text
holds no arbitrary bytes. A Spades game of twelve hands (672 moves) packs into 1.9 KB,
against 29 KB as JSON (2.5 KB as JSON compressed alike) and about 100 KB of ``actions``
rows.

:func:`unpack` gives back exactly what :func:`pack` was given, down to the order of
every object's keys: a play becomes a string only when it is one of the three keys
``seat``, ``type`` and ``card``, in that order, with a seat of 0 to 3 and a card of two
characters, which is exactly the object the string reads back as. Anything else (a
bid, a pass, a bid's ``why``) stays as it was.
"""

from __future__ import annotations

import base64
import json
import logging
import zlib
from typing import Any

log = logging.getLogger("trickroom.store")

PACKED = "z1:"  # what starts a packed record (a record kept whole starts with "{")
PLAY_CHARS = 3  # a play in a run: its seat, then its card's two characters
LEVEL = 9  # zlib's best: a record is packed once, when its game ends


def pack(record: dict[str, Any]) -> str:
    """``record`` as the text its game's row keeps.

    A record whose actions are not all objects (none is, from an engine) is kept whole,
    as JSON: a string among them would read back as plays.
    """
    actions = record.get("actions")
    if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
        return json.dumps(record)
    text = json.dumps({**record, "actions": _runs(actions)}, separators=(",", ":"))
    return PACKED + base64.b64encode(zlib.compress(text.encode(), LEVEL)).decode("ascii")


def unpack(stored: str) -> dict[str, Any]:
    """The record a game's row keeps, packed or whole (as every game kept it before)."""
    if not stored.startswith(PACKED):
        record: dict[str, Any] = json.loads(stored)
        return record
    record = json.loads(zlib.decompress(base64.b64decode(stored[len(PACKED):])))
    record["actions"] = _actions(record["actions"])
    return record


def is_packed(stored: str) -> bool:
    return stored.startswith(PACKED)


def archivable(games: list[tuple[str, str, int]]) -> list[tuple[str, str | None]]:
    """Of ``(game id, stored record, moves stored)``, the games whose moves may go, each
    with its record packed if it was kept whole (None: already packed). A record that
    holds fewer actions than its game's moves keeps them (never seen: a warning)."""
    out: list[tuple[str, str | None]] = []
    for game_id, stored, moves in games:
        record = unpack(stored)
        held = len(record.get("actions", ()))
        if held < moves:
            log.warning("game %s keeps its %d moves: its record holds only %d actions",
                        game_id, moves, held)
            continue
        out.append((game_id, None if is_packed(stored) else pack(record)))
    return out


def _runs(actions: list[Any]) -> list[Any]:
    """The actions, each run of plain plays one string."""
    out: list[Any] = []
    run: list[str] = []
    for action in actions:
        play = _play_text(action)
        if play is not None:
            run.append(play)
            continue
        if run:
            out.append("".join(run))
            run = []
        out.append(action)
    if run:
        out.append("".join(run))
    return out


def _play_text(action: Any) -> str | None:
    """A play as three characters, if it reads back as exactly the same object."""
    if not isinstance(action, dict) or len(action) != 3:
        return None
    (k1, seat), (k2, kind), (k3, card) = action.items()
    if (k1, k2, k3) != ("seat", "type", "card") or kind != "play":
        return None
    if type(seat) is not int or not 0 <= seat <= 3 or type(card) is not str or len(card) != 2:
        return None
    return f"{seat}{card}"


def _actions(runs: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in runs:
        if isinstance(item, str):
            out.extend({"seat": int(item[i]), "type": "play", "card": item[i + 1:i + 3]}
                       for i in range(0, len(item), PLAY_CHARS))
        else:
            out.append(item)
    return out
