"""The model's questions as text for other solvers: the BMC question in SMT-LIB 2 (QF_BV), and the transition
system with a property as constrained Horn clauses (CHC-COMP format, logic HORN).

`smt2` is exactly the question the bounded search asks (engines/bmc.py), put at once: the unrolling's
constraints for steps 0..N from the initial state of the rules, and "the goal is reached at some step
0..N" (for an `always` property a violation of one of its checks, for a `sometimes` property its witness;
with several checks, or cases, the disjunction over them). No proved invariant is added as a lemma:
the file is the plain question, and its answer is the engine's answer for that property and bound.

`chc` states the whole system, with no bound: one uninterpreted predicate `Inv` over the state variables,
all bit-vectors (a Bool flag of the state is a one-bit bit-vector there, #b1 for true), and three clauses,
each closed by `forall`:

    init(s)                    => Inv(s)
    Inv(s) and T(s, a, p, s')  => Inv(s')
    Inv(s) and bad             => false

`bad` is, for an `always` property, the negation of a state check at s, or (for a step check) a step of T
from s whose pre-state, action and post-state violate the check; for a `sometimes` property, the witness
itself, at s or on a step from s. With several checks `bad` is their disjunction (CHC-COMP allows a
single query). A CHC solver answers `sat` when some interpretation of Inv satisfies every clause, an
inductive invariant that excludes `bad`: `bad` is unreachable from the initial state at any depth.
It answers `unsat` when no such interpretation exists: `bad` is reached by some finite play. So for an
`always` property sat means "holds at every depth" and unsat "violated"; for a `sometimes` property sat
means "the witness is unreachable" and unsat "the witness is reached".

Variable names are the engine's own: `<field>[<player>][<zone>]@k` is a state field at step k (LP, ATK
and DEF in units of 100 points; other numbers as they are), `act@k` the code of the action of step k
(listed in the file's comments) and `<parameter>@k` its parameters. The CHC system's steps are @0 -> @1.

Measured with Z3 (2 busy cores, official rules): the smt2 question for reach-turn-3 takes 3-4 s at depth 8
(unsat) and 4-7 s at depth 9 (sat). Z3's Horn solver (Spacer) settles the chc system of first-turn-no-draw in
3-5 s with `fp.xform.bit_blast=true` (`z3 fp.xform.bit_blast=true FILE`; phase-order 30-60 s), and not within
120 s without it; a witness or violation many steps deep (reach-turn-3, first-turn-no-battle under
`first_turn_battle = true`) was not settled within 120 s with it: ask those of smt2.
Flags are bit-vectors in Inv because that transformation of Z3 5.4 gives wrong answers on predicates with
Bool arguments (a four-line system whose violation is reached at step 2 is answered sat).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

import z3

from duelcheck.engines.bmc import Goal, Unrolling
from duelcheck.errors import InternalError, one_line
from duelcheck.model.state import PARAMS
from duelcheck.model.system import TransitionSystem
from duelcheck.properties.catalog import ActionView, Check, Property
from duelcheck.rules import Rules
from duelcheck.version import __version__

Format = Literal["smt2", "chc"]
FORMATS: tuple[Format, ...] = ("smt2", "chc")


# -- the terms ----------------------------------------------------------------------------------


def bmc_question(ts: TransitionSystem, prop: Property, depth: int) -> tuple[list[Any], Any]:
    """The BMC question of engines/bmc.py put at once: the unrolling's constraints for steps 0..depth (the
    initial state, then one transition relation per step) and the goal "some check's target holds at some
    step 0..depth" (a violation for `always`, the witness for `sometimes`). Satisfiable exactly when the
    bounded search reaches the property's goal within `depth` steps."""
    u = Unrolling(ts)
    u.extend(depth)
    goals = [Goal(prop, c) for c in prop.checks]
    targets = []
    for k in range(depth + 1):
        for g in goals:
            t = g.target(u, k)
            if t is not None and not z3.is_false(t):
                targets.append(t)
    goal = z3.Or(*targets) if targets else z3.BoolVal(False)
    return list(u.constraints[: depth + 1]), goal


def _value(check: Check, pre: Any, act: ActionView | None, post: Any) -> Any:
    v = check.eval(pre, act, post) if check.on == "step" else check.eval(None, None, pre)
    return z3.BoolVal(v) if isinstance(v, bool) else v


@dataclass
class Horn:
    """The parts of the CHC system: the state variables of Inv at s (`now`) and s' (`nxt`), the action and
    parameter variables of the step (`moves`), and the interpreted formulas init(s), T(s, moves, s') and
    bad (over s, or over s, moves, s' when `stepped`: some check is a step check)."""

    inv: Any
    now: list[Any]
    moves: list[Any]
    nxt: list[Any]
    init: Any
    relation: Any
    bad: Any
    stepped: bool

    def clauses(self) -> list[Any]:
        """The three clauses as closed Z3 terms: init, step, query."""
        inv, now, nxt = self.inv, self.now, self.nxt
        query_vars = now + (self.moves + nxt if self.stepped else [])
        return [
            z3.ForAll(now, z3.Implies(self.init, inv(*now))),
            z3.ForAll(now + self.moves + nxt, z3.Implies(z3.And(inv(*now), self.relation), inv(*nxt))),
            z3.ForAll(query_vars, z3.Implies(z3.And(inv(*now), self.bad), z3.BoolVal(False))),
        ]


def chc_system(ts: TransitionSystem, prop: Property) -> Horn:
    """The CHC system of the property under the rules of `ts`. See the module's docstring for what sat and
    unsat mean.

    Inv ranges over bit-vectors only: where the state has a Bool flag, Inv has a one-bit bit-vector (#b1 for
    true) and the formulas read the flag as `(= flag #b1)`."""
    pre = ts.sym_state("@0")
    st = ts.sym_step(pre, "@1", fine=True)  # the same reachable states as with the composite actions
    now = [pre.v[key] for key in ts.keys]
    nxt = [st.post.v[key] for key in ts.keys]
    moves = [st.act, *(st.params[name] for name in PARAMS)]
    act = ActionView(st.act, st.params, symbolic=True)
    bad = []
    for c in prop.checks:
        v = _value(c, pre, act, st.post)
        hit = z3.Not(v) if prop.kind == "always" else v
        bad.append(z3.And(st.relation, hit) if c.on == "step" else hit)
    init, relation, query = ts.sym_init(pre), st.relation, z3.Or(*bad)
    pairs = []
    for i, var in enumerate(now + nxt):
        if z3.is_bool(var):
            bit = z3.BitVec(str(var), 1)
            pairs.append((var, bit == 1))
            (now if i < len(now) else nxt)[i % len(now)] = bit
    init, relation, query = (z3.substitute(t, *pairs) for t in (init, relation, query))
    inv = z3.Function("Inv", *(v.sort() for v in now), z3.BoolSort())
    stepped = any(c.on == "step" for c in prop.checks)
    return Horn(inv, now, moves, nxt, init, relation, query, stepped)


# -- the text -----------------------------------------------------------------------------------


_LET = re.compile(r"(?<![\w|$?])([$?])x(\d+)\b")


def _smt2_lines(term: Any) -> list[str]:
    """A term as SMT-LIB 2 lines (declarations, then one assertion), printed from a copy of the term in a
    fresh Z3 context: Z3 names and orders shared subterms by its internal term ids, which in the shared
    context depend on what was built before; in a fresh context they depend on the term alone."""
    ctx = z3.Context()
    solver = z3.Solver(ctx=ctx)
    solver.add(term.translate(ctx))
    return [
        line
        for line in solver.to_smt2().splitlines()
        if line.strip() and not line.startswith(("; ", "(set-info", "(check-sat"))
    ]


def _split(term: Any) -> tuple[list[str], list[str]]:
    """A term as SMT-LIB 2: its declarations and its assertion (lines), the names Z3 gives to shared
    subterms (`$x<id>`, `?x<id>`) renumbered from 1 in order of appearance."""
    decls: list[str] = []
    body: list[str] = []
    names: dict[str, str] = {}

    def rename(m: re.Match[str]) -> str:
        return names.setdefault(m.group(0), f"{m.group(1)}x{len(names) + 1}")

    for line in _smt2_lines(term):
        if line.startswith(("(declare-fun", "(declare-const")):
            decls.append(line)
        else:
            body.append(_LET.sub(rename, line))
    return decls, body


def rules_words(rules: Rules, source: str | None = None) -> str:
    """The rules in a few words: where they came from and what differs from the official ones."""
    changed = rules.changed()
    diff = ", ".join(f"{k}={json.dumps(v)}" for k, v in changed.items()) or "official (no parameter changed)"
    return diff + (f" (from {one_line(source)})" if source else "")


def _header(ts: TransitionSystem, prop: Property, fmt: str, source: str | None, lines: list[str]) -> list[str]:
    cases = [c.label for c in prop.checks if c.label]
    what = "a violation of" if prop.kind == "always" else "the witness of"
    out = [
        f"; duelcheck {__version__} export --format {fmt}",
        f"; rules: {rules_words(ts.rules, source)}",
        f"; rules (every parameter): {json.dumps(ts.rules.model_dump(), sort_keys=True)}",
        f"; property: {prop.name} ({prop.kind}, {prop.clause}): {prop.doc}",
        f"; goal: {what} this property"
        + (f", any of its cases: {', '.join(cases)}" if len(cases) > 1 else f", case {cases[0]}" if cases else ""),
        *lines,
        "; names: <field>[<player>][<zone>]@k is a state field at step k (LP, ATK, DEF in units of 100 points);",
        ";   act@k is the action of step k, <parameter>@k its parameters",
        "; action codes: " + ", ".join(f"{i} {a.name}" for i, a in enumerate(ts.actions)),
    ]
    return out


_SIMPLE = re.compile(r"^[A-Za-z~!$%^&*_+=<>.?/-][0-9A-Za-z~!@$%^&*_+=<>.?/-]*$")


def _symbol(var: Any) -> str:
    name = str(var)
    return name if _SIMPLE.match(name) else f"|{name}|"


def _sort(var: Any) -> str:
    return "Bool" if z3.is_bool(var) else f"(_ BitVec {var.size()})"


def _atom(args: list[Any]) -> str:
    return f"(Inv {' '.join(_symbol(v) for v in args)})"


def _formula(term: Any) -> list[str]:
    """A formula as SMT-LIB 2 text (lines), its free constants left free."""
    _, lines = _split(term)
    text = "\n".join(lines)
    if not (text.startswith("(assert") and text.endswith(")")):
        raise InternalError(f"Z3 printed an assertion in an unexpected shape: {text[:60]!r}")
    return text[len("(assert") : -1].strip().splitlines()


def _clause(bound: list[Any], tail_atom: list[Any] | None, formula: Any, head: str) -> list[str]:
    """One Horn clause in the CHC-COMP shape: (assert (forall (vars) (=> (and (Inv s) formula) head))), the
    predicate atoms written out (never let-bound), the interpreted formula as Z3 prints it."""
    binders = " ".join(f"({_symbol(v)} {_sort(v)})" for v in bound)
    tail = _formula(formula)
    if tail_atom is not None:
        tail = [f"(and {_atom(tail_atom)}", *tail[:-1], tail[-1] + ")"]
    return [f"(assert (forall ({binders})", " (=>", *tail, f" {head})))"]


def export_smt2(ts: TransitionSystem, prop: Property, depth: int, source: str | None = None) -> str:
    """The BMC question "is the property's goal reached within `depth` steps" as an SMT-LIB 2 script (QF_BV)."""
    constraints, goal = bmc_question(ts, prop, depth)
    if prop.kind == "always":
        sat = f"a violation is reached by a play of at most {depth} steps from the initial state"
        unsat = f"no play of at most {depth} steps from the initial state violates the property"
    else:
        sat = f"a play of at most {depth} steps from the initial state reaches the witness"
        unsat = f"no play of at most {depth} steps from the initial state reaches the witness"
    head = _header(
        ts,
        prop,
        "smt2",
        source,
        [
            f"; depth: {depth} (states s_0..s_{depth}, steps 1..{depth}; the initial state is s_0)",
            f"; sat: {sat}",
            f"; unsat: {unsat}",
        ],
    )
    decls: list[str] = []
    seen: set[str] = set()
    body: list[str] = []
    parts = [(f"; step {k}" if k else "; s_0 is the initial state", c) for k, c in enumerate(constraints)]
    parts.append((f"; the goal, at some step 0..{depth}", goal))
    for comment, term in parts:
        d, b = _split(term)
        for line in d:
            if line not in seen:
                seen.add(line)
                decls.append(line)
        body += [comment, *b]
    return "\n".join([*head, "(set-logic QF_BV)", *decls, *body, "(check-sat)", "(exit)", ""])


def export_chc(ts: TransitionSystem, prop: Property, source: str | None = None) -> str:
    """The transition system and the property as constrained Horn clauses (CHC-COMP format, logic HORN)."""
    if prop.kind == "always":
        sat = "an inductive invariant excludes every violation: the property holds at every depth"
        unsat = "a violation is reachable from the initial state (the property is violated)"
        bad = "bad: a state that violates a state check, or a step of T that violates a step check"
    else:
        sat = "an inductive invariant excludes the witness: the witness is unreachable at every depth"
        unsat = "the witness is reachable from the initial state (some play reaches it)"
        bad = "bad: the witness itself (a state meeting a state check, or a step of T meeting a step check)"
    head = _header(
        ts,
        prop,
        "chc",
        source,
        [
            "; the system: init(s) => Inv(s); Inv(s) and T(s, act, params, s') => Inv(s'); Inv(s) and bad => false",
            f"; {bad}",
            f"; sat: {sat}",
            f"; unsat: {unsat}",
            "; unknown (or no answer): neither was shown",
            "; Inv ranges over bit-vectors only: a Bool flag of the state is (_ BitVec 1) there, #b1 for true",
            "; with Z3: z3 fp.xform.bit_blast=true FILE (Spacer settles small invariants in seconds with it)",
        ],
    )
    h = chc_system(ts, prop)
    both = h.now + h.moves + h.nxt
    query_vars = both if h.stepped else h.now
    body = [
        f"(declare-fun Inv ({' '.join(_sort(v) for v in h.now)}) Bool)",
        "; init: the initial state of the rules is in Inv",
        *_clause(h.now, None, h.init, _atom(h.now)),
        "; step: Inv is closed under the transition relation T(s, act, params, s')",
        *_clause(both, h.now, h.relation, _atom(h.nxt)),
        "; query: no state in Inv is bad"
        + (" (for a step check: no step of T from a state in Inv is bad)" if h.stepped else ""),
        *_clause(query_vars, h.now, h.bad, "false"),
    ]
    return "\n".join([*head, "(set-logic HORN)", *body, "(check-sat)", "(exit)", ""])


def export(rules: Rules, prop: Property, fmt: Format, depth: int | None = None, source: str | None = None) -> str:
    """The property's question under the rules as text: `smt2` (the BMC question to `depth`) or `chc`."""
    ts = TransitionSystem(rules)
    if fmt == "smt2":
        if depth is None:
            raise ValueError("smt2 export needs a depth")
        return export_smt2(ts, prop, depth, source)
    return export_chc(ts, prop, source)


__all__ = [
    "FORMATS",
    "Format",
    "Horn",
    "bmc_question",
    "chc_system",
    "export",
    "export_chc",
    "export_smt2",
    "rules_words",
]
