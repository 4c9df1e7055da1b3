"""Conformance: replay a recorded play against the rules, step by step.

A play is an ITF trace (duelcheck's own counterexamples, or any trace in its vocabulary): its first
state is the starting board, each later state carries the action taken and the state the recorder
observed. Each action is checked by the concrete interpreter: legal, or illegal with the clause it
breaks and why; every observed field that differs from the model's successor is listed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duelcheck.counterexamples.view import show_key
from duelcheck.engines.base import Trace
from duelcheck.model.rules import ACTION_BY_NAME
from duelcheck.model.state import State
from duelcheck.model.system import TransitionSystem
from duelcheck.rules import Rules


@dataclass
class StepReport:
    index: int
    action: str
    params: dict[str, Any]
    legal: bool
    clause: str
    reason: str | None = None
    differences: list[tuple[str, Any, Any]] = field(default_factory=list)  # (field, model, observed)

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.index,
            "action": self.action,
            "params": self.params,
            "legal": self.legal,
            "clause": self.clause,
            "reason": self.reason,
            "differences": [{"field": f, "model": m, "observed": o} for f, m, o in self.differences],
        }


@dataclass
class Report:
    rules: Rules
    steps: list[StepReport]
    total: int  # steps in the play

    @property
    def conforms(self) -> bool:
        return all(s.legal and not s.differences for s in self.steps) and len(self.steps) == self.total

    @property
    def stopped_at(self) -> int | None:
        return next((s.index for s in self.steps if not s.legal), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "conforms": self.conforms,
            "steps_checked": len(self.steps),
            "steps_total": self.total,
            "stopped_at": self.stopped_at,
            "rules": self.rules.model_dump(),
            "steps": [s.to_json() for s in self.steps],
        }


def check_play(ts: TransitionSystem, trace: Trace) -> Report:
    """Replay a trace from its first state; stop at the first illegal action."""
    reports: list[StepReport] = []
    model: State = trace.steps[0].state
    for i in range(1, len(trace.steps)):
        step = trace.steps[i]
        act = ACTION_BY_NAME.get(step.action)
        clause = act.clause if act else ""
        out = ts.apply(model, step.action, step.params)
        if not out.ok or out.state is None:
            reports.append(StepReport(i, step.action, step.params, False, clause, out.reason))
            break
        diffs = [
            (show_key(key), out.state.v[key], step.state.v[key])
            for key in ts.keys
            if out.state.v[key] != step.state.v[key]
        ]
        reports.append(StepReport(i, step.action, step.params, True, clause, None, diffs))
        model = out.state
    return Report(ts.rules, reports, len(trace.steps) - 1)


def replay(play: str | Path | dict[str, Any], rules: Rules | None = None) -> Report:
    """Library entry point: replay an ITF document (a path or parsed JSON) under the given rules,
    or under the rules recorded in the document, or the official rules."""
    from duelcheck.counterexamples.itf import itf_to_trace, load_json, recorded_rules

    source = "<play>"
    if isinstance(play, (str, Path)):
        source = str(play)
        data = load_json(Path(play))
    else:
        data = play
    ts = TransitionSystem(rules if rules is not None else recorded_rules(data, source))
    return check_play(ts, itf_to_trace(ts, data, source))
