"""Robots against robots on duplicate deals, so that the luck of the cards cancels.

Every game is played from a seed, and a seed fixes every deal of the game
whatever is played (each engine deals from its own RNG), so hand ``k`` of
game ``seed`` is the same deal in every replay of that seed:

* Spades: each game is played twice, the tested robot holding seats 0 and 2,
  then seats 1 and 3;
* Hearts: each game is played four times, the tested robot in seat 0, 1, 2
  and 3 in turn against three copies of the opponent.

A seat's robot gets the same seed in every replay, and the search robot draws
its bids and passes from an RNG apart from its cards', so replays differ only
where the tested and the opposing robot decide differently (common random
numbers: a pairing of search bids against heuristic bids with the same card
search is not drowned in the luck of the card search).

A *deal* is one (seed, hand) pair; its value is the tested robot's mean margin
over the replays that reached it: in Spades its side's points minus the
other side's, in Hearts the opponents' average points minus its own (positive
is better for the tested robot in both). The 95% interval is over deals.

Pairings: heuristic vs random, search vs heuristic (both games; in Spades also
the search with the heuristic's bids, ``spades_card_search_vs_heuristic``, the
card search alone); in Spades, search bidding vs the heuristic's bids (both
sides searching the cards, so only the bids differ) and the *ceiling*: the
same search given the true deal instead of sampled ones, against the
heuristic, so that the search's own margin over the heuristic reads as the
share of that gap it closes; in Hearts, passes by search vs the heuristic's
passes (every seat playing its cards by the heuristic, so only the passes
differ and the pairing is cheap enough for many deals;
``spades_bids_only_vs_heuristic`` does the same for Spades bids,
``hearts_passing_ceiling_vs_heuristic`` gives the pass search the true deal,
the ceiling of passing, and ``hearts_passing_search_play`` plays every seat's
cards by search instead, only the tested seat passing by search), and search
vs OpenSpiel's ISMCTS bot (``pyspiel.ISMCTSBot``, 1000 simulations, random
roll-outs; it passes with our heuristic, since its resampler fails during the
pass, and its play is checked against our engine card for card).

Run: ``python -m bench.robots`` (a short run: 12 deals per search pairing,
about six minutes on one core). Full size, as the issue asks (300 deals, about
an hour on two cores): ``nice python -m bench.robots --deals 300 --jobs 2``. The
search gets ``--budget-ms`` of wall clock per decision (default 200), or a
fixed ``--simulations`` count for a run that repeats exactly; ``--card-budget-ms``
gives every search side's card play a smaller budget (bids and passes keep
``--budget-ms``), which makes the pairings where all four seats search cards
affordable at full size. Decision times are reported apart for cards and for
bids and passes. The last line is::

    robots hearts_search_vs_heuristic=<x.xx> hearts_search_vs_ismcts=<y.yy> \
spades_search_vs_heuristic=<z.zz> heuristic_p99_ms=<a.a> search_p99_ms=<b.b> \
search_bid_pass_p99_ms=<f.f> spades_bidding_vs_heuristic=<c.cc> spades_gap_closed=<d.dd> \
hearts_passing_vs_heuristic=<e.ee>
"""

from __future__ import annotations

import math
import statistics
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypedDict, Unpack

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bench.figures import command_line
from trickroom.game.actions import PLAYS, Action, Play
from trickroom.game.cards import CARD_TEXT
from trickroom.game.hearts import HeartsGame, HeartsRules
from trickroom.game.robots import HeuristicRobot, RandomRobot, SearchRobot
from trickroom.game.robots.heuristic import heuristic_action
from trickroom.game.spades import SpadesGame, SpadesRules

QUEEN_OF_SPADES = 49
Game = SpadesGame | HeartsGame


class Switches(TypedDict, total=False):
    """What a search robot searches (all, unless told otherwise)."""

    search_bids: bool
    search_passes: bool
    search_cards: bool


OPENSPIEL_DIRECTIONS = {"hold": 0, "left": 1, "across": 2, "right": 3}


# -- OpenSpiel's ISMCTS, seated at our table -----------------------------------------------


def to_openspiel(card: int) -> int:
    """Our card (suit * 13 + rank) as OpenSpiel's Hearts action (rank * 4 + suit)."""
    return (card % 13) * 4 + card // 13


def from_openspiel(action: int) -> int:
    return (action % 4) * 13 + action // 4


def check_card_mapping(os_game: Any) -> None:
    """Every card maps both ways and OpenSpiel names it as we do (raises if not)."""
    state = os_game.new_initial_state()
    state.apply_action(0)  # pass direction: the deal's chance actions are cards
    for card in range(52):
        action = to_openspiel(card)
        assert from_openspiel(action) == card
        assert state.action_to_string(action) == CARD_TEXT[card], (card, action)


class IsmctsPlayer:
    """OpenSpiel's ISMCTS bot playing one Hearts seat of our engine.

    Before each decision the OpenSpiel state is rebuilt from our game (deal,
    passes, cards played), then checked: same seat to act, same legal cards.
    Passing and the moon choice are our heuristic's.
    """

    name = "ismcts"
    needs_game = True

    def __init__(self, seed: int, simulations: int, os_game: Any) -> None:
        import pyspiel

        self.os_game = os_game
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        self.bot = pyspiel.ISMCTSBot(seed, evaluator, 2.0, simulations, -1,
                                     pyspiel.ISMCTSFinalPolicyType.NORMALIZED_VISIT_COUNT,
                                     False, False)

    def choose_in(self, game: HeartsGame, seat: int) -> Action:
        if game.phase != "play":
            return heuristic_action(game.view(seat))
        state = self.mirror(game)
        assert state.current_player() == seat, (state.current_player(), seat)
        legal = {from_openspiel(a) for a in state.legal_actions()}
        ours = {a.card for a in game.legal_actions() if isinstance(a, Play)}
        assert legal == ours, (sorted(legal), sorted(ours))
        if len(ours) == 1:
            return PLAYS[ours.pop()]
        return PLAYS[from_openspiel(self.bot.step(state))]

    def mirror(self, game: HeartsGame) -> Any:
        """Our hand in play as an OpenSpiel state: same deal, same passes, same cards."""
        state = self.os_game.new_initial_state()
        direction = game.pass_direction
        state.apply_action(OPENSPIEL_DIRECTIONS[direction])
        before = []
        for seat in range(4):
            hand = game.dealt[seat]
            if direction != "hold":
                for c in game.received[seat]:
                    hand &= ~(1 << c)
                for c in game.passes[seat] or ():
                    hand |= 1 << c
            before.append([c for c in range(52) if hand >> c & 1])
        for i in range(13):
            for seat in range(4):
                state.apply_action(to_openspiel(before[seat][i]))
        if direction != "hold":
            for seat in range(4):
                for c in game.passes[seat] or ():
                    state.apply_action(to_openspiel(c))
        for t in game.tricks:
            for c in t.cards:
                state.apply_action(to_openspiel(c))
        for c in game.trick:
            state.apply_action(to_openspiel(c))
        return state


class AllSeeingPlayer:
    """The ceiling: the search robot given the true deal instead of sampled ones.

    No seat could play like this (it sees every hand); it bounds what better
    guessing of the hidden cards could ever gain with the same search.
    """

    name = "ceiling"
    needs_game = True

    def __init__(self, seed: int, **switches: Unpack[Switches]) -> None:
        self.robot = SearchRobot(seed, **switches)

    def choose_in(self, game: Game, seat: int) -> Action:
        return self.robot.choose_seeing(game.view(seat), list(game.hands))


# -- playing the games ------------------------------------------------------------------------


@dataclass(frozen=True)
class Pairing:
    key: str
    game: str  # "spades" | "hearts"
    tested: str
    opponent: str


# The pairings, in the order they run and print: baselines, the search robot, then its
# Spades bids and Hearts passes apart (each against the all-seeing ceiling), its cards apart.
PAIRINGS = tuple(Pairing(*line.split()) for line in """
key                                  game    tested                 opponent
hearts_heuristic_vs_random           hearts  heuristic              random
spades_heuristic_vs_random           spades  heuristic              random
hearts_search_vs_heuristic           hearts  search                 heuristic
spades_search_vs_heuristic           spades  search                 heuristic
hearts_search_vs_ismcts              hearts  search                 ismcts
spades_bidding_vs_heuristic          spades  search                 search_heuristic_bids
spades_ceiling_vs_heuristic          spades  ceiling                heuristic
spades_bids_only_vs_heuristic        spades  search_bids            heuristic
hearts_passing_vs_heuristic          hearts  search_passes          heuristic
hearts_passing_ceiling_vs_heuristic  hearts  ceiling_passes         heuristic
hearts_passing_search_play           hearts  search                 search_heuristic_passes
spades_card_search_vs_heuristic      spades  search_heuristic_bids  heuristic
""".strip().splitlines()[1:])


@dataclass
class GameRecord:
    """What one seed's replays gave: per-hand margins and the counts behind the rates."""

    seed: int
    margins: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    wins: float = 0.0
    games: int = 0
    counts: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))


@dataclass(frozen=True)
class Settings:
    budget_ms: float
    simulations: int | None
    ismcts_simulations: int
    card_budget_ms: float | None = None  # cards only; None: budget_ms
    card_simulations: int | None = None  # cards only; None: simulations


class SplitBudget:
    """A search robot whose card play has its own budget (the bench's smaller one).

    Two robots of the same seed: one for bids, passes and the moon, one for
    cards, so a full-size run can afford every seat's card search while bids
    and passes keep the budget a table gives them.
    """

    name = "search"

    def __init__(self, decisions: SearchRobot, cards: SearchRobot) -> None:
        self.decisions = decisions
        self.cards = cards

    def choose(self, view: Any) -> Action:
        robot = self.cards if view.phase == "play" else self.decisions
        return robot.choose(view)


def _search(seed: int, settings: Settings, **switches: Unpack[Switches]) -> Any:
    def robot(budget_ms: float, simulations: int | None) -> SearchRobot:
        if simulations is not None:
            return SearchRobot(seed, simulations=simulations, **switches)
        return SearchRobot(seed, simulations=10**9, budget_ms=budget_ms,
                           clock=time.perf_counter, **switches)

    decisions = robot(settings.budget_ms, settings.simulations)
    if settings.card_budget_ms is None and settings.card_simulations is None:
        return decisions
    card_budget = settings.card_budget_ms if settings.card_budget_ms is not None else (
        settings.budget_ms)
    card_sims = settings.card_simulations if settings.card_budget_ms is None else None
    return SplitBudget(decisions, robot(card_budget, card_sims))


def make_player(level: str, seed: int, settings: Settings, os_game: Any) -> Any:
    if level == "random":
        return RandomRobot(seed)
    if level == "heuristic":
        return HeuristicRobot(seed)
    if level == "search":
        return _search(seed, settings)
    if level == "search_heuristic_bids":
        return _search(seed, settings, search_bids=False)
    if level == "search_heuristic_passes":
        return _search(seed, settings, search_passes=False)
    if level in ("search_passes", "search_bids"):
        return _search(seed, settings, search_cards=False)
    if level == "ceiling":
        return AllSeeingPlayer(seed)
    if level == "ceiling_passes":
        return AllSeeingPlayer(seed, search_cards=False)
    if level == "ismcts":
        return IsmctsPlayer(seed, settings.ismcts_simulations, os_game)
    raise ValueError(level)


def play_seed(pairing: Pairing, seed: int, settings: Settings) -> GameRecord:
    """Every replay of game ``seed`` for ``pairing``: 2 in Spades, 4 in Hearts."""
    os_game = None
    if "ismcts" in (pairing.tested, pairing.opponent):
        import pyspiel

        os_game = pyspiel.load_game("hearts", {"qs_breaks_hearts": False})
        check_card_mapping(os_game)
    record = GameRecord(seed)
    rotations = (0, 1) if pairing.game == "spades" else (0, 1, 2, 3)
    for rot in rotations:
        if pairing.game == "spades":
            tested = {rot, rot + 2}
            game: Game = SpadesGame(SpadesRules(), seed=seed)
        else:
            tested = {rot}
            game = HeartsGame(HeartsRules(), seed=seed)
        # A seat's robot has the same seed in every replay, so that where the tested and
        # the opposing robot decide alike (the same bids, the same passes) they play the
        # same cards, and the replays differ only where the decisions do.
        players = [make_player(pairing.tested if s in tested else pairing.opponent,
                               seed * 16 + s, settings, os_game) for s in range(4)]
        _play_game(game, players, tested, record)
    return record


def _play_game(game: Game, players: list[Any], tested: set[int],
               record: GameRecord) -> None:
    clock = time.perf_counter
    while True:
        while game.phase in ("bid", "pass", "play", "moon"):
            seat = game.awaiting[0]
            player = players[seat]
            start = clock()
            if getattr(player, "needs_game", False):
                action = player.choose_in(game, seat)
                choices = 2
            else:
                view = game.view(seat)
                choices = len(view.legal)
                action = player.choose(view)
            elapsed = clock() - start
            if choices > 1:
                kind = "card" if game.phase == "play" else "bid/pass"
                record.times[f"{player.name} {kind}"].append(elapsed)
            game.apply(action, seat)
        _score_hand(game, tested, record)
        if game.phase == "game_over":
            break
        game.next_hand()
    record.games += 1
    winners = game.winners
    record.wins += sum(1 for s in winners if s in tested) / len(winners)


def _score_hand(game: Game, tested: set[int], record: GameRecord) -> None:
    result = game.hand_results[-1]
    counts = record.counts
    if isinstance(game, SpadesGame):
        side = min(tested) % 2
        ours, theirs = result.sides[side], result.sides[1 - side]
        record.margins[result.hand_no].append(float(ours.points - theirs.points))
        counts["hands"] += 1
        for sc, who in ((ours, "t"), (theirs, "o")):
            if sc.made is not None:
                counts[f"{who}_contracts"] += 1
                counts[f"{who}_set"] += not sc.made
            counts[f"{who}_bags"] += sc.bags
        for seat in range(4):
            if result.bids[seat] == 0:
                who = "t" if seat in tested else "o"
                counts[f"{who}_nils"] += 1
                counts[f"{who}_nils_made"] += result.tricks_won[seat] == 0
        return
    seat = min(tested)
    points = result.points
    others = [points[s] for s in range(4) if s != seat]
    record.margins[result.hand_no].append(sum(others) / 3 - points[seat])
    counts["hands"] += 1
    if result.moon is not None:
        counts["t_moon" if result.moon == seat else "o_moon"] += 1
    for t in game.tricks:
        if QUEEN_OF_SPADES in t.cards:
            counts["t_queen"] += t.seat == seat


# -- summing up ---------------------------------------------------------------------------------


@dataclass
class Summary:
    pairing: Pairing
    deals: int = 0
    games: int = 0
    mean: float = math.nan
    half_width: float = math.nan
    win_rate: float = math.nan
    counts: dict[str, float] = field(default_factory=dict)
    times: dict[str, list[float]] = field(default_factory=dict)


def summarise(pairing: Pairing, records: list[GameRecord]) -> Summary:
    units = [statistics.fmean(m) for r in records for m in r.margins.values()]
    counts: dict[str, float] = defaultdict(float)
    times: dict[str, list[float]] = defaultdict(list)
    for r in records:
        for k, v in r.counts.items():
            counts[k] += v
        for k, ts in r.times.items():
            times[k].extend(ts)
    games = sum(r.games for r in records)
    s = Summary(pairing, len(units), games, counts=counts, times=times)
    if units:
        s.mean = statistics.fmean(units)
        s.half_width = 1.96 * statistics.stdev(units) / math.sqrt(len(units)) if len(
            units) > 1 else math.inf
    if games:
        s.win_rate = sum(r.wins for r in records) / games
    return s


def percentile(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def rate(counts: dict[str, float], num: str, den: str) -> str:
    d = counts.get(den, 0.0)
    return f"{100 * counts.get(num, 0.0) / d:.1f}%" if d else "-"


def print_tables(console: Console, summaries: list[Summary]) -> None:
    table = Table(title="robots on duplicate deals (margin: tested robot's points per hand "
                        "over the opponents', positive is better)")
    for col in ("pairing", "deals", "games", "margin / hand", "95% CI", "game wins"):
        table.add_column(col, justify="right")
    for s in summaries:
        lo, hi = s.mean - s.half_width, s.mean + s.half_width
        table.add_row(s.pairing.key, str(s.deals), str(s.games), f"{s.mean:+.2f}",
                      f"[{lo:+.2f}, {hi:+.2f}]", f"{100 * s.win_rate:.1f}%")
    console.print(table)
    spades = [s for s in summaries if s.pairing.game == "spades"]
    if spades:
        t = Table(title="Spades: tested side / opponents")
        for col in ("pairing", "set rate", "nil bids / hand", "nil made", "bags / hand"):
            t.add_column(col, justify="right")
        for s in spades:
            c = s.counts
            hands = c.get("hands", 0) or 1
            t.add_row(
                s.pairing.key,
                f"{rate(c, 't_set', 't_contracts')} / {rate(c, 'o_set', 'o_contracts')}",
                f"{c.get('t_nils', 0) / hands:.3f} / {c.get('o_nils', 0) / hands:.3f}",
                f"{rate(c, 't_nils_made', 't_nils')} / {rate(c, 'o_nils_made', 'o_nils')}",
                f"{c.get('t_bags', 0) / hands:.2f} / {c.get('o_bags', 0) / hands:.2f}")
        console.print(t)
        console.print("  nil set = 100% - nil made; a side's nil set is the other side's "
                      "nil-setting rate.")
    hearts = [s for s in summaries if s.pairing.game == "hearts"]
    if hearts:
        t = Table(title="Hearts: tested robot (one seat of four)")
        for col in ("pairing", "moons shot", "moons against", "took Q♠ (fair share 25%)"):
            t.add_column(col, justify="right")
        for s in hearts:
            c = s.counts
            t.add_row(s.pairing.key, rate(c, "t_moon", "hands"), rate(c, "o_moon", "hands"),
                      rate(c, "t_queen", "hands"))
        console.print(t)
    t = Table(title="decision time (decisions with a choice), ms")
    for col in ("pairing", "robot", "decisions", "p50", "p99", "max"):
        t.add_column(col, justify="right")
    for s in summaries:
        for name, ts in sorted(s.times.items()):
            t.add_row(s.pairing.key, name, str(len(ts)), f"{1000 * percentile(ts, 0.5):.2f}",
                      f"{1000 * percentile(ts, 0.99):.2f}", f"{1000 * max(ts):.2f}")
    console.print(t)


# -- main --------------------------------------------------------------------------------------


def run(pairings: list[Pairing], deals: dict[str, int], settings: Settings, jobs: int,
        first_seed: int, console: Console) -> list[Summary]:
    summaries = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("deals"), TimeElapsedColumn())
    with Progress(*columns, console=console) as progress, ProcessPoolExecutor(jobs) as pool:
        for pairing in pairings:
            target = deals[pairing.key]
            task = progress.add_task(pairing.key, total=target)
            records: list[GameRecord] = []
            have = 0
            seed = first_seed
            pending: list[Any] = []
            while have < target or pending:
                while have + len(pending) * _deals_guess(pairing) < target and len(
                        pending) < jobs:
                    pending.append(pool.submit(play_seed, pairing, seed, settings))
                    seed += 1
                done = pending.pop(0).result()
                records.append(done)
                have += len(done.margins)
                progress.update(task, completed=min(have, target))
            summaries.append(summarise(pairing, records))
    return summaries


def _deals_guess(pairing: Pairing) -> int:
    """Roughly how many deals one seed gives, to keep the workers busy without overshooting."""
    return 6 if pairing.game == "hearts" else 10


def main(argv: list[str] | None = None) -> None:
    parser = command_line(__doc__)
    parser.add_argument("--deals", type=int, default=12,
                        help="deals (Spades: deal pairs) per search pairing")
    parser.add_argument("--baseline-deals", type=int, default=300,
                        help="deals per heuristic-vs-random pairing")
    parser.add_argument("--budget-ms", type=float, default=200.0,
                        help="wall clock per search decision")
    parser.add_argument("--simulations", type=int, default=None,
                        help="fixed play-outs per search decision instead of a time budget")
    parser.add_argument("--card-budget-ms", type=float, default=None,
                        help="wall clock per searched card, for every search side "
                             "(default: --budget-ms); bids and passes keep --budget-ms")
    parser.add_argument("--card-simulations", type=int, default=None,
                        help="fixed play-outs per searched card (with --simulations)")
    parser.add_argument("--ismcts-simulations", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--seed", type=int, default=1, help="first game seed")
    parser.add_argument("--pairings", default=",".join(p.key for p in PAIRINGS),
                        help="comma-separated pairing keys to run")
    args = parser.parse_args(argv)
    console = Console()
    wanted = set(args.pairings.split(","))
    unknown = wanted - {p.key for p in PAIRINGS}
    if unknown:
        raise SystemExit(f"unknown pairings: {sorted(unknown)}")
    pairings = [p for p in PAIRINGS if p.key in wanted]
    if any(p.opponent == "ismcts" for p in pairings):
        try:
            import pyspiel  # noqa: F401
        except ImportError:
            raise SystemExit("OpenSpiel is missing: pip install -e '.[bench]'") from None
    deals = {p.key: args.baseline_deals if p.opponent == "random" else args.deals
             for p in pairings}
    settings = Settings(args.budget_ms, args.simulations, args.ismcts_simulations,
                        args.card_budget_ms, args.card_simulations)
    budget = (f"{args.simulations} play-outs" if args.simulations is not None
              else f"{args.budget_ms:.0f} ms")
    if args.card_budget_ms is not None:
        budget += f" ({args.card_budget_ms:.0f} ms a card)"
    elif args.card_simulations is not None:
        budget += f" ({args.card_simulations} play-outs a card)"
    console.print(f"search budget: {budget} per decision; ISMCTS: "
                  f"{args.ismcts_simulations} simulations; jobs: {args.jobs}")
    started = time.perf_counter()
    summaries = run(pairings, deals, settings, args.jobs, args.seed, console)
    print_tables(console, summaries)
    console.print(f"took {time.perf_counter() - started:.0f} s")
    by_key = {s.pairing.key: s for s in summaries}

    def margin(key: str) -> str:
        s = by_key.get(key)
        return f"{s.mean:.2f}" if s else "nan"

    def p99(name: str, kinds: tuple[str, ...] = ("card", "bid/pass")) -> str:
        ts = [t for s in summaries for kind in kinds
              for t in s.times.get(f"{name} {kind}", [])]
        return f"{1000 * percentile(ts, 0.99):.1f}"

    search, ceiling = by_key.get("spades_search_vs_heuristic"), by_key.get(
        "spades_ceiling_vs_heuristic")
    gap = "nan"
    if search and ceiling and ceiling.mean > 0:
        gap = f"{search.mean / ceiling.mean:.2f}"
        console.print(f"Spades: the search closes {gap} of the gap between the heuristic and "
                      f"the all-seeing ceiling ({search.mean:+.1f} of {ceiling.mean:+.1f} "
                      "points a hand)")
    cards = by_key.get("spades_card_search_vs_heuristic")
    if cards and ceiling and ceiling.mean > 0:
        console.print(f"Spades: searching the cards alone (the heuristic's bids) closes "
                      f"{cards.mean / ceiling.mean:.2f} of it ({cards.mean:+.1f} points a hand)")
    passing, seeing = by_key.get("hearts_passing_vs_heuristic"), by_key.get(
        "hearts_passing_ceiling_vs_heuristic")
    if passing and seeing and seeing.mean > 0:
        console.print(f"Hearts: passing by search closes {passing.mean / seeing.mean:.2f} of the "
                      f"gap between the heuristic's passes and the all-seeing pass "
                      f"({passing.mean:+.2f} of {seeing.mean:+.2f} points a hand)")
    print(f"robots hearts_search_vs_heuristic={margin('hearts_search_vs_heuristic')} "
          f"hearts_search_vs_ismcts={margin('hearts_search_vs_ismcts')} "
          f"spades_search_vs_heuristic={margin('spades_search_vs_heuristic')} "
          f"heuristic_p99_ms={p99('heuristic')} search_p99_ms={p99('search')} "
          f"search_bid_pass_p99_ms={p99('search', ('bid/pass',))} "
          f"spades_bidding_vs_heuristic={margin('spades_bidding_vs_heuristic')} "
          f"spades_gap_closed={gap} "
          f"hearts_passing_vs_heuristic={margin('hearts_passing_vs_heuristic')}")


if __name__ == "__main__":
    main()
