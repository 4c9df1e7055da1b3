"""`duelcheck sweep` on 1 worker and on 2, by hand (never run by the tests).

    python benchmarks/bench_sweep.py [--depth N]

The grid of tests/test_sweep.py (4 rule sets x 3 properties = 12 cells, no proofs, no simulation), each time
into a new, empty store: prints the seconds of each run, from the call to the last result (the local cluster's
start included) and from the first task submitted, and the speed-up of 2 workers over 1. The verdicts are the
same on every run; the seconds change with the machine and its load.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from duelcheck import sweep

GRID = """\
properties = ["first-turn-no-draw", "main2-only-after-battle", "hand-limit-at-turn-end"]
depth = {depth}
[grid]
preset = ["official", "goat"]
main_phase_2_requires_battle_phase = [true, false]
[check]
prove = false
simulate = false
"""


def timed(grid: Path, workers: int) -> tuple[float, float, list[str]]:
    """One sweep into a new store: (seconds in all, seconds from the first task submitted, the cells' texts)."""
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as folder:
        submitted: list[float] = []
        t0 = time.perf_counter()
        outcome = sweep.run(
            grid,
            Path(folder) / "sweep.sqlite",
            workers=workers,
            on_start=lambda to_run, total: submitted.append(time.perf_counter()),
        )
        t1 = time.perf_counter()
        if outcome.exit_code != 0 or len(outcome.ran) != len(outcome.grid.cells):
            raise SystemExit(f"the sweep did not run every cell (exit code {outcome.exit_code})")
        return t1 - t0, t1 - submitted[0], [row for line in sweep.matrix(outcome)[1:] for row in line[1:]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--depth", type=int, default=4, help="the bound of every cell (default 4, as the tests)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-sweep-grid-") as folder:
        grid = Path(folder) / "grid.toml"
        grid.write_text(GRID.format(depth=args.depth), encoding="utf-8")
        cells = len(sweep.load_grid(grid).cells)
        print(f"grid: {cells} cells, bound {args.depth}, no proofs, no simulation")
        one_all, one_cells, one_verdicts = timed(grid, 1)
        print(f"1 worker : {one_all:6.1f} s in all, {one_cells:6.1f} s from the first task")
        two_all, two_cells, two_verdicts = timed(grid, 2)
        print(f"2 workers: {two_all:6.1f} s in all, {two_cells:6.1f} s from the first task")
        if one_verdicts != two_verdicts:
            raise SystemExit("the verdicts differ between 1 and 2 workers")
        print(f"speed-up : {one_all / two_all:.2f}x in all, {one_cells / two_cells:.2f}x from the first task")


if __name__ == "__main__":
    main()
