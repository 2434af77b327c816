"""A ranked table: the room's drop policy, votes, quits, substitutes, and the rating hand-off.

DESIGN section 7 sets out three policies, one per rating system's site:

* ``zone``: a drop pauses the game and asks the remaining humans Wait / Don't
  wait. All Wait: the game waits until the reconnect window ends, then asks
  again. Any Don't wait: a robot takes the seat, the game goes on unrated for
  those remaining, and the leaver is charged an incomplete game.
* ``wocg``: a robot plays the seat during the window; not back in time (or
  leaving on purpose) is a quit, rated at once and banned for an hour. The seat
  is open to a substitute (unrated), or the others may vote to invite a robot.
* ``points``: a robot plays to the end of the hand; the game then ends and is
  ranked on the score so far; the first to disconnect is responsible.

Leaving on purpose is a quit at once, without a window. A player back within
the window takes the seat back (and ends a Zone vote).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from ratings import Departure, GameResult, Standing
from server.auth import new_token, token_hash
from server.protocol import ProtocolError
from server.ranked import Ranked, game_result, policy_of, when
from server.table import Client, Seat, Table

CHOICES = {"wait": ("wait", "dont_wait"), "invite_robot": ("yes", "no")}


@dataclass
class Vote:
    id: str
    kind: str  # "wait" (Zone, after a drop) or "invite_robot" (WoCG, after a quit)
    seat: int  # the seat the vote is about
    voters: set[int]
    choices: dict[int, str] = field(default_factory=dict)


class RankedTable(Table):
    def __init__(self, *args: Any, ranked: Ranked, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ranked = ranked
        self.system: str = self.room.system or "zone"
        self.policy = policy_of(self.system)
        self.start_standings: dict[str, Standing] = {}
        self.departures: list[Departure] = []
        self.first_disconnect: str | None = None
        self.already_rated: set[str] = set()
        self.end_after: int | None = None  # points: the dropped seat whose hand ends the game
        self.vote: Vote | None = None
        self.open_seats: set[int] = set()  # WoCG: seats a substitute may take

    # -- who may sit -------------------------------------------------------------------------

    async def _check_sit(self, client: Client) -> None:
        await self.ranked.check_eligible(client.name, client.guest)
        if any(s.name == client.name for s in self.seats):
            raise ProtocolError("seat_taken", "you already have a seat at this table")

    async def _substitute(self, client: Client, wanted: int | None) -> tuple[int, str]:
        """WoCG: a human takes a quitter's open seat, unrated."""
        if not self.open_seats:
            raise ProtocolError("table_full", "this ranked game has no seat open to a substitute")
        index = wanted if wanted is not None else min(self.open_seats)
        if index not in self.open_seats:
            raise ProtocolError("seat_taken", f"seat {index} is not open to a substitute")
        if client.name in {s.starter for s in self.seats}:
            raise ProtocolError("not_eligible", "a player who left this game may not come back "
                                                "as a substitute")
        seat = self.seats[index]
        token = new_token()
        seat.name, seat.kind, seat.client, seat.substitute = client.name, "human", client, True
        seat.token_hash, seat.away_since = token_hash(token), None
        self.open_seats.discard(index)
        self.watchers.discard(client)
        await self._save_seats()
        self._emit({"type": "substitute", "seat": index, "name": client.name})
        self._changed()
        client.send_text(self.snapshot(index))
        self._after_change()
        return index, token

    async def _game_starting(self) -> None:
        players = [s.name for s in self.seats if s.name]
        self.start_standings = await self.ranked.current(players, self.room.game, self.system)
        self.departures, self.first_disconnect, self.already_rated = [], None, set()
        self.end_after, self.vote, self.open_seats = None, None, set()

    # -- drops, leaving, returning -------------------------------------------------------------

    def _hands_done(self) -> int:
        return len(self.game.hand_results) if self.game else 0

    async def _on_drop(self, seat: Seat) -> None:
        self.first_disconnect = self.first_disconnect or seat.starter
        if self.policy == "zone":
            await self._start_vote("wait", seat)
        elif self.policy == "points" and self.end_after is None:
            self.end_after = seat.index
        self._after_change()

    async def _on_window_over(self, seat: Seat) -> None:
        if self.policy == "zone":
            # Everyone waited and the window has passed: ask again, with a new window.
            self._later(f"window-{seat.index}", self.settings.reconnect_seconds,
                        self.do_window_over, seat.index)
            await self._start_vote("wait", seat)
        elif self.policy == "wocg":
            await self._quit(seat, "dropped")
        else:
            await self._robot_keeps(seat)

    async def _on_leave(self, seat: Seat) -> None:
        """Leaving a ranked game on purpose is a quit at once, without a window."""
        if seat.substitute:
            await self._robot_keeps(seat)
            self.open_seats.add(seat.index)
            self._after_change()
            return
        if self.policy == "wocg":
            await self._quit(seat, "quit")
            return
        self.departures.append(Departure(seat.starter or "", "quit", self._hands_done()))
        self.first_disconnect = self.first_disconnect or seat.starter
        if self.policy == "points" and self.end_after is None:
            self.end_after = seat.index
        await self._robot_keeps(seat)
        self._emit({"type": "quit", "seat": seat.index, "player": seat.starter})
        self._after_change()

    async def _on_rejoin(self, seat: Seat) -> None:
        if self.vote is not None and self.vote.seat == seat.index and self.vote.kind == "wait":
            self._close_vote("returned")
        if self.paused and self.policy == "zone" and not any(
                s.kind == "human" and s.client is None for s in self.seats):
            self.paused = None
            self._emit({"type": "resumed", "seat": seat.index})
        if self.end_after == seat.index:
            self.end_after = None  # back before the hand ended: the game goes on
        self._after_change()

    def _ends_after_hand(self) -> bool:
        return self.end_after is not None

    async def _quit(self, seat: Seat, how: str) -> None:
        """WoCG: rate the quitter now as losing to both opponents; ban; open the seat."""
        assert self.game_id is not None
        starter = seat.starter or ""
        self.departures.append(Departure(starter, how, self._hands_done()))  # type: ignore[arg-type]
        change = await self.ranked.rate_quit(self._result(), self.start_standings, starter,
                                             self.game_id)
        if change is not None:
            self.already_rated.add(starter)
        until = await self.ranked.ban_quitter(starter)
        await self._robot_keeps(seat)
        self.open_seats.add(seat.index)
        self._emit({"type": "quit", "seat": seat.index, "player": starter,
                    "rating": change.to_wire() if change else None,
                    "banned_until": when(until)})
        await self._start_vote("invite_robot", seat)
        self._after_change()

    # -- votes ---------------------------------------------------------------------------------

    async def _start_vote(self, kind: str, seat: Seat) -> None:
        voters = {s.index for s in self.seats
                  if s.kind == "human" and s.client is not None and s.index != seat.index}
        self.vote = Vote(secrets.token_hex(3), kind, seat.index, voters)
        if kind == "wait":
            for key in [k for k in self._timers if k.startswith(("robot-", "turn-"))]:
                self._timers.pop(key).cancel()
            self.paused = f"a vote on waiting for {seat.starter} is open"
        self._emit({"type": "vote_started", "vote": self.vote.id, "kind": kind,
                    "seat": seat.index, "player": seat.starter,
                    "seconds": self.settings.vote_seconds, "voters": sorted(voters),
                    "choices": list(CHOICES[kind])})
        if not voters:
            self._close_vote("dont_wait" if kind == "wait" else "no")
            return
        self._later("vote", self.settings.vote_seconds, self.do_vote_timeout, self.vote.id)

    def vote_info(self) -> dict[str, Any] | None:
        vote = self.vote
        if vote is None:
            return None
        return {"type": "vote_started", "vote": vote.id, "kind": vote.kind, "seat": vote.seat,
                "player": self.seats[vote.seat].starter, "seconds": self.settings.vote_seconds,
                "voters": sorted(vote.voters), "choices": list(CHOICES[vote.kind]),
                "cast": {str(s): c for s, c in vote.choices.items()}}

    async def do_vote(self, client: Client, vote_id: str, choice: str) -> None:
        seat = self.seat_of(client)
        if seat is None:
            raise ProtocolError("not_seated", "you do not sit at this table")
        vote = self.vote
        if vote is None or vote.id != vote_id:
            raise ProtocolError("wrong_phase", "no such vote is open (it may have closed)")
        if seat.index not in vote.voters:
            raise ProtocolError("not_authorized", "you may not vote on this")
        if seat.index in vote.choices:
            raise ProtocolError("invalid_field", "you have already voted")
        if choice not in CHOICES[vote.kind]:
            raise ProtocolError("invalid_field",
                                f"choose one of: {', '.join(CHOICES[vote.kind])}")
        vote.choices[seat.index] = choice
        self._emit({"type": "vote_cast", "vote": vote.id, "seat": seat.index, "choice": choice})
        if vote.kind == "wait":
            if choice == "dont_wait":
                self._close_vote("dont_wait")
            elif set(vote.choices) == vote.voters:
                self._close_vote("wait")
        elif set(vote.choices) == vote.voters:
            self._close_invite(vote)

    async def do_vote_timeout(self, vote_id: str) -> None:
        """Time is up: no answer counts as Wait (Zone) or as no (an invited robot)."""
        vote = self.vote
        if vote is None or vote.id != vote_id:
            return
        if vote.kind == "wait":
            self._close_vote("wait")
        else:
            self._close_invite(vote)

    def _close_invite(self, vote: Vote) -> None:
        yes = sum(1 for c in vote.choices.values() if c == "yes")
        self._close_vote("robot" if yes * 2 > len(vote.voters) else "no")

    def _close_vote(self, outcome: str) -> None:
        vote = self.vote
        assert vote is not None
        self.vote = None
        timer = self._timers.pop("vote", None)
        if timer:
            timer.cancel()
        seat = self.seats[vote.seat]
        self._emit({"type": "vote_result", "vote": vote.id, "kind": vote.kind, "seat": vote.seat,
                    "outcome": outcome})
        if vote.kind == "wait":
            if outcome == "dont_wait":
                self.departures.append(Departure(seat.starter or "", "dropped",
                                                 self._hands_done(), "dont_wait"))
                timer = self._timers.pop(f"window-{seat.index}", None)
                if timer:
                    timer.cancel()
                seat.kind, seat.token_hash, seat.client = "robot", None, None
                seat.name = f"{seat.starter} (robot)"
                self.paused = None
                self._changed()
                self.post(self._save_and_go)
            elif outcome == "wait":
                self.paused = f"waiting for {seat.starter} to return"
            else:  # returned
                self.paused = None
        elif outcome == "robot":
            self.open_seats.discard(vote.seat)
            self._changed()

    async def _save_and_go(self) -> None:
        await self._save_seats()
        self._after_change()

    # -- the end: hand the game to the ratings -------------------------------------------

    def _result(self) -> GameResult:
        assert self.game is not None
        starters = [s.starter or "" for s in self.seats]
        subs = [(s.index, s.name or "") for s in self.seats if s.substitute]
        departures = list(self.departures)
        if self.end_after is not None:
            dropped = self.seats[self.end_after].starter or ""
            if not any(d.player == dropped for d in departures):
                departures.append(Departure(dropped, "dropped", self._hands_done()))
        return game_result(self.room.game, self.system, self.seating, starters, subs,
                           self.game.result(), departures, self.first_disconnect)

    async def _end_records(self, outcome: dict[str, Any],
                           record: dict[str, Any]) -> list[dict[str, Any]]:
        assert self.game is not None and self.game_id is not None
        return await self.ranked.finish(self.game_id, self._result(), self.start_standings,
                                        self.game.result(), json.loads(json.dumps(record)),
                                        self.already_rated)
