"""`duelcheck show`: a trace in the rulebook's words."""

from __future__ import annotations

import json
from pathlib import Path

import click

from duelcheck.cli._core import _emit, _guard, _safe, main
from duelcheck.errors import InputError


@main.command()
@click.argument("trace_file", type=click.Path(dir_okay=False))
@click.option("--rules", "rules_file", type=click.Path(), help="Rules (default: those in the trace).")
@click.option("--from", "first", type=click.IntRange(0, None), default=0, help="The first step shown.")
@click.option("--to", "last", type=click.IntRange(0, None), default=None, help="The last step shown.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "svg"]),
    default="text",
    show_default=True,
    help="text; json (the same view as data); svg (a timeline: phases, actions, LP, the last step marked).",
)
@click.option("--fold/--no-fold", default=True, show_default=True, help="Fold runs of three or more passes.")
@click.option("--out", "out_file", type=click.Path(dir_okay=False), help="Write here (default: stdout).")
@_guard
def show(
    trace_file: str, rules_file: str | None, first: int, last: int | None, fmt: str, fold: bool, out_file: str | None
) -> None:
    """Print a trace in the duel-log format's words: per step who decides, the action, the clause, and
    what changed (LP and ATK in points)."""
    from duelcheck.counterexamples.itf import itf_to_trace, load_json, recorded_rules
    from duelcheck.counterexamples.view import render, render_json
    from duelcheck.model.system import TransitionSystem
    from duelcheck.rules import load_rules

    path = Path(trace_file)
    data = load_json(path)
    rules = load_rules(rules_file) if rules_file else recorded_rules(data, str(path))
    ts = TransitionSystem(rules)
    trace = itf_to_trace(ts, data, str(path))
    if first > len(trace) or (last is not None and not first <= last):
        raise InputError(f"--from/--to: expected steps from 0 to {len(trace)}, the first not after the last")
    meta = data.get("#meta", {})
    if not isinstance(meta, dict):
        meta = {}
    title = _safe(str(meta.get("description", path.name)))
    if fmt == "json":
        text = json.dumps(render_json(trace, title, first, last), indent=2, ensure_ascii=False) + "\n"
    elif fmt == "svg":
        from duelcheck.timeline import trace_svg

        violated = meta.get("verdict") == "violated"
        text = trace_svg(ts, trace, title, marked_step=len(trace) if violated else None)
    else:
        text = render(trace, f"{title}   ({len(trace)} steps)", first, last, fold) + "\n"
    _emit(text, out_file)
