"""Chat with ignore and names as text; the review of a finished game, trick by trick; accounts."""

from __future__ import annotations

import asyncio
import random

from tests.server.conftest import play_until_over
from tests.web.conftest import ws_url
from tests.web.play import create_table, guest_signs_in
from trickroom.server.client import TrickroomClient
from trickroom.server.retention import Retention

HOSTILE = "<script>window.pwned = 1</script><img src=x onerror='window.pwned = 2'>"


async def test_chat_shows_names_and_text_as_text_and_ignore_hides_a_player(web_app, open_page):
    page = await open_page(web_app)
    p = page.page
    me = await guest_signs_in(p, "reader")
    await p.locator(".room-link", has_text="spades").first.click()
    async with TrickroomClient.connect(ws_url(web_app)) as noisy:
        await noisy.request({"type": "guest", "name": "noisy"})
        await noisy.request({"type": "list_tables", "room": "spades"})
        await noisy.request({"type": "chat", "room": "spades", "text": f"hello {HOSTILE}"})
        line = p.locator(".chat-msg", has_text="hello")
        await line.wait_for()
        assert await line.locator(".chat-text").inner_text() == f"hello {HOSTILE}"
        assert await line.locator(".chat-name").inner_text() == "guest-noisy"

        # A name with markup in it (the server refuses such names; the client must not care).
        await p.evaluate("""(hostile) => {
          const ctx = window.trickroom;
          ctx.chatLog('room:spades').push({name: '<script>alert(1)</script>', text: hostile});
          for (const fn of ctx.chatListeners) fn('room:spades');
        }""", HOSTILE)
        odd = p.locator(".chat-msg .chat-name", has_text="<script>alert(1)</script>")
        await odd.wait_for()
        assert await p.evaluate("window.pwned") is None
        assert await p.locator(".chat script, .chat img").count() == 0

        await p.get_by_role("textbox", name="Room chat: spades message").fill("hi from the browser")
        await p.get_by_role("button", name="Send").click()
        heard = await asyncio.wait_for(_next_chat(noisy), 10)
        assert heard == {"type": "chat", "name": me, "text": "hi from the browser",
                         "room": "spades"}
        await page.shot("room-chat")

        await line.locator(".chat-name").click()
        await line.get_by_role("button", name="Ignore guest-noisy").click()
        await line.wait_for(state="detached")
        assert "Ignoring: guest-noisy" in await p.locator(".chat .ignored").inner_text()
        await noisy.request({"type": "chat", "room": "spades", "text": "can you hear me"})
        # The room's next line comes after it: once ours is on screen, theirs never came.
        await p.get_by_role("textbox", name="Room chat: spades message").fill("still here")
        await p.get_by_role("button", name="Send").click()
        await p.locator(".chat-msg", has_text="still here").wait_for()
        assert await p.locator(".chat-msg", has_text="can you hear me").count() == 0
        await page.shot("room-chat-ignoring")
        await page.shot("room-chat-ignoring-phone", phone=True)

        # At a table: the ignored player's table chat does not show either; others' does.
        table = await create_table(p, "spades", {})
        await noisy.request({"type": "watch", "table": table})
        await noisy.request({"type": "chat", "table": table, "text": "still ignored"})
        async with TrickroomClient.connect(ws_url(web_app)) as friend:
            await friend.request({"type": "guest", "name": "friend"})
            await friend.request({"type": "sit", "table": table})
            await friend.request({"type": "chat", "table": table, "text": f"glhf {HOSTILE}"})
            await p.locator(".table-chat .chat-msg", has_text="glhf").wait_for()
        assert await p.locator(".chat-msg", has_text="still ignored").count() == 0
        assert await p.evaluate("window.pwned") is None
        await page.shot("table-chat")

        # A seated player lets spectators chat during the game (off by default).
        option = p.get_by_label("Spectators may chat during the game")
        assert not await option.is_checked()
        await option.check()
        for _ in range(200):
            if web_app.lobby.tables[table].machine.state.spectator_chat:
                break
            await asyncio.sleep(0.05)
        assert web_app.lobby.tables[table].machine.state.spectator_chat


async def _next_chat(client: TrickroomClient) -> dict:
    async for message in client.messages():
        if message["type"] == "chat" and message["name"] != "guest-noisy":
            return message
    raise AssertionError("closed")


async def finished_game(app, room: str, rules: dict, sandbox: dict | None = None,
                        level: str = "random") -> str:
    """A game played to the end over the socket: one guest and three robots."""
    async with TrickroomClient.connect(ws_url(app)) as client:
        await client.request({"type": "guest", "name": "reviewed"})
        reply = await client.request({"type": "create_table", "room": room, "rules": rules,
                                      **({"sandbox": sandbox} if sandbox else {})})
        table = reply["table"]["id"]
        await client.request({"type": "sit", "table": table})
        await client.request({"type": "fill_robots", "table": table, "level": level})
        await asyncio.wait_for(play_until_over(client, table, random.Random(7)), 120)
        game_id = next(m["event"]["game_id"] for m in client.received
                       if m.get("type") == "event" and m["event"]["type"] == "game_started")
    for _ in range(100):
        if await app.store.game(game_id):
            return game_id
        await asyncio.sleep(0.05)
    raise AssertionError("the game was not stored")


async def test_review_steps_through_every_trick_of_every_hand(review_app, open_page):
    game_id = await finished_game(review_app, "hearts", {"target": 30})
    # The review reads the game's packed record alone: its moves are dropped first.
    assert await Retention(review_app.store, 0).sweep() > 0
    assert await review_app.store.action_count(game_id) == 0
    record = await review_app.store.game(game_id)
    hands = record["result"]["hands_played"]
    page = await open_page(review_app)
    p = page.page
    await p.goto(f"{p.url.split('#')[0]}#/review/{game_id}")
    where = p.locator(".review .where")
    await where.wait_for()
    await page.shot("deal")
    await page.shot("deal-phone", phone=True)
    seen = [await where.inner_text()]
    next_button = p.get_by_role("button", name="Next ▶")
    while await next_button.is_enabled():
        await next_button.click()
        text = await where.inner_text()
        assert text != seen[-1]
        seen.append(text)
        if text == f"Hand 1 of {hands} · trick 5 of 13":
            assert await p.locator(".review-center .card").count() == 4
            assert await p.locator(".review-center .played.winner").count() == 1
            await page.shot("trick")
            await page.shot("trick-phone", phone=True)
    expected = [f"Hand {h + 1} of {hands} · " + ("the deal" if t == 0 else f"trick {t} of 13")
                for h in range(hands) for t in range(14)]
    assert seen == expected
    # All four hands are shown, every card of the last hand is played by now, and the
    # scores worked out in the browser match the stored result.
    assert await p.locator(".review-seat").count() == 4
    assert await p.locator(".mini-hand .card").count() == 52
    assert await p.locator(".mini-hand .card.gone").count() == 52
    final_row = p.locator(".sheet tbody tr").last
    # A cell reads "3 → 16", and "shot the moon" under it when a seat did.
    totals = [int(x.split("→")[1].split()[0].replace("−", "-"))
              for x in await final_row.locator("td").all_inner_texts()]
    assert totals == record["result"]["scores"]
    assert await p.locator(".review-head .hint", has_text="differ").count() == 0
    await page.shot("end")
    # Arrow keys step too.
    await p.keyboard.press("ArrowLeft")
    assert await where.inner_text() == expected[-2]


async def test_spades_review_scores_match_the_stored_result(review_app, open_page):
    game_id = await finished_game(review_app, "spades", {"target": 150, "mercy": 100})
    record = await review_app.store.game(game_id)
    page = await open_page(review_app, label="spades")
    p = page.page
    await p.goto(f"{p.url.split('#')[0]}#/review/{game_id}")
    await p.locator(".review .where").wait_for()
    last_hand = f"Hand {record['result']['hands_played']}"
    await p.get_by_role("button", name=last_hand, exact=True).click()
    for _ in range(13):
        await p.get_by_role("button", name="Next ▶").click()
    cells = await p.locator(".sheet tbody tr").last.locator("td .pts").all_inner_texts()
    totals = [int(c.split("→")[1].split("·")[0].replace("−", "-")) for c in cells]  # U+2212
    assert totals == record["result"]["scores"]
    await page.shot("end")


async def test_register_reload_sign_out_and_log_in(web_app, open_page):
    page = await open_page(web_app)
    p = page.page
    register = p.locator("form", has=p.get_by_role("heading", name="Register"))
    await register.get_by_label("Name").fill("<script>")
    await register.get_by_label("Password (6 or more characters)").fill("secret-pw")
    await register.get_by_role("button", name="Register").click()
    # The refusal is said in the form that was sent, as a sentence.
    refused = register.get_by_role("alert").filter(has_text="letters, digits")
    await refused.wait_for()
    text = await refused.inner_text()
    assert text[0].isupper() and text.endswith("."), text
    await register.get_by_label("Name").fill("grace")
    await register.get_by_role("button", name="Register").click()
    await p.locator(".me-name", has_text="grace").wait_for()
    await p.reload()
    await p.locator(".me-name", has_text="grace").wait_for()
    assert "(guest)" not in await p.locator(".me-name").inner_text()
    await p.get_by_role("link", name="Profile").click()
    await p.locator(".profile h1", has_text="grace").wait_for()
    await page.shot("profile-empty")
    await p.get_by_role("button", name="Sign out").click()
    await register.get_by_label("Name").fill("Grace")
    await register.get_by_label("Password (6 or more characters)").fill("secret-pw")
    await register.get_by_role("button", name="Register").click()
    taken = register.get_by_role("alert").filter(has_text="taken")
    await taken.wait_for()
    assert await taken.inner_text() == "That name is taken: choose another."
    await page.shot("register-name-taken")
    login = p.locator("form", has=p.get_by_role("heading", name="Log in"))
    await login.get_by_label("Name").fill("grace")
    await login.get_by_label("Password").fill("wrong-pw")
    await login.get_by_role("button", name="Log in").click()
    await login.get_by_role("alert").filter(has_text="Wrong name or password.").wait_for()
    await login.get_by_label("Password").fill("secret-pw")
    await login.get_by_role("button", name="Log in").click()
    await p.locator(".me-name", has_text="grace").wait_for()
    await p.get_by_role("link", name="Leaderboards").click()
    await p.locator(".leaders .board").wait_for()
    await page.shot("leaderboards")


async def test_a_player_asks_for_the_robots_analysis_and_reads_each_decision(tmp_path,
                                                                            open_page):
    """Issue 38: from a finished game's review a player asks for the robots' analysis,
    watches it come, and reads each seat's accuracy, the chart of their losses, the bid's
    loss at the deal and, trick by trick, each card's loss against the best choice, with
    the best line on request."""
    from tests.web.conftest import start_app
    app = await start_app(tmp_path, robot_delay=0.0, hand_pause=0.0, analysis_samples=8)
    try:
        # A game that plays the same every run (the deal's seed fixed, the robots the rule
        # of thumb's, the guest's random moves seeded), so its analysis is the same too.
        game_id = await finished_game(app, "spades", {"hand_limit": 1},
                                      sandbox={"seed": 11}, level="heuristic")
        async with asyncio.timeout(10):
            while app.lobby.tables:  # a sandbox's game is shown once its table closes
                await asyncio.sleep(0.05)
        page = await open_page(app)
        p = page.page
        await guest_signs_in(p, "student")
        await p.goto(f"{p.url.split('#')[0]}#/review/{game_id}")
        panel = p.locator("section.analysis")
        await panel.locator('[data-action="analyse"]').click()
        seats = panel.locator("table.analysis-seats tbody tr")
        await seats.first.wait_for(timeout=60_000)
        assert await seats.count() == 1  # the one seat a person held
        assert "guest-reviewed" in await seats.first.inner_text()
        await panel.locator("svg.loss-chart polyline").first.wait_for()
        # At the deal, before any trick: the seat's bid, its best and its loss (a bid is a
        # decision too, read where the bids are).
        bid_line = p.locator(".review-center .deal-notes li", has_text="guest-reviewed")
        await bid_line.first.wait_for()
        said = await bid_line.first.inner_text()
        assert "the best choice" in said or ("chose" in said and "points lost" in said), said
        accuracy = p.locator(".review-center .hand-accuracy")
        assert "guest-reviewed" in await accuracy.inner_text()  # the hand's accuracy, a seat
        await page.shot("analysis-bids", phone=True)
        next_button = p.get_by_role("button", name="Next ▶")
        shown_line = False
        while await next_button.is_enabled() and not shown_line:
            await next_button.click()
            best = p.locator(".review-center .decision-notes button", has_text="Show the best line")
            if await best.count():
                await best.first.click()
                await p.locator(".review-center .best-line").wait_for()
                shown_line = True
        assert shown_line, "no decision with a better choice"
        await page.shot("analysis")
        await page.shot("analysis-phone", phone=True)
        page.check()
    finally:
        await app.stop()


async def test_a_profile_shows_the_player_s_accuracy_over_their_analysed_games(tmp_path,
                                                                              open_page):
    """Issue 38: once a player's games are analysed, their profile says their accuracy
    (per game, over how many games), in the reader's language."""
    from tests.server.test_analysis import finished_game as played
    from tests.server.test_analysis import result_of
    from tests.web.conftest import start_app
    app = await start_app(tmp_path, robot_delay=0.0, hand_pause=0.0, analysis_samples=4)
    try:
        async with TrickroomClient.connect(ws_url(app)) as client:
            await client.request({"type": "register", "name": "grace",
                                  "password": "secret-pw"})
            page = await open_page(app)
            p = page.page
            await p.goto(f"{p.url.split('#')[0]}#/player/grace")
            await p.locator(".profile h1", has_text="grace").wait_for()
            await p.locator(".profile .recent").wait_for()
            assert await p.locator(".profile section.accuracy").count() == 0  # none yet
            game_id = await played(client, app, "hearts")
            await client.request({"type": "analyse", "game_id": game_id})
            analysis = (await result_of(app, game_id))["analysis"]
        mine = analysis["seats"][0]["accuracy"]
        await p.reload()
        section = p.locator(".profile section.accuracy")
        await section.get_by_role("heading", name="Accuracy").wait_for()
        line = section.locator(".stat", has_text="Hearts")
        assert await line.locator("dd").inner_text() == f"{round(mine, 1):g}% over 1 game"
        await page.shot("profile-accuracy")
        greek = await open_page(app, locale="el", label="el")
        g = greek.page
        await g.goto(f"{g.url.split('#')[0]}#/player/grace")
        shown = g.locator(".profile section.accuracy .stat dd")
        await shown.wait_for()
        assert (await shown.inner_text()).endswith("σε 1 παιχνίδι")
    finally:
        await app.stop()
