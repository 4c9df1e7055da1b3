"""Explicit-state simulation: random plays through the concrete interpreter, for witnesses too deep
for bounded model checking (a deck running out takes hundreds of steps).

The policy is seeded and reproducible: with probability `calm` a player takes the first enabled
"calm" action (draw, resolve, discard, stop a replay, pass), otherwise any enabled action at random.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from duelcheck.engines.base import Trace
from duelcheck.model.cards import STOP, TO_BATTLE, TO_END
from duelcheck.model.state import State
from duelcheck.model.system import Step, TransitionSystem
from duelcheck.properties.catalog import ActionView, Check

CALM: tuple[tuple[str, dict[str, int]], ...] = (
    ("normal_draw", {}),
    ("resolve", {}),
    ("discard", {}),
    ("replay_select", {"tzone": STOP}),
    ("pass", {"choice": 0}),
    ("pass", {"choice": TO_END}),
    ("pass", {"choice": TO_BATTLE}),
)


class Simulator:
    name = "sim"

    def __init__(self, ts: TransitionSystem, seed: int = 0, walks: int = 8, length: int = 3000, calm: float = 0.97):
        self.ts = ts
        self.seed = seed
        self.walks = walks
        self.length = length
        self.calm = calm

    def choose(self, s: State, rng: random.Random) -> Step | None:
        ts = self.ts
        if rng.random() < self.calm:
            for name, params in CALM:
                out = ts.apply(s, name, params)
                if out.ok and out.state is not None:
                    return Step(name, dict(params), out.state)
        options = list(ts.successors(s))
        return rng.choice(options) if options else None

    def search(self, checks: list[Check], stop: Callable[[], bool] | None = None) -> dict[int, Trace]:
        """Walk until every check has a witness; returns the first trace found for each (by index)."""
        found: dict[int, Trace] = {}
        for w in range(self.walks):
            rng = random.Random(self.seed * 1000 + w)
            s = self.ts.init()
            steps = [Step("init", {}, s)]
            for _ in range(self.length):
                step = self.choose(s, rng)
                if step is None:
                    break
                steps.append(step)
                act = ActionView(step.action, step.params, symbolic=False)
                for i, c in enumerate(checks):
                    if i not in found and c.eval(s, act, step.state):
                        found[i] = Trace(list(steps))
                s = step.state
                if len(found) == len(checks) or s.g("winner") != 0:
                    break
            if len(found) == len(checks) or (stop and stop()):
                break
        return found
