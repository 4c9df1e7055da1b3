"""`duelcheck schema`: the JSON Schemas of the duel log and the engine protocol."""

from __future__ import annotations

import click

from duelcheck.cli._core import _guard, main


@main.command("schema")
@click.option("--engine-protocol", is_flag=True, help="The engine protocol's schema (exec:, JSON lines) instead.")
@_guard
def schema_cmd(engine_protocol: bool) -> None:
    """Print the JSON Schema of the duel-log format (also shipped as duelcheck/schemas/duel-log.schema.json),
    or of the engine protocol (duelcheck/schemas/engine-protocol.schema.json)."""
    if engine_protocol:
        from importlib.resources import files

        click.echo((files("duelcheck") / "schemas" / "engine-protocol.schema.json").read_text(), nl=False)
        return
    from duelcheck.log import dump_schema

    click.echo(dump_schema(), nl=False)
