"""World of Card Games: team Elo for Spades, pairwise Elo for Hearts (seed page 001).

Spades. Each side's rating is its players' average. A player meets each of the
two opponents once, with the same expectation each time::

    E = 2 / (1 + 10^((R_opponents_avg - R_own_avg) / 400))
    S = 1 per opponent beaten (½ per tie)
    R' = R + K (S - E)          # K 25, start 1500

so the seed's A (1512, partner 1484) beating B and D (1562, 1417) expects
1.02 and gains 25 × (2 − 1.02): 1536.

Quits. Either kind of departure is a quit here: WoCG treats a player not
back within the reconnect window as having quit. A quitter is rated at once
(:meth:`Wocg.rate_quit`) as losing to both opponents, and is not rated again
at the end. When the game finishes, the players still seated are rated with
the quitter counted as beaten, and the quitter's partner on the real result
against the opponents; expectations use everyone's ratings from the start of
the game. In the seed's example all four
are at 1500: Peter quits (1475); John, his partner, goes on to win, so Mary and
Sue beat Peter and lose to John, S = E = 1, and stay at 1500.

Hearts. Pairwise Elo against each other player by final score (lower wins),
``R' = R + K Σ (S - E)``; a quitter loses to every player still seated, and at
the end the others count the quitter as beaten.

The nil-setting skill ratio is :func:`ratings.stats.skill_ratio`, re-exported
here because it is this page's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from trickroom.i18n import Msg
from trickroom.i18n.message import Listing, both
from trickroom.ratings import elo
from trickroom.ratings.change import (
    Rating,
    RatingChange,
    Term,
    num,
    rated_list,
    signed,
    unrated,
)
from trickroom.ratings.result import SIDES, GameKind, GameResult, PlayerOutcome
from trickroom.ratings.stats import skill_ratio
from trickroom.ratings.system import (
    ShownAsRated,
    chances_from_pairs,
    check_rateable,
    unless_finished,
    unrated_reason,
)

__all__ = ["WOCG", "Wocg", "skill_ratio"]

_VERB = {1.0: Msg("beat"), 0.5: Msg("tied with"), 0.0: Msg("lost to")}


@dataclass(frozen=True)
class Wocg(ShownAsRated):
    """WoCG's Elo with its constants; ``Wocg()`` is the faithful preset (K 25, start 1500)."""

    name: str = "wocg"
    start: float = 1500.0
    k: float = 25.0
    scale: float = elo.SCALE
    floor: float | None = None

    @property
    def start_rating(self) -> Rating:
        return Rating(self.start)

    # Rating a game

    def rate(self, result: GameResult, ratings: Mapping[str, Rating]) -> list[RatingChange]:
        """The changes of the players still seated at the end; quitters were rated at once.

        ``ratings`` must be the ratings at the start of the game (a quitter's
        too, not the one ``rate_quit`` gave them).
        """
        seated = [s.player for s in result.starters
                  if s.is_rated_human and not result.left(s.player)]
        skipped = unless_finished(self.name, result, ratings, seated)
        if skipped is not None:
            return skipped
        rate_one = self._spades_player if result.kind == "spades" else self._hearts_player
        return [rate_one(result, p, ratings) for p in seated]

    def rate_quit(self, result: GameResult, ratings: Mapping[str, Rating], player: str
                  ) -> RatingChange | None:
        """The quitter's forfeit, rated when they leave: a loss to both opponents (Spades)
        or to every player still seated (Hearts). ``None`` for a seat that is not rated.
        """
        check_rateable(self.name, result, ratings)
        if not result.starter(player).is_rated_human:
            return None
        why = unrated_reason(result)
        if why is not None:
            return unrated(player, ratings[player], why)
        if result.kind == "spades":
            opponents = result.opponents(player)
        else:
            gone = set(result.left_before(player))
            opponents = tuple(o for o in result.opponents(player) if o not in gone)
        scores = dict.fromkeys(opponents, 0.0)
        terms = [Term(Msg("quit before the end: a loss to {opponents}",
                          opponents=both(opponents)), None)]
        if result.kind == "spades":
            return self._spades_change(result, player, ratings, scores, terms, "loss")
        return self._hearts_change(player, ratings, scores, terms, "loss")

    def _actual(self, result: GameResult, player: str, opponent: str) -> float:
        return 1.0 if result.left(opponent) else result.score_against(player, opponent)

    def _spades_player(self, result: GameResult, player: str, ratings: Mapping[str, Rating]
                       ) -> RatingChange:
        scores = {o: self._actual(result, player, o) for o in result.opponents(player)}
        return self._spades_change(result, player, ratings, scores, [],
                                   result.outcome_of(player))

    def _spades_change(self, result: GameResult, player: str, ratings: Mapping[str, Rating],
                       scores: Mapping[str, float], terms: list[Term], outcome: PlayerOutcome
                       ) -> RatingChange:
        seat = result.seat_of(player)
        own_side = [result.players[s] for s in SIDES[seat % 2]]
        opponents = [result.players[s] for s in SIDES[1 - seat % 2]]
        own_avg = sum(ratings[p].value for p in own_side) / 2
        opp_avg = sum(ratings[p].value for p in opponents) / 2
        single = elo.expected(own_avg, opp_avg, self.scale)
        expected = 2 * single
        actual = sum(scores.values())
        before = ratings[player].value
        after = elo.update(before, actual, expected, self.k)
        terms = [
            Term(Msg("rating {before} before", before=num(before)), before),
            *terms,
            Term(Msg("team average {average} ({ratings})", average=num(own_avg),
                     ratings=rated_list(ratings, own_side)),
                 own_avg),
            Term(Msg("opponents' average {average} ({ratings})", average=num(opp_avg),
                     ratings=rated_list(ratings, opponents)),
                 opp_avg),
            Term(Msg("expected {expected} against {opponents} (2 × {single})",
                     expected=num(expected), opponents=both(opponents),
                     single=num(single, 3)), expected),
            Term(Msg("actual {actual}: {results}", actual=num(actual),
                     results=self._actual_words(result, scores)), actual),
            Term(Msg("K {k}", k=num(self.k)), self.k),
            Term(Msg("{k} × ({actual} − {expected}) = {change}", k=num(self.k),
                     actual=num(actual), expected=num(expected), change=signed(after - before)),
                 after - before),
            Term(Msg("new rating {after}", after=num(after)), after),
        ]
        return RatingChange(player, ratings[player], Rating(after), tuple(terms), outcome)

    def _hearts_player(self, result: GameResult, player: str, ratings: Mapping[str, Rating]
                       ) -> RatingChange:
        scores = {o: self._actual(result, player, o) for o in result.opponents(player)}
        return self._hearts_change(player, ratings, scores, [], result.outcome_of(player))

    def _hearts_change(self, player: str, ratings: Mapping[str, Rating],
                       scores: Mapping[str, float], terms: list[Term], outcome: PlayerOutcome
                       ) -> RatingChange:
        before = ratings[player].value
        expected = 0.0
        lines = [Term(Msg("rating {before} before", before=num(before)), before), *terms]
        for opponent, score in scores.items():
            e = elo.expected(before, ratings[opponent].value, self.scale)
            expected += e
            lines.append(Term(Msg("{verb} {opponent} {rating}: expected {e}", verb=_VERB[score],
                                  opponent=opponent, rating=num(ratings[opponent].value),
                                  e=num(e)), e))
        actual = sum(scores.values())
        after = elo.update(before, actual, expected, self.k)
        lines += [
            Term(Msg("expected {expected} against {opponents}", expected=num(expected),
                     opponents=Listing(list(scores), "comma")), expected),
            Term(Msg("actual {actual}", actual=num(actual)), actual),
            Term(Msg("K {k}", k=num(self.k)), self.k),
            Term(Msg("{k} × ({actual} − {expected}) = {change}", k=num(self.k),
                     actual=num(actual), expected=num(expected), change=signed(after - before)),
                 after - before),
            Term(Msg("new rating {after}", after=num(after)), after),
        ]
        return RatingChange(player, ratings[player], Rating(after), tuple(lines), outcome)

    @staticmethod
    def _actual_words(result: GameResult, scores: Mapping[str, float]) -> str:
        said = ""
        for o, s in scores.items():
            one = (Msg("{verb} {opponent} (quit)", verb=_VERB[s], opponent=o)
                   if result.left(o) else Msg("{verb} {opponent}", verb=_VERB[s], opponent=o))
            said = Msg("{said}, {one}", said=said, one=one) if said else one
        return said

    # Expectation

    def pair_probability(self, own: float, opponent: float) -> float:
        """Elo's expected score of ``own`` against ``opponent``."""
        return elo.expected(own, opponent, self.scale)

    def win_probability(self, kind: GameKind, players: Sequence[str],
                        ratings: Mapping[str, Rating]) -> tuple[float, ...]:
        """Elo's logistic expectation: side averages in Spades, pairs in Hearts."""
        return chances_from_pairs(self.name, kind, players, ratings, self.pair_probability)


WOCG = Wocg()
