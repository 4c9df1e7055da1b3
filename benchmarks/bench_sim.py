"""Simulation's random player, by hand (never run by the tests).

    python benchmarks/bench_sim.py [--steps N]

Times, under the official rules: N steps of one lively player (engines/sim.py, calm 0.2: it picks among every
enabled action instance far more often than it passes), and `duelcheck mutate`'s far walks (three seeded random
plays to the end of the duel). Each is timed twice: as the simulator runs now (the guards of every instance run,
the state made only for the one chosen; an action refused before it reads a parameter skipped whole) and the way it
ran before (every instance's successor state made, every candidate tried). Both ways must make the same plays;
the figures change with the machine and its load.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Iterator
from typing import Any

from duelcheck.engines import mutate
from duelcheck.engines.sim import Simulator
from duelcheck.model.state import State
from duelcheck.model.system import Step, TransitionSystem
from duelcheck.rules import Rules


def every_successor(ts: TransitionSystem, s: State) -> Iterator[Step]:
    """The enumeration as it was: every candidate of every action applied, its successor state made."""
    for act in ts.actions:
        for params in act.candidates(s):
            out = ts.apply(s, act.name, params)
            if out.ok and out.state is not None:
                yield Step(act.name, dict(params), out.state)


def choose_before(sim: Simulator, s: State, rng: random.Random) -> Step | None:
    """The random player as it was: every enabled instance's successor made, then one chosen."""
    from duelcheck.engines.sim import CALM, TO_BATTLE, WEIGHTS

    if rng.random() < sim.calm:
        for name, params in CALM:
            out = sim.ts.apply(s, name, params)
            if out.ok and out.state is not None:
                return Step(name, dict(params), out.state)
    options = list(every_successor(sim.ts, s))
    if not options:
        return None
    weights = [WEIGHTS.get(o.action, 1.0) * (3.0 if o.params.get("choice") == TO_BATTLE else 1.0) for o in options]
    return rng.choices(options, weights)[0]


def lively(steps: int, before: bool) -> tuple[float, list[Any]]:
    ts = TransitionSystem(Rules())
    sim = Simulator(ts, seed=1, calm=0.2)
    rng = random.Random(3)
    s, play = ts.init(), []
    t0 = time.perf_counter()
    for _ in range(steps):
        step = choose_before(sim, s, rng) if before else sim.choose(s, rng)
        if step is None:
            break
        play.append((step.action, step.params))
        s = step.state
    return time.perf_counter() - t0, play


def far(before: bool) -> tuple[float, dict[str, Any]]:
    saved = Simulator.choose
    if before:
        Simulator.choose = choose_before  # type: ignore[assignment]
    try:
        t0 = time.perf_counter()
        walks = mutate.far_walks(Rules())
        return time.perf_counter() - t0, walks
    finally:
        Simulator.choose = saved  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=150, help="steps of the lively player (default 150)")
    args = parser.parse_args()
    now, play_now = lively(args.steps, before=False)
    then, play_then = lively(args.steps, before=True)
    if play_now != play_then:
        raise SystemExit("the lively player's plays differ")
    print(f"{len(play_now)} lively steps: {then:6.1f} s before, {now:6.1f} s now ({then / now:.1f}x)")
    now, walks_now = far(before=False)
    then, walks_then = far(before=True)
    if walks_now != walks_then:
        raise SystemExit("the far walks differ")
    lengths = ", ".join(str(len(w)) for w in walks_now.values())
    print(f"far walks ({lengths} steps): {then:6.1f} s before, {now:6.1f} s now ({then / now:.1f}x)")


if __name__ == "__main__":
    main()
