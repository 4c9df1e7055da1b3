"""Reading a duel log: parsing with one-line errors that name the place, and a board read into a model state (every
zone and bound checked).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from duelcheck.errors import InputError
from duelcheck.log.vocabulary import (
    COSTS,
    EFFECTS,
    LINK_KINDS,
    MONSTER_EFFECT_TYPES,
    PENDING,
    PHASES,
    SPELL_TRAP_KINDS,
    UNTIL,
    Attack,
    Board,
    ChainLink,
    DuelLog,
    PlayerBoard,
    winner_code,
)
from duelcheck.model.cards import (
    ACTIVATED_BY_KIND,
    BATTLE_PHASE,
    DAMAGE_STEP,
    DIRECT,
    GRAVEYARD,
    MONSTER_KIND,
    POINTS,
    SPEED,
    TARGETED,
    Kind,
    MonsterEffect,
    Phase,
    Until,
)
from duelcheck.model.rules import BY_EFFECT_TRIGGERS
from duelcheck.model.state import Key, State, concrete_state
from duelcheck.model.system import TransitionSystem
from duelcheck.rules import Rules, load_rules, rules_from_mapping

ACTION_NAMES = (
    "normal_draw",
    "draw_instead",
    "pass",
    "end_step",
    "normal_summon",
    "set_monster",
    "flip_summon",
    "change_position",
    "set_spell_trap",
    "activate",
    "respond",
    "activate_effect",
    "trigger",
    "resolve",
    "declare_attack",
    "replay",
    "replace_destruction",
    "discard",
)


# pydantic's names for the branch of a union it tried ("constrained-int", "literal['direct']"): not places
_BRANCH = re.compile(r"^(constrained-\w+|int|str|bool|literal\[.*\]|function-\w+.*|tagged-union\[.*\])$")


def _place(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ACTION_NAMES or _BRANCH.match(str(part)):
            continue  # the discriminated union's branch: the action name is in the file already
        else:
            out += f".{part}" if out else str(part)
    return out or "(document)"


def _first_error(source: str, exc: ValidationError) -> InputError:
    err = exc.errors(include_url=False)[0]
    place = _place(tuple(err["loc"]))
    kind = err["type"]
    if kind == "extra_forbidden":
        return InputError(f"{source}: {place}: unknown field (not in the duel-log format)")
    if kind == "missing":
        return InputError(f"{source}: {place}: missing (the field is required)")
    if kind == "union_tag_invalid":
        tags = err.get("ctx", {}).get("expected_tags", "")
        return InputError(f"{source}: {place}.action: expected an action, one of {tags}")
    if kind == "union_tag_not_found":
        return InputError(f"{source}: {place}: expected an object with an 'action'")
    return InputError(f"{source}: {place}: expected {err['msg'].lower().removeprefix('input should be ')}")


def parse(data: Any, source: str) -> DuelLog:
    """Validate a parsed JSON document as a duel log; bad input raises one InputError line."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: (document): expected a JSON object")
    try:
        return DuelLog.model_validate(data)
    except ValidationError as exc:
        raise _first_error(source, exc) from None


def log_rules(log: DuelLog, source: str) -> Rules:
    if log.rules is not None and log.rules_file is not None:
        raise InputError(f"{source}: rules_file: expected either rules or rules_file, not both")
    if log.rules_file is not None:
        return load_rules(str(Path(source).parent / log.rules_file))
    return rules_from_mapping(log.rules or {}, f"{source}: rules")


def check_zone(r: Rules, at: str, z: Any, area: str) -> Any:
    """A zone number the rules' zone counts allow (the format alone allows 0 to 6); `at` names the place."""
    count = r.monster_zones if area == "monster" else r.spell_trap_zones
    if isinstance(z, int) and z >= count:
        name = "Monster" if area == "monster" else "Spell & Trap"
        raise InputError(f"{at}: expected a {name} Zone from 0 to {count - 1}")
    return z


class _Board:
    """Turns a Board into the model's state, checking what the format cannot (zone counts, totals)."""

    def __init__(self, ts: TransitionSystem, source: str):
        self.ts = ts
        self.r = ts.rules
        self.source = source

    def fail(self, where: str, expected: str) -> InputError:
        return InputError(f"{self.source}: {where}: expected {expected}")

    def zone(self, where: str, z: int, area: str) -> int:
        return check_zone(self.r, f"{self.source}: {where}", z, area)

    def state(self, b: Board) -> State:
        ts, r = self.ts, self.r
        v: dict[Key, Any] = {key: ts.schema[key[0]].zero() for key in ts.keys}
        tp = 0 if b.turn % 2 else 1
        if b.turn_player is not None and b.turn_player != tp:
            raise self.fail("board.turn_player", f"{tp}: player 0 plays the odd turns, player 1 the even turns")
        phase = PHASES[b.phase]
        v[("turn",)] = b.turn
        v[("phase",)] = int(phase)
        v[("prio",)] = tp if b.priority is None else b.priority
        v[("passed",)] = b.passed
        if b.response_window and not r.response_window:
            raise self.fail("board.response_window", "false: these rules have no response window")
        v[("window",)] = b.response_window
        v[("resolving",)] = b.resolving
        if b.damage_step_chain_resolved and not (r.damage_step_single_chain and phase in DAMAGE_STEP):
            raise self.fail(
                "board.damage_step_chain_resolved",
                "false: only in a timing of the Damage Step, under damage_step_single_chain",
            )
        v[("ds_chained",)] = b.damage_step_chain_resolved
        v[("discarding",)] = b.discarding
        if b.main_phase_1_start and phase != Phase.MAIN1:
            raise self.fail("board.main_phase_1_start", "false: only in Main Phase 1")
        v[("m1_start",)] = b.main_phase_1_start
        v[("winner",)] = winner_code(b.winner)
        must_draw = b.turn > 1 or r.first_turn_draw
        v[("drew",)] = (phase != Phase.DRAW and must_draw) if b.drew is None else b.drew
        if b.normal_summons > r.normal_summons_per_turn:
            raise self.fail("board.normal_summons", f"at most {r.normal_summons_per_turn} (normal_summons_per_turn)")
        v[("nsum",)] = b.normal_summons
        in_battle = phase in (*DAMAGE_STEP, Phase.BATTLE_START, Phase.BATTLE_STEP, Phase.BATTLE_END, Phase.MAIN2)
        v[("bp_done",)] = in_battle if b.battle_phase_entered is None else b.battle_phase_entered
        for p, pb in enumerate(b.players):
            self.player(v, p, pb, b.turn, f"board.players[{p}]")
            if b.winner is None and v[("lp", p)] <= 0:
                raise self.fail(f"board.players[{p}].lp", "above 0 while the duel goes on (at 0 LP a player has lost)")
        if b.winner == "draw" and not all(v[("lp", p)] <= 0 for p in (0, 1)):
            raise self.fail("board.winner", "a player or none: a drawn duel has both players at 0 LP")
        if len(b.chain) > r.chain_links:
            raise self.fail("board.chain", f"at most {r.chain_links} links")
        v[("chain_len",)] = len(b.chain)
        for j, link in enumerate(b.chain):
            where = f"board.chain[{j}]"
            kind = LINK_KINDS[link.kind]
            v[("c_owner", j)] = link.player
            v[("c_kind", j)] = int(kind)
            v[("c_eff", j)] = int(EFFECTS[link.effect])
            v[("c_zone", j)] = self.link_zone(f"{where}.zone", link.zone, kind)
            v[("c_neg", j)] = link.negated
            v[("c_gone", j)] = link.left_field
            v[("c_cost", j)] = int(COSTS[link.cost])
            if link.target is not None:
                t = link.target
                v[("c_tp", j)] = t.player
                v[("c_ta", j)] = 0 if t.area == "monster" else 1
                v[("c_tz", j)] = self.zone(f"{where}.target.zone", t.zone, t.area)
        if b.attack is not None:
            a = b.attack
            v[("attacking",)] = True
            v[("atk_zone",)] = self.zone("board.attack.attacker", a.attacker, "monster")
            v[("atk_tgt",)] = DIRECT if a.target == "direct" else self.zone("board.attack.target", a.target, "monster")
            v[("at_decl",)] = a.at_declaration
            v[("replay",)] = a.replay_due
            self.attack(v, a, tp, phase)
        for j, link in enumerate(b.chain):
            self.link(v, link, f"board.chain[{j}]")
        # the property layer's history (properties/history.py), as the board tells what happened this turn
        v.update(ts.history.told(concrete_state(r, ts.schema, v)))
        for p, pb in enumerate(b.players):  # 001:L119: a waiting effect a card effect's discard triggered
            waiting = pb.pending_trigger
            if waiting is not None and waiting.discarded_by_effect:
                by_effect = (
                    waiting.state == "trigger_due"
                    and waiting.zone == "graveyard"
                    and EFFECTS[waiting.effect] in BY_EFFECT_TRIGGERS
                )
                if not by_effect:
                    why = "a waiting 'trigger_due' effect from the graveyard that a discarded monster's text allows"
                    raise self.fail(f"board.players[{p}].pending_trigger.discarded_by_effect", why)
                v[("h_trig_discard", p)] = 1
        state = concrete_state(r, ts.schema, v)
        from duelcheck.properties.catalog import well_formed_facts

        if not all(well_formed_facts(state, budget=False)):
            if phase == Phase.DRAW and not v[("drew",)] and must_draw and v[("prio",)] != tp and not b.chain:
                raise self.fail(
                    "board.priority", f"{tp}: before the normal draw the turn player holds priority (6.3.1)"
                )
            raise self.fail("board", "a state the rules can reach (it breaks the model's well-formed invariant)")
        return state

    def link_zone(self, where: str, zone: int | str, kind: Kind) -> int:
        if zone == "graveyard":
            if kind != Kind.TRIGGER:
                raise self.fail(where, '"graveyard" for a trigger_effect link (and only for one)')
            return GRAVEYARD
        assert isinstance(zone, int)
        return self.zone(where, zone, "monster" if kind in MONSTER_KIND.values() else "spell_trap")

    def attack(self, v: dict[Key, Any], a: Attack, tp: int, phase: Phase) -> None:
        if phase not in (Phase.BATTLE_STEP, *DAMAGE_STEP):
            raise self.fail("board.attack", "no attack outside the Battle Step and the Damage Step")
        if phase == Phase.DMG_END:
            return  # 6.3.4.3.5: a battler destroyed by battle has gone to the Graveyard; the attack ends with the step
        if not (v[("m_occ", tp, a.attacker)] and v[("m_decl", tp, a.attacker)]):
            raise self.fail("board.attack.attacker", "a zone holding a turn player's monster with attacked: true")
        if a.target != "direct" and not a.replay_due and not v[("m_occ", 1 - tp, a.target)]:
            raise self.fail("board.attack.target", "a zone holding one of the opponent's monsters")

    def link(self, v: dict[Key, Any], link: ChainLink, where: str) -> None:
        targeted = EFFECTS[link.effect] in TARGETED
        if targeted != (link.target is not None):
            expected = f"a target: a {link.effect} link targets a card" if targeted else "no target"
            raise self.fail(f"{where}.target", expected)
        p, z, kind = link.player, link.zone, LINK_KINDS[link.kind]
        if kind in MONSTER_KIND.values():
            if link.cost != "none" or link.left_field:
                raise self.fail(where, "a monster effect's link: no cost, and not left_field")
            if z != "graveyard":
                # a trigger_effect link on the field: a "before the draw" effect (6.3.1) or a mandatory End Phase
                # effect (6.3.6)
                mtypes: tuple[MonsterEffect, ...] = (ACTIVATED_BY_KIND.get(kind, MonsterEffect.FLIP),)
                if kind == Kind.TRIGGER:
                    mtypes += (MonsterEffect.END_PHASE,)
                here = v[("m_occ", p, z)] and v[("m_kind", p, z)] in mtypes
                if not (here and v[("m_eff", p, z)] == EFFECTS[link.effect]):
                    raise self.fail(f"{where}.zone", f"the zone of player {p}'s monster with that {link.kind}")
            return
        assert isinstance(z, int)
        there = v[("s_occ", p, z)] and v[("s_up", p, z)]
        same = v[("s_kind", p, z)] == int(SPELL_TRAP_KINDS[link.kind]) and v[("s_eff", p, z)] == int(
            EFFECTS[link.effect]
        )
        if not link.left_field and not (there and same):
            raise self.fail(
                f"{where}.zone",
                f"the zone of player {p}'s face-up {link.kind} with that effect (or left_field: true)",
            )

    def player(self, v: dict[Key, Any], p: int, pb: PlayerBoard, turn: int, where: str) -> None:
        r = self.r
        v[("lp", p)] = (r.starting_lp if pb.lp is None else pb.lp) // POINTS
        v[("hand", p)] = pb.hand
        v[("gy", p)] = pb.graveyard
        v[("skip_bp", p)] = pb.skip_battle_phase
        v[("skip_m1", p)] = pb.skip_main_phase_1
        for i, m in enumerate(pb.monsters):
            at = f"{where}.monsters[{i}]"
            z = self.zone(f"{at}.zone", m.zone, "monster")
            if v[("m_occ", p, z)]:
                raise self.fail(f"{at}.zone", f"one monster per zone (zone {z} is listed twice)")
            if m.face == "down" and m.position == "attack":
                raise self.fail(f"{at}.position", "defense: a face-down monster is in Defense Position")
            v[("m_occ", p, z)] = True
            v[("m_up", p, z)] = m.face == "up"
            v[("m_def", p, z)] = m.position == "defense"
            v[("m_atk", p, z)] = m.atk // POINTS
            v[("m_batk", p, z)] = (m.atk if m.original_atk is None else m.original_atk) // POINTS
            v[("m_defv", p, z)] = m.def_ // POINTS
            v[("m_fresh", p, z)] = m.summoned_turn == turn
            v[("m_moved", p, z)] = m.position_changed
            v[("m_decl", p, z)] = m.attacked
            v[("m_doomed", p, z)] = m.destroyed_by_battle
            if m.effect is not None:
                v[("m_kind", p, z)] = int(MONSTER_EFFECT_TYPES[m.effect.type])
                v[("m_eff", p, z)] = int(EFFECTS[m.effect.effect])
            v[("m_used", p, z)] = m.effect_used
        for i, c in enumerate(pb.spells_traps):
            at = f"{where}.spells_traps[{i}]"
            z = self.zone(f"{at}.zone", c.zone, "spell_trap")
            if v[("s_occ", p, z)]:
                raise self.fail(f"{at}.zone", f"one card per zone (zone {z} is listed twice)")
            kind = SPELL_TRAP_KINDS[c.kind]
            if c.speed is not None and c.speed != SPEED[kind]:
                raise self.fail(f"{at}.speed", f"{SPEED[kind]}, the spell speed of a {c.kind} (seed 000)")
            v[("s_occ", p, z)] = True
            v[("s_up", p, z)] = c.face == "up"
            v[("s_kind", p, z)] = int(kind)
            v[("s_eff", p, z)] = int(EFFECTS[c.effect])
            v[("s_fresh", p, z)] = c.set_turn == turn and c.face == "down"
            v[("s_cost", p, z)] = int(COSTS[c.cost])
        if pb.pending_trigger is not None:
            t = pb.pending_trigger
            v[("trig", p)] = int(PENDING[t.state])
            v[("trig_eff", p)] = int(EFFECTS[t.effect])
            if t.zone == "graveyard":
                v[("trig_zone", p)] = GRAVEYARD
            else:
                v[("trig_zone", p)] = self.zone(f"{where}.pending_trigger.zone", t.zone, "monster")
        if pb.replacing and v[("phase",)] != Phase.DMG_DURING:
            raise self.fail(f"{where}.replacing", "false: a destruction replacement is decided at damage calculation")
        v[("replacing", p)] = pb.replacing
        if pb.delayed_effect is not None:  # 6.3: the turns its text still counts, plus 1 (model/state.py `later`)
            v[("later", p)] = pb.delayed_effect.turns_left + 1
            v[("later_own", p)] = pb.delayed_effect.effect == "draw_later_own"
        until, phase = UNTIL[pb.no_damage_until], v[("phase",)]
        if (until == Until.DAMAGE_STEP and phase not in DAMAGE_STEP) or (
            until == Until.BATTLE_PHASE and phase not in BATTLE_PHASE
        ):
            raise self.fail(f"{where}.no_damage_until", "a period that is going on: the phase is outside it")
        v[("no_damage", p)] = int(until)
        field = len(pb.monsters) + len(pb.spells_traps)
        deck = r.deck_size - pb.hand - pb.graveyard - field
        if pb.deck is None:
            if deck < 0:
                raise self.fail(where, f"at most {r.deck_size} cards in hand, Graveyard and field (deck_size)")
            v[("deck", p)] = deck
        elif pb.deck != deck:
            raise self.fail(
                f"{where}.deck",
                f"{deck}: deck_size {r.deck_size} minus hand, Graveyard and field (cards are conserved)",
            )
        else:
            v[("deck", p)] = pb.deck
