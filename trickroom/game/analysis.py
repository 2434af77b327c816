"""Analysis of a finished game: what each decision of a seat was worth, as the search robot
estimates it from what that seat could know (issue 38), and with every card seen.

For each decision (a card, a Spades bid, a Hearts pass) the candidates are scored on the
same deals, sampled consistently with the seat's view (:mod:`game.robots.sampling`): each
candidate is played and the rest of the hand played out by the rules of thumb for all
four seats, and its value is the hand's points for the seat's side (Spades: its side's
points minus the other side's, a bag at its long-run cost; Hearts: the others' average
minus its own), as :func:`~game.robots.playout.hand_value` counts them. The best
candidate (shown as ``best``) has the highest mean over all the deals. The loss of the
choice made is cross-fitted: the best is picked on one half of the deals and the loss
(the picked candidate's value less the chosen one's, deal by deal: most of the luck
cancels) measured on the other half, then the other way, and the two averaged, with the
standard error of that average. Picked and measured on the same deals, the best of
several noisy means is too good by its noise (the winner's curse): a choice as good as
any would seem to lose points, the more the more candidates it had. The estimate
(``estimate``) can be below 0; the ``loss`` shown is never below 0.

Labels, by the loss in points of the hand, are given only to a loss beyond twice its
standard error (a choice within the error of the best is never called a mistake):

* Spades: inaccuracy from 10 points, mistake from 25, blunder from 60;
* Hearts: inaccuracy from 1.5 points, mistake from 4, blunder from 8.

A decision's accuracy falls from 100 (the best choice) as its loss grows, as Lichess's
does: ``100 * exp(-loss / scale)``, the scale the game's "mistake" (25 points in Spades,
4 in Hearts), so a mistake scores about 37 and a blunder near 0, whatever the worst
candidate was; a seat's accuracy is the mean over its decisions that had a choice.

The all-seeing view ("with the cards known") plays each candidate out once on the true
deal: no real seat knows it, so its loss is shown apart and labels nothing.

A blind nil is weighed against looking (and then bidding as the rules of thumb would) on
wholly sampled deals, as the bid search weighs it: the seat has seen none of its cards, so
its own hand is drawn too; a look when blind nil was not to be had is no choice.

Not analysed (said so): the moon choice, and decisions with one candidate (a single legal
card, or cards that play the same, or a look with no blind nil to be had).

The module is pure: a seed and a sample count fix every figure; a caller that wants to
show progress passes ``progress(done, total)``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trickroom.game.actions import BLIND_NIL, LOOK, Bid, Look, Pass, Play, action_from_wire
from trickroom.game.cards import card_text
from trickroom.game.engine import ENGINES
from trickroom.game.robots import hearts_heuristic, spades_heuristic
from trickroom.game.robots.bidding import _later_seats, _played, blind_or_look, whole_deal
from trickroom.game.robots.heuristic import legal_mask
from trickroom.game.robots.passing import candidate_passes
from trickroom.game.robots.playout import bid_weight, hand_value, play_out
from trickroom.game.robots.position import Position
from trickroom.game.robots.sampling import PASS_OFFSETS, DealSampler, known_cards
from trickroom.game.robots.search import _same_group, candidates
from trickroom.game.trickgame import TrickView

DEFAULT_SAMPLES = 64
"""Deals sampled per decision at the default strength (every candidate on each)."""

THRESHOLDS = {"spades": (10.0, 25.0, 60.0), "hearts": (1.5, 4.0, 8.0)}
LABELS = ("inaccuracy", "mistake", "blunder")


@dataclass(frozen=True, slots=True)
class Option:
    """A candidate: its action (as sent on the wire), its estimated points and their
    standard error."""

    action: dict[str, Any]
    value: float
    se: float


@dataclass(frozen=True, slots=True)
class Decision:
    """One analysed decision: the ``index``-th action of the game, by ``seat``."""

    index: int
    seat: int
    hand: int
    phase: str
    chosen: dict[str, Any]
    best: dict[str, Any]
    loss: float
    loss_se: float
    label: str | None
    accuracy: float
    options: tuple[Option, ...]
    seeing_best: dict[str, Any] | None = None
    seeing_loss: float | None = None
    best_line: tuple[str, ...] = ()  # a card's: the trick played on from the best card
    estimate: float = 0.0  # the loss as estimated, below 0 too (``loss`` is at least 0)

    def to_wire(self) -> dict[str, Any]:
        return {"index": self.index, "seat": self.seat, "hand": self.hand,
                "phase": self.phase, "chosen": self.chosen, "best": self.best,
                "loss": round(self.loss, 2), "loss_se": round(self.loss_se, 2),
                "label": self.label, "accuracy": round(self.accuracy, 1),
                "options": [{"action": o.action, "value": round(o.value, 2),
                             "se": round(o.se, 2)} for o in self.options],
                "seeing_best": self.seeing_best,
                "seeing_loss": None if self.seeing_loss is None else round(self.seeing_loss, 2),
                "best_line": list(self.best_line)}


@dataclass
class Analysis:
    """A game's analysis: its decisions, and per seat the accuracy and losses."""

    game: str
    samples: int
    playouts: int = 0
    decisions: list[Decision] = field(default_factory=list)
    skipped: int = 0  # decisions not analysed (one candidate, the moon)

    def seat_summary(self, seat: int) -> dict[str, Any]:
        mine = [d for d in self.decisions if d.seat == seat]
        hands: dict[int, list[Decision]] = {}
        for d in mine:
            hands.setdefault(d.hand, []).append(d)
        return {
            "seat": seat,
            "decisions": len(mine),
            "accuracy": _mean([d.accuracy for d in mine]),
            "mean_loss": _mean([d.loss for d in mine]),
            "total_loss": round(sum((d.loss for d in mine), 0.0), 2),
            "labels": {label: sum(1 for d in mine if d.label == label) for label in LABELS},
            "hands": [{"hand": h, "accuracy": _mean([d.accuracy for d in ds]),
                       "loss": round(sum((d.loss for d in ds), 0.0), 2)}
                      for h, ds in sorted(hands.items())],
        }

    def to_wire(self, seats: Sequence[int]) -> dict[str, Any]:
        return {"game": self.game, "samples": self.samples, "playouts": self.playouts,
                "skipped": self.skipped, "thresholds": dict(zip(LABELS, THRESHOLDS[self.game],
                                                                 strict=True)),
                "seats": [self.seat_summary(s) for s in seats],
                "decisions": [d.to_wire() for d in self.decisions]}


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values, 0.0) / len(values), 2) if values else None


def label_of(game: str, loss: float, se: float) -> str | None:
    """The label of a loss: none within twice its standard error of the best."""
    if loss <= 2.0 * se:
        return None
    found = None
    for label, threshold in zip(LABELS, THRESHOLDS[game], strict=True):
        if loss >= threshold:
            found = label
    return found


def analyse(record: Mapping[str, Any], seats: Sequence[int] = (0, 1, 2, 3),
            samples: int = DEFAULT_SAMPLES, seed: int = 0, seeing: bool = True,
            progress: Callable[[int, int], None] | None = None,
            hands: Sequence[int] | None = None) -> Analysis:
    """Analyse every decision of ``seats`` in the game of ``record`` (a game's
    ``record()``). ``samples``: deals per decision; ``seeing``: the all-seeing view too;
    ``hands``: only these hands' decisions (a caller that splits a game into parts: each
    hand's figures are the same whichever part holds it, its RNG seeded by the hand)."""
    kind = record["game"]
    engine = ENGINES[kind]
    game: Any = engine.replay({**record, "actions": []})
    only = set(hands) if hands is not None else None
    actions = record.get("actions", [])
    analysis = Analysis(kind, samples)
    wanted = set(seats)
    for index, item in enumerate(actions):
        if game.phase == "hand_over":
            game.next_hand()
        seat = item["seat"]
        action = action_from_wire(item)
        if seat in wanted and (only is None or game.hand_no in only):
            view = game.view(seat)
            rng = random.Random(f"{seed}:{game.hand_no}:{index}")
            decision = _decision(game, view, index, seat, action, samples, rng, seeing,
                                 analysis)
            if decision is None:
                analysis.skipped += 1
            else:
                analysis.decisions.append(decision)
        game.apply(action, seat)
        if progress is not None:
            progress(index + 1, len(actions))
    return analysis


Evaluate = Callable[[list[int], int], float]


def _decision(game: Any, view: TrickView, index: int, seat: int, action: Any, samples: int,
              rng: random.Random, seeing: bool, analysis: Analysis) -> Decision | None:
    if view.phase == "play" and isinstance(action, Play):
        found = _card_options(view, seat, action.card)
    elif view.phase == "bid" and isinstance(action, Bid) and not action.blind:
        found = _bid_options(view, seat, action.value)
    elif view.phase == "bid" and (isinstance(action, Look)
                                  or (isinstance(action, Bid) and action.blind)):
        found = _blind_options(view, seat, isinstance(action, Bid))
    elif view.phase == "pass" and isinstance(action, Pass):
        found = _pass_options(view, seat, action)
    else:
        return None
    if found is None:
        return None
    wires, chosen, sample, value, weigh, line = found
    n = len(wires)
    values: list[list[float]] = [[] for _ in range(n)]
    weights: list[float] = []
    for _ in range(samples):
        hands = sample(rng)
        weights.append(weigh(hands) if weigh is not None else 1.0)
        for i in range(n):
            values[i].append(value(hands, i))
    analysis.playouts += samples * n  # (each decision's RNG of its own: parts agree)
    means = [_mean_of(vs, weights) for vs in values]
    best = max(range(n), key=lambda i: (means[i], i == chosen))
    options = tuple(Option(wires[i], means[i], _se(values[i], weights)) for i in range(n))
    estimate, loss_se = _split_loss(values, weights, chosen)
    loss = max(0.0, estimate)
    accuracy = 100.0 * math.exp(-loss / THRESHOLDS[view.game][1])
    seeing_best = seeing_loss = None
    if seeing:
        true = [game.hands[s] for s in range(4)]
        exact = [value(list(true), i) for i in range(n)]
        analysis.playouts += n
        top = max(range(n), key=lambda i: (exact[i], i == chosen))
        seeing_best, seeing_loss = wires[top], max(0.0, exact[top] - exact[chosen])
    best_line = line([game.hands[s] for s in range(4)], best) if line is not None else ()
    return Decision(index, seat, view.hand_no, view.phase, wires[chosen], wires[best], loss,
                    loss_se, label_of(view.game, loss, loss_se), accuracy, options,
                    seeing_best, seeing_loss, best_line, estimate)


def _mean_of(values: Sequence[float], weights: Sequence[float]) -> float:
    total = sum(weights, 0.0)
    if total <= 0:
        return sum(values, 0.0) / len(values) if values else 0.0
    return sum((w * v for w, v in zip(weights, values, strict=True)), 0.0) / total


def _split_loss(values: Sequence[Sequence[float]], weights: Sequence[float],
                chosen: int) -> tuple[float, float]:
    """The loss of the choice made, cross-fitted, and its standard error. The best
    candidate is picked on one half of the deals and the loss measured on the other, then
    the halves swap and the two are averaged: picked and measured on the same deals, the
    best of several noisy means is too good by its noise (the winner's curse), and every
    choice would seem to lose some points even when it was the best. The estimate is the
    expected loss against the candidate the analysis would name best; it can fall below 0
    (the choice made looked better on the deals measured)."""
    count = len(weights)
    if count < 2:
        means = [_mean_of(vs, weights) for vs in values]
        top = max(range(len(values)), key=lambda i: (means[i], i == chosen))
        return means[top] - means[chosen], 0.0
    halves = [list(range(0, count, 2)), list(range(1, count, 2))]
    estimates, variances = [], []
    for pick, measure in (halves, halves[::-1]):
        picked = [_mean_of([vs[k] for k in pick], [weights[k] for k in pick])
                  for vs in values]
        top = max(range(len(values)), key=lambda i: (picked[i], i == chosen))
        diffs = [values[top][k] - values[chosen][k] for k in measure]
        w = [weights[k] for k in measure]
        estimates.append(_mean_of(diffs, w))
        variances.append(_se(diffs, w) ** 2)
    return sum(estimates, 0.0) / 2.0, math.sqrt(sum(variances, 0.0)) / 2.0


def _se(values: Sequence[float], weights: Sequence[float]) -> float:
    """The standard error of a weighted mean (Kish's effective sample size)."""
    total = sum(weights, 0.0)
    if len(values) < 2 or total <= 0:
        return 0.0
    mean = sum((w * v for w, v in zip(weights, values, strict=True)), 0.0) / total
    var = sum((w * (v - mean) ** 2 for w, v in zip(weights, values, strict=True)), 0.0) / total
    effective = total * total / sum((w * w for w in weights), 0.0)
    return math.sqrt(var / max(1.0, effective - 1.0))


Found = tuple[list[dict[str, Any]], int, Callable[[random.Random], list[int]], Evaluate,
              Callable[[list[int]], float] | None,
              Callable[[list[int], int], tuple[str, ...]] | None]


def _card_options(view: TrickView, seat: int, card: int) -> Found | None:
    pos = Position.from_view(view)
    cands = candidates(pos, seat, legal_mask(view))
    chosen = next((i for i, c in enumerate(cands) if c == card or _same_group(cands, i, card)),
                  None)
    if len(cands) < 2 or chosen is None:
        return None
    cands[chosen] = card  # the card played stands for its group
    sampler = DealSampler(pos, seat, view.hand_sizes, known_cards(view, pos))

    def value(hands: list[int], i: int) -> float:
        p = pos.copy()
        p.hands = list(hands)
        p.play(cands[i])
        play_out(p)
        return hand_value(p, seat)

    def line(hands: list[int], i: int) -> tuple[str, ...]:
        """The rest of the trick from candidate ``i``, as the robots would play it (on the
        true deal: the review shows "the best line")."""
        p = pos.copy()
        p.hands = list(hands)
        done = p.tricks_done
        played = [cands[i]]
        p.play(cands[i])
        choose = hearts_heuristic.choose_card if p.hearts else spades_heuristic.choose_card
        while p.tricks_done == done:
            card = choose(p, p.turn, p.legal())
            played.append(card)
            p.play(card)
        return tuple(card_text(c) for c in played)

    wires = [{"type": "play", "card": card_text(c)} for c in cands]
    return wires, chosen, sampler.sample, value, bid_weight(view, seat), line


def _bid_options(view: TrickView, seat: int, bid: int) -> Found | None:
    rules = view.rules
    bids: tuple[int | None, ...] = getattr(view, "bids", (None,) * 4)
    legal = sorted({a.value for a in view.legal if isinstance(a, Bid) and not a.blind})
    preferred = spades_heuristic.bid_value(view.hand, bids[seat ^ 2], rules)
    near = [v for v in legal if abs(v - preferred) <= 2 or v == 0]
    cands = sorted(set(near) | {bid})
    if len(cands) < 2:
        return None
    pos = Position.from_view(view)
    pos.hands = [0, 0, 0, 0]
    pos.hands[seat] = view.hand
    sampler = DealSampler(pos, seat, (13, 13, 13, 13))
    later = _later_seats(view, seat)
    blind = tuple(getattr(view, "blind", (False,) * 4))

    def value(hands: list[int], i: int) -> float:
        made = list(bids)
        made[seat] = cands[i]
        for s in later:
            made[s] = spades_heuristic.bid_value(hands[s], made[s ^ 2], rules)
        return hand_value(_played(pos, view, hands, made, blind), seat)

    wires = [{"type": "bid", "value": v} for v in cands]
    return wires, cands.index(bid), sampler.sample, value, bid_weight(view, seat), None


def _blind_options(view: TrickView, seat: int, blind_nil: bool) -> Found | None:
    """Blind nil (candidate 0) against looking and then bidding by the rules of thumb (1),
    on wholly sampled deals: the seat has seen none of its own cards."""
    if not any(isinstance(a, Bid) and a.blind for a in view.legal):
        return None  # looking was the only choice
    pos = Position.from_view(view)
    deck = list(range(52))

    def sample(rng: random.Random) -> list[int]:
        return whole_deal(rng, deck)

    def value(hands: list[int], i: int) -> float:
        return hand_value(blind_or_look(pos, view, hands, seat, i == 0), seat)

    wires = [BLIND_NIL.to_wire(), LOOK.to_wire()]
    return wires, 0 if blind_nil else 1, sample, value, bid_weight(view, seat), None


def _pass_options(view: TrickView, seat: int, action: Pass) -> Found | None:
    count = view.rules.pass_count
    chosen_cards = tuple(sorted(action.cards))
    cands = candidate_passes(view.hand, count)
    if chosen_cards not in cands:
        cands.append(chosen_cards)
    if len(cands) < 2:
        return None
    offset = PASS_OFFSETS[getattr(view, "pass_direction", "hold")]
    pos = Position.from_view(view)
    sampler = DealSampler(pos, seat, (13, 13, 13, 13))
    # The others' passes of the deal being valued, worked out once for all candidates. Keyed
    # by the deal itself, not by the list's id: a list freed may lend its id to the next.
    theirs_of: dict[tuple[int, ...], list[int]] = {}

    def value(hands: list[int], i: int) -> float:
        key = tuple(hands)
        if key not in theirs_of:
            theirs_of.clear()
            theirs_of[key] = [sum(1 << c for c in hearts_heuristic.choose_pass(hands[s], count))
                              if s != seat else 0 for s in range(4)]
        out = list(theirs_of[key])
        out[seat] = sum(1 << c for c in cands[i])
        p = pos.copy()
        p.hands = [(hands[s] & ~out[s]) | out[(s - offset) % 4] for s in range(4)]
        p.leader = p.turn = next(s for s in range(4) if p.hands[s] & 1)
        play_out(p)
        return hand_value(p, seat)

    wires = [{"type": "pass", "cards": [card_text(c) for c in p]} for p in cands]
    return wires, cands.index(chosen_cards), sampler.sample, value, None, None


def hands_in(record: Mapping[str, Any]) -> int:
    """How many hands the game of ``record`` dealt (the parts an analysis is split into)."""
    game: Any = ENGINES[record["game"]].replay(record)
    return int(game.hand_no) + 1


def merged(game: str, samples: int, parts: Sequence[Analysis]) -> Analysis:
    """One analysis of a game from its parts' (each some hands), decisions in play order."""
    whole = Analysis(game, samples)
    for part in parts:
        whole.playouts += part.playouts
        whole.skipped += part.skipped
        whole.decisions.extend(part.decisions)
    whole.decisions.sort(key=lambda d: d.index)
    return whole
