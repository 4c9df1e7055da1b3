"""pytest plugin: an engine's duel logs as test items.

`pytest --duel-logs DIR` (repeatable, or the `duel_logs` ini option) collects every `*.json` file under
DIR, recursively and sorted, as one test item named by its path relative to DIR (except the reports
duelcheck writes beside them: `check`'s summary.json, `boards`' coverage.json). The item replays the
file against the rules (`duelcheck.conformance.replay`) and passes when the play conforms or, if the log
states an expected outcome (`expect`), when that outcome is matched. A failure is a few plain lines: the
illegal step (index, action, clause, the rules' reason), the first observed fields that differ, or the
expectation failures; a malformed file fails with duelcheck's one-line message.

The entry point loads this module in every pytest run of the environment. Without `--duel-logs` and
without the ini option it registers nothing and imports nothing of the model: the rules are imported by
the first item that runs.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from duelcheck.errors import InputError, one_line

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

    from duelcheck.conformance import Report, StepReport

_PLUGIN_NAME = "duelcheck-duel-logs"
_MAX_DIFFERENCES = 5  # observed fields listed for the first step that differs


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("duelcheck", "duelcheck duel logs")
    group.addoption(
        "--duel-logs",
        action="append",
        dest="duel_logs",
        default=[],
        metavar="DIR",
        help="Replay every *.json duel log or ITF trace under DIR against the rules, one test item per file "
        "(repeatable; replaces the duel_logs ini option).",
    )
    parser.addini(
        "duel_logs",
        "Folders of duel logs to replay as test items, one item per *.json file (relative to the ini file).",
        type="paths",
        default=[],
    )


def pytest_configure(config: pytest.Config) -> None:
    given: list[str] = config.getoption("duel_logs") or []
    # the command line's folders (relative to where pytest runs) replace the ini file's (relative to it)
    folders = [config.invocation_params.dir / name for name in given] if given else list(config.getini("duel_logs"))
    if folders:
        config.pluginmanager.register(_DuelLogs(folders), _PLUGIN_NAME)


class _DuelLogs:
    """Registered only when folders of duel logs are given: adds one collector per folder to the session."""

    def __init__(self, folders: Sequence[Path]) -> None:
        unique: dict[Path, None] = {}
        for folder in folders:
            unique[folder.resolve()] = None
        self.folders = list(unique)

    def pytest_report_header(self, config: pytest.Config) -> str:
        shown = ", ".join(_shown(config, folder) for folder in self.folders)
        return f"duel logs: {shown}"

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        report = yield
        if isinstance(collector, pytest.Session) and report.passed:
            for folder in self.folders:
                if not folder.is_dir():
                    raise pytest.UsageError(f"--duel-logs {folder}: expected a folder of duel logs (*.json)")
                name = _shown(collector.config, folder)
                report.result.append(DuelLogFolder.from_parent(collector, name=name, path=folder, nodeid=name))
        return report


def _shown(config: pytest.Config, folder: Path) -> str:
    """The folder relative to the rootdir when it lies inside it, else its absolute path."""
    try:
        return folder.relative_to(config.rootpath.resolve()).as_posix() or "."
    except ValueError:
        return folder.as_posix()


class DuelLogFolder(pytest.Collector):
    """A folder given with --duel-logs: one item per *.json file under it."""

    def collect(self) -> Iterator[DuelLogItem]:
        for file in sorted(p for p in self.path.rglob("*.json") if p.is_file()):
            if not _is_report(file):
                yield DuelLogItem.from_parent(self, name=file.relative_to(self.path).as_posix(), path=file)


def _is_report(file: Path) -> bool:
    """A report duelcheck writes beside its logs and traces (the `summary.json` of `check`, the
    `coverage.json` of `boards`): an object naming the duelcheck command that wrote it, with neither a
    duel log's `format` nor a trace's `states`. Anything else is collected, so a malformed log still
    fails with its one-line message."""
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    if not isinstance(data, dict) or "format" in data or "states" in data:
        return False
    return str(data.get("command", "")).startswith("duelcheck ")


class DuelLogMismatch(Exception):
    """The play does not conform (or does not match its expected outcome): the lines to show."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


class DuelLogItem(pytest.Item):
    """One duel log (or ITF trace), replayed against the rules."""

    def runtest(self) -> None:
        from duelcheck.conformance import replay

        lines = failure_lines(replay(self.path))
        if lines:
            raise DuelLogMismatch(lines)

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: str | None = None,
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, DuelLogMismatch):
            return "\n".join(excinfo.value.lines)
        if isinstance(excinfo.value, InputError):
            return str(excinfo.value)  # already one line, naming the file, the place and what was expected
        return super().repr_failure(excinfo)  # a fault of duelcheck itself: the full traceback

    def reportinfo(self) -> tuple[Path, int | None, str]:
        # the file as a path (the folder as shown, then the name), for the failure's header; a dotted name
        # that ends the node id would be shown split at its dots, as a class and its method
        return self.path, None, f"{self.parent.name}/{self.name}" if self.parent is not None else self.name


def failure_lines(report: Report) -> list[str]:
    """Why a replay fails: empty when the play conforms, or matches the outcome its log expects."""
    if report.expect is not None:
        failures = report.expectation_failures()
        if not failures:
            return []
        lines = [*_verdict(report), "the log's expected outcome: NOT matched"]
        return [one_line(line) for line in lines + [f"  {failure}" for failure in failures]]
    if report.conforms:
        return []
    return [one_line(line) for line in _verdict(report)]


def _verdict(report: Report) -> list[str]:
    if report.conforms:
        return [f"conforms: all {report.total} steps are legal and match the observed states"]
    lines: list[str] = []
    differing = [st for st in report.steps if st.differences]
    bad = next((st for st in report.steps if not st.legal), None)
    if bad is not None:
        lines.append(
            f"does not conform: step {bad.index} of {report.total} is illegal ({bad.index - 1} steps conform before it)"
        )
    elif differing:
        lines.append("does not conform: observed states differ from the rules' outcome")
    else:
        lines.append(f"does not conform: {len(report.steps)} of {report.total} steps checked")
    if differing:
        first = differing[0]
        lines.append(f"  step {first.index}: {_step(first)}  [{first.clause}]  legal, but the observed state differs")
        for name, model, observed in first.differences[:_MAX_DIFFERENCES]:
            lines.append(f"    {name}: the rules give {model}, observed {observed}")
        hidden = len(first.differences) - _MAX_DIFFERENCES
        if hidden > 0:
            lines.append(f"    ... and {hidden} more fields")
        later = [str(st.index) for st in differing[1:]]
        if later:
            lines.append(f"  observed states differ at {len(later)} more steps: {', '.join(later)}")
    if bad is not None:
        lines.append(f"  step {bad.index}: {_step(bad)}  [{bad.clause}]  ILLEGAL")
        lines.append(f"    {bad.reason}")
    return lines


def _step(st: StepReport) -> str:
    who = "" if st.player is None else f"player {st.player}: "
    return f"{who}{st.shown}"
