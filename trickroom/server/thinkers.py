"""What a robots' thinker runs: one robot's move, timed in processor seconds.

Kept apart from :mod:`server.thinking` so that a worker process imports the robots and
nothing of the server (no sockets, no metrics): it starts fast, and holds only this.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from trickroom.game.actions import Action
from trickroom.game.robots import Robot
from trickroom.game.trickgame import TrickView

WORKERS = ("process", "thread")
"""Where robots think: worker processes, or threads of the server's process."""


@dataclass(frozen=True, slots=True)
class Thought:
    """A robot's searched move: the robot as it is after it (from a worker process, a
    copy to keep), its action, its reason for the review and what the table may be told,
    and the processor seconds it cost."""

    robot: Robot
    action: Action
    why: str
    told: str
    seconds: float


def _think(robot: Robot, view: TrickView, clock: Callable[[], float]) -> Thought:
    started = clock()
    action = robot.choose(view)
    explain, tell = getattr(robot, "explain", None), getattr(robot, "tell", None)
    return Thought(robot, action, explain() if explain is not None else "",
                   tell() if tell is not None else "", clock() - started)


NICENESS = 19
"""How much lower a worker process's priority is than the server's: on a busy machine the
tables' messages go first, the robots' thinking after (it waits a little, they do not).
The lowest (19): beside ten tables of searching robots kept by one address, another
table's act p99 was 1.09/0.63/1.22 times quiet, against 1.78/1.16/1.08 at 10
(``python -m bench.abuse --only robots --robots-pace fast``, three runs each, a quiet
machine)."""


def start_worker(server: int) -> None:
    """A worker process's start: at a lower priority than the server (process ``server``),
    deaf to a terminal's Ctrl-C (the server stops its workers itself), and gone once the
    server is: killed outright, it could not say so, and the worker (and the fork server
    it came from, which its worker keeps alive) would wait for work for ever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    threading.Thread(target=_watch, args=(server,), daemon=True).start()


def _watch(server: int) -> None:
    """End this worker once the server process is gone."""
    while True:
        time.sleep(1.0)
        try:
            os.kill(server, 0)
        except ProcessLookupError:
            os._exit(0)
        except OSError:  # another user's process has its number now: ours is gone
            os._exit(0)


def think_in_process(robot: Robot, view: TrickView) -> Thought:
    """A move in a worker process: its only thread, so the process's time is the move's."""
    return _think(robot, view, time.process_time)


def think_in_thread(robot: Robot, view: TrickView) -> Thought:
    """A move in a thread of the server: that thread's time."""
    return _think(robot, view, time.thread_time)
