"""The bid search's table model, measured: a searching table's tricks against a play-out's.

The bid search (:mod:`game.robots.bidding`) values a bid by playing hands out
with the heuristic for every seat, but the robot sits at tables where the
cards are searched, and there the tricks fall otherwise: a side short of its
contract fights for it, a side with tricks to spare sets the other or sheds
its bags. :func:`~game.robots.bidding.table_tricks` maps a play-out's tricks
to the searching table's; this bench measures what its two constants should be.

Each deal is bid by the rules of thumb, then again with seat 0's bid a trick
lower and a trick higher (so that the margins vary for the same cards, not
only from deal to deal), and once by the bid search for every seat (the bids
the robot makes, at the edge of what the play-outs say more often); each
bidding is played out once with the heuristic on the true hands (what a
play-out would say) and once at a table where all four seats search their
cards. The fitted spread is the one whose set rates of
seat 0's side match the table's best over the four biddings (the set is what
a bid decides); the bench also shows how far a trick more bid moves the
tricks, at the table and in the play-out, which is why the model does not
lean toward the side short of its contract.

Run: ``python bench/bid_calibration.py`` (a short run: 20 deals, a few
minutes). Full size: ``nice python bench/bid_calibration.py --deals 250 --jobs 2``
(about half an hour on two cores). The last line is::

    bid_calibration sides=<n> table_spread=<s.ss> set_table=<x.xxx> \
set_model=<y.yyy> set_playout=<z.zzz> tricks_per_bid_table=<t.tt> tricks_per_bid_playout=<p.pp>
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from game.actions import BIDS, Bid
from game.robots import HeuristicRobot, SearchRobot
from game.robots.bidding import TABLE_SPREAD, table_tricks
from game.robots.playout import play_out
from game.robots.position import Position
from game.spades import SpadesGame, SpadesRules

BIDDINGS = {"rules of thumb": 0, "a trick under": -1, "a trick over": 1, "search": None}
"""How each deal is bid: by the rules of thumb with seat 0's bid moved that far, or every
seat by the bid search."""


@dataclass(frozen=True)
class Hand:
    """One bidding of one deal, played out by the heuristic and at a searching table."""

    seed: int
    bidding: str  # a key of BIDDINGS
    bids: tuple[int, ...]
    playout: tuple[int, ...]
    table: tuple[int, ...]


def play(seed: int, bidding: str, simulations: int) -> Hand | None:
    """The first hand of game ``seed``, bid as ``bidding`` says (a key of :data:`BIDDINGS`).

    ``None`` where the moved bid is not a legal number bid (below 1, a nil, over a cap).
    """
    game = SpadesGame(SpadesRules(), seed=seed)
    delta = BIDDINGS[bidding]
    robots = [SearchRobot(seed * 16 + s, simulations=simulations) for s in range(4)]
    heuristic = HeuristicRobot(seed)
    while game.phase == "bid":
        seat = game.awaiting[0]
        bidder = heuristic if delta is not None else robots[seat]
        action = bidder.choose(game.view(seat))
        if seat == 0 and delta and isinstance(action, Bid):
            value = action.value + delta
            if action.blind or not action.value or not 1 <= value <= 13 or (
                    BIDS[value] not in game.view(seat).legal):
                return None
            action = BIDS[value]
        game.apply(action, seat)
    pos = Position.from_view(game.view(game.awaiting[0]))
    pos.hands = list(game.hands)
    bids = tuple(pos.bids)
    play_out(pos)
    while game.phase == "play":
        seat = game.awaiting[0]
        game.apply(robots[seat].choose(game.view(seat)), seat)
    return Hand(seed, bidding, bids, tuple(pos.tricks_won), tuple(game.hand_results[-1].tricks_won))


def _play(args: tuple[int, str, int]) -> Hand | None:
    return play(*args)


def side(tricks: tuple[int, ...] | list[int]) -> int:
    return tricks[0] + tricks[2]


def contract(hand: Hand) -> int:
    return sum(hand.bids[s] for s in (0, 2) if hand.bids[s] > 0)


def set_rate(hands: list[Hand], tricks: str) -> float:
    """How often seat 0's side was set at the ``"table"`` or in the ``"playout"``."""
    return sum(side(getattr(h, tricks)) < contract(h) for h in hands) / len(hands)


def model_set_rate(hands: list[Hand], spread: float) -> float:
    """How often the model sets seat 0's side, from the play-outs' tricks."""
    return sum(sum(w for w, t in table_tricks(h.bids, h.playout, 0, spread=spread)
                   if side(t) < contract(h)) for h in hands) / len(hands)


def groups(hands: list[Hand]) -> dict[str, list[Hand]]:
    return {b: [h for h in hands if h.bidding == b] for b in BIDDINGS
            if any(h.bidding == b for h in hands)}


def fit(hands: list[Hand]) -> float:
    """The spread whose set rates match the table's, each bidding weighed by its count."""
    by_bidding = groups(hands)

    def error(spread: float) -> float:
        return sum(len(g) * (model_set_rate(g, spread) - set_rate(g, "table")) ** 2
                   for g in by_bidding.values())

    return min((s / 20 for s in range(4, 41)), key=error)


def tricks_per_bid(hands: list[Hand], tricks: str) -> float:
    """How many more tricks seat 0's side took, on the same deal, for a trick more bid."""
    base = {h.seed: h for h in hands if h.bidding == "rules of thumb"}
    moves = [(side(getattr(h, tricks)) - side(getattr(base[h.seed], tricks))) / delta
             for h in hands if (delta := BIDDINGS[h.bidding]) and h.seed in base]
    return sum(moves) / len(moves) if moves else float("nan")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--simulations", type=int, default=800,
                        help="play-outs per card at the searching table")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--first-seed", type=int, default=1000)
    args = parser.parse_args(argv)
    console = Console()
    tasks = [(seed, b, args.simulations)
             for seed in range(args.first_seed, args.first_seed + args.deals) for b in BIDDINGS]
    played: list[Hand] = []
    with Progress(TextColumn("biddings"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console) as progress, ProcessPoolExecutor(
            args.jobs) as pool:
        bar = progress.add_task("biddings", total=len(tasks))
        for hand in pool.map(_play, tasks):
            progress.advance(bar)
            if hand is not None:
                played.append(hand)
    # Seat 0's side must hold a contract and the other side too, as the model needs.
    hands = [h for h in played if contract(h) and any(h.bids[s] > 0 for s in (1, 3))]
    spread = fit(hands)
    table = Table(title=f"seat 0's side, {len(hands)} biddings of {args.deals} deals: set rates")
    for col in ("bidding", "count", "table", f"model, spread {spread:.2f}",
                f"in the robot, {TABLE_SPREAD:.2f}", "play-out alone"):
        table.add_column(col)
    for bidding, group in groups(hands).items():
        table.add_row(bidding, str(len(group)), f"{set_rate(group, 'table'):.3f}",
                      f"{model_set_rate(group, spread):.3f}",
                      f"{model_set_rate(group, TABLE_SPREAD):.3f}",
                      f"{set_rate(group, 'playout'):.3f}")
    console.print(table)
    per_bid = {t: tricks_per_bid(hands, t) for t in ("table", "playout")}
    console.print(f"a trick more bid: {per_bid['table']:+.2f} tricks at the searching table, "
                  f"{per_bid['playout']:+.2f} in the play-out")
    print(f"bid_calibration sides={len(hands)} table_spread={spread:.2f} "
          f"set_table={set_rate(hands, 'table'):.3f} "
          f"set_model={model_set_rate(hands, spread):.3f} "
          f"set_playout={set_rate(hands, 'playout'):.3f} "
          f"tricks_per_bid_table={per_bid['table']:.2f} "
          f"tricks_per_bid_playout={per_bid['playout']:.2f}")


if __name__ == "__main__":
    main()
