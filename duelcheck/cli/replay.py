"""`duelcheck replay`: duel logs replayed against the rules, with a JUnit report."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from duelcheck.cli._core import EXIT_FAIL, EXIT_INPUT, EXIT_OK, _guard, _safe, _write_file, main
from duelcheck.errors import InputError


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
    _write_file(path, '<?xml version="1.0" encoding="UTF-8"?>\n' + text + "\n", "--junit")


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
