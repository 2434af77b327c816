"""The rules' variants: which bounded rules a creator may leave empty (off), and the
refusal of a rule of the wrong type, compiled or not."""

import ast
from pathlib import Path

import pytest

import trickroom
from trickroom.game.hearts import HeartsRules
from trickroom.game.spades import SpadesRules
from trickroom.game.variants import BOUNDS, NULLABLE, rules_from

GAME = Path(trickroom.__file__).resolve().parent / "game"


def declared_optional(module: str, name: str) -> set[str]:
    """The fields of the rules class ``name`` whose annotation in the source says ``None``
    (read from the source: a class compiled by mypyc keeps no annotations to read)."""
    tree = ast.parse((GAME / f"{module}.py").read_text())
    found = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == name)
    return {item.target.id for item in found.body
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            and "None" in ast.unparse(item.annotation)}


@pytest.mark.parametrize("kind, name", [("spades", "SpadesRules"), ("hearts", "HeartsRules")])
def test_the_rules_that_may_be_off_are_those_declared_optional(kind, name):
    assert NULLABLE[kind] == declared_optional(kind, name)
    assert NULLABLE[kind] <= set(BOUNDS[kind])


def test_a_rule_that_may_be_off_takes_none_and_one_that_may_not_is_refused():
    assert rules_from("spades", SpadesRules, {"mercy": None, "bag_limit": None}).bag_limit is None
    with pytest.raises(ValueError, match="target must be a whole number, not None"):
        rules_from("spades", SpadesRules, {"target": None})
    with pytest.raises(ValueError, match="pass_count must be a whole number, not '3'"):
        rules_from("hearts", HeartsRules, {"pass_count": "3"})


@pytest.mark.parametrize("values, refusal", [
    ({"blind_nil": 1}, "blind_nil must be true or false, not 1"),
    ({"target": True}, "target must be a whole number, not True"),
    ({"target": 5000}, "target must be 1..1000, not 5000"),
])
def test_a_spades_rule_of_the_wrong_type_or_size_is_refused_by_name(values, refusal):
    with pytest.raises(ValueError, match=refusal):
        rules_from("spades", SpadesRules, values)


@pytest.mark.parametrize("values, refusal", [
    ({"pass_cycle": "left"}, "pass_cycle must be a list of words, not 'left'"),
    ({"pass_cycle": ("left", 2)}, "pass_cycle must be a list of words"),
    ({"moon": 3}, "moon must be a word, not 3"),
    ({"moon": "sideways"}, "unknown moon rule 'sideways'"),
])
def test_a_hearts_rule_of_the_wrong_type_is_refused_by_name(values, refusal):
    with pytest.raises(ValueError, match=refusal):
        rules_from("hearts", HeartsRules, values)
