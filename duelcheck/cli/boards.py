"""`duelcheck boards`: edge-case boards for game engines."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape

from duelcheck.cli._core import EXIT_FAIL, EXIT_UNKNOWN, _check_writable, _guard, _safe, main
from duelcheck.errors import InputError


def _named_wheres(wheres: tuple[str, ...], files: tuple[str, ...], rules: Any) -> tuple[str, ...]:
    """`--where NAME`: a state property of a `--properties` file stands for its expression (a board is a
    state: a step predicate or a count, which needs the play's history, names no board)."""
    if not files:
        return wheres
    from duelcheck.api import user_properties

    mine = {p.name: p for p in user_properties(rules, (), (), files)}
    out = []
    for where in wheres:
        p = mine.get(where.strip())
        if p is None:
            out.append(where)
            continue
        if p.counters or any(c.on != "state" for c in p.checks) or p.source is None:
            raise InputError(f"--where {where}: a board is a state; {p.name} reads a step or counts what happened")
        out.append(p.source)
    return tuple(out)


@main.command("boards")
@click.option(
    "--rules",
    "rules_file",
    type=click.Path(),
    help="A TOML file of rule parameters, or a preset's name (duelcheck presets lists them).",
)
@click.option("--depth", type=click.IntRange(0, 200), default=12, show_default=True, help="Bound of the search.")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Write one duel log per board here, and coverage.json / coverage.txt.",
)
@click.option(
    "--where",
    "wheres",
    multiple=True,
    help="Only a board where this holds, e.g. 'players[1].lp <= 1000 and phase == battle_step' (repeatable; "
    "docs/boards.md has the language), or the name of a state property of a --properties file.",
)
@click.option(
    "--properties",
    "property_files",
    multiple=True,
    help="A TOML file of [[property]] tables whose state properties --where may name (repeatable).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["logs", "pytest"]),
    default="logs",
    show_default=True,
    help="pytest: also write test_boards.py, replaying every board against an engine adapter.",
)
@click.option("--action", "actions", multiple=True, help="Only this action's guards (repeatable; no boundary boards).")
@click.option(
    "--bound-only",
    is_flag=True,
    help="No search beyond the bound (by default what it misses is searched a few steps on from the states of "
    "the boards' plays and of seeded random plays; such a board is not proved the shortest).",
)
@click.option(
    "--no-proofs",
    is_flag=True,
    help="No induction: a twin not found is unreachable only when the well-formed facts imply its guard.",
)
@click.option("--no-cache", is_flag=True, help="Prove again instead of reading proofs cached for these rules.")
@_guard
def boards_cmd(
    rules_file: str | None,
    depth: int,
    out: str | None,
    wheres: tuple[str, ...],
    property_files: tuple[str, ...],
    fmt: str,
    actions: tuple[str, ...],
    bound_only: bool,
    no_proofs: bool,
    no_cache: bool,
) -> None:
    """Edge-case test boards for game engines: for every guard of every action the shortest play to a board
    where the action is legal and to its illegal twin (that guard alone fails), boundary boards (damage
    table ties, LP to exactly 0, the hand limit, full zones, the longest chain), each certified by the
    interpreter and written as a duel log with its expected verdict; and a coverage report."""
    from duelcheck.engines.boards import run, write
    from duelcheck.engines.cache import default_cache_dir
    from duelcheck.rules import load_rules

    rules = load_rules(rules_file)
    wheres = _named_wheres(wheres, property_files, rules)
    if fmt == "pytest" and out is None:
        raise InputError("--format pytest: give --out DIR, where the boards and test_boards.py are written")
    if wheres and actions:
        raise InputError("--where and --action: give one or the other")
    if out is not None:
        try:
            Path(out).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"--out {out}: cannot make the folder ({exc.strerror or exc})") from None
        _check_writable(Path(out) / "coverage.json", "--out")
    console = Console(stderr=True, highlight=False)
    progress = console.print if sys.stderr.isatty() else None
    result = run(
        rules,
        depth,
        actions=list(actions) or None,
        boundaries=not wheres and not actions,
        wheres=wheres,
        guards=not wheres,
        progress=(lambda text: progress(escape(text))) if progress else None,
        deep=not bound_only,
        prove=not no_proofs,
        cache=None if no_cache else default_cache_dir(),
    )
    if out is not None:
        write(result, Path(out), fmt)
    if wheres and out is None:
        found = [g.doc for g in result.by_kind("where") if g.doc is not None]
        click.echo(_safe(result.text()), err=True, nl=False)
        if found:
            click.echo(json.dumps(found[0] if len(wheres) == 1 else found, indent=1, ensure_ascii=False))
    else:
        click.echo(_safe(result.text()), nl=False)
        if out is not None:
            click.echo(f"written to {out}/")
    statuses = [g.status for g in result.goals]
    if "unknown" in statuses:
        sys.exit(EXIT_UNKNOWN)
    if wheres and any(g.doc is None for g in result.by_kind("where")):
        sys.exit(EXIT_FAIL)
