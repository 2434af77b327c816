"""The benchmark seats OpenSpiel's ISMCTS at our Hearts table: the card mapping must hold."""

import pyspiel  # in the test extra: this test guards the robot benchmark's card mapping
import pytest

from bench import robots as bench
from trickroom.game.hearts import HeartsGame, HeartsRules
from trickroom.game.robots import make_robot


def test_cards_map_both_ways_and_openspiel_names_them_as_we_do():
    os_game = pyspiel.load_game("hearts", {"qs_breaks_hearts": False})
    bench.check_card_mapping(os_game)
    assert bench.to_openspiel(0) == 0  # 2C
    assert bench.to_openspiel(51) == 51  # AS
    assert bench.from_openspiel(bench.to_openspiel(49)) == 49  # QS


@pytest.mark.parametrize(("seed", "direction"),
                         [(1, "left"), (2, "right"), (3, "across"), (4, "hold")])
def test_the_openspiel_mirror_follows_our_game_card_by_card(seed, direction):
    """Each pass direction: the mirrored state has our seat to act and our legal cards."""
    os_game = pyspiel.load_game("hearts", {"qs_breaks_hearts": False})
    player = bench.IsmctsPlayer(seed, 10, os_game)
    game = HeartsGame(HeartsRules(pass_cycle=(direction,)), seed=seed)
    robots = [make_robot("heuristic", s) for s in range(4)]
    while game.phase in ("pass", "play"):
        seat = game.awaiting[0]
        if game.phase == "play":
            state = player.mirror(game)
            assert state.current_player() == seat
            legal = {bench.from_openspiel(a) for a in state.legal_actions()}
            assert legal == {a.card for a in game.legal_actions()}
        # The ISMCTS bot (10 simulations) plays seat 0.
        game.apply(player.choose_in(game, 0) if seat == 0
                   else robots[seat].choose(game.view(seat)), seat)
    assert game.phase in ("hand_over", "game_over")
