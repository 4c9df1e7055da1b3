"""`duelcheck sweep`: a grid of rule sets x properties on Dask, each cell once, kept in SQLite, resumable.

One 12-cell grid (4 rule sets x 3 properties, bound 4, no proofs, no simulation, on a small field; about a
second a cell) runs on a local cluster of 2 workers; the resumed runs go to a module-wide local cluster whose
scheduler (in this process) counts the tasks that ran. The whole file takes under a minute on a busy 2-core
machine.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from distributed import LocalCluster
from distributed.diagnostics.plugin import SchedulerPlugin

from duelcheck import sweep
from duelcheck.cli import main
from duelcheck.counterexamples.certify import replay_trace
from duelcheck.counterexamples.itf import itf_to_trace, recorded_rules
from duelcheck.model.system import TransitionSystem

GRID = """\
properties = ["first-turn-no-draw", "main2-only-after-battle", "hand-limit-at-turn-end"]
depth = 4
[grid]
main_phase_2_requires_battle_phase = [true, false]   # written before preset: the order is fixed all the same
preset = ["official", "goat"]
# a small field (one zone of each kind, two chain links): these properties are of phases and draws, not of the
# field's size, and a cell costs half as much; one value each, so every rule set has it
monster_zones = [1]
spell_trap_zones = [1]
chain_links = [2]
[check]
prove = false
simulate = false
"""
LABELS = ["first-turn-no-draw", "main2-only-after-battle", "hand-limit-at-turn-end"]
SMALL = "monster_zones=1, spell_trap_zones=1, chain_links=2"  # in every rule set's name: no preset has them
# The answers, known from the rules: goat draws on turn 1; without the requirement, Main Phase 2 follows Main
# Phase 1 directly (3 steps; 4 under goat, whose first Draw Phase has a draw to take).
EXPECTED = {
    SMALL: ["holds", "holds", "holds"],
    f"main_phase_2_requires_battle_phase=false, {SMALL}": ["holds", "violated (2)", "holds"],
    f"preset=goat, {SMALL}": ["violated (1)", "holds", "holds"],
    f"preset=goat, main_phase_2_requires_battle_phase=false, {SMALL}": ["violated (1)", "violated (3)", "holds"],
}
CELLS = 12
SMALL_KNOBS = {"monster_zones": 1, "spell_trap_zones": 1, "chain_links": 2}
SMALL_FIELD = "".join(f"{k} = {v}\n" for k, v in SMALL_KNOBS.items())  # as a rule file's lines


class TaskRuns(SchedulerPlugin):
    """A scheduler plugin: the key of every sweep task that ran to an end (its result or its error)."""

    name = "duelcheck-test-task-runs"

    def __init__(self) -> None:
        self.keys: list[str] = []

    def transition(self, key: Any, start: str, finish: str, *args: Any, **kwargs: Any) -> None:
        if finish in ("memory", "erred") and str(key).startswith("duelcheck-cell-"):
            self.keys.append(str(key))

    def of_run(self, run_id: str) -> int:
        return sum(1 for k in self.keys if k.startswith(f"duelcheck-cell-{run_id}-"))


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, TaskRuns]]:
    """A local Dask cluster of 2 workers on the loopback address, its scheduler in this process counting runs."""
    runs = TaskRuns()
    with warnings.catch_warnings():  # a sweep's own cluster may hold the default HTTP port: another is picked
        warnings.filterwarnings("ignore", message="Port .* is already in use")
        local = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            preload=["duelcheck.sweep"],
        )
    with local:
        assert local.scheduler is not None  # in this process
        local.scheduler.add_plugin(runs)
        yield local.scheduler_address, runs


def grid_file(tmp_path: Path, text: str = GRID, name: str = "grid.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def store_rows(store: Path) -> list[dict[str, Any]]:
    db = sqlite3.connect(store)
    db.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in db.execute("SELECT * FROM cells")]
    finally:
        db.close()


def assert_complete(store: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """Every cell of GRID is in the store exactly once, with the expected verdict; the rows by key."""
    grid = sweep.load_grid(grid_file(store.parent, name="expected.toml"))
    rows = store_rows(store)
    keys = [(r["rules_hash"], r["label"], r["model_version"]) for r in rows]
    assert len(rows) == CELLS and len(set(keys)) == CELLS
    assert {r["model_version"] for r in rows} == {sweep.model_version()}
    by_key = {(r["rules_hash"], r["label"]): r for r in rows}
    for cell in grid.cells:
        row = by_key[cell.key]
        text = sweep.Row(**{**row, "proved": bool(row["proved"]), "minimal": bool(row["minimal"])}).text
        assert text == EXPECTED[cell.rule_set.name][LABELS.index(cell.label)], (cell.rule_set.name, cell.label)
        assert json.loads(row["rules_json"]) == cell.rule_set.rules.model_dump()
    return by_key


def test_grid_order_and_row_names_do_not_depend_on_the_file() -> None:
    a = sweep.grid_from_mapping({"grid": {"hand_limit": [5, 7], "preset": ["official", "goat"]}}, "a.toml")
    b = sweep.grid_from_mapping({"grid": {"preset": ["official", "goat"], "hand_limit": [5, 7]}}, "b.toml")
    names = ["hand_limit=5", "hand_limit=7", "preset=goat, hand_limit=5", "preset=goat, hand_limit=7"]
    assert [rs.name for rs in a.rule_sets] == [rs.name for rs in b.rule_sets] == names
    assert a.labels == sweep.all_labels() and len(a.cells) == 4 * len(a.labels)
    # A property with cases is one cell per case; a knob equal to its preset's value is not in the name.
    c = sweep.grid_from_mapping(
        {"properties": ["reach-every-damage-outcome"], "grid": {"preset": ["goat"], "first_turn_draw": [True]}}
    )
    assert len(c.labels) > 1 and all(x.startswith("reach-every-damage-outcome[") for x in c.labels)
    assert [rs.name for rs in c.rule_sets] == ["preset=goat"]


def test_sweep_on_a_local_cluster_every_cell_once_report_agrees_then_resumes(
    tmp_path: Path, cluster: tuple[str, TaskRuns]
) -> None:
    grid, store, picture = grid_file(tmp_path), tmp_path / "sweep.sqlite", tmp_path / "sweep.svg"
    args = ["sweep", str(grid), "--workers", "2", "--store", str(store), "--format", "json", "--svg", str(picture)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ran"] == CELLS and report["from_store"] == 0 and report["exit_code"] == 0
    assert "12/12" in result.stderr  # plain progress lines: stderr is not a terminal here
    rows = assert_complete(store)
    # The report is the store's: each cell's verdict, length, proof and minimality.
    assert [c["label"] for c in report["cells"]] == LABELS * 4
    for c in report["cells"]:
        row = rows[(c["rules_hash"], c["label"])]
        assert (c["verdict"], c["length"], c["proved"], c["minimal"], c["trace"]) == (
            row["verdict"],
            row["length"],
            bool(row["proved"]),
            bool(row["minimal"]),
            row["trace"] is not None,
        )
        assert c["text"] == EXPECTED[c["rule_set"]][LABELS.index(c["label"])]
    # Each violation's trace is kept as ITF JSON and replays under its rules to the violation.
    violated = [r for r in rows.values() if r["verdict"] == "violated"]
    assert len(violated) == 4
    for row in violated:
        data = json.loads(row["trace"])
        ts = TransitionSystem(recorded_rules(data, "stored"))
        trace = itf_to_trace(ts, data, "stored")
        replay_trace(ts, trace)
        assert len(trace) == row["length"]
    # The SVG heat map: one coloured cell per (rule set, property), as the store says, and a legend.
    svg = ET.parse(picture).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    cells = [g.find(f"{ns}rect") for g in svg.iter(f"{ns}g") if g.get("class") == "cell"]
    assert [r.get("data-verdict") for r in cells if r is not None] == [
        t.split(" ")[0] for name in EXPECTED for t in EXPECTED[name]
    ]
    assert sum(1 for g in svg.iter(f"{ns}g") if g.get("class") == "legend") >= 7

    # Half of the results lost: the same sweep runs those six cells only (counted by the scheduler).
    db = sqlite3.connect(store)
    lost = [(r["rules_hash"], r["label"]) for r in list(rows.values())[::2]]
    with db:
        db.executemany("DELETE FROM cells WHERE rules_hash = ? AND label = ?", lost)
    db.close()
    address, runs = cluster
    outcome = sweep.run(grid, store, scheduler=address)
    assert runs.of_run(outcome.run_id) == 6
    assert sorted(outcome.ran) == sorted(lost) and outcome.reused == 6 and outcome.exit_code == 0
    again = assert_complete(store)
    for key, row in rows.items():
        if key not in lost:
            assert again[key] == row  # untouched: the same run, the same moment


def test_a_sweep_killed_halfway_resumes_and_runs_only_the_missing_cells(
    tmp_path: Path, cluster: tuple[str, TaskRuns]
) -> None:
    grid, store = grid_file(tmp_path), tmp_path / "killed.sqlite"
    command = [sys.executable, "-m", "duelcheck", "sweep", str(grid), "--workers", "2", "--store", str(store)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if store.exists() and _count(store) >= 3:
                break
            time.sleep(0.1)
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        children = _descendants(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    kept = {(r["rules_hash"], r["label"]): r for r in store_rows(store)}
    assert 3 <= len(kept) < CELLS, "the sweep finished before it was killed"
    assert children, "the sweep ran no worker process"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in children):
        time.sleep(0.2)
    assert not any(Path(f"/proc/{pid}").exists() for pid in children), "the killed sweep's workers outlived it"

    address, runs = cluster
    outcome = sweep.run(grid, store, scheduler=address)
    assert runs.of_run(outcome.run_id) == CELLS - len(kept) == len(outcome.ran)
    assert not set(outcome.ran) & set(kept) and outcome.exit_code == 0
    rows = assert_complete(store)
    assert all(rows[key] == row for key, row in kept.items())
    # Run once more: every cell is in the store, so nothing runs and not even a cluster is started.
    code = CliRunner().invoke(main, ["sweep", str(grid), "--store", str(store), "--scheduler", "tcp://127.0.0.1:1"])
    assert code.exit_code == 0, code.output
    lines = code.stdout.splitlines()
    assert lines[0].split("\t") == ["rules", *LABELS]
    assert {line.split("\t")[0]: line.split("\t")[1:] for line in lines[1:5]} == EXPECTED
    assert "0 run now, 12 from the store" in code.stdout


def _descendants(pid: int) -> list[int]:
    """The processes started by a process and by its children (Linux /proc)."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found = [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            continue
        for child in found:
            out += [child, *_descendants(child)]
    return out


def _count(store: Path) -> int:
    try:
        db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1)
        try:
            return int(db.execute("SELECT COUNT(*) FROM cells").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:  # not created yet
        return 0


BAD_GRIDS = [
    ("depht = 4\n", "depht"),
    ('depth = "4"\n', "depth"),
    ("depth = 4\nproperties = []\n", "properties"),
    ('properties = ["reach-turn-9"]\n', "properties[0]"),
    ('properties = ["reach-turn-3", 3]\n', "properties[1]"),
    ("[grid]\nhand_limt = [5]\n", "grid.hand_limt"),
    ('[grid]\nhand_limit = ["five"]\n', "grid.hand_limit"),
    ("[grid]\nhand_limit = 5\n", "grid.hand_limit"),
    ("[grid]\nhand_limit = []\n", "grid.hand_limit"),
    ("[grid]\nhand_limit = [5, 5]\n", "grid.hand_limit[1]"),
    ('[grid]\npreset = ["modern"]\n', "grid.preset[0]"),
    ("[grid]\nfirst_turn_draw = [1]\n", "grid.first_turn_draw"),
    ('[check]\nprove = "no"\n', "check.prove"),
    ("[check]\nworkers = 2\n", "check.workers"),
    ("[check]\ntimeout = 0\n", "check.timeout"),
    ("grid = 3\n", "grid"),
    ("[grid\n", "not valid TOML"),
    ('property_files = ["no-such.toml"]\n', "no-such.toml"),
    ('[grid]\nrules = ["no-such-rules.toml"]\n', "grid.rules"),
    ("[grid]\nrules = [3]\n", "grid.rules[0]"),
]


@pytest.mark.parametrize(("text", "key"), BAD_GRIDS)
def test_a_bad_grid_is_one_line_naming_the_file_and_the_key(tmp_path: Path, text: str, key: str) -> None:
    grid, store = grid_file(tmp_path, text, "bad grid.toml"), tmp_path / "s.sqlite"
    result = CliRunner().invoke(main, ["sweep", str(grid), "--store", str(store)])
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""
    assert str(grid) in result.stderr and key in result.stderr, result.stderr
    assert not store.exists()  # refused before anything is run or written


def test_an_unreachable_scheduler_is_one_line_within_seconds(tmp_path: Path) -> None:
    grid, store = grid_file(tmp_path), tmp_path / "s.sqlite"
    started = time.monotonic()
    result = CliRunner().invoke(main, ["sweep", str(grid), "--store", str(store), "--scheduler", "tcp://127.0.0.1:1"])
    assert time.monotonic() - started < 15
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "tcp://127.0.0.1:1" in result.stderr, result.stderr
    assert _count(store) == 0
    bad = CliRunner().invoke(main, ["sweep", str(grid), "--store", str(store), "--scheduler", "localhost"])
    assert bad.exit_code == 2 and "--scheduler" in bad.stderr and bad.stderr.count("\n") == 1


def test_a_grid_of_rule_files_and_a_users_properties(tmp_path: Path) -> None:
    """A grid's `rules = [...]` (rule files, with their [[change]] tables) under its own knobs, and its
    `property_files`, whose properties are labels like the shipped ones: each cell runs them."""
    (tmp_path / "house.toml").write_text(  # on a small field (the file's knobs): the same attack, a faster search
        f'{SMALL_FIELD}[[change]]\nrequire = "turn >= 3"\naction = "declare_attack"\nreason = "house rule"\n',
        encoding="utf-8",
    )
    (tmp_path / "q.toml").write_text(
        '[[property]]\nname = "attacks-from-turn-3"\nkind = "always"\n'
        'step = "action == declare_attack implies turn >= 3"\n',
        encoding="utf-8",
    )
    grid = sweep.grid_from_mapping(
        {
            "properties": ["attacks-from-turn-3"],
            "property_files": ["q.toml"],
            "depth": 8,
            "grid": {"hand_limit": [5], "rules": ["house.toml"]},
            "check": {"prove": False, "simulate": False},
        },
        str(tmp_path / "grid.toml"),
    )
    (row,) = grid.rule_sets
    assert row.name == "rules=house.toml, hand_limit=5"
    assert row.rules.hand_limit == 5 and [c.reason for c in row.rules.changes] == ["house rule"]
    assert all(getattr(row.rules, k) == v for k, v in SMALL_KNOBS.items())
    assert grid.labels == ["attacks-from-turn-3"]
    got = sweep.run_cell(row.rules.model_dump(), "attacks-from-turn-3", grid.depth, grid.options)
    assert got["verdict"] == "holds"
    official = sweep.run_cell(dict(SMALL_KNOBS), "attacks-from-turn-3", grid.depth, grid.options)  # no house rule
    assert official["verdict"] == "violated" and official["length"] == 7
