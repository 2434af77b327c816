"""Benchmarks, each a module run from the checkout: ``python -m bench.<name> [--help]``.

Two kinds. The **server benches** (``load``, ``lobby``, ``rejoin``, ``soak``, ``abuse``,
``crash``, ``cluster``) start ``trickroom serve`` in a process of its own on a temporary
database and drive it over sockets from this process. They share:

- ``harness``: the server under test (started, stopped, killed), what is read of its
  process (CPU and RSS from /proc, its metrics over HTTP) and the requests a bench sends;
- ``bots``: the load bench's socket players, four to a table, timing each action's fan-out;
- ``stamps``: the clock every latency ends on (when a frame's bytes came off the socket);
- ``baselines``: the bare ``websockets`` servers (an echo, a relay, a stored relay) that
  the server's figures are printed against, as ratios, in the same run;
- ``acked``: players that rejoin through kills and restarts, and the check of what they saw
  acknowledged against the database (``crash`` on SQLite, ``faults`` on a cluster).

The **core benches** (``engine``, ``robots``, ``bid_calibration``, ``rating_systems``,
``ratings_real``) run the rules, robots and rating systems in this process; ``figures``
holds what every bench computes its figures with.

Every bench ends with one line, ``<name> key=value ...``: ``make bench`` prints it and the
tests read it, running each bench at the smallest size that exercises it (a test asserts
what a bench reports, never how fast: the figures are the bench's to print).
"""
