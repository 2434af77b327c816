"""Lists and the names of scripts in each language (issue 37): joined and named by the
language's own CLDR data (Babel), English as the server always wrote it."""

from __future__ import annotations

import pickle

from trickroom.i18n import Listing, Msg, ScriptName
from trickroom.i18n.catalogs import render
from trickroom.i18n.message import Number, both, from_data, to_data
from trickroom.server.names import name_problem


def test_a_list_is_joined_in_each_language_with_its_items_in_it():
    scores = Listing([Msg("{player} {rating}", player="B", rating=Number(1489.5)),
                      Msg("{player} {rating}", player="D", rating=Number(-12.25))], "comma")
    assert scores == "B 1489.5, D −12.25"
    assert render(scores, "el") == "B 1.489,5, D −12,25"
    assert both(["A", "B", "C"]) == "A, B and C"
    assert render(both(["A", "B", "C"]), "el") == "A, B και C"
    assert render(Listing(["'en'", "'el'"], "or"), "el") == "'en' ή 'el'"
    assert render(Listing([Number(1500.5), Number(1400)], "sum"), "el") == "1.500,5 + 1.400"


def test_a_name_refusal_names_the_scripts_in_the_readers_language():
    problem = name_problem("pаypal")  # a Cyrillic 'а' among Latin letters
    assert problem is not None and "mixes letters of Cyrillic and Latin" in problem
    greek = render(problem, "el")
    assert "Κυριλλικό και Λατινικό" in greek and "Cyrillic" not in greek
    assert render(ScriptName("CJK"), "el") == "Χαν"
    assert render(ScriptName("NOT-A-SCRIPT"), "el") == "Not-A-Script"  # CLDR lacks it


def test_lists_and_script_names_survive_storing_and_pickling():
    text = Msg("against {who}: {scores}", who=both([ScriptName("GREEK"), "B"]),
               scores=Listing([Number(1.5), Number(2)], "sum"))
    for again in (from_data(to_data(text)), pickle.loads(pickle.dumps(text))):
        assert again == text
        assert render(again, "el") == render(text, "el")
        assert "Ελληνικό" in render(again, "el")
