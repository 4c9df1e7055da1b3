"""Sweeps: many rule sets against many properties, one `duelcheck.api.check` per cell, on Dask.

A grid file (TOML) names the properties, the bound and the values of the knobs to try:

    properties = ["first-turn-no-draw", "reach-turn-3"]   # labels (name or name[case]); default: all
    property_files = ["questions.toml"]                  # a user's [[property]] tables (their names are labels)
    depth = 10                                           # default: duelcheck check's bound (24)
    [grid]                                               # default: the official rules alone
    preset = ["official", "goat"]
    rules = ["house-rule.toml"]                          # rule files: knobs and [[change]] tables
    hand_limit = [5, 6, 7]
    [check]                                              # engine options of duelcheck.api.check
    prove = false                                        # also: simulate, timeout, property_timeout,
                                                         #       solver, cache

The rule sets are the cartesian product of the grid's lists, in a fixed order that does not depend on how the
file orders its keys: `preset` first, then `rules` (rule files, relative to the grid's folder, whose knobs the
grid's own knobs override), then the knobs in the order of `duelcheck.rules.Rules` (the README's table), each
list in the order written, the last key varying fastest. A cell is one rule set and one property label; a
property with several cases is one cell per case. Cells run in that order (rule sets, then labels).

Every finished cell is committed at once to a SQLite store, keyed by the rule set's hash (sha256 of its
`model_dump()` as sorted JSON), the property label and the model version (the proof cache's digest of the
model's source): a sweep killed halfway and run again runs only the cells without a result, and a cell present
is never run twice. A result counts for a cell only when it was made with the same bound and engine options;
one made with others is run again and replaced. Two grid rows that give the same rules share one result.

The report (a matrix of rule sets against labels, as text, JSON or an SVG heat map) is read back from the store,
so that the store and the report agree by construction. A violated property under a variant is an answer, not a
failure of the sweep: the exit code is 0 when every cell has a verdict and none is unknown, 3 when some are
unknown, 130 on Ctrl-C (the store keeps what finished), 2 for bad input, 4 when a cell failed (internal error).
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import re
import sqlite3
import sys
import time
import uuid
from collections.abc import Callable, Generator, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape as xml_escape

from duelcheck.errors import InputError, one_line
from duelcheck.rules import PRESETS, Rules, rules_from_mapping

DEFAULT_STORE = Path("duelcheck-sweep.sqlite")
CONNECT_TIMEOUT = 5.0  # seconds to reach a scheduler given by --scheduler
MAX_CELLS = 100_000
TOP_KEYS = ("properties", "property_files", "depth", "grid", "check")
SOLVERS = ("auto", "yices", "z3")
# The engine options a grid's [check] table may set, and whether each one is part of a result's settings (a
# result made with other settings is run again); the proof cache's folder changes no verdict.
CHECK_OPTIONS = {
    "prove": True,
    "simulate": True,
    "timeout": True,
    "property_timeout": True,
    "solver": True,
    "cache": False,
    "property_files": True,  # set from the grid's top level: each file's path and digest (a changed file runs again)
}
VERDICTS = ("holds", "violated", "found", "unreachable", "not-found", "unknown", "interrupted")
_ADDRESS = re.compile(r"^tcp://(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-]+):(?P<port>[0-9]{1,5})$")


# ---------------------------------------------------------------------------------------------------- the grid


@dataclass(frozen=True)
class RuleSet:
    """One row of the grid: the knob values it was given (`assignment`), the rules they make, their hash."""

    name: str
    assignment: dict[str, Any]
    rules: Rules
    rules_hash: str


@dataclass(frozen=True)
class Cell:
    """One rule set and one property label: one `duelcheck.api.check`."""

    rule_set: RuleSet
    label: str

    @property
    def key(self) -> tuple[str, str]:
        """What identifies its result in the store (with the model version): the rules' hash and the label."""
        return (self.rule_set.rules_hash, self.label)


@dataclass(frozen=True)
class Grid:
    """A validated grid file: the rule sets (rows), the labels (columns), the bound and the engine options."""

    path: str
    rule_sets: list[RuleSet]
    labels: list[str]
    depth: int
    options: dict[str, Any]

    @property
    def cells(self) -> list[Cell]:
        """Every cell, rule set by rule set, each with every label in order."""
        return [Cell(rs, label) for rs in self.rule_sets for label in self.labels]

    @property
    def settings(self) -> str:
        """The bound and the engine options a result depends on, as sorted JSON (stored with each result)."""
        kept = {k: v for k, v in self.options.items() if CHECK_OPTIONS.get(k)}
        return json.dumps({"depth": self.depth, **kept}, sort_keys=True)


def rules_hash(rules: Rules) -> str:
    """The sha256 of the rules' `model_dump()` as sorted JSON: the store's key for a rule set."""
    return hashlib.sha256(json.dumps(rules.model_dump(), sort_keys=True).encode()).hexdigest()


def model_version() -> str:
    """The model version the proof cache keys its entries by (a digest of the model's source and the solver)."""
    from duelcheck.engines.cache import _model_digest

    return _model_digest()


def all_labels() -> list[str]:
    """Every property label of the suite, one per case (`name[case]`) for a property with several."""
    from duelcheck.api import list_properties

    out: list[str] = []
    for info in list_properties():
        out += [f"{info.name}[{c}]" for c in info.cases] if info.cases else [info.name]
    return out


def _show(value: Any) -> str:
    """A knob's value as a row name spells it (TOML's spelling for booleans)."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _row_name(assignment: Mapping[str, Any]) -> str:
    """A rule set named by the grid values that change something: the preset unless official, and each knob
    whose value differs from the one its preset gives it (`official` when nothing does)."""
    preset = assignment.get("preset", "official")
    base = Rules(**PRESETS[preset]) if preset in PRESETS else Rules()
    parts = [f"preset={preset}"] if preset != "official" else []
    parts += [f"rules={assignment['rules']}"] if "rules" in assignment else []
    knobs = {k: v for k, v in assignment.items() if k not in ("preset", "rules")}
    parts += [f"{k}={_show(v)}" for k, v in knobs.items() if getattr(base, k) != v]
    return ", ".join(parts) or "official"


def _property_files(path: str, raw: Any) -> tuple[list[tuple[str, str]], list[str]]:
    """The grid's property files (relative to its folder), each with the digest of its text, and the names
    of their properties, each file parsed once here (a malformed one is the grid's bad input)."""
    if raw is None:
        return [], []
    if not isinstance(raw, list) or not raw or not all(isinstance(x, str) for x in raw):
        raise InputError(f"{path}: property_files: expected a non-empty list of paths")
    from duelcheck.properties.user import digested

    files, names = [], []
    for i, item in enumerate(raw):
        try:
            file, digest, mine = digested(Path(path).parent / item)
        except InputError as exc:
            raise InputError(f"{path}: property_files[{i}]: {exc}") from None
        files.append((file, digest))
        names += mine
    return files, names


def _labels(path: str, raw: Any, extra: tuple[str, ...] | list[str] = ()) -> list[str]:
    known = [*all_labels(), *extra]
    if raw is None:
        return known
    if not isinstance(raw, list) or not raw:
        raise InputError(f"{path}: properties: expected a non-empty list of property labels")
    names: dict[str, list[str]] = {}
    for label in known:
        names.setdefault(label.split("[", 1)[0], []).append(label)
    out: list[str] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        if not isinstance(item, str):
            raise InputError(f"{path}: properties[{i}]: expected a property label (a string), got {item!r}")
        if item in seen:
            raise InputError(f"{path}: properties[{i}]: {item!r} is listed twice")
        seen.add(item)
        if item in names:  # a whole property: one cell per case
            out += [label for label in names[item] if label not in out]
        elif item in known:
            if item not in out:
                out.append(item)
        else:
            close = difflib.get_close_matches(item, [*names, *known], n=3, cutoff=0.6)
            hint = f"; did you mean {' or '.join(close)}?" if close else "; `duelcheck properties` lists them"
            raise InputError(f"{path}: properties[{i}]: {item!r}: no such property{hint}")
    return out


def _depth(path: str, raw: Any) -> int:
    from duelcheck.engines.checker import DEFAULT_DEPTH

    if raw is None:
        return DEFAULT_DEPTH
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= 200:
        raise InputError(f"{path}: depth: expected an integer from 0 to 200, got {raw!r}")
    return raw


def _options(path: str, raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InputError(f"{path}: check: expected a table of engine options")
    for key, value in raw.items():
        where = f"{path}: check.{key}"
        if key not in CHECK_OPTIONS:
            raise InputError(f"{where}: unknown option; expected one of {', '.join(CHECK_OPTIONS)}")
        if key in ("prove", "simulate") and not isinstance(value, bool):
            raise InputError(f"{where}: expected true or false, got {value!r}")
        if key in ("timeout", "property_timeout") and (
            isinstance(value, bool) or not isinstance(value, int | float) or not value > 0
        ):
            raise InputError(f"{where}: expected a number of seconds above 0, got {value!r}")
        if key == "solver" and value not in SOLVERS:
            raise InputError(f"{where}: expected one of {', '.join(SOLVERS)}, got {value!r}")
        if key == "cache" and not (isinstance(value, bool) or (isinstance(value, str) and value.strip())):
            raise InputError(f"{where}: expected true, false or the path of a folder, got {value!r}")
    return dict(raw)


def _rule_sets(path: str, raw: Any) -> list[RuleSet]:
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InputError(f"{path}: grid: expected a table of knobs, each with a list of values")
    knobs = list(Rules.model_fields)
    for key, values in raw.items():
        if key not in ("preset", "rules") and key not in Rules.model_fields:
            close = difflib.get_close_matches(key, ["preset", *knobs], n=1, cutoff=0.6)
            hint = f"did you mean {close[0]}? " if close else ""
            raise InputError(f"{path}: grid.{key}: unknown knob; {hint}expected preset or one of {', '.join(knobs)}")
        if not isinstance(values, list) or not values:
            raise InputError(f"{path}: grid.{key}: expected a non-empty list of values, got {values!r}")
        for i, value in enumerate(values):
            if key == "preset" and (not isinstance(value, str) or value not in PRESETS):
                raise InputError(f"{path}: grid.preset[{i}]: expected one of {', '.join(PRESETS)}, got {value!r}")
            if key == "rules" and not isinstance(value, str):
                raise InputError(f"{path}: grid.rules[{i}]: expected the path of a rule file, got {value!r}")
            if any(type(v) is type(value) and v == value for v in values[:i]):
                raise InputError(f"{path}: grid.{key}[{i}]: {value!r} is listed twice")
    order = {"preset": -2, "rules": -1}
    keys = sorted(raw, key=lambda k: order.get(k, knobs.index(k) if k in knobs else 0))
    files = {f: _rule_file(path, f) for f in raw.get("rules", [])}
    count = 1
    for key in keys:
        count *= len(raw[key])
    if count > MAX_CELLS:
        raise InputError(f"{path}: grid: {count} rule sets; the limit is {MAX_CELLS}")
    out: list[RuleSet] = []
    for combo in itertools.product(*(raw[k] for k in keys)):
        assignment = dict(zip(keys, combo, strict=True))
        name = _row_name(assignment)
        mapping = dict(assignment)
        if "rules" in mapping:  # a rule file's knobs and changes, under the grid's own knobs
            mapping = {**files[mapping.pop("rules")], **mapping}
        try:
            rules = rules_from_mapping(mapping, f"{path}: grid")
        except InputError as exc:
            text = str(exc).replace(": grid: (file): ", ": grid: ")
            if text.startswith(f"{path}: grid: "):
                text = f"{path}: grid.{text[len(path) + len(': grid: ') :]}"
            raise InputError(f"{text} (in the rule set {name})") from None
        out.append(RuleSet(name, assignment, rules, rules_hash(rules)))
    return out


def _rule_file(path: str, item: str) -> dict[str, Any]:
    """A grid's rule file (relative to the grid's folder) as the knobs and changes it sets."""
    from duelcheck.rules import load_rules

    try:
        rules = load_rules(Path(path).parent / item)
    except InputError as exc:
        raise InputError(f"{path}: grid.rules: {exc}") from None
    return rules.changed()


def grid_from_mapping(data: Mapping[str, Any], path: str = "<grid>") -> Grid:
    """Validate a parsed grid file strictly: an unknown key, a wrong type, an unknown knob or property or an
    empty list raises `InputError` naming the file and the key."""
    for key in data:
        if key not in TOP_KEYS:
            raise InputError(f"{path}: {key}: unknown key; expected one of {', '.join(TOP_KEYS)}")
    files, names = _property_files(path, data.get("property_files"))
    labels = _labels(path, data.get("properties"), names)
    depth = _depth(path, data.get("depth"))
    options = _options(path, data.get("check"))
    if files:
        options["property_files"] = files
    rule_sets = _rule_sets(path, data.get("grid"))
    return Grid(path, rule_sets, labels, depth, options)


def load_grid(path: str | Path) -> Grid:
    """Read and validate a grid file (TOML); bad input raises `InputError` naming the file and the key."""
    from duelcheck.inputs import load_toml

    p = Path(path)
    return grid_from_mapping(load_toml(p, "grid file"), str(p))


# --------------------------------------------------------------------------------------------------- the store


@dataclass(frozen=True)
class Row:
    """One finished cell as the store holds it."""

    rules_hash: str
    label: str
    model_version: str
    verdict: str
    proved: bool
    length: int | None
    minimal: bool
    seconds: float
    note: str
    rules_json: str
    trace: str | None
    settings: str
    run_id: str
    finished_at: str

    @property
    def text(self) -> str:
        """The matrix's cell: holds, proved, violated (n), found (n), unreachable, not-found, unknown."""
        if self.verdict == "holds" and self.proved:
            return "proved"
        if self.verdict in ("violated", "found") and self.length is not None:
            return f"{self.verdict} ({self.length})"
        return self.verdict


_COLUMNS = (
    ("rules_hash", "TEXT NOT NULL"),
    ("label", "TEXT NOT NULL"),
    ("model_version", "TEXT NOT NULL"),
    ("verdict", "TEXT NOT NULL"),
    ("proved", "INTEGER NOT NULL"),
    ("length", "INTEGER"),
    ("minimal", "INTEGER NOT NULL"),
    ("seconds", "REAL NOT NULL"),
    ("note", "TEXT NOT NULL"),
    ("rules_json", "TEXT NOT NULL"),
    ("trace", "TEXT"),
    ("settings", "TEXT NOT NULL"),
    ("run_id", "TEXT NOT NULL"),
    ("finished_at", "TEXT NOT NULL"),
)
TABLE = "cells"


def open_store(
    path: Path,
    name: str,
    what: str,
    table: str,
    columns: tuple[tuple[str, str], ...],
    key: tuple[str, ...],
    extra: tuple[str, ...] = (),
) -> sqlite3.Connection:
    """An SQLite file of results in WAL mode (synchronous writes: a result put is on disk), with its table
    created if new and checked to have exactly `columns` if not, and the `extra` statements run. Anything else
    is bad input, one line naming the file (`name`, as the user gave it) and what was expected (`what`)."""
    if path.exists() and not path.is_file():
        raise InputError(f"{name}: expected a {what} (an SQLite file), got a folder or a device")
    try:
        db = sqlite3.connect(str(path), timeout=30)
    except sqlite3.Error as exc:
        raise InputError(f"{name}: cannot open the {what} ({exc})") from None
    try:
        mode = db.execute("PRAGMA journal_mode=WAL").fetchone()
        db.execute("PRAGMA synchronous=FULL")
        spec = ", ".join(f"{col} {kind}" for col, kind in columns)
        db.execute(f"CREATE TABLE IF NOT EXISTS {table} ({spec}, PRIMARY KEY ({', '.join(key)}))")
        for statement in extra:
            db.execute(statement)
        db.commit()
        have = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
    except sqlite3.Error as exc:
        db.close()
        raise InputError(f"{name}: not a {what}: {exc}") from None
    if have != [col for col, _ in columns]:
        db.close()
        raise InputError(f"{name}: not a {what}: its table {table!r} has other columns")
    if mode is None or str(mode[0]).lower() != "wal":
        db.close()
        raise InputError(f"{name}: cannot use the {what} in WAL mode (got {mode!r})")
    return db


class Store:
    """The SQLite file of a sweep's results (WAL mode; the sweep's own process is its one writer). Each result
    is committed as soon as it is put, so that a sweep killed at any moment keeps every cell that finished."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.db = open_store(
            self.path, str(self.path), "sweep store", TABLE, _COLUMNS, ("rules_hash", "label", "model_version")
        )

    def get(self, rules_hash: str, label: str, version: str) -> Row | None:
        """The stored result of a cell, or None."""
        names = ", ".join(name for name, _ in _COLUMNS)
        found = self.db.execute(
            f"SELECT {names} FROM {TABLE} WHERE rules_hash = ? AND label = ? AND model_version = ?",
            (rules_hash, label, version),
        ).fetchone()
        if found is None:
            return None
        data = dict(zip((name for name, _ in _COLUMNS), found, strict=True))
        data["proved"], data["minimal"] = bool(data["proved"]), bool(data["minimal"])
        return Row(**data)

    def put(self, row: Row) -> None:
        """Store a result (replacing one made with other settings) and commit it at once."""
        names = [name for name, _ in _COLUMNS]
        values = [getattr(row, name) for name in names]
        marks = ", ".join("?" for _ in names)
        with self.db:  # one transaction, committed on leaving
            self.db.execute(f"INSERT OR REPLACE INTO {TABLE} ({', '.join(names)}) VALUES ({marks})", values)

    def count(self) -> int:
        """How many results the store holds (of any grid)."""
        return int(self.db.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0])

    def close(self) -> None:
        self.db.close()


# ------------------------------------------------------------------------------------------------- the workers


def run_cell(rules: dict[str, Any], label: str, depth: int, options: dict[str, Any]) -> dict[str, Any]:
    """The task a worker runs: one `duelcheck.api.check` of one label under one rule set, its trace written to a
    temporary folder and read back as ITF JSON text. Returns what the store keeps (and the worker's model
    version, so that a scheduler whose workers run another model is noticed)."""
    import tempfile

    from duelcheck.api import check
    from duelcheck.errors import InternalError

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="duelcheck-cell-") as folder:
        report = check(
            rules,
            [label],
            depth,
            options.get("timeout"),
            out=folder,
            solver=options.get("solver", "auto"),
            workers=1,  # the sweep's parallelism is its cells; a worker is one process
            prove=options.get("prove", True),
            simulate=options.get("simulate", True),
            cache=options.get("cache", True),
            property_timeout=options.get("property_timeout"),
            property_files=[f for f, _ in options.get("property_files", ())],
        )
        found = [r for r in report.results if r.label == label]
        if len(found) != 1:
            raise InternalError(f"{label}: expected one result, got {len(report.results)}")
        r = found[0]
        trace = Path(r.trace_path).read_text(encoding="utf-8") if r.trace_path else None
    return {
        "verdict": r.verdict,
        "proved": r.proved,
        "length": r.length,
        "minimal": r.minimal,
        "seconds": time.monotonic() - started,
        "note": r.note,
        "trace": trace,
        "model_version": model_version(),
    }


def check_address(address: str) -> str:
    """A scheduler's address, `tcp://host:port`; anything else raises `InputError`."""
    m = _ADDRESS.match(address.strip())
    if m is None or not 1 <= int(m.group("port")) <= 65535:
        raise InputError(f"--scheduler {address!r}: expected an address tcp://HOST:PORT")
    return address.strip()


def dask_setup(worker: Any) -> None:
    """Run in each worker process of the local cluster as it starts (Dask's `preload` of this module): Ctrl-C is
    ignored there. The terminal's SIGINT reaches the whole process group; this process alone acts on it (it
    cancels the tasks and closes the cluster), where a worker would die with a traceback."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def _client(workers: int | None, scheduler: str | None, connect_timeout: float) -> Iterator[Any]:
    """A Dask client: of a local cluster on the loopback address (`workers` processes of one thread each), or
    of the scheduler at `scheduler` (an unreachable one raises `InputError` within `connect_timeout`)."""
    import logging
    import warnings

    from distributed import Client, LocalCluster

    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=connect_timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            reason = one_line(str(exc)) or type(exc).__name__
            where = f"--scheduler {scheduler}"
            raise InputError(f"{where}: cannot connect within {connect_timeout:g} s ({reason})") from None
        try:
            yield client
        finally:
            client.close()
        return
    with warnings.catch_warnings():  # another cluster on this machine holds the HTTP port: one is picked
        warnings.filterwarnings("ignore", message="Port .* is already in use")
        cluster = LocalCluster(
            n_workers=workers or 1,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=logging.CRITICAL,  # a task's error is reported by the sweep, once, on one line
            preload=[__name__],  # dask_setup above: the workers ignore Ctrl-C
        )
    try:
        client = Client(cluster, set_as_default=False)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()


# ------------------------------------------------------------------------------------------------- the sweep


@dataclass
class Outcome:
    """A sweep's result: for each cell, the store's row (read back after the run), which cells ran now, which
    failed (no result: a task that raised), and whether Ctrl-C stopped it."""

    grid: Grid
    store: Path
    model_version: str
    run_id: str
    rows: dict[tuple[str, str], Row]
    ran: list[tuple[str, str]] = field(default_factory=list)
    reused: int = 0
    failures: dict[tuple[str, str], str] = field(default_factory=dict)
    interrupted: bool = False
    seconds: float = 0.0

    def row(self, cell: Cell) -> Row | None:
        return self.rows.get(cell.key)

    @property
    def exit_code(self) -> int:
        """130 interrupted, 4 a cell failed, 3 a verdict is unknown, else 0 (a violation is an answer)."""
        if self.interrupted:
            return 130
        if self.failures or any(self.row(c) is None for c in self.grid.cells):
            return 4
        if any(r.verdict in ("unknown", "interrupted") for r in self.rows.values()):
            return 3
        return 0

    def to_json(self) -> dict[str, Any]:
        """The report as JSON: the rule sets, the labels and one entry per cell, all read from the store."""
        cells = []
        ran = set(self.ran)
        for cell in self.grid.cells:
            r = self.row(cell)
            cells.append(
                {
                    "rule_set": cell.rule_set.name,
                    "label": cell.label,
                    "rules_hash": cell.rule_set.rules_hash,
                    "verdict": None if r is None else r.verdict,
                    "text": "-" if r is None else r.text,
                    "proved": None if r is None else r.proved,
                    "length": None if r is None else r.length,
                    "minimal": None if r is None else r.minimal,
                    "seconds": None if r is None else round(r.seconds, 3),
                    "note": None if r is None else (r.note or None),
                    "trace": None if r is None else r.trace is not None,
                    "ran_now": cell.key in ran,
                    "error": self.failures.get(cell.key),
                }
            )
        return {
            "grid": self.grid.path,
            "store": str(self.store),
            "model_version": self.model_version,
            "depth": self.grid.depth,
            "options": self.grid.options,
            "labels": self.grid.labels,
            "rule_sets": [
                {"name": rs.name, "grid": rs.assignment, "rules_hash": rs.rules_hash, "rules": rs.rules.model_dump()}
                for rs in self.grid.rule_sets
            ],
            "cells": cells,
            "ran": len(self.ran),
            "from_store": self.reused,
            "seconds": round(self.seconds, 3),
            "exit_code": self.exit_code,
        }


Progress = Callable[[int, int, Cell, "Row | None", "str | None"], None]


def run(
    grid: Grid | str | Path,
    store: str | Path = DEFAULT_STORE,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
    on_start: Callable[[int, int], None] | None = None,
    on_cell: Progress | None = None,
) -> Outcome:
    """Run every cell of the grid without a result in the store, on a local Dask cluster of `workers` processes
    (default: one per core) or on the scheduler at `scheduler`; commit each result as it finishes.

    `on_start(to_run, total)` hears how many cells will run; `on_cell(done, to_run, cell, row, error)` hears each
    as it finishes. Ctrl-C (a KeyboardInterrupt, or the command line's recorded SIGINT) cancels what is still
    running and returns with `.interrupted` set: every result that finished is in the store. The local cluster
    starts its workers by spawning: a script that calls this needs the `if __name__ == "__main__":` guard."""
    from duelcheck.engines.checker import default_workers
    from duelcheck.interrupts import interrupted as sigint_seen

    started = time.monotonic()
    if not isinstance(grid, Grid):
        grid = load_grid(grid)
    if scheduler is not None:
        scheduler = check_address(scheduler)
    n_workers = workers if workers is not None else default_workers()
    db = Store(store)
    try:
        version = model_version()
        settings = grid.settings
        run_id = f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
        pending: dict[tuple[str, str], Cell] = {}
        for cell in grid.cells:
            held = db.get(*cell.key, version)
            if (held is None or held.settings != settings) and cell.key not in pending:
                pending[cell.key] = cell
        unique = {c.key for c in grid.cells}
        outcome = Outcome(grid, Path(store), version, run_id, {}, reused=len(unique) - len(pending))
        if not pending and on_start is not None:
            on_start(0, len(unique))
        if pending:
            started_at = (lambda: on_start(len(pending), len(unique))) if on_start is not None else (lambda: None)
            try:
                _run_pending(
                    db, grid, pending, outcome, n_workers, scheduler, connect_timeout, started_at, on_cell, sigint_seen
                )
            except KeyboardInterrupt:
                outcome.interrupted = True
        for cell in grid.cells:
            row = db.get(*cell.key, version)
            if row is not None and row.settings == settings:
                outcome.rows[cell.key] = row
        outcome.seconds = time.monotonic() - started
        return outcome
    finally:
        db.close()


def _run_pending(
    db: Store,
    grid: Grid,
    pending: dict[tuple[str, str], Cell],
    outcome: Outcome,
    workers: int,
    scheduler: str | None,
    connect_timeout: float,
    on_start: Callable[[], None],
    on_cell: Progress | None,
    sigint_seen: Callable[[], bool],
) -> None:

    settings = grid.settings
    with _client(workers, scheduler, connect_timeout) as client:
        if sigint_seen():
            raise KeyboardInterrupt
        on_start()
        futures = {}
        for i, (key, cell) in enumerate(pending.items()):
            future = client.submit(
                run_cell,
                cell.rule_set.rules.model_dump(),
                cell.label,
                grid.depth,
                grid.options,
                key=f"duelcheck-cell-{outcome.run_id}-{i}",
                pure=False,
                retries=0,
            )
            futures[future.key] = (key, cell, future)
        finished = as_they_finish(client, [f for _, _, f in futures.values()], sigint_seen)
        try:
            for done, future in enumerate(finished, 1):
                key, cell, _ = futures[future.key]
                row, error = _finish(db, future, cell, settings, outcome)
                if on_cell is not None:
                    on_cell(done, len(pending), cell, row, error)
        finally:
            finished.close()  # an error here cancels what still runs, as one while waiting does


def as_they_finish(client: Any, futures: list[Any], sigint_seen: Callable[[], bool]) -> Generator[Any, None, None]:
    """The Dask futures as each finishes. A Ctrl-C (recorded: `sigint_seen`) or any error while waiting, or the
    generator closed before the end (the caller's error), cancels every future still running. Shared by
    sweeps and mutation runs."""
    from distributed import as_completed

    queue = as_completed(futures, loop=client.loop)
    try:
        while not queue.is_empty():
            if sigint_seen():
                raise KeyboardInterrupt
            if not queue.has_ready():
                time.sleep(0.05)
                continue
            yield from queue.next_batch(block=False)
    except BaseException:
        client.cancel(futures)
        raise


def task_failure(future: Any, model_version: str) -> str | None:
    """Why a finished Dask task has no result to store (it raised, was cancelled or lost, or its worker runs
    another model version); None when it has one. Shared by sweeps and mutation runs."""
    if future.status != "finished":
        if future.status == "error":
            exc = future.exception()
            return one_line(f"{type(exc).__name__}: {exc}")
        return f"the task was {future.status}"  # cancelled or lost (its scheduler went away)
    got = future.result()
    if got["model_version"] != model_version:
        return f"the worker runs another model version ({got['model_version'][:12]}, not {model_version[:12]})"
    return None


def _finish(db: Store, future: Any, cell: Cell, settings: str, outcome: Outcome) -> tuple[Row | None, str | None]:
    """Store a finished task's result; a task that raised, or a worker of another model, is a failure."""
    error = task_failure(future, outcome.model_version)
    if error is not None:
        outcome.failures[cell.key] = error
        return None, error
    got = future.result()
    if got["verdict"] == "interrupted":  # never a result: run again next time
        outcome.failures[cell.key] = "interrupted"
        return None, "interrupted"
    row = Row(
        rules_hash=cell.rule_set.rules_hash,
        label=cell.label,
        model_version=outcome.model_version,
        verdict=got["verdict"],
        proved=bool(got["proved"]),
        length=got["length"],
        minimal=bool(got["minimal"]),
        seconds=float(got["seconds"]),
        note=got["note"] or "",
        rules_json=json.dumps(cell.rule_set.rules.model_dump(), sort_keys=True),
        trace=got["trace"],
        settings=settings,
        run_id=outcome.run_id,
        finished_at=datetime.now(UTC).isoformat(timespec="milliseconds"),
    )
    db.put(row)
    outcome.ran.append(cell.key)
    return row, None


# -------------------------------------------------------------------------------------------------- the report


def matrix(outcome: Outcome) -> list[list[str]]:
    """The report as rows of text: a header (`rules` and the labels), then one row per rule set."""
    out = [["rules", *outcome.grid.labels]]
    for rs in outcome.grid.rule_sets:
        texts = []
        for label in outcome.grid.labels:
            r = outcome.rows.get((rs.rules_hash, label))
            texts.append("-" if r is None else r.text)
        out.append([rs.name, *texts])
    return out


_COLORS = {  # verdict -> (fill, rich style)
    "proved": ("#1a7f37", "bold green"),
    "holds": ("#8fd694", "green"),
    "found": ("#4c9be8", "blue"),
    "unreachable": ("#9fd8e0", "cyan"),
    "violated": ("#d73a49", "bold red"),
    "not-found": ("#f0a35e", "dark_orange"),
    "unknown": ("#f5d547", "yellow"),
    "interrupted": ("#bbbbbb", "yellow"),
    "-": ("#ffffff", "dim"),
}


_DARK = ("proved", "violated", "found")  # written in white


def _kind(text: str) -> str:
    return text.split(" ", 1)[0]


def text_lines(outcome: Outcome) -> list[str]:
    """The report as tab-separated lines (for a pipe), then `#` comment lines."""
    lines = ["\t".join(row) for row in matrix(outcome)]
    return lines + [f"# {line}" for line in summary_lines(outcome)]


def summary_lines(outcome: Outcome) -> list[str]:
    """What the table's foot says: the cells run and reused, failures, the store."""
    total = len(outcome.grid.rule_sets) * len(outcome.grid.labels)
    lines = [
        f"{total} cells ({len(outcome.grid.rule_sets)} rule sets x {len(outcome.grid.labels)} properties, "
        f"bound {outcome.grid.depth}): {len(outcome.ran)} run now, {outcome.reused} from the store, "
        f"{outcome.seconds:.1f} s",
    ]
    for (h, label), error in outcome.failures.items():
        names = [rs.name for rs in outcome.grid.rule_sets if rs.rules_hash == h]
        lines.append(f"failed: {names[0] if names else h[:12]} | {label}: {error}")
    lines.append(f"store: {outcome.store}")
    return lines


def rich_table(outcome: Outcome) -> Any:
    """The report as a rich table (on a terminal), each verdict coloured."""
    from rich.markup import escape
    from rich.table import Table

    rows = matrix(outcome)
    table = Table(show_edge=False, pad_edge=False)
    for i, head in enumerate(rows[0]):
        table.add_column(escape(head), no_wrap=i == 0)
    for row in rows[1:]:
        cells = [escape(row[0])] + [f"[{_COLORS[_kind(t)][1]}]{escape(t)}[/]" for t in row[1:]]
        table.add_row(*cells)
    return table


def svg(outcome: Outcome) -> str:
    """The report as an SVG heat map: one coloured cell per (rule set, property), its verdict written in it, and
    a legend of the colours."""
    rows = matrix(outcome)
    labels, body = rows[0][1:], rows[1:]
    cw, ch, char = 118, 26, 6.6  # cell width and height; the width of a character at 11 px
    left = int(max([len(r[0]) for r in body] + [10]) * char) + 20
    top = int(max([len(x) for x in labels] + [8]) * char * 0.72) + 40  # labels at -45 degrees (cos 45 = 0.71)
    longest = max([len(x) for x in labels] + [8])
    width = int(left + cw * (len(labels) - 0.5) + longest * char * 0.72) + 30  # the last label leans right
    legend_y = top + ch * len(body) + 24
    height = legend_y + 22 * ((len(_COLORS) + 3) // 4) + 16
    width = max(width, 4 * 150 + 20)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="11">',
        f"<title>duelcheck sweep: {xml_escape(outcome.grid.path)}</title>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="10" y="18" font-size="13" font-weight="bold">duelcheck sweep: '
        f"{xml_escape(outcome.grid.path)} (bound {outcome.grid.depth})</text>",
    ]
    for j, label in enumerate(labels):
        x, y = left + cw * j + cw / 2, top - 6
        out.append(f'<text x="{x:.0f}" y="{y}" transform="rotate(-45 {x:.0f} {y})">{xml_escape(label)}</text>')
    for i, row in enumerate(body):
        y = top + ch * i
        out.append(f'<text x="{left - 8}" y="{y + ch / 2 + 4:.0f}" text-anchor="end">{xml_escape(row[0])}</text>')
        for j, text in enumerate(row[1:]):
            x = left + cw * j
            fill = _COLORS[_kind(text)][0]
            ink = "#ffffff" if _kind(text) in _DARK else "#000000"
            title = f"{row[0]} | {labels[j]}: {text}"
            out.append(
                f'<g class="cell"><title>{xml_escape(title)}</title>'
                f'<rect x="{x}" y="{y}" width="{cw}" height="{ch}" fill="{fill}" stroke="#ffffff" stroke-width="2" '
                f'data-verdict="{xml_escape(_kind(text))}"/>'
                f'<text x="{x + cw / 2:.0f}" y="{y + ch / 2 + 4:.0f}" text-anchor="middle" fill="{ink}">'
                f"{xml_escape(text)}</text>"
                "</g>"
            )
    for k, (name, (fill, _)) in enumerate(_COLORS.items()):
        x, y = 10 + 150 * (k % 4), legend_y + 22 * (k // 4)
        shown = "no result" if name == "-" else name
        out.append(
            f'<g class="legend"><rect x="{x}" y="{y}" width="14" height="14" fill="{fill}" stroke="#888888"/>'
            f'<text x="{x + 20}" y="{y + 11}">{xml_escape(shown)}</text></g>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


class Display:
    """Progress on stderr while a sweep runs: a rich progress bar on a terminal, else one plain line per cell."""

    def __init__(self, live: bool, scheduler: str | None, workers: int | None):
        self.live = live
        self.where = f"the scheduler {scheduler}" if scheduler else f"a local cluster of {workers} worker(s)"
        self.started = time.monotonic()
        self._progress: Any = None
        self._task: Any = None

    def _echo(self, line: str) -> None:
        print(f"[{time.monotonic() - self.started:7.1f} s] {line}", file=sys.stderr, flush=True)

    def start(self, to_run: int, total: int) -> None:
        if not self.live:
            self._echo(f"{total} cells: {total - to_run} from the store, {to_run} to run on {self.where}")
            return
        if to_run == 0:
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            TextColumn("[bold]sweep[/]"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.description}"),
            console=Console(stderr=True),
            transient=True,
        )
        self._progress.start()
        self._task = self._progress.add_task(f"{total - to_run} from the store; on {self.where}", total=to_run)

    def cell(self, done: int, to_run: int, cell: Cell, row: Row | None, error: str | None) -> None:
        what = f"{cell.rule_set.name} | {cell.label}: " + (f"failed: {error}" if row is None else row.text)
        if self._progress is not None:
            from rich.markup import escape

            self._progress.update(self._task, completed=done, description=escape(what))
        else:
            seconds = "" if row is None else f" ({row.seconds:.1f} s)"
            self._echo(f"{done}/{to_run} {what}{seconds}")

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
