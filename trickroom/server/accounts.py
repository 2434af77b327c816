"""Who a connection speaks for: registering, logging in, guests and resumed sessions.

Passwords are hashed and checked off the event loop (:mod:`.passwords`), behind
a back-off per account and per address counted over every node (the hub); a
guest gets a free name (:mod:`.names`) held over every node for as long as its
session may resume, and an address holds few guests at once.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Protocol

from trickroom.server import auth, names
from trickroom.server.config import ServerSettings
from trickroom.server.hub.port import Hub, Member
from trickroom.server.metrics import METRICS
from trickroom.server.names import GuestNames
from trickroom.server.passwords import Passwords, Verdict
from trickroom.server.protocol import Guest, Login, ProtocolError, Register, Resume, Welcome
from trickroom.server.store import NameTaken, Store

Authenticate = Register | Login | Guest | Resume


class Caller(Member, Protocol):
    """A connection logging in: a socket of this node, which counts its logins."""

    logins: int


class Accounts:
    """Logging connections in and out."""

    def __init__(self, settings: ServerSettings, store: Store, hub: Hub,
                 seated: Callable[[str], bool], in_game: Callable[[Member], bool]) -> None:
        self.settings = settings
        self.store = store
        self.hub = hub
        self.seated = seated  # whether a seat at some table belongs to a name
        self.in_game = in_game  # whether a connection sits at a table here
        self.passwords = Passwords(settings.password_profile, settings.password_workers,
                                   settings.password_queue)
        self.guests = GuestNames()
        self.guests.on_count = lambda address, count: hub.share_count("guests", address, count)

    async def authenticate(self, conn: Caller, msg: Authenticate) -> None:
        """Log a connection in as a new account, an account, a guest or a session."""
        rid = msg.id
        if self.in_game(conn):
            raise ProtocolError("invalid_field", "you sit at a table as "
                                f"{conn.name}; stand up before logging in as someone else", rid)
        if conn.logins >= self.settings.logins_per_connection:
            raise ProtocolError("rate_limited", f"at most {self.settings.logins_per_connection}"
                                " logins on one connection; open a new one", rid)
        if isinstance(msg, Register):
            name, guest = await self._register(conn, msg), False
        elif isinstance(msg, Login):
            name, guest = await self._check_login(conn, msg), False
        elif isinstance(msg, Guest):
            name, guest = await self._new_guest(conn, msg.name), True
        else:
            name, guest = await self._resume(conn, msg)
        token = auth.new_token()
        await self.store.create_session(auth.token_hash(token), name, guest)
        self.logout(conn)
        conn.name, conn.guest = name, guest
        conn.logins += 1
        conn.reply(Welcome(id=rid, name=name, guest=guest, session=token))

    async def _register(self, conn: Member, msg: Register) -> str:
        refusal = names.account_name_refusal(msg.name)
        if refusal:
            raise ProtocolError("invalid_field", refusal, msg.id)
        await self._throttled(conn, None)  # an address that is guessing may not register
        try:
            await self.store.create_user(msg.name, await self.passwords.hash(msg.password))
        except NameTaken:
            raise ProtocolError("name_taken", f"the name {msg.name!r} is taken",
                                msg.id) from None
        return msg.name

    async def _resume(self, conn: Member, msg: Resume) -> tuple[str, bool]:
        session = await self.store.session(auth.token_hash(msg.token))
        if session is None:
            raise ProtocolError("not_authorized", "that session token is not valid", msg.id)
        name, guest, made = session
        seconds = self.settings.guest_session_seconds
        if guest and made < time.time() - seconds:
            raise ProtocolError("not_authorized", "that guest session has expired (guest "
                                "names are kept for an hour after the last login); play "
                                "as a new guest", msg.id)
        if guest:
            self.guests.attach(name, conn.address)
            with contextlib.suppress(*self.hub.away):  # the name is held already
                await self.hub.hold_guest(name, seconds, renew=True)
        return name, guest

    async def _throttled(self, conn: Member, account: str | None) -> None:
        """Refuse, without checking anything, while the account or address waits (by every
        node's count: a second node is no way around it)."""
        wait = await self.hub.login_wait(account, conn.address)
        if wait > 0:
            METRICS.logins_throttled.inc()
            raise ProtocolError("rate_limited", f"too many failed logins; try again in "
                                f"{wait:.0f} s", retry_after=round(wait, 1))

    async def _check_login(self, conn: Member, msg: Login) -> str:
        await self._throttled(conn, msg.name)
        found = await self.store.user_hash(msg.name)
        stored = found[1] if found else None
        verdict = await self.passwords.verify(msg.password, stored)
        if not verdict or found is None:
            await self.hub.login_failed(msg.name, conn.address)
            raise ProtocolError("bad_credentials", "wrong name or password")
        await self.hub.login_succeeded(msg.name)
        if verdict is Verdict.STALE or self.passwords.needs_rehash(found[1]):
            await self.store.set_password(found[0], await self.passwords.hash(msg.password))
        return found[0]

    async def _new_guest(self, conn: Member, wanted: str | None) -> str:
        settings = self.settings
        cap = settings.guests_per_address
        refusal = ProtocolError("rate_limited", f"at most {cap} guests at once from one "
                                "address; register, or close a guest's connection first")
        if self.guests.per_address[conn.address] >= cap:
            raise refusal
        recent = time.time() - settings.guest_session_seconds
        for name in self.guests.candidates(wanted):
            if not self.guests.reclaim(name, self.seated):
                continue
            # Now, before any await: no one else gets the name, and the address's guests
            # being made at the same moment count this one.
            self.guests.take(name, conn.address)
            try:
                if (self.guests.per_address[conn.address]
                        + await self.hub.count_elsewhere("guests", conn.address) > cap):
                    raise refusal
                if not await self.hub.hold_guest(name, settings.guest_session_seconds):
                    self.guests.release(name)  # another node's guest has it
                    continue
            except BaseException:  # refused, or the name cannot be held for every node
                self.guests.release(name)
                raise
            if (await self.store.guest_session_since(name, recent)
                    or await self.store.user_hash(name) is not None):
                self.guests.release(name)
                continue
            await self.store.end_guest_sessions(name)
            return name
        raise ProtocolError("name_taken", "no guest name is free; ask for another name")

    def logout(self, conn: Member) -> None:
        """The connection stops being who it was (it closed, or logged in anew)."""
        if conn.name and conn.guest:
            self.guests.detach(conn.name, self.seated)
        conn.name, conn.guest = "", True

    def close(self) -> None:
        self.passwords.close()
