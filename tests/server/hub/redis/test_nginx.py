"""The repository's nginx configuration (docs/nginx.conf), run as it is (by an unprivileged
user, with a self-signed certificate) in front of live nodes: players who know only the
proxy's address reach the web client, the API and the socket, over plain HTTP or TLS,
are spread over the nodes, follow their table to its own node, play it to the end, are
counted by their own addresses (not the proxy's), and still get in when a node has
gone."""

from __future__ import annotations

import asyncio
import grp
import os
import pwd
import random
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import urllib.request
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.server.conftest import play_until_over, wait_for
from tests.services import need
from trickroom.server.client import TrickroomClient

CONF = Path(__file__).resolve().parents[4] / "docs" / "nginx.conf"
# nginx refuses to run as root only in spirit: here it runs as this user, as a host's would.
UNPRIVILEGED = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


@dataclass
class Proxy:
    port: int  # plain HTTP
    tls_port: int  # HTTPS and wss://
    ssl: ssl.SSLContext  # a client's, trusting the proxy's self-signed certificate


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def render(ports: list[int], listen: int, tls_listen: int, tls: Path) -> str:
    """docs/nginx.conf with this test's ports and certificate; the rest as shipped."""
    text = CONF.read_text()
    shipped = sorted(set(re.findall(r"127\.0\.0\.1:(80\d\d)\b", text)))
    assert len(shipped) == len(ports) == 3
    for old, port in zip(shipped, ports, strict=True):  # the upstream and /node/<n>/ws
        text = text.replace(f"127.0.0.1:{old};", f"127.0.0.1:{port};")
        text = text.replace(f"127.0.0.1:{old} ", f"127.0.0.1:{port} ")
        text = text.replace(f"127.0.0.1:{old}/", f"127.0.0.1:{port}/")
    for old, new in (("listen 8080;", f"listen 127.0.0.1:{listen};"),
                     ("listen 8443 ssl;", f"listen 127.0.0.1:{tls_listen} ssl;"),
                     ("/etc/trickroom/tls/fullchain.pem", str(tls / "fullchain.pem")),
                     ("/etc/trickroom/tls/privkey.pem", str(tls / "privkey.pem"))):
        assert old in text, old
        text = text.replace(old, new)
    return text


def self_signed(directory: Path) -> None:
    """A certificate for 127.0.0.1, as docs/hosting.md makes one for a test host."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                    "-keyout", str(directory / "privkey.pem"),
                    "-out", str(directory / "fullchain.pem"),
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)


@pytest.fixture
def nginx():
    """``nginx(ports)`` runs docs/nginx.conf in front of the nodes at ``ports``, from a
    prefix directory of its own, as ``nobody`` when the tests run as root."""
    need("nginx")
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed (apt-get install openssl)")
    prefix = Path(tempfile.mkdtemp(prefix="trickroom-nginx-"))
    prefix.chmod(0o755)
    as_user: list[str] = []
    if os.geteuid() == 0:
        as_user = UNPRIVILEGED
        os.chown(prefix, pwd.getpwnam("nobody").pw_uid, grp.getgrnam("nogroup").gr_gid)
    started: list[subprocess.Popen] = []

    def start(ports: list[int], tls_listen: int | None = None) -> Proxy:
        tls = prefix / "tls"
        if not tls.exists():
            tls.mkdir()
            self_signed(tls)
            for made in (tls, *tls.iterdir()):  # the key readable by nginx's user alone
                shutil.chown(made, *(("nobody", "nogroup") if as_user else (None, None)))
        listen, tls_listen = free_port(), tls_listen or free_port()
        conf = prefix / "nginx.conf"
        conf.write_text(render(ports, listen, tls_listen, tls))
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        run = [*as_user, binary, "-p", str(prefix), "-c", str(conf)]
        checked = subprocess.run([*run, "-t", "-q"], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
        started.append(subprocess.Popen([*run, "-g", "daemon off;"]))
        context = ssl.create_default_context(cafile=str(tls / "fullchain.pem"))
        return Proxy(listen, tls_listen, context)

    yield start
    for process in started:
        process.terminate()
        process.wait(10)
    shutil.rmtree(prefix, ignore_errors=True)


def get(port: int, path: str, context: ssl.SSLContext | None = None) -> tuple[int, bytes]:
    scheme = "https" if context else "http"
    with urllib.request.urlopen(f"{scheme}://127.0.0.1:{port}{path}", timeout=5,
                                context=context) as response:
        return response.status, response.read()


async def reachable(port: int, context: ssl.SSLContext | None = None) -> None:
    for _ in range(200):
        try:
            await asyncio.to_thread(get, port, "/healthz", context)
            return
        except OSError:
            await asyncio.sleep(0.05)
    raise AssertionError("nginx never answered")


async def test_three_nodes_behind_the_shipped_nginx_config(cluster, nginx):
    nodes = [await cluster.node(trusted_proxies=["127.0.0.1"], node_url=f"/node/{n}/ws")
             for n in (1, 2, 3)]
    port = nginx([node.port for node in nodes]).port
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


async def test_players_over_wss_follow_their_table_to_its_node_through_nginx_tls(
        cluster, nginx):
    """wss:// through nginx's TLS, from a page of the proxy's own origin (the site's public
    origin, as the host lists it): a player whose socket landed on another node than the
    table's is moved to the table's node, on the proxy's TLS port still, and both play
    the game out."""
    tls_port = free_port()
    origin = f"https://127.0.0.1:{tls_port}"  # a browser's, on the proxy's page
    nodes = [await cluster.node(trusted_proxies=["127.0.0.1"], node_url=f"/node/{n}/ws",
                                allowed_origins=[origin])
             for n in (1, 2, 3)]
    proxy = nginx([node.port for node in nodes], tls_port)
    await reachable(proxy.tls_port, proxy.ssl)
    status, page = await asyncio.to_thread(get, proxy.tls_port, "/", proxy.ssl)
    assert status == 200 and b"<html" in page.lower()
    wss = f"wss://127.0.0.1:{proxy.tls_port}/ws"
    async with AsyncExitStack() as stack:
        host = await stack.enter_async_context(TrickroomClient.connect(
            wss, ssl=proxy.ssl, origin=origin))
        await host.request({"type": "guest", "name": "host"})
        table = await host.request({"type": "create_table", "room": "spades",
                                    "rules": {"target": 100, "mercy": 100}})
        table_id = table["table"]["id"]
        owner = next(n for n, node in enumerate(nodes, 1) if table_id in node.lobby.tables)
        for node in nodes:  # each node knows where the owner is (a lease renewal)
            while await node.hub.leases.url_of(nodes[owner - 1].hub.node.number) is None:
                node.hub.leases._urls.clear()
                await asyncio.sleep(0.05)
        # least_conn sends the next sockets to the nodes without one: another node's.
        guest = await stack.enter_async_context(TrickroomClient.connect(
            wss, ssl=proxy.ssl, origin=origin))
        await guest.request({"type": "guest", "name": "guest"})
        await wait_for(lambda: sum(1 for n in nodes if n.sessions.per_ip) == 2)
        await host.request({"type": "sit", "table": table_id, "seat": 0})
        await guest.request({"type": "sit", "table": table_id, "seat": 2})
        assert guest.url == f"wss://127.0.0.1:{proxy.tls_port}/node/{owner}/ws"
        await wait_for(lambda: set(nodes[owner - 1].sessions.per_ip) == {"127.0.0.1"}
                       and sum(nodes[owner - 1].sessions.per_ip.values()) == 2)
        await host.request({"type": "fill_robots", "table": table_id})
        ends = await asyncio.wait_for(asyncio.gather(
            *(play_until_over(c, table_id, random.Random(i))
              for i, c in enumerate((host, guest)))), 120)
        assert len({str(e["event"]) for e in ends}) == 1
