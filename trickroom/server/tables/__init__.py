"""Tables: each one a sans-I/O machine and a thin runner that does its I/O.

Theory of operation
-------------------
A table is split the way websockets' and h11's protocol cores are:

* :mod:`.machine` decides everything a table does. Its only method is
  ``handle(command, now) -> effects``; commands (:mod:`.commands`) and effects
  (:mod:`.effects`) are frozen values, so every path through it is a unit test.
  It holds one state value (:mod:`.state`) and hands each command to the part
  of the table it concerns, each a module of functions over a
  :class:`~.table.Table` that changes its own slice of the state:
  :mod:`.seating` (seats that belong to accounts, watchers), :mod:`.play` (the
  game, its turns, prompts once per turn, robots, its end), :mod:`.drops` (votes
  and the room's drop policy, :mod:`.policies`, as data), :mod:`.chat`,
  :mod:`.rating` and :mod:`.life` (opened, idle, closed). What every part says
  goes through the machine: the event log (:mod:`.log`, the one publish point,
  bounded), the records to store, the timers.
* :mod:`.runner` carries the effects out: it stores records
  (:mod:`.records`) before anything they cover is sent, sets
  timers, runs robots (the search robot in a worker process, within its
  players' share: :mod:`~trickroom.server.thinking`) and fans messages
  out to sockets. Nothing of a table changes for a cluster: what the runner
  asks of other nodes (a write's fencing token, messages for their clients)
  it asks of the hub (:mod:`~trickroom.server.hub`), whichever the server has.

A command is all or nothing: refused, it changes nothing; if its records
cannot be stored, the machine puts back the copy of its state it took before the
command, and the player is told.

This package's ``__init__`` imports nothing, so the store can use the record
types without pulling in the runner.
"""
