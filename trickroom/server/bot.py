"""``trickroom bot``: a robot that plays through the socket like any outside program.

It uses only the documented protocol (docs/protocol.md) through the SDK in
``server/client.py``. Each prompt carries the seat's view; :func:`view_from_wire`
turns it back into the engine's view type so the same robots that run inside
the server can choose the action.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from typing import Any

from rich.console import Console
from rich.status import Status

from trickroom.game.actions import action_from_wire
from trickroom.game.cards import parse_card, parse_cards
from trickroom.game.events import TrickWon
from trickroom.game.hearts import HeartsRules, HeartsView, PassOptions
from trickroom.game.robots import make_robot
from trickroom.game.spades import SpadesRules, SpadesView
from trickroom.game.trickgame import TrickView
from trickroom.server.client import ServerError, TrickroomClient


def view_from_wire(data: dict[str, Any]) -> TrickView:
    """Rebuild a seat's view from its JSON form (a prompt's ``view``)."""
    hand = parse_cards(data["hand"])
    rules_data: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                                  for k, v in data["rules"].items()}
    if data["phase"] == "pass" and data["seat"] in data["awaiting"]:
        legal: tuple[Any, ...] = tuple(PassOptions(hand, rules_data["pass_count"]))
    else:
        legal = tuple(action_from_wire(a) for a in data.get("legal", []))
    common: dict[str, Any] = {
        "game": data["game"],
        "seat": data["seat"],
        "phase": data["phase"],
        "hand_no": data["hand_no"],
        "dealer": data["dealer"],
        "to_act": data["to_act"],
        "awaiting": tuple(data["awaiting"]),
        "hand": hand,
        "hand_sizes": tuple(data["hand_sizes"]),
        "leader": data["leader"],
        "trick": tuple((t["seat"], parse_card(t["card"])) for t in data["trick"]),
        "tricks": tuple(TrickWon(t["seat"], t["trick"], tuple(parse_card(c) for c in t["cards"]),
                                 t["leader"], t["points"]) for t in data["tricks"]),
        "tricks_won": tuple(data["tricks_won"]),
        "scores": tuple(data["scores"]),
        "hand_results": tuple(data["hand_results"]),
        "legal": legal,
    }
    if data["game"] == "spades":
        return SpadesView(**common, rules=SpadesRules(**rules_data), bids=tuple(data["bids"]),
                          blind=tuple(data["blind"]), bags=tuple(data["bags"]),
                          spades_broken=data["spades_broken"], sees_hand=data["sees_hand"])
    return HeartsView(**common, rules=HeartsRules(**rules_data),
                      pass_direction=data["pass_direction"],
                      passed=tuple(parse_card(c) for c in data["passed"]),
                      received=tuple(parse_card(c) for c in data["received"]),
                      pass_chosen=tuple(data["pass_chosen"]),
                      points_taken=tuple(data["points_taken"]),
                      hearts_broken=data["hearts_broken"])


async def find_or_create_table(client: TrickroomClient, room: str) -> str | None:
    """A waiting table of the room with a free seat, or a new one; None: none may be opened
    now (the address's waiting tables are at the server's cap: look again soon)."""
    listing = await client.request({"type": "list_tables", "room": room})
    for table in listing["tables"]:
        if table["state"] == "waiting" and any(s["kind"] == "empty" for s in table["seats"]):
            return str(table["id"])
    try:
        created = await client.request({"type": "create_table", "room": room})
    except ServerError as exc:
        if exc.code == "rate_limited":
            await asyncio.sleep(exc.reply.get("retry_after") or 0.5)
            return None
        raise
    return str(created["table"]["id"])


def describe_score(game: str, names: dict[int, str], scores: list[int],
                   winners: list[int]) -> str:
    """A game's or hand's standing for people: names with scores, leaders first."""
    def who(seat: int) -> str:
        return names.get(seat, f"seat {seat}")

    if game == "spades":
        sides = sorted(((scores[side], f"{who(side)} & {who(side + 2)}") for side in (0, 1)),
                       reverse=True)
        text = ", ".join(f"{name} {score}" for score, name in sides)
    else:
        text = ", ".join(f"{who(seat)} {scores[seat]}"
                         for seat in sorted(range(4), key=lambda s: scores[s]))
    if winners:
        text += f"; won by {' & '.join(who(seat) for seat in winners)}"
    return text


async def play_games(client: TrickroomClient, table: str, robot_level: str, games: int,
                     seed: int, console: Console | None = None,
                     status: Status | None = None) -> list[dict[str, Any]]:
    """Answer every prompt with the robot's choice until ``games`` games are over; with a
    console, print each hand's score (and how long it took) and each game's result as they
    come; with a ``status``, keep it saying where the games are (game, hand, trick)."""
    robot = make_robot(robot_level, seed)
    results: list[dict[str, Any]] = []
    names: dict[int, str] = {}
    game = "spades"
    answered = -1  # the seq of the last prompt answered: a repeat of it is stale
    hand, tricks, started = 1, 0, time.monotonic()

    def progress() -> None:
        if status is not None:
            status.update(f"playing game {len(results) + 1} of {games}: hand {hand}, "
                          f"{tricks} trick(s) played")

    progress()
    async for message in client.messages():
        kind = message.get("type")
        if kind == "prompt" and message["table"] == table:
            if message["seq"] <= answered:
                continue
            answered = message["seq"]
            view = view_from_wire(message["view"])
            game = view.game
            action = await asyncio.to_thread(robot.choose, view)
            try:
                await client.act(table, action.to_wire())
            except ServerError as exc:
                if exc.code not in ("not_your_turn", "wrong_phase"):
                    raise  # a stale prompt (a timer played for us) is fine; anything else is not
            continue
        if kind != "event" or message.get("table") != table:
            continue
        event = message["event"]
        if event["type"] == "table":
            names = {s["seat"]: s["name"] for s in event["info"]["seats"] if s["name"]}
            game = event["info"]["game"]
        elif event["type"] == "trick_won":
            tricks += 1
            progress()
        elif event["type"] == "hand_scored":
            took = time.monotonic() - started
            if console:
                console.print(f"  hand {event['hand'] + 1}: "
                              f"{describe_score(game, names, event['scores'], [])} "
                              f"({took:.0f} s)")
            hand, tricks, started = event["hand"] + 2, 0, time.monotonic()
            progress()
        elif event["type"] == "game_over":
            results.append(event)
            if console:
                console.print(f"[bold]game {len(results)} over[/bold]: "
                              f"{describe_score(game, names, event['scores'], event['winners'])}")
            if len(results) >= games:
                break
            await client.request({"type": "play_again", "table": table})
            hand, tricks = 1, 0
            progress()
    return results


async def take_a_seat(client: TrickroomClient, room: str, fill: bool) -> tuple[str, int]:
    """Sit at a waiting table of ``room`` (or a new one), and fill it if asked. Another bot
    may take the seat or start the table first: then try another (a few times)."""
    for _ in range(5):
        table = await find_or_create_table(client, room)
        if table is None:
            continue
        try:
            seated = await client.request({"type": "sit", "table": table})
        except ServerError as exc:
            if exc.code in ("seat_taken", "table_full", "no_such_table"):
                continue
            raise
        if fill:
            try:
                await client.request({"type": "fill_robots", "table": table,
                                      "level": "heuristic"})
            except ServerError as exc:
                if exc.code != "table_full":
                    raise  # table_full: four players came first; the game is on
        return table, int(seated["seat"])
    raise ServerError({"code": "table_full", "message": f"no seat came free in room {room!r}"})


async def run_bot(args: argparse.Namespace) -> None:
    console = Console()
    room = args.room or args.game
    async with TrickroomClient.connect(args.url) as client:
        if args.name and args.password:
            try:
                welcome = await client.request({"type": "login", "name": args.name,
                                                "password": args.password})
            except ServerError as exc:
                if exc.code != "bad_credentials":
                    raise
                welcome = await client.request({"type": "register", "name": args.name,
                                                "password": args.password})
        else:
            welcome = await client.request({"type": "guest", "name": args.name})
        table, seat = await take_a_seat(client, room, args.fill)
        console.print(f"[bold]{welcome['name']}[/bold] sits at table {table} seat "
                      f"{seat} in room {room} ({args.robot} robot)")
        console.print("The other seats' robots move at the server's own pace (a default "
                      "server waits 0.6 s before each robot move, so that people can follow): "
                      "a game of 8-12 hands takes about 4-6 minutes. Each hand's score is "
                      "printed as it ends.")
        with console.status("playing") as status:
            results = await play_games(client, table, args.robot, args.games,
                                       random.randrange(2**32), console, status)
        won = sum(1 for r in results if seat in r["winners"])
        console.print(f"[bold]summary[/bold]: {len(results)} game(s), {won} won")
