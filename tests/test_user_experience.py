"""What a user sees: progress as the run goes, output a pipe can read, one spelling of a case, the trace
view in the duel-log format's words, and the library API."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import duelcheck
from duelcheck.cli import main
from duelcheck.errors import InputError


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def traces(tmp_path_factory: Any) -> Path:
    """Two witnesses and one case of a property with several, by BMC alone."""
    out = tmp_path_factory.mktemp("ux")
    code, stdout, stderr = run(
        "check", "--no-proofs", "--depth", "10", "--out", str(out / "run"),
        "--property", "reach-negated-activation-kept-its-cost", "--property", "reach-turn-3",
        "--property", "reach-every-damage-outcome[direct]", "--property", "first-turn-no-draw",
    )  # fmt: skip
    (out / "stdout.txt").write_text(stdout, encoding="utf-8")
    (out / "stderr.txt").write_text(stderr, encoding="utf-8")
    (out / "code.txt").write_text(str(code), encoding="utf-8")
    return out


def test_each_row_is_told_as_it_is_settled_and_the_table_is_tab_separated_in_a_pipe(traces: Path) -> None:
    stdout = (traces / "stdout.txt").read_text(encoding="utf-8")
    stderr = (traces / "stderr.txt").read_text(encoding="utf-8")
    rows = [line.split("\t") for line in stdout.splitlines() if not line.startswith("#")]
    assert rows[0][:3] == ["property", "kind", "verdict"]
    by_label = {r[0]: r for r in rows[1:]}
    # a case selected alone is the only case checked, and spelled as it was selected
    assert set(by_label) == {
        "reach-negated-activation-kept-its-cost",
        "reach-turn-3",
        "reach-every-damage-outcome[direct]",
        "first-turn-no-draw",
    }
    assert all(len(r) == 8 for r in rows)
    settled = [line for line in stderr.splitlines() if "/4 " in line]
    assert len(settled) == 4, stderr  # one progress line per result, numbered as they come
    assert [line.split("] ")[1].split(" ")[0] for line in settled] == ["1/4", "2/4", "3/4", "4/4"]
    assert any("bounded search at depth" in line for line in stderr.splitlines())
    seconds = {r[0]: float(r[6]) for r in rows[1:]}
    assert len(set(seconds.values())) > 1  # each row its own time, not its group's


def test_a_case_is_spelled_one_way_in_the_table_the_file_name_itf_and_json(traces: Path) -> None:
    label = "reach-every-damage-outcome[direct]"
    path = traces / "run" / f"{label}.itf.json"
    meta = json.loads(path.read_text(encoding="utf-8"))["#meta"]
    assert meta["label"] == label and meta["case"] == "direct" and meta["property"] == "reach-every-damage-outcome"
    summary = json.loads((traces / "run" / "summary.json").read_text(encoding="utf-8"))
    rows = {r["label"]: r for r in summary["results"]}
    assert rows[label]["case"] == "direct" and rows["reach-turn-3"]["case"] is None
    assert rows[label]["trace"] == str(path)


def test_properties_are_listed_one_a_line_in_a_pipe() -> None:
    code, out, _ = run("properties")
    assert code == 0
    names = [line.split("\t")[0] for line in out.splitlines()[1:]]
    assert names == [p.name for p in duelcheck.list_properties()]
    long_name = max(names, key=len)
    assert any(line.startswith(long_name + "\t") for line in out.splitlines())
    damage = next(line for line in out.splitlines() if line.startswith("reach-every-damage-outcome\t"))
    assert "direct" in damage.split("\t")[3]


def test_show_speaks_the_duel_log_words_with_ranges_json_and_folding(traces: Path) -> None:
    path = str(traces / "run" / "reach-negated-activation-kept-its-cost.itf.json")
    code, out, _ = run("show", path)
    assert code == 0
    # the cost paid (1000 LP or a card), in points and in the duel-log format's words
    assert re.search(r"players\[0\]\.(lp: 8000 -> 7000|hand: 5 -> [34])", out), out
    assert "LP 8000/8000" in out and "s_occ" not in out and "nsum" not in out
    code, out, _ = run("show", path, "--format", "json", "--from", "2", "--to", "4")
    data = json.loads(out)
    assert [s["step"] for s in data["steps"]] == [2, 3, 4] and data["from_step"] == 1
    lp = data["start"]["players"][0]["lp"]
    assert lp in (7000, 8000)
    assert data["steps"][0]["action"] == {"action": "pass"} and data["steps"][0]["player"] == 1
    turn3 = str(traces / "run" / "reach-turn-3.itf.json")
    code, out, _ = run("show", turn3)
    assert "then player 0 chooses End Phase" in out  # the turn player picks the next phase, shown as such
    chooser = json.loads(run("show", turn3, "--format", "json")[1])
    choice = next(s for s in chooser["steps"] if "then" in s["action"])
    assert choice["chooser"] == 0
    code, _, err = run("show", path, "--from", "5", "--to", "3")
    assert code == 2 and "--from/--to" in err


def test_folding_runs_of_passes() -> None:
    from duelcheck.counterexamples.view import render
    from duelcheck.engines.base import Trace
    from duelcheck.model.system import Step, TransitionSystem
    from duelcheck.rules import Rules

    ts = TransitionSystem(Rules())
    steps = [Step("init", {}, ts.init())]
    for _ in range(12):  # a run of plain end_steps through the first turns
        step = next(st for st in ts.successors(steps[-1].state) if st.action in ("end_step", "normal_draw"))
        steps.append(step)
    trace = Trace(steps)
    folded, plain = render(trace), render(trace, fold=False)
    assert "passes (player" in folded and "passes (player" not in plain
    assert len(folded.splitlines()) < len(plain.splitlines())
    assert "turn: 1 -> 2" in folded  # the net change of a folded run is kept


def test_the_library_api() -> None:
    assert "check" in duelcheck.__all__ and "Checker" not in dir(duelcheck)
    rules = duelcheck.load_rules({"hand_limit": 7})
    assert rules.hand_limit == 7
    seen: list[str] = []
    report = duelcheck.check(
        rules, ["reach-turn-3", "first-turn-no-draw"], depth=6, prove=False, on_result=lambda r: seen.append(r.label)
    )
    verdicts = {r.label: r.verdict for r in report.results}
    assert verdicts == {"reach-turn-3": "found", "first-turn-no-draw": "holds"}
    assert sorted(seen) == sorted(verdicts) and report.exit_code == 0
    found = next(r for r in report.results if r.label == "reach-turn-3")
    assert found.trace is not None and found.minimal and found.length == len(found.trace)
    with pytest.raises(InputError, match="did you mean reach-turn-3"):
        duelcheck.check(properties=["reach-turn3"])
    with pytest.raises(AttributeError):
        _ = duelcheck.no_such_name  # type: ignore[attr-defined]


def test_on_a_terminal_the_run_is_shown_live(tmp_path: Path) -> None:
    """A real pseudo-terminal: the live display draws the rows as they settle and the status line
    (elapsed time, settled out of the total), then the table is printed."""
    import os
    import pty
    import subprocess
    import sys

    args = [
        sys.executable, "-m", "duelcheck", "check", "--no-proofs", "--depth", "6", "--out", str(tmp_path / "o"),
        "--property", "reach-turn-3", "--property", "first-turn-no-draw",
    ]  # fmt: skip
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": "120", "LINES": "30", "TERM": "xterm"}
    proc = subprocess.Popen(args, stdin=follower, stdout=follower, stderr=follower, cwd=tmp_path, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the terminal closed: the run is over
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(leader)
    screen = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 0, screen
    assert "of 2 settled" in screen  # the live status line
    assert "\x1b[" in screen  # drawn with terminal control sequences, not plain lines
    assert "2 of 2 as expected" in screen and "reach-turn-3" in screen
