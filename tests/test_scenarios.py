"""The scenario corpus: duel logs from the seeds' own examples, each with the outcome it must get.

Every file under tests/scenarios/ is replayed through the concrete interpreter and its verdict
compared with the file's `expect` block; a scenario whose expected outcome is wrong fails here.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from duelcheck.conformance import replay
from duelcheck.log import SCHEMA_PATH, dump_schema

CORPUS = Path(__file__).parent / "scenarios"
FILES = sorted(CORPUS.rglob("*.json"))


def expectation_failures(path: Path) -> list[str]:
    report = replay(path)
    assert report.expect is not None, f"{path.name}: a scenario says what it expects"
    return report.expectation_failures()


def test_corpus_is_there() -> None:
    folders = {p.parent.name for p in FILES}
    assert {"battle", "chain", "turn"} <= folders
    assert len(FILES) >= 30


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_scenario(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data.get("title") and data.get("clause"), "each scenario names what it shows and the clause"
    assert expectation_failures(path) == []


def test_wrong_expectation_fails(tmp_path: Path) -> None:
    """Flip a scenario's expected verdict: the corpus check must report it."""
    for name in ("battle/01-atk-vs-atk-higher.json", "chain/02-speed-2-answers-counter-trap.json"):
        data = json.loads((CORPUS / name).read_text(encoding="utf-8"))
        flipped = copy.deepcopy(data)
        flipped["expect"] = {"conforms": not data["expect"]["conforms"]}
        path = tmp_path / Path(name).name
        path.write_text(json.dumps(flipped), encoding="utf-8")
        assert expectation_failures(path)
    # a clause that is only a prefix of the clause broken is not the clause broken
    data = json.loads((CORPUS / "battle/18-stopped-attack-no-second-attack.json").read_text(encoding="utf-8"))
    assert data["expect"]["clause"] == "6.3.4.2"
    data["expect"]["clause"] = "6.3.4"
    path = tmp_path / "prefix.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert expectation_failures(path) == ["expected clause 6.3.4, got 6.3.4.2 (" + replay(path).steps[-1].reason + ")"]


def test_wrong_observation_fails(tmp_path: Path) -> None:
    """An observed LP the rules do not give is listed as a difference, and the scenario fails."""
    data = json.loads((CORPUS / "battle/01-atk-vs-atk-higher.json").read_text(encoding="utf-8"))
    for action in data["actions"]:
        for player in (action.get("observed") or {}).get("players") or []:
            if "lp" in player:
                player["lp"] -= 100
    path = tmp_path / "wrong-lp.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    report = replay(path)
    assert not report.conforms
    assert any(name.endswith(".lp") for st in report.steps for name, _, _ in st.differences)
    assert expectation_failures(path)


def test_shipped_schema_is_current() -> None:
    """The JSON Schema in the package is generated from the format's definition (duelcheck schema)."""
    assert SCHEMA_PATH.read_text(encoding="utf-8") == dump_schema()
    assert json.loads(dump_schema())["properties"]["format"]["const"] == "duelcheck-log/1"
