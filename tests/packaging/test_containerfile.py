"""The Containerfile: what it copies is what ``pip install .`` needs (tests/test_install.py
installs the same), and its settings are known TRICKROOM_* variables. Where podman runs
and its base image is here or can be pulled, the image is built and a container of it
serves; elsewhere those tests are skipped with the reason (a machine that reaches no
registry of containers cannot have the base image; one that is itself a container may
build but not run one)."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.services import free_port
from trickroom.server.effective import NAMES
from trickroom.server.environment import check_spelling, variable

ROOT = Path(__file__).resolve().parents[2]
CONTAINERFILE = ROOT / "Containerfile"


def instructions() -> list[tuple[str, str]]:
    """(instruction, its arguments), continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n\s*", " ", CONTAINERFILE.read_text())
    lines = [line.strip() for line in text.splitlines()]
    return [(line.split(None, 1)[0], line.split(None, 1)[1]) for line in lines
            if line and not line.startswith("#")]


def base_image() -> str:
    [arg] = [a for i, a in instructions() if i == "ARG" and a.startswith("PYTHON_IMAGE=")]
    return arg.partition("=")[2]


def test_it_copies_what_an_install_needs_and_nothing_else():
    copied = {source for i, a in instructions() if i == "COPY" and "--from" not in a
              for source in a.split()[:-1]}
    assert copied == {"pyproject.toml", "README.md", "trickroom", "clients/python/src"}
    install = (ROOT / "tests" / "test_install.py").read_text()
    assert '("pyproject.toml", "README.md")' in install
    assert '("trickroom", "clients/python/src")' in install
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", "packaging/secrets", "packaging/tls"} <= set(ignored)


def test_its_settings_are_known_variables_and_it_serves_as_no_root():
    env = {}
    for instruction, arguments in instructions():
        if instruction == "ENV":
            env.update(pair.split("=", 1) for pair in arguments.split())
    settings = {k: v for k, v in env.items() if k.startswith("TRICKROOM_")}
    check_spelling(NAMES, settings)
    assert set(settings) <= {variable(name) for name in NAMES}
    assert settings["TRICKROOM_HOST"] == "0.0.0.0"  # reachable from outside its container
    [exposed] = [a for i, a in instructions() if i == "EXPOSE"]
    assert exposed == settings["TRICKROOM_PORT"]
    [user] = [a for i, a in instructions() if i == "USER"]
    assert user not in ("root", "0")
    assert ("ENTRYPOINT", '["trickroom"]') in instructions()


def podman(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("podman")
    assert binary is not None
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout)


def why_no_build(image: str) -> str | None:
    """Why the image cannot be built here (None: it can): no podman, a podman that does
    not work, or a base image that is neither here nor to be pulled."""
    if shutil.which("podman") is None:
        return "podman is not installed (apt-get install podman)"
    info = podman("info", timeout=60)
    if info.returncode != 0:
        return f"podman does not work here: {last_line(info.stderr)}"
    if podman("image", "exists", image).returncode == 0:
        return None
    pulled = podman("pull", "--quiet", image, timeout=300)
    if pulled.returncode != 0:
        reason = last_line(pulled.stderr)
        return f"the base image {image} is not here and cannot be pulled: {reason}"
    return None


def last_line(text: str) -> str:
    return (text.strip().splitlines() or ["no reason given"])[-1]


@pytest.fixture(scope="module")
def image():
    """The image, built from the Containerfile on its base image (or on the one
    TRICKROOM_TEST_PYTHON_IMAGE names: a mirror's). Its RUN steps are run in a chroot
    (``--isolation=chroot``): they need no container runtime, which a machine that is
    itself a container may not have, and reach PyPI as this machine does."""
    base = os.environ.get("TRICKROOM_TEST_PYTHON_IMAGE") or base_image()
    reason = why_no_build(base)
    if reason is not None:
        pytest.skip(reason)
    tag = f"localhost/trickroom-test:{secrets.token_hex(4)}"
    built = podman("build", "--isolation=chroot", "--quiet", "--build-arg",
                   f"PYTHON_IMAGE={base}", "-t", tag, "-f", str(CONTAINERFILE), str(ROOT),
                   timeout=1200)
    assert built.returncode == 0, built.stderr
    yield tag
    podman("rmi", "--force", tag)


def test_podman_builds_the_image(image):
    inspected = podman("image", "inspect", "--format", "{{json .Config}}", image)
    assert inspected.returncode == 0, inspected.stderr
    config = json.loads(inspected.stdout)
    assert config["User"] == "trickroom" and config["Entrypoint"] == ["trickroom"]
    assert "TRICKROOM_HOST=0.0.0.0" in config["Env"]


def test_a_container_of_the_image_serves(image):
    config = podman("run", "--rm", image, "config", "--json")
    if config.returncode != 0 and "OCI" in config.stderr:
        pytest.skip(f"podman cannot run containers here: {last_line(config.stderr)}")
    assert config.returncode == 0, config.stderr
    assert {"name": "host", "value": "0.0.0.0", "from": "env", "source": "TRICKROOM_HOST",
            "variable": "TRICKROOM_HOST"} in json.loads(config.stdout)
    port = free_port()
    name = image.rpartition(":")[2]
    run = podman("run", "-d", "--rm", "--name", name, "-p", f"127.0.0.1:{port}:8765", image)
    assert run.returncode == 0, run.stderr
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz",
                                            timeout=2) as answer:
                    assert answer.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline, podman("logs", name).stderr
                time.sleep(0.5)
    finally:
        podman("stop", "--time", "10", name)
