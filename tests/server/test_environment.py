"""Every setting from a ``TRICKROOM_*`` variable, its ``_FILE`` or the secrets directory;
a mistyped variable refused by name, never silently ignored."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path
from typing import get_type_hints

import pytest

from trickroom.server.config import ConfigError, ServerSettings
from trickroom.server.effective import NAMES, SERVE, resolve
from trickroom.server.environment import SECRETS_DIR, check_spelling, read_environment, variable

ROOT = Path(__file__).resolve().parents[2]
CHOICES = {"durability": "power_loss", "event_loop": "asyncio", "password_profile": "cheapest",
           "node_url": "/node/7/ws", "trusted_proxies": "10.0.0.0/8,127.0.0.1",
           "allowed_origins": "https://cards.example,https://www.cards.example",
           "ipv4_prefix": "24", "ipv6_prefix": "56", "robot_worker": "thread",
           "analysis_auto_ranked": "true"}


def another_value(name: str, default: object) -> str:
    """A valid value of the setting ``name`` that is not its default, as a variable
    gives it."""
    if name in CHOICES:
        return CHOICES[name]
    kind = get_type_hints(ServerSettings)[name]
    assert kind in (int, float), f"{name}: give an example value in CHOICES"
    return str(kind(default) + 1)  # type: ignore[operator]


@pytest.fixture
def clean_environment(monkeypatch):
    """No TRICKROOM_ setting of the test's own environment leaks into it."""
    import os
    for key in list(os.environ):
        if key.upper().startswith("TRICKROOM_"):
            monkeypatch.delenv(key)
    return monkeypatch


@pytest.mark.parametrize("field", fields(ServerSettings), ids=lambda f: f.name)
def test_every_room_file_setting_has_a_variable(clean_environment, field):
    value = another_value(field.name, field.default)
    clean_environment.setenv(variable(field.name), value)
    effective = resolve({})
    [setting] = [s for s in effective.settings if s.name == field.name]
    assert (setting.origin, setting.source) == ("env", variable(field.name))
    assert getattr(effective.config.settings, field.name) != field.default


def test_every_serve_option_has_a_variable(clean_environment, tmp_path):
    given = {"host": "0.0.0.0", "port": "9001", "db": str(tmp_path / "t.sqlite3"),
             "cluster_prefix": "staging", "config": str(ROOT / "trickroom/server/rooms.toml"),
             "log_level": "warning"}
    for name, value in given.items():
        clean_environment.setenv(variable(name), value)
    serve = resolve({}).serve
    assert (serve.host, serve.port, serve.cluster_prefix, serve.log_level) == (
        "0.0.0.0", 9001, "staging", "warning")
    clean_environment.delenv(variable("db"))
    clean_environment.setenv(variable("store"), "postgresql://trickroom@db.internal/trickroom")
    clean_environment.setenv(variable("cluster"), "redis://redis.internal:6379/0")
    serve = resolve({}).serve
    assert serve.store == "postgresql://trickroom@db.internal/trickroom"
    assert serve.cluster == "redis://redis.internal:6379/0" and serve.db is None
    assert set(SERVE) <= {*given, "store", "cluster", "store_password", "cluster_password"}


def test_a_file_named_by_the_variable_s_FILE_gives_its_value(clean_environment, tmp_path):
    secret = tmp_path / "store_password"
    secret.write_text("s3cret\n")  # as `echo s3cret > file` writes it
    clean_environment.setenv("TRICKROOM_STORE_PASSWORD_FILE", str(secret))
    found = read_environment(NAMES)["store_password"]
    assert (found.text, found.source) == ("s3cret", "TRICKROOM_STORE_PASSWORD_FILE")


def test_a_file_in_the_secrets_directory_gives_its_value(clean_environment, tmp_path):
    (tmp_path / "trickroom_cluster_password").write_text("s3cret")  # a systemd credential
    clean_environment.setenv(SECRETS_DIR, str(tmp_path))
    found = read_environment(NAMES)["cluster_password"]
    assert found.text == "s3cret"
    assert found.source == f"{SECRETS_DIR} ({tmp_path / 'trickroom_cluster_password'})"


def test_the_variable_comes_before_the_secrets_directory(clean_environment, tmp_path):
    (tmp_path / "trickroom_port").write_text("9001")
    clean_environment.setenv(SECRETS_DIR, str(tmp_path))
    clean_environment.setenv("TRICKROOM_PORT", "9002")
    assert read_environment(NAMES)["port"].text == "9002"


def test_a_variable_and_its_file_both_given_is_an_error(clean_environment, tmp_path):
    (tmp_path / "p").write_text("one")
    clean_environment.setenv("TRICKROOM_STORE_PASSWORD", "two")
    clean_environment.setenv("TRICKROOM_STORE_PASSWORD_FILE", str(tmp_path / "p"))
    with pytest.raises(ConfigError, match="TRICKROOM_STORE_PASSWORD and "
                                          "TRICKROOM_STORE_PASSWORD_FILE are both given"):
        read_environment(NAMES)


def test_an_unreadable_file_or_directory_is_named(clean_environment, tmp_path):
    clean_environment.setenv("TRICKROOM_STORE_PASSWORD_FILE", str(tmp_path / "missing"))
    with pytest.raises(ConfigError, match=r"^TRICKROOM_STORE_PASSWORD_FILE=.*missing: cannot "
                                          "read it: No such file"):
        read_environment(NAMES)
    clean_environment.delenv("TRICKROOM_STORE_PASSWORD_FILE")
    clean_environment.setenv(SECRETS_DIR, str(tmp_path / "nowhere"))
    with pytest.raises(ConfigError, match=r"^TRICKROOM_SECRETS_DIR=.*nowhere: no such directory"):
        read_environment(NAMES)


def test_an_empty_variable_or_file_counts_as_not_given(clean_environment, tmp_path):
    (tmp_path / "empty").write_text("\n")
    clean_environment.setenv("TRICKROOM_NODE_URL", "")
    clean_environment.setenv("TRICKROOM_STORE_PASSWORD_FILE", str(tmp_path / "empty"))
    assert read_environment(NAMES) == {}


@pytest.mark.parametrize(("typo", "meant"), [
    ("TRICKROOM_TURN_SECOND", "TRICKROOM_TURN_SECONDS"),
    ("TRICKROOM_PORTS", "TRICKROOM_PORT"),
    ("TRICKROOM_STORE_PASWORD_FILE", "TRICKROOM_STORE_PASSWORD_FILE"),
    ("TRICKROOM_LOGLEVEL", "TRICKROOM_LOG_LEVEL"),
    ("TRICKROOM_SECRET_DIR", "TRICKROOM_SECRETS_DIR"),
])
def test_a_mistyped_variable_is_refused_naming_the_setting(typo, meant):
    with pytest.raises(ConfigError, match=f"^{typo} is no setting: did you mean {meant}\\?"):
        check_spelling(NAMES, {typo: "1"})


def test_the_project_s_other_variables_are_not_taken_for_mistyped_settings():
    """The tests' and CI's own TRICKROOM_ variables (TRICKROOM_REQUIRE_SERVICES...) live
    beside the settings' in one environment."""
    written: set[str] = set()
    for path in [*ROOT.glob("tests/**/*.py"), *ROOT.glob(".ci/*"), ROOT / "Makefile"]:
        text = path.read_text()
        if "is no setting" not in text:  # not a test of typos, whose typos are meant
            written |= set(re.findall(r"\bTRICKROOM_[A-Z_]*[A-Z]\b", text))
    assert "TRICKROOM_REQUIRE_SERVICES" in written
    check_spelling(NAMES, dict.fromkeys(written, "1"))
