"""The cards the ygopro adapter deals, written here: codes, the card reader's data and the Lua scripts.

The model's hands and decks are counts; an engine's hold cards. A card of the model's catalogue is written
in the duel-log format's words: a Normal Monster as `{"atk": 1500, "def": 1200}`, a Spell or Trap as
`{"kind": "quick_play_spell", "effect": "draw", "cost": "pay_lp"}`. Each has a code of its own, so that the
card reader and a message from the core name it:

    Normal Monster   10,000,000 + ATK/100 * 1000 + DEF/100     (Level 4: no Tribute Summon, the model has none)
    Spell or Trap    20,000,000 + kind * 10,000 + effect * 100 + cost   (the model's own numbers of each)
    Effect Monster   30,000,000 + (type * 16 + effect) * 100,000 + ATK/100 * 1000 + DEF/100

No script of ygopro's is used. A Normal Monster needs none; each Spell and Trap's script is written below
from its kind, effect and cost, against the core's Lua API, with the constants it needs defined here (the
values of the core's public headers). The three files the core asks for when a duel is created
(constant.lua, utility.lua, procedure.lua) are answered with those constants and nothing else.

Every card of the model's catalogue has a script: each Spell/Trap kind with each effect and cost, and each
monster effect type (Ignition, Quick, Flip, "destroyed by battle" trigger) with each effect the model lets it
carry. What the model decides on resolution is asked of the player by the script, so that the log's own
`resolve` says it: the monster a Special Summon brings (chosen from the hand, then its position) and the ATK a
change leaves (announced as a number). Two kinds are written in the core's nearest words: the model's Equip
Spell equips nothing and its Field Spell stays in a Spell & Trap Zone (docs/model.md), so both are dealt to
the core as Continuous Spells, the core's kind for a Spell that stays where it was activated.

`difftest`'s random decks deal the cards whose offers the core lists whole at one decision (`DEALT_KINDS`,
`DEALT_EFFECTS`: no target, no choice on resolution, no phase skipped); a board's log may hold any card.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from duelcheck.adapters.ocgcore import (
    TYPE_CONTINUOUS,
    TYPE_COUNTER,
    TYPE_EFFECT,
    TYPE_FLIP,
    TYPE_MONSTER,
    TYPE_NORMAL,
    TYPE_QUICKPLAY,
    TYPE_RITUAL,
    TYPE_SPELL,
    TYPE_TRAP,
    Card,
)
from duelcheck.errors import InputError
from duelcheck.model.cards import (
    ATK_CAP,
    CONTINUOUS_CARDS,
    DIRECT_ATK_MAX,
    HAND,
    LP_COST,
    POINTS,
    STAT_VALUES,
    Cost,
    Effect,
    Kind,
    MonsterEffect,
)
from duelcheck.model.rules import MONSTER_EFFECTS
from duelcheck.rules import Rules

MONSTER_BASE = 10_000_000
SPELL_BASE = 20_000_000
LEVEL = 4

# each Spell/Trap kind with the card type the core reads (common.h); Equip and Field: see above
KIND_TYPE = {
    Kind.NORMAL_SPELL: TYPE_SPELL,
    Kind.QUICK_SPELL: TYPE_SPELL | TYPE_QUICKPLAY,
    Kind.CONT_SPELL: TYPE_SPELL | TYPE_CONTINUOUS,
    Kind.EQUIP_SPELL: TYPE_SPELL | TYPE_CONTINUOUS,
    Kind.FIELD_SPELL: TYPE_SPELL | TYPE_CONTINUOUS,
    Kind.RITUAL_SPELL: TYPE_SPELL | TYPE_RITUAL,
    Kind.NORMAL_TRAP: TYPE_TRAP,
    Kind.CONT_TRAP: TYPE_TRAP | TYPE_CONTINUOUS,
    Kind.COUNTER_TRAP: TYPE_TRAP | TYPE_COUNTER,
}
# what difftest's random decks deal: the cards whose every offer the core lists at one decision
DEALT_KINDS = (
    Kind.NORMAL_SPELL,
    Kind.QUICK_SPELL,
    Kind.CONT_SPELL,
    Kind.NORMAL_TRAP,
    Kind.CONT_TRAP,
    Kind.COUNTER_TRAP,
)
DEALT_EFFECTS = (Effect.DRAW, Effect.DESTROY_ALL_MONSTERS, Effect.NEGATE, Effect.NEGATE_ATTACK, Effect.NONE)
KIND_WORD = {
    Kind.NORMAL_SPELL: "normal_spell",
    Kind.QUICK_SPELL: "quick_play_spell",
    Kind.CONT_SPELL: "continuous_spell",
    Kind.EQUIP_SPELL: "equip_spell",
    Kind.FIELD_SPELL: "field_spell",
    Kind.RITUAL_SPELL: "ritual_spell",
    Kind.NORMAL_TRAP: "normal_trap",
    Kind.CONT_TRAP: "continuous_trap",
    Kind.COUNTER_TRAP: "counter_trap",
}
WORD_KIND = {w: k for k, w in KIND_WORD.items()}
# a monster's effect the cores read another way, with no script here (docs/engine-findings.md F16): the effect
# applied "instead of conducting your normal draw" (6.3.1), which the cores' cards activate as a trigger before the
# draw; the rules' side deals no such monster
UNSCRIPTED_MONSTER_EFFECTS = (Effect.SEARCH_INSTEAD_OF_DRAW,)
MONSTER_BASE_EFFECT = 30_000_000
_EFFECTS_PER_TYPE = 32  # a monster's code: its effect type times this, plus its effect (the catalogue fits in 5 bits)
TYPE_WORD = {
    MonsterEffect.IGNITION: "ignition",
    MonsterEffect.QUICK: "quick",
    MonsterEffect.FLIP: "flip",
    MonsterEffect.TRIGGER: "trigger",
    MonsterEffect.CONTINUOUS: "continuous",
    MonsterEffect.BEFORE_DRAW: "before_draw",
    MonsterEffect.END_PHASE: "end_phase",
}
WORD_TYPE = {w: t for t, w in TYPE_WORD.items()}
EFFECT_NAMES = {e.name.lower(): e for e in Effect}
COST_WORD = {Cost.NONE: "none", Cost.DISCARD: "discard", Cost.PAY_LP: "pay_lp"}
WORD_COST = {w: c for c, w in COST_WORD.items()}


def code_of(card: dict[str, Any], where: str) -> int:
    """The code of a card written in the duel-log format's words."""
    if "kind" in card:
        kind, effect, cost = WORD_KIND.get(card["kind"]), card.get("effect"), WORD_COST.get(card.get("cost", "none"))
        if kind is None or effect not in EFFECT_NAMES or cost is None or not set(card) <= {"kind", "effect", "cost"}:
            raise InputError(
                f"{where}: a Spell or Trap is {{'kind', 'effect', 'cost'}} of the kinds "
                f"{sorted(WORD_KIND)}, the effects {sorted(EFFECT_NAMES)} and the costs {sorted(WORD_COST)}; "
                f"got {card!r}"
            )
        if EFFECT_NAMES[str(effect)] not in SCRIPTS and not _continuous_card(kind, EFFECT_NAMES[str(effect)]):
            raise InputError(f"{where}: the engines' cards have no script for the effect {effect} yet")
        return SPELL_BASE + int(kind) * 10_000 + int(EFFECT_NAMES[str(effect)]) * 100 + int(cost)
    atk, dfn = card.get("atk"), card.get("def")
    ok = all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= ATK_CAP * POINTS and v % POINTS == 0
        for v in (atk, dfn)
    )
    extra = card.get("effect")
    given: dict[str, Any] = extra if isinstance(extra, dict) else {}
    mtype, meff = WORD_TYPE.get(str(given.get("type"))), EFFECT_NAMES.get(str(given.get("effect")))
    monster_effect = mtype is not None and meff is not None and meff in MONSTER_EFFECTS[mtype] and len(given) == 2
    keys = {"atk", "def"} <= set(card) <= {"atk", "def", "effect"}
    if not ok or not keys or (extra is not None and not monster_effect):
        raise InputError(
            f"{where}: a monster is {{'atk': N, 'def': N}} (multiples of 100 from 0 to 9000), with an optional "
            f"'effect': {{'type', 'effect'}} of the model's catalogue; got {card!r}"
        )
    if meff in UNSCRIPTED_MONSTER_EFFECTS:
        raise InputError(f"{where}: the engines' cards have no script for the effect {given['effect']} yet")
    stats_part = int(atk) // POINTS * 1000 + int(dfn) // POINTS  # type: ignore[arg-type]
    if mtype is None or meff is None:
        return MONSTER_BASE + stats_part
    return MONSTER_BASE_EFFECT + (int(mtype) * _EFFECTS_PER_TYPE + int(meff)) * 100_000 + stats_part


def _continuous_card(kind: Kind, effect: Effect) -> bool:
    """A Continuous Spell or Trap whose effect applies while it is face-up (6.3.4.3, 001:L64): its script is the
    activation and the effect a monster carries (`CONTINUOUS`), from the Spell & Trap Zone."""
    return kind in CONTINUOUS_CARDS and effect == Effect.NO_TRAPS


def card_of(code: int) -> dict[str, Any]:
    """The card a code names (the inverse of code_of)."""
    if MONSTER_BASE <= code < MONSTER_BASE + 1_000_000:
        rest = code - MONSTER_BASE
        return {"atk": rest // 1000 * POINTS, "def": rest % 1000 * POINTS}
    if SPELL_BASE <= code < SPELL_BASE + 1_000_000:
        rest = code - SPELL_BASE
        kind, effect, cost = Kind(rest // 10_000), Effect(rest // 100 % 100), Cost(rest % 100)
        return {"kind": KIND_WORD[kind], "effect": effect.name.lower(), "cost": COST_WORD[cost]}
    if MONSTER_BASE_EFFECT <= code < MONSTER_BASE_EFFECT + 100_000 * _EFFECTS_PER_TYPE * (max(MonsterEffect) + 1):
        rest = code - MONSTER_BASE_EFFECT
        mtype, meff = MonsterEffect(rest // 100_000 // _EFFECTS_PER_TYPE), Effect(rest // 100_000 % _EFFECTS_PER_TYPE)
        rest %= 100_000
        words = {"type": TYPE_WORD[mtype], "effect": meff.name.lower()}
        return {"atk": rest // 1000 * POINTS, "def": rest % 1000 * POINTS, "effect": words}
    raise KeyError(code)


def effect_of(code: int) -> str | None:
    """The effect of a Spell or Trap of ours by its code (None for anything else)."""
    try:
        card = card_of(code)
    except (KeyError, ValueError):
        return None
    effect = card.get("effect")
    return str(effect) if isinstance(effect, str) else None


def stats(code: int) -> dict[str, Any]:
    """A monster as the log's summon or Set writes it: its ATK and DEF, and its effect when it has one."""
    return dict(card_of(code))


def card_data(code: int) -> Card | None:
    """The card reader's answer for a code (None: no such card of ours)."""
    try:
        card = card_of(code)
    except (KeyError, ValueError):
        return None
    if "kind" in card:
        return Card(code, KIND_TYPE[WORD_KIND[card["kind"]]])
    if "effect" in card:
        flip = TYPE_FLIP if card["effect"]["type"] == "flip" else 0
        return Card(code, TYPE_MONSTER | TYPE_EFFECT | flip, LEVEL, card["atk"], card["def"])
    return Card(code, TYPE_MONSTER | TYPE_NORMAL, LEVEL, card["atk"], card["def"])


# the values of the core's headers (common.h, effect.h, card.h) that the scripts below use
CONSTANTS = """
LOCATION_HAND=0x02 LOCATION_MZONE=0x04 LOCATION_SZONE=0x08 LOCATION_ONFIELD=0x0c LOCATION_GRAVE=0x10
REASON_BATTLE=0x20 REASON_EFFECT=0x40 REASON_COST=0x80 REASON_DISCARD=0x4000
EFFECT_TYPE_SINGLE=0x1 EFFECT_TYPE_FIELD=0x2 EFFECT_TYPE_ACTIVATE=0x10 EFFECT_TYPE_FLIP=0x20
EFFECT_TYPE_IGNITION=0x40 EFFECT_TYPE_TRIGGER_O=0x80 EFFECT_TYPE_QUICK_O=0x100 EFFECT_TYPE_TRIGGER_F=0x200
EFFECT_FLAG_CARD_TARGET=0x10 EFFECT_FLAG_PLAYER_TARGET=0x800 EFFECT_FLAG_DAMAGE_STEP=0x4000
EFFECT_FLAG_DAMAGE_CAL=0x8000 EFFECT_FLAG_DELAY=0x10000
EFFECT_UPDATE_ATTACK=100 EFFECT_SKIP_M1=182 EFFECT_SKIP_BP=183
EFFECT_CHANGE_DAMAGE=82 EFFECT_AVOID_BATTLE_DAMAGE=201 EFFECT_NO_EFFECT_DAMAGE=335 EFFECT_CANNOT_ACTIVATE=6
EFFECT_TYPE_CONTINUOUS=0x800 EFFECT_DIRECT_ATTACK=74 EFFECT_DESTROY_REPLACE=50 EFFECT_FLAG_SINGLE_RANGE=0x20000
REASON_REPLACE=0x1000000
TYPE_TRAP=0x4
EVENT_FREE_CHAIN=1002 EVENT_CHAINING=1027 EVENT_ATTACK_ANNOUNCE=1130 EVENT_BATTLE_DESTROYED=1140
EVENT_PREDRAW=1113 EVENT_PHASE=0x1000
PHASE_MAIN1=0x04 PHASE_BATTLE_START=0x08 PHASE_BATTLE_STEP=0x10 PHASE_DAMAGE=0x20 PHASE_DAMAGE_CAL=0x40
PHASE_BATTLE=0x80 PHASE_END=0x200
RESET_EVENT=0x1000 RESETS_STANDARD=0x1fe0000 RESET_OPPO_TURN=0x20000000 RESET_PHASE=0x40000000
POS_FACEUP_ATTACK=0x1 POS_FACEUP_DEFENSE=0x4 POS_FACEDOWN_DEFENSE=0x8 POS_FACEUP=0x5
HINT_SELECTMSG=3
"""
# the hints the scripts send with the questions they ask, read back by the adapter
HINT_TARGET, HINT_SUMMON = 551, 509


class Script:
    """One effect as the core's Lua API says it: the event it answers, the target it takes (a filter and the
    locations searched, or None), what must hold to activate it, an extra condition, what it does."""

    def __init__(
        self,
        event: str,
        operation: str,
        target: tuple[str, str] | None = None,
        check: str = "true",
        condition: str | None = None,
    ):
        self.event, self.operation, self.target, self.check, self.condition = event, operation, target, check, condition


_FIRST_TARGET = "local tc=Duel.GetFirstTarget()\n    if not (tc and tc:IsRelateToEffect(e)) then return end"
_ATK_VALUES = ",".join(str(v * POINTS) for v in range(ATK_CAP + 1))


def _skip(code: str, phase: str, still_to_come: str) -> str:
    """A phase of the opponent's skipped: their next one (this turn's, when `still_to_come` holds of the present
    phase in their turn, else their next turn's), as the model keeps a flag until the phase comes: the effect
    counts from the turn it applies in, and ends when that phase has been skipped (or ended) in their turn."""
    return f"""local e1=Effect.CreateEffect(e:GetHandler())
    e1:SetType(EFFECT_TYPE_FIELD)
    e1:SetProperty(EFFECT_FLAG_PLAYER_TARGET)
    e1:SetCode({code})
    e1:SetTargetRange(0,1)
    local turn,ph,theirs=Duel.GetTurnCount(),Duel.GetCurrentPhase(),Duel.GetTurnPlayer()~=tp
    e1:SetLabel((theirs and {still_to_come}) and turn or turn+1)
    e1:SetCondition(function(e) return Duel.GetTurnCount()>=e:GetLabel() end)
    e1:SetReset(RESET_PHASE+{phase}+RESET_OPPO_TURN,(theirs and ph=={phase}) and 2 or 1)
    Duel.RegisterEffect(e1,tp)"""


def _no_damage(phase: str) -> str:
    """Its player takes no damage, battle (avoided) or effect (changed to 0), until the end of `phase` (the core
    resets a phase's effects once that phase is over, its chains resolved: the Damage Step, the Battle Phase,
    the End Phase with the hand adjusted)."""
    return f"""local e1=Effect.CreateEffect(e:GetHandler())
    e1:SetType(EFFECT_TYPE_FIELD)
    e1:SetProperty(EFFECT_FLAG_PLAYER_TARGET)
    e1:SetCode(EFFECT_AVOID_BATTLE_DAMAGE)
    e1:SetTargetRange(1,0)
    e1:SetValue(1)
    e1:SetReset(RESET_PHASE+{phase})
    Duel.RegisterEffect(e1,tp)
    local e2=e1:Clone()
    e2:SetCode(EFFECT_CHANGE_DAMAGE)
    e2:SetValue(0)
    Duel.RegisterEffect(e2,tp)
    local e3=e1:Clone()
    e3:SetCode(EFFECT_NO_EFFECT_DAMAGE)
    Duel.RegisterEffect(e3,tp)"""


# what each effect does (the model's effect catalogue, model/cards.py `Effect`; resolution: model/rules.py
# `resolve`), as the core's Lua API says it
SCRIPTS: dict[Effect, Script] = {
    Effect.NONE: Script("EVENT_FREE_CHAIN", ""),
    Effect.DRAW: Script("EVENT_FREE_CHAIN", "Duel.Draw(tp,1,REASON_EFFECT)", check="Duel.IsPlayerCanDraw(tp,1)"),
    # 001:L118, L119: "your opponent discards 1 card", a discard by a card effect (the opponent chooses the card)
    Effect.OPPONENT_DISCARDS: Script("EVENT_FREE_CHAIN", "Duel.DiscardHand(1-tp,nil,1,1,REASON_EFFECT+REASON_DISCARD)"),
    Effect.DESTROY_ALL_MONSTERS: Script(
        "EVENT_FREE_CHAIN", "Duel.Destroy(Duel.GetFieldGroup(tp,LOCATION_MZONE,LOCATION_MZONE),REASON_EFFECT)"
    ),
    Effect.NEGATE: Script("EVENT_CHAINING", "Duel.NegateActivation(ev)", check="Duel.IsChainNegatable(ev)"),
    Effect.NEGATE_ATTACK: Script("EVENT_ATTACK_ANNOUNCE", "Duel.NegateAttack()"),
    # a targeted card on the field: a monster, or another Spell/Trap
    Effect.DESTROY_CARD: Script(
        "EVENT_FREE_CHAIN", f"{_FIRST_TARGET}\n    Duel.Destroy(tc,REASON_EFFECT)", target=("nil", "LOCATION_ONFIELD")
    ),
    # the ATK it leaves is the player's to announce (the log's `resolve` says it: atk_change)
    Effect.CHANGE_ATK: Script(
        "EVENT_FREE_CHAIN",
        f"""{_FIRST_TARGET}
    if not tc:IsFaceup() then return end
    local v=Duel.AnnounceNumber(tp,{_ATK_VALUES})
    local e1=Effect.CreateEffect(e:GetHandler())
    e1:SetType(EFFECT_TYPE_SINGLE)
    e1:SetCode(EFFECT_UPDATE_ATTACK)
    e1:SetValue(v-tc:GetAttack())
    e1:SetReset(RESET_EVENT+RESETS_STANDARD)
    tc:RegisterEffect(e1)""",
        target=("Card.IsFaceup", "LOCATION_MZONE"),
    ),
    # seed 000: a face-down monster is flipped to face-up Attack Position; a face-up one changes position
    Effect.CHANGE_POSITION: Script(
        "EVENT_FREE_CHAIN",
        f"""{_FIRST_TARGET}
    if tc:IsFacedown() then Duel.ChangePosition(tc,POS_FACEUP_ATTACK)
    elseif tc:IsAttackPos() then Duel.ChangePosition(tc,POS_FACEUP_DEFENSE)
    else Duel.ChangePosition(tc,POS_FACEUP_ATTACK) end""",
        target=("nil", "LOCATION_MZONE"),
    ),
    # destroy the face-up target, then both players take damage equal to its ATK at once (Duel.Damage's step
    # flag and RDComplete: one event), so both at 0 LP is one check of the core: a drawn duel
    Effect.DESTROY_DAMAGE_BOTH: Script(
        "EVENT_FREE_CHAIN",
        f"""{_FIRST_TARGET}
    if not tc:IsFaceup() then return end
    local atk=tc:GetAttack()
    if Duel.Destroy(tc,REASON_EFFECT)>0 and atk>0 then
      Duel.Damage(tp,atk,REASON_EFFECT,true)
      Duel.Damage(1-tp,atk,REASON_EFFECT,true)
      Duel.RDComplete()
    end""",
        target=("Card.IsFaceup", "LOCATION_MZONE"),
    ),
    Effect.SET_FACE_DOWN: Script(
        "EVENT_FREE_CHAIN",
        f"{_FIRST_TARGET}\n    if tc:IsFaceup() then Duel.ChangePosition(tc,POS_FACEDOWN_DEFENSE) end",
        target=("Card.IsFaceup", "LOCATION_MZONE"),
    ),
    # the monster and its position are the player's to choose (the log's `resolve` says them: summon)
    Effect.SPECIAL_SUMMON: Script(
        "EVENT_FREE_CHAIN",
        f"""if Duel.GetLocationCount(tp,LOCATION_MZONE)<=0 then return end
    Duel.Hint(HINT_SELECTMSG,tp,{HINT_SUMMON})
    local g=Duel.SelectMatchingCard(tp,Card.IsCanBeSpecialSummoned,tp,LOCATION_HAND,0,1,1,nil,e,0,tp,false,false)
    if g:GetCount()>0 then Duel.SpecialSummon(g,0,tp,tp,false,false,POS_FACEUP) end""",
    ),
    Effect.SKIP_BP: Script("EVENT_FREE_CHAIN", _skip("EFFECT_SKIP_BP", "PHASE_BATTLE_START", "ph<=PHASE_MAIN1")),
    Effect.SKIP_MAIN1: Script("EVENT_FREE_CHAIN", _skip("EFFECT_SKIP_M1", "PHASE_MAIN1", "ph<PHASE_MAIN1")),
    # 6.3.4.4: from within the Battle Phase (its Start Step or Battle Step), straight to its End Step
    Effect.END_BATTLE_PHASE: Script(
        "EVENT_FREE_CHAIN",
        """local ph=Duel.GetCurrentPhase()
    if ph==PHASE_BATTLE_START or ph==PHASE_BATTLE_STEP then
      Duel.SkipPhase(Duel.GetTurnPlayer(),PHASE_BATTLE,RESET_PHASE+PHASE_BATTLE_STEP,1)
    end""",
        condition="local ph=Duel.GetCurrentPhase() return ph==PHASE_BATTLE_START or ph==PHASE_BATTLE_STEP",
    ),
    # lasting effects (6.3.4.3.5, 6.3.4.4, 6.3.6): "during damage calculation" (before it is made), "during the
    # Battle Phase" (the Damage Step aside: the card has no Damage Step flags), and at any time
    Effect.NO_DAMAGE_DS: Script(
        "EVENT_FREE_CHAIN",
        _no_damage("PHASE_DAMAGE"),
        condition="return Duel.GetCurrentPhase()==PHASE_DAMAGE_CAL and not Duel.IsDamageCalculated()",
    ),
    Effect.NO_DAMAGE_BP: Script(
        "EVENT_FREE_CHAIN",
        _no_damage("PHASE_BATTLE"),
        condition="local ph=Duel.GetCurrentPhase() return ph>=PHASE_BATTLE_START and ph<=PHASE_BATTLE",
    ),
    Effect.NO_DAMAGE_TURN: Script("EVENT_FREE_CHAIN", _no_damage("PHASE_END")),
    # 6.3.3: "activate only at the start of your Main Phase 1": the core's own reading of "nothing has been done
    # in this phase yet" (its phase activity)
    Effect.DRAW_MAIN1_START: Script(
        "EVENT_FREE_CHAIN",
        "Duel.Draw(tp,1,REASON_EFFECT)",
        check="Duel.IsPlayerCanDraw(tp,1)",
        condition="return Duel.GetTurnPlayer()==tp and Duel.GetCurrentPhase()==PHASE_MAIN1 "
        "and not Duel.CheckPhaseActivity()",
    ),
    # 6.3.4.1: "activate only at the start of the Battle Phase": the core's Start Step
    Effect.DRAW_BATTLE_START: Script(
        "EVENT_FREE_CHAIN",
        "Duel.Draw(tp,1,REASON_EFFECT)",
        check="Duel.IsPlayerCanDraw(tp,1)",
        condition="return Duel.GetCurrentPhase()==PHASE_BATTLE_START",
    ),
    # 6.3.4.4: "activate only during the End Step of the Battle Phase": the core's PHASE_BATTLE
    Effect.DRAW_BATTLE_END: Script(
        "EVENT_FREE_CHAIN",
        "Duel.Draw(tp,1,REASON_EFFECT)",
        check="Duel.IsPlayerCanDraw(tp,1)",
        condition="return Duel.GetCurrentPhase()==PHASE_BATTLE",
    ),
    # 6.3.6: "activate only during the End Phase"
    Effect.DRAW_END_PHASE: Script(
        "EVENT_FREE_CHAIN",
        "Duel.Draw(tp,1,REASON_EFFECT)",
        check="Duel.IsPlayerCanDraw(tp,1)",
        condition="return Duel.GetCurrentPhase()==PHASE_END",
    ),
}
_COST_LUA = {
    Cost.NONE: "",
    Cost.PAY_LP: f"""
  e:SetCost(function(e,tp,eg,ep,ev,re,r,rp,chk)
    if chk==0 then return Duel.CheckLPCost(tp,{LP_COST * POINTS}) end
    Duel.PayLPCost(tp,{LP_COST * POINTS})
  end)""",
    Cost.DISCARD: """
  e:SetCost(function(e,tp,eg,ep,ev,re,r,rp,chk)
    if chk==0 then return Duel.IsExistingMatchingCard(Card.IsDiscardable,tp,LOCATION_HAND,0,1,e:GetHandler()) end
    Duel.DiscardHand(tp,Card.IsDiscardable,1,1,REASON_COST+REASON_DISCARD,e:GetHandler())
  end)""",
}
# a monster's continuous effects (never activated): the core stops applying a field effect of a monster once it is
# destroyed by battle (its STATUS_BATTLE_DESTROYED), as 6.3.4.3.3 says
CONTINUOUS = {
    Effect.NO_TRAPS: """  e:SetType(EFFECT_TYPE_FIELD)
  e:SetProperty(EFFECT_FLAG_PLAYER_TARGET)
  e:SetCode(EFFECT_CANNOT_ACTIVATE)
  e:SetRange(LOCATION_MZONE)
  e:SetTargetRange(0,1)
  e:SetValue(function(e,re,tp) return re:IsActiveType(TYPE_TRAP) end)""",
    # 6.3.4.2 (001:L55): "while its ATK is 1000 or less, this card can attack directly"; the core asks the condition
    # at each declaration and at each check for a replay
    Effect.ATTACK_DIRECTLY: f"""  e:SetType(EFFECT_TYPE_SINGLE)
  e:SetCode(EFFECT_DIRECT_ATTACK)
  e:SetCondition(function(e) return e:GetHandler():GetAttack()<={DIRECT_ATK_MAX * POINTS} end)""",
    # 6.3.4.3.3 (001:L86): "if this card would be destroyed by battle, you can discard 1 card instead": the core asks
    # at damage calculation, where it destroys the monsters the battle determined destroyed
    Effect.DISCARD_INSTEAD: """  e:SetType(EFFECT_TYPE_SINGLE+EFFECT_TYPE_CONTINUOUS)
  e:SetProperty(EFFECT_FLAG_SINGLE_RANGE)
  e:SetRange(LOCATION_MZONE)
  e:SetCode(EFFECT_DESTROY_REPLACE)
  e:SetTarget(function(e,tp,eg,ep,ev,re,r,rp,chk)
    local c=e:GetHandler()
    if chk==0 then
      return c:IsReason(REASON_BATTLE) and Duel.IsExistingMatchingCard(Card.IsDiscardable,tp,LOCATION_HAND,0,1,nil)
    end
    return Duel.SelectEffectYesNo(tp,c,96)
  end)
  e:SetOperation(function(e,tp,eg,ep,ev,re,r,rp)
    Duel.DiscardHand(tp,Card.IsDiscardable,1,1,REASON_EFFECT+REASON_DISCARD+REASON_REPLACE)
  end)""",
}
# how each monster effect type is activated: the core's effect type, its event, and when it is due
_MONSTER_TYPE = {
    MonsterEffect.IGNITION: ("EFFECT_TYPE_IGNITION", None, None),
    MonsterEffect.QUICK: ("EFFECT_TYPE_QUICK_O", "", None),  # the effect's own event
    # 6.3.4.3.4: a Flip effect; the model lets the player decline it (an optional trigger, never missed)
    MonsterEffect.FLIP: ("EFFECT_TYPE_SINGLE+EFFECT_TYPE_FLIP+EFFECT_TYPE_TRIGGER_O", None, None),
    # 6.3.4.3.5: "when this card is destroyed by battle and sent to the Graveyard"
    MonsterEffect.TRIGGER: (
        "EFFECT_TYPE_SINGLE+EFFECT_TYPE_TRIGGER_O",
        "EVENT_BATTLE_DESTROYED",
        "local c=e:GetHandler() return c:IsLocation(LOCATION_GRAVE) and c:IsReason(REASON_BATTLE)",
    ),
    # 6.3.1 (001:L16): "before your normal draw in your Draw Phase": the core raises the event before it draws
    MonsterEffect.BEFORE_DRAW: (
        "EFFECT_TYPE_FIELD+EFFECT_TYPE_TRIGGER_O",
        "EVENT_PREDRAW",
        "return tp==Duel.GetTurnPlayer()",
    ),
    # 6.3.6 (001:L116): "during each End Phase", mandatory: the core's phase event of the End Phase
    MonsterEffect.END_PHASE: ("EFFECT_TYPE_FIELD+EFFECT_TYPE_TRIGGER_F", "EVENT_PHASE+PHASE_END", None),
}


# up to before damage calculation: the Damage Step's start and the timing before damage calculation
_NOT_CALCULATED = "(ph~=PHASE_DAMAGE or not Duel.IsDamageCalculated())"
BEFORE_DAMAGE_CALCULATION = f"local ph=Duel.GetCurrentPhase() return ph~=PHASE_DAMAGE_CAL and {_NOT_CALCULATED}"


def damage_step(kind: str | None, effect: Effect, rules: Rules) -> str:
    """When the card may be activated in the Damage Step (the core asks for flags; a card without them is not
    offered there): "whole" (every timing, damage calculation too), "before" (up to before damage calculation),
    or "" (never). 6.3.4.3: Counter Traps and negating effects throughout, ATK/DEF changes up to before damage
    calculation; seed 000's older reading (damage_step_activations = "seed-000"): only ATK/DEF changes and
    Counter Traps, up to before damage calculation."""
    if rules.damage_step_activations == "seed-000":
        return "before" if kind == "counter_trap" or effect == Effect.CHANGE_ATK else ""
    if kind == "counter_trap" or effect in (Effect.NEGATE, Effect.NO_DAMAGE_DS):
        return "whole"  # a card "during damage calculation": its own condition says the timing
    return "before" if effect == Effect.CHANGE_ATK else ""


def _effect_lua(
    effect: Effect,
    effect_type: str,
    event: str | None,
    cost: Cost,
    in_damage_step: str,
    condition: str | None,
    own: bool,
) -> str:
    """One effect's registration. `own`: the card itself may not be its own target (a Spell or Trap: "another
    Spell/Trap")."""
    sc = SCRIPTS[effect]
    lines = [f"  e:SetType({effect_type})"]
    if event:
        lines.append(f"  e:SetCode({event})")
    ds_flags = {"whole": ["EFFECT_FLAG_DAMAGE_STEP", "EFFECT_FLAG_DAMAGE_CAL"], "before": ["EFFECT_FLAG_DAMAGE_STEP"]}
    flags = list(ds_flags.get(in_damage_step, []))
    if sc.target is not None:
        flags.append("EFFECT_FLAG_CARD_TARGET")
    if "TRIGGER" in effect_type:
        flags.append("EFFECT_FLAG_DELAY")
    if flags:
        lines.append(f"  e:SetProperty({'+'.join(flags)})")
    if "IGNITION" in effect_type or "QUICK" in effect_type or "FIELD" in effect_type:
        lines.append("  e:SetRange(LOCATION_MZONE)")
        lines.append("  e:SetCountLimit(1)")  # the model's catalogue: a monster's effect is used once per turn
    before = BEFORE_DAMAGE_CALCULATION if in_damage_step == "before" else None
    conditions = [c for c in (condition, sc.condition, before) if c]
    if conditions:
        body = " and ".join(f"(function() {c} end)()" for c in conditions)
        lines.append(f"  e:SetCondition(function(e,tp,eg,ep,ev,re,r,rp) return {body} end)")
    if sc.target is not None:
        filt, where = sc.target
        exclude = "e:GetHandler()" if own else "nil"
        check = f"Duel.IsExistingTarget({filt},tp,{where},{where},1,{exclude})"
        select = (
            f"Duel.Hint(HINT_SELECTMSG,tp,{HINT_TARGET})\n"
            f"    Duel.SelectTarget(tp,{filt},tp,{where},{where},1,1,{exclude})"
        )
    else:
        check, select = sc.check, ""
    lines.append(
        f"""  e:SetTarget(function(e,tp,eg,ep,ev,re,r,rp,chk,chkc)
    if chkc then return false end
    if chk==0 then return {check} end
    {select}
  end)
  e:SetOperation(function(e,tp,eg,ep,ev,re,r,rp)
    {sc.operation}
  end){_COST_LUA[cost]}"""
    )
    return "\n".join(lines)


def scripts_for(rules: Rules) -> Callable[[str], bytes | None]:
    """The script reader for a rule set (the cards' Damage Step flags follow the rules' reading)."""
    return lambda name: script(name, rules)


def script(name: str, rules: Rules | None = None) -> bytes | None:
    """The script reader's answer: the constants for the three files the core loads first; a card's script
    for its code under the rules (default: the official ones); nothing for anything else (a Normal Monster
    needs none)."""
    rules = rules or Rules()
    base = name.rsplit("/", 1)[-1]
    if base in ("constant.lua", "utility.lua", "procedure.lua"):
        return CONSTANTS.encode() if base == "constant.lua" else b""
    if not (base.startswith("c") and base.endswith(".lua") and base[1:-4].isdigit()):
        return None
    code = int(base[1:-4])
    try:
        card = card_of(code)
    except (KeyError, ValueError):
        return None
    if "kind" in card and _continuous_card(WORD_KIND[card["kind"]], Effect[card["effect"].upper()]):
        applied = CONTINUOUS[Effect.NO_TRAPS].replace("LOCATION_MZONE", "LOCATION_SZONE")
        body = f"""  e:SetType(EFFECT_TYPE_ACTIVATE)
  e:SetCode(EVENT_FREE_CHAIN){_COST_LUA[WORD_COST[card["cost"]]]}
  c:RegisterEffect(e)
  e=Effect.CreateEffect(c)
{applied}"""
    elif "kind" in card:
        effect = Effect[card["effect"].upper()]
        body = _effect_lua(
            effect,
            "EFFECT_TYPE_ACTIVATE",
            SCRIPTS[effect].event,
            WORD_COST[card["cost"]],
            damage_step(card["kind"], effect, rules),
            None,
            own=True,
        )
    elif "effect" in card and card["effect"]["type"] == "continuous":
        body = CONTINUOUS[Effect[card["effect"]["effect"].upper()]]
    elif "effect" in card:
        mtype, effect = WORD_TYPE[card["effect"]["type"]], Effect[card["effect"]["effect"].upper()]
        effect_type, event, condition = _MONSTER_TYPE[mtype]
        body = _effect_lua(
            effect,
            effect_type,
            SCRIPTS[effect].event if event == "" else event,
            Cost.NONE,
            damage_step(None, effect, rules),
            condition,
            own=False,
        )
    else:
        return None
    text = f"""
local s=self_table
function s.initial_effect(c)
  local e=Effect.CreateEffect(c)
{body}
  c:RegisterEffect(e)
end
"""
    return text.encode()


def random_deck(rng: random.Random, size: int) -> list[dict[str, Any]]:
    """A deck of Normal Monsters with the ATK and DEF the model's simulation tries (0 to 3000)."""
    return [{"atk": rng.choice(STAT_VALUES) * POINTS, "def": rng.choice(STAT_VALUES) * POINTS} for _ in range(size)]


def mixed_deck(rng: random.Random, size: int) -> list[dict[str, Any]]:
    """A deck of two thirds Normal Monsters and one third Spells and Traps of the kinds, effects and costs dealt."""
    out: list[dict[str, Any]] = []
    for _ in range(size):
        if rng.random() < 2 / 3:
            out.append({"atk": rng.choice(STAT_VALUES) * POINTS, "def": rng.choice(STAT_VALUES) * POINTS})
        else:
            kind = rng.choice(sorted(KIND_WORD[k] for k in DEALT_KINDS))
            effect = rng.choice(sorted(e.name.lower() for e in DEALT_EFFECTS))
            out.append({"kind": kind, "effect": effect, "cost": rng.choice(sorted(WORD_COST))})
    return out


# what `--decks full` deals besides: every effect (a target is asked of a second duel: ygopro.py
# `_probe_targets`; a Special Summon's monster and an ATK change are chosen by the rules' side and told to the
# engine: difftest `resolutions`) but a skipped Main Phase 1, whose next phase the core asks inside Main Phase 1
# where the rules have no decision (6.3.3: they choose it as the phase before ends); the boards play it. The
# effects with no script for the cores yet (the delayed draws, `DELAYED`): the rules' side keeps them out of
# the decks it deals; nor "your opponent discards 1 card" yet: which card the opponent discards the rules' side
# would have to choose and tell the engine, as it does a Special Summon's monster (a log's play takes it)
FULL_EFFECTS = tuple(e for e in Effect if e not in (Effect.SKIP_MAIN1, Effect.OPPONENT_DISCARDS) and e in SCRIPTS)
# nor monsters with a mandatory End Phase effect: the cores ask the turn player to activate it before they may pass
# (docs/engine-findings.md F18), where the rules hold it until both players pass (6.3.6, 001:L116), so the two sides'
# decisions do not line up one for one; a log's play (a board, tests/data/effect-plays.json) takes it on both sides
FULL_MONSTER_TYPES = tuple(sorted(t for t in MONSTER_EFFECTS if t != MonsterEffect.END_PHASE))


def full_deck(rng: random.Random, size: int) -> list[dict[str, Any]]:
    """A deck of the whole catalogue but the cards above: a third Normal Monsters, a third monsters with an
    effect, a third Spells and Traps of every kind (targeted ones too) with every cost."""
    out: list[dict[str, Any]] = []
    for _ in range(size):
        roll = rng.random()
        stats = {"atk": rng.choice(STAT_VALUES) * POINTS, "def": rng.choice(STAT_VALUES) * POINTS}
        if roll < 1 / 3:
            out.append(stats)
        elif roll < 2 / 3:
            mtype = rng.choice(FULL_MONSTER_TYPES)
            carried = rng.choice([e for e in MONSTER_EFFECTS[mtype] if e in FULL_EFFECTS or e in CONTINUOUS])
            out.append({**stats, "effect": {"type": TYPE_WORD[mtype], "effect": carried.name.lower()}})
        else:
            kind = rng.choice(sorted(KIND_WORD.values()))
            words = sorted(e.name.lower() for e in FULL_EFFECTS)
            if _continuous_card(WORD_KIND[kind], Effect.NO_TRAPS):  # a Continuous Spell or Trap's own (001:L64)
                words.append(Effect.NO_TRAPS.name.lower())
            word = rng.choice(words)
            out.append({"kind": kind, "effect": word, "cost": rng.choice(sorted(WORD_COST))})
    return out


DEALERS = {"monsters": random_deck, "mixed": mixed_deck, "full": full_deck}


def stacked_deck(
    log: dict[str, Any] | None, player: int, rules: Rules, filler: Callable[[], dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """A deck for one player that lets a log's play happen: every card the player plays from the hand is
    drawn before it is played (the log gives only what is played; the hand is a count in the model). The log's
    own `decks`, when it has them, are used as they are; the cards a play never names are `filler()` (default:
    0 ATK, 0 DEF)."""
    if log is not None and log.get("decks"):
        return [dict(c) for c in log["decks"][player]]
    fill = filler or (lambda: {"atk": 0, "def": 0})
    deck: list[dict[str, Any] | None] = [None] * rules.deck_size
    for drawn, card in played_cards(log, player, rules):
        free = next((i for i in range(min(drawn, len(deck))) if deck[i] is None), None)
        if free is None:
            raise InputError(f"the log plays a card player {player} has not drawn")
        deck[free] = card
    return [c if c is not None else dict(fill()) for c in deck]


def _played_from_hand(ts: Any, step: Any, monster: Any, card: Any) -> Any:
    """A symbolic step (model/system.py `SymStep`) whose monster summoned or Set from the hand meets `monster`
    and whose Spell or Trap Set or activated from the hand meets `card`."""
    import z3

    index = {a.name: i for i, a in enumerate(ts.actions)}
    act = step.act
    return z3.And(
        z3.Implies(z3.Or(act == index["normal_summon"], act == index["set_monster"]), monster),
        z3.Implies(act == index["set_spell_trap"], card),
        z3.Implies(z3.And(act == index["activate"], step.params["zone"] == HAND), card),
        # a monster whose effect triggers when it is sent from the hand to the Graveyard is dealt no script
        z3.Implies(act == index["discard"], step.params["eff"] == 0),
    )


def dealable(ts: Any, step: Any) -> Any:
    """A symbolic step that plays from the hand only cards this module deals: a Normal Monster (no effect)
    within the codes' ATK/DEF, a Spell or Trap of the kinds and effects dealt."""
    import z3

    p = step.params
    card = z3.And(
        z3.Or(*(p["kind"] == int(k) for k in DEALT_KINDS)), z3.Or(*(p["eff"] == int(e) for e in DEALT_EFFECTS))
    )
    monster = z3.And(p["mkind"] == 0, p["atk"] <= ATK_CAP, p["defv"] <= ATK_CAP)
    return _played_from_hand(ts, step, monster, card)


def dealable_full(ts: Any, step: Any) -> Any:
    """`dealable` for `--decks full`: a monster (an effect monster too, with an effect the catalogue lets its
    type carry) within the codes' ATK/DEF, any Spell or Trap kind, every effect but a skipped Main Phase 1
    (`FULL_EFFECTS`: its next phase is chosen where the rules have no decision)."""
    import z3

    p = step.params
    allowed = z3.Or(*(p["eff"] == int(e) for e in FULL_EFFECTS))
    monster = z3.And(z3.Or(p["mkind"] == 0, allowed), p["atk"] <= ATK_CAP, p["defv"] <= ATK_CAP)
    return _played_from_hand(ts, step, monster, allowed)


# the steps a guided play may take, for each kind of deck dealt (its cards are stacked into that deck)
DEALABLE = {"monsters": dealable, "mixed": dealable, "full": dealable_full}


def played_cards(log: dict[str, Any] | None, player: int, rules: Rules) -> list[tuple[int, dict[str, Any]]]:
    """Each card a player plays from the hand in a log, with how many cards they had drawn by then (the
    opening hand included), by the rules' own replay of the log: the cards summoned, Set and activated from
    the hand, and the monsters their effects Special Summon from it."""
    from duelcheck.log import Activate, NormalSummon, Resolve, SetSpellTrap, moves, parse
    from duelcheck.model.system import TransitionSystem

    if log is None:
        return []
    doc = parse(log, "<log>")
    ts = TransitionSystem(rules)
    state = ts.init()
    out: list[tuple[int, dict[str, Any]]] = []
    for entry in doc.actions:
        drawn = rules.deck_size - state.g("deck", player)
        actor = state.g("prio")
        if isinstance(entry, Resolve) and state.g("chain_len"):
            actor = state.g("c_owner", state.g("chain_len") - 1)  # a Special Summon is the link owner's
        for mv in moves(entry):
            got = ts.apply(state, mv.name, mv.params)
            if not got.ok or got.state is None:
                return out  # the rest of the log is not played (its illegal action is the engine's to refuse)
            state = got.state
        if actor != player:
            continue
        if isinstance(entry, NormalSummon):
            card: dict[str, Any] = {"atk": entry.atk, "def": entry.def_}
            if entry.effect is not None:
                card["effect"] = entry.effect.model_dump()
            out.append((drawn, card))
        elif isinstance(entry, SetSpellTrap) or (isinstance(entry, Activate) and entry.source == "hand"):
            out.append((drawn, {"kind": entry.kind, "effect": entry.effect, "cost": entry.cost}))
        elif isinstance(entry, Resolve) and entry.summon is not None:
            out.append((drawn, {"atk": entry.summon.atk, "def": entry.summon.def_}))
    return out
