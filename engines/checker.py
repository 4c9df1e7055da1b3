"""The checker: runs the engines over the selected properties, certifies every trace, writes them.

- Invariants and witnesses go to bounded model checking up to the bound (shortest traces).
- A witness not found within the bound is searched along its plan, when it has one: bounded model
  checking leg by leg, from one waypoint's concrete state to the next (each leg shortest).
- A witness still not found is searched by simulation (seeded random plays).
Every trace is replayed through the concrete interpreter; one that does not replay is an internal
error, never a verdict. A solver `unknown` is reported as unknown, never as holds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from duelcheck.engines.base import Result, Trace
from duelcheck.engines.bmc import BMC, Goal
from duelcheck.engines.kind import Induction
from duelcheck.engines.sim import Background
from duelcheck.errors import InternalError
from duelcheck.model.state import State
from duelcheck.model.system import Step, TransitionSystem
from duelcheck.properties.catalog import Check, Property
from duelcheck.rules import Rules

DEFAULT_DEPTH = 10
LEG_DEPTH = 9
SIM_BUDGET_S = 35.0

Progress = Callable[[str], None]


@dataclass
class Report:
    rules: Rules
    depth: int
    results: list[Result]
    seconds: float

    def to_json(self) -> dict[str, object]:
        return {
            "rules": self.rules.model_dump(),
            "depth": self.depth,
            "seconds": round(self.seconds, 3),
            "results": [r.to_json() for r in self.results],
        }

    @property
    def exit_code(self) -> int:
        verdicts = {r.verdict for r in self.results}
        if verdicts & {"violated", "not-found"}:
            return 1
        if "unknown" in verdicts:
            return 3
        return 0


class Checker:
    def __init__(
        self,
        rules: Rules,
        depth: int = DEFAULT_DEPTH,
        out: Path | None = None,
        progress: Progress | None = None,
        timeout_ms: int | None = None,
        simulate: bool = True,
        prove: bool = True,
    ):
        self.rules = rules
        self.ts = TransitionSystem(rules)
        self.depth = depth
        self.out = out
        self.progress = progress or (lambda msg: None)
        self.bmc = BMC(self.ts, timeout_ms)
        self.simulate = simulate
        self.prove = prove
        self._legs: dict[tuple[object, str], tuple[str, int, Trace | None, str]] = {}
        self._sim: Background | None = None
        self._sim_index: dict[tuple[str, str], int] = {}

    def run(self, props: list[Property]) -> Report:
        t0 = time.perf_counter()
        # Witnesses are also searched by simulation on the second core while the solver works; a
        # simulated play is used only for a witness that BMC (within the bound, or along its plan)
        # does not find.
        deep = [(p, c) for p in props if p.kind == "sometimes" for c in p.checks]
        self._sim = Background(self.ts, [c for _, c in deep], SIM_BUDGET_S) if self.simulate else None
        self._sim_index = {(p.name, c.label): i for i, (p, c) in enumerate(deep)}
        try:
            return self._run(props, t0)
        finally:
            if self._sim is not None:
                self._sim.cancel()  # a no-op once its result was taken; else frees the second core

    def _run(self, props: list[Property], t0: float) -> Report:
        proved: set[str] = set()
        results: list[Result] = []
        if self.prove:
            # Induction assumes every invariant of the suite, so it runs over the whole suite.
            from duelcheck.properties import PROPERTIES

            self.progress("proving invariants by induction")
            induction = Induction(self.ts, timeout_ms=3000)
            everything = list({p.name: p for p in (*PROPERTIES, *props)}.values())
            proved, seconds = induction.prove(everything)
            self.bmc.lemmas = induction.lemmas(proved, everything)
            for p in props:
                if p.name in proved:
                    for c in p.checks:
                        results.append(
                            Result(p.name, c.label, p.kind, "holds", self.depth, seconds, "k-induction", proved=True)
                        )
        rest = [p for p in props if p.name not in proved]
        self.progress(f"bounded model checking to depth {self.depth}")
        results += self.bmc.run(rest, self.depth, self.progress)
        by_prop = {p.name: p for p in props}
        for r in results:
            if r.verdict == "not-found":
                self._along_plan_result(by_prop[r.prop], r)
        self._simulate([r for r in results if r.verdict == "not-found"])
        for r in results:
            if r.trace is not None:
                self._certify(by_prop[r.prop], r)
        return Report(self.rules, self.depth, results, time.perf_counter() - t0)

    # -- deeper witnesses ---------------------------------------------------------------------
    def _along_plan_result(self, prop: Property, r: Result) -> None:
        check = next(c for c in prop.checks if c.label == r.case)
        if not check.plan:
            return
        t0 = time.perf_counter()
        self.progress(f"{r.label}: searching along its plan")
        trace = self._along_plan(check)
        if trace is not None:
            r.verdict, r.trace, r.engine = "found", trace, "bmc-plan"
            r.note = f"beyond the bound: found leg by leg along {len(check.plan)} waypoint(s), each leg shortest"
        r.seconds += time.perf_counter() - t0

    def _simulate(self, pending: list[Result]) -> None:
        if self._sim is None:
            return
        waiting = [r for r in pending if (r.prop, r.case) in self._sim_index]
        if not waiting:
            self._sim.cancel()
            return
        self.progress(f"searching {len(waiting)} witness(es) beyond the bound by simulation")
        t0 = time.perf_counter()
        found = self._sim.result([self._sim_index[(r.prop, r.case)] for r in waiting])
        seconds = time.perf_counter() - t0
        for r in waiting:
            r.seconds += seconds
            trace = found.get(self._sim_index[(r.prop, r.case)])
            if trace is not None:
                r.verdict, r.trace, r.engine = "found", trace, "sim"
                r.note = "beyond the bound: found by seeded simulation (not of minimal length)"
            else:
                r.note = f"not found within the bound {self.depth}, nor by simulation in {SIM_BUDGET_S:.0f} s"

    def _leg(self, start: State, goal: Check) -> tuple[str, int, Trace | None, str]:
        key = (tuple(start.v.items()), goal.label)
        if key not in self._legs:
            probe = Property("waypoint", "sometimes", "", "", (goal,))
            self._legs[key] = self.bmc.reach([Goal(probe, goal)], LEG_DEPTH, start)[0]
        return self._legs[key]

    def _along_plan(self, check: Check) -> Trace | None:
        state = self.ts.init()
        full = [Step("init", {}, state)]
        for waypoint in (*check.plan, check):
            status, _, leg, _ = self._leg(state, waypoint)
            if status != "reached" or leg is None:
                return None
            full.extend(leg.steps[1:])
            state = leg.steps[-1].state
        return Trace(full)

    # -- certificates -------------------------------------------------------------------------
    def _certify(self, prop: Property, r: Result) -> None:
        from duelcheck.counterexamples.certify import certify

        assert r.trace is not None
        check = next(c for c in prop.checks if c.label == r.case)
        expect = prop.kind == "sometimes"
        certify(self.ts, check, r.trace, expect)
        if prop.kind == "always" and prop.certify is not None and not prop.certify(self.ts, r.trace.steps[-1].state):
            r.verdict = "unknown"
            r.note = "the symbolic check flagged this state but the concrete interpreter finds it is not a violation"

    def write(self, report: Report) -> None:
        from duelcheck.counterexamples.itf import write_trace

        if self.out is None:
            return
        for r in report.results:
            if r.trace is None:
                continue
            name = f"{r.prop}.{r.case}" if r.case else r.prop
            path = self.out / f"{name}.itf.json"
            meta = {
                "property": r.prop,
                "case": r.case,
                "kind": r.kind,
                "verdict": r.verdict,
                "engine": r.engine,
                "description": f"{r.kind} {r.label}: {r.verdict}",
            }
            write_trace(path, self.ts, r.trace, meta)
            r.trace_path = str(path)


def check_rules(rules: Rules, props: list[Property], depth: int = DEFAULT_DEPTH, out: Path | None = None) -> Report:
    """Library entry point: check properties under rules; raises InternalError on an uncertified trace."""
    checker = Checker(rules, depth, out)
    report = checker.run(props)
    checker.write(report)
    return report


__all__ = ["DEFAULT_DEPTH", "Checker", "InternalError", "Report", "check_rules"]
