"""Measuring a page's layout the way a player meets it: what is inside the viewport, and
what is covered by something else (issue 33).

``PROBLEMS`` runs in the page and returns, for the elements a player needs at that
moment, every one that is outside the viewport or covered: it samples each element on
a grid of points and asks ``document.elementFromPoint`` whose each point is. A card of
the hand must show a square of its own at least ``need`` CSS px on a side (a tap target,
WCAG 2.5.5); a seat and a button to press must show all of themselves; a card of the
trick must be on screen and mostly its own. Toasts take no pointer events (the hit test
passes through them), so they are checked by their boxes: none may overlap a needed
element. The page must not be wider than the viewport either.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

PROBLEMS = (Path(__file__).resolve().parent / "js" / "layout_problems.js").read_text()


# What a player must press at the table, whichever dialog is up.
TABLE_BUTTONS = (".prompt-box button, dialog[open] .dialog-actions button, "
                 "dialog[open] .dialog-actions a")


async def layout_problems(page: Any, need: int = 44, buttons: str = TABLE_BUTTONS) -> list[str]:
    """What is outside the viewport or covered on the page as it is laid out now."""
    problems: list[str] = await page.evaluate(PROBLEMS, {"need": need, "buttons": buttons})
    return problems


TEXT_CUT = (Path(__file__).resolve().parent / "js" / "text_cut.js").read_text()


async def text_problems(page: Any) -> list[str]:
    """Text on the page that a clipping box cuts, that runs out of its block (a label wider
    than its button) or past the viewport's sides (js/text_cut.js says how it measures)."""
    problems: list[str] = await page.evaluate(TEXT_CUT)
    return problems
