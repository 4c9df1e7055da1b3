"""No crash on any input, exit codes a CI can trust, Ctrl-C and time limits that work, one folder per run.

The fuzz tests run a small profile by default; `DUELCHECK_FUZZ=long` runs the long one (thousands of
inputs through the library, hundreds through the command line).
"""

from __future__ import annotations

import copy
import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duelcheck.cli import main
from duelcheck.conformance import replay
from duelcheck.errors import InputError
from duelcheck.rules import load_rules

LONG = os.environ.get("DUELCHECK_FUZZ") == "long"
LIBRARY_EXAMPLES = 10_000 if LONG else 150
CLI_EXAMPLES = 500 if LONG else 40
SCENARIOS = sorted((Path(__file__).parent / "scenarios").rglob("*.json"))
SEEDS = [json.loads(p.read_text(encoding="utf-8")) for p in SCENARIOS[::6]]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


# -- mutated documents --------------------------------------------------------------------------

JSON_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.sampled_from(["hand", "direct", "main1", "negate", "counter_trap", "graveyard", "pay_lp", "\ud800"]),
)
# what only a Python caller can pass: numbers no JSON text of Python's holds, values JSON has no word for
PYTHON_LEAF = st.one_of(
    JSON_LEAF,
    st.sampled_from([10**4300, -(10**4301), float("nan"), float("inf"), {1, 2}, (1, 2), b"x", {1: "a"}]),
)


def paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += paths(v, (*prefix, i))
    return out


def mutate(doc: Any, where: tuple[Any, ...], how: str, value: Any) -> Any:
    doc = copy.deepcopy(doc)
    if not where:
        return value
    parent = doc
    for key in where[:-1]:
        parent = parent[key]
    last = where[-1]
    if how == "delete":
        del parent[last]
    elif how == "wrap":
        parent[last] = [parent[last]]
    elif how == "add" and isinstance(parent, dict):
        too_long = isinstance(value, int) and abs(value) >= 10**4300  # no text for it: a key of another name
        parent["a-long-number" if too_long else str(value)] = value
    else:
        parent[last] = value
    return doc


@st.composite
def mutated_logs(draw: Any, leaf: Any = JSON_LEAF) -> Any:
    doc = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 3))):
        places = paths(doc)
        where = draw(st.sampled_from(places))
        how = draw(st.sampled_from(["set", "delete", "wrap", "add"]))
        doc = mutate(doc, where, how, draw(leaf))
    return doc


def as_itf(doc: Any) -> Any:
    """A duel log's board turned into the first state of an ITF document, to fuzz the trace reader."""
    return {"#meta": {"format": "ITF"}, "vars": ["action"], "states": [{"action": {"tag": "init"}, **doc}]}


@settings(max_examples=LIBRARY_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(doc=mutated_logs(PYTHON_LEAF), itf=st.booleans())
def test_the_library_refuses_bad_documents_with_one_line(doc: Any, itf: bool) -> None:
    """Any document, as Python values (numbers past what JSON text holds, sets, bytes included): a report,
    or an InputError naming a place; never another exception."""
    try:
        replay(as_itf(doc) if itf and isinstance(doc, dict) else doc)
    except InputError as exc:
        text = str(exc)
        assert "\n" not in text and ": " in text


@settings(max_examples=CLI_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    data=st.one_of(
        mutated_logs().map(lambda d: json.dumps(d).encode("utf-8", "surrogatepass")),
        st.binary(max_size=64),
        st.text(max_size=64).map(lambda t: t.encode("utf-8", "surrogatepass")),
    ),
    command=st.sampled_from(["replay", "show", "to-log"]),
)
def test_the_command_line_never_shows_a_traceback(tmp_path_factory: Any, data: bytes, command: str) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "input.json"
    path.write_bytes(data)
    code, out, err = run(command, str(path))
    assert code in (0, 1, 2), (code, out, err)
    assert "Traceback" not in out + err
    if code == 2:
        assert err.startswith("duelcheck: ") and err.count("\n") == 1 and str(path) in err


@settings(max_examples=CLI_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.text(max_size=80))
def test_a_rule_file_of_any_text_is_read_or_refused(tmp_path_factory: Any, text: str) -> None:
    path = tmp_path_factory.mktemp("rules") / "rules.toml"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        load_rules(path)
    except InputError as exc:
        assert str(path) in str(exc) and "\n" not in str(exc)


@pytest.fixture(scope="module")
def a_trace(tmp_path_factory: Any) -> Any:
    out = tmp_path_factory.mktemp("trace")
    code, _, _ = run("check", "--property", "reach-main2", "--depth", "11", "--no-proofs", "--out", str(out))
    assert code == 0
    return json.loads((out / "reach-main2.itf.json").read_text(encoding="utf-8"))


@settings(max_examples=CLI_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), command=st.sampled_from(["replay", "show", "to-log"]))
def test_a_mutated_trace_is_read_or_refused(tmp_path_factory: Any, a_trace: Any, data: Any, command: str) -> None:
    doc = a_trace
    for _ in range(data.draw(st.integers(1, 3))):
        where = data.draw(st.sampled_from(paths(doc)))
        how = data.draw(st.sampled_from(["set", "delete", "wrap", "add"]))
        doc = mutate(doc, where, how, data.draw(JSON_LEAF))
    path = tmp_path_factory.mktemp("itf") / "trace.itf.json"
    path.write_bytes(json.dumps(doc).encode("utf-8", "surrogatepass"))
    code, out, err = run(command, str(path))
    assert code in (0, 1, 2), (code, out, err)
    assert "Traceback" not in out + err


# -- the crashes found, one regression test each --------------------------------------------------


def test_each_reported_crash_is_one_line_and_exit_2(tmp_path: Path) -> None:
    cases = {
        "not-utf8.json": b"\xff",
        "deep.json": b"[" * 1000 + b"]" * 1000,
        "digits.json": b'{"format": "duelcheck-log/1", "board": {"turn": ' + b"1" * 4301 + b"}}",
        "rules-not-utf8.toml": b"\xff\xfe",
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        if name.endswith(".toml"):
            code, _, err = run("check", "--rules", str(path), "--depth", "0")
        else:
            code, _, err = run("replay", str(path))
        assert code == 2 and err.count("\n") == 1 and str(path) in err, (name, err)
    for device in ("/dev/zero", "/dev/urandom"):
        code, _, err = run("replay", device)
        assert code == 2 and "not a device, FIFO or socket" in err
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    code, _, err = run("replay", str(fifo))
    assert code == 2 and "FIFO" in err


def test_trace_readers_fill_missing_parameters_and_escape_odd_text(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _, _ = run("check", "--property", "reach-turn-3", "--depth", "9", "--no-proofs", "--out", str(out))
    assert code == 0
    trace = out / "reach-turn-3.itf.json"
    data = json.loads(trace.read_text(encoding="utf-8"))
    for state in data["states"]:
        state["action"].pop("value", None)  # a trace whose steps give no parameters
    data["#meta"]["description"] = "lone \ud800 surrogate"
    bad = tmp_path / "odd.itf.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    for command in ("show", "to-log", "replay"):
        code, text, err = run(command, str(bad))
        assert code in (0, 1) and "Traceback" not in text + err, (command, err)


def test_an_unexpected_error_is_exit_4_with_one_line_and_debug_shows_it(monkeypatch: Any) -> None:
    import duelcheck.conformance as conformance

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(conformance, "replay", broken)
    path = SCENARIOS[0]
    code, _, err = run("replay", str(path))
    assert code == 4 and err.count("\n") == 1 and "RuntimeError: boom" in err and "--debug" in err
    result = CliRunner().invoke(main, ["--debug", "replay", str(path)])
    assert isinstance(result.exception, RuntimeError)


# -- folders and files -----------------------------------------------------------------------------


def test_out_must_be_writable_before_the_run_starts(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    targets = [str(blocker / "under"), "", "/dev/full/x"]
    if os.geteuid() != 0:  # root writes anywhere
        targets.append(str(locked))
    for target in targets:
        t0 = time.perf_counter()
        code, _, err = run("check", "--out", target, "--property", "reach-turn-3")
        assert code == 2 and "--out" in err and err.count("\n") == 1, (target, err)
        assert time.perf_counter() - t0 < 5  # refused at the start, not after the run


def test_each_run_writes_a_new_folder_with_a_summary(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["check", "--property", "reach-main2", "--depth", "12", "--no-proofs"]
    first = run(*args)
    time.sleep(1.1)
    second = run(*args)
    assert first[0] == second[0] == 0
    folders = sorted((tmp_path / "duelcheck-out").iterdir())
    assert len(folders) == 2 and folders[0] != folders[1]
    assert f"written to {folders[0].relative_to(tmp_path)}/" in first[1]
    summary = json.loads((folders[0] / "summary.json").read_text(encoding="utf-8"))
    assert summary["exit_code"] == 0 and summary["command"] == "duelcheck check" and summary["duelcheck"]
    assert summary["options"]["names"] == ["reach-main2"] and summary["options"]["depth"] == 12
    result = summary["results"][0]
    assert result["verdict"] == "found" and Path(result["trace"]).name == "reach-main2.itf.json"
    trace = folders[0] / "reach-main2.itf.json"
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(trace.stat().st_mode) == 0o666 & ~mask


def test_replay_reads_folders_and_writes_junit(tmp_path: Path) -> None:
    junit = tmp_path / "report.xml"
    scenarios = Path(__file__).parent / "scenarios"
    code, out, _ = run("replay", str(scenarios / "battle"), str(scenarios / "chain"), "--junit", str(junit))
    assert code == 0 and out.strip().splitlines()[-1].endswith("0 failed, 0 bad input")
    text = junit.read_text(encoding="utf-8")
    assert (
        text.startswith("<?xml")
        and 'failures="0"' in text
        and text.count("<testcase")
        == len(list((scenarios / "battle").glob("*.json")) + list((scenarios / "chain").glob("*.json")))
    )
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    wrong = tmp_path / "wrong.json"
    data = json.loads((scenarios / "battle" / "01-atk-vs-atk-higher.json").read_text(encoding="utf-8"))
    data["expect"]["conforms"] = False
    wrong.write_text(json.dumps(data), encoding="utf-8")
    code, out, _ = run("replay", str(wrong), str(broken), "--junit", str(junit))
    assert code == 2 and "FAIL" in out and "ERROR" in out
    assert 'failures="1"' in junit.read_text(encoding="utf-8") and 'errors="1"' in junit.read_text(encoding="utf-8")


# -- time limits and Ctrl-C ------------------------------------------------------------------------


def test_a_run_time_limit_makes_unfinished_work_unknown(tmp_path: Path) -> None:
    t0 = time.perf_counter()
    code, out, _ = run(
        "check", "--timeout", "3", "--no-cache", "--out", str(tmp_path / "out"), "--format", "json",
        "--property", "reach-seed-chain-example", "--property", "card-conservation",
    )  # fmt: skip
    seconds = time.perf_counter() - t0
    results = json.loads(out)["results"]
    assert code == 3, out
    assert seconds < 15, seconds
    for r in results:
        assert r["verdict"] == "unknown" and "time limit" in (r["note"] or ""), r


def test_a_property_time_limit_makes_that_search_unknown(tmp_path: Path) -> None:
    code, out, _ = run(
        "check", "--property-timeout", "1", "--no-proofs", "--no-simulation", "--workers", "1",
        "--property", "reach-seed-chain-example", "--out", str(tmp_path / "out"), "--format", "json",
    )  # fmt: skip
    result = json.loads(out)["results"][0]
    assert code == 3 and result["verdict"] == "unknown" and "--property-timeout" in result["note"]


def test_a_goal_past_its_own_time_limit_is_unknown_and_its_session_goes_on() -> None:
    """Goals dealt to one solver session: the one whose own questions pass --property-timeout is `unknown`,
    the one after it in the same session is still searched (on a fresh solver) and found, minimal."""
    from duelcheck.engines.bmc import BMC
    from duelcheck.model.system import TransitionSystem
    from duelcheck.properties import BY_NAME
    from duelcheck.rules import Rules

    names = ["reach-seed-chain-example", "reach-main2", "reach-turn-3"]  # the first and last share a session
    bmc = BMC(TransitionSystem(Rules()), workers=1, property_timeout=2.0)
    assert bmc.groups([g for n in names for g in _goals(BY_NAME[n])]) == [[0, 2], [1]]
    results = {r.prop: r for r in bmc.run([BY_NAME[n] for n in names], 20)}
    chain, turn3 = results["reach-seed-chain-example"], results["reach-turn-3"]
    assert chain.verdict == "unknown" and "--property-timeout" in chain.note, chain
    assert turn3.verdict == "found" and turn3.minimal and turn3.trace is not None and len(turn3.trace) == 5, turn3
    assert results["reach-main2"].verdict == "found"


def test_a_time_limit_passing_between_questions_leaves_the_solver_usable() -> None:
    """The watchdog interrupts Z3 when the limit passes; with no question running the interrupt stayed
    pending and broke the next user of the process (the phase graph's solver refused its own terms)."""
    from duelcheck.engines.limits import Watchdog
    from duelcheck.graph import phase_graph
    from duelcheck.rules import Rules

    with Watchdog(time.monotonic()) as dog:
        while not dog.expired:
            time.sleep(0.05)
    assert len(phase_graph(Rules()).edges) > 10


def _goals(prop: Any) -> list[Any]:
    from duelcheck.engines.bmc import Goal

    return [Goal(prop, c) for c in prop.checks]


@pytest.mark.parametrize("stage,delay", [("induction", 4.0), ("induction", 9.0), ("search", 6.0), ("simulation", 5.5)])
def test_ctrl_c_stops_a_real_run_promptly_with_exit_130(tmp_path: Path, stage: str, delay: float) -> None:
    """SIGINT to a real `duelcheck check`: it stops within 2 s, prints the table, exits 130."""
    env = {**os.environ, "DUELCHECK_CACHE": str(tmp_path / "cache")}
    args = [sys.executable, "-m", "duelcheck", "check", "--out", str(tmp_path / "out"), "--no-cache"]
    if stage == "induction":  # the proofs of the whole suite, nothing cached: about two minutes
        args += ["--property", "card-conservation"]
    if stage == "search":  # turn 3 is found in a second; no deck-out within 24 steps: minutes of search
        args += ["--no-proofs", "--no-simulation", "--property", "reach-turn-3", "--property", "reach-deck-out-loss"]
    if stage == "simulation":  # beyond a bound of 3: simulation, then the shrinker (a 100-card deck: long)
        (tmp_path / "deep.toml").write_text("deck_size = 100\n", encoding="utf-8")
        args += ["--no-proofs", "--depth", "3", "--property", "reach-deck-out-loss", "--rules", "deep.toml"]
    # run outside the repository: its root holds a `duelcheck` folder that would shadow the installed package
    proc = subprocess.Popen(args, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    told: list[str] = []
    try:
        if stage in ("search", "simulation"):  # interrupted once the stage is told begun, however loaded the machine
            assert proc.stderr is not None
            told_begun = "reach-turn-3: found" if stage == "search" else "by simulation"
            for line in proc.stderr:
                told.append(line)
                if told_begun in line:
                    break
            time.sleep(delay - 5.0)  # into the deck-out's search (minutes), or its simulation and shrinking (seconds)
        else:
            time.sleep(delay)
        assert proc.poll() is None, proc.communicate()
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        err = "".join(told) + err
        stopped = time.perf_counter() - sent
    finally:
        if proc.poll() is None:  # a run that did not stop must not outlive the test
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, (out, err)
    assert stopped < 2.5, stopped
    assert "interrupted" in out and "Traceback" not in out + err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["exit_code"] == 130
    if stage == "search":  # what was settled before the Ctrl-C is kept, the rest is interrupted
        rows = {line.split("\t")[0]: line.split("\t")[2] for line in out.splitlines() if line.startswith("reach-")}
        assert rows == {"reach-turn-3": "found", "reach-deck-out-loss": "interrupted"}, out


def test_ctrl_c_stops_a_mutation_run_started_in_the_background_and_the_same_command_finishes_it(
    tmp_path: Path,
) -> None:
    """SIGINT to a real `duelcheck mutate` started as a script starts a background job (its own session, SIGINT
    ignored when it starts): once a mutant is told finished, it stops promptly with exit 130, the finished
    mutants kept in the store, and the same command runs only the rest."""
    store = tmp_path / "m.sqlite"
    # four mutants settled in a second or two each, the first at once: the Ctrl-C comes while the second runs
    mutants = ["compare:draw_count:1", "semantic:first_turn_draws", "drop:normal_draw:3", "negate:normal_draw:3"]
    args = [sys.executable, "-m", "duelcheck", "mutate", "--no-proofs", "--depth", "2"]
    args += [*(arg for m in mutants for arg in ("--mutant", m)), "--workers", "1", "--store", str(store)]

    def background() -> None:
        os.setsid()
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # what `&` in a script gives a job

    proc = subprocess.Popen(
        args, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=background
    )
    told: list[str] = []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            told.append(line)
            if " 1/4 " in line:
                break
        assert proc.poll() is None, "".join(told)
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        stopped = time.perf_counter() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    err = "".join(told) + err
    assert proc.returncode == 130 and "Traceback" not in out + err, err
    assert stopped < 15, stopped
    kept = sqlite3.connect(store).execute("SELECT COUNT(*) FROM mutants").fetchone()[0]
    assert 1 <= kept < 4, kept
    again = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"{kept} from the store" in again.stderr and f"{4 - kept} to run" in again.stderr, again.stderr


def test_a_ctrl_c_after_the_command_has_settled_its_exit_code_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the command returns (its table printed, its exit code chosen), Ctrl-C is ignored: a signal during
    the interpreter's shutdown would otherwise kill the process with another exit code."""
    import duelcheck.__main__ as entry
    import duelcheck.cli

    def command() -> None:
        raise SystemExit(0)

    before = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr(duelcheck.cli, "main", command)
    try:
        with pytest.raises(SystemExit) as stop:
            entry.run()
        assert stop.value.code == 0
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_search_process_told_to_stop_stops_its_solver_processes_first(tmp_path: Path) -> None:
    """SIGTERM to a search process: the solver processes it started (in their own sessions, out of reach of
    the terminal) are killed, and it exits at once with no traceback."""
    code = (
        "import signal, sys, time\n"
        "from duelcheck.engines import smt\n"
        "signal.signal(signal.SIGTERM, smt.exit_on_term)\n"
        "p = smt._spawn([sys.executable, '-c', 'import time; time.sleep(60)'], start_new_session=True)\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        child = int(proc.stdout.readline())
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1 and "Traceback" not in err, err
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        try:  # killed but not yet reaped by init: a zombie
            with open(f"/proc/{child}/stat", encoding="ascii") as f:
                if f.read().split(")")[-1].split()[0] == "Z":
                    break
        except FileNotFoundError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"solver process {child} outlived its search process")


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (10**4300, "expected numbers of at most 4300 digits"),
        (float("nan"), "expected a finite number"),
        ({1, 2}, "expected JSON values, got set"),
        ({1: "a"}, "expected string keys"),
    ],
    ids=["4301-digits", "nan", "set", "int-key"],
)
def test_a_dict_log_holding_what_no_json_file_holds_is_input_error_naming_the_place(value: Any, words: str) -> None:
    """Through the library, a log given as Python values: an observed value too long to write as text (it
    broke the report's encoding), not finite, or of no JSON kind is refused like a file's, with its path."""
    doc = {
        "format": "duelcheck-log/1",
        "board": {"turn": 3, "phase": "main1", "players": [{"hand": 3}, {}]},
        "actions": [
            {"action": "normal_summon", "player": 0, "atk": 1000, "def": 1000, "observed": {"players": [{}, {}]}}
        ],
    }
    doc["actions"][0]["observed"]["players"][0]["lp"] = value  # type: ignore[index]
    with pytest.raises(InputError, match="actions\\[0\\].observed.players\\[0\\].lp: " + words):
        replay(doc)
