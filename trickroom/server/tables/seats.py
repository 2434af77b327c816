"""A table's seats and votes: plain values the machine changes and copies.

A seat belongs to an account (or a guest session): ``account`` is who sat,
``client`` the connection that holds it now (None while the player is away),
``token_hash`` the hash of the secret that takes it back after a drop.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from trickroom.server.tables.commands import ClientId
from trickroom.server.tables.copying import copy_fields

SeatKind = Literal["empty", "human", "robot"]
RobotLevel = Literal["random", "heuristic", "search"]

# A robot's name says which seat it plays and how well (the level's initial): "robot-
# heuristic" four times over told a player nothing. The space keeps them apart from every
# account name (names are letters, digits, '_' and '-').
ROBOT_NAMES = {
    "heuristic": ("Bot Hazel", "Bot Hugo", "Bot Holly", "Bot Hank"),
    "search": ("Bot Sage", "Bot Sol", "Bot Skye", "Bot Sid"),
    "random": ("Bot Rosa", "Bot Rex", "Bot Rita", "Bot Rudy"),
}


def robot_name(seat: int, level: str) -> str:
    return ROBOT_NAMES.get(level, ROBOT_NAMES["heuristic"])[seat]


@dataclass(slots=True)
class Seat:
    index: int
    name: str | None = None  # as shown: "ann", "Bot Hugo", "ann (robot)"
    account: str | None = None  # the account or guest session that sat here
    kind: SeatKind = "empty"
    token_hash: str | None = None
    client: ClientId | None = None
    robot_level: RobotLevel = "heuristic"
    again: bool = False  # asked to play again after the game
    rotate: bool = False  # asked for new partners in the next game (a casual table)
    starter: str | None = None  # who sat here when the game started
    substitute: bool = False  # a human in a quitter's seat, unrated
    guest: bool = False  # the account is a guest session (counts toward no eligibility)
    bot: bool = False  # the account is a BOT's (marked as one wherever its name shows)
    group: str | None = None  # the address group it sat from: one person's accounts share it
    away_since: float = 0.0  # when its player went away (a drop, or their server moved)

    @property
    def away(self) -> bool:
        """A player's seat whose connection is gone (its robot plays meanwhile)."""
        return self.kind == "human" and self.client is None

    @property
    def robot_plays(self) -> bool:
        """A robot seat, or a human's while they are away."""
        return self.kind == "robot" or (self.kind == "human" and self.client is None)

    @property
    def connected(self) -> bool:
        return self.kind == "human" and self.client is not None

    def clear(self) -> None:
        self.name = self.account = self.token_hash = None
        self.client = None
        self.guest = self.bot = False
        self.group = None
        self.kind = "empty"
        self.again = self.rotate = False

    def copy(self) -> Seat:
        return copy_fields(self)

    def stored(self) -> dict[str, Any]:
        """The seat as a restart needs it (never the connection)."""
        return {"seat": self.index, "name": self.name, "account": self.account,
                "kind": self.kind, "token_hash": self.token_hash,
                "robot_level": self.robot_level, "starter": self.starter,
                "substitute": self.substitute, "guest": self.guest, "group": self.group,
                "bot": self.bot}


VOTE_CHOICES = {"wait": ("wait", "dont_wait"), "invite_robot": ("yes", "no")}


@dataclass(frozen=True, slots=True)
class Vote:
    """An open vote: about ``seat``, asked of ``voters``, with the choices cast so far."""

    id: str
    kind: Literal["wait", "invite_robot"]
    seat: int
    voters: frozenset[int]
    choices: tuple[tuple[int, str], ...] = ()

    @property
    def cast(self) -> dict[int, str]:
        return dict(self.choices)

    def with_choice(self, seat: int, choice: str) -> Vote:
        return replace(self, choices=(*self.choices, (seat, choice)))

    @property
    def all_cast(self) -> bool:
        return {s for s, _ in self.choices} == self.voters
