"""The text view of a trace: per step the action, its parameters, the clause, and only what changed."""

from __future__ import annotations

import re
from dataclasses import dataclass
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
from duelcheck.model.rules import ACTION_BY_NAME, replacement_decider
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
        return "none" if value == 0 else "a drawn duel" if value == 3 else f"player {value - 1}"
    return str(value).lower() if isinstance(value, bool) else str(value)


def show_key(key: Key) -> str:
    return key[0] + "".join(f"[{i}]" for i in key[1:])


def actor(pre: State, name: str) -> int:
    if name == "trigger":  # the waiting effect of the turn player goes first (6.3.4.3.4)
        due = (Pending.FLIP_DUE, Pending.TRIGGER_DUE)
        if pre.g("trig", 0) not in due and pre.g("trig", 1) not in due:
            return int(pre.g("prio"))  # 6.3.2: a delayed effect's draw, by the player holding priority
        return int(pre.tp) if pre.g("trig", pre.tp) in due else 1 - int(pre.tp)
    if name == "replace_destruction":  # 6.3.4.3.3: the turn player decides first on their monster's replacement
        return int(replacement_decider(pre))
    return int(pre.g("prio")) if name in ("pass", "end_step", "activate") else int(pre.tp)


# -- a trace in the duel-log format's words (what `duelcheck show` prints) ---------------------------


def flatten(node: Any, path: str = "") -> dict[str, Any]:
    """An observed state (`duelcheck.log.describe`) as leaf paths: `players[0].lp`, `players[1].monsters[2].atk`."""
    out: dict[str, Any] = {}
    if isinstance(node, dict):
        for key, value in node.items():
            out.update(flatten(value, f"{path}.{key}" if path else key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out.update(flatten(value, f"{path}[{i}]"))
    else:
        out[path] = node
    return out


def word(path: str, value: Any) -> str:
    """A value as a person reads it: phases in the rulebook's words, `-` for a field that is not there."""
    from duelcheck.log import PHASES

    if value is None:
        return "-"
    if path == "phase" and value in PHASES:
        return PHASE_NAMES[PHASES[value]]
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


_SLOT = re.compile(r"^(chain\[\d+\]|players\[\d\]\.(?:monsters|spells_traps)\[\d+\]|players\[\d\]\.pending_trigger)\.")


def _slot(view: dict[str, Any], prefix: str) -> str | None:
    """A card or a chain link as one value (None when the slot is empty or absent)."""
    leaves = {k[len(prefix) + 1 :]: v for k, v in view.items() if k.startswith(prefix + ".")}
    if not leaves or leaves.get("empty") is True:
        return None
    return "{" + ", ".join(f"{k} {word(k, v)}" for k, v in leaves.items() if k not in ("empty", "zone")) + "}"


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field, before, after) for every leaf of the observed state that differs; a card or a chain link
    that comes or goes is one change of the whole slot."""
    keys = list(dict.fromkeys([*before, *after]))
    out: list[tuple[str, Any, Any]] = []
    done: set[str] = set()
    for k in keys:
        if before.get(k) == after.get(k):
            continue
        m = _SLOT.match(k)
        if m:
            prefix = m.group(1)
            if prefix in done:
                continue
            a, b = _slot(before, prefix), _slot(after, prefix)
            if a is None or b is None:  # it came or went: one line for the whole slot
                done.add(prefix)
                out.append((prefix, a, b))
                continue
        out.append((k, before.get(k), after.get(k)))
    return out


@dataclass
class ShownStep:
    """One step as `duelcheck show` gives it: who decides, the action in the log's words, the clause, the
    fields that changed (in the log's words, LP and ATK in points)."""

    index: int
    player: int | None
    action: dict[str, Any]
    clause: str
    changes: list[tuple[str, Any, Any]]
    chooser: int | None = None  # who chooses the next phase, when the step ends one with a choice

    def text(self) -> str:
        from duelcheck.log import NEXT

        act = dict(self.action)
        name = act.pop("action")
        then = act.pop("then", None)
        inner = ", ".join(f"{k}={_compact(v)}" for k, v in act.items())
        line = f"player {self.player}: {name}({inner})"
        if then is not None:
            line += f", then player {self.chooser} chooses {CHOICES[NEXT[then]]}"
        return line

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.index,
            "player": self.player,
            "action": self.action,
            "chooser": self.chooser,
            "clause": self.clause,
            "changes": [{"field": f, "from": a, "to": b} for f, a, b in self.changes],
        }


def _compact(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}={_compact(x)}" for k, x in v.items()) + "}"
    return str(v).lower() if isinstance(v, bool) else str(v)


def shown_steps(trace: Trace) -> list[ShownStep]:
    """Every step of a trace (step 0 is the start) in the duel-log format's words."""
    from duelcheck.log import describe, log_action
    from duelcheck.model.system import parts_of

    out = []
    before = flatten(describe(trace.steps[0].state))
    for i in range(1, len(trace.steps)):
        pre, whole = trace.steps[i - 1].state, trace.steps[i]
        # a composite step (several actions in one) is shown as its actions, each under the step's number
        for step in parts_of(pre, whole.action, dict(whole.params), whole.state):
            act = ACTION_BY_NAME.get(step.action)
            action = log_action(pre, step.action, dict(step.params), step.state)
            chooser = int(pre.tp) if "then" in action else None  # the turn player picks the next phase (6.3)
            after = flatten(describe(step.state))  # each state described once
            clause = act.clause if act else ""
            out.append(ShownStep(i, actor(pre, step.action), action, clause, changes(before, after), chooser))
            pre, before = step.state, after
    return out


def _passes(st: ShownStep) -> bool:
    return st.action.get("action") in ("pass", "end_step") and "then" not in st.action


def render(trace: Trace, title: str = "", first: int = 0, last: int | None = None, fold: bool = True) -> str:
    """The text view: a line per step (who decides, the action, the clause) and what changed, in the
    duel-log format's words. Steps `first` to `last` only; runs of three or more plain passes folded into one
    line with their net changes (a simulation's trace is hundreds of steps long)."""
    from duelcheck.log import describe

    lines = [title] if title else []
    at = max(first - 1, 0)  # the state the shown steps start from
    view0 = describe(trace.steps[at].state)
    lp = "/".join(str(view0["players"][p]["lp"]) for p in (0, 1))
    hands = "/".join(str(view0["players"][p]["hand"]) for p in (0, 1))
    where = "start" if at == 0 else "after it"
    lines.append(f"{at:3d}  {where}: turn {view0['turn']}, {word('phase', view0['phase'])}, LP {lp}, hands {hands}")
    steps = [st for st in shown_steps(trace) if st.index >= max(first, 1) and (last is None or st.index <= last)]
    i = 0
    while i < len(steps):
        run = 1
        while fold and i + run < len(steps) and _passes(steps[i]) and _passes(steps[i + run]):
            run += 1
        if fold and run >= 3 and _passes(steps[i]):
            group = steps[i : i + run]
            net: dict[str, tuple[Any, Any]] = {}
            for st in group:
                for f, a, b in st.changes:
                    net[f] = (net[f][0] if f in net else a, b)
            players = sorted({st.player for st in group if st.player is not None})
            who = " and ".join(str(p) for p in players)
            lines.append(f"{group[0].index:3d}-{group[-1].index}  {run} passes (player {who})")
            for f, (a, b) in net.items():
                if a != b:
                    lines.append(f"       {f}: {word(f, a)} -> {word(f, b)}")
            i += run
            continue
        st = steps[i]
        lines.append(f"{st.index:3d}  {st.text()}   [{st.clause}]")
        for f, a, b in st.changes:
            lines.append(f"       {f}: {word(f, a)} -> {word(f, b)}")
        i += 1
    return "\n".join(lines)


def render_json(trace: Trace, title: str = "", first: int = 0, last: int | None = None) -> dict[str, Any]:
    """The same view as data: the start state in the log's words and every step with its changes."""
    from duelcheck.log import describe

    steps = [st for st in shown_steps(trace) if st.index >= max(first, 1) and (last is None or st.index <= last)]
    return {
        "title": title,
        "length": len(trace),
        "from_step": max(first - 1, 0),
        "start": describe(trace.steps[max(first - 1, 0)].state),
        "steps": [st.to_json() for st in steps],
    }
