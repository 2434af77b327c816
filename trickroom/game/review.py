"""The game review: a finished game hand by hand and trick by trick, rebuilt from its record.

A stored record is only rules, seed and actions; replaying them through the
engine gives back every deal, bid, pass and trick, so nothing else needs
storing. Only finished games are reviewed, when every hand may be shown. Pure:
the server only hands it a stored record.
"""

from __future__ import annotations

from typing import Any

from trickroom.game.actions import action_from_wire
from trickroom.game.cards import texts_of
from trickroom.game.engine import ENGINES


def review(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Each hand of a finished game: the deal, bids or passes, all 13 tricks, the scoring."""
    engine = ENGINES[record["game"]]
    game = engine.replay({**record, "actions": []})
    hands: list[dict[str, Any]] = []

    def open_hand() -> dict[str, Any]:
        hand = {"hand": game.hand_no, "dealer": game.dealer,
                "dealt": [texts_of(h) for h in game.hands], "actions": [], "tricks": []}
        hands.append(hand)
        return hand

    current = open_hand()
    for item in record["actions"]:
        if game.phase == "hand_over":
            game.next_hand()
            current = open_hand()
        events = game.apply(action_from_wire(item), item["seat"])
        if item["type"] != "play":
            current["actions"].append(item)
        for event in events:
            if event.kind == "trick_won":
                wire = event.to_wire()
                current["tricks"].append({k: wire[k] for k in ("leader", "cards", "seat",
                                                                 "points")})
            elif event.kind == "hand_scored":
                current["result"] = event.to_wire()
    return hands
