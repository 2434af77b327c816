"""The Python client package (clients/python): its play helper against a live server, and
the package built as a wheel alone, installed where there is no server, playing whole games
with its ``trickroom-bot``."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import url, wait_for
from trickroom_client import (
    ServerError,
    TrickroomClient,
    play,
    play_games,
    random_action,
    sign_in,
    take_a_seat,
)
from trickroom_client.play import STALE

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol.md"
CLIENT = ROOT / "clients" / "python"
ONE_HAND = {"hand_limit": 1}  # a game of one hand: whole games in a short test


def test_a_random_action_is_one_of_the_legal_ones():
    legal = [{"type": "play", "card": "5H"}, {"type": "play", "card": "9H"}]
    prompt = {"phase": "play", "legal": legal, "hand": ["5H", "9H", "2C"]}
    assert all(random_action(prompt, random.Random(seed)) in legal for seed in range(20))


def test_a_random_hearts_pass_is_pass_count_cards_of_the_hand():
    hand = ["2C", "5C", "QS", "AH", "KD", "3D", "7H", "8H", "9S", "TC", "JD", "4S", "6H"]
    prompt = {"phase": "pass", "legal": [], "hand": hand, "pass_count": 3}
    for seed in range(20):
        action = random_action(prompt, random.Random(seed))
        assert action["type"] == "pass"
        assert len(set(action["cards"])) == 3 and set(action["cards"]) <= set(hand)


async def test_play_opens_a_table_with_the_callers_fields_and_plays_the_games_asked(app):
    prompts: list[dict[str, Any]] = []

    def choose(prompt: dict[str, Any]) -> dict[str, Any]:
        prompts.append(prompt)
        return random_action(prompt)

    create = {"private": True, "rules": {**ONE_HAND, "pass_count": 2}}
    results = await asyncio.wait_for(
        play(url(app), choose, room="hearts", create=create, fill_robots="random", games=2),
        60)
    assert [r["type"] for r in results] == ["game_over", "game_over"]
    assert all(r["seat"] in range(4) and len(r["scores"]) == 4 for r in results)
    assert all(p["view"]["rules"]["hand_limit"] == 1 for p in prompts)
    passes = [p for p in prompts if p["phase"] == "pass"]
    assert passes and all(p["pass_count"] == 2 for p in passes)
    async with TrickroomClient.connect(url(app)) as other:  # private: in no room's list
        await other.request({"type": "guest"})
        listing = await other.request({"type": "list_tables", "room": "hearts"})
        assert listing["tables"] == []


async def test_a_rematch_with_new_partners_is_played_from_the_seat_it_moved_to(app):
    """``play_again`` with ``"seats": "rotate"`` moves every seat but North's one on, told
    by a ``seated``: the next game is played, and reported, from there."""
    results = await asyncio.wait_for(
        play(url(app), random_action, room="spades", create={"rules": ONE_HAND}, seat=1,
             fill_robots="random", games=3, again={"seats": "rotate"}), 60)
    assert [r["seat"] for r in results] == [1, 2, 3]


async def test_a_prompt_a_timer_overtook_is_answered_late_and_the_game_goes_on(make_app):
    """The bot's first answer comes after its turn ran out (``timed_out``: a robot played
    it); the refusal of that late answer is no error, and the game plays to its end."""
    app = await make_app(turn_seconds=0.5)
    async with TrickroomClient.connect(url(app)) as client:
        await sign_in(client, "slow")
        table, _ = await take_a_seat(client, "spades", create={"rules": ONE_HAND},
                                     fill_robots="random")
        late: list[int] = []

        async def choose(prompt: dict[str, Any]) -> dict[str, Any]:
            if not late:
                late.append(prompt["seq"])
                await wait_for(lambda: any(m.get("type") == "event"
                                           and m["event"]["type"] == "timed_out"
                                           for m in client.received))
            return random_action(prompt)

        [result] = await asyncio.wait_for(play_games(client, table, choose, 1), 60)
        assert result["type"] == "game_over"
        refusals = [m for m in client.received if m.get("type") == "error"]
        assert refusals and {m["code"] for m in refusals} <= STALE


async def test_a_table_that_is_gone_is_an_error_not_a_retry(app):
    with pytest.raises(ServerError) as refused:
        await asyncio.wait_for(play(url(app), random_action, table="nosuch"), 10)
    assert refused.value.code == "no_such_table"


# -- the package alone: a wheel in a fresh environment without the server --------------------


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The wheel of clients/python (built from a copy: the build's files stay out of the
    checkout), installed with its one dependency into a new virtual environment; the
    environment's folder and the wheel's file names."""
    work = tmp_path_factory.mktemp("client")
    source = work / "source"
    shutil.copytree(CLIENT, source, ignore=shutil.ignore_patterns(
        "__pycache__", "build", "*.egg-info"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                    str(work / "dist"), str(source)], check=True, timeout=240)
    [wheel] = (work / "dist").glob("trickroom_client-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=60)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"),
                    "install", "-q", "--disable-pip-version-check", str(wheel)],
                   check=True, timeout=240)
    return venv, zipfile.ZipFile(wheel).namelist()


def alone() -> dict[str, str]:
    """The environment without this checkout on the import path."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def test_the_wheel_holds_the_typed_client_and_nothing_of_the_server(installed):
    venv, names = installed
    packages = {name.split("/")[0] for name in names if not name.split("/")[0]
                .endswith(".dist-info")}
    assert packages == {"trickroom_client"}
    assert "trickroom_client/py.typed" in names
    check = ("import importlib.util, trickroom_client, websockets; "
             "print(importlib.util.find_spec('trickroom') is None)")
    done = subprocess.run([str(venv / "bin" / "python"), "-c", check], cwd=venv,
                          env=alone(), capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"  # no server here


async def test_the_installed_bot_plays_whole_games_against_a_live_server(app, installed):
    """Two games of the room's own rules (to 500 points), with robots of the quickest kind."""
    venv, _ = installed
    bot = await asyncio.create_subprocess_exec(
        str(venv / "bin" / "trickroom-bot"), url(app), "--room", "spades", "--games", "2",
        "--create", json.dumps({"private": True}), "--fill", "--level", "random",
        "--seed", "1", cwd=venv, env=alone(),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(bot.communicate(), 60)
    assert bot.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert [line.split(":")[0] for line in lines] == ["game 1 over", "game 2 over", "summary"]
    assert lines[-1].startswith("summary: 2 game(s)")


async def test_the_docs_example_plays_with_the_package_alone(app, installed, tmp_path):
    """docs/protocol.md's bot on the client package, run where there is no server."""
    venv, _ = installed
    [code] = re.findall(r"```python client-example\n(.*?)\n```", DOC.read_text(), re.S)
    example = tmp_path / "example.py"
    example.write_text(code)
    bot = await asyncio.create_subprocess_exec(
        str(venv / "bin" / "python"), str(example), url(app), cwd=tmp_path, env=alone(),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(bot.communicate(), 60)
    assert bot.returncode == 0, err.decode()
    scores = json.loads(out.decode())
    assert len(scores) == 2 and all(len(s) == 4 and max(s) >= 100 for s in scores)


async def test_the_duplicate_match_example_plays_a_whole_match_in_twenty_lines(app, installed):
    """Issue 36: a bot of at most 20 lines on the client package plays a whole duplicate
    match against robots and prints each player's result against the field."""
    venv, _ = installed
    example = ROOT / "examples" / "duplicate_match.py"
    assert len(example.read_text().splitlines()) <= 20
    bot = await asyncio.create_subprocess_exec(
        str(venv / "bin" / "python"), str(example), url(app), cwd=venv, env=alone(),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(bot.communicate(), 120)
    assert bot.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert len(lines) == 4 and any(line.startswith("guest-") for line in lines)
    # The two sides' margins cancel: one deal's gain is the other side's loss.
    totals = [float(line.rsplit(":", 1)[1].split()[0]) for line in lines]
    assert abs(sum(totals)) < 0.05
