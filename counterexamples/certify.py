"""Certificates: every trace is replayed through the concrete interpreter before it is reported."""

from __future__ import annotations

from duelcheck.engines.base import Trace
from duelcheck.errors import InternalError
from duelcheck.model.system import TransitionSystem
from duelcheck.properties.catalog import ActionView, Check


def replay_trace(ts: TransitionSystem, trace: Trace) -> None:
    """Raise InternalError unless the trace starts in the initial state and every step is a legal action
    whose concrete successor is exactly the next state of the trace."""
    from duelcheck.conformance import check_play

    if trace.steps[0].state.v != ts.init().v:
        raise InternalError("the trace does not start in the initial state")
    for st in check_play(ts, trace).steps:
        if not st.legal:
            raise InternalError(
                f"step {st.index} ({st.action}) is not allowed by the concrete interpreter: {st.reason}"
            )
        if st.differences:
            fields = [name for name, _, _ in st.differences]
            raise InternalError(
                f"step {st.index} ({st.action}) leads elsewhere in the concrete interpreter: {fields[:5]}"
            )


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
