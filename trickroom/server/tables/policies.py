"""What a room does when a player drops, comes back or leaves: a table per rating system.

DESIGN section 7 sets out one policy per site whose rating system a room uses.
Each is data: for every trigger, the steps the machine takes, in order. The
machine has one small method per step and no ``if policy == ...`` anywhere,
so a policy reads as the seed page's rules and a new one is a new table.

=================  ===========================================================
policy             on a drop
=================  ===========================================================
casual             a robot plays the seat at once; the player takes it back
zone               the game pauses; the others vote Wait / Don't wait
wocg               a robot plays during the window; not back in time is a quit:
                   rated at once, banned for an hour, the seat open to a
                   substitute or a robot the others invite
points             a robot plays to the end of the hand; the game then ends and
                   is ranked on the score so far
=================  ===========================================================

Leaving on purpose in a ranked room is a quit at once, without a window.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum


class Trigger(Enum):
    DROP = "a seated player's connection closed during a game"
    WINDOW_OVER = "an away player is not back within the reconnect window"
    LEAVE = "a player left the game on purpose"
    SUBSTITUTE_LEAVES = "a substitute left the game"
    REJOIN = "an away player came back"
    WAIT = "everyone voted to wait for the player"
    DONT_WAIT = "someone voted not to wait for the player"
    INVITE_ROBOT = "the others voted to invite a robot into a quitter's seat"
    NO_ROBOT = "the others did not invite a robot"


class Step(Enum):
    BLAME = "the first to disconnect is held responsible (points multipliers)"
    ASK_WAIT = "pause the game and ask the others: Wait / Don't wait"
    RENEW_WINDOW = "give the player another reconnect window"
    END_WAIT_VOTE = "close a Wait vote about this seat: the player is back"
    RESUME_IF_ALL_BACK = "go on once no player is away"
    WAIT_FOR_RETURN = "keep the game paused until the player returns"
    CHARGE = "record the player as having left: an incomplete game (quit or dropped)"
    ROBOT_KEEPS = "a robot plays the seat for the rest of the game"
    ANNOUNCE_QUIT = "tell the table the player quit"
    RATE_QUIT = "rate the quitter now as a loss and ban them from ranked play for an hour"
    OPEN_SEAT = "open the seat to a substitute"
    CLOSE_SEAT = "the seat is the robot's: no substitute may take it"
    ASK_INVITE = "ask the others whether to invite a robot into the seat"
    END_AFTER_HAND = "end the game when this hand is over and rank it on the score so far"
    KEEP_PLAYING = "the player is back before the hand ended: the game goes on"


@dataclass(frozen=True)
class DropPolicy:
    """One room kind's answers to drops, returns and quits."""

    name: str
    steps: Mapping[Trigger, tuple[Step, ...]] = field(default_factory=dict)
    substitutes: bool = False  # a quitter's seat may be taken by a human, unrated
    votes: bool = False  # the room asks its players (CastVote is refused elsewhere)

    def on(self, trigger: Trigger, substitute: bool = False) -> tuple[Step, ...]:
        """The steps for ``trigger``; a substitute's seat is not its starter's to quit: when
        the substitute goes (on purpose or not back in time) the seat is open again."""
        if substitute:
            trigger = SUBSTITUTE_TRIGGERS.get(trigger, trigger)
            if trigger is not Trigger.SUBSTITUTE_LEAVES:
                return ()
        return self.steps.get(trigger, ())


SUBSTITUTE_TRIGGERS = {Trigger.LEAVE: Trigger.SUBSTITUTE_LEAVES,
                       Trigger.WINDOW_OVER: Trigger.SUBSTITUTE_LEAVES}


CASUAL = DropPolicy("casual", {
    Trigger.WINDOW_OVER: (Step.ROBOT_KEEPS,),
    Trigger.LEAVE: (Step.ROBOT_KEEPS,),
})

ZONE = DropPolicy("zone", {
    Trigger.DROP: (Step.BLAME, Step.ASK_WAIT),
    Trigger.WINDOW_OVER: (Step.RENEW_WINDOW, Step.ASK_WAIT),
    Trigger.LEAVE: (Step.CHARGE, Step.BLAME, Step.ROBOT_KEEPS, Step.ANNOUNCE_QUIT),
    Trigger.REJOIN: (Step.END_WAIT_VOTE, Step.RESUME_IF_ALL_BACK),
    Trigger.WAIT: (Step.WAIT_FOR_RETURN,),
    Trigger.DONT_WAIT: (Step.CHARGE, Step.ROBOT_KEEPS, Step.RESUME_IF_ALL_BACK),
}, votes=True)

WOCG = DropPolicy("wocg", {
    Trigger.DROP: (Step.BLAME,),
    Trigger.WINDOW_OVER: (Step.RATE_QUIT, Step.ROBOT_KEEPS, Step.OPEN_SEAT, Step.ASK_INVITE),
    Trigger.LEAVE: (Step.RATE_QUIT, Step.ROBOT_KEEPS, Step.OPEN_SEAT, Step.ASK_INVITE),
    Trigger.SUBSTITUTE_LEAVES: (Step.ROBOT_KEEPS, Step.OPEN_SEAT),
    Trigger.INVITE_ROBOT: (Step.CLOSE_SEAT,),
}, substitutes=True, votes=True)

POINTS = DropPolicy("points", {
    Trigger.DROP: (Step.BLAME, Step.END_AFTER_HAND),
    Trigger.WINDOW_OVER: (Step.ROBOT_KEEPS,),
    Trigger.LEAVE: (Step.CHARGE, Step.BLAME, Step.END_AFTER_HAND, Step.ROBOT_KEEPS,
                    Step.ANNOUNCE_QUIT),
    Trigger.REJOIN: (Step.KEEP_PLAYING,),
})

# The policy of each rating system's rooms; a ranked room of any other system votes as Zone.
BY_SYSTEM: Mapping[str, DropPolicy] = {
    "zone": ZONE, "zone_tuned": ZONE, "wocg": WOCG, "wocg_tuned": WOCG,
    "points_en": POINTS, "points_el": POINTS,
}


def policy_for(rated: bool, system: str | None) -> DropPolicy:
    """The drop policy of a room: casual unless rated, then its rating system's."""
    if not rated:
        return CASUAL
    return BY_SYSTEM.get(system or "", ZONE)
