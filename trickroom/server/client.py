"""The Python client lives in its own package, ``trickroom_client`` (clients/python), which
the server's distribution ships too; this name stays for the code and tests that import it
from here."""

from trickroom_client.client import ServerError, TrickroomClient

__all__ = ["ServerError", "TrickroomClient"]
