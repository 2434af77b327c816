"""No password of a URL is shown: :func:`masked` hides the user information's password and
every secret query parameter of each URL in a text, and leaves the rest as it was."""

from __future__ import annotations

import doctest

import pytest

from trickroom.server import urls
from trickroom.server.urls import masked


def test_the_module_s_examples_hold():
    failures, _ = doctest.testmod(urls)
    assert failures == 0


@pytest.mark.parametrize(("url", "shown"), [
    ("postgresql://trickroom:s3cret@db:5432/trickroom", "postgresql://trickroom:***@db:5432/trickroom"),
    ("postgres://u:p%40ss@db/t?schema=a", "postgres://u:***@db/t?schema=a"),
    ("postgresql://u:pa/ss@db/t", "postgresql://u:***@db/t"),  # an unquoted "/" in it
    ("postgresql://u:p@ss@db/t", "postgresql://u:***@db/t"),  # an unquoted "@" in it
    ("rediss://default:s3cret@redis:6380/2", "rediss://default:***@redis:6380/2"),
    ("redis://:s3cret@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"),
    ("unix:///run/redis.sock?db=1&password=s3cret", "unix:///run/redis.sock?db=1&password=***"),
    ("postgresql://db/t?user=u&sslpassword=s3cret", "postgresql://db/t?user=u&sslpassword=***"),
    ("postgresql://u@db/t", "postgresql://u@db/t"),
    ("/srv/trickroom/trickroom.sqlite3", "/srv/trickroom/trickroom.sqlite3"),
])
def test_a_url_is_shown_without_its_password(url, shown):
    assert masked(url) == shown


def test_every_url_in_a_message_is_masked_and_the_message_kept():
    message = ("cannot reach PostgreSQL at postgresql://u:one@db/t: refused; "
               "Redis (redis://:two@r:6379/0) neither.")
    assert masked(message) == ("cannot reach PostgreSQL at postgresql://u:***@db/t: refused; "
                               "Redis (redis://:***@r:6379/0) neither.")
