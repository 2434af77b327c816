"""The engine contract both games satisfy, and the registry the server picks them from.

``Engine`` is what the server may rely on of a game (DESIGN section 3): a
value you ``apply`` actions to, that says whose turn it is, shows each seat
its ``view`` and gives its ``result`` and ``record``. ``EngineClass`` is what
it may rely on of the class: build a game from rules and a seed, or rebuild
one from a stored record. Spades and Hearts satisfy both by structure, so a
third game needs no base class, only these members.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from trickroom.game.actions import Action
from trickroom.game.events import Event
from trickroom.game.hearts import HeartsGame
from trickroom.game.outcome import Outcome
from trickroom.game.spades import SpadesGame
from trickroom.game.trickgame import TrickView
from trickroom.game.variants import describe_rules


class Engine(Protocol):
    """One game in progress, as the server drives it."""

    @property
    def kind(self) -> str: ...

    @property
    def rules(self) -> Any: ...

    @property
    def seed(self) -> int: ...

    @property
    def first_dealer(self) -> int: ...

    @property
    def phase(self) -> str: ...

    @property
    def hand_no(self) -> int: ...

    @property
    def dealer(self) -> int: ...

    @property
    def hands(self) -> list[int]:
        """Each seat's cards now, as masks: for the review of a finished game only."""

    @property
    def to_act(self) -> int | None: ...

    @property
    def awaiting(self) -> tuple[int, ...]:
        """Seats that may act now (all four while Hearts players choose their passes)."""

    @property
    def actions(self) -> list[tuple[int, Action]]: ...

    @property
    def hand_results(self) -> list[Any]: ...

    def legal_actions(self, seat: int | None = None) -> Sequence[Action]: ...

    def apply(self, action: Action, seat: int | None = None) -> list[Event]:
        """Apply or raise ``IllegalAction``, leaving the game unchanged."""

    def next_hand(self) -> list[Event]: ...

    def opening_events(self) -> list[Event]: ...

    def view(self, seat: int | None) -> TrickView: ...

    def result(self) -> Outcome: ...

    def record(self) -> dict[str, Any]: ...


class EngineClass(Protocol):
    """A game class: a new game from rules and a seed (its first hands as given in
    ``deals``, if any), or one rebuilt from its record."""

    @property
    def rules_type(self) -> type: ...

    def __call__(self, rules: Any, seed: int = 0, *, dealer: int | None = None,
                 deals: Sequence[Sequence[int]] = ()) -> Engine: ...

    def replay(self, record: Mapping[str, Any]) -> Engine: ...


ENGINES: dict[str, EngineClass] = {"spades": SpadesGame, "hearts": HeartsGame}
"""The games by the name rooms and records use."""


def replay(record: Mapping[str, Any]) -> Engine:
    """Rebuild a stored game (``record["game"]`` names its engine)."""
    return ENGINES[record["game"]].replay(record)


def rules_catalogue() -> dict[str, list[dict[str, Any]]]:
    """Every game's settable rules, described for a create-table form (``GET /api/rules``)."""
    return {kind: describe_rules(kind, engine.rules_type) for kind, engine in ENGINES.items()}
