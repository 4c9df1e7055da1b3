"""`duelcheck difftest`: the rules and a real engine side by side."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from duelcheck.cli._core import EXIT_INTERNAL, _check_writable, _die, _guard, _safe, _write_file, main
from duelcheck.errors import InputError


@main.command("difftest")
@click.option(
    "--engine",
    "engine_spec",
    default="ygopro",
    show_default=True,
    help="ygopro (ygopro-core), edopro (EDOPro's core), model (a self-check), or 'exec:COMMAND ARGS' (an engine "
    "speaking JSON lines).",
)
@click.option(
    "--ocgcore",
    type=click.Path(dir_okay=False),
    help="The core's library (else DUELCHECK_OCGCORE; DUELCHECK_EDOPRO for edopro).",
)
@click.option("--plays", type=click.IntRange(1, 1_000_000), default=100, show_default=True)
@click.option("--turns", type=click.IntRange(1, 200), default=3, show_default=True, help="Turns per play at most.")
@click.option(
    "--decks",
    type=click.Choice(["mixed", "monsters", "full"]),
    default="mixed",
    show_default=True,
    help="The decks dealt: Normal Monsters with untargeted Spells and Traps, Normal Monsters only, or the full "
    "catalogue (monster effects, targeted effects, every kind) but the cards chosen on resolution.",
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
            cards.DEALABLE[decks],
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
        from duelcheck.htmlreport import difftest_html

        _write_file(Path(report_file), difftest_html(report), "--report")
    click.echo(json.dumps(report.to_json(), indent=2) if fmt == "json" else report.text(), nl=fmt == "json")
    failed = [f for f in report.findings if f.kind == "engine-failure"]
    if failed:
        click.echo(_safe(f"duelcheck: the engine failed in {failed[0].count} plays: {failed[0].detail}"), err=True)
    sys.exit(report.exit_code)
