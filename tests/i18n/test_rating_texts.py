"""Every rating system's breakdown reads wholly in Greek (issue 37): each term is a text
of the catalogs, with the terms of the ranking-points page in Greek (seed 004) and Greek
numbers."""

from __future__ import annotations

import re

import pytest

from tests.ratings.helpers import at, hearts, spades
from trickroom.i18n import Msg
from trickroom.i18n.catalogs import render
from trickroom.ratings import SYSTEMS, Departure
from trickroom.ratings.points import POINTS_EL

RATINGS = at(A=1512.5, B=1488, C=1630.25, D=1401)
# An English word of three letters or more that no Greek text should still hold (names of
# systems and of players aside).
ENGLISH = re.compile(r"\b(?!Weng|Lin|Plackett|Luce|Thurstone|Mosteller|Bradley|Terry|beta|tau)"
                     r"[A-Za-z]{3,}\b")


def results(system: str) -> list:
    return [spades(system, "ABCD", "NS"), spades(system, "ABCD", "tie"),
            spades(system, "ABCD", "EW", departures=[Departure("B", "dropped", 3)],
                   completed=False, progress=0.4),
            spades(system, "ABCD", "NS", robots=[1]),
            hearts(system, {"A": 40, "B": 75, "C": 102, "D": 60}),
            hearts(system, {"A": 40, "B": 75, "C": 102, "D": 60},
                   departures=[Departure("C", "quit", 2)], completed=False, progress=0.6)]


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_every_breakdown_term_is_a_catalog_text_read_in_greek(name):
    system = SYSTEMS[name]
    seen = 0
    for result in results(system.name):
        try:
            changes = system.rate(result, RATINGS)
        except Exception:  # a result this system does not rate (the tests of each say so)
            continue
        for change in changes:
            for term in change.breakdown:
                seen += 1
                assert isinstance(term.text, Msg), (name, term.text)
                greek = render(term.text, "el")
                assert not ENGLISH.search(greek), (name, str(term.text), greek)
    assert seen


def test_the_ranking_points_read_with_the_greek_page_s_words_and_numbers():
    change = POINTS_EL.rate(spades("points_el", "ABCD", "NS", seating="random_seating"),
                            at(A=1500, B=1500, C=1500, D=1500))[0]
    greek = [render(t.text, "el") for t in change.breakdown]
    assert "Αξιοπιστία Παιχνιδιού 2 (τυχαία θέση)" in greek
    assert "Ολοκλήρωση 4 (ολοκληρωμένο παιχνίδι)" in greek
    assert any(t.startswith("Πιθανότητες 10^((1.500 − 1.500) / ") for t in greek), greek
    assert "Πόντοι = ½ × 2 × 4 × 1 = 4" in greek
    assert str(change.breakdown[0].text) == "rating 1500 before"  # English: as ever
    assert greek[0] == "Βαθμοί 1.500 πριν"


@pytest.mark.parametrize("name", ["zone", "wocg"])
def test_the_lists_of_players_ratings_inside_a_breakdown_have_greek_numbers(name):
    """A term that lists the opponents with their ratings (or the three results Zone
    averages) writes each number in Greek, as the term's own numbers are."""
    texts = [t.text for result in results(name)
             for change in SYSTEMS[name].rate(result, RATINGS) for t in change.breakdown]
    english = " | ".join(map(str, texts))
    greek = " | ".join(render(t, "el") for t in texts)
    assert "C 1630.25" in english and "1630.25" not in greek
    assert "C 1.630,25" in greek, greek
    assert not re.search(r"\d{4}\.\d", greek), greek  # no English decimal point anywhere
