"""A model state in the log's words (`describe`), and the fields an observed state gives that differ from it."""

from __future__ import annotations

from typing import Any

from duelcheck.log.vocabulary import (
    COSTS,
    EFFECT_TYPE_NAME,
    LINK_KINDS,
    PENDING,
    PHASES,
    SPELL_TRAP_KINDS,
    Observed,
    winner_word,
)
from duelcheck.model.cards import (
    DIRECT,
    GRAVEYARD,
    POINTS,
    TARGETED,
    Cost,
    Effect,
    Kind,
    MonsterEffect,
    Pending,
    Phase,
    Until,
)
from duelcheck.model.state import State

PHASE_NAME = {ph: name for name, ph in PHASES.items()}


KIND_NAME = {k: name for name, k in SPELL_TRAP_KINDS.items()}


LINK_KIND_NAME = {k: name for name, k in LINK_KINDS.items()}


COST_NAME = {c: name for name, c in COSTS.items()}


PENDING_NAME = {x: name for name, x in PENDING.items()}


def _monster(s: State, p: int, z: int) -> dict[str, Any]:
    g = s.g
    original = {"original_atk": g("m_batk", p, z) * POINTS} if g("m_batk", p, z) != g("m_atk", p, z) else {}
    return {
        "zone": z,
        "atk": g("m_atk", p, z) * POINTS,
        **original,
        "def": g("m_defv", p, z) * POINTS,
        "position": "defense" if g("m_def", p, z) else "attack",
        "face": "up" if g("m_up", p, z) else "down",
        "position_changed": bool(g("m_moved", p, z)),
        "attacked": bool(g("m_decl", p, z)),
        "destroyed_by_battle": bool(g("m_doomed", p, z)),
        "effect": _effect_card(s, p, z),
        "effect_used": bool(g("m_used", p, z)),
    }


def _effect_card(s: State, p: int, z: int) -> dict[str, str] | None:
    mkind = MonsterEffect(s.g("m_kind", p, z))
    if mkind == MonsterEffect.NONE:
        return None
    return {"type": EFFECT_TYPE_NAME[mkind], "effect": Effect(s.g("m_eff", p, z)).name.lower()}


def _pending(s: State, p: int) -> dict[str, Any] | None:
    g = s.g
    state = Pending(g("trig", p))
    if state == Pending.NONE:
        return None
    zone = g("trig_zone", p)
    return {
        "state": PENDING_NAME[state],
        "effect": Effect(g("trig_eff", p)).name.lower(),
        "zone": "graveyard" if zone == GRAVEYARD else zone,
        # the property layer's history: the effect of a monster a card effect discarded (001:L119)
        "discarded_by_effect": bool(s.v.get(("h_trig_discard", p))),
    }


def _delayed(s: State, p: int) -> dict[str, Any] | None:
    left = s.g("later", p)
    if left == 0:
        return None
    effect = Effect.DRAW_LATER_OWN if s.g("later_own", p) else Effect.DRAW_LATER
    return {"effect": effect.name.lower(), "turns_left": left - 1}


def _spell_trap(s: State, p: int, z: int) -> dict[str, Any]:
    g = s.g
    return {
        "zone": z,
        "kind": LINK_KIND_NAME.get(Kind(g("s_kind", p, z)), str(g("s_kind", p, z))),
        "effect": Effect(g("s_eff", p, z)).name.lower(),
        "face": "up" if g("s_up", p, z) else "down",
        "cost": COST_NAME[Cost(g("s_cost", p, z))],
    }


def _player(s: State, p: int) -> dict[str, Any]:
    g = s.g
    return {
        "lp": g("lp", p) * POINTS,
        "hand": g("hand", p),
        "deck": g("deck", p),
        "graveyard": g("gy", p),
        "skip_battle_phase": bool(g("skip_bp", p)),
        "skip_main_phase_1": bool(g("skip_m1", p)),
    }


def _link(s: State, j: int) -> dict[str, Any]:
    g = s.g
    kind = Kind(g("c_kind", j))
    out: dict[str, Any] = {
        "player": g("c_owner", j),
        "kind": LINK_KIND_NAME[kind],
        "effect": Effect(g("c_eff", j)).name.lower(),
        "zone": "graveyard" if g("c_zone", j) == GRAVEYARD else g("c_zone", j),
        "negated": bool(g("c_neg", j)),
        "left_field": bool(g("c_gone", j)),
        "cost": COST_NAME[Cost(g("c_cost", j))],
    }
    if Effect(g("c_eff", j)) in TARGETED:
        area = "spell_trap" if g("c_ta", j) else "monster"
        out["target"] = {"player": g("c_tp", j), "area": area, "zone": g("c_tz", j)}
    return out


def _attack(s: State) -> dict[str, Any] | None:
    g = s.g
    if not g("attacking"):
        return None
    tgt = g("atk_tgt")
    return {
        "attacker": g("atk_zone"),
        "target": "direct" if tgt == DIRECT else tgt,
        "at_declaration": bool(g("at_decl")),
        "replay_due": bool(g("replay")),
    }


def _flags(s: State) -> dict[str, bool]:
    g = s.g
    return {
        "passed": bool(g("passed")),
        "resolving": bool(g("resolving")),
        "discarding": bool(g("discarding")),
        "drew": bool(g("drew")),
        "main_phase_1_start": bool(g("m1_start")),
    }


def _common(s: State) -> dict[str, Any]:
    g = s.g
    return {
        "turn": g("turn"),
        "turn_player": s.tp,
        "phase": PHASE_NAME[Phase(g("phase"))],
        "priority": g("prio"),
        "normal_summons": g("nsum"),
        "battle_phase_entered": bool(g("bp_done")),
    }


def describe(s: State) -> dict[str, Any]:
    """A model state as an observed state (every field), for comparison and for reports."""
    g, r = s.g, s.r
    players = []
    for p in (0, 1):
        monsters = [
            {**_monster(s, p, z), "empty": False, "summoned_this_turn": bool(g("m_fresh", p, z))}
            if g("m_occ", p, z)
            else {"zone": z, "empty": True}
            for z in range(r.monster_zones)
        ]
        spells = [
            {**_spell_trap(s, p, z), "empty": False, "set_this_turn": bool(g("s_fresh", p, z))}
            if g("s_occ", p, z)
            else {"zone": z, "empty": True}
            for z in range(r.spell_trap_zones)
        ]
        pending, delayed = _pending(s, p), _delayed(s, p)
        players.append(
            {
                **_player(s, p),
                "monsters": monsters,
                "spells_traps": spells,
                "pending_trigger": pending or "none",
                "delayed_effect": delayed or "none",
                "replacing": bool(g("replacing", p)),
                "no_damage_until": Until(g("no_damage", p)).name.lower(),
            }
        )
    winner = g("winner")
    return {
        **_common(s),
        "winner": winner_word(winner),
        "chain_length": g("chain_len"),
        "chain": [_link(s, j) for j in range(g("chain_len"))],
        "attacking": bool(g("attacking")),
        "attack": _attack(s),
        **_flags(s),
        "players": players,
    }


def differences(observed: Observed, model: State) -> list[tuple[str, Any, Any]]:
    """(field, the model's value, the observed value) for every observed field that differs."""
    full = describe(model)
    out: list[tuple[str, Any, Any]] = []
    given = observed.model_dump(by_alias=True, exclude_none=True, exclude_defaults=False)

    def compare(obs: Any, mod: Any, path: str) -> None:
        if isinstance(obs, dict):
            for key, value in obs.items():
                compare(value, mod.get(key) if isinstance(mod, dict) else None, f"{path}.{key}" if path else key)
        elif isinstance(obs, list) and path.endswith(("monsters", "spells_traps")):
            for item in obs:
                z = item["zone"]
                slot = mod[z] if isinstance(mod, list) and z < len(mod) else {"empty": True}
                if slot.get("empty") and not item.get("empty", False) and len(item) > 1:
                    out.append((f"{path}[zone {z}]", "empty", "a card"))
                    continue
                compare({k: v for k, v in item.items() if k != "zone"}, slot, f"{path}[zone {z}]")
        elif isinstance(obs, list):
            if not isinstance(mod, list) or len(obs) != len(mod):
                out.append((f"{path} (links)", len(mod) if isinstance(mod, list) else mod, len(obs)))
                return
            for i, (o, m) in enumerate(zip(obs, mod, strict=True)):
                compare(o, m, f"{path}[{i}]")
        elif obs != mod:
            out.append((path, mod, obs))

    compare({k: v for k, v in given.items() if k != "players"}, full, "")
    for p, pl in enumerate(given.get("players") or []):
        compare(pl, full["players"][p], f"players[{p}]")
    return out
