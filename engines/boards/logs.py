"""The boards as duel logs: every observed state, the tested action last, and `expect`, certified by `duelcheck
replay`.
"""

from __future__ import annotations

import json
from typing import Any

from duelcheck.conformance import broken_clause, replay
from duelcheck.engines.boards.bounded import Goal
from duelcheck.errors import InputError, InternalError
from duelcheck.log import (
    _target_out,
    log_action,
    log_of,
)
from duelcheck.model.cards import (
    TARGETED,
    Effect,
)
from duelcheck.model.rules import ACTION_BY_NAME, trigger_due
from duelcheck.model.state import State
from duelcheck.model.system import TransitionSystem


def _entry(pre: State, name: str, params: dict[str, int], post: State | None) -> dict[str, Any]:
    """The action as a log entry; a target is written whenever the parameters give one (an illegal twin's
    untargeted effect with a target, a trigger refused before its link exists)."""
    out = log_action(pre, name, params, post)
    if name in ("activate", "trigger") and "target" not in out:
        given = any(params.get(p, 0) for p in ("tplayer", "tarea", "tzone"))
        if name == "trigger" and params.get("pos") and post is None:
            tp = pre.tp
            p = tp if trigger_due(pre, tp) else 1 - tp
            given = given or Effect(pre.g("trig_eff", p)) in TARGETED
        if given:
            out["target"] = _target_out(params)
    return out


def build_log(ts: TransitionSystem, g: Goal) -> dict[str, Any]:
    """The goal's board as a duel log: every observed state, the tested action last, and `expect`."""
    steps = list(g.steps)
    doc = log_of(steps, ts.rules, g.title)
    if g.clause:
        doc["clause"] = g.clause
    pre = steps[-1][2]
    if g.kind == "illegal":
        assert g.action is not None
        doc["actions"].append(_entry(pre, g.action, g.params, None))
        n = len(doc["actions"])
        doc["expect"] = {
            "conforms": False,
            "stops_at": n,
            "clause": broken_clause(g.reason, ACTION_BY_NAME[g.action].clause),
            "reason": g.reason,
        }
    else:
        doc["expect"] = {"conforms": True}
    return doc


def certify(ts: TransitionSystem, g: Goal) -> None:
    """The concrete interpreter's word on the tested action (and the predicate), then the log replayed by
    `duelcheck replay` against its `expect`. A disagreement of the interpreter with the solver is an
    internal error; a log the format cannot hold makes the board `not-expressible`."""
    pre = g.steps[-1][2]
    if g.pred is not None and g.action is None and not g.pred(pre):
        raise InternalError(f"{g.name}: the play's last state does not meet the board's predicate")
    if g.action is not None:
        if g.pred is not None and not g.pred(pre):
            raise InternalError(f"{g.name}: the state before the tested action does not meet the predicate")
        out = ts.apply(pre, g.action, g.params)
        if g.guard is None:
            if not out.ok or out.state is None:
                raise InternalError(f"{g.name}: the interpreter refuses the legal board's action: {out.reason}")
            g.steps.append((g.action, dict(g.params), out.state))
        else:
            want = g.guard.words(pre, g.params)
            if out.ok or out.reason != want:
                raise InternalError(f"{g.name}: the interpreter says {out.reason!r}, the guard {want!r}")
            g.reason = want
    doc = build_log(ts, g)
    try:
        report = replay(json.loads(json.dumps(doc)))
    except InputError as exc:
        g.status, g.note = "not-expressible", f"the duel-log format cannot hold it: {exc}"
        return
    failures = report.expectation_failures()
    if failures:
        g.status, g.note = "not-expressible", f"duelcheck replay reads the log otherwise: {failures[0]}"
        return
    g.doc = doc
