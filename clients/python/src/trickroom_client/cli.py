"""``trickroom-bot``: a bot that plays a random legal action each turn, with nothing but
this package. A starting point to copy, and a quick check that a server plays."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from collections.abc import Sequence
from typing import Any

from trickroom_client.client import ServerError
from trickroom_client.play import Prompt, play, random_action


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="trickroom-bot",
        description="Play trickroom games through the socket with a random legal action a turn.")
    p.add_argument("url", nargs="?", default="ws://127.0.0.1:8765/ws",
                   help="the server's socket (default: ws://127.0.0.1:8765/ws)")
    p.add_argument("--room", default="spades", help="the room to play in (default: spades)")
    p.add_argument("--games", type=int, default=1, help="how many games (default: 1)")
    p.add_argument("--name", help="a guest name, or the account's name with --password")
    p.add_argument("--password", help="log in (an unknown name is registered)")
    p.add_argument("--table", help="sit at this table instead of finding one")
    p.add_argument("--invite", help="the code of a private --table")
    p.add_argument("--create", metavar="JSON",
                   help="open a new table with these create_table fields, "
                        "e.g. '{\"private\": true}'")
    p.add_argument("--fill", action="store_true", help="fill the empty seats with robots")
    p.add_argument("--level", help="the robots' level (default: the server's)")
    p.add_argument("--seed", type=int, help="seed the bot's choices")
    args = p.parse_args(argv)
    try:
        args.create = json.loads(args.create) if args.create else None
    except ValueError as exc:
        p.error(f"--create is not JSON: {exc}")
    if args.create is not None and not isinstance(args.create, dict):
        p.error("--create is a JSON object of create_table fields")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    rng = random.Random(args.seed)

    def choose(prompt: Prompt) -> dict[str, Any]:
        return random_action(prompt, rng)

    fill: bool | str = (args.level or True) if args.fill else False
    try:
        results = asyncio.run(play(args.url, choose, room=args.room, games=args.games,
                                   name=args.name, password=args.password, table=args.table,
                                   invite=args.invite, create=args.create, fill_robots=fill))
    except (ServerError, ConnectionError, OSError) as exc:
        print(f"trickroom-bot: {exc}", file=sys.stderr)
        return 1
    for number, result in enumerate(results, 1):
        print(f"game {number} over: scores {result['scores']}, won by seats "
              f"{result['winners']} (this bot: seat {result['seat']})")
    won = sum(1 for r in results if r["seat"] in r["winners"])
    print(f"summary: {len(results)} game(s), {won} won")
    return 0


if __name__ == "__main__":
    sys.exit(main())
