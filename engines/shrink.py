"""Shortening a play that reaches a witness: delta debugging over its actions.

A candidate is the play with a run of actions removed, or with two single passes in succession
replaced by the step where both players pass (and, at the end, runs of actions a composite action takes
as one step replaced by it); it is kept when the concrete interpreter allows every
action of it and the witness is reached (the play is cut at the first step that reaches it). Runs are
tried from long to short, to a fixpoint: no single action can then be removed. The result is
deterministic (no randomness, no clock) but not proved minimal.
"""

from __future__ import annotations

from duelcheck.engines.base import Trace
from duelcheck.engines.limits import check_interrupt
from duelcheck.model.cards import NO_CHOICE
from duelcheck.model.state import State
from duelcheck.model.system import Step, TransitionSystem
from duelcheck.properties.catalog import ActionView, Check

Move = tuple[str, dict[str, int]]


def reaches(ts: TransitionSystem, check: Check, start: State, moves: list[Move]) -> list[Step] | None:
    """The steps of the play up to the first that reaches the witness, or None if it is refused or misses."""
    state = start
    steps: list[Step] = []
    for name, params in moves:
        out = ts.apply(state, name, params)
        if not out.ok or out.state is None:
            return None
        act = ActionView(name, params, symbolic=False)
        steps.append(Step(name, params, out.state))
        if check.eval(state, act, out.state):
            return steps
        state = out.state
    return None


def _merge_passes(steps: list[Step], start: State) -> list[Move]:
    """Two single passes in succession as one step (both players pass), where the first makes no choice and the
    two end the phase or step (`end_step` leads to the state the second pass made; two passes of a response
    window do not end the phase, and are kept)."""
    out: list[Move] = []
    i = 0
    while i < len(steps):
        a = steps[i]
        pair = i + 1 < len(steps) and a.action == "pass" and steps[i + 1].action == "pass"
        if pair and a.params.get("choice") == NO_CHOICE:
            before = steps[i - 1].state if i > 0 else start
            merged = ("end_step", dict(steps[i + 1].params))
            if before.g("chain_len") == 0 and not before.g("passed") and not before.g("window"):
                out.append(merged)
                i += 2
                continue
        out.append((a.action, dict(a.params)))
        i += 1
    return out


def _merge_composites(ts: TransitionSystem, start: State, moves: list[Move]) -> list[Move]:
    """Runs of actions that a composite action (model/rules.py `composite`) takes as one step, as that step."""
    composites = [a for a in ts.actions if a.parts is not None]
    out: list[Move] = []
    state, i = start, 0
    while i < len(moves):
        taken: Move = moves[i]
        width = 1
        for act in composites:
            for params in act.candidates(state):
                parts = ts.expand(state, act.name, params)
                if isinstance(parts, list) and [(p.action, p.params) for p in parts] == moves[i : i + len(parts)]:
                    taken, width = (act.name, dict(params)), len(parts)
                    break
            if width > 1:
                break
        done = ts.apply(state, *taken)
        if not done.ok or done.state is None:
            return moves
        out.append(taken)
        state, i = done.state, i + width
    return out


def _without(ts: TransitionSystem, check: Check, start: State, best: list[Step], i: int, n: int) -> list[Step] | None:
    """The play with its actions i to i + n - 1 removed, when it still reaches the witness (else None); the play
    up to i is kept as it is: only what follows the removed run is replayed."""
    check_interrupt()
    before = best[i - 1].state if i > 0 else start
    tail = [(st.action, st.params) for st in best[i + n :]]
    steps = reaches(ts, check, before, tail) if tail else None
    return None if steps is None else best[:i] + steps


def shrink(ts: TransitionSystem, check: Check, trace: Trace, max_candidates: int = 4000) -> Trace:
    """A shorter play that still reaches the witness (the trace itself when nothing can go)."""
    start = trace.steps[0].state
    moves: list[Move] = [(st.action, dict(st.params)) for st in trace.steps[1:]]
    best = reaches(ts, check, start, moves)
    if best is None:
        return trace
    merged = _merge_passes(best, start)
    steps = reaches(ts, check, start, merged)
    if steps is not None and len(steps) < len(best):
        best = steps
    tried = 0
    chunk = max(1, len(best) // 2)
    while chunk >= 1 and tried < max_candidates:
        i, removed = 0, False
        while i < len(best) and tried < max_candidates:
            tried += 1
            shorter = _without(ts, check, start, best, i, chunk)
            if shorter is not None:
                best, removed = shorter, True
            else:
                i += chunk
        if not removed:
            chunk //= 2
    # the play's common runs as composite steps (kept when the witness is still reached: a step check is
    # never reached by a composite step)
    steps = reaches(ts, check, start, _merge_composites(ts, start, [(st.action, st.params) for st in best]))
    if steps is not None and len(steps) < len(best):
        best = steps
    return Trace([trace.steps[0], *best])


def slide(ts: TransitionSystem, check: Check, trace: Trace, widths: int = 6, max_candidates: int = 3000) -> Trace:
    """`shrink`, then windows of 1 to `widths` actions removed at every position, not only at multiples of
    their width: a block of a few actions (an activation, two passes and its resolution; a phase's passes) sits
    anywhere in a random play, where halving chunks miss it. Deterministic, to a fixpoint or the budget."""
    trace = shrink(ts, check, trace, max_candidates)
    start = trace.steps[0].state
    best = list(trace.steps[1:])
    tried, changed = 0, True
    while changed and tried < max_candidates:
        changed = False
        for width in range(widths, 0, -1):
            i = 0
            while i + width <= len(best) and tried < max_candidates:
                tried += 1
                shorter = _without(ts, check, start, best, i, width)
                if shorter is not None:
                    best, changed = shorter, True
                else:
                    i += 1
    # two single passes as one step, runs of actions as the composite step that takes them
    return shrink(ts, check, Trace([trace.steps[0], *best]), max_candidates)
