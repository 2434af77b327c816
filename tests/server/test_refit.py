"""``trickroom ratings refit``: a room's constants fitted on the games its store holds."""

from __future__ import annotations

import asyncio
import io
import random
import re
import tomllib
from pathlib import Path

import pytest
from rich.console import Console

from tests.services import POSTGRES, drop_schema, fresh_name, need
from trickroom.ratings import SYSTEMS
from trickroom.ratings.registry import with_constants
from trickroom.server.cli import main, ratings_refit
from trickroom.server.store import open_store
from trickroom.server.tables.records import GameCreated, GameEnded

ROOMS = """
[[rooms]]
name = "spades-openskill"
game = "spades"
rated = true
system = "openskill_tuned"

[[rooms]]
name = "hearts-wocg"
game = "hearts"
rated = true
system = "wocg_tuned"

[[rooms]]
name = "spades-zone"
game = "spades"
rated = true
system = "zone"

[[rooms]]
name = "spades"
game = "spades"
"""

STRONG = ("ann", "bob", "cat", "dan")
WEAK = ("eve", "fay", "gus", "hal")


def seats(names: tuple[str, ...], kinds: tuple[str, ...] = ("human",) * 4) -> tuple[dict, ...]:
    return tuple({"seat": i, "name": n, "account": n, "kind": k, "starter": n,
                  "substitute": False, "guest": False, "token_hash": None, "robot_level": None}
                 for i, (n, k) in enumerate(zip(names, kinds, strict=True)))


def spades_season(games: int, seed: int = 7, sure: bool = False
                  ) -> list[tuple[tuple[str, ...], tuple[int, ...]]]:
    """Strong players beat weak ones nine times in ten (``sure``: always); equal sides toss
    a coin."""
    rng = random.Random(seed)
    season = []
    for _ in range(games):
        table = rng.sample(STRONG + WEAK, 4)
        strength = [sum(p in STRONG for p in table[s::2]) for s in (0, 1)]
        gap = strength[0] - strength[1]
        chance = 0.5 if gap == 0 else (0.9 if gap > 0 else 0.1)
        if abs(gap) == 1:
            chance = 0.75 if gap > 0 else 0.25
        if sure and gap:
            chance = float(gap > 0)
        north_south = rng.random() < chance
        season.append((tuple(table), (0, 2) if north_south else (1, 3)))
    return season


def write(*args, **kwargs) -> None:
    """Store the games (the command under test runs its own event loop)."""
    asyncio.run(write_room(*args, **kwargs))


async def write_room(path: Path | str, room: str, kind: str, games: list,
                     finished: bool = True, kinds: tuple[str, ...] = ("human",) * 4,
                     batch: str = "a") -> None:
    store = open_store(path)
    await store.open()
    try:
        for i, (table, winners, *given) in enumerate(games):
            game_id = f"{room}-{batch}{i:04d}"
            if kind == "spades":
                scores = [500, 200] if winners == (0, 2) else [200, 500]
                scores = list(given[0]) if given else scores
                seat_scores = [scores[s % 2] for s in range(4)]
            else:
                seat_scores = [10 if s in winners else 60 for s in range(4)]
                scores = seat_scores
            result = {"game": kind, "finished": finished, "scores": scores,
                      "seat_scores": seat_scores, "winners": list(winners) if finished else [],
                      "hands_played": 8, "target": 500, "progress": 1.0}
            await store.persist([GameCreated(game_id, "t1", room, kind, {}, i, 0,
                                             seats(table, kinds), "fixed_seating"),
                                 GameEnded(game_id, result, {"actions": []})])
    finally:
        await store.close()


def refit_command(tmp_path: Path, *argv: str, store: str | None = None) -> tuple[int, str]:
    config = tmp_path / "rooms.toml"
    config.write_text(ROOMS)
    where = ["--store", store] if store else ["--db", str(tmp_path / "db.sqlite3")]
    args = ["ratings", "refit", *where, "--config", str(config), *argv]
    from trickroom.server.cli import build_parser

    out = io.StringIO()
    code = ratings_refit(build_parser().parse_args(args), Console(file=out, width=120))
    return code, out.getvalue()


def row(text: str, name: str) -> list[float]:
    [line] = [x for x in text.splitlines() if re.match(rf"\W*{name}\b", x)]
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?", line)]


def test_a_room_s_tuned_constants_are_refitted_on_its_games_with_their_gain(tmp_path):
    write(tmp_path / "db.sqlite3", "spades-openskill", "spades", spades_season(300))
    code, out = refit_command(tmp_path, "--room", "spades-openskill")
    assert code == 0
    beta_before, beta_after = row(out, "beta")
    assert beta_before == SYSTEMS["openskill_tuned"].beta
    assert (beta_before, row(out, "sigma")[0]) != (beta_after, row(out, "sigma")[1])
    loss_before, loss_after = row(out, "log-loss")
    assert loss_after < loss_before
    [gain] = row(out, "gain")
    assert gain == pytest.approx(loss_before - loss_after, abs=2e-4) and gain > 0
    assert "300 spades games" in out
    assert 'system = "openskill_tuned"' in out
    lines = out[out.index("[[rooms]]"):]
    entry = tomllib.loads(lines)["rooms"][0]
    assert entry["name"] == "spades-openskill" and entry["system"] == "openskill_tuned"
    adopted = with_constants(entry["system"], entry["constants"])
    assert adopted.beta == pytest.approx(beta_after, rel=1e-3)


def test_another_tuned_system_may_be_refitted_on_the_room_s_games(tmp_path):
    write(tmp_path / "db.sqlite3", "spades-zone", "spades", spades_season(200, sure=True))
    code, out = refit_command(tmp_path, "--room", "spades-zone", "--system", "zone_tuned")
    assert code == 0 and row(out, "step")[0] == SYSTEMS["zone_tuned"].step
    assert (row(out, "step")[0], row(out, "spread")[0]) != (row(out, "step")[1],
                                                             row(out, "spread")[1])
    assert 'system = "zone_tuned"' in out


def test_the_final_score_model_is_refitted_with_the_room_s_own_par(tmp_path):
    rng = random.Random(5)
    games = []
    for _ in range(200):  # each strong player adds about 120 points to the side's score
        table = tuple(rng.sample(STRONG + WEAK, 4))
        sides = [sum(p in STRONG for p in table[s::2]) for s in (0, 1)]
        ns, ew = (round(160 + 120 * sides[s] + rng.gauss(0, 60)) for s in (0, 1))
        ew += ns == ew
        games.append((table, (0, 2) if ns > ew else (1, 3), (ns, ew)))
    write(tmp_path / "db.sqlite3", "spades-openskill", "spades", games)
    code, out = refit_command(tmp_path, "--room", "spades-openskill", "--system", "margin")
    assert code == 0
    par_before, par_after = row(out, "spades_par")
    assert par_before == SYSTEMS["margin"].spades_par
    # par is a side's points a hand: the stored games were each eight hands long
    assert par_after == pytest.approx(sum(g[2][0] + g[2][1] for g in games) / 400 / 8, abs=0.1)
    assert row(out, "hearts_par")[0] == row(out, "hearts_par")[1]  # a Spades room's games
    [gain] = row(out, "gain")
    assert gain > 0
    entry = tomllib.loads(out[out.index("[[rooms]]"):])["rooms"][0]
    assert with_constants(entry["system"], entry["constants"]).spades_par == par_after


def test_a_hearts_room_is_refitted_on_its_finishing_orders(tmp_path):
    rng = random.Random(3)
    games = []
    for _ in range(200):
        table = tuple(rng.sample(STRONG + WEAK, 4))
        weights = [4.0 if p in STRONG else 1.0 for p in table]
        games.append((table, (rng.choices(range(4), weights)[0],)))
    write(tmp_path / "db.sqlite3", "hearts-wocg", "hearts", games)
    code, out = refit_command(tmp_path, "--room", "hearts-wocg")
    assert code == 0
    k_before, k_after = row(out, "k")
    assert k_before == SYSTEMS["wocg_tuned"].k
    assert (k_before, row(out, "scale")[0]) != (k_after, row(out, "scale")[1])
    [gain] = row(out, "gain")
    assert gain > 0


def test_games_with_a_robot_at_the_start_or_unfinished_are_left_out(tmp_path):
    path = tmp_path / "db.sqlite3"
    write(path, "spades-openskill", "spades", spades_season(40))
    write(path, "spades-openskill", "spades", [(("ann", "x", "y", "z"), (0, 2))],
                     finished=False, batch="b")
    robots = [(("ann", "Bot Hazel", "cat", "dan"), (0, 2))]
    write(path, "spades-openskill", "spades", robots,
                     kinds=("human", "robot", "human", "human"), batch="c")
    code, out = refit_command(tmp_path, "--room", "spades-openskill")
    assert code == 0 and "40 spades games" in out and "2 stored games left out" in out


@pytest.mark.parametrize(("argv", "message"), [
    (("--room", "nowhere"), "no room named 'nowhere'"),
    (("--room", "spades-openskill"), "no finished games"),
    (("--room", "spades-zone"), "faithful presets keep the seed pages' constants"),
    (("--room", "spades-openskill", "--system", "points_en"), "faithful presets keep"),
    (("--room", "spades-openskill", "--system", "glicko"), "no rating system named 'glicko'"),
    (("--room", "spades"), "is casual"),
])
def test_a_refit_that_cannot_be_made_says_why_in_one_line_and_fails(
        tmp_path, capsys, argv, message):
    write(tmp_path / "db.sqlite3", "other", "spades", spades_season(5))
    code, out = refit_command(tmp_path, *argv)
    err = capsys.readouterr().err
    assert code == 1 and out == ""
    assert message in err and err.startswith("trickroom: ") and err.count("\n") == 1


def test_the_command_exits_non_zero_without_a_database(tmp_path, capsys):
    config = tmp_path / "rooms.toml"
    config.write_text(ROOMS)
    with pytest.raises(SystemExit) as exit_:
        main(["ratings", "refit", "--room", "spades-openskill", "--config", str(config),
              "--store", f"sqlite:///{tmp_path}/missing.sqlite3"])
    assert exit_.value.code == 1
    assert "no database at" in capsys.readouterr().err
    assert not (tmp_path / "missing.sqlite3").exists()


def test_a_store_is_postgresql_or_sqlite(tmp_path, capsys):
    config = tmp_path / "rooms.toml"
    config.write_text(ROOMS)
    with pytest.raises(SystemExit):
        main(["ratings", "refit", "--room", "spades-openskill", "--config", str(config),
              "--store", "mysql://localhost/trickroom"])
    assert "a store is postgresql://user@host/db or sqlite:PATH" in capsys.readouterr().err


def test_a_room_in_postgresql_is_refitted_the_same(tmp_path):
    """A cluster's store: the same games in PostgreSQL give the same fit as in SQLite."""
    need("postgresql")
    schema = fresh_name("refit")
    url = f"{POSTGRES}?schema={schema}"
    try:
        write(url, "spades-openskill", "spades", spades_season(120))
        code, out = refit_command(tmp_path, "--room", "spades-openskill", store=url)
    finally:
        asyncio.run(drop_schema(schema))
    write(tmp_path / "db.sqlite3", "spades-openskill", "spades", spades_season(120))
    assert code == 0 and "120 spades games" in out
    assert out == refit_command(tmp_path, "--room", "spades-openskill")[1]


def test_a_bad_room_or_system_is_named_before_the_store_is_opened(tmp_path, capsys):
    config = tmp_path / "rooms.toml"
    config.write_text(ROOMS)
    with pytest.raises(SystemExit):
        main(["ratings", "refit", "--room", "spades-zone", "--config", str(config),
              "--db", str(tmp_path / "missing.sqlite3")])
    assert "faithful presets keep" in capsys.readouterr().err
