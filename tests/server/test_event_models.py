"""Every event the engines make, as it goes on the wire, is what its protocol model says."""

from __future__ import annotations

import json

import pytest

from trickroom.game.hearts import HeartsGame, HeartsRules
from trickroom.game.robots import make_robot
from trickroom.game.spades import SpadesGame, SpadesRules
from trickroom.server.protocol import GAME_EVENT_MODELS

MODELS = {m.model_fields["type"].default: m for m in GAME_EVENT_MODELS}


def games():
    for seed in range(6):
        yield SpadesGame(SpadesRules(blind_nil=True, blind_nil_deficit=0, target=200,
                                     mercy=200), seed=seed)
        yield HeartsGame(HeartsRules(moon="shooter_chooses", jack_of_diamonds=True,
                                     target=60), seed=seed)


@pytest.mark.parametrize("game", list(games()), ids=lambda g: type(g).__name__)
def test_every_event_of_whole_games_matches_its_model(game):
    robots = [make_robot("random", s) for s in range(4)]
    seen = set()
    while game.phase != "game_over":
        if game.phase == "hand_over":
            game.next_hand()
            continue
        seat = game.to_act
        for event in game.apply(robots[seat].choose(game.view(seat)), seat):
            wire = event.to_wire()
            seen.add(wire["type"])
            if wire["type"] == "game_over":
                continue  # the table's own game_over (with ratings) replaces it
            model = MODELS[wire["type"]]
            parsed = model.model_validate(wire)  # no field unknown, missing or mistyped
            assert json.loads(parsed.model_dump_json(exclude_unset=True)) == wire
    assert {"played", "trick_won", "hand_scored"} <= seen
