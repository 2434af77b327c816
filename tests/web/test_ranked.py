"""Ranked rooms in the browser: the Zone vote prompt on a drop, rating changes, the profile chart.

The browser player is registered; the other three seats are socket bots from
the test (tests/server's ``autoplay``), which vote as told.
"""

from __future__ import annotations

import asyncio
import random
from contextlib import AsyncExitStack
from dataclasses import replace

import pytest_asyncio

from tests.server.conftest import play_until_over, wait_for
from tests.server.test_ranked import autoplay
from tests.web.conftest import WEB_SETTINGS, ws_url
from tests.web.play import play_to_game_over
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config

PASSWORD = "secret-pw"


@pytest_asyncio.fixture(loop_scope="session")
async def ranked_app(tmp_path):
    """Ranked rooms whose host plays short games (a player may not change a ranked room's
    rules)."""
    config = load_config(None, **{**WEB_SETTINGS, "vote_seconds": 60.0,
                                  "reconnect_seconds": 120.0, "min_games": 5})
    short = {"spades": {"target": 10, "mercy": 10}, "hearts": {"target": 10}}
    rooms = {name: replace(room, rules={**room.rules, **short[room.game]}) if room.rated
             else room for name, room in config.rooms.items()}
    server = App(replace(config, rooms=rooms), tmp_path / "trickroom.sqlite3")
    await server.start("127.0.0.1", 0)
    yield server
    await server.stop()


async def bots(app, stack: AsyncExitStack, names: list[str]) -> list[TrickroomClient]:
    clients = []
    for i, name in enumerate(names):  # other people: other addresses than the browser's
        client = await stack.enter_async_context(
            TrickroomClient.connect(ws_url(app), local_addr=(f"127.0.0.{10 + i}", 0)))
        await client.request({"type": "register", "name": name, "password": PASSWORD})
        await app.store.set_casual_games(name, 5)
        clients.append(client)
    return clients


async def register_in_browser(page, app, name: str) -> None:
    register = page.locator("form", has=page.get_by_role("heading", name="Register"))
    await register.get_by_label("Name").fill(name)
    await register.get_by_label("Password (6 or more characters)").fill(PASSWORD)
    await register.get_by_role("button", name="Register").click()
    await page.locator(".me-name", has_text=name).wait_for()


async def browser_creates_ranked_table(page, room: str) -> str:
    await page.locator(".room-link", has_text=room).first.click()
    await page.get_by_role("button", name="Create table").click()
    dialog = page.locator("dialog.create-dialog")
    # The host's rules are shown, not offered for change.
    await dialog.locator(".host-rules", has_text="Play to (points): ").wait_for()
    assert await dialog.get_by_label("Play to (points)").count() == 0
    await dialog.get_by_role("button", name="Create and sit").click()
    await page.locator(".table-page").wait_for()
    return page.url.rsplit("/", 1)[1]


async def test_zone_vote_prompt_on_a_drop_then_the_game_goes_on(ranked_app, open_page):
    page = await open_page(ranked_app)
    p = page.page
    await register_in_browser(p, ranked_app, "ann")
    # Not experienced yet: the lobby says why before any click, and offers no table.
    await p.locator(".room-link", has_text="spades-zone").first.click()
    await p.locator(".eligibility").filter(has_text="Not experienced yet").wait_for()
    assert await p.get_by_role("button", name="Create table").is_disabled()
    await page.shot("refused")
    await ranked_app.store.set_casual_games("ann", 5)

    async with AsyncExitStack() as stack:
        bob, cat, dan = await bots(ranked_app, stack, ["bob", "cat", "dan"])
        table = await browser_creates_ranked_table(p, "spades-zone")
        tokens = {}
        for client in (bob, cat, dan):
            reply = await client.request({"type": "sit", "table": table})
            tokens[client] = reply["seat_token"]
        t = ranked_app.lobby.tables[table].machine
        tasks = {c: asyncio.create_task(autoplay(c, table, i, {"wait": "wait"}))
                 for i, c in enumerate((bob, cat, dan))}
        browser = asyncio.create_task(play_to_game_over(p, limit=240))

        await wait_for(lambda: t.state.game is not None and len(t.state.game.actions) >= 10, 60)
        tasks[bob].cancel()
        await bob.ws.close()
        box = p.get_by_role("alertdialog")
        await box.filter(has_text="bob has dropped. Wait for them?").wait_for()
        assert "left" in await box.locator(".countdown").inner_text()
        await page.shot("vote")
        await page.shot("vote-phone", phone=True)
        await box.get_by_role("button", name="Wait", exact=True).click()
        await box.filter(has_text="Decided: Wait").wait_for()
        await p.locator(".turn-status", has_text="Paused: waiting for bob").wait_for()
        assert t.state.paused
        await page.shot("paused")
        # bob comes back with the seat token: the game goes on.
        back = await stack.enter_async_context(TrickroomClient.connect(ws_url(ranked_app)))
        await back.request({"type": "login", "name": "bob", "password": PASSWORD})
        await back.request({"type": "rejoin", "table": table, "seat_token": tokens[bob],
                            "last_seq": 0})
        tasks[bob] = asyncio.create_task(autoplay(back, table, 9))
        await wait_for(lambda: not t.state.paused)
        counts = await asyncio.wait_for(browser, 240)
        await asyncio.wait_for(asyncio.gather(*tasks.values()), 60)
        assert counts["plays"] >= 5

        over = p.locator("dialog.game-over")
        await over.wait_for()
        changes = over.locator(".rating-change")
        assert await changes.count() == 4
        await changes.first.locator("summary").click()
        assert await changes.first.locator(".breakdown tr").count() >= 2
        # The table changes under the dialog (cat leaves): the breakdown ann opened stays
        # open, the dialog is not drawn afresh.
        await cat.request({"type": "stand", "table": table})
        await p.locator(".seat .nm", has_text="(left)").first.wait_for()
        assert await changes.first.locator("details").get_attribute("open") is not None
    await page.shot("game-over-ratings")
    await page.shot("game-over-ratings-phone", phone=True)


async def test_profile_chart_and_leaderboard_after_ranked_games(ranked_app, open_page):
    async with AsyncExitStack() as stack:
        eve, *others = await bots(ranked_app, stack, ["eve", "fay", "gus", "hal"])
        # A casual game first, against robots: the profile lists it with the ranked ones.
        casual = (await eve.request({"type": "create_table", "room": "hearts",
                                     "rules": {"target": 10}}))["table"]["id"]
        await eve.request({"type": "sit", "table": casual})
        await eve.request({"type": "fill_robots", "table": casual, "level": "random"})
        await asyncio.wait_for(play_until_over(eve, casual, random.Random(9)), 60)
        # A first ranked game, all over the socket, so the chart has two points.
        created = await eve.request({"type": "create_table", "room": "hearts-zone"})
        first = created["table"]["id"]
        for client in (eve, *others):
            await client.request({"type": "sit", "table": first})
        await asyncio.wait_for(asyncio.gather(*(
            play_until_over(c, first, random.Random(i)) for i, c in enumerate((eve, *others)))), 60)
        await eve.ws.close()

        page = await open_page(ranked_app)
        p = page.page
        login = p.locator("form", has=p.get_by_role("heading", name="Log in"))
        await login.get_by_label("Name").fill("eve")
        await login.get_by_label("Password").fill(PASSWORD)
        await login.get_by_role("button", name="Log in").click()
        await p.locator(".me-name", has_text="eve").wait_for()
        table = await browser_creates_ranked_table(p, "hearts-zone")
        for client in others:
            await client.request({"type": "sit", "table": table})
        tasks = [asyncio.create_task(autoplay(c, table, i)) for i, c in enumerate(others)]
        # The game starts with each player's chance, from the room's rating system.
        start = p.locator(".toast", has_text="Game on. Chances: you ")
        await start.wait_for()
        assert (await start.inner_text()).count("%") == 4
        counts = await play_to_game_over(p, limit=240)
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
    assert counts["passes"] >= 1

    over = p.locator("dialog.game-over")
    assert await over.locator(".rating-change").count() == 4
    # "Your chances": the room's system gave each player's chance when the game began;
    # the bar shows them, and the game-over dialog beside the rating changes.
    chances = await p.locator(".table-bar .chances").inner_text()
    assert chances.count("%") == 5 and "(yours " in chances, chances  # four seats and ours
    shown = await over.locator(".ratings .chances").inner_text()
    assert shown.startswith("Chances before the game: you ") and shown.count("%") == 4, shown
    await page.shot("game-over")
    await over.locator(".rating-change a", has_text="eve").click()
    chart = p.locator("svg.rating-chart")
    await chart.wait_for()
    # Two games, and the line starts from the start value (the first game's rating before it).
    assert await chart.locator("circle.dot").count() == 3
    assert await chart.locator("text.axis-label", has_text="start").count() == 1
    label = await chart.get_attribute("aria-label")
    assert label.startswith("Hearts rating history, Zone: 2 games, from 1600 to "), label
    assert await chart.locator("path.line").count() == 1
    assert "Hearts" in await p.locator(".rating-card h2").first.inner_text()
    # Recent games, casual and ranked, newest first, each with its review.
    recent = p.locator(".recent-games li")
    assert await recent.count() == 3
    texts = await recent.all_inner_texts()
    assert "ranked in hearts-zone" in texts[0] and "casual in hearts" in texts[2], texts
    await recent.nth(2).get_by_role("link").click()
    await p.locator(".review .where").wait_for()
    await p.go_back()
    await p.locator(".recent-games").wait_for()
    await page.shot("profile")
    await page.shot("profile-phone", phone=True)
    await p.get_by_role("link", name="Leaderboards").click()
    await p.locator(".leaders").wait_for()
    await p.locator('.leaders select[name="game"]').select_option("hearts")
    await p.locator(".leaderboard caption", has_text="Hearts").wait_for()
    assert await p.locator(".leaderboard tbody tr").count() == 4
    await page.shot("leaderboard")


async def test_random_queue_shows_its_length_and_seats_the_browser_player(ranked_app, open_page):
    page = await open_page(ranked_app)
    p = page.page
    await register_in_browser(p, ranked_app, "ivy")
    await ranked_app.store.set_casual_games("ivy", 5)
    async with AsyncExitStack() as stack:
        others = await bots(ranked_app, stack, ["jon", "kim", "lee"])
        await p.locator(".room-link", has_text="spades-zone").first.click()
        await p.get_by_role("button", name="Join the queue").click()
        status = p.locator(".queue-status")
        await status.filter(has_text="1 player waiting").wait_for()
        await others[0].request({"type": "queue", "room": "spades-zone"})
        await status.filter(has_text="2 players waiting").wait_for()
        await page.shot("queue")
        await page.shot("queue-phone", phone=True)
        for client in others[1:]:
            await client.request({"type": "queue", "room": "spades-zone"})
        # Four are matched: the server seats the browser player, who lands on the table.
        await p.locator(".table-page .seat.me").wait_for()
        assert await p.locator(".seat .badge.robot").count() == 0
        await page.shot("seated-from-queue")
