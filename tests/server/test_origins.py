"""Which pages may open the socket, without a socket: the server's own origins, the
host's public ones, normalized; never a name the server did not learn for itself."""

from __future__ import annotations

import socket

from trickroom.server.origins import Origins, invalid, normalized


def test_an_origin_is_compared_normalized():
    assert normalized("HTTPS://Cards.Example") == "https://cards.example:443"
    assert normalized("http://cards.example:80/") == "http://cards.example:80"
    assert normalized("http://[::1]:8765") == "http://[::1]:8765"
    for no_page in ("null", "file:///tmp/x.html", "cards.example", "http://a.example/x",
                    "http://a.example:99999", "http://user@a.example", "http://:80"):
        assert normalized(no_page) is None, no_page
    assert invalid(["https://ok.example", "ok.example"]) == ["ok.example"]


def test_a_server_listening_on_every_address_knows_its_names_and_the_address_reached():
    origins = Origins(["https://cards.example"])
    origins.listening("0.0.0.0", 8765)
    for origin in ("http://127.0.0.1:8765", "http://localhost:8765", "http://[::1]:8765",
                   f"http://{socket.gethostname()}:8765", "https://cards.example"):
        assert origins.allow(origin), origin
    assert origins.allow("http://192.0.2.5:8765", ("192.0.2.5", 8765))
    assert origins.allow("http://[2001:db8::5]:8765", ("2001:db8::5", 8765))
    # A name is never taken from the request: a rebound name reaches the same address.
    assert not origins.allow("http://evil.example:8765", ("192.0.2.5", 8765))
    assert not origins.allow("http://192.0.2.6:8765", ("192.0.2.5", 8765))
    assert not origins.allow("http://127.0.0.1:8766")
    assert not origins.allow("http://cards.example")


def test_a_server_listening_on_one_name_knows_that_name():
    origins = Origins(())
    origins.listening("cards.lan", 9000)
    assert origins.allow("http://cards.lan:9000") and origins.allow("http://localhost:9000")
    assert not origins.allow("https://cards.lan:9000")
