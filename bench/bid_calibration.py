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

Because a side's tricks at that table do not follow its number bid, the
tricks it took also price every other contract it could have bid: the
*headroom* is what bidding the best contract for a forecast of the side's
tricks (off by a normal error of a given size, unbiased, and known to be that
size) would have gained over the contract bid, on the tricks the table took.
It bounds what better number bids could gain for a forecast that good (nils
apart: a nil changes the play). The bench also measures how far off the bid
search's own forecast is, and what bidding its best contract, corrected by the
measured error, would have gained over the search's own contracts.

Run: ``python -m bench.bid_calibration`` (a short run: 20 deals, a few
minutes; ``--biddings "rules of thumb,search"`` plays only those). Full size:
``nice python -m bench.bid_calibration --deals 250 --jobs 2`` (about half an
hour on two cores). The last line is::

    bid_calibration sides=<n> table_spread=<s.ss> set_table=<x.xxx> \
set_model=<y.yyy> set_playout=<z.zzz> tricks_per_bid_table=<t.tt> tricks_per_bid_playout=<p.pp> \
forecast_sd=<f.ff> play_noise=<n.nn>

(``nan`` where the biddings run do not show a figure.)
"""

from __future__ import annotations

import functools
import math
import random
import statistics
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bench.figures import command_line
from trickroom.game.actions import BIDS, Bid
from trickroom.game.robots import HeuristicRobot, SearchRobot
from trickroom.game.robots.bidding import TABLE_SPREAD, BidSearch, table_tricks
from trickroom.game.robots.playout import play_out
from trickroom.game.robots.position import Position
from trickroom.game.spades import SpadesGame, SpadesRules, score_hand

BIDDINGS = {"rules of thumb": 0, "a trick under": -1, "a trick over": 1, "search": None}
"""How each deal is bid: by the rules of thumb with seat 0's bid moved that far, or every
seat by the bid search."""


@dataclass(frozen=True)
class Hand:
    """One bidding of one deal, played out by the heuristic and at a searching table.

    ``forecast`` (the search bidding only) is, per side, the side's tricks its
    later bidder's search expected for the bid it made; ``None`` where it has none.
    """

    seed: int
    bidding: str  # a key of BIDDINGS
    bids: tuple[int, ...]
    playout: tuple[int, ...]
    table: tuple[int, ...]
    forecast: tuple[float | None, float | None] = (None, None)
    replay: int = 0  # 0 the first play; more: the same bids played by other seeds' robots


def play(seed: int, bidding: str, simulations: int, replay: int = 0) -> Hand | None:
    """The first hand of game ``seed``, bid as ``bidding`` says (a key of :data:`BIDDINGS`).

    ``None`` where the moved bid is not a legal number bid (below 1, a nil, over a cap).
    A ``replay`` seats robots of other seeds at the table (the bids are the same).
    """
    game = SpadesGame(SpadesRules(), seed=seed)
    delta = BIDDINGS[bidding]
    robots = [SearchRobot(seed * 16 + s + 4 * replay, simulations=simulations)
              for s in range(4)]
    heuristic = HeuristicRobot(seed)
    forecast: list[float | None] = [None, None]
    while game.phase == "bid":
        seat = game.awaiting[0]
        if delta is None:
            search = BidSearch(random.Random(seed * 16 + seat), simulations, None, 0.0)
            action = search.choose(game.view(seat))
            if isinstance(action, Bid) and action in search.forecast:
                forecast[seat & 1] = search.forecast[action][1]  # the later bidder's stays
        else:
            action = heuristic.choose(game.view(seat))
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
    return Hand(seed, bidding, bids, tuple(pos.tricks_won), tuple(game.hand_results[-1].tricks_won),
                (forecast[0], forecast[1]), replay)


def _play(args: tuple[int, str, int, int]) -> Hand | None:
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


def first_plays(hands: list[Hand]) -> dict[int, Hand]:
    """Each deal's first play at the rules of thumb's bids, by its seed."""
    return {h.seed: h for h in hands if h.bidding == "rules of thumb" and not h.replay}


def tricks_per_bid(hands: list[Hand], tricks: str) -> float:
    """How many more tricks seat 0's side took, on the same deal, for a trick more bid."""
    base = first_plays(hands)
    moves = [(side(getattr(h, tricks)) - side(getattr(base[h.seed], tricks))) / delta
             for h in hands if (delta := BIDDINGS[h.bidding]) and h.seed in base]
    return sum(moves) / len(moves) if moves else float("nan")


# -- headroom: what bidding could gain at the searching table ------------------------------------

BAG = 1.0 - SpadesRules().bag_penalty / (SpadesRules().bag_limit or math.inf)
"""A bag's long-run worth in the default rules (it scores 1 and costs a tenth of the penalty)."""

SIGMAS = (0.5, 1.0, 1.5, 2.0)
"""Forecast errors (a standard deviation, in tricks) at which the headroom is shown."""


@dataclass(frozen=True)
class Side:
    """One side's contract at the table: what it bid, by how many holders, and what it took."""

    contract: int
    holders: int  # seats that bid a number (a nil bidder's tricks count toward it)
    tricks: int


def sides(hands: list[Hand]) -> list[Side]:
    """Both sides of each hand that hold a contract (a side of two nils has none)."""
    out = []
    for h in hands:
        for first in (0, 1):
            seats = (first, first + 2)
            holders = sum(h.bids[s] > 0 for s in seats)
            if holders:
                out.append(Side(sum(h.bids[s] for s in seats if h.bids[s] > 0), holders,
                                sum(h.table[s] for s in seats)))
    return out


@functools.cache
def contract_value(contract: int, tricks: int) -> float:
    """A contract's points at the table, a bag at its long-run worth (the nil apart).

    Scored by :func:`~game.spades.score_hand` (one seat holds the contract, its partner a
    made nil whose points are left out), once for each contract and tricks.
    """
    result = score_hand(SpadesRules(), 0, 0, (contract, 1, 0, 1), (False,) * 4,
                        (tricks, 13 - tricks, 0, 0), (0, 0), (0, 0))
    ours = result.sides[0]
    return ours.contract_points + BAG * ours.bags


def best_contract(forecast: float, sigma: float, holders: int) -> int:
    """The contract with the best expected points when the side's tricks are about
    ``forecast``, off by a normal error of ``sigma`` tricks."""
    weights = [math.exp(-0.5 * ((t - forecast) / sigma) ** 2) for t in range(14)]
    return max(range(holders, 14), key=lambda c: sum(
        w * contract_value(c, t) for t, w in enumerate(weights)))


def headroom(table_sides: list[Side], sigma: float, draws: int = 200, seed: int = 1) -> float:
    """Points a hand a side would gain over the contracts it bid, bidding each time the best
    contract for a forecast of its tricks off by ``sigma`` (0: the tricks known).

    The tricks are held as the table took them: there a side's tricks do not follow its
    bid (:func:`tricks_per_bid`). Such a forecaster knows its error and has no bias, so
    this is what a bidder whose forecast is that good could make of the same tables.
    """
    rng = random.Random(seed)
    gains = []
    for side_ in table_sides:
        made = contract_value(side_.contract, side_.tricks)
        if sigma <= 0:
            best = max(contract_value(c, side_.tricks) for c in range(side_.holders, 14))
            gains.append(best - made)
            continue
        for _ in range(draws):
            c = best_contract(side_.tricks + rng.gauss(0.0, sigma), sigma, side_.holders)
            gains.append(contract_value(c, side_.tricks) - made)
    return statistics.fmean(gains) if gains else float("nan")


def forecast_error(hands: list[Hand]) -> tuple[float, float, int]:
    """Bias and standard deviation of the table's side tricks against the search's
    forecast, and how many sides were forecast."""
    errors = [sum(h.table[s] for s in (first, first + 2)) - f
              for h in hands for first, f in enumerate(h.forecast) if f is not None]
    if len(errors) < 2:
        return float("nan"), float("nan"), len(errors)
    return statistics.fmean(errors), statistics.stdev(errors), len(errors)


def forecast_bidding_gain(hands: list[Hand], bias: float, sd: float) -> tuple[float, int]:
    """Points a hand gained over the contract bid by bidding instead the best contract for
    the search's own forecast, moved by ``bias`` and off by ``sd`` (the error measured), on
    the tricks the table took; and how many sides that covers."""
    gains = []
    for h in hands:
        for first, f in enumerate(h.forecast):
            seats = (first, first + 2)
            holders = sum(h.bids[s] > 0 for s in seats)
            if f is None or not holders:
                continue
            tricks = sum(h.table[s] for s in seats)
            contract = sum(h.bids[s] for s in seats if h.bids[s] > 0)
            c = best_contract(f + bias, sd, holders)
            gains.append(contract_value(c, tricks) - contract_value(contract, tricks))
    return (statistics.fmean(gains) if gains else float("nan")), len(gains)


def play_noise(hands: list[Hand]) -> tuple[float, int]:
    """The standard deviation of a side's tricks from one play of the same deal and bids at
    the searching table to another (robots of other seeds), and how many pairs show it.

    No forecast made before the play can be closer to the table's tricks than this.
    """
    first = first_plays(hands)
    diffs = [sum(h.table[s] - base.table[s] for s in (side, side + 2))
             for h in hands if h.replay and (base := first.get(h.seed)) is not None
             for side in (0, 1)]
    if len(diffs) < 2:
        return float("nan"), len(diffs) // 2
    return statistics.stdev(diffs) / math.sqrt(2), len(diffs) // 2


def playout_error(hands: list[Hand]) -> float:
    """The standard deviation of the table's side tricks about one heuristic play-out's of
    the true deal (what the bid search sees at best)."""
    errors = [sum(h.table[s] - h.playout[s] for s in (first, first + 2))
              for h in hands for first in (0, 1)]
    return statistics.stdev(errors) if len(errors) > 1 else float("nan")


def main(argv: list[str] | None = None) -> None:
    parser = command_line(__doc__)
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--simulations", type=int, default=800,
                        help="play-outs per card at the searching table")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--biddings", default=",".join(BIDDINGS),
                        help="which of the biddings to play, comma-separated")
    parser.add_argument("--replays", type=int, default=0,
                        help="plays more of the rules of thumb's bids, by robots of other "
                             "seeds, to measure how much the table's tricks vary by the play")
    args = parser.parse_args(argv)
    wanted = [b.strip() for b in args.biddings.split(",")]
    if unknown := [b for b in wanted if b not in BIDDINGS]:
        parser.error(f"unknown bidding {unknown[0]!r}; choose from {', '.join(BIDDINGS)}")
    console = Console()
    seeds = range(args.first_seed, args.first_seed + args.deals)
    tasks = [(seed, b, args.simulations, 0) for seed in seeds for b in wanted]
    tasks += [(seed, "rules of thumb", args.simulations, k)
              for seed in seeds for k in range(1, args.replays + 1)]
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
    forecast_sd, noise = print_headroom(console, played)
    print(f"bid_calibration sides={len(hands)} table_spread={spread:.2f} "
          f"set_table={set_rate(hands, 'table'):.3f} "
          f"set_model={model_set_rate(hands, spread):.3f} "
          f"set_playout={set_rate(hands, 'playout'):.3f} "
          f"tricks_per_bid_table={per_bid['table']:.2f} "
          f"tricks_per_bid_playout={per_bid['playout']:.2f} "
          f"forecast_sd={forecast_sd:.2f} play_noise={noise:.2f}")


def print_headroom(console: Console, played: list[Hand]) -> tuple[float, float]:
    """What better number bids could gain at the searching table, by how good the forecast;
    returns the search's forecast error and the play's noise (sds, nan where not shown)."""
    bias, sd, forecast = forecast_error(played)
    by_bidding = groups(played)
    table = Table(title="headroom: points a hand over the contract bid, tricks as the table "
                        "took them, for a bidder whose forecast of its side's tricks is off by")
    table.add_column("bidding")
    table.add_column("sides")
    for col in ["0 (known)"] + [f"{s:.1f}" for s in SIGMAS]:
        table.add_column(col)
    for bidding, group in by_bidding.items():
        group_sides = sides(group)
        table.add_row(bidding, str(len(group_sides)),
                      *(f"{headroom(group_sides, s):+.2f}" for s in (0.0, *SIGMAS)))
    console.print(table)
    console.print(f"the table's side tricks about one heuristic play-out of the true deal: "
                  f"sd {playout_error(played):.2f}")
    noise, pairs = play_noise(played)
    if pairs:
        console.print(f"from one play of the same deal and bids to another: sd {noise:.2f} "
                      f"({pairs} deals); a forecast that good would gain "
                      f"{headroom(sides(groups(played)['rules of thumb']), noise):+.2f} a hand "
                      f"over the rules of thumb")
    if forecast:
        console.print(f"about the search's forecast ({forecast} sides): bias {bias:+.2f}, "
                      f"sd {sd:.2f}")
        gain, n = forecast_bidding_gain(played, bias, sd)
        console.print(f"bidding the best contract for that forecast, so corrected: {gain:+.2f} "
                      f"a hand over the search's own contracts ({n} sides)")
    return sd, noise


if __name__ == "__main__":
    main()
