"""Playing with people you know, in the browser (issue 35): a private table's invite link
opened by a fresh browser seats a newcomer as a guest; a friend's presence appears and
moves as they do; a challenge sent from the friends page is accepted in the other browser
and seats both at the table it opens."""

from __future__ import annotations

from tests.web.conftest import PHONE, laid_out
from tests.web.play import guest_signs_in
from tests.web.test_a11y import Audit


async def registers(page, name: str) -> None:
    form = page.locator("form[aria-labelledby=register-h]")
    await form.get_by_label("Name").fill(name)
    await form.get_by_label("Password (6 or more characters)").fill(f"{name}-secret")
    await form.get_by_role("button", name="Register").click()
    await page.locator(".me-name").wait_for()


async def test_an_invite_link_seats_a_newcomer_at_a_private_table(web_app, open_page):
    host = await open_page(web_app, label="host")
    p = host.page
    await guest_signs_in(p, "host")
    await p.locator(".room-link", has_text="spades").first.click()
    await p.get_by_role("button", name="Create table").click()
    dialog = p.locator("dialog.create-dialog")
    await dialog.locator('input[name="private"]').check()
    await dialog.get_by_role("button", name="Create and sit").click()
    invite = p.locator("dialog.invite-dialog")
    await invite.wait_for()
    audit = Audit(host)
    await audit("invite-dialog")  # axe, and screenshots at laptop and phone width
    link = await invite.get_by_label("Invite link").input_value()
    assert "/#/join/" in link
    await invite.get_by_role("button", name="Done").click()
    await p.locator(".table-page").wait_for()

    friend = await open_page(web_app, viewport=PHONE, label="friend")  # a fresh browser
    await friend.page.goto(link)
    await friend.page.locator(".table-page").wait_for()
    await laid_out(friend.page)
    await friend.shot("seated-by-link", phone=True)
    audit.check()
    me = await friend.page.evaluate("window.trickroom.me")
    assert me["guest"] is True  # signed in as a guest on the way
    table = link.rsplit("/", 2)[1]
    machine = web_app.lobby.tables[table].machine
    assert sorted(s.name for s in machine.state.seats if s.kind == "human") == \
        sorted(["guest-host", me["name"]])

    # At the table, its opener finds the link again and may remove the newcomer before
    # the game; the newcomer's link then lets them in no more.
    panel = p.locator(".invite-panel")
    await panel.get_by_role("button", name="Copy link").wait_for()
    assert await panel.get_by_label("Invite link").input_value() == link
    # ... move them to South (they are told, and their browser follows), then remove them.
    await panel.get_by_label(f"Move {me['name']} to").select_option(label="South")
    await friend.page.wait_for_function(
        f"() => window.trickroom.seatAt({table!r})?.seat === 2", timeout=20_000)
    assert [s.name for s in machine.state.seats][2] == me["name"]
    await panel.get_by_role("button", name=f"Remove {me['name']}").click()
    await p.locator(".invite-panel").get_by_role("button", name=f"Remove {me['name']}").wait_for(
        state="detached")
    assert sorted(s.name for s in machine.state.seats if s.kind == "human") == ["guest-host"]

    # A stale link says to ask for a new one.
    late = await open_page(web_app, label="late")
    await late.page.goto(link.rsplit("/", 1)[0] + "/not-the-code")
    await late.page.get_by_text("Ask the table for a new link").wait_for()


async def test_a_friend_s_presence_and_a_challenge_between_two_browsers(web_app, open_page):
    ann = await open_page(web_app, label="ann")
    bob = await open_page(web_app, label="bob")
    await registers(ann.page, "ann")
    await registers(bob.page, "bob")
    await ann.page.get_by_role("link", name="Friends").click()
    await ann.page.get_by_role("textbox", name="Follow a player").fill("bob")
    await ann.page.get_by_role("button", name="Follow", exact=True).click()
    row = ann.page.locator('li.friend[data-name="bob"]')
    await row.get_by_text("online", exact=True).wait_for()
    # Bob sits at a table: it shows on Ann's page as it happens.
    await bob.page.locator(".room-link", has_text="hearts").first.click()
    await bob.page.get_by_role("button", name="Create table").click()
    await bob.page.locator("dialog.create-dialog").get_by_role("button",
                                                              name="Create and sit").click()
    await bob.page.locator(".table-page").wait_for()
    await row.get_by_text("playing Hearts in hearts").wait_for()
    audit = Audit(ann)
    await audit("friends")
    await bob.page.get_by_role("button", name="Leave table").click()
    await row.get_by_text("online", exact=True).wait_for()

    await row.get_by_role("button", name="Challenge").click()
    await row.get_by_role("button", name="Send challenge").click()
    challenge = bob.page.locator("dialog.challenge-dialog")
    await challenge.get_by_text("ann challenges you").wait_for()
    bob_audit = Audit(bob)
    await bob_audit("challenged")
    await challenge.get_by_role("button", name="Accept").click()
    for page in (ann.page, bob.page):
        await page.locator(".table-page").wait_for()
    table = ann.page.url.rsplit("/", 1)[1]
    assert bob.page.url.rsplit("/", 1)[1] == table
    seats = web_app.lobby.tables[table].machine.state.seats
    assert [s.name for s in seats if s.kind == "human"] == ["ann", "bob"]
    audit.check()
    bob_audit.check()


async def test_four_browsers_play_a_rematch_with_new_partners(tmp_path, open_page):
    """The same four play again with new partners: each browser presses the button, and
    each follows its player to the new seat. (Turns time out at once, so robots play the
    game for the four and it is over in seconds.)"""
    from tests.web.conftest import start_app

    app = await start_app(tmp_path, turn_seconds=0.05, hand_pause=0.05)
    try:
        pages = [await open_page(app, label=f"p{i}") for i in range(4)]
        names = [await guest_signs_in(page.page, f"mate{i}") for i, page in enumerate(pages)]
        first = pages[0].page
        await first.locator(".room-link", has_text="spades").first.click()
        await first.get_by_role("button", name="Create table").click()
        dialog = first.locator("dialog.create-dialog")
        await dialog.get_by_label("Play to (points)").fill("10")
        await dialog.get_by_label("Mercy: end when a side falls to minus (empty: off)").fill("10")
        await dialog.get_by_role("button", name="Create and sit").click()
        await first.locator(".table-page").wait_for()
        table = first.url.rsplit("/", 1)[1]
        for page in pages[1:]:
            await page.page.goto(f"{page.page.url.split('#')[0]}#/table/{table}")
            await page.page.get_by_role("button", name="Sit here").first.click()
            await page.page.locator(".seat.me").wait_for()
        machine = app.lobby.tables[table].machine
        before = [s.name for s in machine.state.seats]
        assert sorted(before) == sorted(f"guest-{n}" if not n.startswith("guest") else n
                                        for n in names)
        for page in pages:
            await page.page.locator("dialog.game-over").wait_for(timeout=60_000)
        for page in pages:
            await page.page.locator("dialog.game-over").get_by_role(
                "button", name="Play again, new partners").click()
        await first.wait_for_function(
            "() => document.querySelector('.table-page')?.dataset.phase !== 'game_over'")
        after = [s.name for s in machine.state.seats]
        assert after == [before[0], before[3], before[1], before[2]]
        for page in pages:  # each browser sits where its player now sits
            me = await page.page.evaluate("window.trickroom.me.name")
            seat = after.index(me)
            await page.page.wait_for_function(
                f"() => window.trickroom.seatAt({table!r})?.seat === {seat}", timeout=20_000)
    finally:
        await app.stop()
