"""Ctrl-C, recorded: the command line installs this handler before anything slow is imported, and the engines
act on the record between questions and in their loops (engines/limits.py interrupts a running Z3 call).

A KeyboardInterrupt raised by the handler itself would land anywhere: in a destructor, which swallows it
(Z3 frees terms all the time), or inside a call into the solver's library, which turns it into another
error. So the handler only records.
"""

from __future__ import annotations

import signal
import threading

_INTERRUPTED = [False]  # set by the handler below; kept until a run has acted on it


def on_sigint(signum: int, frame: object) -> None:
    _INTERRUPTED[0] = True


def install_sigint_handler() -> None:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, on_sigint)


def interrupted() -> bool:
    return _INTERRUPTED[0]


def set_interrupted(value: bool) -> None:
    _INTERRUPTED[0] = value


def check_interrupt() -> None:
    """Raise KeyboardInterrupt if a Ctrl-C came."""
    if _INTERRUPTED[0]:
        raise KeyboardInterrupt
