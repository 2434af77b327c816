"""Hearts: four players, each for themselves; lowest score wins.

Each hand starts with a pass (three cards, to the left, right, across, or held,
in turn), chosen by all four at once before any receive. The holder of the 2 of
clubs leads it; no points may be played on the first trick; hearts may not be
led until broken. Each heart costs 1 and the queen of spades 13; a player who
takes all 26 shoots the moon. The game ends after a hand in which someone
reaches the target, or after ``hand_limit`` hands on the score as it stands (a
moon shot off one's own score, or a jack of diamonds worth more than the hand's
hearts, can keep every score below the target). See DESIGN section 5; every rule is a field of
:class:`HeartsRules`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal, overload

from trickroom.game.actions import MOON_CHOICES, Action, IllegalAction, MoonChoice, Pass
from trickroom.game.cards import CARD_TEXT, HEARTS, cards_of
from trickroom.game.events import (
    Dealt,
    Event,
    GameOver,
    HandScored,
    MoonPending,
    PassChosen,
    Passed,
    Received,
)
from trickroom.game.outcome import NilStats, Outcome
from trickroom.game.trickgame import TrickGame, TrickView
from trickroom.game.variants import HEARTS_BOUNDS, check_rules, checking_rules
from trickroom.i18n import Msg

HEARTS_MASK = 0x1FFF << (13 * HEARTS)
QUEEN_OF_SPADES = 49
JACK_OF_DIAMONDS = 22
QS_BIT = 1 << QUEEN_OF_SPADES
JD_BIT = 1 << JACK_OF_DIAMONDS
POINT_CARDS = HEARTS_MASK | QS_BIT
CLUBS_MASK = 0x1FFF
MOON_POINTS = 26

PASS_OFFSETS = {"left": 1, "across": 2, "right": 3, "hold": 0}
MoonRule = Literal["add_to_others", "subtract_from_shooter", "shooter_chooses"]


@dataclass(frozen=True)
class HeartsRules:
    """The variants of Hearts a room may choose. Defaults are DESIGN section 5's."""

    target: int = 100
    pass_cycle: tuple[str, ...] = ("left", "right", "across", "hold")
    pass_count: int = 3
    any_club_first: bool = False  # the 2 of clubs' holder may lead any club
    blood_on_first_trick: bool = False  # points allowed on the first trick
    queen_breaks_hearts: bool = False  # the queen of spades breaks hearts too
    jack_of_diamonds: bool = False  # taking the jack of diamonds scores jack_value
    jack_value: int = -10
    moon: MoonRule = "add_to_others"
    hand_limit: int = 100  # the game ends after this many hands, on the score as it stands

    def __post_init__(self) -> None:
        if not checking_rules():
            return  # a record's rules, as they were played
        check_rules(self, HEARTS_BOUNDS)
        if not 1 <= len(self.pass_cycle) <= 8 or any(
                not isinstance(d, str) or d not in PASS_OFFSETS for d in self.pass_cycle):
            raise ValueError(f"pass_cycle is 1..8 entries among {sorted(PASS_OFFSETS)}")
        if self.moon not in ("add_to_others", "subtract_from_shooter", "shooter_chooses"):
            raise ValueError(f"unknown moon rule {self.moon!r}")


@dataclass(frozen=True)
class HeartsHandResult:
    """One hand's scoring: points taken, the moon if any, and the points scored."""

    hand_no: int
    dealer: int
    pass_direction: str
    taken: tuple[int, ...]  # points taken in tricks (hearts, Q♠, J♦ if used)
    moon: int | None  # the seat that shot the moon
    moon_choice: str | None  # "add" or "subtract"
    points: tuple[int, ...]  # what each seat scores for the hand
    scores: tuple[int, ...]  # running scores after the hand

    def to_wire(self) -> dict[str, Any]:
        return {
            "dealer": self.dealer,
            "pass_direction": self.pass_direction,
            "taken": list(self.taken),
            "moon": self.moon,
            "moon_choice": self.moon_choice,
            "points": list(self.points),
        }


@cache
def _combinations(n: int, k: int) -> tuple[tuple[int, ...], ...]:
    return tuple(itertools.combinations(range(n), k))


class PassOptions(Sequence[Pass]):
    """Every legal pass of a hand, built on demand.

    A 13-card hand has 286 ways to pass three; listing them as objects each
    turn would cost more than the rest of the hand, so this sequence makes the
    one asked for. ``random.choice`` and ``len`` work on it as on a list.
    """

    __slots__ = ("_cards", "_combos", "_count", "_hand")

    def __init__(self, hand: int, count: int) -> None:
        self._hand, self._count = hand, count
        self._cards = tuple(cards_of(hand))
        self._combos = _combinations(len(self._cards), count)

    def __reduce__(self) -> tuple[Any, ...]:  # pickled as made (compiled, it has no state)
        return PassOptions, (self._hand, self._count)

    def __len__(self) -> int:
        return len(self._combos)

    @overload
    def __getitem__(self, index: int) -> Pass: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Pass]: ...

    def __getitem__(self, index: int | slice) -> Pass | Sequence[Pass]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        cards = self._cards
        return Pass(tuple(cards[i] for i in self._combos[index]))

    def __iter__(self) -> Iterator[Pass]:
        cards = self._cards
        for combo in self._combos:
            yield Pass(tuple(cards[i] for i in combo))

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, Pass):
            return False
        return (len(action.cards) == len(self._combos[0]) if self._combos else False) and set(
            action.cards) <= set(self._cards) and len(set(action.cards)) == len(action.cards)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PassOptions):
            return self._cards == other._cards and self._combos == other._combos
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self._cards, len(self._combos)))

    def __repr__(self) -> str:
        hand = " ".join(CARD_TEXT[c] for c in self._cards)
        return f"PassOptions({len(self)} ways to pass from {hand})"


@dataclass(frozen=True, kw_only=True)
class HeartsView(TrickView):
    pass_direction: str
    passed: tuple[int, ...]  # the cards this seat passed (empty for spectators)
    received: tuple[int, ...]  # the cards passed to this seat, once the pass is done
    pass_chosen: tuple[bool, ...]  # which seats have chosen their pass
    points_taken: tuple[int, ...]  # points in the tricks each seat has taken this hand
    hearts_broken: bool

    def _extra_wire(self) -> dict[str, Any]:
        return {
            "pass_direction": self.pass_direction,
            "passed": [CARD_TEXT[c] for c in self.passed],
            "received": [CARD_TEXT[c] for c in self.received],
            "pass_chosen": list(self.pass_chosen),
            "points_taken": list(self.points_taken),
            "hearts_broken": self.hearts_broken,
        }


class HeartsGame(TrickGame):
    """A whole game of Hearts: ``apply`` actions until ``phase == "game_over"``.

    During the pass all four seats may act in any order (``awaiting``);
    ``to_act`` names the lowest of them, for drivers that go one at a time.
    """

    kind = "hearts"
    spades_trump = False
    rules_type = HeartsRules

    def __init__(self, rules: HeartsRules | None = None, seed: int = 0, *,
                 dealer: int | None = None, first_deal: Sequence[int] | None = None,
                 deals: Sequence[Sequence[int]] = ()) -> None:
        self.scores = [0, 0, 0, 0]
        self.passes: list[tuple[int, ...] | None] = [None] * 4
        self.received: list[tuple[int, ...]] = [(), (), (), ()]
        self.moon_seat: int | None = None
        r = rules or HeartsRules()
        self._breaks = HEARTS_MASK | (QS_BIT if r.queen_breaks_hearts else 0)
        self._first_trick_void_rule = not r.blood_on_first_trick
        self._points_in_tricks = True
        self._scoring_mask = POINT_CARDS | (JD_BIT if r.jack_of_diamonds else 0)
        super().__init__(r, seed, dealer=dealer, first_deal=first_deal,
                         deals=deals)

    @property
    def winner(self) -> int | None:
        """The winning seat, when exactly one seat has the lowest final score."""
        return self.winners[0] if len(self.winners) == 1 else None

    @property
    def pass_direction(self) -> str:
        cycle: tuple[str, ...] = self.rules.pass_cycle
        return cycle[self.hand_no % len(cycle)]

    def _pass_direction(self) -> str | None:
        return self.pass_direction

    @property
    def awaiting(self) -> tuple[int, ...]:
        if self.phase == "pass":
            return tuple(s for s in range(4) if self.passes[s] is None)
        return super().awaiting

    # -- passing --------------------------------------------------------------------

    def _start_hand(self, hands: Sequence[int] | None) -> list[Event]:
        started = self._reset_hand(hands)
        self.passes = [None] * 4
        self.received = [(), (), (), ()]
        self.moon_seat = None
        events: list[Event] = [started, *(Dealt(s, self.hands[s]) for s in range(4))]
        if self.pass_direction == "hold":
            self._begin_play(self._holder_of_two())
        else:
            self.phase = "pass"
            self.to_act = 0
        return events

    def _holder_of_two(self) -> int:
        for seat in range(4):
            if self.hands[seat] & 1:
                return seat
        raise AssertionError("no one holds the 2 of clubs")  # a deal always has it

    def _other_legal(self, seat: int) -> Sequence[Action]:
        if self.phase == "pass":
            if 0 <= seat < 4 and self.passes[seat] is None:
                return PassOptions(self.hands[seat], self.rules.pass_count)
            return ()
        if self.phase == "moon" and seat == self.to_act:
            return MOON_CHOICES
        return ()

    def _apply_other(self, seat: int, action: Action) -> list[Event]:
        if isinstance(action, Pass):
            return self._pass(seat, action)
        if isinstance(action, MoonChoice):
            return self._choose_moon(seat, action)
        raise IllegalAction(Msg("{action} is not an action in Hearts", action=action))

    def _pass(self, seat: int, action: Pass) -> list[Event]:
        if self.phase != "pass":
            raise IllegalAction(
                Msg("cards are passed in the pass phase; the game is in {phase!r}",
                    phase=self.phase), "wrong_phase")
        if not 0 <= seat < 4:
            raise IllegalAction(Msg("there is no seat {seat}", seat=seat), "not_your_turn")
        if self.passes[seat] is not None:
            raise IllegalAction(Msg("you have already passed this hand"), "not_your_turn")
        n = self.rules.pass_count
        cards = action.cards
        if len(cards) != n:
            raise IllegalAction(Msg("pass exactly {n} cards, not {n_cards}", n=n,
                                    n_cards=len(cards)))
        if len(set(cards)) != n:
            raise IllegalAction(Msg("a card may be passed only once"))
        for c in cards:
            if not 0 <= c < 52 or not self.hands[seat] >> c & 1:
                raise IllegalAction(Msg("you do not hold {card}",
                                        card=CARD_TEXT[c] if 0 <= c < 52 else c))
        chosen = tuple(sorted(cards))
        self.passes[seat] = chosen
        target = (seat + PASS_OFFSETS[self.pass_direction]) % 4
        mask = sum(1 << c for c in chosen)
        events: list[Event] = [Passed(seat, mask, target), PassChosen(seat)]
        waiting = self.awaiting
        if waiting:
            self.to_act = waiting[0]
            return events
        return events + self._exchange()

    def _exchange(self) -> list[Event]:
        """Every seat has chosen: hand the passes on, then the 2 of clubs leads."""
        offset = PASS_OFFSETS[self.pass_direction]
        out = [0, 0, 0, 0]
        for seat, chosen in enumerate(self.passes):
            assert chosen is not None
            out[seat] = sum(1 << c for c in chosen)
        events: list[Event] = []
        for seat in range(4):
            source = (seat - offset) % 4
            self.hands[seat] = (self.hands[seat] & ~out[seat]) | out[source]
            self.received[seat] = tuple(cards_of(out[source]))
            events.append(Received(seat, out[source], source))
        self.dealt = tuple(self.hands)
        self._begin_play(self._holder_of_two())
        return events

    # -- play ----------------------------------------------------------------------------

    def _lead_mask(self, seat: int) -> int:
        hand = self.hands[seat]
        if not self.tricks:
            return (hand & CLUBS_MASK) if self.rules.any_club_first else 1
        if self.broken:
            return hand
        return (hand & ~HEARTS_MASK) or hand

    def _void_mask(self, hand: int) -> int:
        return (hand & ~POINT_CARDS) or hand

    def _trick_points(self, mask: int) -> int:
        points = (mask & HEARTS_MASK).bit_count()
        if mask & QS_BIT:
            points += 13
        if mask & JD_BIT and self.rules.jack_of_diamonds:
            points += self.rules.jack_value
        return points

    def _explain_illegal_play(self, seat: int, card: int) -> str:
        if self.trick and self.hands[seat] >> card & 1 and not self.tricks:
            follow = self.hands[seat] & (0x1FFF << (13 * self.led))
            if not follow and (1 << card) & POINT_CARDS:
                return Msg("no points on the first trick: you may not play a heart or the "
                           "queen of spades while you hold another card")
        return super()._explain_illegal_play(seat, card)

    def _explain_lead(self, seat: int, card: int) -> str:
        if not self.tricks:
            if self.rules.any_club_first:
                return Msg("the first trick is led with a club")
            return Msg("the first trick is led with the 2 of clubs")
        return Msg("hearts are not broken: you may not lead a heart while you hold another suit")

    def _lead_reason(self, card: int) -> str:
        if not self.tricks:
            return ANY_CLUB_LEADS if self.rules.any_club_first else TWO_OF_CLUBS_LEADS
        return QUEEN_BREAKS if self.rules.queen_breaks_hearts else HEARTS_NOT_BROKEN

    def _void_reason(self, card: int) -> str:
        return QUEEN_WAITS if card == QUEEN_OF_SPADES else HEARTS_WAIT

    # -- scoring ---------------------------------------------------------------------------

    def _taken_points(self) -> list[int]:
        return [self._trick_points(t) for t in self.taken]

    def _end_hand(self) -> list[Event]:
        for seat in range(4):
            if self.taken[seat] & POINT_CARDS == POINT_CARDS:
                self.moon_seat = seat
                if self.rules.moon == "shooter_chooses":
                    self.phase = "moon"
                    self.to_act = seat
                    return [MoonPending(seat)]
                choice = "add" if self.rules.moon == "add_to_others" else "subtract"
                return self._score(choice)
        return self._score(None)

    def _choose_moon(self, seat: int, action: MoonChoice) -> list[Event]:
        if self.phase != "moon":
            raise IllegalAction(Msg("there is no moon to score now"), "wrong_phase")
        if seat != self.to_act:
            raise self._not_your_turn(seat)
        self.to_act = None
        return self._score(action.choice)

    def _score(self, moon_choice: str | None) -> list[Event]:
        taken = self._taken_points()
        points = list(taken)
        shooter = self.moon_seat
        if shooter is not None:
            rules = self.rules
            jack = [rules.jack_value if rules.jack_of_diamonds and m & JD_BIT else 0
                    for m in self.taken]
            for seat in range(4):
                base = 0
                if moon_choice == "add" and seat != shooter:
                    base = MOON_POINTS
                elif moon_choice == "subtract" and seat == shooter:
                    base = -MOON_POINTS
                points[seat] = base + jack[seat]
        for seat in range(4):
            self.scores[seat] += points[seat]
        result = HeartsHandResult(self.hand_no, self.dealer, self.pass_direction, tuple(taken),
                                  shooter, moon_choice, tuple(points), tuple(self.scores))
        self.hand_results.append(result)
        events: list[Event] = [HandScored(self.hand_no, result, tuple(self.scores))]
        if (max(self.scores) >= self.rules.target
                or len(self.hand_results) >= self.rules.hand_limit):
            low = min(self.scores)
            self.winners = tuple(s for s in range(4) if self.scores[s] == low)
            self.phase = "game_over"
            self.to_act = None
            events.append(GameOver(tuple(self.scores), self.winners))
        else:
            self.phase = "hand_over"
            self.to_act = None
        return events

    # -- views and results ----------------------------------------------------------------

    def view(self, seat: int | None) -> HeartsView:
        """What ``seat`` may see; ``None`` is a spectator."""
        own = seat is not None and 0 <= seat < 4
        passed = self.passes[seat] if own and seat is not None else None
        return HeartsView(
            **self._view_common(seat),
            hand=self.hands[seat] if own and seat is not None else 0,
            scores=tuple(self.scores),
            pass_direction=self.pass_direction,
            passed=passed or (),
            received=self.received[seat] if own and seat is not None else (),
            pass_chosen=tuple(p is not None for p in self.passes),
            points_taken=tuple(self._taken_points()),
            hearts_broken=self.broken,
        )

    def result(self) -> Outcome:
        """Final (or so-far) scores, winners and progress toward the target, for ratings."""
        return Outcome(
            game=self.kind,
            finished=self.phase == "game_over",
            scores=tuple(self.scores),
            seat_scores=tuple(self.scores),
            winners=self.winners,
            hands_played=len(self.hand_results),
            target=self.rules.target,
            progress=min(1.0, max(0.0, max(self.scores) / self.rules.target)),
            nil=tuple(NilStats() for _ in range(4)),
        )


# Why a card is refused, each text made once: every prompt of a play turn carries one for
# each card of the hand it refuses (issue 40).
ANY_CLUB_LEADS = Msg("The first trick is led with a club.")
TWO_OF_CLUBS_LEADS = Msg("The 2 of clubs leads the first trick.")
QUEEN_BREAKS = Msg("Hearts are not broken yet (a heart or the queen of spades breaks them): "
                   "lead another suit.")
HEARTS_NOT_BROKEN = Msg("Hearts are not broken yet: lead another suit.")
QUEEN_WAITS = Msg("No points on the first trick: the queen of spades must wait.")
HEARTS_WAIT = Msg("No points on the first trick: hearts must wait.")
