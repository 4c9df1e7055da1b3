"""Proof certificates: the invariants `check` proved, written as SMT-LIB 2 obligations another solver can check.

The proof (engines/kind.py) is an induction of depth 1 over the invariants proved together: the conjunction
`Inv` of every proved invariant's state checks holds in the initial state, holds after every first step
(with the step checks), and is kept by every step of the rules from any state that meets it (each property's
checks on the step, state checks on the state after and step checks on the step itself, follow from `Inv`
before it). The certificate is that conjunction, written out with the transition relation, as questions
each expected `unsat`:

    initiation-state.smt2      init(s) and not Inv(s)
    initiation-step.smt2       init(s) and T(s, s') and not (the step checks on that first step)
    consecution-ACTION-pN.smt2 Inv(s) and T(s, s') and the step is ACTION by turn player N, then one question
                               per proved property (push; not (its checks on the step); check-sat; pop):
                               one file per action and turn player, the same case split the proof used
    safety-PROPERTY.smt2       Inv(s) and not (the property's state checks on s)

`manifest.json` lists the files with what each says, the rules, the properties and the model's digest;
each file starts with comments saying the same. `duelcheck certify DIR --solver S` asks each question of a
solver in a fresh process (engines/certify.py): a proof is confirmed when every obligation it is part of is
`unsat`; any other answer leaves it unconfirmed, with the reason.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import z3

from duelcheck.engines.cache import _model_digest
from duelcheck.engines.kind import Induction
from duelcheck.engines.smt import _TOKEN, _smt2_of
from duelcheck.model.system import TransitionSystem
from duelcheck.properties.catalog import Property
from duelcheck.properties.core import ActionView
from duelcheck.version import __version__

FORMAT = "duelcheck-certificates/1"


def _conj(terms: list[Any]) -> Any:
    """The conjunction of the terms, a single one as itself: SMT-LIB's `and` takes two arguments or more, and a
    solver that reads the standard strictly (Bitwuzla) refuses `(and x)`."""
    return terms[0] if len(terms) == 1 else z3.And(*terms)


def _standard(lines: list[str]) -> list[str]:
    """SMT-LIB 2 lines every solver reads: Z3's printer writes a one-argument `and` or `or` where a term has one
    operand, and the standard's `and` and `or` take two or more (Bitwuzla refuses them), so `(and x)` and
    `(or x)` are written `x`. Token by token, with no recursion: a step's term nests thousands of `let`s."""
    return [_unary_free(line) if line.startswith("(assert") else line for line in lines]


def _unary_free(text: str) -> str:
    out: list[str] = []
    open_: list[list[Any]] = []  # per open parenthesis: [where its text starts in out, its operator, operands]
    for tok in _TOKEN.findall(text):
        if tok == "(":
            if open_:
                open_[-1][2] += 1
            open_.append([len(out), None, 0])
            out.append("(")
        elif tok == ")":
            begin, op, n = open_.pop()
            if op in ("and", "or") and n == 1:
                inner = " ".join(out[begin + 2 :])  # after "(" and the operator
                del out[begin:]
                out.append(inner)
            else:
                out.append(")")
        elif open_ and open_[-1][1] is None and out[-1] == "(":
            open_[-1][1] = tok
            out.append(tok)
        else:
            if open_:
                open_[-1][2] += 1
            out.append(tok)
    return _join(out)


def _join(toks: list[str]) -> str:
    """Tokens as SMT-LIB text: a space between two tokens, none after "(" or before ")"."""
    text = " ".join(toks)
    return text.replace("( ", "(").replace(" )", ")")


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def _file(out: Path, name: str, comments: list[str], term: Any) -> None:
    """One obligation: the comments, the declarations and the assertion, then (check-sat); written whole or
    not at all (a file of its own, renamed into place)."""
    lines = [f"; {c}" for c in comments]
    lines += ["(set-logic QF_BV)", *_standard(_smt2_of(term)), "(check-sat)", "(exit)"]
    tmp = out / f".{name}.tmp"
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, out / name)


def _file_questions(out: Path, name: str, comments: list[str], base: Any, questions: list[tuple[str, Any]]) -> None:
    """One obligation asked as several questions over a shared assertion: the base asserted once, then each
    question between push and pop with its own check-sat (its answers, in order, are the questions'). The
    same as asking `base and not (q1 and q2 ...)`: unsat exactly when every question is; a solver settles the
    small questions one by one where the one big disjunction defeats it (measured: benchmarks/README.md)."""
    lines = [f"; {c}" for c in comments]
    lines += ["(set-logic QF_BV)", *_standard(_smt2_of(base))]
    declared = {line for line in lines if line.startswith("(declare")}
    for _, term in questions:
        said = _standard(_smt2_of(term))
        lines += [d for d in said if d.startswith("(declare") and d not in declared]
        declared |= {d for d in said if d.startswith("(declare")}
        lines += ["(push 1)", *(a for a in said if a.startswith("(assert")), "(check-sat)", "(pop 1)"]
    lines.append("(exit)")
    tmp = out / f".{name}.tmp"
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, out / name)


def write_certificates(system: TransitionSystem, props: list[Property], proved: set[str], out: Path) -> dict[str, Any]:
    """Write the certificate of the proof of `proved` (names of invariants among `props`) under `system`'s
    rules into `out`; return the manifest."""
    out.mkdir(parents=True, exist_ok=True)
    ind = Induction(system)
    invariants = [p for p in props if p.kind == "always" and p.name in proved]
    names = {p.name for p in invariants}
    rules = system.rules.changed()
    head = [
        f"duelcheck {__version__} proof certificate, model digest {_model_digest()[:16]}",
        f"rules: {json.dumps(rules, sort_keys=True) if rules else 'the official rules (every knob at its default)'}",
        f"the inductive invariant: the state checks of {len(invariants)} invariants proved together, k = 1",
    ]
    obligations: list[dict[str, Any]] = []

    def add(name: str, says: str, props_: list[str], term: Any, questions: list[tuple[str, Any]] | None = None) -> None:
        comments = [*head, f"obligation: {says}", "expected: unsat"]
        if questions:
            comments.append(f"questions, in order, each expected unsat: {', '.join(q for q, _ in questions)}")
            _file_questions(out, name, comments, term, questions)
        else:
            _file(out, name, comments, term)
        entry = {"file": name, "says": says, "properties": props_, "expected": "unsat"}
        if questions:
            entry["questions"] = [q for q, _ in questions]
        obligations.append(entry)

    inv = _conj(ind._state_facts(invariants, names)) if invariants else z3.BoolVal(True)
    # initiation: the initial states meet the invariant; the first steps meet the step checks
    first = ind._first
    first_inv = [
        f for p in invariants for c in p.checks if c.on == "state" for f in ind._facts(c, None, None, first.pre)
    ]
    init = system.sym_init(first.pre)
    add(
        "initiation-state.smt2",
        "the initial state meets every proved invariant's state checks",
        sorted(names),
        z3.And(init, z3.Not(_conj(first_inv))) if first_inv else z3.BoolVal(False),
    )
    act = ActionView(first.act, first.params, symbolic=True)
    step_first = [
        f for p in invariants for c in p.checks if c.on == "step" for f in ind._facts(c, first.pre, act, first.post)
    ]
    with_steps = sorted(p.name for p in invariants if any(c.on == "step" for c in p.checks))
    add(
        "initiation-step.smt2",
        "every first step from the initial state meets the step checks",
        with_steps,
        z3.And(init, first.relation, z3.Not(_conj(step_first))) if step_first else z3.BoolVal(False),
    )
    # consecution: from a state meeting the invariant, every step keeps every property (by action and player),
    # asked property by property
    goals = [(p.name, ind._goals(p)) for p in invariants]
    questions = [(name, z3.Not(_conj(gs))) for name, gs in goals if gs]
    st = ind._st
    for code, action in enumerate(system.actions):
        if action.parts is not None:  # a composite is a run of fine steps: the proof takes the fine relation
            continue
        for tp in (0, 1):  # the case split the proof used (kind.py `_cases`)
            case = [st.act == code, st.pre.tp == tp]
            add(
                f"consecution-{_slug(action.name)}-p{tp}.smt2",
                f"every step `{action.name}` of turn player {tp} from a state meeting the invariant keeps every "
                "property",
                sorted(names),
                z3.And(st.relation, inv, *case) if questions else z3.BoolVal(False),
                questions,
            )
    # safety: the invariant implies each property's state checks (they are among its conjuncts)
    for p in invariants:
        mine = ind._state_facts([p], {p.name})
        if mine:
            add(
                f"safety-{_slug(p.name)}.smt2",
                f"the invariant implies {p.name}'s state checks",
                [p.name],
                z3.And(inv, z3.Not(_conj(mine))),
            )
    manifest = {
        "format": FORMAT,
        "duelcheck": __version__,
        "model_digest": _model_digest(),
        "rules": rules,
        "k": 1,
        "proved": sorted(names),
        "found_by": "z3 (the incremental solver and fresh ones, case by case), yices for the facts z3 left open",
        "obligations": obligations,
    }
    tmp = out / ".manifest.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, out / "manifest.json")
    return manifest
