"""Chains and spell speeds (seed 000): the speeds a chain link may have, last in first out, a response after each link,
activation timing, resolution without interruption.
"""

from __future__ import annotations

from typing import Any

from duelcheck.model.cards import (
    ACTIVATED_KINDS,
    HAND,
    MAIN_PHASES,
    Cost,
    Effect,
    Kind,
    MonsterEffect,
)
from duelcheck.model.kit import Val
from duelcheck.model.rules import (
    speed,
)
from duelcheck.model.state import State
from duelcheck.properties.core import ActionView, StepPred, always, new_link, sometimes, state, step, zones


def _chain_speeds(s: State) -> Val:
    k = s.k
    out = []
    triggered = (Kind.FLIP, Kind.TRIGGER)
    for i in range(1, s.r.chain_links):
        here, below = speed(s, s.g("c_kind", i)), speed(s, s.g("c_kind", i - 1))
        # 6.3.4.3.4, 6.3.4.3.5: effects triggered at the same timing form one chain by priority, whatever their speed
        same_timing = k.and_(k.one_of(s.g("c_kind", i), triggered), k.one_of(s.g("c_kind", i - 1), triggered))
        out.append(k.implies(i < s.g("chain_len"), k.or_(k.and_(here >= 2, here >= below), same_timing)))
    return k.and_(*out)


always(
    "chain-speed-legal",
    "seed 000 (spell speeds)",
    "Every chain link 2 or higher is speed 2 or more and at least the speed of the link it answers (effects "
    "triggered at the same timing chain by priority, 6.3.4.3.4).",
    state(_chain_speeds),
)


def _lifo(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    same_below = [
        k.implies(
            j < t.g("chain_len"),
            k.and_(*(s.g(f, j) == t.g(f, j) for f in ("c_owner", "c_kind", "c_eff", "c_zone"))),
        )
        for j in range(s.r.chain_links)
    ]
    resolved = k.implies(a.is_("resolve"), k.and_(t.g("chain_len") == s.g("chain_len") - 1, *same_below))
    grows = k.implies(
        t.g("chain_len") > s.g("chain_len"),
        k.and_(
            k.or_(a.is_("activate"), a.is_("trigger")),
            k.not_(s.g("resolving")),
            t.g("chain_len") == s.g("chain_len") + 1,
        ),
    )
    return k.and_(resolved, grows)


always(
    "chain-resolves-lifo",
    "seed 000 (chain)",
    "A chain resolves from its last link down, one link at a time, and gains no link while it resolves.",
    step(_lifo),
)


SPEED_1 = (Kind.NORMAL_SPELL, Kind.CONT_SPELL, Kind.EQUIP_SPELL, Kind.FIELD_SPELL, Kind.RITUAL_SPELL, Kind.IGNITION)


def _speed_1(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 (spell speeds): a Spell Speed 1 activation (a Normal, Continuous, Equip, Field or Ritual Spell,
    an Ignition effect) starts a chain, in its player's own Main Phase."""
    k = s.k
    added, kind, _, owner = new_link(s, t)
    speed1 = k.and_(added, k.one_of(kind, [int(x) for x in SPEED_1]))
    return k.implies(speed1, k.and_(s.g("chain_len") == 0, s.is_phase(*MAIN_PHASES), owner == s.tp))


def _quick_play_from_hand(s: State, a: ActionView, t: State) -> Val:
    """Seed 000: a Quick-Play Spell is activated from the hand only in its player's own turn."""
    k = s.k
    added, kind, _, owner = new_link(s, t)
    from_hand = k.and_(added, a.is_("activate"), a.p("zone") == HAND, kind == Kind.QUICK_SPELL)
    return k.implies(from_hand, owner == s.tp)


def _attack_negation(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.2, 6.3.4.2.1: a card that negates an attack answers its declaration: it is activated while the
    attack is going on, in the chain that answers the declaration (history: from the declaration until that
    chain has resolved or the step moves on), never after a replay's re-selection, which is no declaration."""
    k = s.k
    added, _, eff, _ = new_link(s, t)
    return k.implies(k.and_(added, eff == Effect.NEGATE_ATTACK), k.and_(s.g("attacking"), s.g("h_declared") == 1))


def _monster_effect_once(s: State, a: ActionView, t: State) -> Val:
    """Model catalogue: a monster's Ignition, Quick or 'before the draw' effect is activated once per turn
    (history: the monster now in that zone has not activated it this turn)."""
    k = s.k
    added, kind, _, owner = new_link(s, t)
    z = a.p("zone")
    act = k.and_(a.is_("activate"), added, k.one_of(kind, ACTIVATED_KINDS))
    fresh = k.or_(*(k.and_(owner == p, z == y, s.g("h_used", p, y) == 0) for p, y in zones(s, "m_occ")))
    return k.implies(act, fresh)


def _flip_in_location(s: State, a: ActionView, t: State) -> Val:
    """Master Rule 2020 (`trigger_only_in_location`): a Flip effect goes on the chain only while its monster
    is on the field where it was flipped (the zone the new link names holds a Flip monster before the step);
    the seeds' rules ask nothing of it."""
    k = s.k
    if not s.r.trigger_only_in_location:
        return True
    added, kind, _, owner = new_link(s, t)
    zone = t.g("c_zone", s.g("chain_len"))
    flip = k.and_(a.is_("trigger"), added, kind == Kind.FLIP)
    there = k.or_(
        *(
            k.and_(owner == p, zone == y, s.g("m_occ", p, y), s.g("m_kind", p, y) == MonsterEffect.FLIP)
            for p, y in zones(s, "m_occ")
        )
    )
    return k.implies(flip, there)


always(
    "activation-timing",
    "seed 000 (spell speeds), 6.3.4.2",
    "A Spell Speed 1 activation starts a chain in its player's own Main Phase; a Quick-Play Spell comes from "
    "the hand only in its player's turn; an attack is negated only in the chain answering its declaration; "
    "a monster's effect is activated once per turn; with trigger_only_in_location (Master Rule 2020) a Flip "
    "effect only while its monster is on the field.",
    step(_speed_1, "speed-1"),
    step(_quick_play_from_hand, "quick-play-from-hand"),
    step(_attack_negation, "attack-negation"),
    step(_monster_effect_once, "monster-effect-once-per-turn"),
    step(_flip_in_location, "flip-effect-in-location"),
)


def _other_player_responds(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 (chains): after each new chain link, activated or triggered, the other player may respond
    first: they hold priority."""
    k = s.k
    added, _, _, owner = new_link(s, t)
    return k.implies(k.and_(added, k.or_(a.is_("activate"), a.is_("trigger"))), t.g("prio") == s.other(owner))


always(
    "responses-after-each-link",
    "seed 000 (chains)",
    "After each new chain link the other player holds priority: they may respond first.",
    step(_other_player_responds),
)


always(
    "chain-resolution-uninterrupted",
    "seed 000 (chains)",
    "A chain resolves once both players have passed in succession with it open, link after link with nothing "
    "done in between; and no link resolves otherwise.",
    step(lambda s, a, t: (s.g("h_resolving") == 1) == a.is_("resolve")),
)


# seed 000's five-link chain, abstracted by speed, effect and cost: Dark Hole, Royal Decree, Mystical Space
# Typhoon (targeting Royal Decree), Magic Jammer (discard a card), Seven Tools of the Bandit (pay 1000 LP);
# players alternate.
SEED_CHAIN = (
    (Kind.NORMAL_SPELL, Effect.DESTROY_ALL_MONSTERS, Cost.NONE),
    (Kind.CONT_TRAP, Effect.NONE, Cost.NONE),
    (Kind.QUICK_SPELL, Effect.DESTROY_CARD, Cost.NONE),
    (Kind.COUNTER_TRAP, Effect.NEGATE, Cost.DISCARD),
    (Kind.COUNTER_TRAP, Effect.NEGATE, Cost.PAY_LP),
)


def _seed_chain(s: State) -> Val:
    k = s.k
    if s.r.chain_links < len(SEED_CHAIN):
        return False
    tp = s.tp
    links = [
        k.and_(
            s.g("c_kind", i) == kind,
            s.g("c_eff", i) == eff,
            s.g("c_cost", i) == cost,
            s.g("c_owner", i) == (tp if i % 2 == 0 else s.other(tp)),
        )
        for i, (kind, eff, cost) in enumerate(SEED_CHAIN)
    ]
    mst_hits_decree = k.and_(
        s.g("c_ta", 2) == 1, s.g("c_tp", 2) == s.g("c_owner", 1), s.g("c_tz", 2) == s.g("c_zone", 1)
    )
    return k.and_(s.g("chain_len") == len(SEED_CHAIN), *links, mst_hits_decree)


sometimes(
    "reach-seed-chain-example",
    "seed 000 (chain example)",
    "The five-link chain of seed 000 (Dark Hole, Royal Decree, Mystical Space Typhoon, Magic Jammer with its "
    "discard, Seven Tools of the Bandit with its 1000 LP) is built in a play.",
    state(_seed_chain),
    vanishes=lambda r, case: r.chain_links < 5,  # a model bound too short for five links
)


def _speed_is(k: Any, kind: Val, sp: int) -> Val:
    """Seed 000 (spell speeds), read here on its own: speed 1 (Normal, Continuous, Equip, Field and Ritual
    Spells, Ignition effects), 3 (Counter Traps), 2 (the rest: Quick-Play Spells, Normal and Continuous Traps,
    Quick effects)."""
    one = k.one_of(kind, [int(x) for x in SPEED_1])
    three = kind == Kind.COUNTER_TRAP
    return {1: one, 2: k.and_(k.not_(one), k.not_(three)), 3: three}[sp]


def _response(answers: int | None, sp: int) -> StepPred:
    """An activation of speed `sp` as chain link 1 (`answers` None), or answering a link of speed `answers`."""

    def pred(s: State, a: ActionView, t: State) -> Val:
        k = s.k
        added, kind, _, _ = new_link(s, t)
        i = s.g("chain_len")
        base = k.and_(a.is_("activate"), added, _speed_is(k, kind, sp))
        if answers is None:
            return k.and_(base, i == 0)
        return k.and_(base, i > 0, _speed_is(k, s.g("c_kind", i - 1), answers))

    return pred


sometimes(
    "reach-every-chain-response",
    "seed 000 (chains and spell speeds)",
    "A Spell Speed 1 card starts a chain; a Spell Speed 2 card answers a speed-1 and a speed-2 link; a Counter "
    "Trap answers a Counter Trap.",
    step(_response(None, 1), "speed-1-starts-a-chain"),
    step(_response(1, 2), "speed-2-answers-speed-1"),
    step(_response(2, 2), "speed-2-answers-speed-2"),
    step(_response(3, 3), "speed-3-answers-speed-3"),
    vanishes=lambda r, case: r.chain_links < 2 and case != "speed-1-starts-a-chain",  # no second link
)
