"""The store: what a commit means, and what the host's durability setting changes."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from tests.services import POSTGRES, drop_schema, fresh_name, need
from trickroom.ratings import SYSTEMS, GameResult, Rating, rate
from trickroom.ratings import Seat as RatedSeat
from trickroom.server.config import ConfigError, load_config
from trickroom.server.store import (
    Conflict,
    Fence,
    NameTaken,
    SqliteStore,
    StaleOwner,
    Store,
    open_store,
)
from trickroom.server.store.statements import INDEX_PLAYER
from trickroom.server.tables.records import ActionTaken, Banned, GameCreated, GameEnded, Rated


def game(game_id: str = "g1") -> GameCreated:
    return GameCreated(game_id, "t1", "spades", "spades", {}, 7, 0, (), "fixed_seating")


def action(i: int, card: str = "2C", game_id: str = "g1") -> ActionTaken:
    return ActionTaken(game_id, i, i % 4, {"type": "play", "card": card})


@pytest.fixture(params=["sqlite", "postgresql"])
async def target(request, tmp_path):
    """Where a store lives: an SQLite file, or a PostgreSQL schema of its own."""
    if request.param == "sqlite":
        yield str(tmp_path / "db.sqlite3")
        return
    need("postgresql")
    schema = fresh_name("t_store")
    yield f"{POSTGRES}?schema={schema}"
    await drop_schema(schema)


@pytest.fixture
async def store(target):
    """An open store (each engine in turn) holding one game, ``g1``."""
    opened = open_store(target)
    await opened.open()
    await opened.persist([game()])
    yield opened
    await opened.close()


@pytest.fixture
async def sqlite_store(tmp_path):
    opened = SqliteStore(tmp_path / "db.sqlite3")
    await opened.open()
    await opened.persist([game()])
    yield opened
    await opened.close()


def synchronous(store: SqliteStore) -> int:  # SQLite's own setting
    assert store._conn is not None
    return int(store._conn.execute("PRAGMA synchronous").fetchone()[0])


@pytest.mark.parametrize(("durability", "level"), [("server_crash", 1), ("power_loss", 2)])
async def test_durability_picks_whether_each_commit_waits_for_the_disk(tmp_path, durability,
                                                                        level):
    store = SqliteStore(tmp_path / "db.sqlite3", durability=durability)
    await store.open()
    try:
        assert synchronous(store) == level  # NORMAL: in the OS's hands; FULL: fsynced
    finally:
        await store.close()


async def test_an_acknowledged_action_is_stored_before_the_store_closes(store, target):
    """What a SIGKILL leaves behind: another store opening the same database (a restarted
    server, another node) sees every acknowledged write, with this one still open."""
    await asyncio.gather(*(store.persist([action(i, c)])
                           for i, c in enumerate(["2C", "3C", "4C", "5C"])))
    assert store.commits < store.writes  # the four actions shared commits
    other = open_store(target)
    await other.open()
    try:
        (stored,) = await other.unfinished_games()
        assert [a["card"] for a in stored.actions] == ["2C", "3C", "4C", "5C"]
    finally:
        await other.close()


async def test_one_failing_write_fails_alone(store):
    results = await asyncio.gather(
        store.persist([action(0, "2C")]),
        store.persist([action(0, "3C")]),  # same idx: refused
        store.persist([action(1, "4C")]),
        return_exceptions=True)
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], Conflict)
    assert await store.action_count("g1") == 2


def test_an_unknown_durability_is_refused_by_name(tmp_path):
    with pytest.raises(ConfigError, match="durability must be"):
        load_config(durability="sometimes")
    with pytest.raises(ValueError, match="durability must be one of"):
        SqliteStore(tmp_path / "db.sqlite3", durability="sometimes")


async def test_the_write_ahead_log_stays_bounded_under_steady_writes(sqlite_store):
    """A busy server commits thousands of times a minute; its WAL must not grow for ever."""
    store = sqlite_store
    for i in range(3000):  # one commit each: the worst case for the log
        await store.persist([action(i)])
    wal = Path(store.path + "-wal")
    assert wal.stat().st_size < 8 * 2**20  # 1,000 pages of 4 KiB, and slack


async def test_a_table_s_records_land_together_or_not_at_all(store):
    """One failing record undoes the others of the same write (the machine then undoes it)."""
    with pytest.raises(Conflict):
        await store.persist([action(0), action(1), action(1, "3C")])  # idx 1 twice
    assert await store.action_count("g1") == 0
    await store.persist([action(0), action(1)])
    assert await store.action_count("g1") == 2


def zone_result(winners: tuple[int, ...] = (0, 2)) -> GameResult:
    seats = tuple(RatedSeat(i, name) for i, name in enumerate(["ann", "bob", "cat", "dan"]))
    return GameResult("spades", "zone", "fixed_seating", seats, (500, 200, 500, 200), winners,
                      True, 1.0)


async def test_a_game_s_end_and_its_rating_changes_are_one_write(store):
    result = zone_result()
    changes = tuple(rate(result, {p: Rating(1600.0) for p in ("ann", "bob", "cat", "dan")}))
    ended = GameEnded("g1", {"scores": [500, 200]}, {"actions": []},
                      tuple(c.to_wire() for c in changes))
    await store.persist([ended, Rated("g1", result, changes)])
    record = await store.game("g1")
    assert record is not None and record["ratings"] == [c.to_wire() for c in changes]
    standings = await store.standings(["ann", "bob"], "spades", "zone")
    assert standings["ann"].rating.value == 1616.0 and standings["bob"].rating.value == 1584.0
    assert standings["ann"].stats.games == 1 and standings["ann"].stats.wins == 1


async def test_a_player_s_record_counts_every_rated_game_written(store):
    """Stats and history move from what is stored when the change is written."""
    result = zone_result()
    start = {p: Rating(1600.0) for p in ("ann", "bob", "cat", "dan")}
    await store.persist([game("g2")])
    for game_id in ("g1", "g2"):
        await store.persist([Rated(game_id, result, tuple(rate(result, start)))])
    ann = (await store.standings(["ann"], "spades", "zone"))["ann"]
    assert ann.stats.games == 2 and ann.stats.wins == 2 and len(ann.stats.history) == 2


async def test_a_ban_keeps_the_later_end(store):
    await store.create_user("peter", "x")
    await store.persist([Banned("peter", 2000.0, "quit a ranked game")])
    await store.persist([Banned("peter", 1000.0, "quit a ranked game")])
    account = await store.account("peter")
    assert account is not None and account["banned_until"] == 2000.0


async def opened_as_before(path, change: str) -> SqliteStore:
    """The store's file as an older version left it (no schema version recorded, and
    ``change`` undoes what it lacked), opened by this version: it is brought up to date."""
    conn = sqlite3.connect(path)
    conn.execute(change)
    conn.execute("DROP TABLE schema_version")
    conn.commit()
    conn.close()
    store = SqliteStore(path)
    await store.open()
    return store


def seats_of(*names: str, kind: str = "human") -> tuple[dict, ...]:
    return tuple({"seat": i, "name": n, "account": n if " " not in n else None,
                  "kind": "robot" if " " in n else kind, "starter": n, "substitute": False,
                  "guest": n.startswith("guest-")} for i, n in enumerate(names))


def ended(game_id: str, winners=(0, 2), finished=True) -> GameEnded:
    return GameEnded(game_id, {"scores": [500, 200], "winners": list(winners),
                               "finished": finished}, {"actions": []})


async def test_recent_games_are_the_last_twenty_of_the_player_newest_first(store):
    await store.create_user("ann", "x")
    for i in range(25):
        game_id = f"r{i:02d}"
        await store.persist([GameCreated(game_id, "t1", "spades", "spades", {}, i, 0,
                                         seats_of("Bot Hazel", "ann", "guest-x", "bob"),
                                         "fixed_seating"),
                             ended(game_id, winners=(1, 3) if i % 2 else (0, 2),
                                   finished=i != 24)])
    recent = await store.recent_games("ANN")
    assert [r["game_id"] for r in recent] == [f"r{i:02d}" for i in range(24, 4, -1)]
    assert recent[0]["abandoned"] and not recent[1]["abandoned"]
    assert [r["won"] for r in recent[:3]] == [False, True, False]
    assert recent[0]["players"] == ["Bot Hazel", "ann", "guest-x", "bob"]
    assert recent[0]["seat"] == 1 and not recent[0]["rated"]
    assert await store.recent_games("Bot Hazel") == []  # robots and guests are not indexed
    assert await store.recent_games("guest-x") == []
    assert len(await store.recent_games("bob")) == 20
    assert (await store.player("ann"))["recent_games"] == recent
    if isinstance(store, SqliteStore):  # the profile's query reads an index, not the table
        plan = store._conn.execute("EXPLAIN QUERY PLAN SELECT game_id FROM game_players "
                                   "WHERE player = 'ann' ORDER BY finished DESC").fetchall()
        assert "game_players_recent" in str(plan)


async def test_an_export_pages_a_player_s_ended_games_newest_first_by_key(store):
    """``player_games`` (the JSON Lines export): newest first, ties in time by id; each
    page after the last one's key, so pages never repeat or skip a game."""
    await store.create_user("ann", "x")
    for i in range(5):
        await store.persist([GameCreated(f"e{i}", "t1", "spades", "spades", {}, i, 0,
                                         seats_of("ann", "Bot Hugo", "bob", "guest-x"),
                                         "fixed_seating"), ended(f"e{i}")])
    await store.persist([GameCreated("live", "t2", "spades", "spades", {}, 9, 0,
                                     seats_of("ann"), "fixed_seating")])
    await store._write_all([(INDEX_PLAYER, ("ann", game_id, 0, 10.0))
                            for game_id in ("tie-a", "tie-c", "tie-b")])
    everything = await store.player_games("ANN", 100)
    assert [g for g, _ in everything] == ["e4", "e3", "e2", "e1", "e0",
                                          "tie-c", "tie-b", "tie-a"]
    paged, before = [], None
    while page := await store.player_games("ann", 3, before=before):
        paged += page
        before = (page[-1][1], page[-1][0])
    assert paged == everything
    since = everything[2][1]
    assert [g for g, _ in await store.player_games("ann", 100, since=since)] == \
        ["e4", "e3", "e2"]
    assert await store.player_games("ann", 2, since=since, before=(since, "e2")) == []
    assert await store.player_games("Bot Hugo", 100) == []


async def test_a_file_from_before_recent_games_indexes_its_ended_games_on_open(tmp_path):
    path = tmp_path / "old.sqlite3"
    old = SqliteStore(path)
    await old.open()
    await old.persist([GameCreated("old1", "t1", "hearts", "hearts", {}, 1, 0,
                                   seats_of("ann", "bob", "cat", "dan"), "fixed_seating"),
                       ended("old1", winners=(2,))])
    await old.persist([GameCreated("live", "t2", "hearts", "hearts", {}, 1, 0,
                                   seats_of("ann", "bob", "cat", "dan"), "fixed_seating")])
    await old.close()
    again = await opened_as_before(path, "DROP TABLE game_players")
    try:
        [recent] = await again.recent_games("cat")
        assert recent["game_id"] == "old1" and recent["seat"] == 2 and recent["won"]
    finally:
        await again.close()


async def test_a_room_s_ended_games_come_oldest_first_and_only_that_room_s(store):
    await store.persist([GameCreated("g2", "t2", "other", "spades", {}, 7, 0, seats_of("ann"),
                                     "fixed_seating")])
    await store.persist([ended("g2")])
    await store.persist([GameCreated("g3", "t3", "spades", "spades", {}, 7, 0,
                                     seats_of("bob"), "fixed_seating")])
    await store.persist([ended("g3")])
    await store.persist([ended("g1")])
    games = await store.room_games("spades")
    assert [g["id"] for g in games] == ["g3", "g1"]  # g2 is another room's
    assert all("token_hash" not in s for g in games for s in g["seats"])


async def test_names_are_one_account_whatever_their_case(store: Store):
    await store.create_user("Ann", "h1")
    with pytest.raises(NameTaken):
        await store.create_user("ANN", "h2")
    assert await store.user_hash("ann") == ("Ann", "h1")


async def test_a_write_acknowledged_is_read_back_while_other_reads_run(store: Store):
    """Read-your-writes under load: each of many players follows six others and then lists
    whom it follows, all at once, so reads overlap other writes; every list has all six
    (issue 35's presence bench found the last follow missing on SQLite)."""
    names = [f"p{i}" for i in range(60)]
    for name in names:
        await store.create_user(name, "h")

    async def follow_then_list(i: int) -> list[str]:
        for k in range(1, 7):
            await store.set_follow(names[i], names[(i + k) % len(names)], True, 500)
        return [f["name"] for f in await store.follows(names[i])]

    listed = await asyncio.gather(*(follow_then_list(i) for i in range(len(names))))
    short = {names[i]: got for i, got in enumerate(listed) if len(got) != 6}
    assert short == {}


async def test_a_stale_owner_s_write_is_refused_by_its_fencing_token(store: Store):
    """A node paused past its lease wakes up and writes: the newer owner's epoch wins."""
    await store.persist([action(0)], Fence("t1", 1))
    await store.claim_table(Fence("t1", 2))  # another node took the table over
    with pytest.raises(StaleOwner, match="newer owner"):
        await store.persist([action(1, "3C")], Fence("t1", 1))
    assert await store.action_count("g1") == 1  # nothing of the stale write landed
    await store.persist([action(1, "4C")], Fence("t1", 2))
    with pytest.raises(StaleOwner):
        await store.claim_table(Fence("t1", 1))
    (stored,) = await store.unfinished_games()
    assert [a["card"] for a in stored.actions] == ["2C", "4C"]


async def test_a_stale_write_fails_alone_in_its_group_commit(store: Store):
    await store.claim_table(Fence("t1", 5))
    results = await asyncio.gather(store.persist([action(0)], Fence("t1", 4)),
                                   store.persist([action(1, "3C")], Fence("t1", 5)),
                                   return_exceptions=True)
    assert isinstance(results[0], StaleOwner) and results[1] is None


async def test_the_fences_of_many_tables_in_one_group_commit_each_hold(store: Store):
    """A group commit checks every table's fence (on PostgreSQL, in one statement): the
    fresh writes land together, and only the stale owner's is refused."""
    await store.claim_table(Fence("t2", 3))
    writes = [store.persist([action(i, card)], Fence(table, epoch)) for i, (table, epoch, card)
              in enumerate([("t1", 1, "2C"), ("t2", 3, "3C"), ("t3", 1, "4C")])]
    assert await asyncio.gather(*writes) == [None, None, None]
    results = await asyncio.gather(store.persist([action(3, "5C")], Fence("t1", 1)),
                                   store.persist([action(4, "6C")], Fence("t2", 2)),
                                   store.persist([action(5, "7C")], Fence("t3", 2)),
                                   return_exceptions=True)
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], StaleOwner) and "'t2'" in str(results[1])
    (stored,) = await store.unfinished_games()
    assert [a["card"] for a in stored.actions] == ["2C", "3C", "4C", "5C", "7C"]
    with pytest.raises(StaleOwner):  # t3's epoch moved up with the write that landed
        await store.persist([action(6, "8C")], Fence("t3", 1))


async def test_the_table_s_game_in_play_is_found_by_its_table(store: Store):
    await store.persist([action(0)])
    found = await store.unfinished_game("t1")
    assert found is not None and found.created.game_id == "g1" and len(found.actions) == 1
    await store.persist([ended("g1")])
    assert await store.unfinished_game("t1") is None


async def test_each_take_over_gets_a_newer_epoch_and_fences_the_one_before(store: Store):
    first = await store.take_table("t1")
    second = await store.take_table("t1")
    assert second == first + 1
    with pytest.raises(StaleOwner):
        await store.persist([action(0)], Fence("t1", first))
    await store.persist([action(0)], Fence("t1", second))
    assert await store.unfinished_tables() == ["t1"]


def openskill_result() -> tuple[GameResult, tuple]:
    system = SYSTEMS["openskill_tuned"]
    seats = tuple(RatedSeat(i, name) for i, name in enumerate(["ann", "bob", "cat", "dan"]))
    result = GameResult("hearts", "openskill_tuned", "fixed_seating", seats, (40, 90, 70, 60))
    return result, tuple(system.rate(result, dict.fromkeys(("ann", "bob", "cat", "dan"),
                                                          system.start_rating)))


async def test_the_rating_history_keeps_sigma_for_the_shown_rating(store: Store):
    """Weng-Lin's shown number needs sigma: each point of the history keeps it."""
    await store.create_user("ann", "x")
    result, changes = openskill_result()
    await store.persist([Rated("g1", result, changes)])
    player = await store.player("ann")
    assert player is not None
    [entry] = player["ratings"]
    [point] = entry["history"]
    ann = next(c for c in changes if c.player == "ann")
    assert 0 < ann.after.sigma < 500
    assert (point["value"], point["sigma"]) == pytest.approx((ann.after.value, ann.after.sigma))
    assert entry["sigma"] == pytest.approx(ann.after.sigma)


async def test_a_history_from_before_sigma_was_kept_reads_none_and_then_keeps_it(tmp_path):
    path = tmp_path / "old.sqlite3"
    old = SqliteStore(path)
    await old.open()
    await old.create_user("ann", "x")
    result, changes = openskill_result()
    await old.persist([Rated("old1", result, changes)])
    await old.close()
    again = await opened_as_before(path, "ALTER TABLE rating_history DROP COLUMN sigma")
    try:
        await again.persist([Rated("new1", result, changes)])
        player = await again.player("ann")
        assert player is not None
        [entry] = player["ratings"]
        assert [p["game_id"] for p in entry["history"]] == ["old1", "new1"]
        assert entry["history"][0]["sigma"] is None
        assert entry["history"][1]["sigma"] == pytest.approx(changes[0].after.sigma)
    finally:
        await again.close()


async def test_a_players_last_ranked_game_is_their_newest_ended_game_with_ratings(store):
    """What the random queue asks (a four who just played only each other waits)."""
    for game_id, rated in (("r1", True), ("r2", True), ("c1", False)):
        await store.persist([GameCreated(game_id, "t1", "spades", "spades", {}, 1, 0,
                                         seats_of("ann", "bob", "Bot Hazel", "guest-x"),
                                         "fixed_seating"),
                             GameEnded(game_id, {"scores": [1, 0], "winners": [0, 2],
                                                 "finished": True}, {"actions": []},
                                       () if rated else None)])
    assert await store.last_ranked_games(["ann", "BOB", "cat", "guest-x"]) == {
        "ann": "r2", "BOB": "r2"}


async def test_a_postgresql_commit_window_gathers_the_writes_that_come_within_it():
    """A PostgreSQL writer waits ``postgres_commit_window_ms`` for more writes to join a
    commit (a cluster node at part load otherwise pays a round trip and a transaction a
    write or two); at 0 a write queued while another commits takes the next commit alone.
    Every write is acknowledged only once stored, either way."""
    need("postgresql")
    for window, commits in ((0.5, 1), (0.0, 2)):
        schema = fresh_name("t_window")
        store = open_store(f"{POSTGRES}?schema={schema}", commit_window=window)
        await store.open()
        try:
            await store.persist([game()])
            before = store.commits
            first = asyncio.ensure_future(store.persist([action(0, "2C")]))
            await asyncio.sleep(0.05)  # the writer has taken the first write by now
            await store.persist([action(1, "3C")])
            await first
            assert store.commits - before == commits, window
            (stored,) = await store.unfinished_games()
            assert [a["card"] for a in stored.actions] == ["2C", "3C"]
        finally:
            await store.close()
            await drop_schema(schema)


@pytest.mark.parametrize("window", [-1, 1001, "soon"])
def test_a_commit_window_out_of_bounds_is_refused_by_name(window):
    with pytest.raises(ConfigError, match="postgres_commit_window_ms"):
        load_config(postgres_commit_window_ms=window)
