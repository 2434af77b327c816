"""The ``trickroom`` command.

Until the server lands, ``trickroom`` (and ``make run``) plays one Spades game
between four robots and prints it hand by hand: bids, tricks and scores.
"""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from game.cards import CARD_TEXT, SEAT_NAMES
from game.robots import ROBOTS, make_robot
from game.spades import SpadesGame, SpadesHandResult, SpadesRules


def play_demo(seed: int, robot: str, console: Console) -> SpadesGame:
    """Four robots play a Spades game to the end; each hand is printed as it is scored."""
    game = SpadesGame(SpadesRules(mercy=200), seed=seed)
    robots = [make_robot(robot, seed * 4 + s) for s in range(4)]
    console.print(f"[bold]Spades[/bold], seed {seed}, four {robot} robots; "
                  f"North-South (seats 0, 2) against East-West (seats 1, 3)")
    while game.phase != "game_over":
        if game.phase == "hand_over":
            game.next_hand()
            continue
        seat = game.to_act
        assert seat is not None
        events = game.apply(robots[seat].choose(game.view(seat)), seat)
        for event in events:
            if event.kind == "trick_won":
                cards = " ".join(CARD_TEXT[c] for c in event.cards)  # type: ignore[attr-defined]
                console.print(f"  trick {event.trick_no + 1:2}: {cards}  "  # type: ignore[attr-defined]
                              f"won by {SEAT_NAMES[event.seat]}")  # type: ignore[attr-defined]
            elif event.kind == "hand_scored":
                _print_hand(console, event.result)  # type: ignore[attr-defined]
    winners = " and ".join(SEAT_NAMES[s] for s in game.winners)
    console.print(f"[bold]Game over[/bold]: {winners} win, {game.scores[0]} to {game.scores[1]}")
    return game


def _print_hand(console: Console, result: SpadesHandResult) -> None:
    table = Table(title=f"hand {result.hand_no + 1} (dealer {SEAT_NAMES[result.dealer]})")
    for col in ("seat", "bid", "tricks"):
        table.add_column(col)
    for seat in range(4):
        bid = "blind nil" if result.blind[seat] else (
            "nil" if result.bids[seat] == 0 else str(result.bids[seat]))
        table.add_row(SEAT_NAMES[seat], bid, str(result.tricks_won[seat]))
    console.print(table)
    for side in result.sides:
        name = "North-South" if side.side == 0 else "East-West"
        console.print(f"  {name}: {side.points:+d} (contract {side.contract_points:+d}, "
                      f"bags {side.bags}, nil {side.nil_points:+d}, penalty {side.bag_penalty}) "
                      f"-> {side.score}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="trickroom", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--robot", choices=sorted(ROBOTS), default="random")
    args = parser.parse_args(argv)
    play_demo(args.seed, args.robot, Console())


if __name__ == "__main__":
    main()
