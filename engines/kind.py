"""Proofs for all depths by induction (1-induction over the state invariants, proved together).

The state invariants are assumed in a state s; every invariant is then asked of any successor of s
(step invariants of the transition s -> s'). An invariant that fails (or times out) is dropped from
the assumptions and the rest asked again, until a fixpoint: what remains is mutually inductive.
With the base case (the initial state satisfies every state invariant, and every first step
satisfies the step invariants), the survivors hold in every reachable state, at every depth. Each
proof is then re-checked by a fresh solver from the final assumption set.
"""

from __future__ import annotations

import time
from typing import Any

import z3

from duelcheck.model.system import TransitionSystem
from duelcheck.properties.catalog import ActionView, Check, Property


class Induction:
    name = "k-induction"

    def __init__(self, system: TransitionSystem, timeout_ms: int = 10000):
        self.ts = system
        self.timeout_ms = timeout_ms
        self.notes: dict[str, str] = {}

    def _value(self, check: Check, pre: Any, act: Any, post: Any) -> Any:
        v = check.eval(pre, act, post) if check.on == "step" else check.eval(None, None, post)
        return z3.BoolVal(v) if isinstance(v, bool) else v

    def _ask(self, constraints: list[Any]) -> Any:
        solver = z3.SolverFor("QF_BV")
        solver.set("timeout", self.timeout_ms)
        solver.add(*constraints)
        return solver.check()

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
        base_ok: set[str] = set()
        for p in invariants:
            ok = True
            for c in p.checks:
                if c.on == "state" and not c.eval(None, None, init):
                    ok = False
                if c.on == "step":
                    bad = z3.Not(self._value(c, first.pre, first_act, first.post))
                    if self._ask([ts.sym_init(first.pre), first.relation, bad]) != z3.unsat:
                        ok = False
            if ok:
                base_ok.add(p.name)
            else:
                self.notes[p.name] = "fails in the initial state or the first step"

        active = {p.name for p in invariants if p.name in base_ok}
        while True:
            assume = [
                self._value(c, None, None, pre)
                for p in invariants
                if p.name in active
                for c in p.checks
                if c.on == "state"
            ]
            failed = set()
            for p in invariants:
                if p.name not in active:
                    continue
                bad = z3.Or(*(z3.Not(self._value(c, pre, act, st.post)) for c in p.checks))
                answer = self._ask([st.relation, *assume, bad])
                if answer != z3.unsat:
                    failed.add(p.name)
                    self.notes[p.name] = "not inductive" if answer == z3.sat else "induction step timed out"
            if not failed:
                break
            active -= failed
        return active, time.perf_counter() - t0

    def lemmas(self, proved: set[str], props: list[Property]) -> list[Check]:
        """The state checks of proved invariants: true in every reachable state, so usable as lemmas."""
        return [c for p in props if p.name in proved for c in p.checks if c.on == "state"]
