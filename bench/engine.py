"""Engine speed: random single hands, trickroom against OpenSpiel, in one process.

Both engines run the same loop: deal 52 cards uniformly at random with the
bench's RNG, then apply a uniformly random legal action until the hand is over.
trickroom takes the deal as four hand masks; OpenSpiel deals through its chance
nodes, sampled from ``chance_outcomes()`` as OpenSpiel is normally driven (the
headline ratio), and also with a preshuffled deck fed straight in as chance
actions (a second, stricter column). In Hearts the pass direction is drawn at
random for both. The figures are hands per second and the ratio trickroom /
OpenSpiel, measured back to back in this process, so the machine's speed
cancels out.

Also printed: whole games per second (Spades to 500 with mercy at 200, so a
random game cannot wander below zero for ever; Hearts to 100).

With ``--against REV`` (a commit, a tag, a branch: the previous release), the engine of
that commit's tree is measured too, in the same run: its ``trickroom`` package is taken
out of git into a temporary directory, and the same trickroom loop runs in a child process
on each tree in turn (``--rounds`` times each, alternating, so that the machine's moods
fall on both), and the ratio this tree / that tree is printed: an engine that lost ground
to new features shows below 1.

Run: ``python -m bench.engine [--seconds S] [--against REV]``. The last line is::

    engine ratio spades=<x.xx> hearts=<y.yy> preshuffled_spades=<p> preshuffled_hearts=<q>
        [against=<rev> vs_previous_spades=<a> vs_previous_hearts=<b>]
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from io import BytesIO
from pathlib import Path
from typing import Any

try:
    from trickroom.game.hearts import HeartsGame, HeartsRules
    from trickroom.game.spades import SpadesGame, SpadesRules
except ImportError:  # a tree from before the one package (``--against`` an older commit)
    from game.hearts import HeartsGame, HeartsRules  # type: ignore[no-redef,import-not-found]
    from game.spades import SpadesGame, SpadesRules  # type: ignore[no-redef,import-not-found]

LIVE = frozenset({"bid", "pass", "play", "moon"})
DIRECTIONS = ("hold", "left", "across", "right")  # OpenSpiel's chance order


def _masks(deck: list[int]) -> list[int]:
    hands = [0, 0, 0, 0]
    for i, card in enumerate(deck):
        hands[i % 4] |= 1 << card  # dealt round the table, as OpenSpiel deals
    return hands


def trickroom_spades(rng: random.Random) -> None:
    deck = list(range(52))
    rng.shuffle(deck)
    g = SpadesGame(SPADES_RULES, dealer=rng.randrange(4), first_deal=_masks(deck))
    choice, apply, legal = rng.choice, g.apply, g.legal_actions
    while g.phase in LIVE:
        apply(choice(legal()))


def trickroom_hearts(rng: random.Random) -> None:
    deck = list(range(52))
    rng.shuffle(deck)
    rules = HEARTS_RULES[rng.randrange(4)]
    g = HeartsGame(rules, dealer=0, first_deal=_masks(deck))
    choice, apply, legal = rng.choice, g.apply, g.legal_actions
    while g.phase in LIVE:
        apply(choice(legal()))


SPADES_RULES = SpadesRules()
HEARTS_RULES = tuple(HeartsRules(pass_cycle=(d,)) for d in DIRECTIONS)


def openspiel_hand(game: Any, *, preshuffled: bool) -> Callable[[random.Random], None]:
    """One OpenSpiel hand.

    OpenSpiel deals through chance nodes, one card each. The usual way to drive
    it (``preshuffled=False``) samples every chance node from its
    ``chance_outcomes()``, which is dealing from a shuffled deck one card at a
    time. ``preshuffled=True`` shuffles a deck first and feeds its cards as the
    chance actions, skipping the outcome lists: the fastest OpenSpiel can be
    driven from Python, shown as a second, stricter baseline.
    """

    def run(rng: random.Random) -> None:
        choice = rng.choice
        state = game.new_initial_state()
        apply, legal = state.apply_action, state.legal_actions
        if preshuffled:
            deck = list(range(52))
            rng.shuffle(deck)
            if state.is_chance_node() and len(state.chance_outcomes()) == 4:
                apply(rng.randrange(4))  # Hearts: the pass direction
            for card in deck:
                apply(card)
        while not state.is_terminal():
            if state.is_chance_node():
                apply(choice(state.chance_outcomes())[0])
            else:
                apply(choice(legal()))

    return run


def rate(play: Callable[[random.Random], None], seconds: float, seed: int = 1) -> float:
    """Hands per second over ``seconds`` of play (after a short warm-up)."""
    rng = random.Random(seed)
    for _ in range(200):
        play(rng)
    n = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(100):
            play(rng)
        n += 100
        now = time.perf_counter()
        if now >= deadline:
            return n / (now - start)


def whole_games(seconds: float) -> tuple[float, float]:
    """Whole games per second for each engine, random legal play."""
    out = []
    for make in (lambda s: SpadesGame(SpadesRules(mercy=200), seed=s),
                 lambda s: HeartsGame(HeartsRules(), seed=s)):
        rng = random.Random(7)
        n = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            g = make(n)
            while g.phase != "game_over":
                if g.phase == "hand_over":
                    g.next_hand()
                else:
                    g.apply(rng.choice(g.legal_actions()))
            n += 1
        out.append(n / (time.perf_counter() - start))
    return out[0], out[1]


ROOT = Path(__file__).resolve().parent.parent


def tree_of(rev: str, into: Path) -> Path:
    """The ``trickroom`` package of commit ``rev`` (or, from before the one package, its
    top-level ``game``), written under ``into``."""
    top = subprocess.run(["git", "ls-tree", "--name-only", rev], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.split()
    package = "trickroom" if "trickroom" in top else "game"
    archive = subprocess.run(["git", "archive", "--format=tar", rev, package], cwd=ROOT,
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def hands_per_second(tree: Path, seconds: float) -> dict[str, float]:
    """Spades and Hearts hands a second of this file's trickroom loop, run in a child
    process on the ``trickroom`` package under ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--hands-only",
                          str(seconds)], cwd=tree, env=env, check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def against(rev: str, seconds: float, rounds: int) -> dict[str, float]:
    """This tree's hands a second over ``rev``'s, each game's median of ``rounds`` ratios
    of runs back to back (alternating which goes first)."""
    with tempfile.TemporaryDirectory(prefix="trickroom-engine-") as tmp:
        old = tree_of(rev, Path(tmp))
        ratios: dict[str, list[float]] = {"spades": [], "hearts": []}
        for r in range(rounds):
            order = (ROOT, old) if r % 2 == 0 else (old, ROOT)
            runs = {tree: hands_per_second(tree, seconds) for tree in order}
            for game in ratios:
                ratios[game].append(runs[ROOT][game] / runs[old][game])
    return {game: statistics.median(r) for game, r in ratios.items()}


def main() -> None:
    if sys.argv[1:2] == ["--hands-only"]:  # the child of hands_per_second
        seconds = float(sys.argv[2])
        print(json.dumps({"spades": rate(trickroom_spades, seconds),
                          "hearts": rate(trickroom_hearts, seconds)}))
        return
    from rich.console import Console
    from rich.table import Table

    from bench.figures import command_line

    parser = command_line(__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="per engine and game")
    parser.add_argument("--against", metavar="REV",
                        help="also measure the engine of this commit's tree (the previous "
                             "release), in the same run")
    parser.add_argument("--rounds", type=int, default=3,
                        help="runs of each tree with --against (default 3)")
    args = parser.parse_args()
    console = Console()
    try:
        import pyspiel
    except ImportError:
        raise SystemExit("OpenSpiel is missing: pip install -e '.[bench]'") from None

    table = Table(title="random single hands per second (same loop, same process)")
    for col in ("game", "trickroom", "OpenSpiel", "ratio", "OpenSpiel preshuffled", "ratio"):
        table.add_column(col, justify="right")
    ratios, preshuffled = {}, {}
    for name, ours in (("spades", trickroom_spades), ("hearts", trickroom_hearts)):
        game = pyspiel.load_game(name)
        with console.status(f"{name}: trickroom"):
            a = rate(ours, args.seconds)
        with console.status(f"{name}: OpenSpiel"):
            b = rate(openspiel_hand(game, preshuffled=False), args.seconds)
        with console.status(f"{name}: OpenSpiel, preshuffled deck"):
            c = rate(openspiel_hand(game, preshuffled=True), args.seconds)
        ratios[name], preshuffled[name] = a / b, a / c
        table.add_row(name, f"{a:,.0f}", f"{b:,.0f}", f"{a / b:.2f}", f"{c:,.0f}", f"{a / c:.2f}")
    console.print(table)
    with console.status("whole games"):
        spades_games, hearts_games = whole_games(args.seconds)
    console.print(f"whole games per second: spades (to 500) {spades_games:,.0f}, "
                  f"hearts (to 100) {hearts_games:,.0f}")
    line = (f"engine ratio spades={ratios['spades']:.2f} hearts={ratios['hearts']:.2f} "
            f"preshuffled_spades={preshuffled['spades']:.2f} "
            f"preshuffled_hearts={preshuffled['hearts']:.2f}")
    if args.against:
        with console.status(f"against {args.against}"):
            vs = against(args.against, args.seconds, args.rounds)
        console.print(f"this tree's hands a second over {args.against}'s (median of "
                      f"{args.rounds}): spades {vs['spades']:.2f}, hearts {vs['hearts']:.2f}")
        line += (f" against={args.against} vs_previous_spades={vs['spades']:.2f} "
                 f"vs_previous_hearts={vs['hearts']:.2f}")
    print(line)


if __name__ == "__main__":
    main()
