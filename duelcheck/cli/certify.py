"""`duelcheck certify DIR`: check a proof certificate with another solver."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from duelcheck.cli._core import _guard, main


@main.command("certify")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option(
    "--solver",
    type=click.Choice(["yices", "z3", "cvc5", "bitwuzla"]),
    default="yices",
    show_default=True,
    help="The solver that checks every obligation, each in a fresh process (the proofs are Z3's first).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(1, None),
    default=None,
    help="Seconds per obligation (default: none, each solver runs to its answer; with one, what does not "
    "finish is unconfirmed).",
)
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True, help="Obligations asked at once.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@_guard
def certify(folder: str, solver: str, timeout: float | None, workers: int, fmt: str) -> None:
    """Check every obligation of the certificate `check --certificates` wrote: a proof is confirmed when all
    its obligations are unsat. Exit 0 when every proof is confirmed, 1 when an obligation is satisfiable (the
    certificate is wrong), 3 when some obligation was not settled (those proofs are unknown)."""
    from duelcheck.engines.certify import certify as run

    result = run(Path(folder), solver, timeout, workers)
    click.echo(json.dumps(result.to_json(), indent=2) if fmt == "json" else result.text())
    sys.exit(result.exit_code)
