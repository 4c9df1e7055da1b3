"""`duelcheck mutate` on 1 local Dask worker and on 2, by hand (never run by the tests).

    python benchmarks/bench_mutate.py [--only ACTION] [--timeout S] [--depth N]

The mutants of one action (default `normal_draw`: 22 scored, with those of the helpers it calls), each run
into a new store that already holds the
preparation (the invariants proved for the rules as written, the baseline's witnesses and plays, the deck-out
play), made once before both runs: the figures are the mutants' own, from the first task submitted to the last
result, the local cluster's start included. Prints the seconds of each run, the speed-up of 2 workers over 1,
and each mutant's status, which must be the same in both runs unless a mutant met the time limit in one of them
(then it is unknown there: the seconds a search takes change with the machine and its load).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from duelcheck.engines import mutate as mu
from duelcheck.rules import Rules


def timed(mutants: list[mu.Mutant], prepared: dict, depth: int, options: dict, workers: int) -> tuple[float, dict]:
    """One run into a new store holding the preparation: (seconds, each mutant's status)."""
    with tempfile.TemporaryDirectory(prefix="bench-mutate-") as folder:
        store = Path(folder) / "mutate.sqlite"
        db = mu.Store(store)
        version = mu.model_version()
        db.put_prepared(version, mu.preparation_settings(Rules(), depth, options), prepared)
        db.close()
        t0 = time.perf_counter()
        outcome = mu.run(mutants, store, depth=depth, options=options, workers=workers)
        seconds = time.perf_counter() - t0
        if outcome.interrupted or len(outcome.rows) != len(mutants):
            raise SystemExit("the run did not finish every mutant")
        return seconds, {m: row.status for m, row in outcome.rows.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="normal_draw", help="the action whose mutants run (default normal_draw)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per mutant (default 120)")
    parser.add_argument("--depth", type=int, default=mu.DEFAULT_DEPTH, help="the kill stage's bound (default 12)")
    args = parser.parse_args()
    mutants, _ = mu.select_mutants(only=args.only)
    with tempfile.TemporaryDirectory(prefix="bench-mutate-cache-") as cache:
        options = {"prove": True, "timeout": args.timeout, "cache": cache}
        t0 = time.perf_counter()
        prepared = mu.prepare(Rules().model_dump(), args.depth, options)
        prepared.pop("model_version")
        print(f"{len(mutants)} mutants of {args.only}, depth {args.depth}, {args.timeout:g} s each at most")
        print(f"preparation (once, in this process): {time.perf_counter() - t0:6.1f} s")
        one, one_status = timed(mutants, prepared, args.depth, options, 1)
        print(f"1 worker : {one:6.1f} s")
        two, two_status = timed(mutants, prepared, args.depth, options, 2)
        print(f"2 workers: {two:6.1f} s")
    print(f"speed-up of 2 workers over 1: {one / two:.2f}")
    for m in sorted(one_status):
        same = "" if one_status[m] == two_status[m] else "   (differs: a time limit met in one run)"
        print(f"  {m}: {one_status[m]} / {two_status[m]}{same}")


if __name__ == "__main__":
    main()
