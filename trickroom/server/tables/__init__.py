"""Tables: each one a sans-I/O machine and a thin runner that does its I/O.

Theory of operation
-------------------
A table is split the way websockets' and h11's protocol cores are:

* :mod:`~server.tables.machine` holds everything a table decides: seats that
  belong to accounts, the game and its phases, prompts (once per turn), votes,
  the room's drop policy (:mod:`~server.tables.policies`, data), and its event
  log (:mod:`~server.tables.log`, the one publish point, bounded). Its only
  method is ``handle(command, now) -> effects``; commands
  (:mod:`~server.tables.commands`) and effects (:mod:`~server.tables.effects`)
  are frozen values, so every path through it is a unit test.
* :mod:`~server.tables.runner` carries the effects out: it stores records
  (:mod:`~server.tables.records`) before anything they cover is sent, sets
  timers, runs robots (the search robot in a worker thread) and fans messages
  out to sockets. Nothing of a table changes for a cluster: what the runner
  asks of other nodes (a write's fencing token, messages for their clients)
  it asks of the hub (:mod:`~trickroom.server.hub`), whichever the server has.

A command is all or nothing: refused, it changes nothing; if its records
cannot be stored, the machine undoes it and the player is told.

This package's ``__init__`` imports nothing, so the store can use the record
types without pulling in the runner.
"""
