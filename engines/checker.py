"""The checker: runs the engines over the selected properties, certifies every trace, writes them.

1. Invariants are proved for all depths by induction (engines/kind.py); proofs are cached per rule
   set, property suite and model version (engines/cache.py), so a run that selects a few properties
   does not prove the suite again.
2. Every invariant not proved, and every witness, is searched by bounded model checking from the
   initial state, one depth at a time up to the bound (engines/bmc.py): a trace found is of minimal
   length, proved so by the solver; a goal not reached was refuted at every depth up to the bound.
   First, in the search's process, a witness is asked of induction the other way round over the
   proof's first layer: if one step proves its negation for all depths, it is `unreachable` at once.
3. A witness not reached within the bound is asked again, with every proved invariant and k-induction:
   when its negation is proved for all depths, the witness is `unreachable` under these rules.
4. A witness neither reached nor proved unreachable (the deck-out loss needs most of a deck drawn)
   is found by seeded simulation, and a play found is shortened by delta debugging
   (engines/shrink.py); it is `found`, marked as not proved minimal. The simulation runs in the
   search's processes as soon as the witness's search ends (the walks do not depend on what they look
   for, so the play is the same as if it ran last). A witness its simulation reached is not asked
   of step 3 (a play exists: no sound proof says otherwise); one it did not reach is, and the play is
   used only if step 3 does not prove the witness unreachable.
No engine is given a hint about any property: every engine works on the properties' own predicates.
Every trace is replayed through the concrete interpreter; one that does not replay is an internal
error, never a verdict. A solver that gives no answer makes the verdict `unknown`, never `holds` or
`not-found`. No verdict or trace depends on the clock: the solvers have resource limits, the
simulation a fixed seed and number of walks; only a time limit the user sets can end a search
(the verdict is then `unknown`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from duelcheck.engines.base import Result
from duelcheck.engines.bmc import BMC, SideJob, replay_moves
from duelcheck.engines.kind import Induction
from duelcheck.engines.limits import Watchdog
from duelcheck.engines.sim import Simulator
from duelcheck.engines.smt import Stopped
from duelcheck.errors import InternalError
from duelcheck.model.system import TransitionSystem
from duelcheck.properties.catalog import Check, Property
from duelcheck.rules import Rules

# 24 steps cover three full turns and most of the fourth (the End Phase of turn 3 is 13 steps in, turn 4
# starts at 14). Under the official rules the deepest witnesses within it, the seed's five-link chain and
# the first discard to the hand limit (the end of turn 4), are at 20; rule sets with a draw on turn 1 put
# the chain at 21.
DEFAULT_DEPTH = 24

Progress = Callable[[str], None]


def default_workers() -> int:
    """Processes for the bounded search and the slower proofs: one per core."""
    import os

    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


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
        if "interrupted" in verdicts:
            return 130
        if verdicts & {"violated", "not-found"} or any(r.lost for r in self.results):
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
        solver: str = "auto",
        rlimit: int | None = None,
        simulate: bool = True,
        prove: bool = True,
        cache: Path | None = None,
        deadline: float | None = None,
        workers: int | None = None,
        property_timeout: float | None = None,
        on_result: Callable[[Result], None] | None = None,
    ):
        self.rules = rules
        self.property_timeout = property_timeout
        self.ts = TransitionSystem(rules)
        self.depth = depth
        self.out = out
        self.progress = progress or (lambda msg: None)
        self.solver = solver
        self.rlimit = rlimit
        self.simulate = simulate
        self.prove = prove
        self.cache = cache
        self.deadline = deadline
        self.workers = workers or default_workers()
        self._sim_steps = 0
        self._sims: dict[tuple[str, str], Any] = {}  # each witness's simulation (simulate_one), by (property, case)
        self._suite: list[Property] = []  # the whole property suite, the induction's assumptions
        # the invariants of the suite the induction proved together: the inductive invariant every proof of the
        # run leans on, which a certificate must state whole (a property checked alone is proved with them)
        self.suite_proved: set[str] = set()
        self._open: set[tuple[str, str]] = set()  # results still being worked on by a later stage
        self._final: dict[tuple[str, str], Result] = {}  # the results settled, kept through a Ctrl-C
        self.interrupted = False
        self.on_result = on_result  # hears each result once it is final (certified, its trace written)
        self._by_prop: dict[str, Property] = {}
        self._depths: dict[int, tuple[int, int, int]] = {}  # the bounded search: group -> (depth, bound, open)

    def run(self, props: list[Property]) -> Report:
        """Every verdict; on Ctrl-C the verdicts settled so far, the rest `interrupted` (exit 130)."""
        t0 = time.perf_counter()
        if any(p.counters for p in props):  # a user's counts: history fields beside the suite's
            from duelcheck.properties.history import system_for

            self.ts = system_for(self.rules, props)
        results: dict[tuple[str, str], Result] = {}
        self._open = {(p.name, c.label) for p in props for c in p.checks}
        self._final = {}
        self._by_prop = {p.name: p for p in props}
        dog = Watchdog(self.deadline)
        try:
            with dog:
                self._run(props, results)
        except KeyboardInterrupt:  # raised by the engines' checks of the recorded Ctrl-C
            self.interrupted = True
        ordered = []
        for p in props:
            for c in p.checks:
                r = results.get((p.name, c.label)) or self._final.get((p.name, c.label))
                if r is None or (p.name, c.label) in self._open:
                    seconds = time.perf_counter() - t0
                    r = Result(
                        p.name, c.label, p.kind, "interrupted", self.depth, seconds, "", note="interrupted (Ctrl-C)"
                    )
                    if not self.interrupted:  # pragma: no cover - every stage settles what it is given
                        raise InternalError(f"no verdict for {r.label}")
                ordered.append(r)
        return Report(self.rules, self.depth, ordered, time.perf_counter() - t0)

    def _settle(self, r: Result) -> None:
        """A result is final: its trace is certified (replayed) and written, and the listener hears it."""
        if (r.prop, r.case) not in self._open:
            return
        if r.trace is not None:
            self._certify(self._by_prop[r.prop], r)
            self._write_one(r)
        if r.verdict == "unreachable":
            vanishes = self._by_prop[r.prop].vanishes
            if vanishes is None or not vanishes(self.rules, r.case):  # a behaviour the rulebook requires is gone
                r.lost = True
                r.note = "a lost witness: " + r.note + " (and nothing in these rules is meant to remove it)"
        self._open.discard((r.prop, r.case))
        self._final[(r.prop, r.case)] = r
        if self.on_result is not None:
            self.on_result(r)

    def _bmc_result(self, r: Result, induction: Induction, engine: str) -> None:
        """A result of the bounded search, with its note; settled at once unless a later stage may change it."""
        r.engine = f"bmc/{engine}"
        if r.verdict == "unreachable":  # settled before its search, by induction over the first layer
            r.engine = "k-induction"
            r.note = "its negation is proved for all depths: no play under these rules reaches it"
        if r.verdict in ("found", "violated"):
            steps = "step" if r.length == 1 else "steps"
            r.note = f"minimal: no play of fewer than {r.length} {steps} (refuted at every shorter depth)"
        if r.verdict == "not-found":
            r.note = f"none up to {self.depth} steps (refuted at every depth)"
        if r.kind == "always" and r.verdict == "holds":
            r.note = f"no violation up to {self.depth} steps; not proved for all depths"
            if p_note := induction.notes.get(r.prop):
                r.note += f" ({p_note})"
        if not (r.kind == "sometimes" and r.verdict in ("not-found", "unknown")):
            self._settle(r)

    def _limit(self) -> float | None:
        """The deadline of one property's search: the run's, or the property's own, whichever is first."""
        if self.property_timeout is None:
            return self.deadline
        mine = time.monotonic() + self.property_timeout
        return mine if self.deadline is None else min(mine, self.deadline)

    def _depth(self, kind: str, data: tuple[int, ...]) -> None:
        """The bounded search's progress, told when a search goes one step deeper than any running one: the
        depth each running process is at."""
        if kind == "done":
            self._depths.pop(data[0], None)
            return
        group, d, bound, _ = data
        deepest = max((v[0] for v in self._depths.values()), default=-1)
        self._depths[group] = (d, bound, 0)
        if d > deepest:
            depths = ", ".join(str(v[0]) for _, v in sorted(self._depths.items()))
            self.progress(f"bounded search at depth {depths} of {bound}")

    def _run(self, props: list[Property], results: dict[tuple[str, str], Result]) -> None:
        induction = Induction(self.ts, cache=self.cache, deadline=self.deadline, workers=self.workers)
        invariants = [p for p in props if p.kind == "always"]
        lemmas = []
        side: list[SideJob] = []
        from duelcheck.properties import PROPERTIES

        self._suite = list({p.name: p for p in (*PROPERTIES, *props)}.values())
        if self.prove:
            # Induction assumes every invariant of the suite, so it runs over the whole suite. Its first
            # layer (what the incremental solver proves alone) is asserted in every state of the bounded
            # search (sound, and it prunes); the second layer, the slower proofs, runs in one of the search's
            # processes meanwhile. A run of witnesses alone uses proofs only when they are cached.
            if invariants:
                self.progress("proving invariants by induction")
                try:
                    induction.prove_quick(self._suite)
                except Stopped:  # the run's time limit: nothing proved, nothing cached
                    induction.quick, induction.open, induction.proved = set(), set(), set()
                    for p in invariants:
                        induction.notes[p.name] = "proof stopped by the run's time limit (--timeout)"
                if induction.open:
                    side.append(_SlowProof(induction, lambda: self._proved(invariants, induction, results)))
            else:
                induction.cached_suite(self._suite)
            lemmas = induction.lemmas(induction.quick, self._suite)
            self._proved(invariants, induction, results)
        later = set(induction.open)  # settled by the slow proof first; searched only if it does not prove them
        rest = [p for p in props if p.name not in induction.proved and p.name not in later]
        # a witness is first asked whether induction over the first layer rules it out (a fraction of a second;
        # it spares refuting every depth to the bound); the full question waits for the second layer, below
        first = (lambda g: induction.unreachable_at_once(g.check)) if self.prove else None
        bmc = BMC(
            self.ts,
            self.solver,
            self.rlimit,
            lemmas,
            self.deadline,
            self.workers,
            self.property_timeout,
            unreachable=first,
        )
        self.progress(f"bounded search of {sum(len(p.checks) for p in rest)} goal(s) to depth {self.depth}")
        by_prop = {p.name: p for p in props}

        def hear(r: Result) -> None:
            self._bmc_result(r, induction, bmc.used)
            if self.simulate and r.kind == "sometimes" and r.verdict in ("not-found", "unknown"):
                # beyond the bound: its simulation takes the next free process at once, while other searches
                # run (used only if the witness is not proved unreachable below; if it is, no play exists)
                check = next(c for c in by_prop[r.prop].checks if c.label == r.case)
                self.progress(f"searching {r.label} beyond the bound by simulation")
                side.append(_Simulation(self, check, (r.prop, r.case)))

        for r in bmc.run(rest, self.depth, self._depth, hear, side):
            results[(r.prop, r.case)] = r
        unproved = [p for p in invariants if p.name in later and p.name not in induction.proved]
        for r in bmc.run(unproved, self.depth, self._depth, hear):
            results[(r.prop, r.case)] = r
        self.suite_proved = set(induction.proved)
        missing = [r for r in results.values() if r.kind == "sometimes" and r.verdict in ("not-found", "unknown")]
        for r in results.values():
            if r not in missing:
                self._settle(r)
        # a witness its simulation has reached is reachable: no proof could show otherwise, so none is asked
        # (the proof is sound, so the verdict does not depend on whether the simulation ran first)
        played = [r for r in missing if self._sims.get((r.prop, r.case), (None,))[0] is not None]
        if self.prove and len(played) < len(missing):
            self._unreachable(induction, [r for r in missing if r not in played], by_prop)
        for r in missing:
            if r.verdict == "unreachable" or not self.simulate:
                self._settle(r)
        missing = [r for r in missing if r.verdict != "unreachable"]
        if missing and self.simulate:
            self._simulate(missing, by_prop)
            for r in missing:
                self._settle(r)

    def _proved(self, invariants: list[Property], induction: Induction, results: dict[tuple[str, str], Result]) -> None:
        """Settle the invariants induction has proved so far (each once)."""
        for p in invariants:
            if p.name not in induction.proved:
                continue
            for c in p.checks:
                if (p.name, c.label) in results:
                    continue
                seconds = induction.seconds.get(p.name, 0.0)
                r = Result(p.name, c.label, p.kind, "holds", self.depth, seconds, "k-induction", proved=True)
                r.note = "proved for all depths" + (" (cached proof)" if induction.from_cache else "")
                results[(p.name, c.label)] = r
                self._settle(r)

    # -- witnesses beyond the bound -----------------------------------------------------------
    def _unreachable(self, induction: Induction, missing: list[Result], by_prop: dict[str, Property]) -> None:
        self.progress(f"proving {len(missing)} witness(es) unreachable")
        for r in missing:
            check = next(c for c in by_prop[r.prop].checks if c.label == r.case)
            t0 = time.perf_counter()
            induction.deadline = self._limit()
            try:
                unreachable = induction.prove_negation(check, self._suite)
            except Stopped:
                r.note += "; the unreachability proof was stopped by a time limit"
                unreachable = False
            finally:
                induction.deadline = self.deadline
            if unreachable:
                r.verdict, r.engine, r.proved, r.trace = "unreachable", "k-induction", True, None
                r.note = "its negation is proved for all depths: no play under these rules reaches it"
            r.seconds += time.perf_counter() - t0

    def simulate_one(self, check: Check) -> tuple[int | None, list[tuple[str, dict[str, int]]], int, float]:
        """Seeded simulation of one witness, its play shortened by delta debugging: the length found (None
        when no walk reached it), the shortened play's moves, the steps the walks may take, and the seconds.
        The walks do not depend on what is looked for, so a witness searched alone gets the play it would
        get searched with others."""
        from duelcheck.engines.shrink import shrink

        t0 = time.perf_counter()
        try:
            sim = Simulator(self.ts)
            trace = sim.search([check], deadline=self._limit()).get(0)
            if trace is None:
                return None, [], sim.max_steps, time.perf_counter() - t0
            short = shrink(self.ts, check, trace)
        except (KeyboardInterrupt, InternalError):
            raise
        except Exception as exc:  # a property or rule that fails to evaluate: never "not found"
            raise InternalError(f"the simulation failed: {type(exc).__name__}: {exc}") from exc
        moves = [(st.action, dict(st.params)) for st in short.steps[1:]]
        return len(trace), moves, sim.max_steps, time.perf_counter() - t0

    def _simulate(self, missing: list[Result], by_prop: dict[str, Property]) -> None:
        """The witnesses still missing after the proofs, from their simulations (run in the search's processes
        as each search ended, or here)."""
        for r in missing:
            key = (r.prop, r.case)
            if key not in self._sims:
                self.progress(f"searching {r.label} beyond the bound by simulation")
                self._sims[key] = self.simulate_one(next(c for c in by_prop[r.prop].checks if c.label == r.case))
            length, moves, self._sim_steps, seconds = self._sims[key]
            r.seconds += seconds
            if length is None:
                r.note += f"; not found by seeded simulation either ({self._sim_steps} steps)"
                continue
            short = replay_moves(self.ts, None, moves)
            why = "beyond the bound" if r.verdict == "not-found" else "the solver gave no answer"
            r.verdict, r.trace, r.engine, r.minimal = "found", short, "sim+shrink", False
            r.note = (
                f"{why}: found by seeded simulation ({length} steps) and shortened to {len(short)} "
                "by delta debugging; not proved minimal"
            )

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
        """Write every trace not written yet (each is written as soon as its result is settled)."""
        for r in report.results:
            if r.trace is not None and r.trace_path is None:
                self._write_one(r)

    def _write_one(self, r: Result) -> None:
        from duelcheck.counterexamples.itf import write_trace

        if self.out is None or r.trace is None:
            return
        path = self.out / f"{r.label}.itf.json"  # the label, spelled as everywhere: name[case]
        meta = {
            "property": r.prop,
            "case": r.case or None,
            "label": r.label,
            "kind": r.kind,
            "verdict": r.verdict,
            "engine": r.engine,
            "minimal": r.minimal,
            "description": f"{r.kind} {r.label}: {r.verdict}",
        }
        write_trace(path, self.ts, r.trace, meta)
        r.trace_path = str(path)


class _Simulation(SideJob):
    """The seeded simulation of one witness its bounded search did not reach, in one of the search's
    processes; its play comes back as moves, replayed here through the concrete interpreter."""

    def __init__(self, checker: Checker, check: Check, key: tuple[str, str]):
        self.checker = checker
        self.check = check
        self.key = key  # (property, case)

    def run(self) -> Any:
        return self.checker.simulate_one(self.check)

    def done(self, value: Any) -> None:
        self.checker._sims[self.key] = value


class _SlowProof(SideJob):
    """The second layer of the induction proof, run in one of the bounded search's processes."""

    def __init__(self, induction: Induction, then: Callable[[], None]):
        self.induction = induction
        self.then = then

    def run(self) -> Any:
        return self.induction.prove_slow()

    def done(self, value: Any) -> None:
        self.induction.finish(value)
        self.then()


def interrupted_report(rules: Rules, props: list[Property], depth: int, seconds: float) -> Report:
    """The report of a run stopped by Ctrl-C before any verdict was settled."""
    results = [
        Result(p.name, c.label, p.kind, "interrupted", depth, seconds, "", note="interrupted (Ctrl-C)")
        for p in props
        for c in p.checks
    ]
    return Report(rules, depth, results, seconds)


def check_rules(rules: Rules, props: list[Property], depth: int = DEFAULT_DEPTH, out: Path | None = None) -> Report:
    """Library entry point: check properties under rules; raises InternalError on an uncertified trace."""
    checker = Checker(rules, depth, out)
    report = checker.run(props)
    checker.write(report)
    return report


__all__ = ["DEFAULT_DEPTH", "Checker", "InternalError", "Report", "check_rules", "interrupted_report"]
