import pytest

from trickroom.game.actions import (
    BLIND_NIL,
    ActionParseError,
    Bid,
    Look,
    MoonChoice,
    Pass,
    Play,
    action_from_wire,
)
from trickroom.game.cards import parse_card


@pytest.mark.parametrize(
    "action",
    [Bid(4), Bid(0), BLIND_NIL, Play(parse_card("QS")),
     Pass((parse_card("2D"), parse_card("AH"), parse_card("QS"))), Look(), MoonChoice("add")],
)
def test_every_action_round_trips_through_its_wire_form(action):
    assert action_from_wire(action.to_wire()) == action


def test_the_wire_forms_are_the_documented_ones():
    assert Bid(4).to_wire() == {"type": "bid", "value": 4}
    assert BLIND_NIL.to_wire() == {"type": "bid", "value": 0, "blind": True}
    assert action_from_wire({"type": "pass", "cards": ["QS", "AH", "2D"]}).to_wire() == {
        "type": "pass", "cards": ["2D", "AH", "QS"]}
    assert Play(parse_card("QS")).to_wire() == {"type": "play", "card": "QS"}


@pytest.mark.parametrize(
    ("wire", "words"),
    [
        ({"type": "play"}, "field 'card' is missing"),
        ({"type": "play", "card": 5}, "field 'card' must be a string"),
        ({"type": "play", "card": "1S"}, "'1S' is not a card"),
        ({"type": "bid", "value": "4"}, "field 'value' must be an integer"),
        ({"type": "bid", "value": True}, "field 'value' must be an integer"),
        ({"type": "bid", "value": 3, "blind": True}, "blind bid must be nil"),
        ({"type": "pass", "cards": "QS"}, "field 'cards' must be a list"),
        ({"type": "moon", "choice": "both"}, "'add' or 'subtract'"),
        ({"type": "dance"}, "unknown action type 'dance'"),
        ({}, "unknown action type None"),
    ],
)
def test_malformed_actions_name_the_problem(wire, words):
    with pytest.raises(ActionParseError) as err:
        action_from_wire(wire)
    assert words in str(err.value)
