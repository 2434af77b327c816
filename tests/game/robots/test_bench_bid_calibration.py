"""The bid calibration bench fits the table model: it must find a model it is shown."""

import random

import pytest

from game.robots.bidding import table_tricks
from tests.game.robots.views import load_bench


@pytest.fixture(scope="module")
def bench():
    return load_bench("bid_calibration")


def synthetic_hands(bench, spread, n, seed=7):
    """Hands bid near what the play-out made, whose table tricks are drawn from the model."""
    rng = random.Random(seed)
    hands = []
    for i in range(n):
        deal = [rng.randrange(4) for _ in range(13)]
        playout = tuple(deal.count(s) for s in range(4))
        ours = max(2, playout[0] + playout[2] + rng.randint(-1, 1))
        theirs = max(2, playout[1] + playout[3] + rng.randint(-2, 0))
        bids = (ours // 2, theirs // 2, ours - ours // 2, theirs - theirs // 2)
        outcomes = table_tricks(bids, playout, 0, spread=spread)
        table = rng.choices([t for _, t in outcomes], [w for w, _ in outcomes])[0]
        hands.append(bench.Hand(i, "rules of thumb", bids, playout, tuple(table)))
    return hands


def test_the_fit_finds_the_spread_that_made_the_tricks(bench):
    for spread in (0.6, 1.5):
        hands = synthetic_hands(bench, spread=spread, n=600)
        assert abs(bench.fit(hands) - spread) <= 0.25


def test_the_models_set_rate_is_the_rate_its_tricks_give(bench):
    hands = synthetic_hands(bench, spread=1.0, n=300)
    assert abs(bench.model_set_rate(hands, 1.0) - bench.set_rate(hands, "table")) < 0.06


def test_a_trick_more_bid_is_measured_on_the_same_deal(bench):
    base = bench.Hand(1, "rules of thumb", (3, 3, 3, 3), (3, 3, 3, 4), (3, 3, 4, 3))
    over = bench.Hand(1, "a trick over", (4, 3, 3, 3), (4, 3, 3, 3), (3, 3, 4, 3))
    under = bench.Hand(1, "a trick under", (2, 3, 3, 3), (3, 3, 3, 4), (2, 4, 4, 3))
    hands = [base, over, under]
    assert bench.tricks_per_bid(hands, "playout") == 0.5  # +1 over, 0 under
    assert bench.tricks_per_bid(hands, "table") == 0.5  # 0 over, -1 under
