"""Each kind of pydantic error has our words, in every language (issue 37)."""

from __future__ import annotations

from typing import Any

import pytest

from trickroom.i18n import Msg
from trickroom.i18n.catalogs import render
from trickroom.server.protocol.fields import WHY, refusal

# The values pydantic's errors of each kind carry (pydantic_core's ``ctx``).
CTX: dict[str, dict[str, Any]] = {
    "string_too_short": {"min_length": 1}, "string_too_long": {"max_length": 40},
    "too_short": {"min_length": 13, "field_type": "List", "actual_length": 1},
    "too_long": {"max_length": 1, "field_type": "List", "actual_length": 3},
    "greater_than_equal": {"ge": 0}, "greater_than": {"gt": 0.5},
    "less_than_equal": {"le": 3}, "less_than": {"lt": 1000},
    "literal_error": {"expected": "'add' or 'subtract'"},
    "enum": {"expected": "'a', 'b' or 'c'"},
    "union_tag_invalid": {"discriminator": "'type'", "tag": "draw",
                          "expected_tags": "'play', 'bid'"},
    "union_tag_not_found": {"discriminator": "'type'"},
}


@pytest.mark.parametrize("kind", sorted(WHY))
def test_every_kind_of_field_error_reads_in_greek(kind):
    error: Any = {"type": kind, "loc": ("sit", "seat"), "msg": "Pydantic's words",
                  "input": None, "ctx": CTX.get(kind, {})}
    field, words = refusal(error)
    assert field == "seat" and isinstance(words, Msg)
    assert "Pydantic" not in words and str(words).startswith("field 'seat': ")
    greek = render(words, "el")
    assert greek != str(words) and greek.startswith("πεδίο 'seat': ")


def test_a_kind_without_words_of_its_own_names_its_code():
    error: Any = {"type": "uuid_parsing", "loc": ("x", "id"), "msg": "Input should be ...",
                  "input": "x"}
    assert refusal(error) == ("id", "field 'id': is not valid here (uuid_parsing)")
    assert render(refusal(error)[1], "el") == "πεδίο 'id': δεν είναι έγκυρο εδώ (uuid_parsing)"
