"""Golden games: fixed records whose scores were checked once by hand and are now pinned.

Each file holds a game's rules, seed and every action (as ``record()`` writes
it) with the final scores, the winners and each hand's points. Replaying the
actions must give exactly those numbers; a change to the engine that moves any
of them is a change to the rules and must be deliberate.
"""

import json
from pathlib import Path

import pytest

from trickroom.game.engine import replay

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_a_golden_game_replays_to_its_pinned_scores(path):
    record = json.loads(path.read_text())
    game = replay(record)
    assert game.phase == "game_over"
    assert list(game.scores) == record["final_scores"]
    assert list(game.winners) == record["winners"]
    points = [[s.points for s in r.sides] if record["game"] == "spades" else list(r.points)
              for r in game.hand_results]
    assert points == record["hand_points"]


def test_there_are_golden_games_for_both_engines():
    kinds = {json.loads(p.read_text())["game"] for p in GOLDEN}
    assert kinds == {"spades", "hearts"}


def test_the_first_spades_golden_hand_scores_as_counted_by_hand():
    """Seed 1, hand 1: bids N 4, E 7, S 7, W 4; both sides bid 11 and took fewer: -110 each."""
    record = json.loads((Path(__file__).parent / "golden" / "spades_seed1.json").read_text())
    bids = [a["value"] for a in record["actions"][:4]]
    assert bids == [7, 4, 4, 7]  # South, West, North, East: the dealer was East
    game = replay({**record, "actions": record["actions"][:56]})
    first = game.hand_results[0]
    assert first.tricks_won[0] + first.tricks_won[2] < 11
    assert first.tricks_won[1] + first.tricks_won[3] < 11
    assert [s.points for s in first.sides] == [-110, -110]
