"""Errors the command line turns into one line on stderr."""


class InputError(Exception):
    """Bad input (a rule file, a trace, a log, a board): exit code 2."""


class InternalError(Exception):
    """A result that failed its certificate (a trace that does not replay): never reported as a verdict."""
