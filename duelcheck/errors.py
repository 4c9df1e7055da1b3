"""Errors the command line turns into one line on stderr."""

from __future__ import annotations


def one_line(text: str) -> str:
    """The text with control characters escaped (a key or a file name may hold a newline), so that an
    error is always one line."""
    return "".join(ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode("ascii") for ch in text)


class InputError(Exception):
    """Bad input (a rule file, a trace, a log, a board): exit code 2."""

    def __init__(self, message: str):
        super().__init__(one_line(message))


class InternalError(Exception):
    """A result that failed its certificate (a trace that does not replay): never reported as a verdict."""

    def __init__(self, message: str):
        super().__init__(one_line(message))
