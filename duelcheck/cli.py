"""The `duelcheck` command line."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from duelcheck import __version__
from duelcheck.errors import InputError, InternalError

EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_UNKNOWN, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130
DEFAULT_OUT = Path("duelcheck-out")  # a new folder per run inside it: <date>T<time>-<rules hash>/

EXIT_CODES = """\b
Exit codes (every command):
  0    holds / found / unreachable; the play conforms
  1    violated or not-found; the play does not conform
  2    bad input (one line on stderr: the file, the place, what was expected)
  3    unknown: a solver or a time limit left a verdict open, nothing violated
  4    internal error (never a verdict; --debug shows the traceback)
  130  interrupted (Ctrl-C): the verdicts settled so far are printed and written"""


def _safe(text: str) -> str:
    """Text any terminal can print (a lone surrogate in a file's text is shown escaped)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _die(message: str, code: int) -> None:
    click.echo(_safe(message), err=True)
    sys.exit(code)


def _debug() -> bool:
    ctx = click.get_current_context(silent=True)
    root = ctx.find_root() if ctx is not None else None
    return bool(root is not None and root.params.get("debug"))


def _guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Bad input: one line on stderr, exit 2. Anything unexpected: one line, exit 4. Ctrl-C: exit 130."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except InputError as exc:
            _die(f"duelcheck: {exc}", EXIT_INPUT)
        except InternalError as exc:
            _die(f"duelcheck: internal error (not a verdict): {exc}", EXIT_INTERNAL)
        except KeyboardInterrupt:
            _die("duelcheck: interrupted", EXIT_INTERRUPTED)
        except (SystemExit, click.exceptions.Exit, click.ClickException):
            raise
        except Exception as exc:
            if _debug():
                raise
            where = f"{type(exc).__name__}: {exc}"
            _die(f"duelcheck: internal error (not a verdict): {where}; rerun with --debug for the traceback", 4)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


@click.group(epilog=EXIT_CODES, context_settings={"max_content_width": 100})
@click.version_option(__version__, prog_name="duelcheck")
@click.option("--debug", is_flag=True, help="Show the Python traceback of an internal error.")
def main(debug: bool) -> None:
    """duelcheck: a model checker for the turn rules of the Yu-Gi-Oh! TCG."""


_COLUMNS = ("property", "kind", "verdict", "bound", "length", "minimal", "seconds", "engine")
_COLORS = {
    "holds": "green",
    "found": "green",
    "unreachable": "cyan",
    "violated": "red",
    "not-found": "red",
    "unknown": "yellow",
    "interrupted": "yellow",
}


def _cells(r: Any) -> list[str]:
    """A result as the table's cells (the label is the one spelling of a property's case: name[case])."""
    bound = "all" if r.proved else str(r.bound)
    length = "" if r.length is None else str(r.length)
    minimal = "" if r.trace is None else ("yes" if r.minimal else "no")
    return [r.label, r.kind, r.verdict, bound, length, minimal, f"{r.seconds:.1f}", r.engine]


def _rich_table(rows: list[Any]) -> Table:
    table = Table(show_edge=False, pad_edge=False)
    for col in _COLUMNS:
        right = col in ("bound", "length", "seconds")
        table.add_column(col, justify="right" if right else "left", no_wrap=col in ("property", "verdict"))
    for r in rows:
        cells = [escape(c) for c in _cells(r)]
        cells[2] = f"[{_COLORS[r.verdict]}]{cells[2]}[/]"
        table.add_row(*cells)
    return table


class _Live:
    """What a run shows while it works: elapsed time, properties settled out of the total, the stage or
    the depth being searched, and each row as soon as it is settled. On a terminal, a live display on
    stderr (the final table then goes to stdout); otherwise plain lines on stderr; nothing with --quiet."""

    def __init__(self, mode: str):
        import time

        self.mode = mode  # "live", "plain" or "off"
        self.started = time.monotonic()
        self.total = 0
        self.rows: list[Any] = []
        self.stage = "starting"
        self._live: Any = None
        self._console = Console(stderr=True, highlight=False)

    def _elapsed(self) -> float:
        import time

        return time.monotonic() - self.started

    def __rich__(self) -> Any:
        from rich.console import Group

        height = max(3, self._console.size.height - 4)
        status = f"[bold]{self._elapsed():6.1f} s[/]  {len(self.rows)} of {self.total} settled  {escape(self.stage)}"
        return Group(_rich_table(self.rows[-height:]), status)

    def __enter__(self) -> _Live:
        if self.mode == "live":
            from rich.live import Live

            self._live = Live(self, console=self._console, refresh_per_second=4, transient=True)
            self._live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._live is not None:
            self._live.__exit__(*exc)

    def progress(self, message: str) -> None:
        if message == self.stage:
            return
        self.stage = message
        if self.mode == "plain":
            click.echo(f"[{self._elapsed():7.1f} s] {message}", err=True)

    def settled(self, r: Any) -> None:
        self.rows.append(r)
        if self.mode == "plain":
            n = f"{len(self.rows)}/{self.total}"
            click.echo(f"[{self._elapsed():7.1f} s] {n} {r.label}: {r.verdict} ({r.seconds:.1f} s)", err=True)


def _select(names: tuple[str, ...]) -> list[Any]:
    from duelcheck.api import select

    return select(names)


@main.command()
@click.option(
    "--rules",
    "rules_file",
    type=click.Path(),
    help="A TOML file of rule parameters, or a preset's name (duelcheck presets lists them).",
)
@click.option("--depth", type=click.IntRange(0, 200), default=None, help="Bound for bounded model checking.")
@click.option(
    "--property",
    "names",
    multiple=True,
    help="Check only this property, or one case of it as the table spells it: name[case] (repeatable).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Write the traces and summary.json exactly into this folder (default: a new folder per run under "
    "duelcheck-out/).",
)
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
    default=None,
    help="Processes for the bounded search and the slower proofs (default: one per core). The properties are "
    "dealt to two solver sessions whatever this number, so the verdicts and traces do not depend on it.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(0, None, min_open=True),
    default=None,
    help="Seconds for the whole run; what does not finish is unknown (exit 3).",
)
@click.option(
    "--property-timeout",
    type=click.FloatRange(0, None, min_open=True),
    default=None,
    help="Seconds of solver questions for each check of a property; what does not finish is unknown.",
)
@click.option("--quiet", is_flag=True, help="No progress on stderr (by default: live on a terminal, else lines).")
@click.option(
    "--report",
    "report_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write one self-contained HTML page of the run: the table, each trace's timeline, the phase graph, "
    "the rules.",
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
    workers: int | None,
    timeout: float | None,
    property_timeout: float | None,
    quiet: bool,
    report_file: str | None,
) -> None:
    """Check the properties under the rules; write a trace for every violation and witness, and a summary."""
    import time

    from duelcheck.engines.cache import default_cache_dir
    from duelcheck.engines.checker import DEFAULT_DEPTH, Checker, interrupted_report
    from duelcheck.engines.limits import check_interrupt, install_sigint_handler
    from duelcheck.rules import load_rules

    install_sigint_handler()  # (installed already by the `duelcheck` command; here for library callers of main)
    started = time.monotonic()
    rules = load_rules(rules_file)
    props = _select(names)
    bound = DEFAULT_DEPTH if depth is None else depth
    if rlimit is not None and solver == "auto":
        solver = "z3"
    folder = _run_folder(out, rules)
    if report_file is not None:
        _check_writable(Path(report_file), "--report")
    cache = None if no_cache else default_cache_dir()
    mode = "off" if quiet else ("live" if sys.stderr.isatty() and fmt == "text" else "plain")
    with _Live(mode) as live:
        live.total = sum(len(p.checks) for p in props)
        try:
            checker: Checker | None = Checker(
                rules,
                bound,
                folder,
                live.progress,
                solver=solver,
                rlimit=rlimit,
                prove=not no_proofs,
                simulate=not no_simulation,
                cache=cache,
                deadline=None if timeout is None else started + timeout,
                workers=workers,
                property_timeout=property_timeout,
                on_result=live.settled,
            )
            check_interrupt()
        except KeyboardInterrupt:  # Ctrl-C while the model is being built: nothing settled yet
            checker = None
        if checker is not None:
            report = checker.run(props)
        else:
            report = interrupted_report(rules, props, bound, time.monotonic() - started)
        try:
            if checker is not None:
                checker.write(report)
        except OSError as exc:
            raise InputError(f"--out {folder}: cannot write ({exc.strerror or exc})") from None
        _write_summary(folder, report)
        if report_file is not None:
            live.progress("writing the HTML report")
            _write_report(Path(report_file), report, folder)
    if fmt == "json":
        click.echo(json.dumps(report.to_json(), indent=2))
    else:
        _print_table(report)
        click.echo(("# " if not sys.stdout.isatty() else "") + f"written to {folder}/")
    sys.exit(report.exit_code)


def _run_folder(out: str | None, rules: Any) -> Path:
    """The folder a run writes into, checked writable before any work: --out exactly, or a new folder
    per run under duelcheck-out/ (named by the time and the rule set, so no run mixes with another)."""
    import hashlib
    import os
    import tempfile
    import time

    if out is not None and not out.strip():
        raise InputError("--out: expected a folder, got an empty name")
    if out is None:
        digest = hashlib.sha256(json.dumps(rules.model_dump(), sort_keys=True).encode()).hexdigest()[:8]
        stamp = time.strftime("%Y%m%dT%H%M%S")
        folder = DEFAULT_OUT / f"{stamp}-{digest}"
        n = 1
        while folder.exists():
            n += 1
            folder = DEFAULT_OUT / f"{stamp}-{digest}-{n}"
    else:
        folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".duelcheck-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise InputError(f"--out {folder}: cannot write there ({exc.strerror or exc})") from None
    return folder


def _check_writable(path: Path, option: str) -> None:
    """A file an option names can be written (checked before any work, so no result is lost to it)."""
    import os

    parent = path.parent if str(path.parent) else Path(".")
    if not str(path).strip() or path.is_dir() or not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{option} {path}: cannot write there (expected a file in a folder that can be written)")


def _write_report(path: Path, report: Any, folder: Path) -> None:
    """The HTML page of a run: the phase graph as SVG when Graphviz is installed, else its DOT text."""
    from duelcheck.counterexamples.itf import write_atomic
    from duelcheck.graph import phase_graph, render_svg, to_dot
    from duelcheck.htmlreport import report_html

    changed = report.rules.changed()
    name = ", ".join(f"{k}={v}" for k, v in changed.items()) or "official rules"
    dot = to_dot(phase_graph(report.rules), f"Phases and steps under {name}")
    page = report_html(report, folder, render_svg(dot) or dot)
    try:
        write_atomic(path, page)
    except OSError as exc:
        raise InputError(f"--report {path}: cannot write ({exc.strerror or exc})") from None


def _write_summary(folder: Path, report: Any) -> None:
    """summary.json: the command, the version, the rules, every verdict with its trace and seconds, the exit code."""
    from duelcheck.counterexamples.itf import write_atomic

    ctx = click.get_current_context(silent=True)
    options = {k: list(v) if isinstance(v, tuple) else v for k, v in (ctx.params if ctx else {}).items()}
    summary = {
        "command": "duelcheck check",
        "options": options,
        "duelcheck": __version__,
        "exit_code": report.exit_code,
        "simulation_seed": 0,
        **report.to_json(),
    }
    try:
        write_atomic(folder / "summary.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise InputError(f"--out {folder}: cannot write ({exc.strerror or exc})") from None


def _print_table(report: Any) -> None:
    """The results: a table fitted to the terminal (no name is ever wrapped); tab-separated rows with the
    other lines as `#` comments when stdout is not a terminal, so that grep, cut and awk read it."""
    changed = report.rules.changed()
    rules_line = ", ".join(f"{k}={v}" for k, v in changed.items()) or "official defaults"
    head = f"duelcheck {__version__}   rules: {rules_line}   bound: {report.depth}"
    notes = [
        f"{r.label}: {r.note}"
        for r in report.results
        if r.note and r.verdict in ("violated", "unknown", "not-found", "unreachable", "interrupted")
    ]
    bad = [r for r in report.results if r.verdict in ("violated", "not-found", "unknown", "interrupted")]
    tail = [f"{len(report.results) - len(bad)} of {len(report.results)} as expected in {report.seconds:.1f} s"]
    shown = [r.trace_path for r in report.results if r.trace_path and r.verdict == "violated"]
    tail += [f"trace: {path}   (duelcheck show '{path}')" for path in shown]
    if not sys.stdout.isatty():
        click.echo(_safe(f"# {head}"))
        click.echo("\t".join(_COLUMNS))
        for r in report.results:
            click.echo(_safe("\t".join(_cells(r))))
        for line in [*notes, *tail]:
            click.echo(_safe(f"# {line}"))
        return
    console = Console(highlight=False)
    console.print(escape(head))
    console.print(_rich_table(report.results))
    for line in notes:
        console.print(f"  {escape(line)}")
    for line in tail:
        console.print(escape(line))


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


@main.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
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


@main.command("diff")
@click.argument("rules_a")
@click.argument("rules_b")
@click.option("--depth", type=click.IntRange(0, 200), default=12, show_default=True, help="The bound of both searches.")
@click.option("--property", "names", multiple=True, help="Compare only these properties' verdicts (repeatable).")
@click.option("--no-verdicts", is_flag=True, help="Only the shortest distinguishing plays, not the verdicts.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@_guard
def diff_cmd(rules_a: str, rules_b: str, depth: int, names: tuple[str, ...], no_verdicts: bool, fmt: str) -> None:
    """Two rule sets (files or preset names) side by side: every property's verdict under each, and in each
    direction the shortest play legal under one whose last step the other refuses or ends elsewhere."""
    from duelcheck.api import check, select
    from duelcheck.counterexamples.view import render, render_json
    from duelcheck.engines.diff import Difference, diff
    from duelcheck.rules import load_rules

    a, b = load_rules(rules_a), load_rules(rules_b)
    props = [p.name for p in select(names)] if names else None
    rows: list[dict[str, Any]] = []
    if not no_verdicts:
        # the bounded search alone beyond the proofs: seeded simulation finds different plays under different
        # rules, and a difference must come from the rules, not from a random walk
        reports = [check(r, props, depth, simulate=False) for r in (a, b)]
        for ra, rb in zip(reports[0].results, reports[1].results, strict=True):
            rows.append({"property": ra.label, "a": ra.verdict, "b": rb.verdict, "same": ra.verdict == rb.verdict})
    result = diff(a, b, depth)

    def one(d: Difference | None, first: str, second: str) -> dict[str, Any] | None:
        if d is None:
            return None
        out: dict[str, Any] = {"kind": d.kind, "length": d.length, "reason": d.reason}
        out["fields"] = [{"field": f, first: x, second: y} for f, x, y in d.fields]
        if d.trace is not None:
            out["play"] = render_json(d.trace, f"legal under {first}")
        return out

    if fmt == "json":
        doc = {
            "a": rules_a,
            "b": rules_b,
            "depth": depth,
            "verdict": result.verdict,
            "note": result.note or None,
            "properties": rows,
            "a_to_b": one(result.a_to_b, "a", "b"),
            "b_to_a": one(result.b_to_a, "b", "a"),
        }
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
    else:
        click.echo(_safe(f"duelcheck diff {rules_a} {rules_b}   depth {depth}: {result.verdict}"))
        if result.note:
            click.echo(_safe(f"  ({result.note})"))
        if rows:
            click.echo(_safe(f"property\t{rules_a}\t{rules_b}"))
            for row in rows:
                mark = "" if row["same"] else "\t<- differs"
                click.echo(_safe(f"{row['property']}\t{row['a']}\t{row['b']}{mark}"))
        for d, x, y in ((result.a_to_b, rules_a, rules_b), (result.b_to_a, rules_b, rules_a)):
            if d is None:
                if result.verdict != "equivalent":
                    click.echo(_safe(f"\nno play legal under {x} that {y} refuses or ends elsewhere, up to {depth}"))
                continue
            if d.kind == "start":
                click.echo(_safe(f"\n{x} and {y} start from different states:"))
            else:
                steps = "step" if d.length == 1 else "steps"
                what = "refuses" if d.kind == "refused" else "ends elsewhere at"
                click.echo(
                    _safe(f"\nthe shortest play legal under {x} whose last step {y} {what} ({d.length} {steps}):")
                )
            if d.trace is not None:
                click.echo(_safe(render(d.trace, "", fold=False)))
            if d.kind == "refused":
                click.echo(_safe(f"  under {y}, step {d.length} is illegal: {d.reason}"))
            for f, vx, vy in d.fields:
                click.echo(_safe(f"  {f}: {vx} under {x}, {vy} under {y}"))
    unknown = result.verdict == "unknown" or any(r[k] in ("unknown", "interrupted") for r in rows for k in ("a", "b"))
    sys.exit(EXIT_UNKNOWN if unknown else EXIT_OK)


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
    from duelcheck.counterexamples.itf import itf_to_trace, load_json, recorded_rules, write_atomic
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
    if out_file:
        try:
            write_atomic(Path(out_file), text)
        except OSError as exc:
            raise InputError(f"--out {out_file}: cannot write ({exc.strerror or exc})") from None
    else:
        click.echo(_safe(text), nl=False)


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
@click.argument("plays", nargs=-1, required=True, type=click.Path())
@click.option("--rules", "rules_file", type=click.Path(), help="Rules (default: those in the file).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.option("--junit", "junit", type=click.Path(dir_okay=False), help="Also write a JUnit XML report here.")
@_guard
def replay_cmd(plays: tuple[str, ...], rules_file: str | None, fmt: str, junit: str | None) -> None:
    """Replay duel logs or ITF traces against the rules: exit 0 if each conforms (or matches its expected
    outcome), 1 if not. Folders are read for every *.json file in them; several files give one line each."""
    from duelcheck.rules import load_rules

    rules = load_rules(rules_file) if rules_file else None
    files = _play_files(plays)
    if len(files) == 1 and not junit and not Path(plays[0]).is_dir():
        _replay_one(files[0], rules, fmt)
        return
    from duelcheck.interrupts import check_interrupt

    outcomes = []
    for f in files:
        check_interrupt()  # Ctrl-C between files: exit 130
        outcomes.append(_replay_outcome(f, rules))
    if junit:
        _write_junit(Path(junit), outcomes)
    if fmt == "json":
        click.echo(json.dumps([o.to_json() for o in outcomes], indent=2))
    else:
        for o in outcomes:
            click.echo(_safe(f"{o.status:5s} {o.path}: {o.line}"))
        counts = {k: sum(1 for o in outcomes if o.status == k) for k in ("ok", "FAIL", "ERROR")}
        click.echo(f"{len(outcomes)} files: {counts['ok']} ok, {counts['FAIL']} failed, {counts['ERROR']} bad input")
    if any(o.status == "ERROR" for o in outcomes):
        sys.exit(EXIT_INPUT)
    sys.exit(EXIT_OK if all(o.status == "ok" for o in outcomes) else EXIT_FAIL)


def _play_files(plays: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for name in plays:
        path = Path(name)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.json") if p.is_file())
            if not found:
                raise InputError(f"{path}: expected a duel log, an ITF trace, or a folder holding *.json files")
            files += found
        else:
            files.append(path)
    return files


@dataclass
class _Outcome:
    path: Path
    status: str  # ok, FAIL (does not conform, or its expected outcome is not matched), ERROR (bad input)
    line: str
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {"file": str(self.path), "status": self.status, "result": self.line, "seconds": round(self.seconds, 3)}


def _replay_outcome(path: Path, rules: Any) -> _Outcome:
    import time

    from duelcheck.conformance import replay

    t0 = time.perf_counter()
    try:
        report = replay(path, rules)
    except InputError as exc:
        return _Outcome(path, "ERROR", f"bad input: {exc}", time.perf_counter() - t0)
    if report.expect is not None:
        failures = report.expectation_failures()
        line = "expected outcome matched" if not failures else "expected outcome NOT matched: " + failures[0]
        return _Outcome(path, "ok" if not failures else "FAIL", line, time.perf_counter() - t0)
    if report.conforms:
        return _Outcome(path, "ok", f"conforms ({report.total} steps)", time.perf_counter() - t0)
    bad = next((st for st in report.steps if not st.legal), None)
    if bad is not None:
        line = f"does not conform: step {bad.index} is illegal: {bad.reason}"
    else:
        first = next(st for st in report.steps if st.differences)
        name, model, observed = first.differences[0]
        line = f"does not conform: step {first.index}: {name}: the rules give {model}, observed {observed}"
    return _Outcome(path, "FAIL", line, time.perf_counter() - t0)


def _write_junit(path: Path, outcomes: list[_Outcome]) -> None:
    from xml.etree import ElementTree as ET

    from duelcheck.counterexamples.itf import write_atomic

    failures = sum(1 for o in outcomes if o.status == "FAIL")
    errors = sum(1 for o in outcomes if o.status == "ERROR")
    suite = ET.Element(
        "testsuite",
        name="duelcheck replay",
        tests=str(len(outcomes)),
        failures=str(failures),
        errors=str(errors),
        time=f"{sum(o.seconds for o in outcomes):.3f}",
    )
    for o in outcomes:
        case = ET.SubElement(suite, "testcase", classname="duelcheck.replay", name=str(o.path), time=f"{o.seconds:.3f}")
        if o.status == "FAIL":
            ET.SubElement(case, "failure", message=_safe(o.line)).text = _safe(o.line)
        elif o.status == "ERROR":
            ET.SubElement(case, "error", message=_safe(o.line)).text = _safe(o.line)
    text = ET.tostring(suite, encoding="unicode")
    try:
        write_atomic(path, '<?xml version="1.0" encoding="UTF-8"?>\n' + text + "\n")
    except OSError as exc:
        raise InputError(f"--junit {path}: cannot write ({exc.strerror or exc})") from None


def _replay_one(play_file: Path, rules: Any, fmt: str) -> None:
    from duelcheck.conformance import replay

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
            click.echo(_safe(f"{st.index:4d}  {who}{st.shown}  [{st.clause}]  {verdict}"))
            for name, model, observed in st.differences:
                click.echo(_safe(f"        {name}: model {model}, observed {observed}"))
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
                click.echo(_safe(f"  {failure}"))
    sys.exit(0 if report.conforms else 1)


@main.command("difftest")
@click.option(
    "--engine",
    "engine_spec",
    default="ygopro",
    show_default=True,
    help="ygopro (ygopro-core), model (a self-check), or 'exec:COMMAND ARGS' (an engine speaking JSON lines).",
)
@click.option("--ocgcore", type=click.Path(dir_okay=False), help="The ygopro-core library (else DUELCHECK_OCGCORE).")
@click.option("--plays", type=click.IntRange(1, 1_000_000), default=100, show_default=True)
@click.option("--turns", type=click.IntRange(1, 200), default=3, show_default=True, help="Turns per play at most.")
@click.option(
    "--decks",
    type=click.Choice(["mixed", "monsters"]),
    default="mixed",
    show_default=True,
    help="The decks dealt: Normal Monsters with Spells and Traps, or Normal Monsters only.",
)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--rules", "rules_file", help="Rules: a TOML file or a preset (default: the official rules).")
@click.option("--out", "out", type=click.Path(file_okay=False), help="Write the findings' logs and difftest.json here.")
@click.option("--report", "report_file", type=click.Path(dir_okay=False), help="Also write an HTML report here.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.option(
    "--timeout",
    type=click.FloatRange(0.1, None),
    default=30.0,
    show_default=True,
    help="Seconds the engine may take for one answer.",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=None,
    help="Processes playing the plays, each with its own engine (default: the cores, at most 2).",
)
@click.option(
    "--guided/--no-guided",
    default=True,
    show_default=True,
    help="Also play, before the random plays, the solver's play to each aim (docs/engines.md, guided plays).",
)
@click.option(
    "--aim",
    "aims",
    multiple=True,
    metavar="EXPR",
    help="Aim the guided plays here instead: a state in the --where language of `duelcheck boards` (repeatable).",
)
@click.option(
    "--aim-depth",
    type=click.IntRange(1, 40),
    default=None,
    help="Steps of the longest guided play the solver looks for (default 14).",
)
@click.option("--no-cache", is_flag=True, help="Search the guided plays again, not from the cache.")
@click.option("--quiet", is_flag=True, help="No progress on stderr.")
@_guard
def difftest_cmd(
    engine_spec: str,
    ocgcore: str | None,
    plays: int,
    turns: int,
    decks: str,
    seed: int,
    rules_file: str | None,
    out: str | None,
    report_file: str | None,
    fmt: str,
    timeout: float,
    workers: int | None,
    guided: bool,
    aims: tuple[str, ...],
    aim_depth: int | None,
    no_cache: bool,
    quiet: bool,
) -> None:
    """Compare the rules with a real engine over plays aimed by the solver at rare situations, then seeded
    random plays: the actions each offers at every decision (both ways) and the state after every action;
    each disagreement shrunk, grouped and written as a log.
    Exit 0: no disagreement; 1: disagreements; 2: bad input; 3: the solver left an aim open; 4: the engine
    failed."""
    import os

    from duelcheck.adapters import cards
    from duelcheck.adapters.jsonlines import EngineError, Unsupported
    from duelcheck.difftest import difftest, open_engine, write_findings
    from duelcheck.engines.boards import parse_where
    from duelcheck.rules import load_rules

    rules = load_rules(rules_file)
    if aims and not guided:
        raise InputError("--aim: the aims are guided plays; drop --no-guided")
    for expr in aims:  # a malformed aim stops the run before any search
        try:
            parse_where(expr, rules)
        except InputError as exc:
            raise InputError(f"--aim {expr!r}: {exc}") from None
    engines, name = open_engine(engine_spec, rules, ocgcore, timeout)
    if out is not None:
        try:
            Path(out).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"--out {out}: cannot make the folder ({exc.strerror or exc})") from None
        if not os.access(out, os.W_OK | os.X_OK):
            raise InputError(f"--out {out}: cannot write there")
    if report_file is not None:
        _check_writable(Path(report_file), "--report")
    live = not quiet and sys.stderr.isatty()

    def progress(done: int, total: int, found: int) -> None:
        if live or (not quiet and done % 100 == 0):
            end = "\r" if live and done < total else "\n"
            click.echo(f"  play {done} of {total}, {found} distinct disagreements", err=True, nl=False)
            click.echo(end, err=True, nl=False)

    try:
        engines.get()
    except Unsupported as exc:
        raise InputError(f"--engine {engine_spec}: {name} cannot play under these rules: {exc}") from None
    except EngineError as exc:
        _die(f"duelcheck: the engine failed to start: {exc}", EXIT_INTERNAL)
    found = []
    if guided:
        from duelcheck.engines import guided as aimed
        from duelcheck.engines.cache import default_cache_dir

        tell = (lambda text: click.echo(f"  guided plays: {text}", err=True)) if not quiet else None
        found = aimed.find(
            rules,
            cards.dealable,
            aims,
            aim_depth or aimed.DEPTH,
            progress=tell,
            cache=None if no_cache else default_cache_dir(),
        )
    try:
        procs = workers if workers is not None else min(2, os.cpu_count() or 1)
        report = difftest(
            engines, name, rules, plays, turns, seed, cards.DEALERS[decks], progress, workers=procs, aims=found
        )
    finally:
        engines.drop()
    if out is not None:
        try:
            write_findings(report, Path(out))
        except OSError as exc:
            raise InputError(f"--out {out}: cannot write ({exc.strerror or exc})") from None
    if report_file is not None:
        from duelcheck.counterexamples.itf import write_atomic
        from duelcheck.htmlreport import difftest_html

        try:
            write_atomic(Path(report_file), difftest_html(report))
        except OSError as exc:
            raise InputError(f"--report {report_file}: cannot write ({exc.strerror or exc})") from None
    click.echo(json.dumps(report.to_json(), indent=2) if fmt == "json" else report.text(), nl=fmt == "json")
    failed = [f for f in report.findings if f.kind == "engine-failure"]
    if failed:
        click.echo(_safe(f"duelcheck: the engine failed in {failed[0].count} plays: {failed[0].detail}"), err=True)
    sys.exit(report.exit_code)


@main.command("schema")
@click.option("--engine-protocol", is_flag=True, help="The engine protocol's schema (exec:, JSON lines) instead.")
def schema_cmd(engine_protocol: bool) -> None:
    """Print the JSON Schema of the duel-log format (also shipped as duelcheck/schemas/duel-log.schema.json),
    or of the engine protocol (duelcheck/schemas/engine-protocol.schema.json)."""
    if engine_protocol:
        from importlib.resources import files

        click.echo((files("duelcheck") / "schemas" / "engine-protocol.schema.json").read_text(), nl=False)
        return
    from duelcheck.log import dump_schema

    click.echo(dump_schema(), nl=False)


GRAPHVIZ_HINT = "install Graphviz (apt-get install graphviz; brew install graphviz) or use --format dot"


@main.command("graph")
@click.option(
    "--rules",
    "rules_file",
    type=click.Path(),
    help="A TOML file of rule parameters, or a preset's name (duelcheck presets lists them).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["dot", "svg"]),
    default="dot",
    show_default=True,
    help="Graphviz DOT text, or an SVG picture drawn by Graphviz's dot program.",
)
@click.option("--out", "out_file", type=click.Path(dir_okay=False), help="Write here (default: stdout).")
@_guard
def graph_cmd(rules_file: str | None, fmt: str, out_file: str | None) -> None:
    """Draw the phases and steps of a turn (6.3) as the rules allow them, derived from the transition relation:
    edges possible only on turn 1 dashed, phases not reached on turn 1 grey."""
    from duelcheck.counterexamples.itf import write_atomic
    from duelcheck.graph import dot_available, phase_graph, render_svg, to_dot
    from duelcheck.rules import load_rules

    rules = load_rules(rules_file)
    if fmt == "svg" and not dot_available():  # said before the derivation, not after it
        raise InputError(f"--format svg: Graphviz's dot program is not installed: {GRAPHVIZ_HINT}")
    graph = phase_graph(rules)
    text = to_dot(graph, "duelcheck: the phases and steps of a turn (6.3)")
    if fmt == "svg":
        try:
            svg = render_svg(text)
        except RuntimeError as exc:
            raise InternalError(str(exc)) from None
        if svg is None:
            raise InputError(f"--format svg: Graphviz's dot program is not installed: {GRAPHVIZ_HINT}")
        text = svg
    if out_file:
        try:
            write_atomic(Path(out_file), text)
        except OSError as exc:
            raise InputError(f"--out {out_file}: cannot write ({exc.strerror or exc})") from None
    else:
        click.echo(text, nl=False)


SWEEP_EXIT_CODES = """\b
Exit codes of a sweep:
  0    every cell has a verdict and none is unknown (a violated property under a variant is an answer)
  2    bad input: a grid file, --store or --scheduler (one line on stderr)
  3    some verdict is unknown (a time limit of the grid's [check] table left it open)
  4    a cell failed (internal error, not a verdict; the other cells are kept)
  130  interrupted (Ctrl-C): every cell that finished is in the store; the same command finishes the rest"""


def _dask_options(store: str, noun: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The options of a command that runs on Dask and keeps its results in a store (sweep, mutate)."""

    def add(f: Callable[..., Any]) -> Callable[..., Any]:
        f = click.option(
            "--store",
            type=click.Path(dir_okay=False),
            default=store,
            show_default=True,
            help=f"SQLite file of the results: a {noun} it holds is not run again.",
        )(f)
        f = click.option("--scheduler", default=None, help="Run on the Dask scheduler at tcp://HOST:PORT instead.")(f)
        return click.option(
            "--workers",
            type=click.IntRange(1, 64),
            default=None,
            help="Processes of the local Dask cluster, one thread each, on 127.0.0.1 (default: one per core).",
        )(f)

    return add


def _dask_workers(workers: int | None, scheduler: str | None) -> int:
    """The local cluster's size (one worker per core unless --workers says), after checking --scheduler."""
    from duelcheck import sweep as sw
    from duelcheck.engines.checker import default_workers

    if scheduler is not None:
        if workers is not None:
            raise InputError("--workers: sizes the local cluster; not with --scheduler")
        sw.check_address(scheduler)
    return workers if workers is not None else default_workers()


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
    from duelcheck import sweep as sw

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
        from duelcheck.counterexamples.itf import write_atomic

        try:
            write_atomic(Path(svg_file), sw.svg(outcome))
        except OSError as exc:
            raise InputError(f"--svg {svg_file}: cannot write ({exc.strerror or exc})") from None
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
    from duelcheck.counterexamples.itf import write_atomic
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
    if out_file is not None:
        try:
            write_atomic(Path(out_file), text)
        except OSError as exc:
            raise InputError(f"--out {out_file}: cannot write ({exc.strerror or exc})") from None
    else:
        click.echo(text, nl=False)


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
    "docs/boards.md has the language).",
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


MUTATE_EXIT_CODES = """\b
Exit codes of a mutation run:
  0    every mutant has a result and none is unknown (a survivor is an answer, not a failure)
  2    bad input: --only, --mutant, --store or --scheduler (one line on stderr)
  3    some mutant is unknown (no solver answer, a time limit, or the two semantics disagree under it)
  4    a mutant failed (internal error, not a result; the others are kept)
  130  interrupted (Ctrl-C): every mutant that finished is in the store; the same command runs the rest"""


@main.command("mutate", epilog=MUTATE_EXIT_CODES)
@click.option(
    "--only",
    "only",
    default=None,
    help="Only the mutants of this action (its guards, its writes, the comparisons of what its body runs, its "
    "semantic bugs).",
)
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice(["drop", "negate", "write", "swap", "compare", "semantic"]),
    help="Only mutants of this kind (repeatable; default all): a guard dropped or negated, a write dropped or "
    "made to the other player, a comparison given its boundary twin (< for <=, != for ==), or a hand-made "
    "rule bug.",
)
@click.option("--limit", type=click.IntRange(1, None), default=None, help="Only the first N mutants (quick runs).")
@click.option(
    "--mutant",
    "ids",
    multiple=True,
    metavar="ID",
    help="Only this mutant, by the id the report prints (repeatable; e.g. drop:pass:12): survivors checked again.",
)
@click.option(
    "--depth",
    type=click.IntRange(0, 200),
    default=12,
    show_default=True,
    help="The bound of the kill searches: deeper bounds kill more mutants and cost more.",
)
@click.option(
    "--no-proofs",
    is_flag=True,
    help="No induction: equivalence questions assume no invariant, and mutants are checked by BMC alone.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Seconds each mutant may be searched (then it is unknown).",
)
@_dask_options("duelcheck-mutate.sqlite", "mutant")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@_guard
def mutate_cmd(
    only: str | None,
    kinds: tuple[str, ...],
    limit: int | None,
    ids: tuple[str, ...],
    depth: int,
    no_proofs: bool,
    timeout: float | None,
    workers: int | None,
    scheduler: str | None,
    store: str,
    fmt: str,
) -> None:
    """Mutation analysis of the rules against the property suite: each guard of each action dropped or negated,
    each write of a rule dropped or made to the other player, each comparison given its boundary twin, and the
    hand-made rule bugs; equivalent mutants (redundant guards, dead code) proved, the others checked by the
    engines on Dask, each result kept in a SQLite store; print the score, the survivors and the equivalent."""
    import time

    from duelcheck.engines import mutate as mu

    n_workers = _dask_workers(workers, scheduler)
    if ids and (only or kinds or limit):
        raise InputError("--mutant names the mutants itself: it takes no --only, --kind or --limit")
    mutants, excluded = mu.select_mutants(only, kinds or mu.KINDS, limit, ids=ids)
    where = f"the scheduler {scheduler}" if scheduler else f"a local cluster of {n_workers} worker(s)"
    started = time.monotonic()

    def echo(line: str) -> None:
        click.echo(_safe(f"[{time.monotonic() - started:7.1f} s] {line}"), err=True)

    def on_start(to_run: int, total: int) -> None:
        echo(f"{total} mutants: {total - to_run} from the store, {to_run} to run on {where}")

    def on_mutant(done: int, to_run: int, m: Any, row: Any, error: str | None) -> None:
        what = f"failed: {error}" if row is None else f"{row.text} ({row.seconds:.1f} s)"
        echo(f"{done}/{to_run} {m.id}: {what}")

    options: dict[str, Any] = {"prove": not no_proofs, "timeout": timeout}
    if not no_proofs:
        from duelcheck.engines.cache import default_cache_dir

        options["cache"] = str(default_cache_dir())
    outcome = mu.run(
        mutants,
        store,
        depth=depth,
        options=options,
        excluded=excluded,
        workers=n_workers,
        scheduler=scheduler,
        on_start=on_start,
        on_mutant=on_mutant,
        on_stage=echo,
    )
    if outcome.interrupted:
        held = sum(1 for m in mutants if m.id in outcome.rows)
        _die(
            f"duelcheck: interrupted: {held} of {len(mutants)} mutants are in {store}; the same command runs the rest",
            130,
        )
    if fmt == "json":
        click.echo(json.dumps(outcome.to_json(), indent=2))
    else:
        for line in mu.text_lines(outcome):
            click.echo(_safe(line))
    if outcome.exit_code == EXIT_INTERNAL:
        failed = next(iter(outcome.failures.values()), "no result")
        raise InternalError(f"{len(outcome.failures) or 1} mutant(s) failed, kept out of the store: {failed}")
    sys.exit(outcome.exit_code)


if __name__ == "__main__":  # pragma: no cover
    main()
