"""Proofs for all depths by induction (1-induction over the state invariants, proved together).

The state invariants are assumed in a state s; every invariant is then asked of any successor of s
(step invariants of the transition s -> s'). An invariant that fails (or times out) is dropped from
the assumptions and the rest asked again, until a fixpoint: what remains is mutually inductive.
With the base case (the initial state satisfies every state invariant, and every first step
satisfies the step invariants), the survivors hold in every reachable state, at every depth.

How the questions are asked (measured on this model): one question per conjunct of an invariant,
on one incremental solver holding the relation and the assumptions, answers the whole suite in a
few seconds, where one question per invariant (a disjunction of ~200 negated facts) timed out at
60 s. A conjunct the incremental solver cannot settle quickly is split by action and by the turn
player, each case asked of a fresh solver with the case as a hard constraint, so that preprocessing
removes every other action (a per-player count went from a time-out to 0.01 s). Every proof is then
re-checked by fresh solvers, case by case, from the final assumption set.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import z3

from duelcheck.model.system import SymStep, TransitionSystem
from duelcheck.properties.catalog import ActionView, Check, Property

QUICK_MS = 1000  # the incremental solver's time per conjunct before the conjunct is split into cases


def conjuncts(term: Any) -> list[Any]:
    """The top-level conjuncts of a predicate (a Python bool or a Z3 term)."""
    if isinstance(term, bool):
        return [] if term else [z3.BoolVal(False)]
    if z3.is_and(term):
        return [c for child in term.children() for c in conjuncts(child)]
    if z3.is_true(term):
        return []
    return [term]


class Induction:
    name = "k-induction"

    def __init__(self, system: TransitionSystem, timeout_ms: int = 10000):
        self.ts = system
        self.timeout_ms = timeout_ms
        self.notes: dict[str, str] = {}
        self.queries = 0

    # -- questions ----------------------------------------------------------------------------
    def _fresh(self, constraints: list[Any]) -> Any:
        solver = z3.SolverFor("QF_BV")
        solver.set("timeout", self.timeout_ms)
        solver.add(*constraints)
        self.queries += 1
        return solver.check()

    def _cases(self, st: SymStep) -> Iterator[list[Any]]:
        """The case split: each action, for each turn player."""
        for code in range(len(self.ts.actions)):
            for player in (0, 1):
                yield [st.act == code, st.pre.tp == player]

    def _by_cases(self, st: SymStep, assume: list[Any], bad: Any) -> Any:
        """unsat when no case has a successor violating the fact; otherwise sat or unknown."""
        for case in self._cases(st):
            answer = self._fresh([st.relation, *assume, *case, bad])
            if answer != z3.unsat:
                return answer
        return z3.unsat

    # -- the proof ----------------------------------------------------------------------------
    def _facts(self, check: Check, pre: Any, act: Any, post: Any) -> list[Any]:
        return conjuncts(check.eval(pre, act, post) if check.on == "step" else check.eval(None, None, post))

    def prove(self, props: list[Property]) -> tuple[set[str], float]:
        """The names of the invariants proved for all depths, and the seconds it took."""
        t0 = time.perf_counter()
        ts = self.ts
        invariants = [p for p in props if p.kind == "always"]
        pre = ts.sym_state("@i0")
        st = ts.sym_step(pre, "@i1")
        act = ActionView(st.act, st.params, symbolic=True)
        init = ts.init()

        # base case: the initial state and every first step
        first = ts.sym_step(ts.sym_state("@b0"), "@b1")
        first_act = ActionView(first.act, first.params, symbolic=True)
        active: set[str] = set()
        for p in invariants:
            ok = all(c.eval(None, None, init) for c in p.checks if c.on == "state")
            for c in p.checks:
                if ok and c.on == "step":
                    bad = z3.Not(z3.And(*self._facts(c, first.pre, first_act, first.post)))
                    ok = self._fresh([ts.sym_init(first.pre), first.relation, bad]) == z3.unsat
            if ok:
                active.add(p.name)
            else:
                self.notes[p.name] = "fails in the initial state or the first step"

        def assumptions() -> list[Any]:
            return [
                f
                for p in invariants
                if p.name in active
                for c in p.checks
                if c.on == "state"
                for f in self._facts(c, None, None, pre)
            ]

        def goals(p: Property) -> list[Any]:
            return [f for c in p.checks for f in self._facts(c, pre, act, st.post)]

        # inductive step, to a fixpoint
        while True:
            assume = assumptions()
            solver = z3.SolverFor("QF_BV")
            solver.set("timeout", QUICK_MS)
            solver.add(st.relation, *assume)
            failed = set()
            for p in invariants:
                if p.name not in active:
                    continue
                for fact in goals(p):
                    self.queries += 1
                    answer = solver.check(z3.Not(fact))
                    if answer == z3.unknown:
                        answer = self._by_cases(st, assume, z3.Not(fact))
                    if answer != z3.unsat:
                        failed.add(p.name)
                        self.notes[p.name] = "not inductive" if answer == z3.sat else "induction step timed out"
                        break
            if not failed:
                break
            active -= failed

        # certificate: fresh solvers, case by case, from the final assumption set
        if active:
            assume = assumptions()
            every = [f for p in invariants if p.name in active for f in goals(p)]
            if self._by_cases(st, assume, z3.Not(z3.And(*every))) != z3.unsat:
                for name in active:
                    self.notes[name] = "the proof did not re-check on fresh solvers"
                active = set()
        return active, time.perf_counter() - t0

    def lemmas(self, proved: set[str], props: list[Property]) -> list[Check]:
        """The state checks of proved invariants: true in every reachable state, so usable as lemmas."""
        return [c for p in props if p.name in proved and p.lemma for c in p.checks if c.on == "state"]
