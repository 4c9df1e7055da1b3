"""The turn and its phases (6.3, 6.3.1, 6.3.2, 6.3.3, 6.3.5, 6.3.6): the order of the phases, the draw, Main Phase 2
after a Battle Phase, the Normal Summon, the hand limit, passing and ending phases, deck-out, no deadlock.
"""

from __future__ import annotations

from typing import Any

from duelcheck.model.cards import (
    BATTLE_PHASE,
    GRAVEYARD,
    MAIN_PHASES,
    NO_CHOICE,
    TO_MAIN2,
    Effect,
    Kind,
    MonsterEffect,
    Phase,
)
from duelcheck.model.kit import Val
from duelcheck.model.rules import (
    ACTION_BY_NAME,
    Params,
    main1_ends,
    winner_if_loses,
)
from duelcheck.model.state import Rejected, State, action_body
from duelcheck.properties.chain import SPEED_1
from duelcheck.properties.core import (
    MAIN_ACTS,
    PROGRESS,
    ActionView,
    always,
    battle_chosen,
    main1_would_begin,
    negated_link,
    new_link,
    replacement_offered,
    sometimes,
    state,
    step,
)
from duelcheck.properties.history import (
    FLIP_DUE,
    LATER_DUE,
    delayed_draw,
    discarded_by_effect,
    end_phase_effect_due,
    second_pass,
    window_passed,
)


def enabled(s: State, name: str, params: dict[str, int]) -> Val:
    """Whether an action instance is enabled in s (a Z3 term when s is symbolic), by the rules the system runs:
    the body is run as the system runs it (a rule changed for mutation analysis is changed here alike), so
    that no-deadlock judges the model being checked, not the rules as written."""
    n = s.edit()
    try:
        with action_body(name):
            ACTION_BY_NAME[name].body(s, Params(params), n)
    except Rejected:
        return False
    return n.guard() if s.k.symbolic else True


always(
    "main2-only-after-battle",
    "6.3.5",
    "Main Phase 2 is entered only after a Battle Phase in the same turn.",
    # what happened this turn, from the property layer's history (the rules' own flag is `bp_done`)
    state(lambda s: s.k.implies(s.g("phase") == Phase.MAIN2, s.g("h_battled") == 1)),
)


always(
    "first-turn-no-draw",
    "6.3.1",
    "The player who goes first makes no normal draw on turn 1.",
    step(lambda s, a, t: s.k.implies(s.g("turn") == 1, s.k.not_(a.is_("normal_draw")))),
)


always(
    "one-normal-draw-per-draw-phase",
    "6.3.1",
    "The turn player makes at most one normal draw in a Draw Phase, or replaces it once by an effect applied "
    "instead (counted by the property layer: normal draws made or replaced since the Draw Phase began).",
    state(lambda s: s.g("h_draws") <= 1),
)


def _before_the_draw(s: State) -> Val:
    """6.3.1: the turn player's normal draw is still to come in this Draw Phase, as the property layer saw it (no
    normal draw made since the phase began: `h_draws`), on a turn whose player draws."""
    k = s.k
    return k.and_(s.is_phase(Phase.DRAW), s.g("h_draws") == 0, k.or_(s.g("turn") > 1, s.r.first_turn_draw))


def _before_draw_effect(s: State, a: ActionView, t: State) -> Val:
    """The step activates a face-up monster's "before your normal draw" effect (a new link from its zone)."""
    k = s.k
    added, kind, _, owner = new_link(s, t)
    z = a.p("zone")
    there = k.and_(z >= 0, z < s.r.monster_zones, s.g("m_kind", owner, z) == MonsterEffect.BEFORE_DRAW)
    return k.and_(a.is_("activate"), added, kind == Kind.TRIGGER, there)


def _only_before_draw_effects(s: State, a: ActionView, t: State) -> Val:
    """6.3.1 (001:L16): before the normal draw the only acts are the draw itself and a chain a "before the draw"
    effect starts: its activation, the passes, the resolution of its links, what answers it and what its
    resolution triggers."""
    k = s.k
    chain = k.or_(a.is_("activate"), a.is_("pass"), a.is_("resolve"), a.is_("trigger"))
    drawn = k.or_(a.is_("normal_draw"), a.is_("draw_instead"))  # the draw, or an effect applied instead of it
    return k.implies(_before_the_draw(s), k.or_(drawn, chain))


def _starts_before_draw(s: State, a: ActionView, t: State) -> Val:
    """A chain before the draw is started by a "before the draw" effect, its controller being the turn player;
    where any card may be chained to it (`before_draw_chain = "any"`), also by what that chain's resolution
    triggered (a Flip effect of a monster it flipped face-up), activated before the draw."""
    k = s.k
    added, _, _, owner = new_link(s, t)
    opens = k.and_(_before_the_draw(s), added, s.g("chain_len") == 0)
    triggered = a.is_("trigger") if s.r.before_draw_chain == "any" else False
    return k.implies(opens, k.or_(k.and_(_before_draw_effect(s, a, t), owner == s.tp), triggered))


def _answers_before_draw(s: State, a: ActionView, t: State) -> Val:
    """Chained to it before the draw: only what answers the activation itself (a card or effect negating it); by
    the knob `before_draw_chain`, nothing (the clause's letter) or any card (ygopro-core's reading)."""
    k = s.k
    added, _, eff, _ = new_link(s, t)
    chained = k.and_(_before_the_draw(s), added, s.g("chain_len") > 0)
    allowed = {"answers": eff == Effect.NEGATE, "none": False, "any": True}[s.r.before_draw_chain]
    return k.implies(chained, allowed)


def _before_draw_in_time(s: State, a: ActionView, t: State) -> Val:
    """A "before the draw" effect is activated before the normal draw of its controller's own Draw Phase."""
    k = s.k
    return k.implies(_before_draw_effect(s, a, t), k.and_(_before_the_draw(s), new_link(s, t)[3] == s.tp))


always(
    "before-the-draw",
    "6.3.1",
    "Before the turn player's normal draw nothing is done but the draw (or an effect applied instead of it) and a "
    "chain that a 'before the draw' effect starts: the turn player's monster's effect 'before your normal draw' "
    "starts it, only what negates an activation is chained to it, and such an effect is activated at no other "
    "time.",
    step(_only_before_draw_effects, "nothing-else"),
    step(_starts_before_draw, "starts"),
    step(_answers_before_draw, "answers"),
    step(_before_draw_in_time, "in-time"),
)


def _answered_before_draw(s: State, a: ActionView, t: State) -> Val:
    added, _, _, _ = new_link(s, t)
    return s.k.and_(_before_the_draw(s), added, s.g("chain_len") == 1)


sometimes(
    "reach-before-the-draw",
    "6.3.1",
    "A 'before the draw' effect is activated before the normal draw, and answered there.",
    step(_before_draw_effect, "effect"),
    step(_answered_before_draw, "answered"),
    # the clause's letter (before_draw_chain = "none") lets nothing be chained to it
    vanishes=lambda r, case: case == "answered" and r.before_draw_chain == "none",
)


def _draw_replaced_in_time(s: State, a: ActionView, t: State) -> Val:
    """An effect applied instead of the normal draw is applied where that draw would be made: in the turn player's
    Draw Phase before it (as the property layer saw it), with no chain open, the duel going on."""
    k = s.k
    return k.implies(a.is_("draw_instead"), k.and_(_before_the_draw(s), s.g("chain_len") == 0, s.g("winner") == 0))


def _draw_replaced_applied(s: State, a: ActionView, t: State) -> Val:
    """What the replacement does: the turn player's face-up monster in that zone carries it, and one card goes from
    their deck to their hand, whatever the draw would have given (draw_until)."""
    k, tp = s.k, s.tp
    z = a.p("zone")
    there = k.and_(
        z >= 0,
        z < s.r.monster_zones,
        s.g("m_occ", tp, z),
        s.g("m_up", tp, z),
        s.g("m_kind", tp, z) == MonsterEffect.CONTINUOUS,
        s.g("m_eff", tp, z) == Effect.SEARCH_INSTEAD_OF_DRAW,
    )
    moved = k.and_(t.g("deck", tp) == s.g("deck", tp) - 1, t.g("hand", tp) == s.g("hand", tp) + 1)
    return k.implies(a.is_("draw_instead"), k.and_(there, moved, t.g("winner") == 0))


always(
    "draw-replaced",
    "6.3.1",
    "An effect applied instead of the normal draw (001:L16) is applied only where the turn player's normal draw "
    "would be made, before it, with no chain open; one card then comes from their deck to their hand, and the duel "
    "goes on (a player whose deck has no card for it makes the normal draw, and loses: deck-out-loses).",
    step(_draw_replaced_in_time, "in-time"),
    step(_draw_replaced_applied, "applied"),
)


sometimes(
    "reach-draw-replaced",
    "6.3.1",
    "The turn player applies an effect instead of the normal draw.",
    step(lambda s, a, t: a.is_("draw_instead"), "applied"),
)


always(
    "first-turn-no-battle",
    "6.3.4",
    "The player who goes first conducts no Battle Phase on turn 1.",
    state(lambda s: s.k.implies(s.g("turn") == 1, s.k.not_(s.is_phase(*BATTLE_PHASE)))),
)


def _hand_limit(s: State, a: ActionView, t: State) -> Val:
    k, r = s.k, s.r
    tp = s.tp
    # 6.3.6, read with the knobs: the limit is a parameter, and a rule set may have none at all
    ends = k.implies(k.and_(r.hand_limit_enforced, t.g("turn") != s.g("turn")), t.g("hand", tp) <= r.hand_limit)
    discards = k.implies(
        a.is_("discard"),
        k.and_(s.g("phase") == Phase.END, t.g("hand", tp) >= r.hand_limit, t.g("hand", tp) == s.g("hand", tp) - 1),
    )
    opponent_keeps = k.implies(a.is_("discard"), t.g("hand", s.other(tp)) == s.g("hand", s.other(tp)))
    return k.and_(ends, discards, opponent_keeps)


always(
    "hand-limit-at-turn-end",
    "6.3.6",
    "A turn ends with the turn player holding no more than the hand limit; discards stop at the limit "
    "and only the turn player discards.",
    step(_hand_limit),
)


def _nothing_left(s: State, a: ActionView, t: State) -> Val:
    """6.3.6: a new turn begins with no triggered effect of the last one left waiting (as the property layer
    saw it: `h_triggers`), such as the effect of a card the hand-limit discard sent from the hand to the
    Graveyard (001:L118, L119)."""
    k = s.k
    return k.implies(t.g("turn") != s.g("turn"), k.and_(t.g("h_triggers", 0) != 2, t.g("h_triggers", 1) != 2))


always(
    "turn-ends-after-all-processing",
    "6.3.6",
    "A turn ends only once nothing is left to do: no triggered effect waits to be activated, not even one of a "
    "card the hand-limit discard sent from the hand to the Graveyard (that discard is by the rules, not by a "
    "card effect, and a 'sent from the hand to the Graveyard' effect triggers on it).",
    step(_nothing_left),
)


def _end_phase_link(s: State, a: ActionView, t: State) -> tuple[Val, Val]:
    """The step puts a monster's mandatory End Phase effect on the chain (a `trigger` link from the zone of a
    face-up monster carrying one, in the End Phase); and its player."""
    k = s.k
    added, kind, _, owner = new_link(s, t)
    z = t.g("c_zone", s.g("chain_len"))
    there = k.and_(z >= 0, z < s.r.monster_zones, s.g("m_kind", owner, z) == MonsterEffect.END_PHASE)
    return k.and_(a.is_("trigger"), added, kind == Kind.TRIGGER, s.is_phase(Phase.END), there), owner


def _end_phase_effects_activated(s: State, a: ActionView, t: State) -> Val:
    """6.3.6 (001:L116): a turn ends only once every face-up monster's mandatory End Phase effect has been
    activated in it (history: `h_used`)."""
    k = s.k
    return k.implies(t.g("turn") != s.g("turn"), k.not_(k.or_(*(end_phase_effect_due(s, p) for p in (0, 1)))))


def _end_phase_effect_not_declined(s: State, a: ActionView, t: State) -> Val:
    """6.3.6 (001:L116): the waiting effect a `trigger` step takes (the turn player's first) is not declined when
    it is a face-up monster's mandatory End Phase effect in the End Phase (history: where it comes from)."""
    k, tp = s.k, s.tp
    mine = s.g("h_triggers", tp) == FLIP_DUE
    taker = k.ite(mine, tp, s.other(tp), w=1)
    z = s.g("h_trig_zone", taker)
    waits = k.or_(mine, s.g("h_triggers", s.other(tp)) == FLIP_DUE)
    there = k.and_(
        z < s.r.monster_zones,
        s.g("m_occ", taker, z),
        s.g("m_up", taker, z),
        s.g("m_kind", taker, z) == MonsterEffect.END_PHASE,
        s.g("h_used", taker, z) == 0,
    )
    added, _, _, _ = new_link(s, t)
    return k.implies(k.and_(a.is_("trigger"), s.is_phase(Phase.END), waits, there), added)


def _end_phase_turn_player_first(s: State, a: ActionView, t: State) -> Val:
    """6.3.6 (001:L116): the mandatory End Phase effects are activated and handled the turn player's first: each
    starts a chain of its own, and the opponent's only once the turn player has none left to activate."""
    k, tp = s.k, s.tp
    link, owner = _end_phase_link(s, a, t)
    alone = s.g("chain_len") == 0
    return k.implies(link, k.and_(alone, k.implies(owner != tp, k.not_(end_phase_effect_due(s, tp)))))


always(
    "mandatory-end-phase-effects",
    "6.3.6",
    "After both players pass in the End Phase, the mandatory End Phase effects are activated and handled, the "
    "turn player's first (001:L116): a turn never ends with a face-up monster's mandatory End Phase effect not "
    "activated in it, such an effect is never declined, and each starts a chain of its own, the opponent's only "
    "once the turn player has none left.",
    step(_end_phase_effects_activated, "activated"),
    step(_end_phase_effect_not_declined, "not-declined"),
    step(_end_phase_turn_player_first, "turn-player-first"),
)


sometimes(
    "reach-mandatory-end-phase-effect",
    "6.3.6",
    "A face-up monster's mandatory End Phase effect is activated after both players pass in the End Phase.",
    step(lambda s, a, t: _end_phase_link(s, a, t)[0]),
)


def _discard_trigger(s: State, a: ActionView, t: State) -> Val:
    """The End Phase's triggered effect from the Graveyard (6.3.6: the hand-limit discard's) goes on the chain."""
    added, kind, _, _ = new_link(s, t)
    from_gy = t.g("c_zone", s.g("chain_len")) == GRAVEYARD
    return s.k.and_(a.is_("trigger"), added, kind == Kind.TRIGGER, s.is_phase(Phase.END), from_gy)


sometimes(
    "reach-hand-limit-discard-trigger",
    "6.3.6",
    "A monster discarded to the hand limit whose effect triggers when it is sent from the hand to the Graveyard "
    "(seed 001's example: Lightpulsar Dragon) has its effect activated in the End Phase.",
    step(_discard_trigger),
    # as reach-hand-limit-discard: no hand limit (Rush Duel), or one no hand can pass
    vanishes=lambda r, case: not r.hand_limit_enforced or r.hand_limit >= r.starting_hand + r.deck_size,
)


def _discarded_by_effect(s: State, a: ActionView, t: State) -> Val:
    """001:L119: a card effect ("your opponent discards 1 card") discards a monster whose effect triggers when it
    is discarded to the Graveyard by a card effect: that effect now waits (the property layer's history)."""
    k = s.k
    return k.or_(
        *(k.and_(discarded_by_effect(s, a, p), a.p("eff") != 0, t.g("h_triggers", p) == FLIP_DUE) for p in (0, 1))
    )


sometimes(
    "reach-discard-by-effect-trigger",
    "6.3.6",
    "A card effect discards a monster whose effect triggers when it is discarded to the Graveyard by a card effect "
    "(seed 001's example: Grapha, Dragon Lord of Dark World), and that effect waits to be activated: the discard "
    "the hand limit asks for, one by the rules, never does (001:L119).",
    step(_discarded_by_effect),
)


always(
    "normal-summon-limit",
    "6.3.5",
    "At most the allowed number of Normal Summons or Sets per turn, counted across Main Phase 1 and 2 (counted "
    "by the property layer: Normal Summons and Sets made this turn).",
    state(lambda s: s.g("h_summons") <= s.r.normal_summons_per_turn),
)


def _deck_out(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    tp = s.tp
    # 6.3.1: the normal draw is one card, or (draw_until, Rush Duel) cards up to that many in hand, at least one
    hand, until = s.g("hand", tp), s.r.draw_until
    wanted = 1 if until == 0 else k.ite(hand < until, until - hand, 1, w=s.schema["hand"].width)
    empty_draw = k.and_(a.is_("normal_draw"), s.g("deck", tp) < wanted)
    drawn = k.and_(a.is_("normal_draw"), k.not_(s.g("deck", tp) < wanted))
    return k.and_(
        k.implies(empty_draw, t.g("winner") == winner_if_loses(s, tp)),
        # and only then: a deck that holds the cards to draw gives them, and the duel goes on
        k.implies(drawn, k.and_(t.g("winner") == s.g("winner"), t.g("deck", tp) == s.g("deck", tp) - wanted)),
        t.g("deck", 0) >= 0,
        t.g("deck", 1) >= 0,
    )


always(
    "deck-out-loses",
    "6.3.1",
    "A player who must make the normal draw from an empty deck loses the duel, and only then: a deck that holds "
    "the cards drawn gives them and the duel goes on; a deck never goes below 0.",
    step(_deck_out),
)


_NEXT: dict[Phase, tuple[Phase, ...]] = {
    Phase.DRAW: (Phase.STANDBY,),
    Phase.STANDBY: (Phase.MAIN1, Phase.BATTLE_START, Phase.END),  # seed 000: Main Phase 1 skipped
    Phase.MAIN1: (Phase.BATTLE_START, Phase.END),
    Phase.BATTLE_START: (Phase.BATTLE_STEP,),
    Phase.BATTLE_STEP: (Phase.DMG_START, Phase.BATTLE_END),
    Phase.DMG_START: (Phase.DMG_BEFORE,),
    Phase.DMG_BEFORE: (Phase.DMG_DURING,),
    Phase.DMG_DURING: (Phase.DMG_AFTER,),
    Phase.DMG_AFTER: (Phase.DMG_END,),
    Phase.DMG_END: (Phase.BATTLE_STEP,),
    Phase.BATTLE_END: (Phase.MAIN2,),  # or the End Phase where there is no Main Phase 2 (below)
    Phase.MAIN2: (Phase.END,),
    Phase.END: (Phase.DRAW,),
}


def _phase_order(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    before, after = s.g("phase"), t.g("phase")
    order = dict(_NEXT)
    if not s.r.standby_phase:  # 6.3.2 read with the knob: without a Standby Phase the Draw Phase leads on
        order[Phase.DRAW] = _NEXT[Phase.STANDBY]
        del order[Phase.STANDBY]
    if not s.r.main_phase_2:  # 6.3.5 read with the knob: without Main Phase 2 the Battle Phase leads to the End Phase
        order[Phase.BATTLE_END] = (Phase.END,)
    moves = [k.and_(before == p, k.one_of(after, [int(q) for q in nxt])) for p, nxt in order.items()]
    turn_ok = k.or_(
        t.g("turn") == s.g("turn"),
        k.and_(t.g("turn") == s.g("turn") + 1, before == Phase.END, after == Phase.DRAW),
    )
    # (6.3.4.3.3: or damage calculation ends once the destruction replacements it offered are decided)
    changes_by_pass = k.or_(a.is_("pass"), a.is_("end_step"), a.is_("discard"), a.is_("replace_destruction"))
    # 6.3.4.4: a resolving effect that ends the Battle Phase goes straight to the End Step
    top = s.g("chain_len") - 1
    ends_bp = k.and_(
        a.is_("resolve"),
        s.g("c_eff", top) == Effect.END_BATTLE_PHASE,
        k.not_(negated_link(s)),
        s.is_phase(Phase.BATTLE_START, Phase.BATTLE_STEP),
        after == Phase.BATTLE_END,
    )
    return k.and_(k.or_(before == after, k.and_(k.or_(*moves), changes_by_pass), ends_bp), turn_ok)


always(
    "phase-order",
    "6.3",
    "Phases and steps follow 6.3 in order (Draw, Standby, Main 1, Battle Phase steps, Main 2, End), and "
    "change only when both players have passed (at damage calculation, once the destruction replacements it "
    "offered are decided, 6.3.4.3.3), or by an effect that ends the Battle Phase (6.3.4.4).",
    step(_phase_order),
)


def _no_deadlock(s: State) -> Val:
    k = s.k
    return k.implies(s.g("winner") == 0, k.or_(*(enabled(s, name, params) for name, params in PROGRESS)))


def _really_stuck(system: Any, s: State) -> bool:
    """A reported deadlock is real only if no action at all is enabled (the progress set is a sufficient check)."""
    return next(iter(system.successors(s)), None) is None


always(
    "no-deadlock",
    "6.3",
    "Every state in which the duel goes on has an enabled action.",
    state(_no_deadlock),
    certify=_really_stuck,
)


def _main_timing(s: State, a: ActionView, t: State) -> Val:
    """6.3.3: summons, Sets and position changes are the turn player's acts in their own Main Phase, with
    the turn player holding priority, no chain open or resolving, no attack going on, the duel not over."""
    k = s.k
    acted = k.or_(*(a.is_(name) for name in MAIN_ACTS))
    when = k.and_(
        s.is_phase(*MAIN_PHASES),
        s.g("chain_len") == 0,
        k.not_(s.g("resolving")),
        s.g("prio") == s.tp,
        k.not_(s.g("attacking")),
    )
    return k.implies(acted, when)


def _attack_timing(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.2: an attack is declared in the Battle Step by the turn player holding priority, with no chain
    open and no other attack going on."""
    k = s.k
    when = k.and_(
        s.g("phase") == Phase.BATTLE_STEP,
        s.g("chain_len") == 0,
        k.not_(s.g("resolving")),
        s.g("prio") == s.tp,
        k.not_(s.g("attacking")),
    )
    return k.implies(a.is_("declare_attack"), when)


def _window_first(s: State, a: ActionView, t: State) -> Val:
    """6.3 (response window): while the opponent may still respond to the turn player's summon, Set, change of
    position or resolved chain (the property layer's history), the turn player neither summons nor Sets,
    changes no position, declares no attack and starts no chain at speed 1, except under `ignition_priority`
    (the Goat format), where a monster's Ignition effect may be activated first."""
    k = s.k
    acted = k.or_(*(a.is_(name) for name in (*MAIN_ACTS, "declare_attack")))
    added, kind, _, owner = new_link(s, t)
    allowed = (Kind.IGNITION,) if s.r.ignition_priority else ()
    slow = k.and_(added, owner == s.tp, k.one_of(kind, tuple(x for x in SPEED_1 if x not in allowed)))
    return k.implies(s.g("h_window") == 1, k.not_(k.or_(acted, slow)))


always(
    "summon-and-attack-timing",
    "6.3, 6.3.3, 6.3.4.2",
    "Summons, Sets and position changes happen in the turn player's Main Phase, attack declarations in the "
    "Battle Step, one attack at a time; each by the turn player holding priority with no chain open, and not "
    "while the opponent may still respond to the turn player's last act, when the turn player only activates "
    "at speed 2 or more, or passes (under `ignition_priority`, the Goat format, an Ignition effect too).",
    step(_main_timing, "main-phase"),
    step(_attack_timing, "attack"),
    step(_window_first, "response-window"),
)


def _window_priority(s: State, a: ActionView, t: State) -> Val:
    """6.3 (response window): the window the turn player's summon, Set, change of position or resolved chain opens
    (the property layer's history) begins with the turn player holding priority; under `window_first =
    "opponent"` (Rush Duel) with the opponent."""
    k = s.k
    opened = k.and_(s.g("h_window") == 0, t.g("h_window") == 1)
    first = t.tp if s.r.window_first == "turn_player" else t.other(t.tp)
    return k.implies(opened, t.g("prio") == first)


always(
    "window-priority",
    "6.3 (response window)",
    "A response window (after the turn player's summon, Set, change of position or resolved chain) begins with the "
    'turn player holding priority, or, under `window_first = "opponent"` (Rush Duel), the opponent.',
    step(_window_priority),
)


def _opponent_first(s: State, a: ActionView, t: State) -> Val:
    """The opponent starts a chain in a response window before anyone has passed there."""
    added, _, _, owner = new_link(s, t)
    return s.k.and_(s.g("h_window") == 1, s.g("h_empty_passes") == 0, added, owner != s.tp)


sometimes(
    "reach-opponent-first-in-window",
    "6.3 (response window)",
    'Under `window_first = "opponent"` (Rush Duel) the opponent responds to the turn player\'s summon, Set, change '
    "of position or resolved chain before the turn player has passed the window.",
    step(_opponent_first),
    # the official rules give the turn player priority first: the opponent responds once they have passed
    vanishes=lambda r, case: r.window_first != "opponent" or not r.response_window,
)


def _ignition_first(s: State, a: ActionView, t: State) -> Val:
    """Goat format (`ignition_priority`): the turn player starts a chain with a monster's Ignition effect while
    the opponent could still respond to the turn player's last act."""
    if not s.r.ignition_priority:  # the case is empty: the rules give no such priority
        return False
    added, kind, _, owner = new_link(s, t)
    return s.k.and_(s.g("h_window") == 1, added, owner == s.tp, kind == Kind.IGNITION)


sometimes(
    "reach-ignition-priority",
    "6.3 (response window)",
    "Under `ignition_priority` (the Goat format) the turn player activates a monster's Ignition effect right "
    "after their own summon, Set or resolved chain, before the opponent can respond.",
    step(_ignition_first),
    vanishes=lambda r, case: not r.ignition_priority,  # the official rules give the opponent the chance first
)


def _phase_choice(s: State, a: ActionView, t: State) -> Val:
    k, r = s.k, s.r
    choice = a.p("choice")
    leaves = k.or_(t.g("phase") != s.g("phase"), t.g("turn") != s.g("turn"))  # the step ends the phase
    main2_optional = k.and_(r.main_phase_2, k.not_(r.main_phase_2_requires_battle_phase))
    at_main1_end = k.and_(main1_ends(s), leaves, k.implies(choice == TO_MAIN2, main2_optional))
    after_battle = k.and_(choice == TO_MAIN2, s.g("phase") == Phase.BATTLE_END, r.main_phase_2, leaves)
    return k.implies(choice != NO_CHOICE, k.or_(at_main1_end, after_battle))


always(
    "phase-choice-where-offered",
    "6.3.3, 6.3.5",
    "A choice of the next phase is made only by the step that ends Main Phase 1 (the Battle Phase, the End "
    "Phase, or Main Phase 2 where it may follow Main Phase 1), or, for Main Phase 2, by the step that ends a "
    "Battle Phase.",
    step(_phase_choice),
)


def _phase_moved(s: State, t: State) -> Val:
    return s.k.or_(t.g("phase") != s.g("phase"), t.g("turn") != s.g("turn"))


def _both_passed(s: State, a: ActionView, t: State) -> Val:
    """6.3: both players passed in succession with no chain open: the phase or step ends (in the End Phase the
    turn player over the hand limit first discards, 6.3.6; at damage calculation the player whose monster it
    determined destroyed decides first on the monster's destruction replacement, 6.3.4.3.3; in the End Phase the
    mandatory End Phase effects still to be activated are activated first, 6.3.6); but two passes of a
    response window close the window and the turn player acts on in the same phase, holding priority."""
    k, r = s.k, s.r
    discards = k.and_(s.g("phase") == Phase.END, r.hand_limit_enforced, s.g("hand", s.tp) > r.hand_limit)
    replaces = k.and_(s.g("phase") == Phase.DMG_DURING, replacement_offered(t))
    mandatory = k.and_(s.g("phase") == Phase.END, k.or_(*(end_phase_effect_due(s, p) for p in (0, 1))))
    window = window_passed(s, a)
    moved = k.or_(_phase_moved(s, t), discards, replaces, mandatory)
    ends = k.implies(k.and_(second_pass(s, a), k.not_(window)), moved)
    goes_on = k.implies(window, k.and_(k.not_(_phase_moved(s, t)), t.g("prio") == s.tp))
    return k.and_(ends, goes_on)


def _one_pass(s: State, a: ActionView, t: State) -> Val:
    """6.3: a single pass never ends a phase or step: only the second of two in succession does."""
    return s.k.implies(s.k.and_(a.is_("pass"), _phase_moved(s, t)), second_pass(s, a))


def _new_phase_priority(s: State, a: ActionView, t: State) -> Val:
    """6.3: each phase and step that begins when the last one ended begins with the turn player holding
    priority (a Battle Phase ended by a resolving effect, 6.3.4.4, goes on with the rest of the chain)."""
    k = s.k
    ended = k.or_(a.is_("pass"), a.is_("end_step"), a.is_("discard"), a.is_("replace_destruction"))
    return k.implies(k.and_(ended, _phase_moved(s, t)), t.g("prio") == t.tp)


def _opponent_next(s: State, a: ActionView, t: State) -> Val:
    """6.3, seed 000 (chains): the first of two passes (history: no pass just before it, with the chain open or
    not) hands priority to the other player, who may act or pass in turn: the passes in succession are both
    players'."""
    k = s.k
    first = k.and_(
        a.is_("pass"),
        k.ite(s.g("chain_len") == 0, s.g("h_empty_passes") == 0, k.and_(s.g("h_passes") == 0, s.g("h_resolving") == 0)),
    )
    return k.implies(first, t.g("prio") == s.other(s.g("prio")))


always(
    "passes-end-phases",
    "6.3",
    "A phase or step ends when both players pass in succession with no chain open, never on one pass, and "
    "the next begins with the turn player holding priority (in the End Phase, a hand over the limit is first "
    "discarded, 6.3.6); the first of two passes hands priority to the other player; two passes answering the "
    "turn player's summon, Set, change of position or resolved chain leave the phase going on.",
    step(_both_passed, "both-passed"),
    step(_one_pass, "one-pass"),
    step(_new_phase_priority, "turn-player-first"),
    step(_opponent_next, "opponent-next"),
)


def _main1_skipped(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 ("the opponent skips their next Main Phase 1"): when the phase before Main Phase 1 ends, Main
    Phase 1 begins unless such an effect resolved against the turn player since their last skip (history), and
    then it is skipped: once per effect."""
    k = s.k
    pending = s.g("h_skip_m1", s.tp) == 1
    return k.implies(main1_would_begin(s, a, t), (t.g("phase") == Phase.MAIN1) == k.not_(pending))


def _battle_skipped(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 ("the opponent skips their next Battle Phase"): the Battle Phase chosen at the end of Main Phase
    1 begins unless such an effect resolved against the turn player since their last skip (history); a skipped
    Battle Phase leads to the End Phase."""
    k = s.k
    pending = s.g("h_skip_bp", s.tp) == 1
    where = k.ite(pending, t.g("phase") == Phase.END, t.g("phase") == Phase.BATTLE_START)
    return k.implies(battle_chosen(s, a, t), where)


always(
    "phase-skips",
    "seed 000 (effect catalogue), 6.3.3",
    "An effect that makes the opponent skip their next Main Phase 1 or Battle Phase skips exactly that one: "
    "the phase begins as usual unless such an effect resolved against its player since their last skip, and "
    "a skipped Battle Phase leads to the End Phase (what resolved is kept by the property layer).",
    step(_main1_skipped, "main-phase-1"),
    step(_battle_skipped, "battle-phase"),
)


sometimes(
    "reach-main2",
    "6.3.5",
    "A play reaches Main Phase 2.",
    state(lambda s: s.g("phase") == Phase.MAIN2),
    vanishes=lambda r, case: not r.main_phase_2,  # Speed (TCG) and Rush Duel have none
)


sometimes("reach-turn-3", "6.3.6", "A play reaches turn 3.", state(lambda s: s.g("turn") == 3))


sometimes(
    "reach-deck-out-loss",
    "6.3.1",
    "A player must make the normal draw from an empty deck and loses.",
    step(lambda s, a, t: s.k.and_(a.is_("normal_draw"), s.g("deck", s.tp) == 0)),
)


sometimes(
    "reach-hand-limit-discard",
    "6.3.6",
    "The turn player ends a turn over the hand limit and discards.",
    step(lambda s, a, t: a.is_("discard")),
    # Rush Duel has no hand limit; a limit no hand can pass (every card of the deck drawn) is none either
    vanishes=lambda r, case: not r.hand_limit_enforced or r.hand_limit >= r.starting_hand + r.deck_size,
)


sometimes(
    "reach-standby-to-end",
    "seed 000 (Main Phase 2 note)",
    "With Main Phase 1 (and the Battle Phase) skipped, the turn goes from the Standby Phase to the End Phase.",
    step(lambda s, a, t: s.k.and_(s.g("phase") == Phase.STANDBY, t.g("phase") == Phase.END)),
    vanishes=lambda r, case: not r.standby_phase,  # Rush Duel has no Standby Phase
)


sometimes(
    "reach-standby-to-battle",
    "seed 000 (Main Phase 2 note), 6.3.4",
    "With Main Phase 1 alone skipped, the turn goes from the Standby Phase to the Battle Phase (the note's other "
    "case: the Battle Phase is not skipped, so the turn player may still conduct it).",
    step(lambda s, a, t: s.k.and_(s.g("phase") == Phase.STANDBY, t.g("phase") == Phase.BATTLE_START)),
    vanishes=lambda r, case: not r.standby_phase,  # Rush Duel has no Standby Phase
)


def _delayed_comes_due(s: State, a: ActionView, t: State) -> Val:
    """6.3 (counting turns), 6.3.2: a delayed effect's draw is activated in a Standby Phase only when the turns its
    text counts (every turn for a text that names no player, only its player's turns for one counted in them)
    are counted, as the property layer counted them from its resolution; by its player, holding priority with
    no chain open, at their will among the phase's other activations."""
    k = s.k
    out = []
    for p in (0, 1):
        due = s.g("h_later", p) == LATER_DUE
        by_holder = k.and_(s.g("prio") == p, s.g("chain_len") == 0)
        out.append(k.implies(delayed_draw(s, t, p), k.and_(due, by_holder, t.g("c_eff", 0) == Effect.DRAW)))
    return k.and_(*out)


def _standby_trigger_once(s: State, a: ActionView, t: State) -> Val:
    """6.3.2: a triggered effect of the Standby Phase is activated once: the delayed effect is spent by its
    activation, so a negated one is not activated again in that phase."""
    k = s.k
    return k.and_(*(k.implies(delayed_draw(s, t, p), t.g("h_later", p) == 0) for p in (0, 1)))


always(
    "delayed-effects",
    "6.3, 6.3.2",
    'A delayed effect ("during the next Standby Phase", "during your next Standby Phase") is activated in the '
    "Standby Phase of the turn its text counts to: every turn counts for a text that names no player, only its "
    "controller's turns for one counted in their own turns; its player activates it holding priority with no "
    "chain open, in the order the players choose among the phase's activations; and a triggered effect of the "
    "Standby Phase whose activation was negated is not activated again in that phase.",
    step(_delayed_comes_due, "comes-due"),
    step(_standby_trigger_once, "negated-not-again"),
)


def _delayed_due_case(own: int) -> Any:
    def check(s: State, a: ActionView, t: State) -> Val:
        k = s.k
        return k.or_(*(k.and_(delayed_draw(s, t, p), s.g("h_later_own", p) == own) for p in (0, 1)))

    return check


def _standby_trigger_negated(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    top = s.g("chain_len") - 1
    trigger = s.g("c_kind", top) == Kind.TRIGGER
    return k.and_(a.is_("resolve"), s.is_phase(Phase.STANDBY), s.g("chain_len") > 0, trigger, negated_link(s))


sometimes(
    "reach-delayed-effect",
    "6.3, 6.3.2",
    "A delayed effect's draw is activated in a Standby Phase, counted every turn (a text that names no player) or "
    "only in its controller's turns.",
    step(_delayed_due_case(0), "every-turn"),
    step(_delayed_due_case(1), "own-turns"),
    vanishes=lambda r, case: not r.standby_phase,  # no Standby Phase: the delayed effect never comes due
)

sometimes(
    "reach-standby-trigger-negated",
    "6.3.2",
    "The activation of a triggered effect of the Standby Phase is negated.",
    step(_standby_trigger_negated),
    vanishes=lambda r, case: not r.standby_phase or r.chain_links < 2,  # no Standby Phase; no chain to negate
)
