"""A text for people that remembers its English template and values until it is sent.

The rules engines and the server raise and build texts without knowing who will read
them: a :class:`Msg` is the English text itself (a ``str``: logs, exceptions, bots and
every comparison read exactly what the code said before it had catalogs), and it keeps
the template it was made from (the catalogs' key) and the values of its
``{placeholders}``, so that the edge that knows the reader's language renders it again
in that language (:func:`trickroom.i18n.render`).

This module is pure (no files, no Babel): the ``game`` package may use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


class Msg(str):
    """One text: an English template with ``{name}`` placeholders and their values.

    A value may itself be a :class:`Msg` (rendered in the same language), a number (in
    the reader's number format) or any other value (its ``str``).

    >>> m = Msg("you do not hold {card}", card="QS")
    >>> m, m.template
    ('you do not hold QS', 'you do not hold {card}')
    """

    template: str
    plural: str | None
    params: Mapping[str, Any]

    def __new__(cls, template: str, /, **params: Any) -> Msg:
        self = super().__new__(cls, template.format(**params))
        self.template, self.plural, self.params = template, None, params
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its template and values (a robot's reason comes from a worker
        process)."""
        return (_rebuild, (self.template, self.plural, dict(self.params)))

    @property
    def number(self) -> int | None:
        """The number a plural text agrees with (its ``n`` parameter)."""
        n = self.params.get("n")
        return n if self.plural is not None and isinstance(n, int) else None


class PluralMsg(Msg):
    """A text whose words agree with a number, ``n``: one English template for 1 and one
    for any other number; each catalog has its language's forms (CLDR plural rules).

    >>> PluralMsg("pass exactly {n} card", "pass exactly {n} cards", n=3)
    'pass exactly 3 cards'
    """

    def __new__(cls, singular: str, plural: str, /, **params: Any) -> PluralMsg:
        english = singular if params.get("n") == 1 else plural
        self = str.__new__(cls, english.format(**params))
        self.template, self.plural, self.params = singular, plural, params
        return self


class Number(str):
    """A number as a player reads it (the English text itself: at most ``places``
    decimals, a true minus sign, ``+`` on a change), which each language formats again in
    its own way (Greek: ``1.489,5``).

    >>> Number(-1489.456, 2), Number(24.0, 2, signed=True), Number(0.0001, 2, signed=True)
    ('−1489.46', '+24', '0')
    """

    value: float
    places: int
    signed: bool

    def __new__(cls, value: float, places: int = 2, signed: bool = False) -> Number:
        rounded = round(value, places)
        whole = rounded == int(rounded)
        text = str(int(rounded)) if whole else f"{rounded:.{places}f}".rstrip("0")
        text = text.replace("-", "−")
        if signed and text != "0" and not text.startswith("−"):
            text = "+" + text
        self = super().__new__(cls, text)
        self.value, self.places, self.signed = value, places, signed
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Number, (self.value, self.places, self.signed))


class Listing(str):
    """Texts joined as a language joins a list: ``style`` ``"and"`` (``A, B and C``),
    ``"or"`` (``A, B or C``), ``"comma"`` (``A, B, C``) or ``"sum"`` (``A + B + C``). The
    English text is the list itself; each language joins its items (each rendered in it)
    by its CLDR list patterns (Babel's ``format_list``).

    >>> Listing(["A", "B", "C"]), Listing(["1", "2"], "or"), Listing(["1", "2"], "sum")
    ('A, B and C', '1 or 2', '1 + 2')
    """

    items: tuple[Any, ...]
    style: str

    def __new__(cls, items: Sequence[Any], style: str = "and") -> Listing:
        texts = [str(i) for i in items]
        if style in ("and", "or") and len(texts) > 1:
            word = " and " if style == "and" else " or "
            text = ", ".join(texts[:-1]) + word + texts[-1]
        else:
            text = (" + " if style == "sum" else ", ").join(texts)
        self = super().__new__(cls, text)
        self.items, self.style = tuple(items), style
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Listing, (list(self.items), self.style))


class ScriptName(str):
    """The name of a writing system as Unicode's character names begin (``LATIN``,
    ``CYRILLIC``, ``CJK``): the English word, named in each language by CLDR.

    >>> ScriptName("CYRILLIC")
    'Cyrillic'
    """

    word: str

    def __new__(cls, word: str) -> ScriptName:
        self = super().__new__(cls, word.title())
        self.word = word
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (ScriptName, (self.word,))


def both(names: Sequence[str]) -> str:
    """Names joined as a sentence has them: ``A``, ``A and B``, ``A, B and C`` (in each
    language by its own pattern: :class:`Listing`).

    >>> both(["A"]), both(["A", "B", "C"])
    ('A', 'A, B and C')
    """
    if len(names) < 2:
        return names[0] if names else ""
    return Listing(names, "and")


# How names were joined before :class:`Listing`: games stored then keep these templates
# in their rating breakdowns (:func:`to_data`), and are read again in every language.
STORED_BEFORE_LISTING = (Msg("{names}, {name}", names="", name=""),
                         Msg("{names} and {last}", names="", last=""))


def to_data(text: Any) -> Any:
    """A text as JSON keeps it, its template and values with it (a game's rating
    breakdowns are stored so, and read again in each reader's language)."""
    if isinstance(text, Number):
        return {"n": text.value, "d": text.places, "s": text.signed}
    if isinstance(text, Listing):
        return {"l": [to_data(i) for i in text.items], "st": text.style}
    if isinstance(text, ScriptName):
        return {"sc": text.word}
    if isinstance(text, Msg):
        data: dict[str, Any] = {"t": text.template,
                                "p": {k: to_data(v) for k, v in text.params.items()}}
        if text.plural is not None:
            data["pl"] = text.plural
        return data
    return text


def from_data(data: Any) -> Any:
    """The text :func:`to_data` kept.

    >>> from_data(to_data(Msg("new rating {after}", after=Number(1489.456))))
    'new rating 1489.46'
    """
    if isinstance(data, dict):
        if "n" in data:
            return Number(data["n"], data["d"], data["s"])
        if "l" in data:
            return Listing([from_data(i) for i in data["l"]], data["st"])
        if "sc" in data:
            return ScriptName(data["sc"])
        params = {k: from_data(v) for k, v in data["p"].items()}
        if "pl" in data:
            return PluralMsg(data["t"], data["pl"], **params)
        return Msg(data["t"], **params)
    return data


def _rebuild(template: str, plural: str | None, params: dict[str, Any]) -> Msg:
    return Msg(template, **params) if plural is None else PluralMsg(template, plural, **params)


Text = str
"""A text for people: a :class:`Msg` is rendered in the reader's language; a plain str
(a name, a player's own words) is sent as it is."""
