"""`duelcheck sweep`: a grid of rule sets, on Dask, into SQLite."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape

from duelcheck.cli._core import (
    EXIT_INTERNAL,
    _check_writable,
    _dask_options,
    _dask_workers,
    _die,
    _guard,
    _safe,
    _write_file,
    main,
)
from duelcheck.errors import InternalError

SWEEP_EXIT_CODES = """\b
Exit codes of a sweep:
  0    every cell has a verdict and none is unknown (a violated property under a variant is an answer)
  2    bad input: a grid file, --store or --scheduler (one line on stderr)
  3    some verdict is unknown (a time limit of the grid's [check] table left it open)
  4    a cell failed (internal error, not a verdict; the other cells are kept)
  130  interrupted (Ctrl-C): every cell that finished is in the store; the same command finishes the rest"""


@main.command("sweep", epilog=SWEEP_EXIT_CODES)
@click.argument("grid_file", type=click.Path(dir_okay=False))
@_dask_options("duelcheck-sweep.sqlite", "cell")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False), default=None, help="Also write an SVG heat map.")
@_guard
def sweep_cmd(
    grid_file: str, workers: int | None, scheduler: str | None, store: str, fmt: str, svg_file: str | None
) -> None:
    """Check every rule set of a grid file against its properties, one cell at a time on Dask, each result kept
    in a SQLite store; print the matrix of rule sets against properties (read from the store)."""
    import duelcheck.sweep as sw

    grid = sw.load_grid(grid_file)
    n_workers = _dask_workers(workers, scheduler)
    if svg_file is not None:
        _check_writable(Path(svg_file), "--svg")
    display = sw.Display(sys.stderr.isatty(), scheduler, n_workers)
    try:
        outcome = sw.run(
            grid, store, workers=n_workers, scheduler=scheduler, on_start=display.start, on_cell=display.cell
        )
    finally:
        display.stop()
    if outcome.interrupted:
        held = sum(1 for c in grid.cells if outcome.row(c) is not None)
        total = len(grid.cells)
        _die(f"duelcheck: interrupted: {held} of {total} cells are in {store}; the same command runs the rest", 130)
    if svg_file is not None:
        _write_file(Path(svg_file), sw.svg(outcome), "--svg")
    if fmt == "json":
        click.echo(json.dumps(outcome.to_json(), indent=2))
    elif sys.stdout.isatty():
        console = Console(highlight=False)
        console.print(sw.rich_table(outcome))
        for line in sw.summary_lines(outcome):
            console.print(escape(line))
    else:
        for line in sw.text_lines(outcome):
            click.echo(_safe(line))
    if outcome.exit_code == EXIT_INTERNAL:
        failed = next(iter(outcome.failures.values()), "no result")
        raise InternalError(f"{len(outcome.failures) or 1} cell(s) failed, kept out of the store: {failed}")
    sys.exit(outcome.exit_code)
