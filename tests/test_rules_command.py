"""`duelcheck rules`: the rulebook as the model holds it, every guard with a name that does not move."""

from __future__ import annotations

import json
import random
from pathlib import Path

from click.testing import CliRunner

from duelcheck.cli import main
from duelcheck.engines.boards.guards import guard_slugs
from duelcheck.model.rules import ACTIONS


def _book(*args: str) -> list[dict]:
    result = CliRunner().invoke(main, ["rules", "--format", "json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_every_action_and_guard_is_listed_with_a_unique_name_clause_and_words() -> None:
    book = _book()
    assert [e["action"] for e in book] == [a.name for a in ACTIONS]
    names = [g["name"] for e in book for g in e["guards"]]
    assert len(names) == len(set(names)) > 150
    for e in book:
        assert e["clause"] and e["doc"]
        if e.get("composite"):
            assert e["guards"] == []
            continue
        assert e["guards"], e["action"]
        for g in e["guards"]:
            assert g["name"].startswith(e["action"] + ".") and g["clause"] and g["reason"]
            assert g["kind"] in ("rule", "model", "part")
    draw = next(e for e in book if e["action"] == "normal_draw")
    first_draw = {
        "name": "normal_draw.the-player-who-goes-first-does-not-draw-on-turn-1",
        "clause": "6.3.1",
        "reason": "6.3.1: the player who goes first does not draw on turn 1",
        "kind": "rule",
    }
    assert first_draw in draw["guards"]


def test_a_guards_name_survives_moving_renaming_or_adding_another() -> None:
    book = _book()
    reasons = [g["reason"] for g in next(e for e in book if e["action"] == "declare_attack")["guards"]]
    before = dict(zip(reasons, guard_slugs(reasons), strict=True))
    assert len(set(reasons)) == len(reasons)  # declare_attack says each reason once
    rng = random.Random(3)
    for _ in range(20):
        edited = list(reasons)
        rng.shuffle(edited)  # moved
        edited[0] = "6.3.4.2: a rule added in another place"  # one renamed
        edited.insert(rng.randrange(len(edited)), "6.3.4.2: another new rule")  # one added
        after = dict(zip(edited, guard_slugs(edited), strict=True))
        assert all(after[r] == before[r] for r in edited if r in before)


def test_the_rules_of_a_preset_are_listed_and_bad_input_is_one_line() -> None:
    assert [g["name"] for e in _book("--rules", "rush") for g in e["guards"]]
    text = CliRunner().invoke(main, ["rules"])
    assert text.exit_code == 0 and "declare_attack  [6.3.4.2]" in text.stdout
    bad = CliRunner().invoke(main, ["rules", "--rules", "no-such-preset"])
    assert bad.exit_code == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_a_reader_that_goes_away_early_ends_the_command_quietly_with_141(tmp_path: Path) -> None:
    """`duelcheck rules | head -1`: the pipe closes before the listing ends; no error is printed (it is no
    internal error), and the exit code is the shell's for a closed pipe. The reader's end is closed before
    the command starts, so the first write meets a closed pipe whatever the machine's speed (a reader that
    closes after one line races a listing that fits in the pipe's buffer)."""
    import os
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "duelcheck", "rules"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 141 and done.stderr == "", done.stderr
