"""Explicit-state simulation: random plays through the concrete interpreter, for witnesses too deep
for bounded model checking (a deck running out takes hundreds of steps).

The policy is seeded and reproducible: with probability `calm` a player takes the first enabled
"calm" action (draw, resolve, discard, stop a replay, both players pass, twice or once), otherwise any enabled
action at random. The number of walks and their length are fixed, not a time budget, so the same
rules give the same plays on any machine; only a time limit the user sets can cut the search short.
"""

from __future__ import annotations

import random
import time
from typing import Any

from duelcheck.engines.base import Trace
from duelcheck.engines.limits import check_interrupt
from duelcheck.errors import InternalError
from duelcheck.model.cards import NO_CHOICE, STOP, TO_BATTLE, TO_END
from duelcheck.model.state import State
from duelcheck.model.system import Step, TransitionSystem
from duelcheck.properties.catalog import ActionView, Check

CALM: tuple[tuple[str, dict[str, int]], ...] = (
    ("normal_draw", {}),
    ("resolve", {}),
    ("discard", {}),
    ("replay_select", {"tzone": STOP}),
    ("replace_destruction", {"pos": False}),
    ("end_steps", {"choice": NO_CHOICE}),  # two phase ends in one step: a calm turn in three steps
    ("end_steps", {"choice": TO_END}),
    ("end_steps", {"choice": TO_BATTLE}),
    ("end_step", {"choice": NO_CHOICE}),
    ("end_step", {"choice": TO_END}),
    ("end_step", {"choice": TO_BATTLE}),
    ("pass", {"choice": NO_CHOICE}),
    ("pass", {"choice": TO_END}),
    ("pass", {"choice": TO_BATTLE}),
)


CALM_LEVELS = (0.97, 0.2, 0.5, 0.1)
# A lively player: summons, attacks and activations are tried far more often than their share.
WEIGHTS = {"declare_attack": 40.0, "normal_summon": 2.0, "set_monster": 1.0, "replay_select": 5.0, "pass": 8.0}


class Simulator:
    name = "sim"

    def __init__(
        self,
        ts: TransitionSystem,
        seed: int = 0,
        walks: int = 40,
        length: int = 3000,
        calm: float = 0.97,
        max_steps: int = 12000,
    ):
        self.ts = ts
        self.seed = seed
        self.walks = walks
        self.max_steps = max_steps  # over all walks: the search's whole budget, counted in steps
        self.length = length
        self.calm = calm

    def choose(self, s: State, rng: random.Random) -> Step | None:
        ts = self.ts
        if rng.random() < self.calm:
            for name, params in CALM:
                out = ts.apply(s, name, params)
                if out.ok and out.state is not None:
                    return Step(name, dict(params), out.state)
        options = list(ts.enabled(s))  # the guards alone: only the chosen instance's state is made
        if not options:
            return None
        weights = [WEIGHTS.get(name, 1.0) * (3.0 if p.get("choice") == TO_BATTLE else 1.0) for name, p in options]
        name, params = rng.choices(options, weights)[0]
        out = ts.apply(s, name, params)
        if not out.ok or out.state is None:
            raise InternalError(f"{name} was enabled and then refused: {out.reason}")
        return Step(name, params, out.state)

    def search(self, checks: list[Check], deadline: float | None = None) -> dict[int, Trace]:
        """Walk until every check has a witness or the walks are done; the first trace found for each.
        `deadline` (time.monotonic) is the user's time limit, if any."""
        found: dict[int, Trace] = {}
        taken = 0
        for w in range(self.walks):
            if taken >= self.max_steps:
                break
            if deadline is not None and time.monotonic() > deadline:
                break
            rng = random.Random(self.seed * 1000 + w)
            self.calm = CALM_LEVELS[w % len(CALM_LEVELS)]
            s = self.ts.init()
            steps = [Step("init", {}, s)]
            for _ in range(min(self.length, self.max_steps - taken)):
                check_interrupt()
                taken += 1
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
                if deadline is not None and time.monotonic() > deadline:
                    break
            if len(found) == len(checks):
                break
        return found


Play = list[tuple[str, dict[str, int]]]


def replay_prefix(ts: TransitionSystem, moves: Play) -> list[Step]:
    """A play replayed from the initial state up to the first step `ts` refuses: its steps, from "init"."""
    state = ts.init()
    steps = [Step("init", {}, state)]
    for name, params in moves:
        out = ts.apply(state, name, params)
        if not out.ok or out.state is None:
            break
        state = out.state
        steps.append(Step(name, dict(params), state))
    return steps


def play_states(
    ts: TransitionSystem, plays: dict[str, Play], walks: int = 0, length: int = 300, seed: int = 7
) -> tuple[list[State], list[tuple[str, list[Step]]]]:
    """Starting points for a search beyond the bound: every state of the given plays (each replayed up to the
    first step the rules refuse), then of `walks` seeded random plays of `length` steps by the lively players
    above, each state once, in a fixed order; with the play that reaches it (label, steps from the start)."""
    starts: list[State] = []
    how: list[tuple[str, list[Step]]] = []
    seen: set[tuple[Any, ...]] = set()

    def keep(label: str, steps: list[Step]) -> None:
        state = steps[-1].state
        key = tuple(state.v[k] for k in ts.keys)
        if key not in seen:
            seen.add(key)
            starts.append(state)
            how.append((label, list(steps)))

    for label in sorted(plays):
        steps = replay_prefix(ts, plays[label])
        for i in range(1, len(steps)):
            keep(f"the play reaching {label}", steps[: i + 1])
    for w in range(walks):
        sim = Simulator(ts, seed=w)
        sim.calm = CALM_LEVELS[1 + w % (len(CALM_LEVELS) - 1)]
        rng = random.Random(seed + w)
        steps = [Step("init", {}, ts.init())]
        for _ in range(length):
            check_interrupt()
            step = sim.choose(steps[-1].state, rng)
            if step is None:
                break
            steps.append(step)
            keep(f"a seeded random play (seed {seed + w})", steps)
    return starts, how
