"""Costs and effects (seed 000: Spells and Traps, costs, the effect catalogue, the chain example): what an activation
pays, where it comes from, what its resolution does, targets.
"""

from __future__ import annotations

from duelcheck.model.cards import (
    ACTIVATED_KINDS,
    ATK_CAP,
    BATTLE_PHASE,
    DRAWS,
    HAND,
    LP_COST,
    MONSTER_KINDS,
    PHASE_BOUND,
    SPELLS,
    TARGETED,
    TRAPS,
    Cost,
    Effect,
    Kind,
    MonsterEffect,
    Phase,
    Until,
)
from duelcheck.model.kit import Val
from duelcheck.model.rules import (
    activated_type,
    winner_if_loses,
)
from duelcheck.model.state import State
from duelcheck.properties.core import (
    ActionView,
    StepPred,
    _target_there,
    _top,
    always,
    damage_calculated,
    link_takes_effect,
    negated_link,
    new_link,
    sometimes,
    state,
    step,
    zones,
)
from duelcheck.properties.damage_step import battle_losses
from duelcheck.properties.history import protected


def _set_not_same_turn(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    p, z = s.g("prio"), a.p("zone")
    from_set = k.and_(a.is_("activate"), z != HAND, k.not_(k.one_of(a.p("kind"), MONSTER_KINDS)))
    quick_or_trap = k.one_of(s.g("s_kind", p, z), (*TRAPS, Kind.QUICK_SPELL))
    return k.implies(k.and_(from_set, quick_or_trap), s.g("h_set", p, z) == 0)  # Set this turn (history)


always(
    "set-trap-not-same-turn",
    "seed 000 (Spells and Traps)",
    "A Trap, or a Set Quick-Play Spell, is never activated on the turn it was Set.",
    step(_set_not_same_turn),
)


def _special_face_up(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    joined = [
        k.implies(k.and_(k.not_(s.g("m_occ", p, z)), t.g("m_occ", p, z)), t.g("m_up", p, z))
        for p, z in zones(s, "m_occ")
    ]
    return k.implies(a.is_("resolve"), k.and_(*joined))


always(
    "special-summon-face-up",
    "seed 000 (battle positions)",
    "A Special Summon is never face-down.",
    step(_special_face_up),
)


def _negated_does_nothing(s: State, a: ActionView, t: State) -> Val:
    """Seed 000: a negated link resolves without effect: no LP, hand, deck, monster or skipped phase changes."""
    k = s.k
    negated = k.and_(a.is_("resolve"), s.g("chain_len") > 0, negated_link(s))
    same = [t.g(name, p) == s.g(name, p) for name in ("lp", "hand", "deck", "skip_bp", "skip_m1") for p in (0, 1)]
    for p in (0, 1):
        for z in range(s.r.monster_zones):
            same += [t.g(name, p, z) == s.g(name, p, z) for name in ("m_occ", "m_atk", "m_up", "m_def")]
    same += [t.g("winner") == s.g("winner"), t.g("phase") == s.g("phase"), t.g("attacking") == s.g("attacking")]
    return k.implies(negated, k.and_(*same))


def _applies_to_named_player(s: State, a: ActionView, t: State) -> Val:
    """Seed 000's catalogue: "the opponent skips their next Battle Phase / Main Phase 1" reaches the link's
    opponent, never its player; "draw a card" draws for the link's player, never the opponent: one card from
    their deck to their hand, the duel going on, or, from an empty deck, their loss; "your opponent discards 1
    card" takes one card from the opponent's hand to their Graveyard, when they hold one."""
    k = s.k
    live = link_takes_effect(s, a)
    eff, owner = _top(s, "c_eff"), _top(s, "c_owner")
    opp = s.other(owner)
    out = []
    for name, effect in (("skip_bp", Effect.SKIP_BP), ("skip_m1", Effect.SKIP_MAIN1)):
        hits = k.and_(t.g(name, opp), t.g(name, owner) == s.g(name, owner))
        out.append(k.implies(k.and_(live, eff == effect), hits))
    # "draw a card": the top card of the link player's deck goes to their hand and the duel goes on; with their
    # deck empty they lose, as for the normal draw (6.3.1)
    deck = s.g("deck", owner)
    given = k.and_(
        t.g("hand", owner) == s.g("hand", owner) + 1, t.g("deck", owner) == deck - 1, t.g("winner") == s.g("winner")
    )
    draws = k.ite(deck > 0, given, t.g("winner") == winner_if_loses(s, owner))
    drawn = k.and_(draws, t.g("hand", opp) == s.g("hand", opp))
    out.append(k.implies(k.and_(live, k.one_of(eff, DRAWS)), drawn))
    # "your opponent discards 1 card" (001:L118, L119): one card of the link's opponent's hand to their Graveyard,
    # when they hold one; the link's player keeps theirs
    held = s.g("hand", opp) > 0
    one = k.and_(t.g("hand", opp) == s.g("hand", opp) - 1, t.g("gy", opp) == s.g("gy", opp) + 1)
    discarded = k.and_(k.ite(held, one, t.g("hand", opp) == s.g("hand", opp)), t.g("hand", owner) == s.g("hand", owner))
    out.append(k.implies(k.and_(live, eff == Effect.OPPONENT_DISCARDS), discarded))
    return k.and_(*out)


def _does_what_it_says(s: State, a: ActionView, t: State) -> Val:
    """Seed 000's catalogue, 6.3.4.4: a link that takes effect does what its text says: a battle position
    change turns its target monster face-up in Attack Position if it was face-down, else to the other position;
    "Set face-down" turns a face-up target face-down in Defense Position, a new card whose ATK is the one it came
    to the field with (docs/engine-findings.md F8); an ATK change moves a face-up target's
    ATK by the amount chosen (never below 0, nor above the model's top ATK); "end the Battle Phase" in its Start
    or Battle Step goes to its End Step."""
    k = s.k
    top = s.g("chain_len") - 1
    live = link_takes_effect(s, a)
    eff, p, z = s.g("c_eff", top), s.g("c_tp", top), s.g("c_tz", top)
    there = _target_there(s)
    up, dfn = s.g("m_up", p, z), s.g("m_def", p, z)
    turned = k.ite(up, t.g("m_def", p, z) == k.not_(dfn), k.and_(t.g("m_up", p, z), k.not_(t.g("m_def", p, z))))
    down = k.and_(k.not_(t.g("m_up", p, z)), t.g("m_def", p, z))
    atk = k.smin(k.smax(s.g("m_atk", p, z) + a.p("amount"), 0), ATK_CAP)
    changed = k.and_(t.g("m_occ", p, z), t.g("m_atk", p, z) == atk)
    ends = k.and_(eff == Effect.END_BATTLE_PHASE, s.is_phase(Phase.BATTLE_START, Phase.BATTLE_STEP))
    damage = s.g("m_atk", p, z)
    spared = [k.ite(protected(s, q), 0, damage, w=s.schema["lp"].width) for q in (0, 1)]
    burned = k.and_(
        k.not_(t.g("m_occ", p, z)), *(t.g("lp", q) == s.g("lp", q) - spared[q] for q in (0, 1))
    )  # the target destroyed, each player's LP down by its ATK (none for a player under a "no damage" effect)
    return k.implies(
        live,
        k.and_(
            k.implies(k.and_(eff == Effect.CHANGE_POSITION, there), k.and_(t.g("m_occ", p, z), turned)),
            k.implies(
                k.and_(eff == Effect.SET_FACE_DOWN, there, up),
                k.and_(t.g("m_occ", p, z), down, t.g("m_atk", p, z) == s.g("h_printed", p, z)),
            ),
            k.implies(k.and_(eff == Effect.CHANGE_ATK, there, up), changed),
            k.implies(ends, t.g("phase") == Phase.BATTLE_END),
            k.implies(k.and_(eff == Effect.DESTROY_DAMAGE_BOTH, there, up), burned),
        ),
    )


def _only_what_it_names(s: State, a: ActionView, t: State) -> Val:
    """Seed 000's catalogue: a resolving link changes only the cards its text names: its target ("destroy one
    card", a position change, Set face-down, an ATK change), every monster ("destroy all monsters"), an empty
    Monster Zone (a Special Summon), and its own card, which leaves the field once it has resolved. Every
    other monster keeps its zone, position and ATK; every other Spell & Trap Zone keeps its card."""
    k = s.k
    resolves = k.and_(a.is_("resolve"), s.g("chain_len") > 0)
    live = link_takes_effect(s, a)
    eff, owner, zone = _top(s, "c_eff"), _top(s, "c_owner"), _top(s, "c_zone")
    tpl, tar, tz = _top(s, "c_tp"), _top(s, "c_ta"), _top(s, "c_tz")
    targeted = k.and_(live, k.one_of(eff, TARGETED))
    own_card = k.not_(k.one_of(_top(s, "c_kind"), MONSTER_KINDS))  # a Spell/Trap's link: its card is in a zone
    out = []
    for p, z in zones(s, "m_occ"):
        named = k.or_(
            k.and_(targeted, tar == 0, tpl == p, tz == z),
            k.and_(live, eff == Effect.DESTROY_ALL_MONSTERS),
            k.and_(live, eff == Effect.SPECIAL_SUMMON, k.not_(s.g("m_occ", p, z))),
        )
        same = k.and_(*(t.g(f, p, z) == s.g(f, p, z) for f in ("m_occ", "m_up", "m_def", "m_atk")))
        out.append(k.or_(named, same))
    for p, z in zones(s, "s_occ"):
        named = k.or_(
            k.and_(live, eff == Effect.DESTROY_CARD, tar == 1, tpl == p, tz == z),
            k.and_(own_card, owner == p, zone == z),
        )
        out.append(k.or_(named, t.g("s_occ", p, z) == s.g("s_occ", p, z)))
    return k.implies(resolves, k.and_(*out))


always(
    "resolution-effects",
    "seed 000 (chain, negation, effect catalogue)",
    "A negated link resolves without effect; an effect applies to the player its text names (the opponent "
    "skips a phase or discards a card, the controller draws a card from their deck, or loses with it empty); a "
    "position change, "
    "a Set face-down, an ATK change, the end of the Battle Phase and damage to both players do what their text "
    "says; a resolving link "
    "changes no card its text does not name.",
    step(_negated_does_nothing, "negated"),
    step(_applies_to_named_player, "named-player"),
    step(_does_what_it_says, "as-written"),
    step(_only_what_it_names, "only-what-it-names"),
)


def _activation_source(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 (Spells and Traps, monster effects): where an activated card or effect comes from."""
    k = s.k
    added, kind, eff, owner = new_link(s, t)
    act = k.and_(a.is_("activate"), added)
    z = a.p("zone")
    monster = k.one_of(kind, ACTIVATED_KINDS)
    from_hand = k.and_(z == HAND, k.not_(monster))
    cost = t.g("c_cost", s.g("chain_len"))
    set_card = k.and_(
        s.g("s_occ", owner, z),
        k.not_(s.g("s_up", owner, z)),
        s.g("s_kind", owner, z) == kind,
        s.g("s_eff", owner, z) == eff,
        s.g("s_cost", owner, z) == cost,
    )
    mkind = activated_type(s, kind)
    face_up = k.and_(
        s.g("m_occ", owner, z), s.g("m_up", owner, z), s.g("m_kind", owner, z) == mkind, s.g("m_eff", owner, z) == eff
    )
    return k.implies(
        act,
        k.and_(
            k.implies(from_hand, k.one_of(kind, SPELLS)),  # a Trap is Set before it is activated
            k.implies(k.and_(k.not_(monster), k.not_(from_hand)), set_card),  # the Set card, with its cost
            k.implies(monster, face_up),  # a face-up monster's own effect
        ),
    )


def _ends_battle_phase(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.4: an effect that ends the Battle Phase is activated only within it (the Start Step or the Battle
    Step)."""
    k = s.k
    added, _, eff, _ = new_link(s, t)
    return k.implies(k.and_(added, eff == Effect.END_BATTLE_PHASE), s.is_phase(Phase.BATTLE_START, Phase.BATTLE_STEP))


def _cost_paid(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 (costs; the chain example: Magic Jammer discards a card, Seven Tools pays 1000 LP): an activation
    pays the cost its link records, that and nothing else: a Spell from the hand leaves the hand, a discard
    cost sends one more card from the hand to the Graveyard, an LP cost takes 1000 LP; the opponent pays
    nothing."""
    k = s.k
    added, kind, _, owner = new_link(s, t)
    act = k.and_(a.is_("activate"), added)
    opp = s.other(owner)
    cost = t.g("c_cost", s.g("chain_len"))
    from_hand = k.and_(a.p("zone") == HAND, k.not_(k.one_of(kind, (Kind.IGNITION, Kind.QUICK_EFFECT))))
    discard = cost == Cost.DISCARD
    wh, wg = s.schema["hand"].width, s.schema["gy"].width
    hand_out = k.ite(from_hand, 1, 0, w=wh) + k.ite(discard, 1, 0, w=wh)
    paid = k.and_(
        t.g("hand", owner) == s.g("hand", owner) - hand_out,
        t.g("gy", owner) == s.g("gy", owner) + k.ite(discard, 1, 0, w=wg),
        t.g("lp", owner) == s.g("lp", owner) - k.ite(cost == Cost.PAY_LP, LP_COST, 0, w=s.schema["lp"].width),
        *(t.g(name, opp) == s.g(name, opp) for name in ("hand", "gy", "lp")),
    )
    return k.implies(act, paid)


def _target_is_another_card(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 (the chain example: Mystical Space Typhoon targets Royal Decree): a card that targets a Spell or
    Trap targets another card, never itself."""
    k = s.k
    added, _, eff, owner = new_link(s, t)
    i = s.g("chain_len")
    own_card = k.and_(t.g("c_ta", i) == 1, t.g("c_tp", i) == owner, t.g("c_tz", i) == t.g("c_zone", i))
    card = k.not_(k.one_of(t.g("c_kind", i), MONSTER_KINDS))
    return k.implies(k.and_(a.is_("activate"), added, card, k.one_of(eff, TARGETED)), k.not_(own_card))


always(
    "costs-paid-on-activation",
    "seed 000 (costs, chain example)",
    "An activation pays the cost it records and nothing else: a discard sends a card from the hand to the "
    "Graveyard, an LP cost takes 1000 LP; a Spell from the hand leaves the hand; the opponent pays nothing.",
    step(_cost_paid),
)


always(
    "target-is-another-card",
    "seed 000 (chain example)",
    "A Spell or Trap that targets a Spell or Trap targets another card, never itself.",
    step(_target_is_another_card),
)


always(
    "activation-sources",
    "seed 000 (Spells and Traps, monster effects), 6.3.4.4",
    "A Spell is activated from the hand or from where it was Set, a Trap only once Set, each with the cost of "
    "the card Set; a monster's effect only from that face-up monster; an effect that ends the Battle Phase "
    "only within it.",
    step(_activation_source, "card"),
    step(_ends_battle_phase, "end-battle-phase"),
)


def _negated_kept_cost(s: State) -> Val:
    k = s.k
    links = range(s.r.chain_links)
    return k.or_(*(k.and_(j < s.g("chain_len"), s.g("h_neg", j) == 1, s.g("c_cost", j) != Cost.NONE) for j in links))


sometimes(
    "reach-negated-activation-kept-its-cost",
    "seed 000 (chain example, costs)",
    "An activation whose cost was paid is negated; the cost stays paid.",
    state(_negated_kept_cost),
    vanishes=lambda r, case: r.chain_links < 2,  # the negation is a second link
)


def _spell_trap_set(s: State, a: ActionView, t: State) -> Val:
    """The turn player Sets a card from the hand face-down in an empty Spell & Trap Zone of theirs."""
    k, tp = s.k, s.tp
    placed = k.or_(*(k.and_(k.not_(s.g("s_occ", tp, z)), t.g("s_occ", tp, z)) for z in range(s.r.spell_trap_zones)))
    return k.and_(a.is_("set_spell_trap"), t.g("hand", tp) == s.g("hand", tp) - 1, placed)


sometimes(
    "reach-set-spell-trap",
    "6.3.3, seed 000 (Spells and Traps)",
    "A Spell or Trap is Set from the hand face-down in a Spell & Trap Zone.",
    step(_spell_trap_set),
)


def _lasting_no_damage(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.3.5, 6.3.4.4, 6.3.6: a player under a lasting "no damage" effect, from its resolution until the
    period its text names is over with all its processing (as the property layer saw it: `h_no_damage`), loses
    Life Points only by a cost they pay."""
    k = s.k
    out = []
    for p in (0, 1):
        paid = k.and_(a.is_("activate"), a.p("cost") == Cost.PAY_LP, s.g("prio") == p)
        out.append(k.implies(k.and_(protected(s, p), k.not_(paid)), t.g("lp", p) >= s.g("lp", p)))
    return k.and_(*out)


def _lasting_activated_in_period(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.3.3, 6.3.4.4 (card text): a card that says "during damage calculation" is activated at that timing,
    one that says "during the Battle Phase" within it."""
    k = s.k
    eff = a.p("eff")
    ds = k.implies(eff == Effect.NO_DAMAGE_DS, s.g("phase") == Phase.DMG_DURING)
    bp = k.implies(eff == Effect.NO_DAMAGE_BP, s.is_phase(*BATTLE_PHASE))
    return k.implies(a.is_("activate"), k.and_(ds, bp))


always(
    "lasting-effects",
    "6.3.4.3.5, 6.3.4.4, 6.3.6",
    'A lasting "no damage" effect applies from its resolution until the end of the period its text names (the '
    "Damage Step, the Battle Phase, the turn), through all the processing at that end: its player loses Life "
    "Points only by a cost meanwhile, and takes damage again once it is over (battle-damage-table, "
    "resolution-effects); its card is activated in the period it names.",
    step(_lasting_no_damage, "no-damage"),
    step(_lasting_activated_in_period, "activated-in-period"),
)


def _spared_case(period: Until) -> StepPred:
    """A player under a lasting "no damage" effect lasting until the end of `period` keeps their LP where a
    battle (at damage calculation) or an effect (destroy a monster, then damage to both) would have dealt them
    damage."""

    def check(s: State, a: ActionView, t: State) -> Val:
        k = s.k
        loss_opp, loss_tp = battle_losses(s)
        calc = k.and_(damage_calculated(s, a, t), s.g("attacking"))
        top = s.g("chain_len") - 1
        tpl, tz = s.g("c_tp", top), s.g("c_tz", top)
        burn = k.and_(
            link_takes_effect(s, a),
            s.g("c_eff", top) == Effect.DESTROY_DAMAGE_BOTH,
            _target_there(s),
            s.g("m_up", tpl, tz),
            s.g("m_atk", tpl, tz) > 0,
        )
        out = []
        for p in (0, 1):
            held = k.and_(s.g("h_no_damage", p) == period, t.g("lp", p) == s.g("lp", p))
            loss = k.ite(s.tp == p, loss_tp, loss_opp, w=s.schema["lp"].width)
            out.append(k.and_(held, k.or_(k.and_(calc, loss > 0), burn)))
        return k.or_(*out)

    return check


sometimes(
    "reach-no-damage",
    "6.3.4.3.5, 6.3.4.4, 6.3.6",
    'A player under a lasting "no damage" effect, until the end of the Damage Step, of the Battle Phase or of '
    "the turn, keeps their LP where a battle or an effect would have dealt them damage.",
    step(_spared_case(Until.DAMAGE_STEP), "damage-step"),
    step(_spared_case(Until.BATTLE_PHASE), "battle-phase"),
    step(_spared_case(Until.TURN), "turn"),
    # the older overview's reading lets no card be activated during damage calculation
    vanishes=lambda r, case: case == "damage-step" and r.damage_step_activations == "seed-000",
)


def _activated(effect: Effect) -> StepPred:
    """The step activates a card carrying `effect` (a new link on the chain)."""

    def card(s: State, a: ActionView, t: State) -> Val:
        added, _, eff, _ = new_link(s, t)
        return s.k.and_(a.is_("activate"), added, eff == effect)

    return card


def _main1_start_first(s: State, a: ActionView, t: State) -> Val:
    """6.3.3 (001:L26): a card that says "only at the start of Main Phase 1" is activated by the turn player in
    Main Phase 1 with nothing but passes before it there (as the property layer saw it: `h_m1_start`)."""
    k = s.k
    owner = new_link(s, t)[3]
    at_start = k.and_(s.is_phase(Phase.MAIN1), s.g("h_m1_start") == 1, owner == s.tp)
    return k.implies(_activated(Effect.DRAW_MAIN1_START)(s, a, t), at_start)


always(
    "main-phase-1-start",
    "6.3.3",
    'A card that says "only at the start of Main Phase 1" is activated by the turn player as their first act '
    "in Main Phase 1.",
    step(_main1_start_first),
)


sometimes(
    "reach-main-phase-1-start-card",
    "6.3.3",
    'A card that says "only at the start of Main Phase 1" is activated there.',
    step(_activated(Effect.DRAW_MAIN1_START)),
)


# the cards bound to one phase or step by their text (model/cards.py PHASE_BOUND), by the words of the case
_BOUND_CASES = {
    "battle-phase-start": Effect.DRAW_BATTLE_START,  # 6.3.4.1 (001:L36): "at the start of the Battle Phase"
    "end-step": Effect.DRAW_BATTLE_END,  # 6.3.4.4 (001:L105): "during the End Step of the Battle Phase"
    "end-phase": Effect.DRAW_END_PHASE,  # 6.3.6 (001:L115): "during the End Phase"
}


def _in_its_phase(effect: Effect) -> StepPred:
    """A card bound by its text to one phase or step is activated in it: the phase play was in."""

    def pred(s: State, a: ActionView, t: State) -> Val:
        return s.k.implies(_activated(effect)(s, a, t), s.is_phase(PHASE_BOUND[effect]))

    return pred


always(
    "phase-bound-cards",
    "6.3.4.1, 6.3.4.4, 6.3.6",
    'A card whose text binds it to one phase or step ("at the start of the Battle Phase", "during the End Step", '
    '"during the End Phase") is activated in that phase or step.',
    *(step(_in_its_phase(effect), case) for case, effect in _BOUND_CASES.items()),
)

sometimes(
    "reach-phase-bound-card",
    "6.3.4.1, 6.3.4.4, 6.3.6",
    "A card bound by its text to one phase or step is activated there.",
    *(step(_activated(effect), case) for case, effect in _BOUND_CASES.items()),
)


def _sealing_monsters(s: State, q: Val) -> list[tuple[Val, Val]]:
    """Player q's monsters with the continuous effect "your opponent cannot activate Trap cards" face-up on the
    field: each as (it is there, it was determined destroyed by battle)."""
    k = s.k
    out = []
    for z in range(s.schema["m_occ"].dims[1]):
        there = k.and_(
            s.g("m_occ", q, z),
            s.g("m_up", q, z),
            s.g("m_kind", q, z) == MonsterEffect.CONTINUOUS,
            s.g("m_eff", q, z) == Effect.NO_TRAPS,
        )
        out.append((there, s.g("m_doomed", q, z)))
    return out


def _sealing_cards(s: State, q: Val) -> list[tuple[Val, Val]]:
    """Player q's Continuous Spells and Traps that say "your opponent cannot activate Trap cards", face-up on the
    field: each as (it is there, its activation is still a link of the chain: it does not apply yet)."""
    k = s.k
    out = []
    links = range(s.schema["c_zone"].dims[0])
    for z in range(s.schema["s_occ"].dims[1]):
        there = k.and_(
            s.g("s_occ", q, z),
            s.g("s_up", q, z),
            k.one_of(s.g("s_kind", q, z), (Kind.CONT_SPELL, Kind.CONT_TRAP)),
            s.g("s_eff", q, z) == Effect.NO_TRAPS,
        )
        waiting = k.or_(
            *(
                k.and_(
                    j < s.g("chain_len"),
                    s.g("c_owner", j) == q,
                    s.g("c_zone", j) == z,
                    k.one_of(s.g("c_kind", j), (Kind.CONT_SPELL, Kind.CONT_TRAP)),
                )
                for j in links
            )
        )
        out.append((there, waiting))
    return out


def _trap_activated(s: State, a: ActionView, t: State) -> tuple[Val, Val]:
    """The step activates a Trap card, and by whom."""
    added, kind, _, owner = new_link(s, t)
    return s.k.and_(a.is_("activate"), added, s.k.one_of(kind, TRAPS)), owner


def _no_trap_while_applied(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.3 (001:L64): a face-up monster's continuous effect goes on applying, in the Damage Step too: while a
    monster applying "your opponent cannot activate Trap cards" is there and not determined destroyed by battle
    (6.3.4.3.3, 001:L85: from then it applies no more), its controller's opponent activates no Trap; and so for a
    face-up Continuous Spell or Trap with that effect, once its activation has resolved."""
    k = s.k
    trap, owner = _trap_activated(s, a, t)
    sealing = [*_sealing_monsters(s, 1 - owner), *_sealing_cards(s, 1 - owner)]
    applied = k.or_(*(k.and_(there, k.not_(stopped)) for there, stopped in sealing))
    return k.implies(trap, k.not_(applied))


always(
    "continuous-effects",
    "6.3.4.3",
    "A monster's continuous effect applies while it is face-up on the field, in the Damage Step too, until it is "
    "determined destroyed by battle, and a Continuous Spell's or Trap's while it is face-up once its activation "
    'has resolved: its controller\'s opponent activates no Trap while "your opponent cannot activate Trap cards" '
    "applies.",
    step(_no_trap_while_applied),
)


def _card_applies(s: State) -> Val:
    k = s.k
    return k.or_(*(k.and_(there, k.not_(waiting)) for q in (0, 1) for there, waiting in _sealing_cards(s, q)))


sometimes(
    "reach-continuous-card-applies",
    "6.3.4.3",
    'A Continuous Spell or Trap that says "your opponent cannot activate Trap cards" is face-up on the field with '
    "its activation resolved: its effect applies.",
    state(_card_applies),
)


def _trap_once_stopped(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    trap, owner = _trap_activated(s, a, t)
    stopped = k.or_(*(k.and_(there, doomed) for there, doomed in _sealing_monsters(s, 1 - owner)))
    return k.and_(trap, stopped)


sometimes(
    "reach-trap-once-continuous-effect-stopped",
    "6.3.4.3.3",
    "A Trap is activated in the Damage Step while the opponent's monster that says \"your opponent cannot activate "
    'Trap cards" is still on the field, determined destroyed by battle.',
    step(_trap_once_stopped),
    # the older overview's reading lets nothing be activated after damage calculation, where a monster is doomed
    vanishes=lambda r, case: r.damage_step_activations == "seed-000",
)
