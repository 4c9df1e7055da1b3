"""Explicit-state simulation: random plays through the concrete interpreter, for witnesses too deep
for bounded model checking (a deck running out takes hundreds of steps).

The policy is seeded and reproducible: with probability `calm` a player takes the first enabled
"calm" action (draw, resolve, discard, stop a replay, pass), otherwise any enabled action at random.
"""

from __future__ import annotations

import random
import time
from typing import Any

from duelcheck.engines.base import Trace
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
    ("pass", {"choice": NO_CHOICE}),
    ("pass", {"choice": TO_END}),
    ("pass", {"choice": TO_BATTLE}),
)


CALM_LEVELS = (0.97, 0.2, 0.5, 0.1)
# A lively player: summons, attacks and activations are tried far more often than their share.
WEIGHTS = {"declare_attack": 40.0, "normal_summon": 2.0, "set_monster": 1.0, "replay_select": 5.0, "pass": 8.0}


class Simulator:
    name = "sim"

    def __init__(self, ts: TransitionSystem, seed: int = 0, walks: int = 400, length: int = 3000, calm: float = 0.97):
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
        if not options:
            return None
        weights = [WEIGHTS.get(o.action, 1.0) * (3.0 if o.params.get("choice") == TO_BATTLE else 1.0) for o in options]
        return rng.choices(options, weights)[0]

    def search(self, checks: list[Check], budget_s: float = 30.0) -> dict[int, Trace]:
        """Walk until every check has a witness or the time budget is spent; the first trace found for each."""
        found: dict[int, Trace] = {}
        deadline = time.perf_counter() + budget_s
        for w in range(self.walks):
            if time.perf_counter() > deadline:
                break
            rng = random.Random(self.seed * 1000 + w)
            self.calm = CALM_LEVELS[w % len(CALM_LEVELS)]
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
                if len(found) == len(checks) or s.g("winner") != 0 or time.perf_counter() > deadline:
                    break
            if len(found) == len(checks):
                break
        return found


class Background:
    """The simulation run in a forked process while the solver works (the machine has two cores).

    The child sends back each witness's play as (action, parameters) pairs; the parent replays them
    through the concrete interpreter. Where `fork` is unavailable, the search runs in the parent when
    its result is asked for.
    """

    def __init__(self, ts: TransitionSystem, checks: list[Check], budget_s: float):
        import multiprocessing as mp

        self.ts, self.checks, self.budget_s = ts, checks, budget_s
        self.proc: Any = None
        self.conn: Any = None
        self._result: dict[int, Trace] | None = None
        if checks and "fork" in mp.get_all_start_methods():
            ctx = mp.get_context("fork")
            self.conn, child = ctx.Pipe(duplex=False)
            self.proc = ctx.Process(target=self._work, args=(child,), daemon=True)
            self.proc.start()
            child.close()

    def _work(self, conn: Any) -> None:  # pragma: no cover - runs in the child process
        found = Simulator(self.ts).search(self.checks, self.budget_s)
        conn.send({i: [(s.action, s.params) for s in t.steps[1:]] for i, t in found.items()})
        conn.close()

    def result(self, wanted: list[int]) -> dict[int, Trace]:
        """The witnesses found (by index into the checks), waiting for the search to finish. Without
        `fork`, only the wanted checks are searched, here and now. A search that crashed is an
        internal error, never "not found"."""
        if self._result is not None:
            return self._result
        if self.proc is None:
            picked = [self.checks[i] for i in wanted]
            found = Simulator(self.ts).search(picked, self.budget_s) if picked else {}
            self._result = {wanted[j]: trace for j, trace in found.items()}
            return self._result
        try:
            plays = self.conn.recv()
        except EOFError:
            plays = None
        self.proc.join()
        if plays is None or self.proc.exitcode != 0:
            raise InternalError(f"the simulation process failed (exit code {self.proc.exitcode})")
        self._result = {i: self._replay(play) for i, play in plays.items()}
        return self._result

    def _replay(self, play: list[tuple[str, dict[str, int]]]) -> Trace:
        state = self.ts.init()
        steps = [Step("init", {}, state)]
        for name, params in play:
            out = self.ts.apply(state, name, params)
            if not out.ok or out.state is None:
                raise InternalError(f"a simulated play does not replay at step {len(steps)}: {out.reason}")
            state = out.state
            steps.append(Step(name, params, state))
        return Trace(steps)

    def cancel(self) -> None:
        if self.proc is not None and self._result is None:
            self.proc.terminate()
            self.proc.join()
            self._result = {}
