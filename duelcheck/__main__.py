"""The `duelcheck` command (and `python -m duelcheck`): Ctrl-C is recorded from the first moment, before
anything slow is imported (duelcheck/interrupts.py), then the command line (duelcheck/cli/) runs."""

from __future__ import annotations

import signal

from duelcheck.interrupts import install_sigint_handler


def run() -> None:
    install_sigint_handler()
    from duelcheck.cli import main

    try:
        main()
    finally:  # the command has settled its exit code: a Ctrl-C from here on (during shutdown) changes nothing
        signal.signal(signal.SIGINT, signal.SIG_IGN)


if __name__ == "__main__":
    run()
