"""The game review rebuilds every hand of a finished game from its record alone."""

import json
from pathlib import Path

import pytest

from trickroom.game.engine import replay
from trickroom.game.review import review

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_the_review_shows_every_deal_trick_and_score_of_the_game(path):
    record = json.loads(path.read_text())
    game = replay(record)
    hands = review(game.record())
    assert len(hands) == len(game.hand_results)
    for hand, result in zip(hands, game.hand_results, strict=True):
        assert len(hand["tricks"]) == 13
        assert sorted(c for cards in hand["dealt"] for c in cards) == sorted(
            c for trick in hand["tricks"] for c in trick["cards"])
        assert hand["result"]["hand"] == result.hand_no
    plays = sum(1 for a in record["actions"] if a["type"] == "play")
    assert sum(len(t["cards"]) for h in hands for t in h["tricks"]) == plays
