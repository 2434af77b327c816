"""The catalogs (issue 37): every language has every English text, with the same
placeholders, and no text for people is written in the code outside them."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from trickroom.game.trickgame import FOLLOW_SUIT
from trickroom.i18n import Msg, PluralMsg
from trickroom.i18n.catalogs import LANGUAGES, LOCALE_DIR, pseudo, render
from trickroom.i18n.extract import TEMPLATE, source_catalog

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = sorted(LOCALE_DIR.glob("*/LC_MESSAGES/messages.po"))


def placeholders(template: str) -> set[str]:
    """A template's ``{name!conversion:spec}`` fields, as written."""
    return {f"{name}!{conv}:{spec}" for _, name, spec, conv in string.Formatter().parse(template)
            if name is not None}


def english() -> dict[str, str | tuple[str, str]]:
    with TEMPLATE.open("rb") as pot:
        return {m.id if isinstance(m.id, str) else m.id[0]: m.id for m in read_po(pot) if m.id}


def test_the_template_lists_every_text_of_the_source():
    """``messages.pot`` is the source's texts as they are now (run
    ``python -m trickroom.i18n.extract`` after changing one)."""
    source = {m.id if isinstance(m.id, str) else m.id[0]: m.id for m in source_catalog() if m.id}
    assert source == english()


def test_every_msg_written_anywhere_in_the_source_is_in_the_template():
    """Babel's extractor does not look inside an f-string's expressions: a Msg written
    there would be in no catalog. Every Msg call the parser finds is in the template."""
    keys = set(english())
    missing = []
    for path in sorted((ROOT / "trickroom").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", "") in SAID_AS_TEXT
                    and node.args and isinstance(node.args[0], ast.Constant)
                    and node.args[0].value not in keys):
                missing.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.args[0].value!r}")
    assert not missing, "\n".join(missing)


SAID_AS_TEXT = {"Msg", "PluralMsg"}


def test_every_catalog_is_a_language_a_player_may_choose():
    assert CATALOGS, "no catalog"
    assert {path.parts[-3] for path in CATALOGS} == set(LANGUAGES) - {"en", "en-XA"}


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.parts[-3])
def test_a_catalog_translates_every_english_text_with_the_same_placeholders(path):
    with path.open("rb") as po:
        catalog = read_po(po)
    assert not catalog.fuzzy
    texts = english()
    problems = []
    for key, msgid in texts.items():
        message = catalog.get(msgid)
        if message is None or not message.string or any(not s for s in (
                message.string if isinstance(message.string, tuple) else [message.string])):
            problems.append(f"untranslated: {key!r}")
            continue
        if message.fuzzy:
            problems.append(f"fuzzy: {key!r}")
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        ids = msgid if isinstance(msgid, tuple) else (msgid,)
        if len(forms) != (catalog.num_plurals if isinstance(msgid, tuple) else 1):
            problems.append(f"{len(forms)} plural forms: {key!r}")
        # A plural's last form is the general one: it has every field of the English
        # plural; no form has a field English lacks.
        allowed = set().union(*(placeholders(i) for i in ids))
        if placeholders(forms[-1]) != placeholders(ids[-1]):
            problems.append(f"placeholders differ: {key!r} -> {forms[-1]!r}")
        problems += [f"unknown placeholder: {form!r}" for form in forms
                     if not placeholders(form) <= allowed]
    extra = [m.id for m in catalog if m.id and (m.id if isinstance(m.id, str) else m.id[0])
             not in texts]
    assert not problems and not extra, "\n".join(problems + [f"not in English: {e!r}"
                                                           for e in extra])


def test_a_missing_translation_or_a_changed_placeholder_is_caught():
    """The check above can fail: a catalog without a text, or with a placeholder renamed."""
    assert placeholders("{n} cards, not {n_cards:.1f}") == {"n!None:", "n_cards!None:.1f"}
    assert placeholders("{card}") != placeholders("{karte}")


def test_the_pseudo_locale_is_accented_longer_and_keeps_its_placeholders():
    for key in english():
        made = pseudo(key)
        assert placeholders(made) == placeholders(key), key
        assert len(made) >= 1.3 * len(key), key
        assert made.startswith("[") and made.endswith("]")
    text = render(FOLLOW_SUIT[0], "en-XA")
    assert text.startswith("[Ƒöļļöŵ šûîţ: [çļûƀš") and "clubs" not in text


def test_greek_is_rendered_with_greek_words_and_greek_numbers():
    assert render(FOLLOW_SUIT[0], "el") == "Ακολουθήστε το χρώμα: ανοίχτηκαν σπαθιά."
    said = Msg("{bid}: about {tricks:.1f} tricks expected, {side:.1f} with partner",
               bid=4, tricks=3.5, side=1234.25)
    assert said == "4: about 3.5 tricks expected, 1234.2 with partner"  # English as ever
    assert render(said, "el") == ("4: αναμένονται περίπου 3,5 μπάζες, 1.234,2 με τον "
                                  "συμπαίκτη")
    assert render(PluralMsg("{n} spade", "{n} spades", n=1), "el") == "1 μπαστούνι"
    assert render(PluralMsg("{n} spade", "{n} spades", n=5), "el") == "5 μπαστούνια"
    assert render("a player's own words", "el") == "a player's own words"


# -- no text for people outside the catalogs ----------------------------------------------

# Where the code says something to a person: (the call, which argument).
SAID = {"ProtocolError": 1, "IllegalAction": 0, "chat_refusal": 0, "Term": 0, "unrated": 2,
        "ActionParseError": 0, "CardParseError": 0}
# Functions whose every returned text is for a person (a refusal, a rule, a reason).
REASONS = {"_explain_illegal_play", "_explain_lead", "_lead_reason", "_void_reason",
           "why_illegal", "_reason", "refusal", "_ban", "account_name_refusal",
           "name_problem", "nil_danger", "bid_text", "unrated_reason", "_words",
           "_actual_words", "completion"}
# Attributes that hold a robot's reasons.
REASON_FIELDS = {"explanation", "told", "why", "paused"}


def literal(node: ast.expr) -> bool:
    """Whether an expression is written text: a string literal, an f-string, or text
    joined to one."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value != ""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return literal(node.left) or literal(node.right)
    if isinstance(node, ast.IfExp):
        return literal(node.body) or literal(node.orelse)
    return False


def written_texts(path: Path) -> list[str]:
    """Each place in a source file where a text for people is written outside a Msg."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in SAID and len(node.args) > SAID[name] and literal(node.args[SAID[name]]):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
            if name in ("Msg", "PluralMsg") and not all(
                    isinstance(a, ast.Constant) and isinstance(a.value, str)
                    for a in node.args):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name} of no literal")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in REASONS:
            found += [f"{path.relative_to(ROOT)}:{r.lineno}: {node.name} returns text"
                      for r in ast.walk(node) if isinstance(r, ast.Return)
                      and r.value is not None and literal(r.value)]
        elif isinstance(node, ast.Assign) and literal(node.value) and any(
                isinstance(t, ast.Attribute) and t.attr in REASON_FIELDS for t in node.targets):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: a reason written as text")
    return found


def test_no_refusal_rule_or_robot_reason_is_written_outside_the_catalogs():
    found = []
    for path in sorted((ROOT / "trickroom").rglob("*.py")):
        if "i18n" not in path.parts:
            found += written_texts(path)
    assert not found, "\n".join(found)


def test_the_scan_finds_a_text_written_outside_the_catalogs(tmp_path):
    """The scan above can fail: each kind of text it looks for, written as a literal."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        'raise ProtocolError("bad", f"no table {t}")\n'
        'raise IllegalAction("you may not")\n'
        'def _lead_reason(card):\n    return "Lead another suit."\n'
        'self.told = "the rule of thumb"\n'
        'Msg(f"seat {seat}")\n')
    good = tmp_path / "good.py"
    good.write_text('raise ProtocolError("bad", Msg("no table {t}", t=t))\n'
                    'raise IllegalAction(Msg("you may not"))\nself.told = ""\n')
    global ROOT
    root, ROOT = ROOT, tmp_path
    try:
        assert len(written_texts(bad)) == 5
        assert written_texts(good) == []
    finally:
        ROOT = root
