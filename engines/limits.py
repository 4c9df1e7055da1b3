"""Ctrl-C and time limits that work inside a long solver call.

Python runs a signal handler only between bytecodes, so a Ctrl-C that arrives while Z3 is deep in a
`check()` would wait for the call to end (minutes, or never within a resource limit). The watchdog
below has the interpreter write each signal to a socket (`signal.set_wakeup_fd`, done by the C-level
handler at once) and a thread that reads it interrupts Z3's context, so the call returns and the
pending KeyboardInterrupt is raised. The same thread interrupts Z3 when the run's time limit passes;
the engines check the limit between questions and stop with `Stopped`, so that what did not finish is
`unknown`. Solver processes (Yices) are started in their own session, out of reach of the terminal's
Ctrl-C: their parent stops them.
"""

from __future__ import annotations

import select
import signal
import socket
import threading
import time
from types import TracebackType
from typing import Any

import z3

from duelcheck.interrupts import _INTERRUPTED, check_interrupt, install_sigint_handler, on_sigint

# Z3 installs a SIGINT handler of its own during each check (its `ctrl_c` parameter): it would cancel the call
# and swallow the Ctrl-C, so the run went on with an `unknown`. The watchdog below does that work and records it.
z3.set_param("ctrl_c", False)

__all__ = ["Watchdog", "check_interrupt", "clear_interrupt", "install_sigint_handler"]


def clear_interrupt() -> None:
    """Undo an interrupt of Z3's context that no call consumed (one sent between questions, or after the
    last): it stays pending and breaks the next user of the context (a solver's `push` raised "operator not
    supported, apply simplifier" deriving the phase graph after a run whose time limit had passed). A
    question of its own clears it."""
    z3.Solver().check()


class Watchdog:
    """While active: a Ctrl-C or the deadline (`time.monotonic()`) interrupts the running Z3 call."""

    def __init__(self, deadline: float | None = None):
        self.deadline = deadline
        self.interrupted = False
        self.expired = False
        self._old_fd: int | None = None
        self._pair: tuple[socket.socket, socket.socket] | None = None
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._old_handler: Any = signal.SIG_DFL

    def __enter__(self) -> Watchdog:
        if threading.current_thread() is not threading.main_thread():
            return self  # signals reach the main thread only; a library caller in a thread keeps its own
        r, w = socket.socketpair()
        r.setblocking(False)
        w.setblocking(False)
        self._pair = (r, w)
        self._old_fd = signal.set_wakeup_fd(w.fileno(), warn_on_full_buffer=False)
        self._old_handler = signal.signal(signal.SIGINT, on_sigint)
        self._thread = threading.Thread(target=self._watch, name="duelcheck-watchdog", daemon=True)
        self._thread.start()
        return self

    def _watch(self) -> None:
        assert self._pair is not None
        r = self._pair[0]
        while not self._done.is_set():
            wait = 0.25
            if self.deadline is not None and not self.expired:
                wait = max(0.0, min(wait, self.deadline - time.monotonic()))
            ready, _, _ = select.select([r], [], [], wait)
            if ready:
                try:
                    data = r.recv(64)
                except OSError:
                    data = b""
                if bytes([signal.SIGINT]) in data:
                    _INTERRUPTED[0] = True
            if _INTERRUPTED[0]:  # again and again: the call running now may have started after the signal
                self.interrupted = True
                z3.main_ctx().interrupt()
            if self.deadline is not None and not self.expired and time.monotonic() >= self.deadline:
                self.expired = True
                z3.main_ctx().interrupt()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()  # within one select (a quarter of a second): no interrupt comes after this
        _INTERRUPTED[0] = False  # acted upon: a library caller may run again
        if self.interrupted or self.expired:
            clear_interrupt()
        if self._pair is not None:
            signal.signal(signal.SIGINT, self._old_handler)
            signal.set_wakeup_fd(self._old_fd if self._old_fd is not None else -1)
            for sock in self._pair:
                sock.close()
