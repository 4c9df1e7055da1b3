"""The text view of a trace: per step the action, its parameters, the clause, and only what changed."""

from __future__ import annotations

from typing import Any

from duelcheck.engines.base import Trace
from duelcheck.model.cards import (
    DIRECT,
    HAND,
    STOP,
    TARGETED,
    TO_BATTLE,
    TO_END,
    TO_MAIN2,
    Effect,
    Kind,
    Pending,
    Phase,
)
from duelcheck.model.rules import ACTION_BY_NAME
from duelcheck.model.state import PARAMS, Key, State, build_schema
from duelcheck.rules import Rules

PHASE_NAMES = {
    Phase.DRAW: "Draw Phase",
    Phase.STANDBY: "Standby Phase",
    Phase.MAIN1: "Main Phase 1",
    Phase.BATTLE_START: "Battle Phase: Start Step",
    Phase.BATTLE_STEP: "Battle Phase: Battle Step",
    Phase.DMG_START: "Damage Step: start",
    Phase.DMG_BEFORE: "Damage Step: before damage calculation",
    Phase.DMG_DURING: "Damage Step: during damage calculation",
    Phase.DMG_AFTER: "Damage Step: after damage calculation",
    Phase.DMG_END: "Damage Step: end",
    Phase.BATTLE_END: "Battle Phase: End Step",
    Phase.MAIN2: "Main Phase 2",
    Phase.END: "End Phase",
}
# The scale of each field: it does not depend on the rule parameters.
FIELD_SCALE = {spec.name: spec.scale for spec in build_schema(Rules())}
CHOICES = {TO_BATTLE: "Battle Phase", TO_MAIN2: "Main Phase 2", TO_END: "End Phase"}


def show_param(name: str, value: Any, action: str) -> str:
    if name == "kind":
        return Kind(value).name
    if name == "eff":
        return Effect(value).name
    if name == "zone" and value == HAND:
        return "hand"
    if name == "tzone" and action in ("declare_attack", "replay_select"):
        return {DIRECT: "direct", STOP: "stop"}.get(value, str(value))
    if name == "choice" and action in ("pass", "end_step"):
        return CHOICES.get(value, str(value))
    if name == "tplayer":
        return f"player {value}"
    if name == "tarea":
        return "Spell & Trap Zone" if value else "Monster Zone"
    if name in PARAMS and PARAMS[name].scale != 1:
        return str(value * PARAMS[name].scale)  # held in units of 100 points
    if name == "pos":
        return "Defense" if value else "Attack"
    return str(value)


def show_action(name: str, params: dict[str, Any]) -> str:
    if name == "activate" and params.get("eff") not in TARGETED:
        params = {k: v for k, v in params.items() if k not in ("tplayer", "tarea", "tzone")}
    if name in ("resolve", "pass", "end_step"):  # nothing summoned, no ATK change, no choice
        params = {k: v for k, v in params.items() if v}
    inner = ", ".join(f"{k}={show_param(k, v, name)}" for k, v in params.items())
    return f"{name}({inner})"


def show_value(key: Key, value: Any) -> str:
    if FIELD_SCALE.get(key[0], 1) != 1:
        return str(value * FIELD_SCALE[key[0]])  # held in units of 100 points
    if key[0] == "phase":
        return PHASE_NAMES.get(Phase(value), str(value))
    if key[0] in ("s_kind", "c_kind"):
        return Kind(value).name
    if key[0] in ("s_eff", "c_eff"):
        return Effect(value).name
    if key[0] == "winner":
        return "none" if value == 0 else f"player {value - 1}"
    return str(value).lower() if isinstance(value, bool) else str(value)


def show_key(key: Key) -> str:
    return key[0] + "".join(f"[{i}]" for i in key[1:])


def actor(pre: State, name: str) -> int:
    if name == "trigger":  # the waiting effect of the turn player goes first (6.3.4.3.4)
        due = (Pending.FLIP_DUE, Pending.TRIGGER_DUE)
        return int(pre.tp) if pre.g("trig", pre.tp) in due else 1 - int(pre.tp)
    return int(pre.g("prio")) if name in ("pass", "end_step", "activate") else int(pre.tp)


def render(trace: Trace, title: str = "") -> str:
    lines = [title] if title else []
    first = trace.steps[0].state
    lp = "/".join(show_value(("lp", p), first.g("lp", p)) for p in (0, 1))
    lines.append(
        f"  0  init   turn {first.g('turn')}, {PHASE_NAMES[Phase(first.g('phase'))]}, "
        f"LP {lp}, hands {first.g('hand', 0)}/{first.g('hand', 1)}"
    )
    for i in range(1, len(trace.steps)):
        pre, step = trace.steps[i - 1].state, trace.steps[i]
        act = ACTION_BY_NAME.get(step.action)
        clause = act.clause if act else ""
        lines.append(f"{i:3d}  player {actor(pre, step.action)}: {show_action(step.action, step.params)}   [{clause}]")
        for key in pre.v:
            if pre.v[key] != step.state.v[key]:
                lines.append(
                    f"       {show_key(key)}: {show_value(key, pre.v[key])} -> {show_value(key, step.state.v[key])}"
                )
    return "\n".join(lines)
