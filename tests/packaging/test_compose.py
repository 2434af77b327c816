"""packaging/compose.yaml: PostgreSQL, Redis, three nodes and nginx with TLS, each node
configured by known TRICKROOM_* variables alone, every password a file; its nginx
configuration is docs/nginx.conf with the compose network's addresses, never a copy that
drifts. (No test runs it: that needs the images from a registry of containers.)"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from trickroom.server.effective import NAMES, resolve
from trickroom.server.environment import check_spelling, variable

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "packaging" / "compose.yaml"
NGINX = ROOT / "packaging" / "nginx.conf"
NODES = ("node1", "node2", "node3")
PORT = 8765  # the image's TRICKROOM_PORT


def compose_nginx(text: str) -> str:
    """docs/nginx.conf as the compose file's nginx runs it: the nodes by their service
    names, the logs to the container's output."""
    header = ("# Made from docs/nginx.conf by tests/packaging/test_compose.py (compose_nginx):\n"
              "# edit that one, then: python -m tests.packaging.test_compose\n")
    body = text[text.index("worker_processes"):]
    for n, node in enumerate(NODES, 1):
        body = body.replace(f"127.0.0.1:800{n}", f"{node}:{PORT}")
    for old, new in (("error_log error.log warn;", "error_log stderr warn;"),
                     ("access_log access.log;", "access_log /dev/stdout;")):
        assert old in body, old
        body = body.replace(old, new)
    assert "127.0.0.1" not in body
    return header + body


def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def test_its_nginx_configuration_is_the_documented_one():
    assert NGINX.read_text() == compose_nginx((ROOT / "docs" / "nginx.conf").read_text())


def test_it_runs_the_services_of_a_cluster():
    services = compose()["services"]
    assert set(services) == {"postgres", "redis", *NODES, "nginx"}
    assert services["nginx"]["ports"] == ["443:8443"]  # TLS only, to the public
    for node in NODES:
        assert services[node]["build"] == {"context": "..", "dockerfile": "Containerfile"}
        assert (COMPOSE.parent / services[node]["build"]["context"] / "Containerfile").exists()


def test_each_node_is_reached_by_nginx_where_it_tells_its_players_to_come():
    services, conf = compose()["services"], NGINX.read_text()
    for n, node in enumerate(NODES, 1):
        url = services[node]["environment"]["TRICKROOM_NODE_URL"]
        assert url == f"/node/{n}/ws"
        assert f"location = {url} {{ proxy_pass http://{node}:{PORT}/ws; }}" in conf
        assert f"server {node}:{PORT} " in conf
    nginx = services["nginx"]["networks"]["default"]["ipv4_address"]
    for node in NODES:  # the nodes believe nginx's X-Forwarded-For, and only nginx's
        assert services[node]["environment"]["TRICKROOM_TRUSTED_PROXIES"] == nginx


@pytest.mark.parametrize("node", NODES)
def test_a_node_s_settings_are_known_variables_and_its_passwords_files(
        node, monkeypatch, tmp_path):
    service = compose()["services"][node]
    environment = service["environment"]
    assert set(environment) <= {variable(name) for name in NAMES} | {"TRICKROOM_SECRETS_DIR"}
    check_spelling(NAMES, environment)
    assert not any("password" in key.lower() for key in environment)
    # The node as it starts in its container: its secrets are files of /run/secrets.
    secrets = tmp_path / "run-secrets"
    secrets.mkdir()
    for secret in service["secrets"]:
        (secrets / secret["target"]).write_text(f"{secret['source']}-value\n")
    for key in list(os.environ):
        if key.upper().startswith("TRICKROOM_"):
            monkeypatch.delenv(key)
    for key, value in {**environment, "TRICKROOM_SECRETS_DIR": str(secrets)}.items():
        monkeypatch.setenv(key, str(value))
    serve = resolve({}).serve
    assert serve.store == "postgresql://trickroom:db_password-value@postgres:5432/trickroom"
    assert serve.cluster == "redis://:redis_password-value@redis:6379/0"


def test_no_password_is_written_in_it():
    for url in re.findall(r"\b(?:postgresql|redis)://[^\s\"']+", COMPOSE.read_text()):
        assert urlsplit(url).password is None, url
    postgres = compose()["services"]["postgres"]["environment"]
    assert "POSTGRES_PASSWORD" not in postgres
    assert postgres["POSTGRES_PASSWORD_FILE"].startswith("/run/secrets/")


if __name__ == "__main__":
    NGINX.write_text(compose_nginx((ROOT / "docs" / "nginx.conf").read_text()))
