"""A prompt's view: what the seat to act is sent on every action, by the hand of a long game.

Every prompt carries the whole view of its seat (``TrickGame.view(seat).to_wire()``),
and the view carries every hand result of the game so far, so a prompt costs more the
longer the game. The game keeps its results' wire form, each made once when its hand
ends (issue 40); this bench measures a Spades view made and put in its wire form at the
first trick of hands 1, 4, 10 and 15 of a game to 1000 (random legal play, seeded), and
beside it, in the same process and the same minutes, the same view with its results made
afresh (the path before the game kept them), so the machine's speed cancels out.

The game keeps its won tricks' wire form too, made once a trick, for the rest of the
hand: the last line also gives the view at the last trick of hand 1 (twelve tricks won),
kept and with its tricks made afresh.

Run: ``python -m bench.prompt [--repeat N]``. The last line is::

    prompt view_us_hand1=<a> view_us_hand10=<b> view_us_hand15=<c> afresh_us_hand10=<d>
        ratio_hand10=<b/d> view_us_trick13=<e> afresh_us_trick13=<f> ratio_trick13=<e/f>
"""

from __future__ import annotations

import random
import timeit
from collections.abc import Callable
from functools import partial

from rich.console import Console
from rich.table import Table

from bench.figures import command_line
from trickroom.game.spades import SpadesGame, SpadesRules
from trickroom.game.trickgame import trick_wire

HANDS = (1, 4, 10, 15)


def game_at(hand: int, seed: int, trick: int = 1) -> SpadesGame:
    """A Spades game played at random to the first card of trick ``trick`` of hand ``hand``
    (both counted from 1)."""
    game = SpadesGame(SpadesRules(target=1000), seed=seed)
    rng = random.Random(seed)
    while not (game.phase == "play" and game.hand_no + 1 >= hand and not game.trick
               and len(game.tricks) + 1 >= trick):
        if game.phase == "game_over":
            raise SystemExit(f"the game of seed {seed} ended before hand {hand}: another --seed")
        if game.phase == "hand_over":
            game.next_hand()
            continue
        seat = game.awaiting[0]
        game.apply(rng.choice(list(game.legal_actions(seat))), seat)
    return game


def kept(game: SpadesGame, seat: int) -> object:
    """The view and its wire form as a prompt makes them: the results' wire form kept."""
    return game.view(seat).to_wire()


def afresh(game: SpadesGame, seat: int) -> object:
    """As before the game kept them: every result's wire form made for each view."""
    view = game.view(seat)
    wire = view.to_wire()
    wire["hand_results"] = [result.to_wire() for result in view.hand_results]
    return wire


def tricks_afresh(game: SpadesGame, seat: int) -> object:
    """As before the game kept them: every won trick's wire form made for each view."""
    view = game.view(seat)
    wire = view.to_wire()
    wire["tricks"] = [trick_wire(trick) for trick in view.tricks]
    return wire


def best_us(way: Callable[[SpadesGame, int], object], game: SpadesGame, repeat: int) -> float:
    """The least µs of five runs of ``repeat`` calls, for the seat to act."""
    seat = game.to_act
    assert seat is not None
    return min(timeit.repeat(partial(way, game, seat), number=repeat, repeat=5)) / repeat * 1e6


def measure(repeat: int, seed: int) -> dict[int, tuple[float, float]]:
    """By hand: µs to make the seat to act's view and its wire form, kept and afresh."""
    figures: dict[int, tuple[float, float]] = {}
    for hand in HANDS:
        game = game_at(hand, seed)
        figures[hand] = (best_us(kept, game, repeat), best_us(afresh, game, repeat))
    return figures


def measure_last_trick(repeat: int, seed: int) -> tuple[float, float]:
    """µs for the view at the last trick of hand 1, its tricks kept and made afresh."""
    game = game_at(1, seed, trick=13)
    return best_us(kept, game, repeat), best_us(tricks_afresh, game, repeat)


def main(argv: list[str] | None = None) -> int:
    parser = command_line(__doc__)
    parser.add_argument("--repeat", type=int, default=2000, help="views a timing (default 2000)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    figures = measure(args.repeat, args.seed)
    last = measure_last_trick(args.repeat, args.seed)
    table = Table(title="a Spades prompt's view and its wire form, µs")
    for column in ("hand", "results kept", "results made afresh"):
        table.add_column(column)
    for hand, (kept, afresh) in figures.items():
        table.add_row(str(hand), f"{kept:.2f}", f"{afresh:.2f}")
    Console(width=100).print(table)
    print(f"hand 1, last trick: {last[0]:.2f} µs with the tricks kept, {last[1]:.2f} made "
          "afresh")
    print(f"prompt view_us_hand1={figures[1][0]:.2f} view_us_hand10={figures[10][0]:.2f} "
          f"view_us_hand15={figures[15][0]:.2f} afresh_us_hand10={figures[10][1]:.2f} "
          f"ratio_hand10={figures[10][0] / figures[10][1]:.2f} view_us_trick13={last[0]:.2f} "
          f"afresh_us_trick13={last[1]:.2f} ratio_trick13={last[0] / last[1]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
