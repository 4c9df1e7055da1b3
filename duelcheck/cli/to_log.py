"""`duelcheck to-log`: a trace as a duel log."""

from __future__ import annotations

import json
from pathlib import Path

import click

from duelcheck.cli._core import _guard, main
from duelcheck.errors import InputError


@main.command("to-log")
@click.argument("trace_file", type=click.Path(dir_okay=False))
@click.option("--out", "out_file", type=click.Path(dir_okay=False), help="Write here (default: stdout).")
@click.option("--from-step", "first", type=int, default=0, show_default=True, help="The step whose state is the board.")
@_guard
def to_log(trace_file: str, out_file: str | None, first: int) -> None:
    """Write a trace as a duel log: a test board and play for a game engine, with every observed state."""
    from duelcheck.counterexamples.itf import itf_to_trace, load_json, recorded_rules, write_atomic
    from duelcheck.log import log_of
    from duelcheck.model.system import TransitionSystem

    path = Path(trace_file)
    data = load_json(path)
    ts = TransitionSystem(recorded_rules(data, str(path)))
    trace = itf_to_trace(ts, data, str(path))
    if not 0 <= first < len(trace.steps):
        raise InputError(f"--from-step: expected a step from 0 to {len(trace)}")
    meta = data.get("#meta", {}) if isinstance(data.get("#meta"), dict) else {}
    title = str(meta.get("description", path.name))
    steps = [(st.action, st.params, st.state) for st in trace.steps[first:]]
    text = json.dumps(log_of(steps, ts.rules, title), indent=1) + "\n"
    if out_file:
        write_atomic(Path(out_file), text)
    else:
        click.echo(text, nl=False)
