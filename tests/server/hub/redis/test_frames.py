"""Frames between nodes of two releases (a rolling deploy): a field at its default is not
written, and a field a node does not know is not read."""

from __future__ import annotations

from trickroom.server.hub.redis.frames import Call, Deliver, Relay, decode, encode


def test_a_frame_without_its_newer_fields_reads_on_a_node_of_the_release_before():
    assert encode(Relay([[1]], [3]), b"abc") == b'relay\n{"to":[[1]],"sizes":[3]}\nabc'
    assert encode(Deliver(5), b"x") == b'deliver\n{"to":5}\nx'
    for frame in (Relay([[1]], [3]), Relay([[1, 2]], [3], [1, 9], [0]), Deliver(5, True),
                  Call(1, 2, 3, "eleni", False, "127.0.0.1", "t1", "el")):
        assert decode(encode(frame, b"body")) == (frame, b"body")


def test_a_field_of_a_newer_release_is_left_unread():
    frame, body = decode(b'deliver\n{"to":5,"kept":true,"added_later":[1]}\nx')
    assert frame == Deliver(5, True) and body == b"x"
