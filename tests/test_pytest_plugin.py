"""The pytest plugin: `pytest --duel-logs DIR` runs every duel log under DIR as a test item.

The tests run pytest inside pytest (the `pytester` fixture) on folders of logs copied from the scenario
corpus; what the plugin reports is compared with what `duelcheck.conformance.replay` says of the same file.
"""

from __future__ import annotations

import copy
import json
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from duelcheck.conformance import replay
from duelcheck.errors import InputError

pytest_plugins = ["pytester"]

CORPUS = Path(__file__).parent / "scenarios"
CONFORMING = ("battle/01-atk-vs-atk-higher.json", "battle/08-direct-attack.json")


def corpus_log(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CORPUS / name).read_text(encoding="utf-8"))
    return data


def write(path: Path, data: dict[str, Any] | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def two_conforming(logs: Path) -> list[Path]:
    """The two corpus logs, one of them in a subfolder; the corpus says both conform."""
    out = []
    for name, rel in zip(CONFORMING, ("a-higher.json", "more/b-direct.json"), strict=True):
        data = corpus_log(name)
        assert data["expect"] == {"conforms": True}
        out.append(write(logs / rel, data))
    return out


def wrong_lp(logs: Path) -> tuple[Path, int, int]:
    """The first corpus log with no `expect` and the first observed LP of player 1 lowered by 500: the
    engine dealt damage too early, or too much. Returns the file, the 1-based step and the planted LP."""
    data = copy.deepcopy(corpus_log(CONFORMING[0]))
    del data["expect"]
    index, action = next(
        (i, a) for i, a in enumerate(data["actions"], 1) if "lp" in a.get("observed", {}).get("players", [{}, {}])[1]
    )
    planted = action["observed"]["players"][1]["lp"] - 500
    action["observed"]["players"][1]["lp"] = planted
    return write(logs / "c-wrong-lp.json", data), index, planted


def failure_section(lines: list[str], header_part: str) -> list[str]:
    """The lines of one failure's report: after its `____ name ____` header, up to the next rule."""
    start = next(i for i, line in enumerate(lines) if line.startswith("_") and header_part in line)
    out = []
    for line in lines[start + 1 :]:
        if line.startswith(("_", "=", "-")):
            break
        out.append(line)
    return out


def test_the_entry_point_is_installed() -> None:
    found = [ep for ep in entry_points(group="pytest11") if ep.value == "duelcheck.pytest_plugin"]
    assert found, "reinstall the package (pip install -e .) so that pytest loads duelcheck's plugin"


def test_logs_are_test_items_with_junit(pytester: pytest.Pytester, tmp_path: Path) -> None:
    logs = pytester.path / "logs"
    two_conforming(logs)
    bad, index, planted = wrong_lp(logs)
    junit = tmp_path / "report.xml"

    result = pytester.runpytest("--duel-logs", str(logs), "--junit-xml", str(junit), "-v")

    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # one item per file, named by its path under the folder (subfolders too)
    result.stdout.fnmatch_lines(
        [
            "*logs::a-higher.json PASSED*",
            "*logs::c-wrong-lp.json FAILED*",
            "*logs::more/b-direct.json PASSED*",
        ]
    )
    # the failure: the step, its clause, the field, the rules' value and the observed one, as replay finds them
    report = replay(bad)
    step = next(st for st in report.steps if st.differences)
    assert step.index == index
    name, model, observed = step.differences[0]
    assert observed == planted and model != planted
    section = failure_section(result.outlines, "c-wrong-lp.json")
    text = "\n".join(section)
    assert f"step {index}:" in text
    assert f"{step.shown}  [{step.clause}]" in text
    assert f"{name}: the rules give {model}, observed {observed}" in text
    assert len(section) <= 4, "a short report"
    assert "Traceback" not in result.stdout.str() and "pytest_plugin.py" not in result.stdout.str()

    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert len(cases) == 3
    failed = [c for c in cases if c.find("failure") is not None]
    assert [c.get("name") for c in failed] == ["c-wrong-lp.json"]
    assert suite.get("tests") == "3" and suite.get("failures") == "1" and suite.get("errors") == "0"
    failure = failed[0].find("failure")
    assert failure is not None and f"{name}: the rules give {model}, observed {observed}" in (failure.text or "")


def test_an_illegal_step_names_index_action_clause_and_reason(pytester: pytest.Pytester) -> None:
    logs = pytester.path / "logs"
    data = corpus_log(CONFORMING[0])
    del data["expect"]
    data["actions"].append({"action": "declare_attack", "player": 0, "attacker": 0, "target": "direct"})
    bad = write(logs / "attack-again.json", data)

    result = pytester.runpytest("--duel-logs", str(logs))

    result.assert_outcomes(failed=1)
    report = replay(bad)
    step = next(st for st in report.steps if not st.legal)
    assert step.index == len(data["actions"]) and step.reason
    text = "\n".join(failure_section(result.outlines, "attack-again.json"))
    assert f"step {step.index}: player {step.player}: {step.shown}  [{step.clause}]  ILLEGAL" in text
    assert step.reason in text


def test_an_expected_outcome_is_what_counts(pytester: pytest.Pytester) -> None:
    """A log that does not conform, as its `expect` says, passes; a wrong `expect` fails with its failures."""
    logs = pytester.path / "logs"
    illegal = "chain/02-speed-2-answers-counter-trap.json"
    assert corpus_log(illegal)["expect"]["conforms"] is False
    write(logs / "as-expected.json", corpus_log(illegal))
    data = corpus_log(illegal)
    data["expect"] = {"conforms": True}
    wrong = write(logs / "wrong-expect.json", data)

    result = pytester.runpytest("--duel-logs", str(logs), "-v")

    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*logs::as-expected.json PASSED*", "*logs::wrong-expect.json FAILED*"])
    failures = replay(wrong).expectation_failures()
    assert failures
    text = "\n".join(failure_section(result.outlines, "wrong-expect.json"))
    assert "expected outcome: NOT matched" in text
    for line in failures:
        assert line in text


def test_bad_input_fails_with_its_one_line_message(pytester: pytest.Pytester, tmp_path: Path) -> None:
    logs = pytester.path / "logs"
    two_conforming(logs)
    broken = write(logs / "broken.json", "this is not JSON\n")
    with pytest.raises(InputError) as raised:
        replay(broken)
    message = str(raised.value)
    junit = tmp_path / "report.xml"

    result = pytester.runpytest("--duel-logs", str(logs), "--junit-xml", str(junit))

    result.assert_outcomes(passed=2, failed=1)
    assert failure_section(result.outlines, "broken.json") == [message]
    assert "Traceback" not in result.stdout.str()
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1"


def test_without_the_option_nothing_is_collected_from_the_folder(pytester: pytest.Pytester) -> None:
    """In a separate process (its own modules): the plugin, loaded by its entry point, adds no items and
    imports none of the rules; the one test in that run checks which modules are loaded."""
    two_conforming(pytester.path / "logs")
    wrong_lp(pytester.path / "logs")
    pytester.makepyfile(
        test_light="""
        import sys

        def test_plugin_loaded_and_light():
            assert "duelcheck.pytest_plugin" in sys.modules
            heavy = ["duelcheck.conformance", "duelcheck.log", "duelcheck.model", "pydantic", "z3"]
            assert [m for m in heavy if m in sys.modules] == []
        """
    )

    result = pytester.runpytest_subprocess("-v")

    result.assert_outcomes(passed=1)
    assert "logs::" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*collected 1 item"])
    assert "duel logs:" not in result.stdout.str()


def test_the_ini_option(pytester: pytest.Pytester) -> None:
    two_conforming(pytester.path / "engine-logs")
    pytester.makeini("[pytest]\nduel_logs = engine-logs\n")

    result = pytester.runpytest("-v")

    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*engine-logs::a-higher.json PASSED*"])


def test_a_missing_folder_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--duel-logs", str(pytester.path / "no-such-folder"))

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--duel-logs*no-such-folder: expected a folder of duel logs*"])
