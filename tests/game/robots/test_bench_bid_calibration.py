"""The bid calibration bench fits the table model: it must find a model it is shown."""

import random
import statistics

import pytest

from bench import bid_calibration as bench
from trickroom.game.robots.bidding import table_tricks


def synthetic_hands(spread, n, seed=7):
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


def test_the_fit_finds_the_spread_that_made_the_tricks():
    for spread in (0.6, 1.5):
        hands = synthetic_hands(spread=spread, n=600)
        assert abs(bench.fit(hands) - spread) <= 0.25


def test_the_models_set_rate_is_the_rate_its_tricks_give():
    hands = synthetic_hands(spread=1.0, n=300)
    assert abs(bench.model_set_rate(hands, 1.0) - bench.set_rate(hands, "table")) < 0.06


def test_a_trick_more_bid_is_measured_on_the_same_deal():
    base = bench.Hand(1, "rules of thumb", (3, 3, 3, 3), (3, 3, 3, 4), (3, 3, 4, 3))
    over = bench.Hand(1, "a trick over", (4, 3, 3, 3), (4, 3, 3, 3), (3, 3, 4, 3))
    under = bench.Hand(1, "a trick under", (2, 3, 3, 3), (3, 3, 3, 4), (2, 4, 4, 3))
    hands = [base, over, under]
    assert bench.tricks_per_bid(hands, "playout") == 0.5  # +1 over, 0 under
    assert bench.tricks_per_bid(hands, "table") == 0.5  # 0 over, -1 under


# -- headroom ---------------------------------------------------------------------------------


def test_a_contracts_worth_is_the_hands_score_with_a_bag_at_its_long_run_cost():
    from trickroom.game.spades import SpadesRules, score_hand

    rules = SpadesRules()
    for bids, tricks in (((3, 2, 2, 3), (4, 3, 2, 4)), ((4, 2, 3, 2), (2, 5, 3, 3))):
        result = score_hand(rules, 0, 0, bids, (False,) * 4, tricks, (0, 0), (0, 0))
        ours = result.sides[0]
        assert bench.contract_value(bids[0] + bids[2], tricks[0] + tricks[2]) == (
            ours.contract_points + bench.BAG * ours.bags)


def test_knowing_the_tricks_bids_exactly_what_the_side_takes():
    # Bid 4, took 6: bidding 6 scores 60 where 4 scored 40 and two bags (-18).
    assert bench.headroom([bench.Side(4, 2, 6)], 0.0) == 60 - (40 + 2 * bench.BAG)
    # Bid 6, took 5: set (-60) where 5 would have made 50.
    assert bench.headroom([bench.Side(6, 2, 5)], 0.0) == 50 - (-60)
    # A contract already exact has nothing to gain.
    assert bench.headroom([bench.Side(5, 2, 5)], 0.0) == 0


def test_a_noisier_forecast_leaves_less_to_gain():
    table_sides = [bench.Side(c, 2, t) for c, t in ((3, 5), (5, 5), (4, 7), (6, 5), (2, 4))]
    gains = [bench.headroom(table_sides, s) for s in (0.0, 0.05, 1.0, 2.0)]
    assert gains[0] == pytest.approx(gains[1])
    assert gains[1] > gains[2] > gains[3]


def test_an_uncertain_forecast_bids_under_it():
    """A trick short costs the whole contract, a trick over only a bag: doubt bids low."""
    assert bench.best_contract(6.0, 0.1, 2) == 6
    assert bench.best_contract(6.0, 1.5, 2) < 6
    assert bench.best_contract(0.0, 1.0, 2) == 2  # two holders bid at least a trick each


def test_the_forecast_error_is_the_tables_tricks_less_the_forecast():
    hands = [bench.Hand(1, "search", (3, 3, 3, 3), (3, 3, 3, 4), (4, 3, 3, 3), (6.5, 6.0)),
             bench.Hand(2, "search", (3, 3, 3, 3), (3, 3, 3, 4), (3, 3, 3, 4), (7.0, None))]
    bias, sd, n = bench.forecast_error(hands)
    assert n == 3
    errors = [7 - 6.5, 6 - 6.0, 6 - 7.0]
    assert bias == pytest.approx(sum(errors) / 3)
    assert sd == pytest.approx(statistics.stdev(errors))


def test_bidding_to_the_forecast_is_scored_on_the_tables_tricks():
    # The search bid 3 + 3 and its forecast said 8; the table took 8.
    hand = bench.Hand(1, "search", (3, 3, 3, 3), (4, 3, 4, 2), (4, 2, 4, 3), (8.0, None))
    gain, n = bench.forecast_bidding_gain([hand], 0.0, 0.1)
    assert n == 1
    assert gain == bench.contract_value(8, 8) - bench.contract_value(6, 8)
    # With the forecast known to run a trick high, the bid is a trick lower.
    low, _ = bench.forecast_bidding_gain([hand], -1.0, 0.1)
    assert low == bench.contract_value(7, 8) - bench.contract_value(6, 8)


def test_the_plays_own_noise_is_measured_between_plays_of_the_same_bids():
    bids = (3, 3, 3, 3)
    first = [bench.Hand(seed, "rules of thumb", bids, (3, 3, 3, 4), table)
             for seed, table in ((1, (3, 3, 3, 4)), (2, (4, 3, 3, 3)))]
    again = [bench.Hand(1, "rules of thumb", bids, (3, 3, 3, 4), (4, 3, 3, 3), replay=1),
             bench.Hand(2, "rules of thumb", bids, (3, 3, 3, 4), (4, 3, 3, 3), replay=1)]
    noise, pairs = bench.play_noise(first + again)
    assert pairs == 2
    # Side 0 took 6 then 7 on deal 1 (and side 1 7 then 6); deal 2 played alike.
    assert noise == pytest.approx(statistics.stdev([1, -1, 0, 0]) / 2 ** 0.5)
    assert bench.play_noise(first) == (pytest.approx(float("nan"), nan_ok=True), 0)
