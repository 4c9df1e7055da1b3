"""The command line's shared core: the exit codes, the guard every command runs under, the `main` group,
and the helpers more than one command uses."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from duelcheck.errors import InputError, InternalError
from duelcheck.version import __version__

EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_UNKNOWN, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130
EXIT_PIPE = 141  # the shell's number for a pipe closed by its reader (128 + SIGPIPE)


DEFAULT_OUT = Path("duelcheck-out")  # a new folder per run inside it: <date>T<time>-<rules hash>/


EXIT_CODES = """\b
Exit codes (every command):
  0    holds / found / unreachable where the rules remove it; the play conforms
  1    violated, not-found or a lost witness; the play does not conform
  2    bad input (one line on stderr: the file, the place, what was expected)
  3    unknown: a solver or a time limit left a verdict open, nothing violated
  4    internal error (never a verdict; --debug shows the traceback)
  130  interrupted (Ctrl-C): the verdicts settled so far are printed and written
  141  the output's reader went away (a pipe closed early, as by head): nothing more is printed"""


def _safe(text: str) -> str:
    """Text any terminal can print (a lone surrogate in a file's text is shown escaped)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _die(message: str, code: int) -> None:
    click.echo(_safe(message), err=True)
    sys.exit(code)


def _debug() -> bool:
    ctx = click.get_current_context(silent=True)
    root = ctx.find_root() if ctx is not None else None
    return bool(root is not None and root.params.get("debug"))


def _guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Bad input: one line on stderr, exit 2. Anything unexpected: one line, exit 4. Ctrl-C: exit 130."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except InputError as exc:
            _die(f"duelcheck: {exc}", EXIT_INPUT)
        except InternalError as exc:
            _die(f"duelcheck: internal error (not a verdict): {exc}", EXIT_INTERNAL)
        except KeyboardInterrupt:
            _die("duelcheck: interrupted", EXIT_INTERRUPTED)
        except BrokenPipeError:  # the reader of stdout went away: no one to tell; the final flush must not fail
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(EXIT_PIPE)
        except (SystemExit, click.exceptions.Exit, click.ClickException):
            raise
        except Exception as exc:
            if _debug():
                raise
            where = f"{type(exc).__name__}: {exc}"
            _die(f"duelcheck: internal error (not a verdict): {where}; rerun with --debug for the traceback", 4)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


@click.group(epilog=EXIT_CODES, context_settings={"max_content_width": 100})
@click.version_option(__version__, prog_name="duelcheck")
@click.option("--debug", is_flag=True, help="Show the Python traceback of an internal error.")
def main(debug: bool) -> None:
    """duelcheck: a model checker for the turn rules of the Yu-Gi-Oh! TCG."""


def _check_writable(path: Path, option: str) -> None:
    """A file an option names can be written (checked before any work, so no result is lost to it)."""
    import os

    parent = path.parent if str(path.parent) else Path(".")
    if not str(path).strip() or path.is_dir() or not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{option} {path}: cannot write there (expected a file in a folder that can be written)")


def _dask_options(store: str, noun: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The options of a command that runs on Dask and keeps its results in a store (sweep, mutate)."""

    def add(f: Callable[..., Any]) -> Callable[..., Any]:
        f = click.option(
            "--store",
            type=click.Path(dir_okay=False),
            default=store,
            show_default=True,
            help=f"SQLite file of the results: a {noun} it holds is not run again.",
        )(f)
        f = click.option("--scheduler", default=None, help="Run on the Dask scheduler at tcp://HOST:PORT instead.")(f)
        return click.option(
            "--workers",
            type=click.IntRange(1, 64),
            default=None,
            help="Processes of the local Dask cluster, one thread each, on 127.0.0.1 (default: one per core).",
        )(f)

    return add


def _dask_workers(workers: int | None, scheduler: str | None) -> int:
    """The local cluster's size (one worker per core unless --workers says), after checking --scheduler."""
    import duelcheck.sweep as sw
    from duelcheck.engines.checker import default_workers

    if scheduler is not None:
        if workers is not None:
            raise InputError("--workers: sizes the local cluster; not with --scheduler")
        sw.check_address(scheduler)
    return workers if workers is not None else default_workers()


def _write_file(path: Path, text: str, option: str) -> None:
    """Write `text` to `path` atomically; a path that cannot be written is bad input named by its option."""
    from duelcheck.counterexamples.itf import write_atomic

    try:
        write_atomic(path, text)
    except OSError as exc:
        raise InputError(f"{option} {path}: cannot write ({exc.strerror or exc})") from None


def _emit(text: str, out_file: str | None) -> None:
    """The command's output: into --out when given, else on stdout."""
    if out_file:
        _write_file(Path(out_file), text, "--out")
    else:
        click.echo(_safe(text), nl=False)
