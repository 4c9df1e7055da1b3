"""The cards the ygopro adapter deals, written here: codes, the card reader's data and the Lua scripts.

The model's hands and decks are counts; an engine's hold cards. A card of the model's catalogue is written
in the duel-log format's words: a Normal Monster as `{"atk": 1500, "def": 1200}`, a Spell or Trap as
`{"kind": "quick_play_spell", "effect": "draw", "cost": "pay_lp"}`. Each has a code of its own, so that the
card reader and a message from the core name it:

    Normal Monster   10,000,000 + ATK/100 * 1000 + DEF/100     (Level 4: no Tribute Summon, the model has none)
    Spell or Trap    20,000,000 + kind * 10,000 + effect * 100 + cost   (the model's own numbers of each)

No script of ygopro's is used. A Normal Monster needs none; each Spell and Trap's script is written below
from its kind, effect and cost, against the core's Lua API, with the constants it needs defined here (the
values of the core's public headers). The three files the core asks for when a duel is created
(constant.lua, utility.lua, procedure.lua) are answered with those constants and nothing else.

The Spells and Traps dealt are those whose effect needs no target and no choice on resolution (`draw`,
`destroy_all_monsters`, `negate`, `negate_attack`, `none`) of the kinds that need no equip target or Field
Zone (Normal, Quick-Play and Continuous Spells; Normal, Continuous and Counter Traps).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from duelcheck.adapters.ocgcore import (
    TYPE_CONTINUOUS,
    TYPE_COUNTER,
    TYPE_MONSTER,
    TYPE_NORMAL,
    TYPE_QUICKPLAY,
    TYPE_SPELL,
    TYPE_TRAP,
    Card,
)
from duelcheck.errors import InputError
from duelcheck.model.cards import ATK_CAP, HAND, LP_COST, POINTS, STAT_VALUES, Cost, Effect, Kind
from duelcheck.rules import Rules

MONSTER_BASE = 10_000_000
SPELL_BASE = 20_000_000
LEVEL = 4

# the kinds dealt, with the card type the core reads (common.h)
KIND_TYPE = {
    Kind.NORMAL_SPELL: TYPE_SPELL,
    Kind.QUICK_SPELL: TYPE_SPELL | TYPE_QUICKPLAY,
    Kind.CONT_SPELL: TYPE_SPELL | TYPE_CONTINUOUS,
    Kind.NORMAL_TRAP: TYPE_TRAP,
    Kind.CONT_TRAP: TYPE_TRAP | TYPE_CONTINUOUS,
    Kind.COUNTER_TRAP: TYPE_TRAP | TYPE_COUNTER,
}
DEALT_EFFECTS = (Effect.DRAW, Effect.DESTROY_ALL_MONSTERS, Effect.NEGATE, Effect.NEGATE_ATTACK, Effect.NONE)
KIND_WORD = {
    Kind.NORMAL_SPELL: "normal_spell",
    Kind.QUICK_SPELL: "quick_play_spell",
    Kind.CONT_SPELL: "continuous_spell",
    Kind.NORMAL_TRAP: "normal_trap",
    Kind.CONT_TRAP: "continuous_trap",
    Kind.COUNTER_TRAP: "counter_trap",
}
WORD_KIND = {w: k for k, w in KIND_WORD.items()}
COST_WORD = {Cost.NONE: "none", Cost.DISCARD: "discard", Cost.PAY_LP: "pay_lp"}
WORD_COST = {w: c for c, w in COST_WORD.items()}


def code_of(card: dict[str, Any], where: str) -> int:
    """The code of a card written in the duel-log format's words."""
    if "kind" in card:
        kind, effect, cost = WORD_KIND.get(card["kind"]), card.get("effect"), WORD_COST.get(card.get("cost", "none"))
        names = {e.name.lower(): e for e in DEALT_EFFECTS}
        if kind is None or effect not in names or cost is None or not set(card) <= {"kind", "effect", "cost"}:
            raise InputError(
                f"{where}: a Spell or Trap is {{'kind', 'effect', 'cost'}} of the kinds "
                f"{sorted(WORD_KIND)}, the effects {sorted(names)} and the costs {sorted(WORD_COST)}; got {card!r}"
            )
        return SPELL_BASE + int(kind) * 10_000 + int(names[str(effect)]) * 100 + int(cost)
    atk, dfn = card.get("atk"), card.get("def")
    ok = all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= ATK_CAP * POINTS and v % POINTS == 0
        for v in (atk, dfn)
    )
    if set(card) != {"atk", "def"} or not ok:
        raise InputError(f"{where}: a card is {{'atk': N, 'def': N}}, multiples of 100 from 0 to 9000; got {card!r}")
    return MONSTER_BASE + int(atk) // POINTS * 1000 + int(dfn) // POINTS  # type: ignore[arg-type]


def card_of(code: int) -> dict[str, Any]:
    """The card a code names (the inverse of code_of)."""
    if MONSTER_BASE <= code < MONSTER_BASE + 1_000_000:
        rest = code - MONSTER_BASE
        return {"atk": rest // 1000 * POINTS, "def": rest % 1000 * POINTS}
    if SPELL_BASE <= code < SPELL_BASE + 1_000_000:
        rest = code - SPELL_BASE
        kind, effect, cost = Kind(rest // 10_000), Effect(rest // 100 % 100), Cost(rest % 100)
        return {"kind": KIND_WORD[kind], "effect": effect.name.lower(), "cost": COST_WORD[cost]}
    raise KeyError(code)


def effect_of(code: int) -> str | None:
    """The effect of a Spell or Trap of ours by its code (None for anything else)."""
    try:
        card = card_of(code)
    except (KeyError, ValueError):
        return None
    effect = card.get("effect")
    return str(effect) if effect is not None else None


def stats(code: int) -> dict[str, int]:
    card = card_of(code)
    return {"atk": card["atk"], "def": card["def"]}


def card_data(code: int) -> Card | None:
    """The card reader's answer for a code (None: no such card of ours)."""
    try:
        card = card_of(code)
    except (KeyError, ValueError):
        return None
    if "kind" in card:
        return Card(code, KIND_TYPE[WORD_KIND[card["kind"]]])
    return Card(code, TYPE_MONSTER | TYPE_NORMAL, LEVEL, card["atk"], card["def"])


# the values of the core's headers (common.h, effect.h, card.h) that the scripts below use
CONSTANTS = """
LOCATION_HAND=0x02 LOCATION_MZONE=0x04
REASON_EFFECT=0x40 REASON_COST=0x80 REASON_DISCARD=0x4000
EFFECT_TYPE_ACTIVATE=0x10
EFFECT_FLAG_DAMAGE_STEP=0x4000 EFFECT_FLAG_DAMAGE_CAL=0x8000
EVENT_FREE_CHAIN=1002 EVENT_CHAINING=1027 EVENT_ATTACK_ANNOUNCE=1130
CATEGORY_DESTROY=0x1 CATEGORY_DRAW=0x10000 CATEGORY_NEGATE=0x10000000
"""

# what each effect does, as the core's Lua API says it (the seed's effect catalogue: docs/duel-log.md)
_EFFECT_LUA = {
    Effect.DRAW: (
        "EVENT_FREE_CHAIN",
        "return Duel.IsPlayerCanDraw(tp,1)",
        "Duel.Draw(tp,1,REASON_EFFECT)",
    ),
    Effect.DESTROY_ALL_MONSTERS: (
        "EVENT_FREE_CHAIN",
        "return true",
        "Duel.Destroy(Duel.GetFieldGroup(tp,LOCATION_MZONE,LOCATION_MZONE),REASON_EFFECT)",
    ),
    Effect.NEGATE: ("EVENT_CHAINING", "return Duel.IsChainNegatable(ev)", "Duel.NegateActivation(ev)"),
    Effect.NEGATE_ATTACK: ("EVENT_ATTACK_ANNOUNCE", "return true", "Duel.NegateAttack()"),
    Effect.NONE: ("EVENT_FREE_CHAIN", "return true", ""),
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


def script(name: str) -> bytes | None:
    """The script reader's answer: the constants for the three files the core loads first; a Spell or Trap's
    script for its code; nothing for anything else (a Normal Monster needs none)."""
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
    if "kind" not in card:
        return None
    effect = Effect[card["effect"].upper()]
    event, check, operation = _EFFECT_LUA[effect]
    # 6.3.4.3: Counter Traps and negating effects may be activated in the Damage Step (the core asks for the
    # flags; a card without them is not offered there)
    damage_step = card["kind"] == "counter_trap" or effect == Effect.NEGATE
    flags = "\n  e:SetProperty(EFFECT_FLAG_DAMAGE_STEP+EFFECT_FLAG_DAMAGE_CAL)" if damage_step else ""
    text = f"""
local s=self_table
function s.initial_effect(c)
  local e=Effect.CreateEffect(c)
  e:SetType(EFFECT_TYPE_ACTIVATE)
  e:SetCode({event}){flags}
  e:SetTarget(function(e,tp,eg,ep,ev,re,r,rp,chk)
    if chk==0 then {check} end
  end)
  e:SetOperation(function(e,tp,eg,ep,ev,re,r,rp)
    {operation}
  end){_COST_LUA[WORD_COST[card["cost"]]]}
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
            kind = rng.choice(sorted(KIND_WORD.values()))
            effect = rng.choice(sorted(e.name.lower() for e in DEALT_EFFECTS))
            out.append({"kind": kind, "effect": effect, "cost": rng.choice(sorted(WORD_COST))})
    return out


DEALERS = {"monsters": random_deck, "mixed": mixed_deck}


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


def dealable(ts: Any, step: Any) -> Any:
    """A symbolic step (model/system.py `SymStep`) that plays from the hand only cards this module deals: a
    Normal Monster (no effect) within the codes' ATK/DEF, a Spell or Trap of the kinds and effects dealt."""
    import z3

    index = {a.name: i for i, a in enumerate(ts.actions)}
    p, act = step.params, step.act
    card = z3.And(z3.Or(*(p["kind"] == int(k) for k in KIND_TYPE)), z3.Or(*(p["eff"] == int(e) for e in DEALT_EFFECTS)))
    monster = z3.And(p["mkind"] == 0, p["atk"] <= ATK_CAP, p["defv"] <= ATK_CAP)
    return z3.And(
        z3.Implies(z3.Or(act == index["normal_summon"], act == index["set_monster"]), monster),
        z3.Implies(act == index["set_spell_trap"], card),
        z3.Implies(z3.And(act == index["activate"], p["zone"] == HAND), card),
    )


def played_cards(log: dict[str, Any] | None, player: int, rules: Rules) -> list[tuple[int, dict[str, Any]]]:
    """Each card a player plays from the hand in a log, with how many cards they had drawn by then (the
    opening hand included), by the rules' own replay of the log."""
    from duelcheck.log import Activate, NormalSummon, SetSpellTrap, moves, parse
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
    return out
