"""The client's words are all in its catalogs (issue 37): every language has every key of
English with the same placeholders, every key the code asks for exists, and no word a
person reads is written in the code itself.

The catalogs are ``trickroom/web/locales/<lang>.json``, read by ``web/js/i18n.js`` (a
subset of ICU MessageFormat: ``{name}``, ``{n, plural, ...}``, ``{n, selectordinal,
...}``, ``{x, select, ...}``). The scan of ``web/js`` is a small tokenizer, not a guess by
eye; the rule it enforces is written out at SCAN_RULE below.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "trickroom" / "web"
LOCALES = WEB / "locales"
LANGUAGES = ("en", "el")


def catalog(lang: str) -> dict[str, str]:
    data = json.loads((LOCALES / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


# -- the message format, as i18n.js reads it ------------------------------------------------

def placeholders(text: str) -> set[str]:
    """The argument names of an ICU message (nested options included); raises ValueError on
    unbalanced braces or a malformed argument, as the client's parser would."""
    names: set[str] = set()
    i = 0

    def word() -> str:
        nonlocal i
        m = re.compile(r"\s*([^\s,{}]+)\s*").match(text, i)
        if not m:
            raise ValueError(f"bad message at {i}: {text!r}")
        i = m.end()
        return m.group(1)

    def nodes() -> None:
        nonlocal i
        while i < len(text) and text[i] != "}":
            if text[i] == "{":
                i += 1
                argument()
            else:
                i += 1

    def argument() -> None:
        nonlocal i
        names.add(word())
        if text[i:i + 1] == "}":
            i += 1
            return
        if text[i:i + 1] != ",":
            raise ValueError(f"bad argument at {i}: {text!r}")
        i += 1
        kind = word()
        if text[i:i + 1] == "}":
            i += 1
            return
        if text[i:i + 1] != "," or kind not in ("plural", "selectordinal", "select"):
            raise ValueError(f"bad argument kind {kind!r}: {text!r}")
        i += 1
        options = 0
        while True:
            while i < len(text) and text[i].isspace():
                i += 1
            if text[i:i + 1] == "}":
                i += 1
                break
            word()
            if text[i:i + 1] != "{":
                raise ValueError(f"an option without its message: {text!r}")
            i += 1
            nodes()
            if text[i:i + 1] != "}":
                raise ValueError(f"unclosed option: {text!r}")
            i += 1
            options += 1
        if not options:
            raise ValueError(f"no options: {text!r}")

    nodes()
    if i != len(text):
        raise ValueError(f"unbalanced braces: {text!r}")
    return names


def test_the_message_reader_finds_placeholders_and_refuses_broken_messages():
    assert placeholders("{name} bid {n}") == {"name", "n"}
    assert placeholders("{n, plural, one {# trick} other {{who}: # tricks}}") == {"n", "who"}
    for broken in ("{name", "name}", "{n, plural, one # trick}", "{n, plural, }"):
        with pytest.raises(ValueError):
            placeholders(broken)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_of_a_catalog_reads(lang):
    for key, text in catalog(lang).items():
        assert isinstance(text, str) and text.strip(), f"{lang}: {key} is empty"
        placeholders(text)


@pytest.mark.parametrize("lang", [x for x in LANGUAGES if x != "en"])
def test_every_language_has_every_english_key_with_the_same_placeholders(lang):
    english, other = catalog("en"), catalog(lang)
    missing = sorted(set(english) - set(other))
    extra = sorted(set(other) - set(english))
    assert not missing, f"{lang} lacks {len(missing)} of English's keys: {missing}"
    assert not extra, f"{lang} has keys English has not: {extra}"
    differ = {key: (sorted(placeholders(english[key])), sorted(placeholders(other[key])))
              for key in english if placeholders(english[key]) != placeholders(other[key])}
    assert not differ, f"{lang}: placeholders differ from English's: {differ}"


def test_plural_messages_give_english_one_and_other_and_greek_its_own():
    # A plural without "other" has no form for the numbers Intl.PluralRules calls "other".
    for lang in LANGUAGES:
        for key, text in catalog(lang).items():
            for m in re.finditer(r"\{\s*\w+\s*,\s*(plural|selectordinal|select)\s*,", text):
                assert "other {" in text[m.end():], f"{lang}: {key} has no 'other' form"


def test_the_greek_catalog_is_greek_and_uses_the_rating_terms_of_the_source():
    # The terms of the Greek ranking-points rules (seeds/004): the catalog says them so.
    greek = catalog("el")
    text = " ".join(greek.values())
    for term in ("Βαθμοί", "Πιθανότητες", "Αποσυνδεδεμένος", "Βαθμολογία", "Πόντοι"):
        assert term in text, term
    english = catalog("en")
    same = [k for k, v in greek.items()
            if v == english[k] and re.search(r"[A-Za-z]{2,}", re.sub(r"\{\w+\}", "", v))]
    # Names that stay as they are (rating systems, BOT) are the only English left.
    assert not [k for k in same if not k.startswith(("system.", "badge.bot", "brand"))], same


# -- the scan: no word a person reads in the code -------------------------------------------

SCAN_RULE = """
A string literal in trickroom/web/js (any but i18n.js) is user-facing, and must not be
there, when its text (a template's text outside its ${...}) has a letter and either:
  1. it stands where the page shows text: a child of h(...)/s(...) (an argument after the
     props), an argument of fill(...) after the element, directly or as a branch of a
     conditional or inside an array there; an argument of toast(), confirm(), alert();
     the value of an "aria-label", "title", "placeholder", "alt" or "label" property; a
     value assigned to textContent, innerText or title; or
  2. anywhere, it reads as words: a capitalised word followed by another word
     ("Sign in"), or words ending a sentence ("it was lost.").
Not scanned: comments, console.* and new Error(...) arguments, import paths.
"""

TEXT_CALLS = {"h": 2, "s": 2, "fill": 1}
TEXT_FUNCTIONS = {"toast", "confirm", "alert", "prompt"}
TEXT_PROPS = {"aria-label", "title", "placeholder", "alt", "label"}
WORDS = re.compile(r"\b[A-Z][a-z]+\s+[A-Za-z]{2,}|[A-Za-z]{2,}\s+[a-z]{2,}[.!?]$")
# Letters that are symbols here, not words: μ ± σ of a rating.
SYMBOLS = set("μσ")


@dataclass
class Literal:
    file: str
    line: int
    text: str  # the static text (a template's parts outside ${...}, joined by a space)
    where: str  # "text" when it stands where the page shows text, else ""


def _literals(path: Path) -> list[Literal]:
    """Every string literal of a JS file with the position it stands in (SCAN_RULE)."""
    src = path.read_text(encoding="utf-8")
    out: list[Literal] = []
    # A stack of open brackets: [kind, callee, argument index, text?]
    stack: list[list[object]] = []
    i, n, line = 0, len(src), 1
    last = ""  # the last significant code character (to tell a regex from a division)
    ident = ""  # the identifier just before an opening parenthesis
    prev_ident = ""

    def in_text_position(before: str) -> bool:
        if re.search(r"""(["']?)(aria-label|title|placeholder|alt|label)\1\s*:\s*$""", before):
            return True
        if re.search(r"\.(textContent|innerText|title)\s*=\s*$", before):
            return True
        for frame in reversed(stack):
            kind, callee, arg = frame[0], frame[1], frame[2]
            if kind == "(":
                if callee in TEXT_FUNCTIONS:
                    return arg == 0
                return callee in TEXT_CALLS and isinstance(arg, int) and arg >= TEXT_CALLS[callee]
            if kind == "{":
                return False
            # "[": a children array: look further out
        return False

    def skipped(before: str, after: str) -> bool:
        # Code, not text: a logged line, an error for developers, a path, a comparison.
        return bool(re.search(r"(console\.\w+|new Error)\(\s*$", before)
                    or re.search(r"\b(import|from)\s*$", before)
                    or re.search(r"[!=]==?\s*$", before) or re.match(r"\s*[!=]==?", after))

    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
            continue
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            line += src[i:j].count("\n")
            i = j + 2
            continue
        if c in "\"'`":
            start_line = line
            j = i + 1
            parts: list[str] = []
            buf = ""
            while j < n and src[j] != c:
                if src[j] == "\\":
                    buf += src[j + 1]
                    j += 2
                    continue
                if c == "`" and src.startswith("${", j):
                    parts.append(buf)
                    buf = ""
                    depth = 1
                    j += 2
                    while j < n and depth:
                        if src[j] == "{":
                            depth += 1
                        elif src[j] == "}":
                            depth -= 1
                        elif src[j] == "`":  # a template inside: skip it whole
                            k = src.find("`", j + 1)
                            j = k
                        j += 1
                    continue
                if src[j] == "\n":
                    line += 1
                buf += src[j]
                j += 1
            parts.append(buf)
            before = src[max(0, i - 80):i]
            if not skipped(before, src[j + 1:j + 8]):
                where = "text" if in_text_position(before) else ""
                out.append(Literal(path.name, start_line, " ".join(p for p in parts if p), where))
            i = j + 1
            last = c
            continue
        if c == "/" and (last in "(,=:[!&|?{};+" or last == ""):  # a regex literal
            j = i + 1
            in_class = False
            while j < n and (src[j] != "/" or in_class):
                if src[j] == "\\":
                    j += 1
                elif src[j] == "[":
                    in_class = True
                elif src[j] == "]":
                    in_class = False
                j += 1
            i = j + 1
            while i < n and src[i].isalpha():
                i += 1
            last = "x"
            continue
        if c.isalnum() or c in "_$":
            j = i
            while j < n and (src[j].isalnum() or src[j] in "_$"):
                j += 1
            prev_ident = src[i:j]
            ident = prev_ident
            i = j
            last = "x"
            continue
        if c in "([{":
            callee = ident if c == "(" and last == "x" else ""
            stack.append([c, callee, 0])
        elif c in ")]}":
            if stack:
                stack.pop()
        elif c == "," and stack:
            frame = stack[-1]
            frame[2] = int(frame[2]) + 1  # type: ignore[call-overload]
        if not c.isspace():
            last = c
            if c not in "([{":
                ident = ""
        i += 1
    return out


def _user_facing(lit: Literal) -> bool:
    letters = [ch for ch in lit.text if ch.isalpha() and ch not in SYMBOLS]
    if not letters:
        return False
    if lit.where == "text":
        return True
    return bool(WORDS.search(lit.text.strip()))


def scan(folder: Path) -> list[str]:
    found = []
    for path in sorted(folder.glob("*.js")):
        if path.name == "i18n.js":
            continue
        for lit in _literals(path):
            if _user_facing(lit):
                found.append(f"{lit.file}:{lit.line}: {lit.text!r}")
    return found


def test_the_scan_finds_words_written_in_the_code(tmp_path):
    # The rule holds: each of these is a word a person would read, put in the code.
    (tmp_path / "bad.js").write_text("\n".join([
        'h("button", { type: "button" }, "Sign out");',
        'h("p", {}, cond ? "yes" : `${n} left`);',
        'fill(el, "Loading");',
        'toast(`Copied ${x}`);',
        'h("input", { "aria-label": "Invite link" });',
        'h("span", { title: `Dealer` });',
        'el.textContent = "Joining";',
        'const why = "The connection was lost";',
        'h("ul", {}, [h("li", {}, "one")]);',
    ]))
    (tmp_path / "good.js").write_text("\n".join([
        '// "A comment" is no text on screen',
        'import { t } from "./i18n.js";',
        'h("button", { type: "button", class: "primary big", onclick: go }, t("nav.sign_out"));',
        'h("p", {}, " · ", "♠♥ ", `${a} → ${b}`);',
        'console.info("trickroom: the socket closed");',
        'throw new Error(`no message ${key}`);',
        'const re = /^[A-Z] "x"/g; ws.close(1000, "moved");',
        'request({ type: "sit", table: id });',
        'h("p", {}, kind === "robot" ? t("a") : t("b"));',
        'toast(t("x"), "bad"); h("p", {}, ` (μ ${mu} ± ${sigma})`);',
    ]))
    assert scan(tmp_path) == [
        "bad.js:1: 'Sign out'", "bad.js:2: 'yes'", "bad.js:2: ' left'", "bad.js:3: 'Loading'",
        "bad.js:4: 'Copied '", "bad.js:5: 'Invite link'", "bad.js:6: 'Dealer'",
        "bad.js:7: 'Joining'",
        "bad.js:8: 'The connection was lost'", "bad.js:9: 'one'",
    ]


def test_no_word_a_person_reads_is_written_in_the_client_code():
    found = scan(WEB / "js")
    assert not found, (f"user-facing literals outside the catalogs ({SCAN_RULE}):\n"
                       + "\n".join(found))


def test_every_key_the_code_asks_for_is_in_the_english_catalog():
    english = catalog("en")
    asked: set[str] = set()
    prefixes: set[str] = set()
    for path in sorted((WEB / "js").glob("*.js")):
        src = path.read_text(encoding="utf-8")
        asked |= set(re.findall(r"""\bt\(\s*["']([^"']+)["']""", src))
        prefixes |= set(re.findall(r"\bt\(\s*`([^`$]*)\$\{", src))
        # count(n, "trick") asks for count.trick
        words = re.findall(r"""\bcount\([^()]*?,\s*"([a-z ]+)"\)""", src)
        asked |= {f"count.{w.replace(' ', '_')}" for w in words}
        # t(cond ? "a" : "b", ...)
        for a, b in re.findall(r"""\bt\(\s*[^,()"']+\?\s*"([^"]+)"\s*:\s*"([^"]+)\"""", src):
            asked |= {a, b}
    missing = sorted(asked - set(english))
    assert not missing, f"keys asked for and in no catalog: {missing}"
    assert len(asked) > 300, len(asked)
    for prefix in prefixes:
        assert any(k.startswith(prefix) for k in english), f"no key starts with {prefix!r}"
