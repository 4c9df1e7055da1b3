"""`duelcheck difftest` against ygopro-core on 1 process and on 2, by hand (never run by the tests).

    DUELCHECK_OCGCORE=/path/to/libocgcore.so python benchmarks/bench_difftest.py [--plays N] [--turns T]

Runs the command line as a user does (`duelcheck difftest --plays N --turns T --seed 1 --format json`) with
`--workers 1` and `--workers 2`, prints the seconds of each run and the speed-up, and checks that the two
reports are the same (the plays depend on the seed alone). The seconds change with the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time


def run(plays: int, turns: int, workers: int) -> tuple[float, str]:
    args = ["difftest", "--plays", str(plays), "--turns", str(turns), "--seed", "1", "--format", "json", "--quiet"]
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "duelcheck", *args, "--workers", str(workers)], capture_output=True, text=True
    )
    if done.returncode not in (0, 1):
        sys.exit(f"difftest failed (exit {done.returncode}): {done.stderr.strip()}")
    return time.monotonic() - started, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--plays", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=3)
    a = parser.parse_args()
    if not os.environ.get("DUELCHECK_OCGCORE"):
        sys.exit("set DUELCHECK_OCGCORE to a built ygopro-core library (docs/engines.md)")
    one, report_one = run(a.plays, a.turns, 1)
    two, report_two = run(a.plays, a.turns, 2)
    print(f"{a.plays} plays of up to {a.turns} turns: 1 process {one:.1f} s, 2 processes {two:.1f} s, {one / two:.2f}x")
    print("the same report" if report_one == report_two else "THE REPORTS DIFFER")


if __name__ == "__main__":
    main()
