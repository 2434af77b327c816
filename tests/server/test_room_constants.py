"""A room's rating system: the constants a host adopts from a refit, and the history a
profile charts.

A ranked room's ``constants`` table (what ``trickroom ratings refit`` prints) is read
with the room config and checked there; every game of that room is then predicted and
rated with the preset built with those constants, newcomers starting at its start.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import http_get
from tests.server.test_ranked import RANKED, autoplay, game_id_of, players, seat
from trickroom.game.outcome import NilStats, Outcome
from trickroom.ratings import Rating, RatingSystem, system_named
from trickroom.ratings.registry import with_constants
from trickroom.server.app import App
from trickroom.server.config import Config, ConfigError, load_config
from trickroom.server.tables.rating import game_result

ROOMS = """
[[rooms]]
name = "spades-wocg"
game = "spades"
rated = true
system = "wocg_tuned"
rules = { target = 100, mercy = 100 }
constants = { k = 60, scale = 300 }

[[rooms]]
name = "spades-openskill"
game = "spades"
rated = true
system = "openskill_tuned"
rules = { target = 100, mercy = 100 }
constants = { beta = 1440, sigma = 300, luck = 1.5 }

[[rooms]]
name = "hearts-openskill"
game = "hearts"
rated = true
system = "openskill_tuned"
rules = { target = 30 }
"""

NAMES = ["ann", "bob", "cat", "dan"]


def config(tmp_path: Path, text: str = ROOMS) -> Config:
    path = tmp_path / "rooms.toml"
    path.write_text(text)
    return load_config(path, **RANKED)


@pytest.fixture
async def tuned_app(tmp_path):
    server = App(config(tmp_path), tmp_path / "ranked.sqlite3")
    await server.start("127.0.0.1", 0)
    yield server
    await server.stop()


async def set_standing(app: App, player: str, kind: str, system: str, rating: Rating) -> None:
    stats = {"games": 3, "wins": 2, "losses": 1, "history": ["W", "W", "L"]}
    await app.store._write("INSERT INTO ratings (player, kind, system, value, sigma, stats) "
                           "VALUES (?, ?, ?, ?, ?, ?)",
                           (player, kind, system, rating.value, rating.sigma, json.dumps(stats)))


async def play_one(app: App, room: str, before: dict[str, Rating], kind: str, system: str
                   ) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """Seat the four players (some with a standing already), play a game; return its
    ``game_over`` event, its ``game_started`` event and the stored game."""
    async with AsyncExitStack() as stack:
        clients = await players(app, stack, NAMES)
        for name, rating in before.items():
            await set_standing(app, name, kind, system, rating)
        table = await seat(clients, room)
        ends = await asyncio.wait_for(asyncio.gather(
            *(autoplay(c, table, i) for i, c in enumerate(clients))), 120)
        stored = await app.store.game(game_id_of(clients[0]))
    started = next(m["event"] for m in clients[0].received if m.get("type") == "event"
                   and m["event"]["type"] == "game_started")
    assert stored is not None
    return ends[0], started, stored


def rated_by(system: RatingSystem, stored: dict[str, Any], before: dict[str, Rating]
             ) -> list[dict[str, Any]]:
    """The changes ``system`` gives the stored game, from ``before`` or its start."""
    out = stored["result"]
    outcome = Outcome(out["game"], out["finished"], tuple(out["scores"]),
                      tuple(out["seat_scores"]), tuple(out["winners"]), out["hands_played"],
                      out["target"], out["progress"], tuple(NilStats(**n) for n in out["nil"]))
    starters = [s["starter"] for s in stored["seats"]]
    result = game_result(stored["game"], system.name, stored["seating"], starters, [],
                         outcome, [], None)
    ratings = {p: before.get(p, system.start_rating) for p in starters}
    return [c.to_wire() for c in system.rate(result, ratings)]


@pytest.mark.parametrize(("room", "system", "constants"), [
    ("spades-wocg", "wocg_tuned", {"k": 60, "scale": 300}),
    ("spades-openskill", "openskill_tuned", {"beta": 1440, "sigma": 300, "luck": 1.5}),
])
async def test_a_room_s_adopted_constants_rate_and_predict_its_games(
        tuned_app, room, system, constants):
    tuned, preset = with_constants(system, constants), system_named(system)
    sigma = 200.0 if tuned.start_rating.sigma else 0.0
    before = {"ann": Rating(1700.0, sigma), "bob": Rating(1450.0, sigma),
              "cat": Rating(1650.0, sigma)}  # dan is new: he starts at the room's start
    end, started, stored = await play_one(tuned_app, room, before, "spades", system)
    changes = end["ratings"]
    assert changes == stored["ratings"] == rated_by(tuned, stored, before)
    # The same game rated by the preset, without the room's constants, moves differently.
    assert [c["after"] for c in rated_by(preset, stored, before)] != [c["after"]
                                                                      for c in changes]
    dan = next(c for c in changes if c["player"] == "dan")
    assert Rating(dan["before"]["value"], dan["before"]["sigma"]) == tuned.start_rating
    ratings = {n: before.get(n, tuned.start_rating) for n in NAMES}
    chances = [round(p, 4) for p in tuned.win_probability("spades", NAMES, ratings)]
    assert started["chances"] == chances
    assert chances != [round(p, 4) for p in preset.win_probability(
        "spades", NAMES, {n: before.get(n, preset.start_rating) for n in NAMES})]
    standing = (await tuned_app.store.standings(["dan"], "spades", system))["dan"]
    assert standing.rating == Rating(dan["after"]["value"], dan["after"]["sigma"])


async def test_a_rated_game_s_history_point_carries_its_shown_rating(tuned_app):
    """Weng-Lin's shown number needs sigma: the history keeps it, so the profile's chart
    plots the number a player reads, not μ."""
    system = system_named("openskill_tuned")
    end, _, _ = await play_one(tuned_app, "hearts-openskill", {}, "hearts", system.name)
    mine = next(c for c in end["ratings"] if c["player"] == "ann")
    status, _, body = await http_get(tuned_app, "/api/players/ann")
    assert status == 200
    [entry] = json.loads(body)["ratings"]
    [point] = entry["history"]
    after = Rating(mine["after"]["value"], mine["after"]["sigma"])
    assert point["value"] == pytest.approx(after.value)
    assert point["sigma"] == pytest.approx(after.sigma)
    assert point["shown"] == round(system.shown(after), 1) == entry["shown"]
    assert point["shown"] != pytest.approx(point["value"], abs=1.0)  # μ is not what we read


def test_the_server_rates_a_game_and_system_with_its_rooms_constants(tmp_path):
    rooms = config(tmp_path)
    assert rooms.rooms["spades-openskill"].constants == {"beta": 1440.0, "sigma": 300.0,
                                                         "luck": 1.5}
    tuned = rooms.rating_system("spades", "openskill_tuned")
    assert (tuned.beta, tuned.start_rating) == (1440.0, Rating(1500.0, 300.0))  # type: ignore[attr-defined]
    assert rooms.rating_system("hearts", "openskill_tuned") == system_named("openskill_tuned")
    assert rooms.rating_system("spades", "zone") == system_named("zone")


def room(system: str, constants: str, name: str = "tuned", rated: str = "true") -> str:
    return (f'[[rooms]]\nname = "{name}"\ngame = "spades"\nrated = {rated}\n'
            f'system = "{system}"\nconstants = {constants}\n')


@pytest.mark.parametrize(("text", "named"), [
    (room("zone", "{ step = 8 }"), ["'tuned'", "step", "faithful"]),
    (room("wocg", "{ k = 20 }"), ["'tuned'", "k", "faithful"]),
    (room("openskill_tuned", "{ k = 20 }"), ["'tuned'", "'k'", "beta, sigma, luck"]),
    (room("zone_tuned", "{ step = 8, spred = 200 }"), ["'tuned'", "'spred'"]),
    (room("wocg_tuned", "{ k = -5 }"), ["'tuned'", "k must be a positive number"]),
    (room("wocg_tuned", '{ k = "20" }'), ["'tuned'", "k must be a positive number"]),
    (room("wocg_tuned", "20"), ["'tuned'", "must be a table"]),
    (room("wocg_tuned", "{ k = 20 }", rated="false"), ["'tuned'", "casual"]),
    (room("wocg_tuned", "{ k = 30 }") + room("wocg_tuned", "{}", "other"),
     ["'tuned'", "'other'", "same constants"]),
])
def test_constants_a_room_cannot_take_are_refused_naming_the_room_and_the_constant(
        tmp_path, text, named):
    with pytest.raises(ConfigError) as refused:
        config(tmp_path, text)
    for words in named:
        assert words in str(refused.value)


def test_the_default_room_config_adopts_no_constants():
    assert all(not r.constants for r in load_config().rooms.values())
