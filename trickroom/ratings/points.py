"""Zero-sum ranking points (seed pages 003 in English and 004 in Greek; DESIGN section 6).

Every game is worth::

    Points = ½ × Randomness × Completion × Odds

* Randomness, how hard the seating was to arrange (collusion): 8 random queue,
  2 random seating, 1 fixed seating.
* Completion: 4 for a complete game; an incomplete one (ranked on the score so
  far) gets 3 past half the target and 2 under half in the ``en`` variant, 2 and
  1 in ``el``. Both pages give a quarter-target row; it pays the same as "under
  half" in each variant, and the breakdown names it.
* Odds, ``10^((R_losers_avg − R_winners_avg) / 800)`` clamped to [½, 2]
  (``en``) or [¼, 4] (``el``): an upset pays more. Winning with odds ``O``
  pays ``O`` and losing costs ``1/O`` times the base, which breaks even when
  the chance of winning is ``1 / (1 + 10^(-(R_own − R_opp) / 400))``: Elo's
  logistic curve, flattened where the clamp bites (:meth:`Points.win_probability`).

In Spades each winner gains Points and each loser loses Points. After a
disconnection (a robot plays to the end of the hand; the game ends and is
ranked on the score so far) the shares are multiplied, as the pages' table says:

=========================  ============  =======  ==========
side of the player who     disconnected  partner  each
disconnected first                                opponent
=========================  ============  =======  ==========
won                        0             ½        −¼
lost                       −1½           −½       1
=========================  ============  =======  ==========

so at 16 points: −24, −8, +16, +16 and 0, +8, −4, −4; both still sum to zero.

Hearts has no partners: each of the six pairs of players is a match worth a
third of Points (with the pair's own odds), the lower score winning and equal
scores exchanging nothing. The pages give no Hearts disconnection table; here a
match the disconnected player *won* exchanges nothing (a player earns nothing
from a game they abandoned, and no one pays for it), and one they lost is paid
as usual. Every match is zero-sum, so the game is.

Start 1500, no floor: a floor would break the zero sum.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from trickroom.i18n import Msg
from trickroom.ratings.change import Rating, RatingChange, Term, num, signed, unrated
from trickroom.ratings.result import SIDES, GameKind, GameResult, SeatingMode
from trickroom.ratings.system import (
    RatesWithTheGame,
    ShownAsRated,
    chances_from_pairs,
    check_rateable,
    unrated_reason,
)

_SEATING_WORDS: dict[SeatingMode, str] = {
    "random_queue": Msg("random queue"),
    "random_seating": Msg("random seating"),
    "fixed_seating": Msg("fixed seating"),
}
_FRACTIONS = {0.0: "0", 0.25: "¼", 0.5: "½", 1.0: "1", 1.5: "1½"}


@dataclass(frozen=True)
class Points(RatesWithTheGame, ShownAsRated):
    """The points formula with its constants; ``Points()`` is the ``en`` page's preset."""

    name: str = "points_en"
    start: float = 1500.0
    half: float = 0.5  # the formula's leading ½
    random_queue: float = 8.0
    random_seating: float = 2.0
    fixed_seating: float = 1.0
    complete: float = 4.0
    past_half: float = 3.0  # incomplete, more than half the target reached
    under_half: float = 2.0  # incomplete, half the target or less
    under_quarter: float = 2.0  # incomplete, under a quarter of the target
    odds_min: float = 0.5
    odds_max: float = 2.0
    scale: float = 800.0
    floor: float | None = None

    @property
    def start_rating(self) -> Rating:
        return Rating(self.start)

    # The formula's factors

    def randomness(self, seating: SeatingMode) -> float:
        return {"random_queue": self.random_queue, "random_seating": self.random_seating,
                "fixed_seating": self.fixed_seating}[seating]

    def completion(self, completed: bool, progress: float) -> tuple[float, str]:
        """The Completion factor and the words for it."""
        if completed:
            return self.complete, Msg("complete game")
        reached = Msg("incomplete, {percent}% of the target", percent=num(100 * progress, 0))
        if progress > 0.5:
            return self.past_half, Msg("{reached}: past half", reached=reached)
        if progress < 0.25:
            return self.under_quarter, Msg("{reached}: under a quarter", reached=reached)
        return self.under_half, Msg("{reached}: half or under", reached=reached)

    def odds(self, winners: float, losers: float) -> tuple[float, float]:
        """``(raw, clamped)`` odds for winners rated ``winners`` against ``losers``."""
        raw = math.pow(10.0, (losers - winners) / self.scale)
        return raw, min(max(raw, self.odds_min), self.odds_max)

    def points(self, result: GameResult, winners: float, losers: float
               ) -> tuple[float, list[Term]]:
        """The game's Points for these average ratings, with the terms that make it."""
        randomness = self.randomness(result.seating)
        completion, completion_words = self.completion(result.completed, result.progress)
        raw, odds = self.odds(winners, losers)
        value = self.half * randomness * completion * odds
        odds_text = Msg("Odds 10^(({losers} − {winners}) / {scale}) = {odds}",
                        losers=num(losers), winners=num(winners), scale=num(self.scale),
                        odds=num(raw, 3))
        if odds != raw:
            odds_text = Msg("{odds_text}, clamped to {odds}", odds_text=odds_text,
                            odds=num(odds, 3))
        return value, [
            Term(Msg("Randomness {randomness} ({seating})", randomness=num(randomness),
                     seating=_SEATING_WORDS[result.seating]), randomness),
            Term(Msg("Completion {completion} ({completion_words})", completion=num(completion),
                     completion_words=completion_words), completion),
            Term(odds_text, odds),
            Term(Msg("Points = {half} × {randomness} × {completion} × {odds} = {value}",
                     half=_fraction(self.half), randomness=num(randomness),
                     completion=num(completion), odds=num(odds, 3), value=num(value)), value),
        ]

    # Rating a game

    def rate(self, result: GameResult, ratings: Mapping[str, Rating]) -> list[RatingChange]:
        """Every starting human's share of the game's Points; the shares sum to zero."""
        check_rateable(self.name, result, ratings)
        why = unrated_reason(result)
        if why is not None:
            return [unrated(s.player, ratings[s.player], why)
                    for s in result.starters if s.is_rated_human]
        if result.kind == "spades":
            return self._rate_spades(result, ratings)
        return self._rate_hearts(result, ratings)

    def _rate_spades(self, result: GameResult, ratings: Mapping[str, Rating]
                     ) -> list[RatingChange]:
        side = result.winning_side()
        players = result.players
        averages = [sum(ratings[players[s]].value for s in SIDES[i]) / 2 for i in (0, 1)]
        if side is None:
            tie = (Term(Msg("equal scores: no points exchanged"), 0.0),)
            return [RatingChange(p, ratings[p], ratings[p], tie, "tie") for p in players]
        value, terms = self.points(result, averages[side], averages[1 - side])
        shares = self._spades_shares(result, side)
        changes = []
        for seat, player in enumerate(players):
            share, words = shares[seat]
            delta = share * value
            before = ratings[player].value
            explanation = [
                Term(Msg("rating {before} before", before=num(before)), before),
                Term(Msg("winners' average {average}, losers' average {losers}",
                         average=num(averages[side]), losers=num(averages[1 - side])), None),
                *terms,
                Term(Msg("{words}: {share}{value} = {delta}", words=words, share=_times(share),
                         value=num(value), delta=signed(delta)), delta),
                Term(Msg("new rating {after}", after=num(before + delta)), before + delta),
            ]
            changes.append(RatingChange(player, ratings[player], Rating(before + delta),
                                        tuple(explanation), result.outcome_of(player)))
        return changes

    @staticmethod
    def _spades_shares(result: GameResult, side: int) -> list[tuple[float, str]]:
        """Each seat's multiple of Points, with words, per the disconnection table."""
        gone = result.responsible
        if gone is None:
            return [(1.0, Msg("won")) if seat % 2 == side else (-1.0, Msg("lost"))
                    for seat in range(4)]
        d = result.seat_of(gone)
        won = d % 2 == side
        outcome = Msg("won") if won else Msg("lost")
        shares: list[tuple[float, str]] = []
        for seat in range(4):
            if seat == d:
                shares.append((0.0 if won else -1.5,
                               Msg("disconnected first, side {outcome}", outcome=outcome)))
            elif seat % 2 == d % 2:
                shares.append((0.5 if won else -0.5,
                               Msg("partner of {gone}, who disconnected first, side {outcome}",
                                   gone=gone, outcome=outcome)))
            else:
                shares.append((-0.25 if won else 1.0,
                               Msg("opponent of {gone}, who disconnected first and whose "
                                   "side {outcome}", gone=gone, outcome=outcome)))
        return shares

    def _rate_hearts(self, result: GameResult, ratings: Mapping[str, Rating]
                     ) -> list[RatingChange]:
        players = result.players
        gone = result.responsible
        deltas = dict.fromkeys(players, 0.0)
        lines: dict[str, list[Term]] = {p: [] for p in players}
        for i, a in enumerate(players):
            for b in players[i + 1:]:
                self._hearts_match(result, ratings, a, b, gone, deltas, lines)
        changes = []
        for p in players:
            before = ratings[p].value
            after = before + deltas[p]
            explanation = [
                Term(Msg("rating {before} before", before=num(before)), before),
                Term(Msg("each pair is a match worth ⅓ of Points, Randomness {randomness} and "
                         "Completion {completion}",
                         randomness=num(self.randomness(result.seating)),
                         completion=num(self.completion(result.completed,
                                                        result.progress)[0])), None),
                *lines[p],
                Term(Msg("total {delta}", delta=signed(deltas[p])), deltas[p]),
                Term(Msg("new rating {after}", after=num(after)), after),
            ]
            changes.append(RatingChange(p, ratings[p], Rating(after), tuple(explanation),
                                        result.outcome_of(p)))
        return changes

    def _hearts_match(self, result: GameResult, ratings: Mapping[str, Rating], a: str, b: str,
                      gone: str | None, deltas: dict[str, float],
                      lines: dict[str, list[Term]]) -> None:
        """Settle one pair's match into ``deltas`` and explain it to both players."""
        score_a = result.scores[result.seat_of(a)]
        score_b = result.scores[result.seat_of(b)]
        if score_a == score_b:
            for p, o in ((a, b), (b, a)):
                lines[p].append(Term(Msg("against {o}: equal scores {score_a}, nothing "
                                         "exchanged", o=o, score_a=score_a),
                                     0.0))
            return
        winner, loser = (a, b) if score_a < score_b else (b, a)
        low, high = min(score_a, score_b), max(score_a, score_b)
        if winner == gone:
            for p, o in ((winner, loser), (loser, winner)):
                lines[p].append(Term(Msg("against {o}: {winner} won ({low} to {high}) but "
                                         "disconnected first, nothing exchanged", o=o,
                                         winner=winner, low=low, high=high), 0.0))
            return
        value, _ = self.points(result, ratings[winner].value, ratings[loser].value)
        share = value / 3
        _, odds = self.odds(ratings[winner].value, ratings[loser].value)
        deltas[winner] += share
        deltas[loser] -= share
        lines[winner].append(Term(Msg("against {loser} {rating}: won ({low} to {high}), odds "
                                      "{odds}, ⅓ × {value} = {share}", loser=loser,
                                      rating=num(ratings[loser].value), low=low, high=high,
                                      odds=num(odds, 3), value=num(value),
                                      share=signed(share)), share))
        lines[loser].append(Term(Msg("against {winner} {rating}: lost ({high} to {low}), odds "
                                     "{odds}, ⅓ × {value} = {share}", winner=winner,
                                     rating=num(ratings[winner].value), high=high, low=low,
                                     odds=num(odds, 3), value=num(value),
                                     share=signed(-share)), -share))

    # Expectation

    def pair_probability(self, own: float, opponent: float) -> float:
        """The chance at which a game between these ratings is worth zero on average."""
        _, if_own_wins = self.odds(own, opponent)
        _, if_opponent_wins = self.odds(opponent, own)
        return if_opponent_wins / (if_own_wins + if_opponent_wins)

    def win_probability(self, kind: GameKind, players: Sequence[str],
                        ratings: Mapping[str, Rating]) -> tuple[float, ...]:
        """The break-even chance of the Odds factor: side averages in Spades, pairs in Hearts."""
        return chances_from_pairs(self.name, kind, players, ratings, self.pair_probability)


def _times(share: float) -> str:
    """``"−1½ × "`` for a share of Points, or nothing for a plain ±1."""
    if share in (1.0, -1.0):
        return "" if share > 0 else "−"
    sign = "−" if share < 0 else ""
    return f"{sign}{_fraction(abs(share))} × "


def _fraction(x: float) -> str:
    return _FRACTIONS.get(x, num(x))


POINTS_EN = Points()
POINTS_EL = Points(name="points_el", past_half=2.0, under_half=1.0, under_quarter=1.0,
                   odds_min=0.25, odds_max=4.0)
