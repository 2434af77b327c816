"""What a chat line may hold: one line of text a reader can see, read as it is drawn.

A line is checked and cleaned in three steps, each on what Unicode says a
character is (its general category), never on a list of look-alikes alone:

1. **Refused**: line breaks of every kind (the controls ``Cc`` -- newline,
   carriage return, NEL -- and the separators ``Zl`` U+2028 and ``Zp``
   U+2029), lone surrogates (``Cs``), and the explicit direction overrides and
   isolates (U+202A-202E, U+2066-2069), which turn a name or a score around.
2. **Stripped**: the invisible format characters (``Cf``): direction marks
   (LRM, RLM, ALM), zero-width space, word joiner, BOM, soft hyphen, and the
   joiners ZWJ and ZWNJ wherever they join nothing. This is what a card
   site's chat does with them: they arrive in honest lines (a right-to-left
   keyboard types marks, pasted text brings zero-width spaces), so the line is
   kept and shown without them, rather than refused. Kept are the joiners that
   are part of what is written: a ZWJ inside an emoji sequence (a family, a
   profession, a flag's tags after its black flag), a ZWJ or ZWNJ after a
   virama (Indic conjuncts) or between two letters of an uncased script
   (Persian's ZWNJ, Arabic), as IDNA's CONTEXTJ rules (RFC 5892) allow them,
   and the prepended concatenation marks (the Arabic number sign, ...) that
   draw.
3. **Refused again** if what is left shows nothing, or piles marks up: the
   line is split into grapheme clusters (a base character and what extends
   it, after UAX #29: combining marks, joiners, emoji modifiers and tags,
   regional-indicator pairs) and needs one cluster whose base is *visible*:
   a letter (``L*``), number (``N*``), punctuation (``P*``) or symbol
   (``S*``), and not one of the blank look-alikes among them (the Hangul
   fillers, the blank braille pattern). Spaces (``Zs``) separate but show
   nothing; marks (``M*``) only extend a base. A cluster may stack at most
   :data:`MAX_MARKS` combining marks (those that stack: a non-zero combining
   class, or enclosing), which every written language fits (Vietnamese uses
   two) and a "Zalgo" tower of hundreds does not.

The grapheme clusters are an approximation of UAX #29 good enough for these
checks (no Hangul syllable or Indic conjunct rules): a break it misses only
splits a cluster in two, each judged on its own base.
"""

from __future__ import annotations

import unicodedata

from trickroom.i18n import Msg
from trickroom.server.protocol import ProtocolError

MAX_MARKS = 4  # stacking combining marks on one base character

ZWJ, ZWNJ = "\u200d", "\u200c"
# The explicit direction overrides and isolates: refused, not stripped (they are typed on
# purpose, to make text read as something else).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Refused as line breaks: Unicode's controls and its line and paragraph separators.
BREAKING = frozenset({"Cc", "Zl", "Zp", "Cs"})
VISIBLE = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Nl", "No",
                     "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So"})
# Letters and symbols that draw nothing: the Hangul fillers, the blank braille pattern and
# the musical null notehead.
BLANK_LOOKING = frozenset("\u115f\u1160\u3164\uffa0\u2800\U0001d159")
# Format characters that draw a sign over the digits after them (Prepended_Concatenation_Mark).
DRAWN_FORMATS = frozenset("\u0600\u0601\u0602\u0603\u0604\u0605\u06dd\u070f\u0890\u0891"
                          "\u08e2\U000110bd\U000110cd")


def chat_line(text: str) -> str:
    """The line as it is shown, cleaned of invisible format characters.

    Raises:
        ProtocolError: ``invalid_field`` for a line break or control character, a
            direction override, no visible text, or a stack of combining marks.
    """
    for c in text:
        if unicodedata.category(c) in BREAKING:
            raise ProtocolError("invalid_field", Msg("a chat message is one line: no line "
                                                     "breaks (newline, U+2028, U+2029) or "
                                                     "control characters"))
        if c in BIDI_CONTROLS:
            raise ProtocolError("invalid_field", Msg("a chat message may not hold direction "
                                                     "overrides or isolates (U+202A-202E, "
                                                     "U+2066-2069)"))
    shown = _strip_format(text).strip()
    clusters = _clusters(shown)
    if not any(_visible(cluster[0]) for cluster in clusters):
        raise ProtocolError("invalid_field", Msg("a chat message needs some visible text (a "
                                                 "letter, digit, punctuation or symbol)"))
    if any(sum(map(_stacks, cluster)) > MAX_MARKS for cluster in clusters):
        raise ProtocolError("invalid_field", Msg("a chat message may put at most {max_marks} "
                                                 "combining marks on one character",
                                                 max_marks=MAX_MARKS))
    return shown


def _strip_format(text: str) -> str:
    kept: list[str] = []
    for i, c in enumerate(text):
        if _keeps(c, kept, text[i + 1:i + 2]):
            kept.append(c)
    return "".join(kept)


def _keeps(c: str, before: list[str], after: str) -> bool:
    """Whether ``c`` stays, between what was kept before it and the character after."""
    if unicodedata.category(c) != "Cf" or c in DRAWN_FORMATS:
        return True
    if c in (ZWJ, ZWNJ):
        return _joins(c, before, after)
    return _tag(c) and bool(before) and (_tag(before[-1]) or _pictographic(_base(before)))


def _joins(joiner: str, before: list[str], after: str) -> bool:
    """Whether a ZWJ or ZWNJ joins something where it stands (emoji, conjunct, letters)."""
    if not before or not after:
        return False
    base = _base(before)
    if joiner == ZWJ and _pictographic(base) and _pictographic(after):
        return True
    if unicodedata.combining(before[-1]) == 9:  # after a virama
        return True
    return unicodedata.category(base) == "Lo" and unicodedata.category(after) == "Lo"


def _base(kept: list[str]) -> str:
    """The last character before ``kept``'s trailing extenders."""
    for c in reversed(kept):
        if not _extends(c):
            return c
    return ""


def _clusters(text: str) -> list[str]:
    clusters: list[str] = []
    for i, c in enumerate(text):
        prev = text[i - 1] if i else ""
        joined = prev == ZWJ and _pictographic(c)
        pair = (_regional(c) and clusters and len(clusters[-1]) == 1
                and _regional(clusters[-1]))
        if clusters and (_extends(c) or joined or pair):
            clusters[-1] += c
        else:
            clusters.append(c)
    return clusters


def _extends(c: str) -> bool:
    return (unicodedata.category(c).startswith("M") or c in (ZWJ, ZWNJ) or _tag(c)
            or 0x1F3FB <= ord(c) <= 0x1F3FF)  # emoji skin-tone modifiers


def _visible(c: str) -> bool:
    return unicodedata.category(c) in VISIBLE and c not in BLANK_LOOKING


def _stacks(c: str) -> bool:
    return unicodedata.combining(c) != 0 or unicodedata.category(c) == "Me"


def _tag(c: str) -> bool:
    return 0xE0020 <= ord(c) <= 0xE007F


def _regional(c: str) -> bool:
    return 0x1F1E6 <= ord(c) <= 0x1F1FF


def _pictographic(c: str) -> bool:
    """Extended_Pictographic, near enough: the emoji blocks and the older symbols that
    emoji sequences build on."""
    if not c:
        return False
    cp = ord(c)
    if c in "\u00a9\u00ae\u203c\u2049\u2122\u2139\u3030\u303d\u3297\u3299":
        return True
    if 0x2194 <= cp <= 0x2BFF:
        return unicodedata.category(c) == "So"
    return 0x1F000 <= cp <= 0x1FFFD and not _regional(c) and not 0x1F3FB <= cp <= 0x1F3FF
