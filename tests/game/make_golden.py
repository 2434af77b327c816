"""Write the golden game records (run once; the files are then pinned and checked by hand).

    python -m tests.game.make_golden
"""

from __future__ import annotations

import json
from pathlib import Path

from trickroom.game.hearts import HeartsGame, HeartsRules
from trickroom.game.robots import make_robot
from trickroom.game.spades import SpadesGame, SpadesRules

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "spades_seed1.json": (SpadesGame, SpadesRules(mercy=200), 1),
    "spades_blind_nil_seed1.json": (SpadesGame, SpadesRules(target=300, mercy=300,
                                                            blind_nil=True), 1),
    "hearts_seed1.json": (HeartsGame, HeartsRules(), 1),
    "hearts_moon_choice_seed3.json": (HeartsGame, HeartsRules(moon="shooter_chooses",
                                                              jack_of_diamonds=True), 3),
}


def _dump(record: dict[str, object]) -> str:
    """JSON with one action per line, so a diff of a golden file reads move by move."""
    lines = []
    for key, value in record.items():
        if key == "actions":
            assert isinstance(value, list)
            inner = ",\n  ".join(json.dumps(a) for a in value)
            lines.append(f' "actions": [\n  {inner}\n ]')
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main() -> None:
    for name, (cls, rules, seed) in CASES.items():
        game = cls(rules, seed=seed)
        robots = [make_robot("random", seed * 10 + s) for s in range(4)]
        while game.phase != "game_over":
            if game.phase == "hand_over":
                game.next_hand()
                continue
            seat = game.awaiting[0]
            game.apply(robots[seat].choose(game.view(seat)), seat)
        record = game.record()
        record["final_scores"] = list(game.scores)
        record["winners"] = list(game.winners)
        record["hand_points"] = [
            [s.points for s in r.sides] if cls is SpadesGame else list(r.points)
            for r in game.hand_results
        ]
        (GOLDEN / name).write_text(_dump(record))
        print(name, record["final_scores"], len(record["hand_points"]), "hands")


if __name__ == "__main__":
    main()
