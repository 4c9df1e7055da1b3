"""Actions between the log's words and the model's steps: a log action as the model's moves, a model step as a log
action, and whole plays and boards as logs.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any

from duelcheck.log.describing import (
    COST_NAME,
    KIND_NAME,
    _attack,
    _common,
    _delayed,
    _flags,
    _link,
    _monster,
    _pending,
    _player,
    _spell_trap,
    describe,
)
from duelcheck.log.reading import _Board
from duelcheck.log.vocabulary import (
    COSTS,
    EFFECT_TYPE_NAME,
    EFFECTS,
    FORMAT,
    MONSTER_EFFECT_TYPES,
    NEXT,
    SPELL_TRAP_KINDS,
    Activate,
    ActivateEffect,
    Board,
    DeclareAttack,
    Discard,
    DrawInstead,
    EndStep,
    NormalDraw,
    NormalSummon,
    Pass,
    ReplaceDestruction,
    Replay,
    Resolve,
    SetSpellTrap,
    Target,
    Trigger,
    ZoneAction,
    schema,
    winner_word,
)
from duelcheck.model.cards import (
    ACTIVATED_BY_KIND,
    DIRECT,
    HAND,
    MONSTER_KIND,
    NO_CHOICE,
    POINTS,
    STOP,
    TARGETED,
    Cost,
    Effect,
    Kind,
    MonsterEffect,
    Until,
)
from duelcheck.model.rules import BY_EFFECT_TRIGGERS
from duelcheck.model.state import State
from duelcheck.model.system import TransitionSystem
from duelcheck.rules import Rules


@dataclass
class Move:
    """One model step a log action asks for."""

    name: str
    params: dict[str, int]


def _stat(v: int) -> int:
    return v // POINTS


def _target_params(t: Target | None) -> dict[str, int]:
    if t is None:
        return {"tplayer": 0, "tarea": 0, "tzone": 0}
    return {"tplayer": t.player, "tarea": 0 if t.area == "monster" else 1, "tzone": t.zone}


def moves(a: Any) -> list[Move]:
    """The model action(s) for one log action."""
    if isinstance(a, NormalDraw):
        return [Move("normal_draw", {})]
    if isinstance(a, DrawInstead):
        return [Move("draw_instead", {"zone": a.monster})]
    if isinstance(a, Pass):
        return [Move("pass", {"choice": NEXT[a.then] if a.then else NO_CHOICE})]
    if isinstance(a, EndStep):
        return [Move("end_step", {"choice": NEXT[a.then] if a.then else NO_CHOICE})]
    if isinstance(a, NormalSummon):
        mkind = MONSTER_EFFECT_TYPES[a.effect.type] if a.effect else MonsterEffect.NONE
        meff = EFFECTS[a.effect.effect] if a.effect else Effect.NONE
        return [Move(a.action, {"atk": _stat(a.atk), "defv": _stat(a.def_), "mkind": int(mkind), "eff": int(meff)})]
    if isinstance(a, ZoneAction):
        return [Move(a.action, {"zone": a.zone})]
    if isinstance(a, SetSpellTrap):
        params = {"kind": int(SPELL_TRAP_KINDS[a.kind]), "eff": int(EFFECTS[a.effect]), "cost": int(COSTS[a.cost])}
        return [Move("set_spell_trap", params)]
    if isinstance(a, Activate):
        zone = HAND if a.source == "hand" else a.source
        params = {"zone": zone, "kind": int(SPELL_TRAP_KINDS[a.kind]), "eff": int(EFFECTS[a.effect])}
        params["cost"] = int(COSTS[a.cost])
        return [Move("activate", {**params, **_target_params(a.target)})]
    if isinstance(a, ActivateEffect):
        kind = MONSTER_KIND[MONSTER_EFFECT_TYPES[a.type]]
        params = {"zone": a.monster, "kind": int(kind), "eff": int(EFFECTS[a.effect]), "cost": 0}
        return [Move("activate", {**params, **_target_params(a.target)})]
    if isinstance(a, Trigger):
        return [Move("trigger", {"pos": not a.decline, **_target_params(a.target)})]
    if isinstance(a, Resolve):
        params = {"atk": 0, "defv": 0, "pos": 0, "amount": 0}
        if a.summon is not None:
            params.update(atk=_stat(a.summon.atk), defv=_stat(a.summon.def_), pos=int(a.summon.position == "defense"))
        if a.atk_change is not None:
            params["amount"] = _stat(a.atk_change)
        if a.by_effect_trigger is not None:
            params["eff"] = int(EFFECTS[a.by_effect_trigger])
        return [Move("resolve", params)]
    if isinstance(a, DeclareAttack):
        return [Move("declare_attack", {"zone": a.attacker, "tzone": DIRECT if a.target == "direct" else a.target})]
    if isinstance(a, Replay):
        tz = {"direct": DIRECT, "stop": STOP}.get(a.target, a.target) if isinstance(a.target, str) else a.target
        return [Move("replay_select", {"tzone": int(tz)})]
    if isinstance(a, ReplaceDestruction):
        return [Move("replace_destruction", {"pos": not a.decline})]
    if isinstance(a, Discard):
        params = {"eff": int(EFFECTS[a.from_hand_trigger]) if a.from_hand_trigger else 0}
        return [Move("discard", {**params, "pos": a.by_effect_trigger is not None})]
    raise AssertionError(f"unhandled action {a!r}")  # pragma: no cover


def is_log(data: Any) -> bool:
    return isinstance(data, dict) and "format" in data and "states" not in data


def dump_schema() -> str:
    return json.dumps(schema(), indent=2, sort_keys=True) + "\n"


def board_state(ts: TransitionSystem, board: Board, source: str) -> State:
    """The model state a board describes (errors name the place in the log)."""
    return _Board(ts, source).state(board)


def board_of(s: State) -> dict[str, Any]:
    """A model state as a log board (JSON), the inverse of board_state: test boards for engines."""
    g, r, turn = s.g, s.r, s.g("turn")
    out: dict[str, Any] = {**_common(s), **_flags(s)}
    if g("window"):
        out["response_window"] = True
    if g("ds_chained"):
        out["damage_step_chain_resolved"] = True
    if g("winner"):
        out["winner"] = winner_word(g("winner"))
    players = []
    for p in (0, 1):
        monsters = [
            {**_monster(s, p, z), **({"summoned_turn": turn} if g("m_fresh", p, z) else {})}
            for z in range(r.monster_zones)
            if g("m_occ", p, z)
        ]
        spells = [
            {**_spell_trap(s, p, z), **({"set_turn": turn} if g("s_fresh", p, z) else {})}
            for z in range(r.spell_trap_zones)
            if g("s_occ", p, z)
        ]
        pending, delayed = _pending(s, p), _delayed(s, p)
        players.append(
            {
                **_player(s, p),
                "monsters": monsters,
                "spells_traps": spells,
                **({"pending_trigger": pending} if pending else {}),
                **({"delayed_effect": delayed} if delayed else {}),
                **({"replacing": True} if g("replacing", p) else {}),
                **({"no_damage_until": Until(g("no_damage", p)).name.lower()} if g("no_damage", p) else {}),
            }
        )
    out["players"] = players
    out["chain"] = [_link(s, j) for j in range(g("chain_len"))]
    attack = _attack(s)
    if attack is not None:
        out["attack"] = attack
    return out


CHOICE_NAME = {code: name for name, code in NEXT.items()}


def summoned(pre: State, post: State) -> bool:
    """Whether a monster joined the field (a resolving link Special Summoned one)."""

    def monsters(s: State) -> int:
        return sum(1 for key in s.v if key[0] == "m_occ" and s.v[key])

    return monsters(post) > monsters(pre)


def _target_out(p: dict[str, int]) -> dict[str, Any]:
    area = "spell_trap" if p["tarea"] else "monster"
    return {"player": p["tplayer"], "area": area, "zone": p["tzone"]}


def log_action(pre: State, name: str, params: dict[str, int], post: State | None = None) -> dict[str, Any]:
    """A model action taken in `pre` (leading to `post`) as a log action (JSON), the inverse of `moves`."""
    p = params
    if name == "discard":
        out: dict[str, Any] = {"action": name}
        if p.get("eff"):
            out["from_hand_trigger"] = Effect(p["eff"]).name.lower()
        if p.get("pos"):  # 001:L119: the model does not say which effect: the catalogue's only one
            out["by_effect_trigger"] = BY_EFFECT_TRIGGERS[0].name.lower()
        return out
    if name == "normal_draw":
        return {"action": name}
    if name == "draw_instead":
        return {"action": name, "monster": p["zone"]}
    if name in ("pass", "end_step", "end_steps"):  # end_steps: only a step the rules refused, shown as it is
        out = {"action": name}
        if p.get("choice", NO_CHOICE) != NO_CHOICE:
            out["then"] = CHOICE_NAME[p["choice"]]
        return out
    if name in ("normal_summon", "set_monster"):
        out = {"action": name, "atk": p["atk"] * POINTS, "def": p["defv"] * POINTS}
        if p.get("mkind"):
            mkind = MonsterEffect(p["mkind"])
            out["effect"] = {"type": EFFECT_TYPE_NAME[mkind], "effect": Effect(p["eff"]).name.lower()}
        return out
    if name in ("flip_summon", "change_position"):
        return {"action": name, "zone": p["zone"]}
    if name == "set_spell_trap":
        out = {"action": name, "kind": KIND_NAME[Kind(p["kind"])], "effect": Effect(p["eff"]).name.lower()}
        if p.get("cost"):
            out["cost"] = COST_NAME[Cost(p["cost"])]
        return out
    if name == "activate":
        kind = Kind(p["kind"])
        if kind in ACTIVATED_BY_KIND:
            out = {
                "action": "activate_effect",
                "monster": p["zone"],
                "type": EFFECT_TYPE_NAME[ACTIVATED_BY_KIND[kind]],
                "effect": Effect(p["eff"]).name.lower(),
            }
        else:
            out = {
                "action": "activate",
                "from": "hand" if p["zone"] == HAND else p["zone"],
                "kind": KIND_NAME[kind],
                "effect": Effect(p["eff"]).name.lower(),
            }
            if p.get("cost"):
                out["cost"] = COST_NAME[Cost(p["cost"])]
        if Effect(p["eff"]) in TARGETED:
            out["target"] = _target_out(p)
        return out
    if name == "replace_destruction":
        return {"action": name, **({} if p.get("pos") else {"decline": True})}
    if name == "trigger":
        out = {"action": "trigger"}
        if not p.get("pos"):
            out["decline"] = True
        elif post is not None and Effect(post.g("c_eff", post.g("chain_len") - 1)) in TARGETED:
            out["target"] = _target_out(p)
        return out
    if name == "resolve":
        out = {"action": "resolve"}
        if p.get("atk") or p.get("defv") or p.get("pos") or (post is not None and summoned(pre, post)):
            out["summon"] = {
                "atk": p.get("atk", 0) * POINTS,
                "def": p.get("defv", 0) * POINTS,
                "position": "defense" if p.get("pos") else "attack",
            }
        if p.get("amount"):
            out["atk_change"] = p["amount"] * POINTS
        if p.get("eff"):
            out["by_effect_trigger"] = Effect(p["eff"]).name.lower()
        return out
    if name == "declare_attack":
        return {"action": name, "attacker": p["zone"], "target": "direct" if p["tzone"] == DIRECT else p["tzone"]}
    if name == "replay_select":
        tz = p["tzone"]
        return {"action": "replay", "target": {DIRECT: "direct", STOP: "stop"}.get(tz, tz)}
    raise AssertionError(f"unhandled action {name}")  # pragma: no cover


def log_of(steps: list[tuple[str, dict[str, int], State]], rules: Rules, title: str = "") -> dict[str, Any]:
    """A play (the first entry's state is the board) as a duel log with full observed states."""
    from duelcheck.model.system import parts_of

    first = steps[0][2]
    actions = []
    for (_, _, before), (whole, whole_params, after) in itertools.pairwise(steps):
        pre = before
        for part in parts_of(before, whole, whole_params, after):  # a composite step as the actions it takes
            entry = log_action(pre, part.action, part.params, part.state)
            entry["observed"] = describe(part.state)
            actions.append(entry)
            pre = part.state
    doc: dict[str, Any] = {"format": FORMAT}
    if title:
        doc["title"] = title
    doc["rules"] = rules.changed()
    doc["board"] = board_of(first)
    doc["actions"] = actions
    return doc
