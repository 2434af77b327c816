"""Who a connection speaks for: registering, logging in, guests and resumed sessions.

Passwords are hashed and checked off the event loop (:mod:`.passwords`), behind
a back-off per account and per address counted over every node (the hub); a
guest gets a free name (:mod:`.names`) held over every node for as long as its
session may resume, and an address holds few guests at once.

A registered session (issue 32, item D) lives in the store: it ends when unused for
``session_idle_seconds`` (30 days, as card sites keep a "remember me" login), when its
connection sends ``logout``, when any of the account's sends ``logout_all`` ("sign out
everywhere"), and, but for the one that asked, at a password change; the sockets of the
ended sessions are closed then, on every node (the hub). A resume keeps its token (a token changed
at each resume would be lost with a reply that never arrived) and records when and
from where it was used, which ``sessions`` lists.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import math
import time
from collections.abc import Callable
from typing import Protocol

from trickroom.i18n import Msg
from trickroom.server import auth, languages, names
from trickroom.server.config import ServerSettings
from trickroom.server.friends import Follows
from trickroom.server.hub.port import SIGNED_OUT, Hub, Member
from trickroom.server.ignores import Ignores
from trickroom.server.metrics import METRICS
from trickroom.server.names import GuestNames
from trickroom.server.passwords import Passwords, Verdict, normalized
from trickroom.server.protocol import (
    ChangePassword,
    Guest,
    ListSessions,
    Login,
    Logout,
    LogoutAll,
    Ok,
    ProtocolError,
    Register,
    Resume,
    ServerMessage,
    SessionInfo,
    SessionList,
    SignedOut,
    UpgradeToBot,
    Welcome,
)
from trickroom.server.store import NameTaken, Store

log = logging.getLogger("trickroom.accounts")

Authenticate = Register | Login | Guest | Resume
Manage = Logout | LogoutAll | ChangePassword | ListSessions | UpgradeToBot


class Caller(Member, Protocol):
    """A connection logging in: a socket of this node, which counts its logins."""

    logins: int
    session: str  # the hash of its session's token ("" while no one)
    accept_language: str | None  # its handshake's Accept-Language header


class Accounts:
    """Logging connections in and out."""

    def __init__(self, settings: ServerSettings, store: Store, hub: Hub, ignores: Ignores,
                 seated: Callable[[str], bool], in_game: Callable[[Member], bool],
                 follows: Follows) -> None:
        self.settings = settings
        self.follows = follows  # a registered player's presence starts and ends here
        self.store = store
        self.hub = hub
        self.ignores = ignores  # a registered player's list comes with the login
        self.seated = seated  # whether a seat at some table belongs to a name
        self.in_game = in_game  # whether a connection sits at a table here
        self.passwords = Passwords(settings.password_profile, settings.password_workers,
                                   settings.password_queue, settings.password_queue_per_address,
                                   settings.password_checks_per_second_per_address,
                                   settings.password_check_burst_per_address,
                                   budget=self._password_budget)
        self.guests = GuestNames()
        self.guests.on_count = lambda address, count: hub.share_count("guests", address, count)

    async def _password_budget(self, address: str) -> float:
        """An address's budget of passwords checked, one over every node."""
        settings = self.settings
        return await self.hub.take("passwords", address,
                                   settings.password_checks_per_second_per_address,
                                   settings.password_check_burst_per_address)

    async def authenticate(self, conn: Caller, msg: Authenticate) -> None:
        """Log a connection in as a new account, an account, a guest or a session."""
        rid = msg.id
        if self.in_game(conn):
            raise ProtocolError("invalid_field", Msg("you sit at a table as {name}; stand up "
                                                     "before logging in as someone else",
                                                     name=conn.name), rid)
        if conn.logins >= self.settings.logins_per_connection:
            raise ProtocolError("rate_limited", Msg("at most {most} logins on one connection; "
                                                    "open a new one",
                                                    most=self.settings.logins_per_connection), rid)
        token = device = None
        if isinstance(msg, Register):
            name, guest = await self._register(conn, msg), False
            device = await self._device(name, None)
        elif isinstance(msg, Login):
            name, guest = await self._check_login(conn, msg), False
            device = await self._device(name, msg.device)
        elif isinstance(msg, Guest):
            name, guest = await self._new_guest(conn, msg.name), True
        else:
            name, guest = await self._resume(conn, msg)
            token = None if guest else msg.token
        if token is None:
            token = auth.new_token()
            await self.store.create_session(auth.token_hash(token), name, guest, conn.address,
                                            keep=self.settings.sessions_per_account)
        if conn.guest and conn.name and conn.name != name:
            # A guest's ignore list is its connection's while it is that guest.
            with contextlib.suppress(*self.hub.away):
                await self.hub.ignores_dropped(conn.name)
        if not guest:
            await self.ignores.restored(name)
        self.logout(conn)
        conn.name, conn.guest, conn.session = name, guest, auth.token_hash(token)
        conn.logins += 1
        await self.follows.signed_in(conn)  # online for others before it hears so itself
        account = None if guest else await self.store.account(name)
        if isinstance(msg, Register) and msg.language is not None and account is not None:
            await self.store.set_language(name, msg.language)  # the new account's setting
        language = languages.choose(msg.language, account["language"] if account else None,
                                    conn.accept_language)
        conn.language = language
        conn.reply(Welcome(id=rid, name=name, guest=guest, session=token, device=device,
                           bot=bool(account and account["bot"]), language=language))

    async def _register(self, conn: Member, msg: Register) -> str:
        refusal = names.account_name_refusal(msg.name)
        if refusal:
            raise ProtocolError("invalid_field", refusal, msg.id, field="name")
        await self._throttled(conn.address)  # an address that is guessing may not register
        taken = ProtocolError("name_taken", Msg("the name {name!r} is taken", name=msg.name),
                              msg.id, field="name")
        if await self.store.user_hash(msg.name) is not None:
            raise taken  # at no cost, and not counted
        # Counted before the hash, over every node (registrations at once do not race
        # past the limit), and given back if no account is made (refused, busy, or the
        # name taken meanwhile).
        per_hour = self.settings.registrations_per_hour_per_address
        wait, mark = await self.hub.registration(conn.address, per_hour, 3600.0)
        if wait > 0:
            raise ProtocolError("rate_limited", Msg("at most {per_hour} new accounts an hour "
                                                    "from one address; try again in {minutes} "
                                                    "min", per_hour=per_hour,
                                                    minutes=math.ceil(wait / 60)),
                                msg.id, retry_after=round(wait, 1))
        try:
            await self.store.create_user(
                msg.name, await self.passwords.hash(msg.password, conn.address))
        except BaseException as exc:
            self.hub.registration_failed(conn.address, mark)
            if isinstance(exc, NameTaken):
                raise taken from None
            raise
        return msg.name

    async def _resume(self, conn: Member, msg: Resume) -> tuple[str, bool]:
        session = await self.store.session(auth.token_hash(msg.token))
        if session is None:
            raise ProtocolError("not_authorized", Msg("that session token is not valid"), msg.id)
        name, guest, made, used = session
        if not guest:
            if used < time.time() - self.settings.session_idle_seconds:
                await self.store.end_session(auth.token_hash(msg.token))
                raise ProtocolError("not_authorized", Msg("that session has expired (unused "
                                                          "for {days:g} days); log in again",
                                                          days=self.settings.session_idle_seconds
                                                          / 86400), msg.id)
            await self.store.session_used(auth.token_hash(msg.token), conn.address)
            return name, guest
        seconds = self.settings.guest_session_seconds
        if guest and made < time.time() - seconds:
            raise ProtocolError("not_authorized", Msg("that guest session has expired (guest "
                                                      "names are kept for an hour after the "
                                                      "last login); play as a new guest"), msg.id)
        if guest:
            self.guests.attach(name, conn.address)
            with contextlib.suppress(*self.hub.away):  # the name is held already
                await self.hub.hold_guest(name, seconds, renew=True)
        return name, guest

    async def _throttled(self, address: str | None, account: str | None = None,
                         guess: str | None = None) -> None:
        """Refuse, without checking anything, while the account (or device), the address
        or the guess waits, or everyone's failures have spent their budget (by every
        node's count of accounts and addresses: a second node is no way around it)."""
        wait = await self.hub.login_wait(account, address, guess)
        if wait > 0:
            METRICS.logins_throttled.inc()
            raise ProtocolError("rate_limited", Msg("too many failed logins; try again in "
                                                    "{wait:.0f} s", wait=wait),
                                retry_after=round(wait, 1))

    async def _check_login(self, conn: Member, msg: Login) -> str:
        """Check a password, unless a throttle holds the login. From a device the account
        knows, only the device's own back-off does (a stranger's guesses close the account
        to unknown devices, never to its owner's: OWASP's device cookies); else the
        account's, the address's and the password's, and everyone's failure budget."""
        if await self._known_device(msg.name, msg.device):
            assert msg.device is not None
            account, address, guess = f"device:{auth.token_hash(msg.device)}", None, None
        else:
            account, address, guess = msg.name, conn.address, self._guess(msg.password)
        await self._throttled(address, account, guess)
        found = await self.store.user_hash(msg.name)
        stored = found[1] if found else None
        # A known device's checks come from its own budget and share of the queue, not
        # its address's (which a stranger behind the same address may have spent).
        verdict = await self.passwords.verify(msg.password, stored, address or account)
        if not verdict or found is None:
            await self.hub.login_failed(account, address, guess)
            raise ProtocolError("bad_credentials", Msg("wrong name or password"))
        await self.hub.login_succeeded(account)
        if verdict is Verdict.STALE or self.passwords.needs_rehash(found[1]):
            await self.store.set_password(
                found[0], await self.passwords.hash(msg.password, address or account))
        return found[0]

    def _guess(self, password: str) -> str:
        """A password as the spray throttle counts it: keyed with the server's secret
        (the cluster's), so that the table of guesses tells nothing of what was guessed."""
        return hmac.new(self.hub.guess_key, normalized(password).encode(),
                        hashlib.sha256).hexdigest()[:32]

    async def _new_guest(self, conn: Member, wanted: str | None) -> str:
        settings = self.settings
        cap = settings.guests_per_address
        refusal = ProtocolError("rate_limited", Msg("at most {cap} guests at once from one "
                                                    "address; register, or close a guest's "
                                                    "connection first", cap=cap))
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
        raise ProtocolError("name_taken", Msg("no guest name is free; ask for another name"))

    async def _device(self, name: str, given: str | None) -> str:
        """The device token of a login that proved its password: the one it came with,
        if it is this account's, else a new one, remembered."""
        if given is not None and await self._known_device(name, given):
            return given
        token = auth.new_token()
        await self.store.add_device(auth.token_hash(token), name)
        return token

    async def _known_device(self, name: str, token: str | None) -> bool:
        """Whether ``token`` is a device token given to the account ``name``."""
        if token is None:
            return False
        owner = await self.store.device_of(auth.token_hash(token))
        return owner is not None and owner.lower() == name.lower()

    # -- a logged-in account's sessions ---------------------------------------------------

    async def manage(self, conn: Caller, msg: Manage) -> None:
        """Log out, sign out everywhere, change the password, or list the sessions."""
        if not conn.name:
            raise ProtocolError("not_authorized", Msg("log in first"), msg.id)
        if isinstance(msg, Logout):
            self.hub.signed_out(conn.name, conn.session, "", conn.id)  # its other sockets
            await self._sign_out(conn, Ok(id=msg.id))
            return
        if conn.guest:
            raise ProtocolError("not_authorized", Msg("guests have no account to manage; "
                                                      "register first"), msg.id)
        if isinstance(msg, LogoutAll):
            ended = await self.store.end_sessions(conn.name)
            self.hub.signed_out(conn.name, None, "", conn.id)
            await self._sign_out(conn, SignedOut(id=msg.id, sessions=ended))
        elif isinstance(msg, ChangePassword):
            await self._change_password(conn, msg)
        elif isinstance(msg, UpgradeToBot):
            await self._upgrade_to_bot(conn, msg)
        else:
            since = time.time() - self.settings.session_idle_seconds
            conn.reply(SessionList(id=msg.id, sessions=[
                SessionInfo(created=row["created"], last_used=row["last_used"],
                            address=row["address"], current=row["token_hash"] == conn.session)
                for row in await self.store.sessions_of(conn.name, since)]))

    async def _upgrade_to_bot(self, conn: Caller, msg: UpgradeToBot) -> None:
        """The account becomes a BOT's, for good (Lichess's rule): one that was ever rated
        as a person keeps that record, so it may not (a new account is the bot's); nor may
        one seated at a table, whose seat shows a person."""
        account = await self.store.account(conn.name)
        assert account is not None
        if account["bot"]:
            raise ProtocolError("invalid_field", Msg("{name} is a BOT account already",
                                                     name=conn.name),
                                msg.id)
        if not msg.confirm:
            raise ProtocolError("confirm_required", Msg("a BOT account is one for good: it "
                                                        "then never plays as a person, nor at "
                                                        "people's ranked tables. Send again "
                                                        'with "confirm": true'), msg.id)
        if await self.store.has_ratings(conn.name):
            raise ProtocolError("not_eligible", Msg("{name} has played ranked games as a "
                                                    "person; register a new account for your "
                                                    "bot", name=conn.name), msg.id)
        if self.seated(conn.name):
            raise ProtocolError("wrong_phase", Msg("you sit at a table as a person: stand up "
                                                   "(or finish the game) first"), msg.id)
        await self.store.make_bot(conn.name)
        log.info("%s is a BOT account now", conn.name)
        conn.reply(Ok(id=msg.id))

    async def _change_password(self, conn: Caller, msg: ChangePassword) -> None:
        """A new password, checked against the old one, and the account's other sessions
        end. The session has a back-off of its own, as a known device has (a stolen socket
        cannot guess the password through this, and a stranger who closed the account to
        logins does not keep its owner from changing the password)."""
        key = f"session:{conn.session}"
        await self._throttled(None, key)
        found = await self.store.user_hash(conn.name)
        if found is None or not await self.passwords.verify(msg.old_password, found[1],
                                                            conn.address):
            await self.hub.login_failed(key, None)
            raise ProtocolError("bad_credentials", Msg("the old password is wrong"), msg.id)
        await self.store.set_password(found[0], await self.passwords.hash(msg.new_password,
                                                                        conn.address))
        ended = await self.store.end_sessions(found[0], keep=conn.session)
        self.hub.signed_out(conn.name, None, conn.session, conn.id)
        conn.reply(SignedOut(id=msg.id, sessions=ended))

    async def _sign_out(self, conn: Caller, reply: ServerMessage) -> None:
        """End this connection's session and answer; the connection is no one now (or,
        seated at a table, closes after the answer: a seat is not left to no one)."""
        if conn.session:
            await self.store.end_session(conn.session)
        seated = self.in_game(conn)
        conn.reply(reply)
        if seated:
            conn.close(1000, SIGNED_OUT)
        self.logout(conn)
        conn.session = ""

    def logout(self, conn: Member) -> None:
        """The connection stops being who it was (it closed, or logged in anew)."""
        if conn.name and conn.guest:
            self.guests.detach(conn.name, self.seated)
        self.follows.signed_out(conn)
        conn.name, conn.guest = "", True

    def close(self) -> None:
        self.passwords.close()
