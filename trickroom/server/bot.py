"""``trickroom bot``: a robot that plays through the socket like any outside program.

It uses only the documented protocol (docs/protocol.md) through the client package
(``trickroom_client``: its :func:`~trickroom_client.play_games` loop, with the server's robots
as the ``choose``). Each prompt carries the seat's view; :func:`view_from_wire` turns it back
into the engine's view type so the same robots that run inside the server can choose the
action. What this module adds to the client's loop is only the robots and the printing.
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
from trickroom.game.variants import recorded_rules
from trickroom_client import Prompt, TrickroomClient, find_or_create_table, sign_in, take_a_seat
from trickroom_client import play_games as play_prompts


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
        return SpadesView(**common, rules=recorded_rules(SpadesRules, rules_data),
                          bids=tuple(data["bids"]), blind=tuple(data["blind"]),
                          bags=tuple(data["bags"]), spades_broken=data["spades_broken"],
                          sees_hand=data["sees_hand"])
    return HeartsView(**common, rules=recorded_rules(HeartsRules, rules_data),
                      pass_direction=data["pass_direction"],
                      passed=tuple(parse_card(c) for c in data["passed"]),
                      received=tuple(parse_card(c) for c in data["received"]),
                      pass_chosen=tuple(data["pass_chosen"]),
                      points_taken=tuple(data["points_taken"]),
                      hearts_broken=data["hearts_broken"])


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


class Progress:
    """What ``trickroom bot`` prints as the games go: each hand's score and how long it took,
    each game's result, and a status line (game, hand, trick). Fed every pushed message."""

    def __init__(self, table: str, games: int, console: Console | None,
                 status: Status | None) -> None:
        self.table, self.games, self.console, self.status = table, games, console, status
        self.names: dict[int, str] = {}
        self.game = "spades"
        self.over = 0
        self.hand, self.tricks, self.started = 1, 0, time.monotonic()
        self.show()

    def show(self) -> None:
        if self.status is not None and self.over < self.games:
            self.status.update(f"playing game {self.over + 1} of {self.games}: hand "
                               f"{self.hand}, {self.tricks} trick(s) played")

    def __call__(self, message: dict[str, Any]) -> None:
        if message.get("type") != "event" or message.get("table") != self.table:
            return
        event = message["event"]
        if event["type"] == "table":
            self.names = {s["seat"]: s["name"] for s in event["info"]["seats"] if s["name"]}
            self.game = event["info"]["game"]
        elif event["type"] == "trick_won":
            self.tricks += 1
        elif event["type"] == "hand_scored":
            took = time.monotonic() - self.started
            if self.console:
                self.console.print(f"  hand {event['hand'] + 1}: "
                                   f"{describe_score(self.game, self.names, event['scores'], [])}"
                                   f" ({took:.0f} s)")
            self.hand, self.tricks, self.started = event["hand"] + 2, 0, time.monotonic()
        elif event["type"] == "game_over":
            self.over += 1
            if self.console:
                score = describe_score(self.game, self.names, event["scores"], event["winners"])
                self.console.print(f"[bold]game {self.over} over[/bold]: {score}")
            self.hand, self.tricks = 1, 0
        self.show()


async def play_games(client: TrickroomClient, table: str, robot_level: str, games: int,
                     seed: int, console: Console | None = None,
                     status: Status | None = None) -> list[dict[str, Any]]:
    """Answer every prompt with the robot's choice until ``games`` games are over; with a
    console, print each hand's score (and how long it took) and each game's result as they
    come; with a ``status``, keep it saying where the games are (game, hand, trick)."""
    robot = make_robot(robot_level, seed)

    async def choose(prompt: Prompt) -> dict[str, Any]:
        view = view_from_wire(prompt["view"])
        action = await asyncio.to_thread(robot.choose, view)
        return action.to_wire()

    return await play_prompts(client, table, choose, games,
                              on_message=Progress(table, games, console, status))


async def run_bot(args: argparse.Namespace) -> None:
    console = Console()
    room = args.room or args.game
    async with TrickroomClient.connect(args.url) as client:
        welcome = await sign_in(client, args.name, args.password)
        table, seat = await take_a_seat(client, room,
                                        fill_robots="heuristic" if args.fill else False)
        console.print(f"[bold]{welcome['name']}[/bold] sits at table {table} seat "
                      f"{seat} in room {room} ({args.robot} robot)")
        console.print("The other seats' robots move at the server's own pace (a default "
                      "server waits 0.6 s before each robot move, so that people can follow): "
                      "a game of 8-12 hands takes about 4-6 minutes. Each hand's score is "
                      "printed as it ends.")
        with console.status("playing") as status:
            results = await play_games(client, table, args.robot, args.games,
                                       random.randrange(2**32), console, status)
        won = sum(1 for r in results if r["seat"] in r["winners"])
        console.print(f"[bold]summary[/bold]: {len(results)} game(s), {won} won")


__all__ = ["find_or_create_table", "play_games", "run_bot", "view_from_wire"]
