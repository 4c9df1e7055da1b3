"""The `duelcheck` command line."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from duelcheck import __version__
from duelcheck.errors import InputError, InternalError

EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 4
DEFAULT_OUT = Path("counterexamples") / "traces"


def _die(message: str, code: int) -> None:
    click.echo(message, err=True)
    sys.exit(code)


def _guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Bad input: one line on stderr, exit 2. An uncertified trace: an internal error, exit 4."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except InputError as exc:
            _die(f"duelcheck: {exc}", EXIT_INPUT)
        except InternalError as exc:
            _die(f"duelcheck: internal error (not a verdict): {exc}", EXIT_INTERNAL)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


@click.group()
@click.version_option(__version__, prog_name="duelcheck")
def main() -> None:
    """duelcheck: a model checker for the turn rules of the Yu-Gi-Oh! TCG."""


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[str], None]]:
    if not enabled:
        yield lambda msg: None
        return
    console = Console(stderr=True)
    with console.status("checking") as status:
        yield lambda msg: status.update(msg)


def _select(names: tuple[str, ...]) -> list[Any]:
    from duelcheck.properties import BY_NAME, PROPERTIES

    if not names:
        return list(PROPERTIES)
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise InputError(f"--property: unknown property {unknown[0]!r}; expected one of {', '.join(BY_NAME)}")
    return [BY_NAME[n] for n in dict.fromkeys(names)]


@main.command()
@click.option("--rules", "rules_file", type=click.Path(dir_okay=False), help="TOML file of rule parameters.")
@click.option("--depth", type=click.IntRange(0, 200), default=None, help="Bound for bounded model checking.")
@click.option("--property", "names", multiple=True, help="Check only this property (repeatable).")
@click.option("--out", type=click.Path(file_okay=False), default=str(DEFAULT_OUT), help="Folder for trace files.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.option("--no-proofs", is_flag=True, help="Skip the induction proofs; check invariants by BMC alone.")
@click.option(
    "--solver",
    type=click.Choice(["auto", "yices", "z3"]),
    default="auto",
    show_default=True,
    help="Solver of the bounded search (auto: Yices when installed, else Z3).",
)
@click.option(
    "--rlimit",
    type=click.IntRange(1, None),
    default=None,
    help="Z3 resource limit per bounded-search question (Z3 only); a question it cannot settle is unknown.",
)
@click.option("--no-simulation", is_flag=True, help="Search witnesses symbolically only (no seeded simulation).")
@click.option("--no-cache", is_flag=True, help="Prove again instead of reading proofs cached for these rules.")
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=3,
    show_default=True,
    help="Processes for the bounded search (goals are dealt to them in a fixed order; measured fastest on 2 cores: 3).",
)
@_guard
def check(
    rules_file: str | None,
    depth: int | None,
    names: tuple[str, ...],
    out: str,
    fmt: str,
    no_proofs: bool,
    solver: str,
    rlimit: int | None,
    no_simulation: bool,
    no_cache: bool,
    workers: int,
) -> None:
    """Check the properties under the rules; write a trace for every violation and witness."""
    from duelcheck.engines.cache import default_cache_dir
    from duelcheck.engines.checker import DEFAULT_DEPTH, Checker
    from duelcheck.rules import load_rules

    rules = load_rules(rules_file)
    props = _select(names)
    bound = DEFAULT_DEPTH if depth is None else depth
    if rlimit is not None and solver == "auto":
        solver = "z3"
    cache = None if no_cache else default_cache_dir()
    with _progress(fmt == "text" and sys.stderr.isatty()) as progress:
        checker = Checker(
            rules,
            bound,
            Path(out),
            progress,
            solver=solver,
            rlimit=rlimit,
            prove=not no_proofs,
            simulate=not no_simulation,
            cache=cache,
            workers=workers,
        )
        report = checker.run(props)
        checker.write(report)
    if fmt == "json":
        click.echo(json.dumps(report.to_json(), indent=2))
    else:
        _print_table(report)
    sys.exit(report.exit_code)


def _print_table(report: Any) -> None:
    console = Console(highlight=False, width=max(Console().width, 120))
    changed = report.rules.changed()
    rules_line = ", ".join(f"{k}={v}" for k, v in changed.items()) or "official defaults"
    console.print(f"duelcheck {__version__}   rules: {rules_line}   bound: {report.depth}")
    table = Table(show_edge=False, pad_edge=False)
    for col in ("property", "kind", "verdict", "bound", "length", "minimal", "seconds", "engine"):
        table.add_column(col, justify="right" if col in ("bound", "length", "seconds") else "left")
    colors = {
        "holds": "green",
        "found": "green",
        "unreachable": "cyan",
        "violated": "red",
        "not-found": "red",
        "unknown": "yellow",
    }
    for r in report.results:
        bound = "all" if r.proved else str(r.bound)
        length = "" if r.length is None else str(r.length)
        verdict = f"[{colors[r.verdict]}]{r.verdict}[/]"
        minimal = "" if r.trace is None else ("yes" if r.minimal else "no")
        table.add_row(escape(r.label), r.kind, verdict, bound, length, minimal, f"{r.seconds:.1f}", r.engine)
    console.print(table)
    for r in report.results:
        if r.note and r.verdict in ("violated", "unknown", "not-found", "unreachable"):
            console.print(f"  {escape(r.label)}: {escape(r.note)}")
    bad = [r for r in report.results if r.verdict in ("violated", "not-found", "unknown")]
    summary = f"{len(report.results) - len(bad)} of {len(report.results)} as expected in {report.seconds:.1f} s"
    console.print(summary)
    for r in report.results:
        if r.trace_path and r.verdict == "violated":
            console.print(f"  trace: {r.trace_path}   (duelcheck show {r.trace_path})")


@main.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
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
    table = Table(show_edge=False, pad_edge=False)
    for col in ("property", "kind", "clause", "meaning"):
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(row["property"], row["kind"], row["clause"], row["meaning"])
    Console(highlight=False).print(table)


@main.command()
@click.argument("trace_file", type=click.Path(dir_okay=False))
@click.option("--rules", "rules_file", type=click.Path(dir_okay=False), help="Rules (default: those in the trace).")
@_guard
def show(trace_file: str, rules_file: str | None) -> None:
    """Print a trace: per step the action, its parameters, the clause, and what changed."""
    from duelcheck.counterexamples.itf import itf_to_trace, load_json, recorded_rules
    from duelcheck.counterexamples.view import render
    from duelcheck.model.system import TransitionSystem
    from duelcheck.rules import load_rules

    path = Path(trace_file)
    data = load_json(path)
    rules = load_rules(rules_file) if rules_file else recorded_rules(data, str(path))
    ts = TransitionSystem(rules)
    trace = itf_to_trace(ts, data, str(path))
    meta = data.get("#meta", {})
    if not isinstance(meta, dict):
        meta = {}
    title = f"{meta.get('description', path.name)}   ({len(trace)} steps)"
    click.echo(render(trace, title))


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


@main.command("replay")
@click.argument("play_file", type=click.Path(dir_okay=False))
@click.option("--rules", "rules_file", type=click.Path(dir_okay=False), help="Rules (default: those in the file).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@_guard
def replay_cmd(play_file: str, rules_file: str | None, fmt: str) -> None:
    """Replay a duel log or an ITF trace against the rules: exit 0 if it conforms, 1 if not."""
    from duelcheck.conformance import replay
    from duelcheck.rules import load_rules

    rules = load_rules(rules_file) if rules_file else None
    report = replay(play_file, rules)
    expect = report.expect
    failures = report.expectation_failures() if expect is not None else []
    if fmt == "json":
        data = report.to_json()
        if expect is not None:
            data["expectation"] = {"matched": not failures, "failures": failures}
        click.echo(json.dumps(data, indent=2))
    else:
        for st in report.steps:
            verdict = "legal" if st.legal else f"ILLEGAL: {st.reason}"
            who = "" if st.player is None else f"player {st.player}: "
            click.echo(f"{st.index:4d}  {who}{st.shown}  [{st.clause}]  {verdict}")
            for name, model, observed in st.differences:
                click.echo(f"        {name}: model {model}, observed {observed}")
        if report.conforms:
            click.echo(f"conforms: all {report.total} steps are legal and match the observed states")
        elif report.stopped_at is not None:
            click.echo(
                f"does not conform: step {report.stopped_at} of {report.total} is illegal "
                f"({report.stopped_at - 1} steps conform before it)"
            )
        else:
            click.echo("does not conform: observed states differ from the rules' outcome")
        if expect is not None:
            click.echo("the log's expected outcome: " + ("matched" if not failures else "NOT matched"))
            for failure in failures:
                click.echo(f"  {failure}")
    sys.exit(0 if report.conforms else 1)


@main.command("schema")
def schema_cmd() -> None:
    """Print the JSON Schema of the duel-log format (also shipped as duelcheck/schemas/duel-log.schema.json)."""
    from duelcheck.log import dump_schema

    click.echo(dump_schema(), nl=False)


if __name__ == "__main__":  # pragma: no cover
    main()
