"""`duelcheck export`: the exported questions, read back by Z3, give the engine's own answers.

smt2 is the BMC question to a bound (sat: the goal is reached within it); chc is the whole system as Horn
clauses (sat: an inductive invariant excludes the goal; unsat: the goal is reachable). Each expected answer
is the engine's verdict in the same test, never a constant alone.

Z3's Horn solver (Spacer) is given `fp.xform.bit_blast=true` under the official rules: measured on 2 busy
cores, first-turn-no-draw is settled in ~4 s with it and not within 120 s without it. Under a small rule set
(one zone of each kind, one chain link) Spacer settles it in ~0.5 s with no option at all, so the answers
are also checked without that transformation.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import z3
from click.testing import CliRunner

from duelcheck.api import select
from duelcheck.cli import main
from duelcheck.engines.bmc import BMC
from duelcheck.engines.export import bmc_question, chc_system, export, export_chc, export_smt2
from duelcheck.engines.kind import Induction
from duelcheck.model.state import PARAMS
from duelcheck.model.system import TransitionSystem
from duelcheck.rules import Rules

HORN_TIMEOUT_MS = 300_000  # far above the ~10 s measured: an `unknown` fails the test, it never passes it
GOAT = Rules(first_turn_draw=True)  # the first player draws on turn 1: first-turn-no-draw is violated
SMALL = Rules(monster_zones=1, spell_trap_zones=1, chain_links=1)  # one zone of each kind, one chain link


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def smt2_answer(text: str) -> Any:
    """The answer of a fresh Z3 solver to an exported SMT-LIB 2 script."""
    solver = z3.Solver()
    solver.add(z3.parse_smt2_string(text))
    return solver.check()


def chc_answer(text: str, bit_blast: bool = True) -> Any:
    """The answer of Z3's Horn solver (Spacer) to an exported CHC system."""
    solver = z3.SolverFor("HORN")
    solver.set("timeout", HORN_TIMEOUT_MS)
    if bit_blast:
        solver.set("xform.bit_blast", True)
    solver.add(z3.parse_smt2_string(text))
    started = time.perf_counter()
    answer = solver.check()
    print(f"spacer: {answer} in {time.perf_counter() - started:.1f} s")
    return answer


@pytest.fixture(scope="module")
def official() -> TransitionSystem:
    return TransitionSystem(Rules())


@pytest.fixture(scope="module")
def goat() -> TransitionSystem:
    return TransitionSystem(GOAT)


def bmc_verdict(ts: TransitionSystem, label: str, depth: int) -> Any:
    (result,) = BMC(ts).run(select([label]), depth)
    return result


# -- smt2: the bounded question ------------------------------------------------------------------


def test_smt2_reach_turn_3_is_sat_exactly_at_the_engines_depth(official: TransitionSystem) -> None:
    found = bmc_verdict(official, "reach-turn-3", 9)
    assert found.verdict == "found" and found.minimal
    depth = found.length
    assert depth == 5  # two turns of two-phase steps and a draw: the engine's measured minimum, official rules
    (prop,) = select(["reach-turn-3"])
    assert smt2_answer(export_smt2(official, prop, depth)) == z3.sat
    assert smt2_answer(export_smt2(official, prop, depth - 1)) == z3.unsat


def test_smt2_invariant_agrees_with_the_engine(official: TransitionSystem, goat: TransitionSystem) -> None:
    (prop,) = select(["first-turn-no-draw"])
    for ts, verdict, answer in ((official, "holds", z3.unsat), (goat, "violated", z3.sat)):
        assert bmc_verdict(ts, "first-turn-no-draw", 3).verdict == verdict
        assert smt2_answer(export_smt2(ts, prop, 3)) == answer


def test_smt2_file_from_the_command_line(tmp_path: Path) -> None:
    rules = tmp_path / "goat.toml"
    rules.write_text("first_turn_draw = true\n", encoding="utf-8")
    out = tmp_path / "q.smt2"
    code, stdout, stderr = run(
        "export", "--rules", str(rules), "--property", "first-turn-no-draw", "--format", "smt2",
        "--depth", "2", "--out", str(out),
    )  # fmt: skip
    assert (code, stdout, stderr) == (0, "", "")
    text = out.read_text(encoding="utf-8")
    head = [line for line in text.splitlines() if line.startswith(";")][:12]
    said = "\n".join(head)
    assert "first_turn_draw=true" in said and str(rules) in said
    assert "first-turn-no-draw" in said and "depth: 2" in said
    assert "; sat: a violation is reached" in said and "; unsat: no play of at most 2 steps" in said
    assert "(set-logic QF_BV)" in text and text.endswith("(check-sat)\n(exit)\n")
    assert smt2_answer(text) == z3.sat
    assert bmc_verdict(TransitionSystem(GOAT), "first-turn-no-draw", 2).verdict == "violated"


def test_smt2_to_stdout_matches_the_library(official: TransitionSystem) -> None:
    code, stdout, _ = run("export", "--property", "reach-turn-3", "--format", "smt2", "--depth", "1")
    assert code == 0
    (prop,) = select(["reach-turn-3"])
    assert stdout == export(Rules(), prop, "smt2", 1)
    assert smt2_answer(stdout) == z3.unsat


def test_smt2_question_is_the_bmc_question(official: TransitionSystem) -> None:
    """The exported text means the same as the terms it was printed from."""
    (prop,) = select(["reach-turn-3"])
    constraints, goal = bmc_question(official, prop, 2)
    assert len(constraints) == 3
    direct = z3.Solver()
    direct.add(*constraints, goal)
    assert direct.check() == smt2_answer(export_smt2(official, prop, 2)) == z3.unsat


def test_a_property_with_cases_is_the_disjunction_over_them(official: TransitionSystem) -> None:
    (whole,) = select(["reach-every-damage-outcome"])
    assert len(whole.checks) > 1
    text = export_smt2(official, whole, 0)
    assert "any of its cases" in text
    one = whole.checks[0].label
    (single,) = select([f"reach-every-damage-outcome[{one}]"])
    assert f"case {one}" in export_smt2(official, single, 0)


def test_bad_input_is_one_line_and_exit_2() -> None:
    code, _, stderr = run("export", "--property", "reach-trun-3", "--format", "smt2")
    assert code == 2 and stderr.count("\n") == 1 and "did you mean reach-turn-3" in stderr
    code, _, stderr = run("export", "--property", "phase-order", "--format", "chc", "--depth", "3")
    assert code == 2 and stderr.count("\n") == 1 and "--depth" in stderr


# -- chc: the whole system -----------------------------------------------------------------------


def test_chc_is_in_the_chc_comp_shape(official: TransitionSystem) -> None:
    (prop,) = select(["phase-order"])  # a step check: the query clause holds a step of T
    text = export_chc(official, prop)
    lines = [line for line in text.splitlines() if not line.startswith(";")]
    assert lines[0] == "(set-logic HORN)"
    assert lines[1].startswith("(declare-fun Inv ((_ BitVec 9) (_ BitVec 4) (_ BitVec 1) ")  # turn, phase, prio
    assert lines[1].endswith(") Bool)") and "Bool " not in lines[1]  # over bit-vectors only
    assert sum(line.startswith("(declare-fun") for line in lines) == 1  # every other variable is bound
    clauses = [i for i, line in enumerate(lines) if line.startswith("(assert")]
    assert len(clauses) == 3 and all(lines[i].startswith("(assert (forall ((turn@0 ") for i in clauses)
    # the predicate atoms are written out: Inv(s) heads the init clause, Inv(s) => ... => Inv(s') the step
    init_head, step_head = lines[clauses[1] - 1], lines[clauses[2] - 1]
    assert init_head.startswith(" (Inv turn@0 phase@0 ") and step_head.startswith(" (Inv turn@1 phase@1 ")
    assert lines[clauses[1] + 2].startswith("(and (Inv turn@0 ") and lines[clauses[2] + 2].startswith("(and (Inv ")
    assert lines[-3:] == [" false)))", "(check-sat)", "(exit)"]
    parsed = z3.parse_smt2_string(text)
    assert len(parsed) == 3 and all(z3.is_quantifier(c) and c.is_forall() for c in parsed)
    query = parsed[2].body()
    assert z3.is_implies(query) and z3.is_false(query.arg(1))  # the one query: ... => false
    assert parsed[2].num_vars() == 2 * len(official.keys) + 1 + len(PARAMS)  # s, act, params, s'


@pytest.mark.parametrize(
    ("rules", "bit_blast"),
    [(Rules(), True), (SMALL, False)],
    ids=["official-rules", "small-rules-plain-spacer"],
)
def test_chc_invariant_proved_by_induction_is_sat_and_broken_is_unsat(rules: Rules, bit_blast: bool) -> None:
    props = select(["first-turn-no-draw"])
    ts = TransitionSystem(rules)
    assert Induction(ts).prove_suite(props) == {"first-turn-no-draw"}  # the engine: holds at every depth
    assert chc_answer(export_chc(ts, props[0]), bit_blast) == z3.sat
    if not bit_blast:  # the clauses as Z3 terms, solved in this process, agree with the text read back
        solver = z3.SolverFor("HORN")
        solver.add(*chc_system(ts, props[0]).clauses())
        assert solver.check() == z3.sat
    # the rule change that breaks it: the engine finds a violation, and the CHC system has no invariant
    broken = TransitionSystem(rules.model_copy(update={"first_turn_draw": True}))
    assert bmc_verdict(broken, "first-turn-no-draw", 3).verdict == "violated"
    assert chc_answer(export_chc(broken, props[0]), bit_blast) == z3.unsat
