"""What Spades and Hearts share: four seats, 13 tricks a hand, follow suit.

Theory of operation
-------------------
A game is a value: ``apply`` checks an action against the rules and, only if
it is legal, changes the state and returns the events it caused. Nothing here
touches a clock, a socket or the global RNG; dealing draws from the game's own
``random.Random(seed)``, so ``(rules, seed, actions)`` rebuilds every state
(:meth:`TrickGame.record` and :meth:`TrickGame.replay`).

Phases move through this table; every transition is made by one method::

    phase       action / call          next phase
    ---------   --------------------   ---------------------------------------
    bid         Bid, Look  (Spades)    bid, or play after the fourth bid
    pass        Pass       (Hearts)    pass, or play once all four have passed
    play        Play                   play; after trick 13: hand_over, game_over
                                       or moon (Hearts, shooter chooses)
    moon        MoonChoice (Hearts)    hand_over or game_over
    hand_over   next_hand()            bid (Spades) / pass or play (Hearts)
    game_over   (none)

The play phase is the hot path (52 of the ~60 actions of a hand), so it is
kept here once for both games and made cheap: hands are 52-bit masks, the
legal cards of the seat to act are one mask computed when the turn passes,
actions are interned, and the trick's winner is kept as cards fall instead of
being searched for at the end.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any, ClassVar, Self

from trickroom.game.actions import PLAYS, Action, IllegalAction, Play, action_from_wire
from trickroom.game.cards import (
    CARD_TEXT,
    SEAT_NAMES,
    SPADES,
    SUIT_NAMES,
    cards_of,
    deal,
    hands_from_texts,
    parse_card,
    texts_of,
)
from trickroom.game.events import Event, HandStarted, Played, TrickWon
from trickroom.game.variants import recorded_rules
from trickroom.i18n import Msg


def _suit_play_tables() -> tuple[tuple[tuple[Play, ...], ...], ...]:
    """For each suit, the interned Play actions of every 13-bit subset of it.

    Built once at import (4 x 8192 tuples), so turning a legal mask into the
    legal-action list costs a lookup per suit instead of a loop over bits.
    """
    tables = []
    for suit in range(4):
        table: list[tuple[Play, ...]] = [()] * 8192
        for m in range(1, 8192):
            top = m.bit_length() - 1
            table[m] = table[m ^ (1 << top)] + (PLAYS[suit * 13 + top],)
        tables.append(tuple(table))
    return tuple(tables)


_SUIT_PLAYS = _suit_play_tables()
_C, _D, _H, _S = _SUIT_PLAYS


def plays_of(mask: int) -> tuple[Play, ...]:
    """The interned Play actions for the cards of ``mask``, clubs first, low to high."""
    return (
        _C[mask & 0x1FFF]
        + _D[(mask >> 13) & 0x1FFF]
        + _H[(mask >> 26) & 0x1FFF]
        + _S[(mask >> 39) & 0x1FFF]
    )


def rules_wire(rules: Any) -> dict[str, Any]:
    """A rules dataclass as a dict: a fresh copy of one made once per rules value (every
    prompt carries the rules, and ``asdict`` deep-copies field by field)."""
    return dict(_rules_dict(rules))


@lru_cache(maxsize=256)
def _rules_dict(rules: Any) -> dict[str, Any]:
    return asdict(rules)


def trick_wire(trick: TrickWon) -> dict[str, Any]:
    """A won trick as a view carries it: its event's wire form without the event's type."""
    return {k: v for k, v in trick.to_wire().items() if k != "type"}


@dataclass(frozen=True, kw_only=True)
class TrickView:
    """What one seat (or a spectator, ``seat=None``) may see of a trick game.

    ``hand`` is the seat's own cards (a mask; 0 for a spectator or a seat that
    has not looked yet). Other seats' cards appear only as counts. ``legal`` is
    filled only for the seat whose turn it is.
    """

    game: str
    seat: int | None
    phase: str
    rules: Any
    hand_no: int
    dealer: int
    to_act: int | None
    awaiting: tuple[int, ...]
    hand: int
    hand_sizes: tuple[int, ...]
    leader: int | None
    trick: tuple[tuple[int, int], ...]  # (seat, card) in play order
    tricks: tuple[TrickWon, ...]  # completed tricks of this hand
    tricks_won: tuple[int, ...]
    scores: tuple[int, ...]
    hand_results: tuple[Any, ...]
    # Immutable: a tuple, or in the pass a lazy sequence of its hundreds of passes.
    legal: Sequence[Action] = field(default=())
    # The seat's cards it may not play now, each with why (the seat to act, play phase only).
    illegal: tuple[tuple[int, str], ...] = field(default=())
    # ``hand_results`` in their wire form, as the game keeps them (each made once); empty
    # in a view made otherwise, whose ``to_wire`` makes them.
    hand_results_wire: tuple[dict[str, Any], ...] = field(default=(), compare=False)
    # ``tricks`` in their wire form, as the game keeps them this hand (each made once when
    # its trick is won); empty in a view made otherwise, whose ``to_wire`` makes them.
    tricks_wire: tuple[dict[str, Any], ...] = field(default=(), compare=False)

    @property
    def played(self) -> int:
        """Mask of every card played this hand, the current trick included."""
        mask = 0
        for t in self.tricks:
            for c in t.cards:
                mask |= 1 << c
        for _, c in self.trick:
            mask |= 1 << c
        return mask

    @property
    def led_suit(self) -> int | None:
        return self.trick[0][1] // 13 if self.trick else None

    def to_wire(self) -> dict[str, Any]:
        """The JSON form sent to a client: cards as text, rules as a dict."""
        return {
            "game": self.game,
            "seat": self.seat,
            "phase": self.phase,
            "rules": rules_wire(self.rules),
            "hand_no": self.hand_no,
            "dealer": self.dealer,
            "to_act": self.to_act,
            "awaiting": list(self.awaiting),
            "hand": texts_of(self.hand),
            "hand_sizes": list(self.hand_sizes),
            "leader": self.leader,
            "trick": [{"seat": s, "card": CARD_TEXT[c]} for s, c in self.trick],
            "tricks": list(self.tricks_wire) if len(self.tricks_wire) == len(self.tricks)
            else [trick_wire(t) for t in self.tricks],
            "tricks_won": list(self.tricks_won),
            "scores": list(self.scores),
            "hand_results": list(self.hand_results_wire)
            if len(self.hand_results_wire) == len(self.hand_results)
            else [r.to_wire() for r in self.hand_results],
            # A pass has hundreds of legal choices: the rules' pass_count says how many to pick.
            "legal": [] if self.phase == "pass" else [a.to_wire() for a in self.legal],
            "illegal": [{"card": CARD_TEXT[c], "reason": r} for c, r in self.illegal],
            **self._extra_wire(),
        }

    def _extra_wire(self) -> dict[str, Any]:
        return {}


class TrickGame:
    """Base of :class:`~game.spades.SpadesGame` and :class:`~game.hearts.HeartsGame`.

    The same source is compiled by mypyc (:mod:`trickroom.compiled`), whose native classes
    take an attribute's default from the class that declares it and let no subclass narrow
    an attribute's type: so the attributes a game's rules decide are set by each game's
    ``__init__`` before this one's, never as class attributes a subclass overrides, and
    ``rules`` is each game's own rules dataclass, typed ``Any`` here (a ``Generic`` base
    crashed the compiled core's garbage collection)."""

    kind: ClassVar[str]
    spades_trump: ClassVar[bool]
    rules_type: ClassVar[type]
    rules: Any
    # Cards whose play breaks the suit that may not be led until broken.
    _breaks: int
    # Whether a seat void in the led suit is restricted on the first trick (Hearts).
    _first_trick_void_rule: bool
    # Whether tricks carry points (Hearts) that TrickWon should report.
    _points_in_tricks: bool
    _scoring_mask: int  # the cards that score when taken (Hearts)

    def __init__(self, rules: Any, seed: int = 0, *, dealer: int | None = None,
                 first_deal: Sequence[int] | None = None,
                 deals: Sequence[Sequence[int]] = ()) -> None:
        self.rules = rules
        self.seed = seed
        self._rng_instance: random.Random | None = None
        self.first_dealer = self._rng_draw_dealer() if dealer is None else dealer
        # Hands dealt as given (a sandbox's deal list): hand k is ``deals[k]`` while the
        # list lasts, and is dealt from the seed after it.
        self.deals = tuple(tuple(d) for d in deals)
        if first_deal is None and self.deals:
            first_deal = self.deals[0]
        self.first_deal = tuple(first_deal) if first_deal is not None else None
        self.dealer = self.first_dealer
        self.phase = "hand_over"
        self.hand_no = -1
        self.to_act: int | None = None
        self.hands = [0, 0, 0, 0]
        self.dealt: tuple[int, ...] = (0, 0, 0, 0)  # as dealt (Hearts: after the pass)
        self.taken = [0, 0, 0, 0]  # cards won in tricks this hand, per seat
        self.tricks_won = [0, 0, 0, 0]
        self.tricks: list[TrickWon] = []
        self.trick: list[int] = []
        self.leader = 0
        self.led = 0
        self._win_card = 0
        self._win_seat = 0
        self._legal = 0
        self._led_mask = 0
        self.broken = False
        self._void_rule = False
        self.actions: list[tuple[int, Action]] = []
        self.hand_results: list[Any] = []
        self._results_wire: tuple[dict[str, Any], ...] = ()
        self._tricks_wire: tuple[dict[str, Any], ...] = ()
        self.winners: tuple[int, ...] = ()
        self._opening_events = self._start_hand(first_deal)

    @property
    def _rng(self) -> random.Random:
        """The game's own RNG, made on first use (a one-hand game from a deal never needs it)."""
        if self._rng_instance is None:
            self._rng_instance = random.Random(self.seed)
            self._rng_instance.randrange(4)  # the first dealer's draw, made whether used or not
        return self._rng_instance

    def _rng_draw_dealer(self) -> int:
        self._rng_instance = random.Random(self.seed)
        return self._rng_instance.randrange(4)

    # -- construction and records -------------------------------------------------

    @classmethod
    def from_hands(cls, hands: Sequence[Sequence[str]], dealer: int = 0,
                   rules: Any = None, seed: int = 0) -> Self:
        """A game whose first hand is the explicit deal ``hands`` (4 lists of 13 cards).

        Later hands, if the game goes on, are dealt from ``seed``.
        """
        masks = hands_from_texts(hands)
        return cls(rules if rules is not None else cls.rules_type(), seed,
                   dealer=dealer, first_deal=masks)

    def opening_events(self) -> list[Event]:
        """The events of the first deal (made in the constructor, before any apply)."""
        return list(self._opening_events)

    def record(self) -> dict[str, Any]:
        """Everything needed to rebuild this game: rules, seed, the deal source and actions."""
        return {
            "game": self.kind,
            "rules": rules_wire(self.rules),
            "seed": self.seed,
            "dealer": self.first_dealer,
            "deal": [texts_of(m) for m in self.first_deal] if self.first_deal else None,
            **({"deals": [[texts_of(m) for m in d] for d in self.deals]}
               if len(self.deals) > 1 else {}),
            "actions": [{"seat": s, **a.to_wire()} for s, a in self.actions],
        }

    @classmethod
    def replay(cls, record: Mapping[str, Any]) -> Self:
        """Rebuild a game from :meth:`record`; raises if an action does not apply. Its rules
        are the record's as they were (:func:`~trickroom.game.variants.recorded_rules`)."""
        rules = recorded_rules(cls.rules_type, _tuples(record.get("rules", {})))
        deal_texts = record.get("deal")
        masks = hands_from_texts(deal_texts) if deal_texts else None
        deals = [hands_from_texts(d) for d in record.get("deals") or ()]
        game = cls(rules, record.get("seed", 0), dealer=record["dealer"], first_deal=masks,
                   deals=deals)
        for item in record.get("actions", []):
            if game.phase == "hand_over":
                game.next_hand()
            game.apply(action_from_wire(item), item["seat"])
        return game

    # -- the engine contract ---------------------------------------------------------

    def legal_actions(self, seat: int | None = None) -> Sequence[Action]:
        """Every legal action for ``seat`` (default: the seat to act)."""
        if self.phase == "play":
            if seat is not None and seat != self.to_act:
                return ()
            legal = self._legal
            if self.trick and legal & self._led_mask == legal:  # following: one suit
                return _SUIT_PLAYS[self.led][legal >> (13 * self.led)]
            return plays_of(legal)
        if seat is None:
            seat = self.to_act
        if seat is None:
            return ()
        return self._other_legal(seat)

    def apply(self, action: Action, seat: int | None = None) -> list[Event]:
        """Apply ``action`` for ``seat`` (default: the seat to act) and return its events.

        Raises :class:`IllegalAction` naming the broken rule; the game is then
        exactly as it was.
        """
        if type(action) is Play and self.phase == "play":
            # The hot path, inlined: one card played and the turn passed on.
            if seat is None:
                seat = self.to_act
            elif seat != self.to_act:
                raise self._not_your_turn(seat)
            assert seat is not None
            card = action.card
            bit = 1 << card
            if not self._legal & bit:
                raise IllegalAction(self._explain_illegal_play(seat, card))
            self.actions.append((seat, action))
            self.hands[seat] ^= bit
            trick = self.trick
            trick.append(card)
            if self._breaks & bit:
                self.broken = True
            n = len(trick)
            if n == 1:
                self.led = led = card // 13
                self._led_mask = 0x1FFF << (13 * led)
                self._win_card = card
                self._win_seat = seat
            else:
                win = self._win_card
                if card // 13 == win // 13:
                    if card > win:
                        self._win_card = card
                        self._win_seat = seat
                elif card >= 39 and self.spades_trump:
                    self._win_card = card
                    self._win_seat = seat
                if n == 4:
                    return [PLAYED[seat][card], *self._end_trick()]
            nxt = (seat + 1) & 3
            self.to_act = nxt
            hand = self.hands[nxt]
            follow = hand & self._led_mask
            if follow:
                self._legal = follow
            elif self._void_rule:
                self._legal = self._void_mask(hand)
            else:
                self._legal = hand
            return [PLAYED[seat][card]]
        if seat is None:
            seat = self.to_act
            if seat is None:
                raise IllegalAction(Msg("no one may act in phase {phase!r}", phase=self.phase),
                                    "wrong_phase")
        if type(action) is Play:
            raise IllegalAction(
                Msg("cards are played in the play phase; the game is in {phase!r}",
                    phase=self.phase),
                "wrong_phase")
        events = self._apply_other(seat, action)
        self.actions.append((seat, action))
        return events

    def next_hand(self) -> list[Event]:
        """Deal the next hand after ``hand_over``; the server calls it when it is ready."""
        if self.phase != "hand_over":
            raise IllegalAction(Msg("the next hand is dealt after a hand, not in {phase!r}",
                                    phase=self.phase),
                                "wrong_phase")
        self.dealer = (self.dealer + 1) % 4
        upcoming = self.hand_no + 1
        return self._start_hand(self.deals[upcoming] if upcoming < len(self.deals) else None)

    @property
    def awaiting(self) -> tuple[int, ...]:
        """Seats that may act now (several only while Hearts players choose passes)."""
        return () if self.to_act is None else (self.to_act,)

    @property
    def played(self) -> int:
        """Mask of the cards played so far this hand."""
        mask = 0
        for t in self.taken:
            mask |= t
        for c in self.trick:
            mask |= 1 << c
        return mask

    # -- play ------------------------------------------------------------------------

    def _end_trick(self) -> list[Event]:
        winner = self._win_seat
        cards = tuple(self.trick)
        mask = (1 << cards[0]) | (1 << cards[1]) | (1 << cards[2]) | (1 << cards[3])
        self.taken[winner] |= mask
        self.tricks_won[winner] += 1
        # The trick's scoring cards, in the order played, and its points (which only
        # scoring cards carry): none in most tricks (every Spades trick), so the mask is
        # read once and the cards counted only when it says.
        scoring = mask & self._scoring_mask
        won = TrickWon(winner, len(self.tricks), cards, self.leader,
                       self._trick_points(mask) if scoring and self._points_in_tricks else 0,
                       tuple(c for c in cards if (1 << c) & scoring) if scoring else ())
        self.tricks.append(won)
        self.trick = []
        if len(self.tricks) == 13:
            self.to_act = None
            self._legal = 0
            return [won, *self._end_hand()]
        self.leader = winner
        self.to_act = winner
        self._void_rule = False
        self._legal = self._lead_mask(winner)
        return [won]

    def _reset_hand(self, hands: Sequence[int] | None) -> HandStarted:
        """Common part of a new hand: deal (or take the given deal) and clear the tricks."""
        self.hand_no += 1
        self.hands = list(hands) if hands is not None else deal(self._rng)
        self.dealt = tuple(self.hands)
        self.taken = [0, 0, 0, 0]
        self.tricks_won = [0, 0, 0, 0]
        self.tricks = []
        self._tricks_wire = ()
        self.trick = []
        self.broken = False
        self._legal = 0
        return HandStarted(self.hand_no, self.dealer, self._pass_direction())

    def _begin_play(self, leader: int) -> None:
        self.phase = "play"
        self.leader = leader
        self.to_act = leader
        self._void_rule = self._first_trick_void_rule
        self._legal = self._lead_mask(leader)

    def _not_your_turn(self, seat: int) -> IllegalAction:
        if self.to_act is None:
            return IllegalAction(Msg("no one may act in phase {phase!r}", phase=self.phase),
                                 "wrong_phase")
        return IllegalAction(
            Msg("not your turn: {name} (seat {to_act}) is to act, not {seat}",
                name=SEAT_NAMES[self.to_act], to_act=self.to_act, seat=_seat_name(seat)),
            "not_your_turn",
        )

    def _explain_illegal_play(self, seat: int, card: int) -> str:
        """Why ``card`` is not legal for ``seat``: the rule, in the words players use."""
        text = CARD_TEXT[card] if 0 <= card < 52 else repr(card)
        if not self.hands[seat] >> card & 1:
            return Msg("you do not hold {card}", card=text)
        if self.trick:
            led = SUIT_NAMES[self.led]
            if card // 13 != self.led:
                return Msg("must follow suit: {suit} were led and you hold {suit}", suit=led)
        return self._explain_lead(seat, card)

    # -- why a card may not be played, for players ---------------------------------------

    def why_illegal(self, seat: int, card: int) -> str | None:
        """Why ``seat`` may not play ``card`` now, as a sentence a player reads (capital
        first, full stop last), or ``None`` when the play is legal.

        The error an illegal play raises names the rule for a log; this says it to the
        player whose card is refused, in the words of the table: "Follow suit: clubs were
        led." It reads the same legal mask :meth:`apply` checks, so the two never disagree.
        """
        if not 0 <= card < 52:
            return Msg("There is no such card.")
        if self.phase != "play":
            return Msg("Cards are played in the play phase.")
        if seat != self.to_act:
            return Msg("It is not your turn.")
        if not self.hands[seat] >> card & 1:
            return Msg("You do not hold {card}.", card=CARD_TEXT[card])
        if self._legal >> card & 1:
            return None
        return self._reason(seat, card)

    def illegal_plays(self, seat: int) -> tuple[tuple[int, str], ...]:
        """Each card of ``seat``'s hand it may not play now, lowest first, with why.

        Empty unless ``seat`` is to play: the prompt of a play turn carries it, so a client
        can say why a card is refused without a rules engine of its own.
        """
        if self.phase != "play" or seat != self.to_act:
            return ()
        bad = self.hands[seat] & ~self._legal
        if not bad:
            return ()
        reason = self._reason
        return tuple((c, reason(seat, c)) for c in cards_of(bad))

    def _reason(self, seat: int, card: int) -> str:
        """Why a card of the hand of the seat to play is not legal (it is not)."""
        if self.trick:
            if self.hands[seat] & self._led_mask:
                return FOLLOW_SUIT[self.led]
            return self._void_reason(card)
        return self._lead_reason(card)

    def hand_results_wire(self) -> tuple[dict[str, Any], ...]:
        """The hand results in their wire form, each made once, when its hand ends: every
        prompt carries all of them, and in a long game they are most of its view (at the
        tenth hand 9 of a view's 13 µs of ``to_wire``; issue 40). ``hand_results`` only
        grows, so the ones made are good while there are as many as results."""
        made = self._results_wire
        results = self.hand_results
        if len(made) != len(results):
            if len(made) > len(results):
                made = ()
            made = self._results_wire = made + tuple(r.to_wire()
                                                     for r in results[len(made):])
        return made

    def tricks_wire(self) -> tuple[dict[str, Any], ...]:
        """This hand's won tricks in their wire form, each made once: every prompt carries
        them, and at the last trick of a hand they were two thirds of a view's ``to_wire``
        (issue 40). ``tricks`` only grows within a hand and is emptied by a new one, which
        empties these too."""
        made = self._tricks_wire
        tricks = self.tricks
        if len(made) != len(tricks):
            if len(made) > len(tricks):
                made = ()
            made = self._tricks_wire = made + tuple(trick_wire(t)
                                                    for t in tricks[len(made):])
        return made

    def _view_common(self, seat: int | None) -> dict[str, Any]:
        """The fields of :class:`TrickView` every game fills the same way."""
        leader = self.leader if self.phase == "play" or self.trick else None
        return {
            "game": self.kind,
            "seat": seat,
            "phase": self.phase,
            "rules": self.rules,
            "hand_no": self.hand_no,
            "dealer": self.dealer,
            "to_act": self.to_act,
            "awaiting": self.awaiting,
            "hand_sizes": tuple(h.bit_count() for h in self.hands),
            "leader": leader,
            "trick": tuple(((self.leader + i) & 3, c) for i, c in enumerate(self.trick)),
            "tricks": tuple(self.tricks),
            "tricks_wire": self.tricks_wire(),
            "tricks_won": tuple(self.tricks_won),
            "hand_results": tuple(self.hand_results),
            "hand_results_wire": self.hand_results_wire(),
            "legal": self.legal_actions(seat) if seat is not None
            and seat in self.awaiting else (),
            "illegal": self.illegal_plays(seat) if seat is not None else (),
        }

    # -- hooks each game fills in ------------------------------------------------------

    def _start_hand(self, hands: Sequence[int] | None) -> list[Event]:
        raise NotImplementedError

    def _lead_mask(self, seat: int) -> int:
        """The cards ``seat`` may lead."""
        raise NotImplementedError

    def _void_mask(self, hand: int) -> int:
        """The cards a seat void in the led suit may play while ``_void_rule`` holds."""
        return hand

    def _trick_points(self, mask: int) -> int:
        return 0

    def _end_hand(self) -> list[Event]:
        raise NotImplementedError

    def _explain_lead(self, seat: int, card: int) -> str:
        raise NotImplementedError

    def _lead_reason(self, card: int) -> str:
        """Why the seat to lead may not lead ``card`` (a sentence for the player)."""
        raise NotImplementedError

    def _void_reason(self, card: int) -> str:
        """Why a seat void in the led suit may not discard ``card`` (``_void_rule``)."""
        return Msg("{card} may not be played now.", card=CARD_TEXT[card])

    def _other_legal(self, seat: int) -> Sequence[Action]:
        return ()

    def _apply_other(self, seat: int, action: Action) -> list[Event]:
        raise IllegalAction(Msg("{action} is not an action in {kind}", action=action,
                                kind=self.kind))

    def _pass_direction(self) -> str | None:
        return None


def why_illegal(game: TrickGame, seat: int, card: int | str) -> str | None:
    """Why ``seat`` may not play ``card`` (an int or its text, ``"QS"``) in ``game`` now, as
    a sentence for the player; ``None`` when it may. Pure: the game is not changed."""
    return game.why_illegal(seat, parse_card(card) if isinstance(card, str) else card)


FOLLOW_SUIT = tuple(Msg("Follow suit: {suit} were led.", suit=name) for name in SUIT_NAMES)
"""The reason a card off the led suit is refused, by led suit."""

PLAYED = tuple(tuple(Played(s, c) for c in range(52)) for s in range(4))
"""Interned ``played`` events: every (seat, card) pair, built once."""

SPADES_MASK = ((1 << 13) - 1) << (13 * SPADES)


def _seat_name(seat: int) -> str:
    if 0 <= seat < 4:
        return Msg("{name} (seat {seat})", name=SEAT_NAMES[seat], seat=seat)
    return Msg("seat {seat}", seat=seat)


def _tuples(rules: Mapping[str, Any]) -> dict[str, Any]:
    """Rules read back from JSON: lists become the tuples the frozen dataclasses hold."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in rules.items()}
