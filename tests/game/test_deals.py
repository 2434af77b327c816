"""A game's deals as a sandbox fixes them (issue 36, item 4): a seed deals the same hands
whatever is played, and a deal list gives the first hands as written."""

from __future__ import annotations

import random

from trickroom.game.cards import deal, texts_of
from trickroom.game.hearts import HeartsGame
from trickroom.game.robots import make_robot
from trickroom.game.spades import SpadesGame, SpadesRules


def play_hand(game, robots) -> None:
    while game.phase != "hand_over" and game.phase != "game_over":
        seat = game.awaiting[0]
        game.apply(robots[seat].choose(game.view(seat)), seat)


def hands_dealt(game_type, seed: int, robot_seed: int, hands: int, **kw) -> list[tuple]:
    game = game_type(seed=seed, **kw)
    robots = [make_robot("random", robot_seed * 4 + s) for s in range(4)]
    dealt = [game.dealt]
    for _ in range(hands - 1):
        play_hand(game, robots)
        game.next_hand()
        dealt.append(game.dealt)
    return dealt


def test_a_seed_deals_the_same_hands_whatever_is_played():
    for game_type in (SpadesGame, HeartsGame):
        first = hands_dealt(game_type, 11, robot_seed=1, hands=3)
        assert hands_dealt(game_type, 11, robot_seed=2, hands=3) == first
        assert hands_dealt(game_type, 12, robot_seed=1, hands=3) != first


def test_a_deal_list_gives_the_first_hands_then_the_seed_deals():
    rng = random.Random(3)
    deals = [deal(rng) for _ in range(2)]
    dealt = hands_dealt(SpadesGame, 11, robot_seed=1, hands=3, deals=deals)
    assert dealt[0] == tuple(deals[0]) and dealt[1] == tuple(deals[1])
    # The seed deals on from its own start: its first deal is the third hand.
    assert dealt[2] == hands_dealt(SpadesGame, 11, robot_seed=1, hands=1)[0]


def test_a_game_dealt_from_a_list_replays_from_its_record():
    rng = random.Random(4)
    deals = [deal(rng) for _ in range(3)]
    game = SpadesGame(SpadesRules(), 5, deals=deals)
    robots = [make_robot("random", s) for s in range(4)]
    play_hand(game, robots)
    game.next_hand()
    play_hand(game, robots)
    record = game.record()
    assert record["deals"] == [[texts_of(m) for m in d] for d in deals]
    again = SpadesGame.replay(record)
    assert again.hand_results == game.hand_results and again.dealt == tuple(deals[1])
    again.next_hand()
    assert again.dealt == tuple(deals[2])
