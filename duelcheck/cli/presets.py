"""`duelcheck presets`: the rule presets and what each changes."""

from __future__ import annotations

import json
from typing import Any

import click

from duelcheck.cli._core import _guard, main


@main.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@_guard
def presets(fmt: str) -> None:
    """List the rule presets (--rules NAME) and what each changes; each is a TOML file citing its sources."""
    from duelcheck.rules import PRESET_FILES, rules_from_mapping

    rows: list[dict[str, Any]] = []
    for p in PRESET_FILES.values():
        changed = rules_from_mapping({"preset": p.name}).changed()
        rows.append({"preset": p.name, "aliases": list(p.aliases), "description": p.description, "changes": changed})
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        names = ", ".join([row["preset"], *row["aliases"]])
        changes = ", ".join(f"{k}={json.dumps(v)}" for k, v in row["changes"].items()) or "(none)"
        click.echo(f"{names}\t{row['description']}\t{changes}")
