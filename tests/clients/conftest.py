"""The clients' tests play against the same live test server as the server's tests."""

from tests.server.conftest import app, make_app, url

__all__ = ["app", "make_app", "url"]
