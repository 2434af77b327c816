"""Player names: what an account may be called, and the guests' names.

A name is 1-24 letters, digits, ``_`` or ``-``, in Unicode's composed form (NFC:
"José" typed with a combining accent is "José"), matched whole (``bob\n`` is not
a second ``bob``). The letters may be of any script, but of one script only (or
the mixes a language writes in one name: Japanese kanji with kana, Korean hangul
with hanja): a Cyrillic "а" among Latin letters ("pаypal") is a look-alike, not a
name. Digits are ASCII's; a letter's combining marks (accents, vowel signs) may
follow it. Compatibility forms are refused (fullwidth "ａｄｍｉｎ", mathematical
bold, ligatures, superscripts): a name is its own NFKC form. Names are unique
regardless of case, beyond ASCII too (the store's ``NOCASE``, by Unicode case
folding). Names that could pass for the server's own are kept for it: a guest's
``guest-...``, a robot's ``robot-...``, and a few words a player could use to
pose as the host.

Guest names are ``guest-<wanted>`` with ``-2``, ``-3``, ... when taken, cut so
that the suffix always fits in the 24 characters. A guest name is held while a
connection uses it, a seat at some table waits for it, or its session may still
be resumed (``guest_session_seconds`` after the last login, checked by the
caller in the store); after that the next guest may get it, and the old
guest's sessions end, so two people never share one name.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from trickroom.i18n.message import Msg, ScriptName, both

MAX_NAME = 24
SEPARATORS = frozenset("_-")
DIGITS = frozenset("0123456789")
RESERVED_PREFIXES = ("guest", "robot")
RESERVED_NAMES = frozenset({"admin", "administrator", "host", "moderator", "server", "system",
                            "trickroom"})
NAME_RULE = Msg("a name is 1 to 24 letters, digits, '_' or '-', its letters all of one "
                "alphabet (no spaces or other signs)")
# Scripts one name may mix, as a language writes names: a script's letters are named
# after it in Unicode ("CJK UNIFIED IDEOGRAPH", "HIRAGANA LETTER A", "HANGUL SYLLABLE").
_KANA = frozenset({"HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA"})
_MIXES = (frozenset({"CJK"}) | _KANA, frozenset({"CJK", "HANGUL"}))


def normal(name: str) -> str:
    """``name`` in the form it is kept and compared in: Unicode NFC."""
    return unicodedata.normalize("NFC", name)


def _script(ch: str) -> str:
    """The script a letter belongs to, as its Unicode name begins ("LATIN", "GREEK",
    "CYRILLIC", "CJK", "HIRAGANA", ...)."""
    return unicodedata.name(ch, "UNKNOWN").split(" ", 1)[0]


def name_problem(name: str) -> str | None:
    """What makes ``name`` (already NFC) no name, in words, or None."""
    if not 1 <= len(name) <= MAX_NAME:
        return NAME_RULE
    if unicodedata.normalize("NFKC", name) != name:
        return Msg("{rule}; {name!r} has a compatibility form of a character (a fullwidth "
                   "or styled letter, a ligature, a superscript)", rule=NAME_RULE, name=name)
    scripts: set[str] = set()
    letter_before = False
    for ch in name:
        kind = unicodedata.category(ch)
        if kind[0] == "L":
            scripts.add(_script(ch))
            letter_before = True
        elif kind in ("Mn", "Mc") and letter_before:
            continue  # an accent or vowel sign of the letter before it
        elif ch in DIGITS or ch in SEPARATORS:
            letter_before = False
        else:
            return NAME_RULE
    if len(scripts) > 1 and not any(scripts <= mix for mix in _MIXES):
        return Msg("{rule}; {name!r} mixes letters of {scripts}, which makes look-alikes",
                   rule=NAME_RULE, name=name,
                   scripts=both([ScriptName(s) for s in sorted(scripts)]))
    return None


def valid_name(name: str) -> bool:
    """Whether ``name`` is a name as given (NFC, and by the rule above)."""
    return normal(name) == name and name_problem(name) is None


def account_name_refusal(name: str) -> str | None:
    """Why ``name`` cannot be an account's, or None."""
    if not valid_name(name):
        return name_problem(normal(name)) or NAME_RULE
    folded = name.casefold()
    if folded.startswith(RESERVED_PREFIXES) or folded in RESERVED_NAMES:
        return Msg("the name {name!r} is reserved (names starting with 'guest' or 'robot', "
                   "and {names}, are the server's)", name=name,
                   names=", ".join(sorted(RESERVED_NAMES)))
    return None


@dataclass(slots=True)
class _Held:
    address: str
    connections: int


class GuestNames:
    """The guest names in use, by whom (an address), and how many each address holds."""

    def __init__(self) -> None:
        self._held: dict[str, _Held] = {}  # lower-cased name -> holder
        self.per_address: Counter[str] = Counter()  # names with a live connection
        # Told each address's new count (a cluster shares it with the other nodes).
        self.on_count: Callable[[str, int], None] | None = None
        self._next_suffix: dict[str, int] = {}  # base name -> the suffix to try first

    def held(self, name: str) -> bool:
        return name.lower() in self._held

    def candidates(self, wanted: str | None) -> Iterator[str]:
        """The names to try for a guest who asked for ``wanted``, best first: the name
        itself, then suffixes from the last one given out for it (a thousand guests asking
        for one name do not each walk past the thousand before them)."""
        base = f"guest-{wanted}" if wanted else "guest"
        if wanted:
            yield base[:MAX_NAME]
        start = self._next_suffix.get(base, 2)
        for n in itertools.chain(range(start, 100_000), range(2, start)):
            self._next_suffix[base] = n + 1
            if len(self._next_suffix) > 10_000:
                self._next_suffix.clear()  # hints only: a flood of names cannot grow them
            suffix = f"-{n}"
            yield base[:MAX_NAME - len(suffix)] + suffix

    def _count(self, address: str, change: int) -> None:
        count = self.per_address[address] + change
        if count > 0:
            self.per_address[address] = count
        else:
            del self.per_address[address]
        if self.on_count is not None:
            self.on_count(address, max(count, 0))

    def take(self, name: str, address: str) -> None:
        self._held[name.lower()] = _Held(address, 1)
        self._count(address, 1)

    def release(self, name: str) -> None:
        """Give back a name just taken (the store says it is in use after all)."""
        held = self._held.pop(name.lower(), None)
        if held is not None and held.connections > 0:
            self._count(held.address, -1)

    def attach(self, name: str, address: str) -> None:
        """Another connection (a resumed session) uses a guest's name."""
        held = self._held.get(name.lower())
        if held is None:
            self.take(name, address)
            return
        if held.connections == 0:
            self._count(held.address, 1)
        held.connections += 1

    def detach(self, name: str, seated: Callable[[str], bool]) -> None:
        """A connection using ``name`` closed; free the name unless a seat waits for it."""
        held = self._held.get(name.lower())
        if held is None:
            return
        held.connections -= 1
        if held.connections > 0:
            return
        self._count(held.address, -1)
        if not seated(name):
            del self._held[name.lower()]

    def reclaim(self, name: str, seated: Callable[[str], bool]) -> bool:
        """Whether ``name`` is free: no connection uses it and no seat waits for it (a
        restarted server's tables may hold seats of guests it has not seen yet)."""
        held = self._held.get(name.lower())
        if held is None:
            return not seated(name)
        if held.connections == 0 and not seated(name):
            del self._held[name.lower()]
            return True
        return False
