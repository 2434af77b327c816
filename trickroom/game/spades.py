"""Spades: four players in two partnerships (seats 0 and 2 against 1 and 3).

One round of bids (nil and, if the room allows it, blind nil), then 13 tricks
with spades as trumps. A side that makes its contract scores 10 a bid trick and
1 a bag; a side that falls short loses 10 a bid trick. Every ``bag_limit`` bags
cost ``bag_penalty``. The game ends after a hand in which a side reaches the
target (or falls to ``-mercy``) with the scores unequal, or after ``hand_limit``
hands on the score as it stands (equal scores: a draw, no winner), so that no game
lasts for ever. See DESIGN section 4;
every rule below is a field of :class:`SpadesRules`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trickroom.game.actions import BIDS, BLIND_NIL, LOOK, Action, Bid, IllegalAction, Look
from trickroom.game.events import BidMade, Dealt, Event, GameOver, HandScored, Looked
from trickroom.game.outcome import NO_NILS, Outcome
from trickroom.game.trickgame import SPADES_MASK, TrickGame, TrickView
from trickroom.game.variants import NULLABLE, SPADES_BOUNDS, check_rules
from trickroom.i18n import Msg


@dataclass(frozen=True)
class SpadesRules:
    """The variants of Spades a room may choose. Defaults are DESIGN section 4's."""

    target: int = 500
    mercy: int | None = None  # end when a side falls to -mercy (common: 200)
    team_bid_cap_13: bool = True  # partners' bids together at most 13
    min_team_bid: int = 0  # partners' non-nil bids together at least this
    nil_value: int = 100
    nil_tricks_count_for_partner: bool = True
    blind_nil: bool = False
    blind_nil_value: int = 200
    blind_nil_deficit: int = 100  # blind nil only for a side trailing by this much
    two_of_clubs_leads: bool = False
    spades_always_leadable: bool = False
    bag_limit: int | None = 10  # None: bags are never penalised
    bag_penalty: int = 100
    hand_limit: int = 100  # the game ends after this many hands, on the score as it stands

    def __post_init__(self) -> None:
        check_rules(self, SPADES_BOUNDS, NULLABLE["spades"])


@dataclass(frozen=True)
class SideScore:
    """How one partnership scored a hand, term by term, for the score sheet."""

    side: int
    contract: int  # sum of the partners' non-nil bids
    tricks: int  # tricks counted toward the contract
    made: bool | None  # None when the side bid no contract (both nil)
    contract_points: int  # +10 a bid trick when made, -10 a bid trick when set
    bags: int  # overtricks this hand, each worth 1
    nil_points: int  # nil and blind nil, won or lost
    bag_penalty: int  # 0 or a negative multiple of the penalty
    points: int  # the hand's total for the side
    score: int  # running score after the hand
    bags_total: int  # bags carried forward after any penalty

    def to_wire(self) -> dict[str, Any]:
        # Field by field, not ``__dict__``: compiled by mypyc, the class has none.
        return {"side": self.side, "contract": self.contract, "tricks": self.tricks,
                "made": self.made,
                "contract_points": self.contract_points, "bags": self.bags,
                "nil_points": self.nil_points, "bag_penalty": self.bag_penalty,
                "points": self.points, "score": self.score, "bags_total": self.bags_total}


@dataclass(frozen=True)
class SpadesHandResult:
    hand_no: int
    dealer: int
    bids: tuple[int, ...]
    blind: tuple[bool, ...]
    tricks_won: tuple[int, ...]
    sides: tuple[SideScore, SideScore]

    def to_wire(self) -> dict[str, Any]:
        return {
            "dealer": self.dealer,
            "bids": list(self.bids),
            "blind": list(self.blind),
            "tricks_won": list(self.tricks_won),
            "sides": [s.to_wire() for s in self.sides],
        }


def score_hand(rules: SpadesRules, hand_no: int, dealer: int, bids: Sequence[int],
               blind: Sequence[bool], tricks: Sequence[int], scores: Sequence[int],
               bags: Sequence[int]) -> SpadesHandResult:
    """Score one hand from bids and tricks, given each side's score and bags before it."""
    sides = []
    for side in (0, 1):
        seats = (side, side + 2)
        contract = sum(bids[s] for s in seats if bids[s] > 0)
        toward = sum(tricks[s] for s in seats if bids[s] > 0)
        if rules.nil_tricks_count_for_partner:
            toward += sum(tricks[s] for s in seats if bids[s] == 0)
        made: bool | None
        if contract == 0:
            made, contract_points, over = None, 0, toward
        elif toward >= contract:
            made, contract_points, over = True, 10 * contract, toward - contract
        else:
            made, contract_points, over = False, -10 * contract, 0
        nil_points = 0
        for s in seats:
            if bids[s] == 0:
                value = rules.blind_nil_value if blind[s] else rules.nil_value
                nil_points += value if tricks[s] == 0 else -value
        bags_total = bags[side] + over
        penalty = 0
        if rules.bag_limit is not None:
            while bags_total >= rules.bag_limit:
                bags_total -= rules.bag_limit
                penalty -= rules.bag_penalty
        points = contract_points + over + nil_points + penalty
        sides.append(SideScore(side, contract, toward, made, contract_points, over, nil_points,
                               penalty, points, scores[side] + points, bags_total))
    return SpadesHandResult(hand_no, dealer, tuple(bids), tuple(blind), tuple(tricks),
                            (sides[0], sides[1]))


def winning_side(rules: SpadesRules, scores: Sequence[int]) -> int | None:
    """The side that has won after a hand, or None to play another.

    The game ends when a side reaches the target or falls to ``-mercy``; the
    higher score wins, and equal scores play on.
    """
    s0, s1 = scores
    over = max(s0, s1) >= rules.target or (rules.mercy is not None and min(s0, s1) <= -rules.mercy)
    if not over or s0 == s1:
        return None
    return 0 if s0 > s1 else 1


@dataclass(frozen=True, kw_only=True)
class SpadesView(TrickView):
    bids: tuple[int | None, ...]
    blind: tuple[bool, ...]
    bags: tuple[int, ...]
    spades_broken: bool
    sees_hand: bool  # False while a seat that may bid blind nil has not looked

    def _extra_wire(self) -> dict[str, Any]:
        return {
            "bids": list(self.bids),
            "blind": list(self.blind),
            "bags": list(self.bags),
            "spades_broken": self.spades_broken,
            "sees_hand": self.sees_hand,
        }


class SpadesGame(TrickGame):
    """A whole game of Spades: ``apply`` actions until ``phase == "game_over"``.

    >>> g = SpadesGame(seed=7)
    >>> g.phase, len(g.legal_actions()) > 0
    ('bid', True)
    """

    kind = "spades"
    spades_trump = True
    rules_type = SpadesRules

    def __init__(self, rules: SpadesRules | None = None, seed: int = 0, *,
                 dealer: int | None = None, first_deal: Sequence[int] | None = None,
                 deals: Sequence[Sequence[int]] = ()) -> None:
        self.scores = [0, 0]
        self.bags = [0, 0]
        self.bids: list[int | None] = [None] * 4
        self.blind = [False] * 4
        self.seen = [True] * 4
        self.nil_stats = [NO_NILS] * 4
        self._breaks = SPADES_MASK
        self._first_trick_void_rule = False
        self._points_in_tricks = False
        self._scoring_mask = 0
        super().__init__(rules or SpadesRules(), seed, dealer=dealer, first_deal=first_deal,
                         deals=deals)

    @property
    def winner(self) -> int | None:
        """The winning side (0: seats 0 and 2; 1: seats 1 and 3) once the game is over."""
        return self.winners[0] % 2 if self.winners else None

    # -- bidding -------------------------------------------------------------------

    def _start_hand(self, hands: Sequence[int] | None) -> list[Event]:
        started = self._reset_hand(hands)
        self.bids = [None] * 4
        self.blind = [False] * 4
        self.phase = "bid"
        self.to_act = (self.dealer + 1) % 4
        events: list[Event] = [started]
        for seat in range(4):
            self.seen[seat] = not self._may_bid_blind(seat)
            if self.seen[seat]:
                events.append(Dealt(seat, self.hands[seat]))
        return events

    def _may_bid_blind(self, seat: int) -> bool:
        rules: SpadesRules = self.rules
        side = seat % 2
        return (rules.blind_nil
                and self.scores[1 - side] - self.scores[side] >= rules.blind_nil_deficit)

    def _bid_range(self, seat: int) -> tuple[int, int, bool]:
        """(lowest, highest) non-nil bid for ``seat`` and whether nil is allowed."""
        partner = self.bids[(seat + 2) % 4]
        hi, lo, nil_ok = 13, 1, True
        if partner is not None:
            if self.rules.team_bid_cap_13:
                hi = 13 - partner
            need = self.rules.min_team_bid
            if need:
                lo = max(1, need - partner)
                nil_ok = partner >= need
        return lo, hi, nil_ok

    def _other_legal(self, seat: int) -> Sequence[Action]:
        if self.phase != "bid" or seat != self.to_act:
            return ()
        lo, hi, nil_ok = self._bid_range(seat)
        if not self.seen[seat]:
            return (BLIND_NIL, LOOK) if nil_ok else (LOOK,)
        return ((BIDS[0],) if nil_ok else ()) + BIDS[lo:hi + 1]

    def _apply_other(self, seat: int, action: Action) -> list[Event]:
        if not isinstance(action, (Bid, Look)):
            raise IllegalAction(Msg("{action} is not an action in Spades", action=action))
        if self.phase != "bid":
            raise IllegalAction(Msg("bids are made in the bid phase; the game is in {phase!r}",
                                    phase=self.phase),
                                "wrong_phase")
        if seat != self.to_act:
            raise self._not_your_turn(seat)
        if isinstance(action, Look):
            if self.seen[seat]:
                raise IllegalAction(Msg("you have already seen your cards"))
            self.seen[seat] = True
            return [Looked(seat), Dealt(seat, self.hands[seat])]
        self._check_bid(seat, action)
        events: list[Event] = [BidMade(seat, action.value, action.blind)]
        self.bids[seat] = action.value
        self.blind[seat] = action.blind
        if not self.seen[seat]:
            self.seen[seat] = True
            events.append(Dealt(seat, self.hands[seat]))
        if all(b is not None for b in self.bids):
            self._begin_play(self._first_leader())
        else:
            self.to_act = (seat + 1) % 4
        return events

    def _check_bid(self, seat: int, bid: Bid) -> None:
        if bid.blind:
            if not self.rules.blind_nil:
                raise IllegalAction(Msg("blind nil is not allowed in this room"))
            if not self._may_bid_blind(seat):
                raise IllegalAction(
                    Msg("blind nil is allowed only to a side trailing by {blind_nil_deficit} "
                        "or more", blind_nil_deficit=self.rules.blind_nil_deficit))
            if self.seen[seat]:
                raise IllegalAction(Msg("blind nil must be bid before looking at your cards"))
            if not self._bid_range(seat)[2]:  # a nil, blind or not, leaves the team short
                raise IllegalAction(
                    Msg("minimum team bid is {min_team_bid}: your partner bid {partner}, so "
                        "you may not bid blind nil", min_team_bid=self.rules.min_team_bid,
                        partner=self.bids[(seat + 2) % 4]))
            return
        if not self.seen[seat]:
            raise IllegalAction(Msg("look at your cards (or bid blind nil) before bidding"))
        if not 0 <= bid.value <= 13:
            raise IllegalAction(Msg("bid {value} is out of range: bids are 0 (nil) to 13",
                                    value=bid.value))
        lo, hi, nil_ok = self._bid_range(seat)
        partner = self.bids[(seat + 2) % 4]
        if bid.value == 0:
            if not nil_ok:
                raise IllegalAction(
                    Msg("minimum team bid is {min_team_bid}: your partner bid {partner}, so "
                        "you may not bid nil", min_team_bid=self.rules.min_team_bid,
                        partner=partner))
            return
        if bid.value > hi:
            raise IllegalAction(
                Msg("team bid cap: partners' bids may not exceed 13 (partner bid {partner}, so "
                    "at most {hi})", partner=partner, hi=hi))
        if bid.value < lo:
            raise IllegalAction(
                Msg("minimum team bid is {min_team_bid}: partner bid {partner}, so bid at "
                    "least {lo}", min_team_bid=self.rules.min_team_bid, partner=partner, lo=lo))

    # -- play --------------------------------------------------------------------------

    def _first_leader(self) -> int:
        if self.rules.two_of_clubs_leads:
            for seat in range(4):
                if self.hands[seat] & 1:
                    return seat
        return (self.dealer + 1) % 4

    def _lead_mask(self, seat: int) -> int:
        hand = self.hands[seat]
        if not self.tricks:
            if self.rules.two_of_clubs_leads:
                return 1  # the 2 of clubs, which the leader holds
            return (hand & ~SPADES_MASK) or hand
        if self.broken or self.rules.spades_always_leadable:
            return hand
        return (hand & ~SPADES_MASK) or hand

    def _explain_lead(self, seat: int, card: int) -> str:
        if not self.tricks and self.rules.two_of_clubs_leads:
            return Msg("the first trick is led with the 2 of clubs")
        if not self.tricks:
            return Msg("the first lead may not be a spade unless you hold only spades")
        return Msg("spades are not broken: you may not lead a spade while you hold another suit")

    def _lead_reason(self, card: int) -> str:
        if not self.tricks:
            return TWO_OF_CLUBS_LEADS if self.rules.two_of_clubs_leads else NO_SPADE_FIRST
        return SPADES_NOT_BROKEN

    # -- scoring -------------------------------------------------------------------------

    def _end_hand(self) -> list[Event]:
        bids = [b if b is not None else 0 for b in self.bids]
        result = score_hand(self.rules, self.hand_no, self.dealer, bids, self.blind,
                            self.tricks_won, self.scores, self.bags)
        self.hand_results.append(result)
        for sc in result.sides:
            self.scores[sc.side] = sc.score
            self.bags[sc.side] = sc.bags_total
        self._count_nils(bids)
        events: list[Event] = [HandScored(self.hand_no, result, tuple(self.scores))]
        won = winning_side(self.rules, self.scores)
        last = len(self.hand_results) >= self.rules.hand_limit
        if won is None and last and self.scores[0] != self.scores[1]:
            won = 0 if self.scores[0] > self.scores[1] else 1
        if won is not None or last:  # at the hand limit, equal scores are a draw
            self.winners = (won, won + 2) if won is not None else ()
            self.phase = "game_over"
            events.append(GameOver(tuple(self.scores), self.winners))
        else:
            self.phase = "hand_over"
        return events

    def _count_nils(self, bids: Sequence[int]) -> None:
        for seat in range(4):
            if bids[seat] != 0:
                continue
            made = self.tricks_won[seat] == 0
            stats = self.nil_stats[seat]
            self.nil_stats[seat] = stats.add_bid(made, self.blind[seat])
            for opp in ((seat + 1) % 4, (seat + 3) % 4):
                self.nil_stats[opp] = self.nil_stats[opp].add_faced(not made)

    # -- views and results ------------------------------------------------------------

    def view(self, seat: int | None) -> SpadesView:
        """What ``seat`` may see; ``None`` is a spectator."""
        sees = seat is not None and self.seen[seat]
        return SpadesView(
            **self._view_common(seat),
            hand=self.hands[seat] if sees and seat is not None else 0,
            scores=tuple(self.scores),
            bids=tuple(self.bids),
            blind=tuple(self.blind),
            bags=tuple(self.bags),
            spades_broken=self.broken,
            sees_hand=sees,
        )

    def result(self) -> Outcome:
        """Final (or so-far) scores, winners, nil statistics and progress, for ratings."""
        lead = max(self.scores)
        return Outcome(
            game=self.kind,
            finished=self.phase == "game_over",
            scores=tuple(self.scores),
            seat_scores=tuple(self.scores[s % 2] for s in range(4)),
            winners=self.winners,
            hands_played=len(self.hand_results),
            target=self.rules.target,
            progress=min(1.0, max(0.0, lead / self.rules.target)),
            nil=tuple(self.nil_stats),
        )


# Why a lead is refused, each text made once: every prompt of a play turn carries one
# for each card of the hand it refuses (issue 40).
TWO_OF_CLUBS_LEADS = Msg("The 2 of clubs leads the first trick.")
NO_SPADE_FIRST = Msg("The first lead may not be a spade.")
SPADES_NOT_BROKEN = Msg("Spades are not broken yet: lead another suit.")
