"""Certificates: every trace is replayed through the concrete interpreter before it is reported."""

from __future__ import annotations

from duelcheck.engines.base import Trace
from duelcheck.model.system import TransitionSystem
from duelcheck.properties.catalog import ActionView, Check

from duelcheck.errors import InternalError


def replay_trace(ts: TransitionSystem, trace: Trace) -> None:
    """Raise InternalError unless the trace starts in the initial state and every step is a legal action
    whose concrete successor is exactly the next state of the trace."""
    init = ts.init()
    if trace.steps[0].state.v != init.v:
        raise InternalError("the trace does not start in the initial state")
    for i in range(1, len(trace.steps)):
        pre, step = trace.steps[i - 1].state, trace.steps[i]
        out = ts.apply(pre, step.action, step.params)
        if not out.ok or out.state is None:
            raise InternalError(f"step {i} ({step.action}) is not allowed by the concrete interpreter: {out.reason}")
        if out.state.v != step.state.v:
            diff = [k for k in out.state.v if out.state.v[k] != step.state.v[k]]
            raise InternalError(f"step {i} ({step.action}) leads elsewhere in the concrete interpreter: {diff[:5]}")


def holds_at_end(trace: Trace, check: Check) -> bool:
    """The check's concrete value on the trace's last state (or last step)."""
    post = trace.steps[-1]
    if check.on == "state":
        return bool(check.eval(None, None, post.state))
    if len(trace.steps) < 2:
        raise InternalError("a step property needs a trace with at least one step")
    pre = trace.steps[-2].state
    return bool(check.eval(pre, ActionView(post.action, post.params, symbolic=False), post.state))


def certify(ts: TransitionSystem, check: Check, trace: Trace, expect: bool) -> None:
    """Replay the trace and confirm the check's value at its end (False for a violation, True for a witness)."""
    replay_trace(ts, trace)
    if holds_at_end(trace, check) != expect:
        what = "violate" if not expect else "witness"
        raise InternalError(f"the trace does not {what} the property when replayed concretely")
