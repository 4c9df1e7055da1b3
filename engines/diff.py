"""The shortest play that tells two rule sets apart, found over both transition relations at once.

A play of d steps from the start of a duel: steps 1..d-1 follow the rules A (the unrolling of A's relation),
and step d is legal under A while under B the same action, with the same parameters, from the same state, is
illegal or leads elsewhere. Each relation is deterministic (an action and its parameters fix the successor),
so "B disagrees" is the negation of B's relation with A's successor put in for B's: one formula. Depth by
depth from 1, as the bounded search does: the first depth with an answer gives a play of minimal length
(every shorter depth was refuted). The prefix of a minimal play is legal under B too, with the same states
(else a shorter play would tell the rules apart). The play is certified by the concrete interpreter under
both rule sets before it is reported.

Rule sets whose duels start from different states differ at step 0; rule sets with a different state shape
(zones, chain links) cannot share one state vector, and are compared by their start only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3

from duelcheck.engines.base import Trace
from duelcheck.engines.bmc import Unrolling, replay_moves
from duelcheck.engines.limits import check_interrupt
from duelcheck.engines.smt import SAT, UNSAT, open_session
from duelcheck.errors import InternalError
from duelcheck.model.state import State
from duelcheck.model.system import TransitionSystem
from duelcheck.rules import Rules


@dataclass
class Difference:
    """What tells A from B in one direction: a play legal under A whose last step B refuses or ends elsewhere."""

    kind: str  # "start" (the duels start differently), "refused" (B refuses the last step), "outcome" (elsewhere)
    trace: Trace | None = None  # the play under A (None for "start")
    reason: str = ""  # B's clause and reason for a refusal
    fields: list[tuple[str, Any, Any]] = field(default_factory=list)  # (field, under A, under B)

    @property
    def length(self) -> int:
        return 0 if self.trace is None else len(self.trace)


@dataclass
class DiffResult:
    """Each direction: a minimal difference, or None with `bound` (none up to it)."""

    a_to_b: Difference | None
    b_to_a: Difference | None
    bound: int
    verdict: str  # "different", "equivalent" (proved), "no difference up to N", "unknown"
    note: str = ""


def _same_shape(a: TransitionSystem, b: TransitionSystem) -> bool:
    shape = [(f.name, f.dims, f.width) for f in a.fields]
    return shape == [(f.name, f.dims, f.width) for f in b.fields] and a.act_width == b.act_width


def _start_difference(a: TransitionSystem, b: TransitionSystem) -> Difference | None:
    sa, sb = a.init(), b.init()
    if _same_shape(a, b) and sa.v == sb.v:
        return None
    from duelcheck.counterexamples.view import changes, flatten
    from duelcheck.log import describe

    fields = changes(flatten(describe(sa)), flatten(describe(sb)))
    return Difference("start", None, "the duels start from different states", fields)


def first_difference(
    a: TransitionSystem, b: TransitionSystem, depth: int, solver: str = "auto"
) -> tuple[str, Difference | None]:
    """("found", the shortest play legal under A whose last step B refuses or ends elsewhere), ("none", None)
    when every depth up to `depth` was refuted, or ("unknown", None) when the solver gave no answer."""
    start = _start_difference(a, b)
    if start is not None:
        return "found", start
    u = Unrolling(a)
    session = open_session(solver)
    try:
        session.add(u.constraints[0])
        for d in range(1, depth + 1):
            check_interrupt()
            u.extend(d)
            if d > 1:
                session.add(u.constraints[d - 1])  # steps 1..d-1 follow A's rules
            step = u.steps[d]
            assert step is not None
            other = b.sym_step(u.states[d - 1], f"@b{d}")
            # B's relation with A's action, parameters and successor in place of its own
            pairs = [(other.act, step.act)] + [(other.params[n], step.params[n]) for n in step.params]
            pairs += [(other.post.v[key], step.post.v[key]) for key in b.keys]
            b_agrees = z3.substitute(other.relation, *pairs)
            hit = z3.Bool(f"differs@{d}")
            session.add(hit == z3.And(step.relation, z3.Not(b_agrees)))
            answer, values = session.check(hit, [hit, *u.choices(d)])
            if answer == UNSAT:
                session.add(z3.Not(hit))
                continue
            if answer != SAT:
                return "unknown", None
            trace = replay_moves(a, None, u.moves(values, d))
            return "found", certify(a, b, trace)
        return "none", None
    finally:
        session.close()


def certify(a: TransitionSystem, b: TransitionSystem, trace: Trace) -> Difference:
    """Replay the play under both rule sets: every step legal under A (replay_moves did that); under B the
    prefix gives the same states, and the last step is refused or ends elsewhere. Anything else is an
    internal error, never a reported difference."""
    state: State = b.init()
    for i, st in enumerate(trace.steps[1:], start=1):
        out = b.apply(state, st.action, dict(st.params))
        last = i == len(trace)
        if not last:
            if not out.ok or out.state is None or out.state.v != st.state.v:
                raise InternalError(f"the distinguishing play's step {i} already differs under B")
            state = out.state
            continue
        if not out.ok or out.state is None:
            return Difference("refused", trace, out.reason or "refused")
        if out.state.v == st.state.v:
            raise InternalError("the distinguishing play's last step has the same outcome under both rule sets")
        from duelcheck.counterexamples.view import changes, flatten
        from duelcheck.log import describe

        fields = changes(flatten(describe(st.state)), flatten(describe(out.state)))
        return Difference("outcome", trace, "the same step leads elsewhere", fields)
    raise InternalError("an empty distinguishing play")


def diff(rules_a: Rules, rules_b: Rules, depth: int, solver: str = "auto") -> DiffResult:
    """The shortest play in each direction (A's play that B refuses or ends elsewhere, and B's that A does)."""
    a, b = TransitionSystem(rules_a), TransitionSystem(rules_b)
    if _same_shape(a, b) and a.init().v == b.init().v:
        probe = a.sym_state("@same")
        if a.sym_step(probe, "@same").relation.eq(b.sym_step(probe, "@same").relation):
            return DiffResult(None, None, depth, "equivalent", "the same start and the same transition relation")
    status_ab, ab = first_difference(a, b, depth, solver)
    if ab is not None and ab.kind == "start":
        ba: Difference | None = Difference("start", None, ab.reason, [(f, y, x) for f, x, y in ab.fields])
        status_ba = "found"
    else:
        status_ba, ba = first_difference(b, a, depth, solver)
    statuses = {status_ab, status_ba}
    if "found" in statuses:
        verdict = "different"
    elif "unknown" in statuses:
        verdict = "unknown"
    else:
        verdict = f"no difference up to {depth}"
    note = ""
    if ab is not None and ab.kind == "start" and not _same_shape(a, b):
        note = "the rule sets have different zones or chain lengths: compared by their start"
    return DiffResult(ab, ba, depth, verdict, note)


__all__ = ["DiffResult", "Difference", "diff", "first_difference"]
