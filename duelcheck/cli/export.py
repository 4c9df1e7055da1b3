"""`duelcheck export`: the transition system for other checkers."""

from __future__ import annotations

from pathlib import Path

import click

from duelcheck.cli._core import _check_writable, _emit, _guard, main
from duelcheck.errors import InputError


@main.command("export")
@click.option("--rules", "rules_file", type=click.Path(), help="TOML file of rule parameters.")
@click.option(
    "--property",
    "label",
    required=True,
    help="The property, or one case of it: name[case] (a property with several cases and no case named: any of them).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["smt2", "chc"]),
    required=True,
    help="smt2: the BMC question to --depth (SMT-LIB 2, QF_BV); chc: the whole system as Horn clauses (CHC-COMP).",
)
@click.option(
    "--depth",
    type=click.IntRange(0, 200),
    default=None,
    help="Steps from the initial state for smt2 (default: the check command's bound); not for chc.",
)
@click.option("--out", "out_file", type=click.Path(dir_okay=False), help="Write here (default: stdout).")
@_guard
def export_cmd(rules_file: str | None, label: str, fmt: str, depth: int | None, out_file: str | None) -> None:
    """Write a property's question for another solver: smt2 is sat when the goal (a violation of an `always`
    property, the witness of a `sometimes` one) is reached within --depth steps; chc is sat when an inductive
    invariant excludes it at every depth, unsat when it is reachable. The file's comments say it again."""
    from duelcheck.api import select
    from duelcheck.engines.checker import DEFAULT_DEPTH
    from duelcheck.engines.export import export
    from duelcheck.rules import load_rules

    if fmt == "chc" and depth is not None:
        raise InputError("--depth: only for --format smt2 (the CHC system has no bound)")
    rules = load_rules(rules_file)
    (prop,) = select([label])
    if out_file is not None:
        _check_writable(Path(out_file), "--out")
    bound = DEFAULT_DEPTH if depth is None else depth
    text = export(rules, prop, "smt2" if fmt == "smt2" else "chc", bound if fmt == "smt2" else None, rules_file)
    _emit(text, out_file)
