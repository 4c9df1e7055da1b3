"""Conformance: replay a recorded play against the rules, step by step.

A play is a duel log (`duelcheck.log`: a starting board, then actions in the model's vocabulary,
each optionally followed by the state the engine observed, complete or partial) or an ITF trace
(duelcheck's own counterexamples, or any trace in its vocabulary: every state complete). Each
action is checked by the concrete interpreter: legal, or illegal with the clause it breaks and why;
every observed field that differs from the model's successor is listed. Replay stops at the first
illegal action.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duelcheck.counterexamples.view import actor, show_action, show_key
from duelcheck.engines.base import Trace
from duelcheck.errors import InputError
from duelcheck.log import (
    DuelLog,
    Move,
    board_state,
    check_zone,
    differences,
    is_log,
    log_rules,
    parse,
    summoned,
)
from duelcheck.log import moves as log_moves
from duelcheck.model.rules import ACTION_BY_NAME, delayed_due, not_holding_priority, trigger_due
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
    player: int | None = None  # who acted (None: a link resolving)
    from_log: bool = False  # params in the duel log's words (points, names), not the model's values

    @property
    def shown(self) -> str:
        if not self.from_log:
            return show_action(self.action, self.params)
        inner = ", ".join(f"{k}={_plain(v)}" for k, v in self.params.items())
        return f"{self.action}({inner})"

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.index,
            "action": self.action,
            "params": self.params,
            "player": self.player,
            "legal": self.legal,
            "clause": self.clause,
            "reason": self.reason,
            "differences": [{"field": f, "model": m, "observed": o} for f, m, o in self.differences],
        }


def _plain(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_plain(x)}" for k, x in v.items()) + "}"
    return str(v)


@dataclass
class Report:
    rules: Rules
    steps: list[StepReport]
    total: int  # steps in the play
    expect: Any = None  # a scenario's expected outcome (duelcheck.log.Expect), when the log gives one

    @property
    def conforms(self) -> bool:
        return all(s.legal and not s.differences for s in self.steps) and len(self.steps) == self.total

    @property
    def stopped_at(self) -> int | None:
        return next((s.index for s in self.steps if not s.legal), None)

    def expectation_failures(self, expect: Any = None) -> list[str]:
        """What differs from a scenario's expected outcome (`duelcheck.log.Expect`; by default the one the
        log gives); empty when it matches."""
        expect = expect if expect is not None else self.expect
        if expect is None:
            return ["the log gives no expected outcome"]
        out = []
        if expect.conforms != self.conforms:
            out.append(f"expected {'conforming' if expect.conforms else 'not conforming'}, got the opposite")
        if expect.stops_at is not None and expect.stops_at != self.stopped_at:
            out.append(f"expected to stop at action {expect.stops_at}, stopped at {self.stopped_at}")
        illegal = next((s for s in self.steps if not s.legal), None)
        clauses = [expect.clause] if isinstance(expect.clause, str) else expect.clause
        if clauses is not None and (illegal is None or illegal.clause not in clauses):
            got = f"{illegal.clause} ({illegal.reason})" if illegal else "no illegal action"
            out.append(f"expected clause {' or '.join(clauses)}, got {got}")
        if expect.reason is not None and (illegal is None or expect.reason not in (illegal.reason or "")):
            out.append(f"expected a reason containing {expect.reason!r}, got {illegal.reason if illegal else None!r}")
        wanted = {(d.action, d.field) for d in expect.differences or []}
        got_diffs = {(st.index, name) for st in self.steps for name, _, _ in st.differences}
        for st in self.steps:
            for name, model, observed in st.differences:
                if (st.index, name) not in wanted:
                    out.append(f"action {st.index}: {name}: the rules give {model}, the log observed {observed}")
        for index, name in sorted(wanted - got_diffs):
            out.append(f"action {index}: {name}: expected a difference, the rules agree with the log")
        return out

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
            reports.append(
                StepReport(
                    i,
                    step.action,
                    step.params,
                    False,
                    broken_clause(out.reason, clause),
                    out.reason,
                    player=actor(model, step.action),
                )
            )
            break
        diffs = [
            (show_key(key), out.state.v[key], step.state.v[key])
            for key in ts.game_keys  # the game's state: the property layer's history is no engine's business
            if out.state.v[key] != step.state.v[key]
        ]
        reports.append(StepReport(i, step.action, step.params, True, clause, None, diffs, actor(model, step.action)))
        model = out.state
    return Report(ts.rules, reports, len(trace.steps) - 1)


def broken_clause(reason: str | None, default: str) -> str:
    """The clause a judge's reason cites ("6.3.4.2: ..." or "seed 000: ..."), else the action's own clause."""
    m = _CITED.match(reason or "")
    return m.group(1) if m else default


_CITED = re.compile(r"^((?:\d+(?:\.\d+)+)|(?:seed \d{3})|model(?: bound| catalogue)?)(?=[: ])")


def _log_actor(s: State, name: str) -> int | None:
    if name == "resolve":
        return None  # a link resolves by the rules: nobody acts
    return actor(s, {"end_step": "pass", "respond": "activate", "activate_effect": "activate"}.get(name, name))


def _zones(model: State, entry: Any, at: str) -> None:
    """The action's zone numbers against the rules' zone counts."""
    places: list[tuple[str, Any, str]] = []
    if entry.action in ("flip_summon", "change_position"):
        places.append(("zone", entry.zone, "monster"))
    if entry.action == "declare_attack":
        places += [("attacker", entry.attacker, "monster"), ("target", entry.target, "monster")]
    if entry.action == "replay":
        places.append(("target", entry.target, "monster"))
    if entry.action in ("activate", "respond"):
        places.append(("from", entry.source, "spell_trap"))
    if entry.action == "activate_effect":
        places.append(("monster", entry.monster, "monster"))
    if entry.action in ("activate", "respond", "activate_effect", "trigger") and entry.target is not None:
        places.append(("target.zone", entry.target.zone, entry.target.area))
    for name, value, area in places:
        check_zone(model.r, f"{at}.{name}", value, area)


def _before(model: State, entry: Any, i: int, source: str) -> str | None:
    """What the log's own words make illegal before the rules are asked (who acts, respond, end_step)."""
    at = f"{source}: actions[{i - 1}]"
    _zones(model, entry, at)
    if entry.action == "resolve" and entry.player is not None:
        raise InputError(f"{at}.player: expected no player: a link resolves by the rules")
    who = _log_actor(model, entry.action)
    if entry.action == "trigger" and not any(trigger_due(model, p) for p in (0, 1)):
        # a delayed effect's draw is its holder's (6.3.2); with nothing to activate, the rules' own guard says so
        who = model.g("prio") if delayed_due(model, model.g("prio")) else None
    if entry.action == "replace_destruction" and not (model.g("replacing", 0) or model.g("replacing", 1)):
        who = None  # nothing to decide: the rules' own guard says so
    by_priority = ("pass", "end_step", "activate", "respond", "activate_effect")
    if entry.player is not None and who is not None and entry.player != who and entry.action in by_priority:
        return not_holding_priority(model)  # the rules' own words: who holds priority, and by which clause
    if entry.player is not None and who is not None and entry.player != who:
        holder = {"pass": "holds priority", "end_step": "holds priority", "activate": "holds priority"}.get(
            entry.action, "is the turn player"
        )
        if entry.action in ("respond", "activate_effect"):
            holder = "holds priority"
        if entry.action == "trigger":
            holder = "has the triggered effect to activate first"
        if entry.action == "replace_destruction":
            holder = "decides first on a destruction replacement"
        return f"player {who} {holder}, not player {entry.player}"
    if entry.action == "respond" and model.g("chain_len") == 0:
        return "seed 000: a response answers a chain link, and the chain is empty"
    if entry.action == "end_step" and model.g("chain_len") > 0:
        return "6.3: a phase or step ends only when both players pass with an empty chain"
    return None


def step_entry(ts: TransitionSystem, model: State, entry: Any, i: int, source: str) -> tuple[State, str | None, str]:
    """One action of a duel log (the i-th, from 1) taken from `model`: the state after it, the reason it is
    illegal (None when legal; then nothing after a refused move is taken) and the clause that decides it."""
    moves = log_moves(entry)
    if entry.action == "end_step" and model.g("passed"):
        moves = [Move("pass", moves[0].params)]  # the other player already passed: one more pass ends it
    clause = ACTION_BY_NAME[moves[-1].name].clause
    reason = _before(model, entry, i, source)
    after = model
    for move in moves if reason is None else ():
        out = ts.apply(after, move.name, move.params)
        if not out.ok or out.state is None:
            return model, out.reason or "refused", ACTION_BY_NAME[move.name].clause
        after = out.state
    if reason is None and entry.action == "resolve" and entry.summon is None and summoned(model, after):
        raise InputError(
            f"{source}: actions[{i - 1}].summon: expected the Special Summoned monster's atk, def and position: "
            "this link Special Summons a monster"
        )
    return after, reason, clause


def check_log(ts: TransitionSystem, log: DuelLog, start: State, source: str = "<log>") -> Report:
    """Replay a duel log from its board; stop at the first illegal action."""
    reports: list[StepReport] = []
    model = start
    for i, entry in enumerate(log.actions, 1):
        said = entry.model_dump(
            by_alias=True, exclude_none=True, exclude_defaults=True, exclude={"observed", "note", "action", "player"}
        )
        who = _log_actor(model, entry.action)
        after, reason, clause = step_entry(ts, model, entry, i, source)
        if entry.player is not None:
            who = entry.player  # shown as the log says; a mismatch is the reason given
        if reason is not None:
            reports.append(
                StepReport(i, entry.action, said, False, broken_clause(reason, clause), reason, [], who, True)
            )
            break
        diffs = differences(entry.observed, after) if entry.observed is not None else []
        reports.append(StepReport(i, entry.action, said, True, clause, None, diffs, who, True))
        model = after
    return Report(ts.rules, reports, len(log.actions))


def replay(play: str | Path | dict[str, Any], rules: Rules | None = None) -> Report:
    """Library entry point: replay a duel log or an ITF trace (a path or parsed JSON) under the given
    rules, or under the rules the document gives, or the official rules."""
    from duelcheck.counterexamples.itf import itf_to_trace, load_json, recorded_rules
    from duelcheck.inputs import check_document

    source = "<play>"
    if isinstance(play, (str, Path)):
        source = str(play)
        data = load_json(Path(play))
    else:
        data = play
        check_document(data, source)  # what a file's reader refuses, refused alike from Python values
    if isinstance(data, dict) and "format" not in data and "states" not in data:
        raise InputError(
            f'{source}: (document): expected a duel log (with "format": "duelcheck-log/1") or an ITF trace '
            '(with "states"); this has neither'
        )
    if is_log(data):
        log = parse(data, source)
        ts = TransitionSystem(rules if rules is not None else log_rules(log, source))
        report = check_log(ts, log, board_state(ts, log.board, source), source)
        report.expect = log.expect
        return report
    ts = TransitionSystem(rules if rules is not None else recorded_rules(data, source))
    return check_play(ts, itf_to_trace(ts, data, source))
