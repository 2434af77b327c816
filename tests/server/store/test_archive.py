"""A finished game's packed record: it reads back exactly as it was, and is small."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.game.test_properties import GAMES, games, play_game
from trickroom.game.trickgame import TrickGame
from trickroom.server.store.archive import is_packed, pack, unpack

fast = settings(max_examples=40, deadline=None)


def record_of(game: TrickGame, whys: bool = True) -> dict[str, Any]:
    """A game's record as a table stores it at the end: with a robot's reason on bids."""
    record = game.record()
    if whys:
        for action in record["actions"][::7]:
            if action["type"] == "bid":
                action["why"] = f"{action['value']}: four sure tricks — and a «long» suit"
    return record


def same(a: Any, b: Any) -> bool:
    """Equal down to the order of every object's keys: what the API's JSON would show."""
    return json.dumps(a) == json.dumps(b)


@fast
@given(game=games(GAMES))
def test_a_packed_game_reads_back_exactly_as_it_was_recorded(game):
    play_game(game, random.Random(game.seed))
    record = record_of(game)
    packed = pack(record)
    assert is_packed(packed)
    assert same(unpack(packed), record)


actions = st.one_of(
    st.fixed_dictionaries({"seat": st.integers(0, 3), "type": st.just("play"),
                           "card": st.sampled_from(["QH", "TS", "2C", "AS"])}),
    st.fixed_dictionaries({"seat": st.one_of(st.integers(-5, 9), st.booleans(), st.text()),
                           "type": st.sampled_from(["play", "bid", "Play"]),
                           "card": st.text(max_size=4)},
                          optional={"why": st.text(), "value": st.integers()}),
    st.dictionaries(st.sampled_from(["card", "type", "seat", "x"]),
                    st.one_of(st.integers(0, 3), st.just("play"), st.text(max_size=3)),
                    max_size=4),
)


@fast
@given(st.lists(actions, max_size=30))
def test_only_a_plain_play_is_written_short_and_everything_else_stays_as_it_was(listed):
    """A play of seat 0-3 with a two-character card, keys in their usual order, becomes
    three characters; a bool seat, a third key order, a why: all read back untouched."""
    record = {"game": "spades", "rules": {"target": 200}, "seed": 3, "dealer": 1,
              "deal": None, "actions": listed}
    assert same(unpack(pack(record)), record)


def test_a_record_kept_whole_as_every_game_kept_it_before_reads_the_same():
    record = {"game": "hearts", "rules": {}, "seed": 1, "dealer": 0, "deal": None,
              "actions": [{"seat": 0, "type": "pass", "cards": ["QS", "AH", "2D"]}]}
    whole = json.dumps(record)
    assert not is_packed(whole) and same(unpack(whole), record)


def test_a_record_whose_actions_are_not_all_objects_is_kept_whole():
    record = {"game": "spades", "actions": ["0AS", {"seat": 1, "type": "play", "card": "KS"}]}
    assert not is_packed(pack(record)) and same(unpack(pack(record)), record)


@fast
@given(game=games(GAMES))
def test_a_move_packs_into_four_bytes_or_less_after_the_rules(game):
    """Against about 40 bytes of JSON in the record, and 155 as a row of ``actions``."""
    play_game(game, random.Random(game.seed))
    record = record_of(game, whys=False)
    assert len(pack(record)) <= 500 + 4 * len(record["actions"])
