"""The catalogs (Babel reads the ``.po`` files) and rendering a text in a language."""

from __future__ import annotations

import functools
import io
import re
import string
from pathlib import Path
from typing import Any, Literal

from babel import Locale, negotiate_locale
from babel.lists import format_list
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import Translations

from trickroom.i18n.message import Listing, Msg, Number, ScriptName, Text

Language = Literal["en", "el", "en-XA"]
LANGUAGES: tuple[Language, ...] = ("en", "el", "en-XA")
"""Every language a player may choose: English (the source), Greek, and the pseudo-locale."""
DEFAULT: Language = "en"
PSEUDO = "en-XA"
LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "messages"


@functools.cache
def translations(language: str) -> Translations | None:
    """A language's catalog, read from its ``.po`` file once (None: English, the source,
    and the pseudo-locale, made from English)."""
    if language in (DEFAULT, PSEUDO):
        return None
    path = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    with path.open("rb") as po:
        catalog = read_po(po, locale=language)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(buffer, domain=DOMAIN)


class _Formatter(string.Formatter):
    """Formats a template's values for a language: numbers in its CLDR format (Greek:
    ``1.234,5``); English keeps Python's, as the server always wrote them."""

    def __init__(self, language: str) -> None:
        self.language = language

    def format_field(self, value: Any, format_spec: str) -> Any:
        if (self.language != DEFAULT and isinstance(value, (int, float))
                and not isinstance(value, bool)):
            locale = DEFAULT if self.language == PSEUDO else self.language
            spec = re.fullmatch(r"(\+?)(?:\.(\d+)f)?g?", format_spec)
            if spec is not None:
                sign, places = spec.groups()
                if places is not None:
                    value = round(float(value), int(places))
                    pattern = "#,##0" + ("." + "0" * int(places) if int(places) else "")
                    text = format_decimal(value, format=pattern, locale=locale)
                else:
                    text = format_decimal(value, locale=locale)
                return ("+" + text) if sign and value >= 0 else text
        return super().format_field(value, format_spec)


def render(text: Text, language: str = DEFAULT) -> str:
    """``text`` in ``language``: its catalog's template (English when the catalog lacks
    it), its values formatted for the language (a value that is a Msg rendered too)."""
    if isinstance(text, Number):
        return number(text, language)
    if isinstance(text, Listing):
        return listing(text, language)
    if isinstance(text, ScriptName):
        return script_name(text, language)
    if not isinstance(text, Msg):
        return text
    catalog = translations(language) if language in LANGUAGES else None
    if language == DEFAULT:
        return str(text)  # the English text it already is
    count = text.number
    if catalog is None:
        template = text.template if text.plural is None or count == 1 else text.plural
    elif text.plural is not None:
        template = catalog.ngettext(text.template, text.plural,
                                    count if count is not None else 2)
    else:
        template = catalog.gettext(text.template)
    if language == PSEUDO:
        template = pseudo(template)
    params = {k: render(v, language) if isinstance(v, TEXTS) else v
              for k, v in text.params.items()}
    return _Formatter(language).format(template, **params)


TEXTS = (Msg, Number, Listing, ScriptName)
"""The kinds of text :func:`render` writes again in each language."""


def listing(text: Listing, language: str) -> str:
    """A list in a language: its items rendered in it, joined by its CLDR pattern."""
    if language == DEFAULT:
        return str(text)
    items = [render(i, language) if isinstance(i, TEXTS) else str(i) for i in text.items]
    if text.style == "sum":
        return " + ".join(items)
    style: Literal["standard", "or", "unit"] = (
        "or" if text.style == "or" else "unit" if text.style == "comma" else "standard")
    try:
        return format_list(items, style=style, locale=locale_of(language))
    except KeyError:  # a style some locale's CLDR data lacks (Greek's "unit"): commas
        return ", ".join(items)


@functools.cache
def _script_codes() -> dict[str, str]:
    """ISO 15924 codes by the first word of Unicode's names of their letters (CLDR's
    English names of the scripts, upper case, and the few Unicode words that differ)."""
    codes = {name.upper(): code for code, name in Locale("en").scripts.items()
             if " " not in name}
    codes.update({"CJK": "Hani", "KATAKANA-HIRAGANA": "Kana", "NKO": "Nkoo"})
    return codes


def script_name(text: ScriptName, language: str) -> str:
    """A script's name in a language (CLDR's), or the English word when CLDR lacks it."""
    code = _script_codes().get(text.word)
    if language == DEFAULT or code is None:
        return str(text)
    named: str = locale_of(language).scripts.get(code, str(text))
    return named


def number(value: Number, language: str) -> str:
    """A :class:`Number` in a language's CLDR format, with a true minus sign."""
    if language in (DEFAULT, PSEUDO):
        return str(value)
    rounded = round(value.value, value.places)
    pattern = "#,##0" + ("." + "#" * value.places if value.places else "")
    text = format_decimal(abs(rounded), format=pattern, locale=language)
    if text.strip("0.,") == "":
        return "0"
    if rounded < 0:
        return "−" + text
    return "+" + text if value.signed else text


_ACCENTED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "àƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÀƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ")
_PLACEHOLDER = re.compile(r"(\{[^{}]*\})")


def pseudo(template: str) -> str:
    """The pseudo-locale's template: accented, bracketed and padded to about 140% of the
    English, its ``{placeholders}`` kept as they are.

    >>> pseudo("follow suit: {suit} were led")
    '[ƒöļļöŵ šûîţ: {suit} ŵéŕé ļéð ~~~~~~~~]'
    """
    parts = _PLACEHOLDER.split(template)
    accented = "".join(p if i % 2 else p.translate(_ACCENTED) for i, p in enumerate(parts))
    padding = "~" * max(1, round(len(template) * 0.4) - 3)
    return f"[{accented} {padding}]"


def pick(language: str | None) -> Language | None:
    """A supported language tag for ``language`` as a client wrote it (any case), or None."""
    if not language:
        return None
    for known in LANGUAGES:
        if known.lower() == language.strip().lower():
            return known
    return None


def negotiate(accept_language: str | None) -> Language | None:
    """The best supported language for an ``Accept-Language`` header (None: no match).

    Tags are taken by their q-values, highest first; a tag matches a language exactly
    (``en-XA``) or by its primary subtag (``el-GR`` is ``el``, ``en-US`` is ``en``).
    """
    if not accept_language:
        return None
    wanted: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")[:32]):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        q = re.search(r"q\s*=\s*([0-9.]+)", params)
        if q is not None:
            try:
                quality = float(q.group(1))
            except ValueError:
                continue
        if tag and quality > 0:
            wanted.append((-quality, index, tag.strip()))
    preferred = [tag for _, _, tag in sorted(wanted)]
    exact = [pick(tag) for tag in preferred]
    for tag, found in zip(preferred, exact, strict=True):
        if found is not None:
            return found
        if tag == "*":
            return DEFAULT
        chosen = negotiate_locale([tag.replace("_", "-")], [*LANGUAGES], sep="-")
        if chosen is not None:
            return pick(chosen)
        primary = tag.split("-")[0].split("_")[0]
        if pick(primary) is not None:
            return pick(primary)
    return None


def locale_of(language: str) -> Locale:
    """Babel's locale for a language (the pseudo-locale formats as English)."""
    return Locale.parse(DEFAULT if language == PSEUDO else language, sep="-")
