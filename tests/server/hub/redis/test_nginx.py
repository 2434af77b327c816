"""The repository's nginx configuration (docs/nginx.conf), run as it is in front of three
live nodes: players who know only the proxy's port reach the web client, the API and the
socket, are spread over the nodes, play one table to the end, are counted by their own
addresses (not the proxy's), and still get in when a node has gone."""

from __future__ import annotations

import asyncio
import random
import re
import shutil
import socket
import subprocess
import urllib.request
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from tests.server.conftest import play_until_over, wait_for
from tests.services import need
from trickroom.server.client import TrickroomClient

CONF = Path(__file__).resolve().parents[4] / "docs" / "nginx.conf"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def render(ports: list[int], listen: int, prefix: Path) -> str:
    """docs/nginx.conf with this test's ports; the rest as shipped (logs kept in
    ``prefix``, as a host's would be in /var/log/nginx)."""
    text = CONF.read_text()
    shipped = sorted(set(re.findall(r"127\.0\.0\.1:(80\d\d)\b", text)))
    assert len(shipped) == len(ports) == 3
    for old, port in zip(shipped, ports, strict=True):  # the upstream and /node/<n>/ws
        text = text.replace(f"127.0.0.1:{old};", f"127.0.0.1:{port};")
        text = text.replace(f"127.0.0.1:{old} ", f"127.0.0.1:{port} ")
        text = text.replace(f"127.0.0.1:{old}/", f"127.0.0.1:{port}/")
    text = text.replace("listen 8080;", f"listen 127.0.0.1:{listen};")
    assert f"listen 127.0.0.1:{listen};" in text
    return text.replace("http {", f"http {{\n    access_log {prefix}/access.log;", 1)


@pytest.fixture
def nginx(tmp_path):
    need("nginx")
    started: list[subprocess.Popen] = []

    def start(ports: list[int]) -> int:
        listen = free_port()
        conf = tmp_path / "nginx.conf"
        conf.write_text(render(ports, listen, tmp_path))
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        directives = f"daemon off; pid {tmp_path}/nginx.pid; error_log {tmp_path}/error.log;"
        subprocess.run([binary, "-t", "-q", "-p", str(tmp_path), "-c", str(conf),
                        "-g", directives], check=True)
        started.append(subprocess.Popen([binary, "-p", str(tmp_path), "-c", str(conf),
                                         "-g", directives]))
        return listen

    yield start
    for process in started:
        process.terminate()
        process.wait(10)


def get(port: int, path: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
        return response.status, response.read()


async def reachable(port: int) -> None:
    for _ in range(200):
        try:
            await asyncio.to_thread(get, port, "/healthz")
            return
        except OSError:
            await asyncio.sleep(0.05)
    raise AssertionError("nginx never answered")


async def test_three_nodes_behind_the_shipped_nginx_config(cluster, nginx):
    nodes = [await cluster.node(trusted_proxies=["127.0.0.1"], node_url=f"/node/{n}/ws")
             for n in (1, 2, 3)]
    port = nginx([node.port for node in nodes])
    await reachable(port)
    status, page = await asyncio.to_thread(get, port, "/")
    assert status == 200 and b"<html" in page.lower()
    status, rooms = await asyncio.to_thread(get, port, "/api/rooms")
    assert status == 200 and b"spades" in rooms

    ws_url = f"ws://127.0.0.1:{port}/ws"
    # Four players from four addresses (loopback has them all: 127.0.0.2 to .5); only the
    # proxy is trusted, and each node must count the players by the addresses nginx says
    # it forwarded, never by nginx's own.
    addresses = [f"127.0.0.{i + 2}" for i in range(4)]
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(
            ws_url, local_addr=(address, 0))) for address in addresses]
        await wait_for(lambda: sum(sum(n.sessions.per_ip.values()) for n in nodes) == 4)
        seen = {ip for node in nodes for ip in node.sessions.per_ip}
        assert seen == set(addresses)
        assert sum(1 for node in nodes if node.sessions.per_ip) >= 2  # least_conn spread them
        for i, client in enumerate(clients):
            await client.request({"type": "guest", "name": f"n{i}"})
        table = (await clients[0].request({"type": "create_table", "room": "spades",
                                           "rules": {"target": 100, "mercy": 100}}))
        table_id = table["table"]["id"]
        owner = next(n for n, node in enumerate(nodes, 1) if table_id in node.lobby.tables)
        for node in nodes:  # each node has written where it is (a lease renewal)
            while await node.hub.leases.url_of(nodes[owner - 1].hub.node.number) is None:
                node.hub.leases._urls.clear()
                await asyncio.sleep(0.05)
        for i, client in enumerate(clients):
            await client.request({"type": "sit", "table": table_id, "seat": i})
        # Every player on another node followed the table to its own, through the proxy,
        # with its own address still counted there.
        assert {c.url for c in clients} <= {ws_url, f"ws://127.0.0.1:{port}/node/{owner}/ws"}
        assert any(c.url != ws_url for c in clients)
        await wait_for(lambda: set(nodes[owner - 1].sessions.per_ip) == set(addresses)
                       and all(not node.sessions.per_ip for node in nodes
                               if node is not nodes[owner - 1]))
        ends = await asyncio.wait_for(asyncio.gather(
            *(play_until_over(c, table_id, random.Random(i)) for i, c in enumerate(clients))),
            120)
        assert len({str(e["event"]) for e in ends}) == 1

    # A node goes: nginx passes new players to the others.
    await nodes[0].stop()
    cluster.nodes.remove(nodes[0])
    for _ in range(4):
        async with TrickroomClient.connect(ws_url) as late:
            welcome = await late.request({"type": "guest"})
            assert welcome["type"] == "welcome"
