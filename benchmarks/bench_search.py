"""The deep search, by hand (figures for the README come from here; never run by the tests).

    python benchmarks/bench_search.py scaling [witness ...]   seconds per witness against the bound
    python benchmarks/bench_search.py solvers [witness ...]   Yices against Z3 on the same questions
    python benchmarks/bench_search.py sessions                every witness: one session per property, or
                                                              the two shared sessions (one process each way)
    python benchmarks/bench_search.py proofs                  the induction proofs, cold, per invariant
    python benchmarks/bench_search.py check                   the default check, cold and cached

Every run is deterministic: the seconds change with the machine, the verdicts and traces do not.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

from duelcheck.engines.bmc import BMC, Goal
from duelcheck.engines.kind import Induction
from duelcheck.model.system import TransitionSystem
from duelcheck.properties import BY_NAME, PROPERTIES
from duelcheck.rules import Rules

DEFAULT_WITNESSES = ("reach-main2", "reach-turn-3", "reach-replay", "reach-seed-chain-example")


def goals(names: list[str]) -> list[Goal]:
    return [Goal(BY_NAME[n], c) for n in names for c in BY_NAME[n].checks]


def scaling(names: list[str]) -> None:
    ts = TransitionSystem(Rules())
    for name in names:
        for bound in (10, 20, 30, 40):
            bmc = BMC(ts, "auto")
            t0 = time.perf_counter()
            found = bmc.reach(goals([name]), bound)
            seconds = time.perf_counter() - t0
            status = ", ".join(f"{r.status} at {r.depth}" for r in found)
            print(f"{name:28s} bound {bound:2d}: {status:24s} {seconds:7.1f} s ({bmc.used})", flush=True)
            if all(r.status == "reached" for r in found):
                break  # a deeper bound asks the same questions: the search stops at the minimal depth


def solvers(names: list[str]) -> None:
    ts = TransitionSystem(Rules())
    for name in names:
        for solver in ("yices", "z3"):
            bmc = BMC(ts, solver)
            t0 = time.perf_counter()
            found = bmc.reach(goals([name]), 24)
            status = ", ".join(f"{r.status} at {r.depth}" for r in found)
            print(f"{name:28s} {solver:5s}: {status:24s} {time.perf_counter() - t0:7.1f} s", flush=True)


def sessions() -> None:
    """Every witness of the suite to the default bound, on one process: each property in a session of its own,
    then the two sessions the checker deals the properties to (the same minimal depths either way)."""
    ts = TransitionSystem(Rules())
    names = [p.name for p in PROPERTIES if p.kind == "sometimes"]
    t0 = time.perf_counter()
    alone = {}
    for name in names:
        t1 = time.perf_counter()
        alone[name] = [r.depth for r in BMC(ts, "auto").reach(goals([name]), 24)]
        print(f"  {name:44s} own session {time.perf_counter() - t1:6.1f} s  depths {alone[name]}", flush=True)
    separate = time.perf_counter() - t0
    t0 = time.perf_counter()
    bmc = BMC(ts, "auto")
    shared = [r.depth for r in bmc.reach(goals(names), 24)]
    together = time.perf_counter() - t0
    same = shared == [d for name in names for d in alone[name]]
    print(f"one session per property: {separate:.1f} s; two shared sessions: {together:.1f} s; same depths: {same}")


def proofs() -> None:
    ts = TransitionSystem(Rules())
    ind = Induction(ts)
    t0 = time.perf_counter()
    proved = ind.prove_suite(PROPERTIES)
    total = time.perf_counter() - t0
    invariants = [p.name for p in PROPERTIES if p.kind == "always"]
    print(f"induction: {len(proved)} of {len(invariants)} proved in {total:.1f} s ({ind.queries} questions)")
    for name, seconds in sorted(ind.seconds.items(), key=lambda kv: -kv[1])[:6]:
        print(f"  {name:36s} {seconds:6.1f} s")


def check() -> None:
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
        for label in ("cold cache", "cached proofs"):
            t0 = time.perf_counter()
            done = subprocess.run(
                ["duelcheck", "check", "--out", out], env={**os.environ, "DUELCHECK_CACHE": cache},
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()
            print(f"duelcheck check, {label}: exit {done.returncode}, {time.perf_counter() - t0:.1f} s: {last}")


def main() -> None:
    what = sys.argv[1] if len(sys.argv) > 1 else "check"
    names = sys.argv[2:] or list(DEFAULT_WITNESSES)
    runs = {"scaling": lambda: scaling(names), "solvers": lambda: solvers(names), "sessions": sessions}
    {**runs, "proofs": proofs, "check": check}[what]()


if __name__ == "__main__":
    main()
