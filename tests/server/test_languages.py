"""A connection's language (issue 37): how it is chosen, and that every text for people
the server sends follows it while every code stays the same."""

from __future__ import annotations

import asyncio
import json
import random
import re
from contextlib import AsyncExitStack
from typing import Any

import pytest

from tests.server.conftest import FAST, choose, url
from tests.server.refusals import refused
from tests.server.test_ranked import autoplay, clock, game_id_of, players, ranked_app, seat
from tests.server.test_seats import solo_table
from trickroom.game.trickgame import FOLLOW_SUIT
from trickroom.i18n import Msg
from trickroom.i18n.catalogs import render
from trickroom.server.app import App
from trickroom.server.client import ServerError, TrickroomClient
from trickroom.server.config import load_config

__all__ = ["clock", "ranked_app"]  # the ranked server's fixtures, used here too

GREEK = re.compile(r"[α-ωά-ώ]")
# Every reason a Spades prompt may give for a refused card, in Greek.
SPADES_REASONS_EL = {render(reason, "el") for reason in (
    *FOLLOW_SUIT, Msg("The first lead may not be a spade."),
    Msg("Spades are not broken yet: lead another suit."))}


def greek(text: str) -> bool:
    return bool(GREEK.search(text))



@pytest.mark.parametrize(("login", "headers", "language"), [
    ({}, {}, "en"),  # a bot that says nothing of language: English, as ever
    ({"language": "el"}, {}, "el"),
    ({}, {"Accept-Language": "el-GR,el;q=0.9,en;q=0.8"}, "el"),
    ({}, {"Accept-Language": "fr-FR, en-US;q=0.7, el;q=0.5"}, "en"),
    ({}, {"Accept-Language": "fr, de;q=0.5"}, "en"),
    ({"language": "en"}, {"Accept-Language": "el"}, "en"),  # the login's own word first
    ({"language": "en-XA"}, {}, "en-XA"),
])
async def test_welcome_says_the_language_the_login_or_the_browser_chose(app, login, headers,
                                                                       language):
    async with TrickroomClient.connect(url(app), additional_headers=headers) as client:
        welcome = await client.request({"type": "guest", "name": "polyglot", **login})
        assert welcome["language"] == language
        error = await refused(client, {"type": "watch", "table": "nope"})
    assert error["code"] == "no_such_table"
    english = "no table 'nope' is open (it may have closed)"
    assert (error["message"] == english) is (language == "en")
    assert greek(error["message"]) is (language == "el")


async def test_a_language_that_is_not_offered_is_refused_by_field(app):
    async with TrickroomClient.connect(url(app)) as client:
        error = await refused(client, {"type": "guest", "language": "fr"})
    assert error["code"] == "invalid_field" and error["field"] == "language"


async def test_a_wrong_password_is_refused_with_one_code_in_every_language(app):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "register", "name": "eleni", "password": "eleni-pw"})
    answers = {}
    for language in (None, "en", "el", "en-XA"):
        async with TrickroomClient.connect(url(app)) as client:
            asked = {"language": language} if language else {}
            answers[language] = await refused(client, {
                "type": "login", "name": "eleni", "password": "wrong-pw", **asked})
    assert {a["code"] for a in answers.values()} == {"bad_credentials"}
    assert answers[None]["message"] == answers["en"]["message"] == "wrong name or password"
    assert answers["el"]["message"] == "λάθος όνομα ή κωδικός"
    assert answers["en-XA"]["message"].startswith("[ŵŕöñĝ ñàɱé öŕ þàššŵöŕð ")


async def test_settings_keep_the_language_with_the_account_and_apply_it_at_once(db):
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    try:
        async with TrickroomClient.connect(url(app)) as client:
            welcome = await client.request({"type": "register", "name": "nikos",
                                            "password": "nikos-pw"})
            assert welcome["language"] == "en"
            saved = await client.request({"type": "settings"})
            assert saved["language"] is None  # none chosen
            before = await refused(client, {"type": "watch", "table": "nope"})
            saved = await client.request({"type": "settings", "language": "el"})
            assert saved["language"] == "el"
            after = await refused(client, {"type": "watch", "table": "nope"})
        assert before["code"] == after["code"] == "no_such_table"
        assert not greek(before["message"]) and greek(after["message"])
        # The next login, from a browser that asks for English, gets the account's choice;
        # a login that names a language gets that one, and leaves the setting as it was.
        async with TrickroomClient.connect(
                url(app), additional_headers={"Accept-Language": "en"}) as client:
            welcome = await client.request({"type": "login", "name": "nikos",
                                            "password": "nikos-pw"})
            assert welcome["language"] == "el"
            welcome = await client.request({"type": "resume", "token": welcome["session"],
                                            "language": "en-XA"})
            assert welcome["language"] == "en-XA"
            assert (await client.request({"type": "settings"}))["language"] == "el"
        async with TrickroomClient.connect(url(app)) as client:
            welcome = await client.request({"type": "register", "name": "maria",
                                            "password": "maria-pw", "language": "el"})
            assert welcome["language"] == "el"
            assert (await client.request({"type": "settings"}))["language"] == "el"
    finally:
        await app.stop()


async def test_a_chat_flood_is_refused_in_greek_with_the_same_code(app):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest", "name": "flood", "language": "el"})
        for i in range(app.config.settings.chat_burst):
            await client.request({"type": "chat", "room": "spades", "text": f"line {i}"})
        error = await refused(client, {"type": "chat", "room": "spades", "text": "one more"})
    assert error["code"] == "rate_limited" and 0 < error["retry_after"] <= 1.0
    assert re.fullmatch(r"πάρα πολλά μηνύματα συνομιλίας· περιμένετε \d,\d δευτ\. πριν από "
                        r"το επόμενο", error["message"]), error["message"]  # a decimal comma


async def test_a_greek_player_reads_why_a_card_is_refused_in_greek(app):
    """The prompt's reasons and the refusal of an illegal card are Greek; the code is the
    one an English player gets (tests/server/test_hints.py)."""
    async with TrickroomClient.connect(
            url(app), additional_headers={"Accept-Language": "el"}) as client:
        table, _ = await solo_table(client, "spades", {"target": 100, "mercy": 100})
        rng = random.Random(3)
        refusals: list[dict[str, Any]] = []
        reasons: set[str] = set()

        async def play() -> None:
            answered = -1
            async for message in client.messages():
                if message["type"] == "event" and message["event"]["type"] == "game_over":
                    return
                if message["type"] != "prompt" or message["seq"] <= answered:
                    continue
                answered = message["seq"]
                reasons.update(i["reason"] for i in message["illegal"])
                if message["illegal"] and len(refusals) < 3:
                    with pytest.raises(ServerError) as err:
                        await client.act(table, {"type": "play",
                                                 "card": message["illegal"][0]["card"]})
                    refusals.append(err.value.reply)
                if len(refusals) == 3:
                    return
                await client.act(table, choose(message, rng))

        await asyncio.wait_for(play(), 120)
    assert refusals and {r["code"] for r in refusals} == {"illegal_action"}
    assert all(greek(r["message"]) for r in refusals), refusals
    assert reasons and reasons <= SPADES_REASONS_EL, reasons


async def test_a_robots_bid_reason_reaches_each_reader_in_their_language(app):
    """One bid event, two readers: the Greek player reads the robot's reason in Greek, the
    English spectator the same event, same ``seq``, in English."""
    async with TrickroomClient.connect(
            url(app), additional_headers={"Accept-Language": "el"}) as player, \
            TrickroomClient.connect(url(app)) as spectator:
        table, _ = await solo_table(player, "spades", {"target": 1, "mercy": 1000},
                                    level="search", name="akis")
        await spectator.request({"type": "guest", "name": "looker"})
        await spectator.request({"type": "watch", "table": table})

        def whys(client: TrickroomClient) -> dict[int, str]:
            return {m["seq"]: m["event"]["why"] for m in client.received
                    if m.get("type") == "event" and m["event"]["type"] == "bid"
                    and m["event"].get("why")}

        async def bids_told() -> None:
            answered = -1
            async for message in player.messages():
                if message["type"] == "prompt" and message["seq"] > answered:
                    answered = message["seq"]
                    legal = [a for a in message["legal"] if a.get("value")] or message["legal"]
                    await player.act(table, legal[0])
                if len(set(whys(player)) & set(whys(spectator))) >= 2:
                    return

        await asyncio.wait_for(bids_told(), 120)
    mine, theirs = whys(player), whys(spectator)
    both = sorted(set(mine) & set(theirs))
    assert len(both) >= 2
    for seq in both:
        assert greek(mine[seq]) and not greek(theirs[seq]), (mine[seq], theirs[seq])


async def get(app: App, path: str, headers: dict[str, str]) -> tuple[dict[str, str], Any]:
    """A GET of the HTTP API with ``headers``: the reply's headers and its JSON."""
    reader, writer = await asyncio.open_connection("127.0.0.1", app.port)
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    writer.write(f"GET {path} HTTP/1.1\r\nHost: localhost\r\n{extra}Connection: close\r\n\r\n"
                 .encode())
    await writer.drain()
    head, _, body = (await reader.read()).partition(b"\r\n\r\n")
    writer.close()
    fields = dict(line.split(": ", 1) for line in head.decode().split("\r\n")[1:])
    return {k.lower(): v for k, v in fields.items()}, json.loads(body)


@pytest.mark.parametrize(("path", "headers", "language"), [
    ("/api/rules", {}, "en"),
    ("/api/rules?lang=el", {}, "el"),
    ("/api/rules", {"Accept-Language": "el-GR, en;q=0.5"}, "el"),
    ("/api/rules?lang=en", {"Accept-Language": "el"}, "en"),
    ("/api/rules?lang=en-XA", {}, "en-XA"),
])
async def test_the_rules_form_reads_in_the_language_asked(app, path, headers, language):
    """The create-table form is built from /api/rules: its labels, help and choices follow
    ``?lang=`` or Accept-Language; every name, type and value stays as it is."""
    got_headers, got = await get(app, path, headers)
    _, english = await get(app, "/api/rules", {})
    assert got_headers["content-language"] == language
    target = next(r for r in got["rules"]["spades"] if r["name"] == "target")
    assert {"en": "Play to (points)", "el": "Παιχνίδι μέχρι (πόντους)",
            "en-XA": "[Þļàý ţö (þöîñţš) ~~~]"}[language] == target["label"]
    for game, rules in english["rules"].items():
        for theirs, ours in zip(rules, got["rules"][game], strict=True):
            assert {k: v for k, v in theirs.items() if k not in ("label", "help", "choices")} \
                == {k: v for k, v in ours.items() if k not in ("label", "help", "choices")}
            assert [c["value"] for c in theirs.get("choices", [])] == \
                [c["value"] for c in ours.get("choices", [])]
            assert greek(ours["label"] + ours["help"]) is (language == "el")


async def test_a_ranked_games_breakdown_reads_in_greek_at_its_end_and_in_its_review(
        ranked_app):
    """Ranking points, the seed pages' system: the Greek player's ``game_over`` says
    Αξιοπιστία Παιχνιδιού, Ολοκλήρωση and Πιθανότητες; the English players' is as the
    store keeps it; the review reads in the language asked."""
    names = ["ann", "bob", "cat", "dan"]
    async with AsyncExitStack() as stack:
        clients = await players(ranked_app, stack, names)
        await clients[0].request({"type": "settings", "language": "el"})
        table = await seat(clients, "spades-points")
        ends = await asyncio.wait_for(asyncio.gather(
            *(autoplay(c, table, i) for i, c in enumerate(clients))), 120)
        game_id = game_id_of(clients[1])
    greek_lines = [line["text"] for c in ends[0]["ratings"] for line in c["breakdown"]]
    english = ends[1]["ratings"]
    assert any(t.startswith("Αξιοπιστία Παιχνιδιού ") for t in greek_lines), greek_lines
    assert any(t.startswith("Ολοκλήρωση ") for t in greek_lines)
    assert any(t.startswith("Πιθανότητες ") for t in greek_lines)
    assert all(e == g for e, g in zip(
        [{k: v for k, v in c.items() if k != "breakdown"} for c in english],
        [{k: v for k, v in c.items() if k != "breakdown"} for c in ends[0]["ratings"]],
        strict=True))  # the numbers are the same: only the words differ
    stored = await ranked_app.store.game(game_id)
    assert stored["ratings"] == english
    _, review = await get(ranked_app, f"/api/games/{game_id}", {})
    assert review["ratings"] == english
    _, greek_review = await get(ranked_app, f"/api/games/{game_id}?lang=el", {})
    assert greek_review["ratings"] == ends[0]["ratings"]
    _, again = await get(ranked_app, f"/api/games/{game_id}", {"Accept-Language": "el"})
    assert again == greek_review


async def test_a_reviews_robot_reasons_read_in_the_language_asked(make_app):
    """The whole reasons of the robots' bids, which the review tells once the game is
    over, read in the review's language; the English review is the one the store keeps.
    (The table's thinking budget is a second: the robots search their bids, which give
    reasons, and play their cards by rule of thumb, which give none, so the hand is quick.)"""
    app = await make_app(robot_thinking_burst_per_address=1.0,
                         robot_thinking_per_second_per_address=0.001)
    async with TrickroomClient.connect(url(app)) as client:
        table, _ = await solo_table(client, "spades", {"target": 1, "mercy": 1000},
                                    level="search", name="reader")

        async def play_to_the_end() -> str:
            answered = -1
            async for message in client.messages():
                if message["type"] == "prompt" and message["seq"] > answered:
                    answered = message["seq"]
                    legal = [a for a in message["legal"] if a.get("value")] or message["legal"]
                    await client.act(table, legal[0])
                if message["type"] == "event" and message["event"]["type"] == "game_over":
                    return next(m["event"]["game_id"] for m in client.received
                                if m.get("type") == "event"
                                and m["event"]["type"] == "game_started")
            raise AssertionError("the connection closed before the game ended")

        game_id = await asyncio.wait_for(play_to_the_end(), 240)
    _, english = await get(app, f"/api/games/{game_id}", {})
    _, in_greek = await get(app, f"/api/games/{game_id}?lang=el", {})

    def whys(review: dict[str, Any]) -> list[str]:
        return [a["why"] for hand in review["hands"] for a in hand["actions"] if a.get("why")]

    assert whys(english) and len(whys(english)) == len(whys(in_greek))
    assert all(not greek(w) for w in whys(english))
    assert all(greek(w) for w in whys(in_greek)), whys(in_greek)
    assert "said" not in english["record"] and "said" not in in_greek["record"]
    stored = await app.store.game(game_id)
    assert [a.get("why") for a in stored["record"]["actions"]] == \
        [a.get("why") for a in english["record"]["actions"]]


# A malformed field of each kind: the field, pydantic's kind of error, and the English
# words (language-free code and field; the words in the reader's language).
MALFORMED = [
    ({"type": "watch", "table": "t" * 41}, "table", "must be at most 40 characters long"),
    ({"type": "sit", "table": "t", "seat": "one"}, "seat", "must be a whole number"),
    ({"type": "sit", "table": "t", "seat": 7}, "seat", "must be at most 3"),
    ({"type": "sit", "seat": 1}, "table", "is required and missing"),
    ({"type": "watch", "table": "t", "colour": "red"}, "colour",
     "is not a field of this message"),
    ({"type": "guest", "language": "fr"}, "language", "must be one of 'en', 'el' or 'en-XA'"),
    ({"type": "guest", "name": "pаypal"}, "name", "a name is 1 to 24 letters, digits, '_' or "
     "'-', its letters all of one alphabet (no spaces or other signs); 'pаypal' mixes "
     "letters of Cyrillic and Latin, which makes look-alikes"),
]


async def test_a_malformed_field_is_refused_in_the_connections_language(app):
    """Pydantic's own English never reaches a Greek player: each kind of malformed field
    is said in Greek (its limits and choices in Greek lists); the code and the field are
    the ones an English connection gets, whose words are ours and English."""
    async with AsyncExitStack() as stack:
        english = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        greek_one = await stack.enter_async_context(TrickroomClient.connect(
            url(app), additional_headers={"Accept-Language": "el"}))
        for request, field, words in MALFORMED:
            said_en = await refused(english, {**request, "id": 1})
            said_el = await refused(greek_one, {**request, "id": 1})
            assert said_en["code"] == said_el["code"] == "invalid_field", said_en
            assert said_en["field"] == said_el["field"] == field
            assert said_en["message"] == f"field {field!r}: {words}"
            assert said_el["message"].startswith(f"πεδίο {field!r}: "), said_el
            assert greek(said_el["message"]), said_el
            assert not re.search(r"\b(Input|should|required|Field|Extra|missing|Cyrillic|"
                                 r"Latin|or|and|characters?)\b", said_el["message"]), said_el
    assert said_el["message"].endswith("ανακατεύει γράμματα από Κυριλλικό και Λατινικό, κάτι "
                                       "που φτιάχνει ονόματα που μοιάζουν")
