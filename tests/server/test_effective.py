"""Which value a node runs with: the command line's over the environment's over the room
file's over the default, each shown with where it came from; passwords put into their
URLs and never shown; a bad value named by what gave it."""

from __future__ import annotations

import os
from urllib.parse import unquote, urlsplit

import pytest

from trickroom.server.config import ConfigError
from trickroom.server.effective import as_json, describe, resolve, with_password

SECRET = "p@ss/w:rd s3cret"  # every character a URL's password must have escaped


@pytest.fixture
def env(monkeypatch):
    for key in list(os.environ):
        if key.upper().startswith("TRICKROOM_"):
            monkeypatch.delenv(key)
    return monkeypatch


@pytest.fixture
def room_file(tmp_path):
    path = tmp_path / "rooms.toml"
    path.write_text('[server]\nturn_seconds = 20\nnode_url = "/node/file/ws"\n'
                    '[[rooms]]\nname = "spades"\ngame = "spades"\n')
    return str(path)


def origin(effective, name):
    [setting] = [s for s in effective.settings if s.name == name]
    return setting.value, setting.origin, setting.source


# -- precedence ---------------------------------------------------------------------------


def test_the_command_line_beats_the_environment_beats_the_file_beats_the_default(
        env, room_file):
    assert origin(resolve({}), "node_url") == (None, "default", "")
    assert origin(resolve({"config": room_file}), "node_url") == (
        "/node/file/ws", "file", room_file)
    env.setenv("TRICKROOM_NODE_URL", "/node/env/ws")
    assert origin(resolve({"config": room_file}), "node_url") == (
        "/node/env/ws", "env", "TRICKROOM_NODE_URL")
    assert origin(resolve({"config": room_file, "node_url": "/node/argv/ws"}), "node_url") == (
        "/node/argv/ws", "argv", "--node-url")


def test_the_room_file_itself_may_come_from_the_environment(env, room_file):
    env.setenv("TRICKROOM_CONFIG", room_file)
    effective = resolve({})
    assert origin(effective, "config") == (room_file, "env", "TRICKROOM_CONFIG")
    assert origin(effective, "turn_seconds") == (20.0, "file", room_file)
    env.setenv("TRICKROOM_TURN_SECONDS", "45")
    assert origin(resolve({}), "turn_seconds") == (45.0, "env", "TRICKROOM_TURN_SECONDS")


def test_a_serve_option_comes_from_the_command_line_then_the_environment(env):
    assert origin(resolve({}), "port") == (8765, "default", "")
    env.setenv("TRICKROOM_PORT", "9001")
    assert origin(resolve({}), "port") == (9001, "env", "TRICKROOM_PORT")
    assert origin(resolve({"port": 9002}), "port") == (9002, "argv", "--port")
    assert origin(resolve({"port": None}), "port") == (9001, "env", "TRICKROOM_PORT")


def test_every_setting_is_listed_once(env):
    from trickroom.server.effective import NAMES
    assert [s.name for s in resolve({}).settings] == list(NAMES)


def test_a_list_is_given_comma_separated_or_as_json(env):
    env.setenv("TRICKROOM_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/24")
    assert resolve({}).config.settings.trusted_proxies == ("127.0.0.1", "10.0.0.0/24")
    env.setenv("TRICKROOM_TRUSTED_PROXIES", '["127.0.0.1"]')
    assert resolve({}).config.settings.trusted_proxies == ("127.0.0.1",)


# -- passwords ------------------------------------------------------------------------------


def test_a_password_apart_is_put_into_its_url_escaped(env):
    env.setenv("TRICKROOM_STORE", "postgresql://trickroom@db.internal:5432/trickroom")
    env.setenv("TRICKROOM_STORE_PASSWORD", SECRET)
    env.setenv("TRICKROOM_CLUSTER", "redis://redis.internal:6379/0")
    env.setenv("TRICKROOM_CLUSTER_PASSWORD", SECRET)
    serve = resolve({}).serve
    for url in (serve.store, serve.cluster):
        assert unquote(urlsplit(url).password) == SECRET
    assert serve.store.endswith("@db.internal:5432/trickroom")
    assert urlsplit(serve.cluster).username == ""


def test_a_password_given_twice_or_for_no_url_is_an_error(env):
    env.setenv("TRICKROOM_STORE_PASSWORD", SECRET)
    with pytest.raises(ConfigError, match="TRICKROOM_STORE_PASSWORD is given, but no store"):
        resolve({})
    env.setenv("TRICKROOM_STORE", f"postgresql://trickroom:{SECRET}@db/trickroom")
    with pytest.raises(ConfigError, match="has a password too: give it in one place") as refused:
        resolve({})
    assert SECRET not in str(refused.value)


def test_no_password_is_shown_however_it_was_given(env, tmp_path):
    secret = "s3cret"
    (tmp_path / "trickroom_cluster_password").write_text(secret)
    env.setenv("TRICKROOM_SECRETS_DIR", str(tmp_path))
    env.setenv("TRICKROOM_CLUSTER", "redis://redis.internal:6379/0")
    env.setenv("TRICKROOM_STORE", f"postgresql://trickroom:{secret}@db.internal/trickroom")
    effective = resolve({})
    assert secret in effective.serve.cluster and secret in effective.serve.store
    text, data = describe(effective), str(as_json(effective))
    for shown in (text, data):
        assert secret not in shown
        assert "redis://:***@redis.internal:6379/0" in shown
        assert "postgresql://trickroom:***@db.internal/trickroom" in shown
    assert origin(effective, "cluster_password")[1:] == (
        "env", f"TRICKROOM_SECRETS_DIR ({tmp_path / 'trickroom_cluster_password'})")


def test_with_password_keeps_the_rest_of_the_url():
    assert with_password("postgresql://u@h/db?schema=a", "pw") == "postgresql://u:pw@h/db?schema=a"
    with pytest.raises(ConfigError, match="no URL with a host"):
        with_password("/srv/trickroom.sqlite3", "pw")


# -- one line naming the culprit ------------------------------------------------------------


@pytest.mark.parametrize(("variable", "value", "said"), [
    ("TRICKROOM_PORT", "eighty", "TRICKROOM_PORT: input should be a valid integer"),
    ("TRICKROOM_PORT", "70000", "TRICKROOM_PORT: a port is 0 to 65535, not 70000"),
    ("TRICKROOM_TURN_SECONDS", "soon", "TRICKROOM_TURN_SECONDS: input should be a valid "
                                       "number, unable to parse string as a number, not 'soon'"),
    ("TRICKROOM_MESSAGE_BURST", "1.5", "TRICKROOM_MESSAGE_BURST: input should be a valid "
                                       "integer"),
    ("TRICKROOM_DURABILITY", "sometimes", "TRICKROOM_DURABILITY must be one of server_crash, "
                                          "power_loss, not 'sometimes'"),
    ("TRICKROOM_TRUSTED_PROXIES", "proxy.internal", "TRICKROOM_TRUSTED_PROXIES: "
                                                    "'proxy.internal' is not an address"),
    ("TRICKROOM_TRUSTED_PROXIES", "[127.0.0.1", "TRICKROOM_TRUSTED_PROXIES: not a JSON list"),
    ("TRICKROOM_LOG_LEVEL", "loud", "TRICKROOM_LOG_LEVEL must be one of debug, info"),
    ("TRICKROOM_CONFIG", "/nonexistent/rooms.toml", "cannot read room config "
                                                    "/nonexistent/rooms.toml"),
])
def test_a_bad_value_is_named_by_its_variable(env, variable, value, said):
    env.setenv(variable, value)
    with pytest.raises(ConfigError) as refused:
        resolve({})
    assert str(refused.value).startswith(said), str(refused.value)
    assert "\n" not in str(refused.value)


def test_a_bad_value_in_the_room_file_is_named_there(env, tmp_path):
    path = tmp_path / "rooms.toml"
    path.write_text('[server]\nturn_seconds = "soon"\n[[rooms]]\nname = "s"\ngame = "spades"\n')
    with pytest.raises(ConfigError, match=r"^\[server\] turn_seconds: input should be a valid "
                                          "number"):
        resolve({"config": str(path)})


def test_two_stores_are_refused_naming_where_each_came_from(env, tmp_path):
    env.setenv("TRICKROOM_STORE", "postgresql://trickroom@db/trickroom")
    with pytest.raises(ConfigError, match=r"give --db \(an SQLite file\) or TRICKROOM_STORE "
                                          r"\(PostgreSQL\), not both"):
        resolve({"db": str(tmp_path / "t.sqlite3")})
    env.delenv("TRICKROOM_STORE")
    env.setenv("TRICKROOM_CLUSTER", "redis://127.0.0.1:6379/0")
    with pytest.raises(ConfigError, match="a cluster's nodes share one PostgreSQL store"):
        resolve({})


def test_the_module_s_examples_hold():
    import doctest

    from trickroom.server import effective
    failures, tried = doctest.testmod(effective)
    assert tried and not failures
