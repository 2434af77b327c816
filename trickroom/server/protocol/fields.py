"""A malformed field's refusal in the reader's language: what pydantic found wrong, said
in our own words (a :class:`~trickroom.i18n.Msg` per kind of error, with the error's
limits and expected values), not in pydantic's English.

The refusal's code (``invalid_field``) and ``field`` (the field's path) are the same in
every language; only the words differ. A kind of error no entry below names gets a
generic text that still names the kind (pydantic's code, language-free).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from pydantic_core import ErrorDetails

from trickroom.i18n import Listing, Msg, PluralMsg
from trickroom.server.names import NAME_RULE

Why = Callable[[Mapping[str, Any]], str]


def _choices(expected: object) -> Listing:
    """Pydantic's ``expected`` ("'a', 'b' or 'c'"), as the reader's language lists."""
    return Listing(re.split(r", | or ", str(expected)), "or")


def _expected(ctx: Mapping[str, Any]) -> str:
    return Msg("must be one of {choices}", choices=_choices(ctx["expected"]))


# Each kind of pydantic error, by its type code, as the words a player reads.
WHY: dict[str, Why] = {
    "missing": lambda ctx: Msg("is required and missing"),
    "extra_forbidden": lambda ctx: Msg("is not a field of this message"),
    "string_type": lambda ctx: Msg("must be a string"),
    "string_too_short": lambda ctx: PluralMsg("must be at least {n} character long",
                                              "must be at least {n} characters long",
                                              n=ctx["min_length"]),
    "string_too_long": lambda ctx: PluralMsg("must be at most {n} character long",
                                             "must be at most {n} characters long",
                                             n=ctx["max_length"]),
    "string_pattern_mismatch": lambda ctx: Msg("is not in the form this field takes"),
    "int_type": lambda ctx: Msg("must be a whole number"),
    "int_parsing": lambda ctx: Msg("must be a whole number"),
    "int_from_float": lambda ctx: Msg("must be a whole number"),
    "float_type": lambda ctx: Msg("must be a number"),
    "float_parsing": lambda ctx: Msg("must be a number"),
    "finite_number": lambda ctx: Msg("must be a finite number"),
    "greater_than_equal": lambda ctx: Msg("must be at least {limit}", limit=ctx["ge"]),
    "greater_than": lambda ctx: Msg("must be more than {limit}", limit=ctx["gt"]),
    "less_than_equal": lambda ctx: Msg("must be at most {limit}", limit=ctx["le"]),
    "less_than": lambda ctx: Msg("must be less than {limit}", limit=ctx["lt"]),
    "literal_error": _expected,
    "enum": _expected,
    "bool_type": lambda ctx: Msg("must be true or false"),
    "bool_parsing": lambda ctx: Msg("must be true or false"),
    "list_type": lambda ctx: Msg("must be an array"),
    "tuple_type": lambda ctx: Msg("must be an array"),
    "set_type": lambda ctx: Msg("must be an array"),
    "dict_type": lambda ctx: Msg("must be an object"),
    "model_type": lambda ctx: Msg("must be an object"),
    "model_attributes_type": lambda ctx: Msg("must be an object"),
    "too_short": lambda ctx: PluralMsg("must hold at least {n} item",
                                       "must hold at least {n} items", n=ctx["min_length"]),
    "too_long": lambda ctx: PluralMsg("must hold at most {n} item",
                                      "must hold at most {n} items", n=ctx["max_length"]),
    "union_tag_invalid": lambda ctx: Msg(
        "has {discriminator} {tag!r}, which is none of {expected}",
        discriminator=ctx["discriminator"].strip("'"), tag=ctx["tag"],
        expected=_choices(ctx["expected_tags"])),
    "union_tag_not_found": lambda ctx: Msg("needs its {discriminator}",
                                           discriminator=ctx["discriminator"].strip("'")),
    "none_required": lambda ctx: Msg("must be null"),
    "is_instance_of": lambda ctx: Msg("is not of the kind this field takes"),
    "json_invalid": lambda ctx: Msg("is not valid JSON"),
    "url_parsing": lambda ctx: Msg("is not a URL"),
    "url_type": lambda ctx: Msg("is not a URL"),
}


def why(error: ErrorDetails) -> str:
    """What is wrong with one field, in words each language has (a :class:`Msg`)."""
    kind = error["type"]
    ctx: Mapping[str, Any] = error.get("ctx", {})
    if kind in ("value_error", "assertion_error"):  # a rule of ours (a name's): its words
        reason = ctx.get("error")
        said = reason.args[0] if isinstance(reason, Exception) and reason.args else None
        return said if isinstance(said, Msg) else Msg("is not a valid value")
    if (kind in ("string_too_short", "string_too_long", "too_short", "too_long")
            and error["loc"] and error["loc"][-1] in ("name", "room")):
        return NAME_RULE
    said_by = WHY.get(kind)
    if said_by is not None:
        try:
            return said_by(ctx)
        except (KeyError, TypeError):
            pass  # an error without the values its words need: the generic words
    return Msg("is not valid here ({kind})", kind=kind)


def refusal(error: ErrorDetails) -> tuple[str | None, str]:
    """The field (its dotted path, None for the message itself) and the words of the
    refusal of ``error`` (the first of a request's validation errors)."""
    where = ".".join(str(p) for p in error["loc"][1:]) or "message"
    return (where if where != "message" else None,
            Msg("field {where!r}: {why}", where=where, why=why(error)))
