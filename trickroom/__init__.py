"""trickroom: a real-time multiplayer Spades and Hearts server.

The package's parts, and the one way their imports point (DESIGN section 1):

* :mod:`trickroom.game`: the rules engines and robots. Pure: no I/O, no clock.
* :mod:`trickroom.ratings`: the rating systems of real card sites. Pure.
* :mod:`trickroom.server`: sockets, HTTP, the stores, the tables' runners and the hubs
  that nodes share; it imports ``game`` and ``ratings``, never the other way round,
  and ``game`` and ``ratings`` never import each other.
* ``trickroom/web``: the browser client, static files the server serves.
"""
