"""`duelcheck check`: the properties under a rule set, with the live table and the run folder it writes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from duelcheck.cli._core import DEFAULT_OUT, _check_writable, _guard, _safe, _write_file, main
from duelcheck.errors import InputError
from duelcheck.version import __version__

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


def _select(names: tuple[str, ...], extra: list[Any] | None = None) -> list[Any]:
    from duelcheck.api import select

    return select(names, extra or [])


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
@click.option(
    "--always",
    "always",
    multiple=True,
    metavar="EXPR",
    help="Add an invariant: a predicate of a state in the --where language, or of a step with next.FIELD and "
    "action (docs/properties.md).",
)
@click.option(
    "--sometimes",
    "sometimes",
    multiple=True,
    metavar="EXPR",
    help="Add a witness: a state (or, with next.FIELD and action, a step) some play must reach.",
)
@click.option(
    "--properties",
    "property_files",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="Add the [[property]] tables of a TOML file (docs/properties.md).",
)
@click.option(
    "--certificates",
    "certificates",
    type=click.Path(file_okay=False),
    default=None,
    help="Also write the proofs' certificate here: SMT-LIB 2 obligations `duelcheck certify` checks.",
)
@click.option(
    "--certify",
    "certify_with",
    type=click.Choice(["yices", "z3", "cvc5", "bitwuzla"]),
    default=None,
    help="Check every proof's certificate with this solver before reporting: a proof it does not confirm is "
    "unknown, never holds (the certificate goes to --certificates, else to the run folder).",
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
    always: tuple[str, ...],
    sometimes: tuple[str, ...],
    property_files: tuple[str, ...],
    certificates: str | None,
    certify_with: str | None,
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
    from duelcheck.api import user_properties

    props = _select(names, user_properties(rules, always, sometimes, property_files))
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
            if certificates is not None or certify_with is not None:
                live.progress("writing the proofs' certificate")
                where = Path(certificates) if certificates is not None else folder / "certificates"
                _write_certificates(where, rules, props, report, checker)
                if certify_with is not None:
                    live.progress(f"checking the certificate with {certify_with}")
                    _certify(where, certify_with, report)
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


def _write_certificates(folder: Path, rules: Any, props: list[Any], report: Any, checker: Any) -> None:
    """The certificate of the invariants proved for all depths (engines/certificates.py): the whole inductive
    invariant the proofs leaned on, the suite's invariants proved together, even when the run checked a few
    properties (`--property`): one of them alone is not inductive without the others."""
    from duelcheck.engines.certificates import write_certificates
    from duelcheck.properties.history import system_for

    proved = {r.prop for r in report.results if r.proved and r.kind == "always" and r.verdict == "holds"}
    proved |= checker.suite_proved
    # a property proved in every one of its cases (each check of it settled by the proof)
    partial = {r.prop for r in report.results if r.kind == "always" and not (r.proved and r.verdict == "holds")}
    suite = list({p.name: p for p in (*checker._suite, *props)}.values())
    try:
        write_certificates(system_for(rules, props), suite, proved - partial, folder)
    except OSError as exc:
        raise InputError(f"--certificates {folder}: cannot write ({exc.strerror or exc})") from None


def _certify(folder: Path, solver: str, report: Any) -> None:
    """Ask every obligation of the certificate of `solver`; each proof it does not confirm becomes unknown."""
    from duelcheck.engines.certify import certify

    result = certify(folder, solver)
    confirmed = set(result.confirmed)
    failed = [a for a in result.answers if not a.ok]
    why = ", ".join(f"{a.file}: {a.answer}" for a in failed[:3]) + (" ..." if len(failed) > 3 else "")
    for r in report.results:
        if r.proved and r.kind == "always" and r.verdict == "holds" and r.prop not in confirmed:
            r.verdict, r.proved = "unknown", False
            r.note = f"the proof's certificate was not confirmed by {solver} ({why})"


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


def _write_report(path: Path, report: Any, folder: Path) -> None:
    """The HTML page of a run: the phase graph as SVG when Graphviz is installed, else its DOT text."""
    from duelcheck.graph import phase_graph, render_svg, to_dot
    from duelcheck.htmlreport import report_html

    name = ", ".join(report.rules.words()) or "official rules"
    dot = to_dot(phase_graph(report.rules), f"Phases and steps under {name}")
    page = report_html(report, folder, render_svg(dot) or dot)
    _write_file(path, page, "--report")


def _write_summary(folder: Path, report: Any) -> None:
    """summary.json: the command, the version, the rules, every verdict with its trace and seconds, the exit code."""

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
    _write_file(folder / "summary.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n", "--out")


def _print_table(report: Any) -> None:
    """The results: a table fitted to the terminal (no name is ever wrapped); tab-separated rows with the
    other lines as `#` comments when stdout is not a terminal, so that grep, cut and awk read it."""
    rules_line = ", ".join(report.rules.words()) or "official defaults"
    head = f"duelcheck {__version__}   rules: {rules_line}   bound: {report.depth}"
    notes = [
        f"{r.label}: {r.note}"
        for r in report.results
        if r.note and r.verdict in ("violated", "unknown", "not-found", "unreachable", "interrupted")
    ]
    bad = [r for r in report.results if r.verdict in ("violated", "not-found", "unknown", "interrupted") or r.lost]
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
