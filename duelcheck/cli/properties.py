"""`duelcheck properties`: the property catalogue."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from duelcheck.cli._core import _guard, main


@main.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@_guard
def properties(fmt: str) -> None:
    """List every property with its kind and clause."""
    from duelcheck.properties import PROPERTIES

    rows: list[dict[str, Any]] = [
        {
            "property": p.name,
            "kind": p.kind,
            "clause": p.clause,
            "meaning": p.doc,
            "cases": [c.label for c in p.checks if c.label],
        }
        for p in PROPERTIES
    ]
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not sys.stdout.isatty():  # one property a line, never wrapped: grep and cut read it
        click.echo("property\tkind\tclause\tcases\tmeaning")
        for row in rows:
            cells = [row["property"], row["kind"], row["clause"], ",".join(row["cases"]), row["meaning"]]
            click.echo("\t".join(c.replace("\t", " ").replace("\n", " ") for c in cells))
        return
    table = Table(show_edge=False, pad_edge=False)
    for col in ("property", "kind", "clause", "meaning"):
        table.add_column(col, no_wrap=col in ("property", "kind"), overflow="fold")
    for row in rows:
        cases = f" (cases: {', '.join(row['cases'])})" if row["cases"] else ""
        table.add_row(row["property"], row["kind"], row["clause"], row["meaning"] + cases)
    Console(highlight=False).print(table)
