"""Timing of the default check, by hand: python benchmarks/bench_check.py [depth].

Prints the seconds spent per engine; figures for the README come from this script.
"""

from __future__ import annotations

import sys
import time

from duelcheck.engines.bmc import BMC, INCREMENTAL_MAX_DEPTH
from duelcheck.engines.checker import DEFAULT_DEPTH, Checker
from duelcheck.engines.kind import Induction
from duelcheck.model.system import TransitionSystem
from duelcheck.properties import PROPERTIES
from duelcheck.rules import Rules


def main() -> None:
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DEPTH
    ts = TransitionSystem(Rules())
    t0 = time.perf_counter()
    ts.sym_step(ts.sym_state("@a"), "@b")
    print(f"build the symbolic step once: {time.perf_counter() - t0:.2f} s")
    t0 = time.perf_counter()
    for k in range(20):
        ts.sym_step(ts.sym_state(f"@c{k}"), f"@d{k}")
    print(f"copy it by substitution: {(time.perf_counter() - t0) / 20 * 1000:.1f} ms per step")
    proved, seconds = Induction(ts).prove(PROPERTIES)
    print(f"induction: {len(proved)} invariants proved in {seconds:.1f} s")
    bmc = BMC(ts)
    t0 = time.perf_counter()
    bmc.run([p for p in PROPERTIES if p.kind == "always" and p.name not in proved], depth)
    print(f"bmc to depth {depth}: {time.perf_counter() - t0:.1f} s, {bmc.queries} questions")
    plans(proved)
    t0 = time.perf_counter()
    report = Checker(Rules(), depth).run(PROPERTIES)
    print(f"whole check: {time.perf_counter() - t0:.1f} s, exit code {report.exit_code}")


def plans(proved: set[str]) -> None:
    """Witnesses along their plans: one incremental solver per leg against a fresh solver per question."""
    by_name = {p.name: p for p in PROPERTIES}
    for label, limit in (("incremental", INCREMENTAL_MAX_DEPTH), ("fresh", -1)):
        checker = Checker(Rules(), simulate=False)
        checker.bmc.incremental_max_depth = limit
        checker.bmc.lemmas = Induction(checker.ts).lemmas(proved, PROPERTIES)
        for name in ("reach-turn-3", "reach-replay", "reach-seed-chain-example"):
            t0 = time.perf_counter()
            trace = checker._along_plan(by_name[name].checks[0])
            length = len(trace) if trace else None
            print(f"{name} along its plan, {label} solver: {time.perf_counter() - t0:.1f} s, {length} steps")


if __name__ == "__main__":
    main()
