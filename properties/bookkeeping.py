"""Bookkeeping and conservation (the model, seed 000 duel set-up and winning): well-formed states, every card
somewhere, LP accounted for, the end of the duel, one spelling per play, the rules' counters against history.
"""

from __future__ import annotations

from duelcheck.model.cards import (
    ACTIVATED_BY_KIND,
    ATK_CAP,
    BATTLE_PHASE,
    DAMAGE_STEP,
    DIRECT,
    GRAVEYARD,
    LATER_TURNS,
    LP_COST,
    MONSTER_KINDS,
    POINTS,
    SPELLS,
    TARGETED,
    TRAPS,
    Cost,
    Effect,
    Kind,
    MonsterEffect,
    Pending,
    Phase,
    Until,
)
from duelcheck.model.kit import Val
from duelcheck.model.rules import (
    BY_EFFECT_TRIGGERS,
    DRAWN,
    MONSTER_EFFECTS,
    draw_pending,
    end_phase_due,
    mandatory,
    open_game_state_phase,
    replaces_destruction,
)
from duelcheck.model.state import State
from duelcheck.properties.core import (
    ActionView,
    _target_there,
    _top,
    always,
    damage_calculated,
    link_takes_effect,
    sometimes,
    state,
    step,
    zones,
)
from duelcheck.properties.history import LATER_DUE, protected


def _well_formed(s: State) -> Val:
    """Structural facts of every reachable state; they make the other invariants provable by induction."""
    return s.k.and_(*well_formed_facts(s))


def discard_trigger(s: State, eff: Val, zone: Val) -> Val:
    """001:L119: an effect, and where it comes from, that may be the effect of a monster a card effect discarded,
    triggered by that discard: one of BY_EFFECT_TRIGGERS, from the Graveyard."""
    return s.k.and_(zone == GRAVEYARD, s.k.one_of(eff, BY_EFFECT_TRIGGERS))


def well_formed_facts(s: State, budget: bool = True) -> list[Val]:
    """Structural facts of every reachable state. `budget=False` leaves out the deck-out bound on the
    number of turns, which only states reached from the initial state meet (not every board)."""
    k, r = s.k, s.r
    tp = s.tp
    mz, sz, cl = r.monster_zones, r.spell_trap_zones, r.chain_links
    length = s.g("chain_len")
    ph = s.g("phase")
    seed_000 = r.damage_step_activations == "seed-000"  # the older overview's reading of the Damage Step
    out: list[Val] = [
        s.g("turn") >= 1,
        k.one_of(ph, [int(p) for p in Phase]),
        k.one_of(s.g("winner"), (0, 1, 2, DRAWN)),
        length >= 0,
        length <= cl,
        s.g("nsum") >= 0,
        s.g("nsum") <= r.normal_summons_per_turn,
        k.implies(s.g("resolving"), length > 0),
        k.implies(s.g("discarding"), k.and_(ph == Phase.END, s.g("hand", tp) > r.hand_limit, length == 0)),
        k.implies(s.g("discarding"), k.not_(s.g("resolving"))),
        # 6.3.6: only a rule set with a hand limit discards to it (Rush Duel has none)
        k.implies(s.g("discarding"), r.hand_limit_enforced),
        # 6.3.6: the discard to the hand limit is the turn player's act: they hold priority until it is done
        k.implies(s.g("discarding"), s.g("prio") == tp),
        # 6.3: each phase and step begins with the turn player holding priority, and a chain resolved gives it
        # back to them: with no chain open the turn player holds priority unless they have just passed; in a
        # response window the opponent holds it first under `window_first = "opponent"` (Rush Duel), and the turn
        # player once the opponent has passed
        k.implies(
            k.and_(length == 0, k.not_(s.g("discarding"))),
            (s.g("prio") == tp) == (s.g("passed") == k.and_(s.g("window"), r.window_first == "opponent")),
        ),
        # 6.3 (response window): open only under the rule, in the turn player's open game state of a Main Phase
        # or of the Battle Step with no attack, no chain open, nothing waiting, the duel going on
        k.implies(
            s.g("window"),
            k.and_(
                r.response_window,
                open_game_state_phase(s),
                length == 0,
                k.not_(s.g("resolving")),
                k.not_(s.g("discarding")),
                s.g("winner") == 0,
            ),
        ),
        k.implies(s.is_phase(*BATTLE_PHASE), s.g("bp_done")),
        k.implies(k.and_(s.g("turn") == 1, k.not_(r.first_turn_battle)), k.not_(s.g("bp_done"))),
        k.implies(s.g("drew"), k.or_(s.g("turn") > 1, r.first_turn_draw)),
        # 6.3: on turn 1 the second player has had no turn: no card of theirs on the field, no link or waiting
        # effect of theirs (but the effect of a monster a card effect discarded from their hand, 001:L119), so
        # nothing has skipped a phase of the first player's (the path that skips Main Phase 1 meets the turn-1
        # Battle Phase rule only on later turns)
        k.implies(
            s.g("turn") == 1,
            k.and_(
                k.not_(s.g("skip_m1", 0)),
                k.not_(s.g("skip_bp", 0)),
                k.or_(s.g("trig", 1) == Pending.NONE, discard_trigger(s, s.g("trig_eff", 1), s.g("trig_zone", 1))),
                # 6.3 (counting turns): a delayed effect resolved on turn 1 has counted no turn yet
                *(k.one_of(s.g("later", p), (0, LATER_TURNS + 1)) for p in (0, 1)),
                *(k.not_(s.g("m_occ", 1, z)) for z in range(mz)),
                *(k.not_(s.g("s_occ", 1, z)) for z in range(sz)),
                *(
                    k.implies(
                        j < length,
                        k.or_(
                            s.g("c_owner", j) == 0,
                            k.and_(
                                s.g("c_kind", j) == Kind.TRIGGER, discard_trigger(s, s.g("c_eff", j), s.g("c_zone", j))
                            ),
                        ),
                    )
                    for j in range(cl)
                ),
            ),
        ),
        # 6.3.1: before the normal draw nothing is done but a chain a "before the draw" effect of the turn
        # player's starts, answered only by what answers an activation; with no chain the turn player holds
        # priority and no one has passed
        k.implies(
            draw_pending(s),
            k.implies(k.and_(length == 0, s.g("winner") == 0), k.and_(s.g("prio") == tp, k.not_(s.g("passed")))),
        ),
        # 6.3.1: a 'before the draw' effect that draws is activated with a card in the deck, and nothing else on
        # its chain draws, so its chain ends no duel by a draw (an answer's LP cost may end it, mid-chain): with no
        # chain the duel goes on (unless the deck need not hold a card, or any card may be chained to it)
        k.implies(
            k.and_(draw_pending(s), r.draw_needs_deck, r.before_draw_chain != "any"),
            k.and_(
                k.implies(length == 0, s.g("winner") == 0),
                k.implies(k.and_(length > 0, s.g("winner") == 0), s.g("deck", tp) > 0),
            ),
        ),
        # what the chain before the draw holds (under before_draw_chain = "any": any card, and what it triggers)
        k.implies(
            k.and_(draw_pending(s), r.before_draw_chain != "any"),
            k.and_(
                s.g("trig", 0) == Pending.NONE,
                s.g("trig", 1) == Pending.NONE,
                *(
                    k.implies(
                        j < length,
                        k.and_(
                            s.g("c_kind", 0) == Kind.TRIGGER,
                            s.g("c_owner", 0) == tp,
                            k.one_of(s.g("c_eff", 0), MONSTER_EFFECTS[MonsterEffect.BEFORE_DRAW]),
                        )
                        if j == 0
                        else (s.g("c_eff", j) == Effect.NEGATE if r.before_draw_chain == "answers" else False),
                    )
                    for j in range(cl)
                ),
            ),
        ),
        k.implies(ph != Phase.DRAW, k.or_(s.g("drew"), k.not_(k.or_(s.g("turn") > 1, r.first_turn_draw)))),
        k.implies(s.g("attacking"), s.is_phase(Phase.BATTLE_STEP, *DAMAGE_STEP)),
        k.implies(s.g("at_decl"), k.and_(s.g("attacking"), ph == Phase.BATTLE_STEP)),
        k.implies(s.g("replay"), k.and_(s.g("attacking"), ph == Phase.BATTLE_STEP)),
        k.implies(k.not_(s.is_phase(Phase.BATTLE_STEP, *DAMAGE_STEP)), k.not_(s.g("attacking"))),
        s.g("atk_zone") >= 0,
        s.g("atk_zone") < mz,
        s.g("atk_tgt") >= 0,
        k.or_(s.g("atk_tgt") < mz, s.g("atk_tgt") == DIRECT),  # a Monster Zone of the rules, or a direct attack
        k.implies(
            k.and_(s.g("attacking"), ph != Phase.DMG_END),
            k.and_(s.g("m_occ", tp, s.g("atk_zone")), s.g("m_decl", tp, s.g("atk_zone"))),
        ),
        k.implies(
            k.and_(s.g("attacking"), k.not_(s.g("replay")), ph != Phase.DMG_END, s.g("atk_tgt") != DIRECT),
            k.and_(s.g("atk_tgt") < mz, s.g("m_occ", s.other(tp), s.g("atk_tgt"))),
        ),
        k.implies(k.and_(s.g("attacking"), s.is_phase(*DAMAGE_STEP)), k.not_(s.g("replay"))),
    ]
    # 6.3.4.3.3: a destruction replacement is decided at damage calculation, with no chain open and the duel going
    # on, by a player whose monster it determined destroyed and who holds a card to discard
    for p in (0, 1):
        offered = k.or_(*(replaces_destruction(s, p, z) for z in range(mz)))
        at_calc = k.and_(ph == Phase.DMG_DURING, length == 0, k.not_(s.g("resolving")), s.g("winner") == 0)
        out.append(k.implies(s.g("replacing", p), k.and_(at_calc, offered, s.g("hand", p) > 0, s.g("attacking"))))
        # damage calculation is not over: nobody has passed since, and no triggered effect is due yet (6.3.4.3.4)
        quiet = [s.g("prio") == tp, k.not_(s.g("passed")), *(s.g("trig", q) != Pending.FLIP_DUE for q in (0, 1))]
        quiet += [s.g("trig", q) != Pending.TRIGGER_DUE for q in (0, 1)]
        out.append(k.implies(s.g("replacing", p), k.and_(*quiet)))
    # 6.3.3: the start of Main Phase 1 is over once a card is activated (a link) or anything else is done
    out.append(k.implies(s.g("m1_start"), k.and_(ph == Phase.MAIN1, s.g("chain_len") == 0, k.not_(s.g("resolving")))))
    # 6.3.4.3: the mark of a chain resolved in a timing of the Damage Step, kept only under the Goat format's rule
    out.append(k.implies(s.g("ds_chained"), k.and_(r.damage_step_single_chain, s.is_phase(*DAMAGE_STEP))))
    # 6.3.2, 6.3.5: a phase the rules leave out (Rush Duel: no Standby Phase; no Main Phase 2) is never entered
    if not r.standby_phase:
        out.append(ph != Phase.STANDBY)
    if not r.main_phase_2:
        out.append(ph != Phase.MAIN2)
    # Deck-out bounds the number of turns: each turn after the first starts with a draw.
    turns = 2 * (r.deck_size - r.starting_hand) + 2
    phi = s.g("deck", 0) + s.g("deck", 1) + s.g("turn")
    phi = phi + k.ite(s.g("drew"), 1, 0, w=9) + k.ite(s.g("turn") == 1, 1, 0, w=9)
    if budget:
        out.append(k.implies(s.g("winner") == 0, phi <= turns))
        out.append(s.g("turn") <= turns + 1)
    for p in (0, 1):
        deck, hand = s.g("deck", p), s.g("hand", p)
        out += [deck >= 0, hand >= 0, deck <= r.deck_size, hand <= r.deck_size, deck + hand <= r.deck_size]
        out += [s.g("lp", p) <= r.starting_lp // POINTS, s.g("lp", p) >= -ATK_CAP]
        for z in range(mz):
            occ = s.g("m_occ", p, z)
            out += [s.g("m_atk", p, z) >= 0, s.g("m_atk", p, z) <= ATK_CAP]
            out += [s.g("m_batk", p, z) >= 0, s.g("m_batk", p, z) <= ATK_CAP]
            out += [s.g("m_defv", p, z) >= 0, s.g("m_defv", p, z) <= ATK_CAP]
            flags = ("m_up", "m_def", "m_fresh", "m_moved", "m_decl", "m_doomed", "m_used")
            empty = k.and_(
                *(k.not_(s.g(f, p, z)) for f in flags),
                s.g("m_atk", p, z) == 0,
                s.g("m_batk", p, z) == 0,
                s.g("m_defv", p, z) == 0,
                s.g("m_kind", p, z) == 0,
            )
            out.append(k.implies(k.not_(occ), empty))
            out.append(_monster_effect(s, s.g("m_kind", p, z), s.g("m_eff", p, z)))
            used_by = k.one_of(s.g("m_kind", p, z), (*ACTIVATED_BY_KIND.values(), MonsterEffect.END_PHASE))
            out.append(k.implies(s.g("m_used", p, z), used_by))
            # 6.3.4.3.5: a monster destroyed by battle is sent to the Graveyard when the Damage Step ends
            # (or still at damage calculation, while a player decides on a destruction replacement, 6.3.4.3.3)
            replacing = k.and_(ph == Phase.DMG_DURING, k.or_(s.g("replacing", 0), s.g("replacing", 1)))
            out.append(k.implies(s.g("m_doomed", p, z), k.or_(ph == Phase.DMG_AFTER, replacing)))
            out.append(k.implies(k.and_(occ, k.not_(s.g("m_up", p, z))), s.g("m_def", p, z)))
            out.append(k.implies(s.g("m_decl", p, z), k.and_(p == tp, s.g("bp_done"))))
        for z in range(sz):
            occ = s.g("s_occ", p, z)
            out.append(k.one_of(s.g("s_kind", p, z), [int(x) for x in (*SPELLS, *TRAPS)]))
            out.append(k.one_of(s.g("s_eff", p, z), [int(e) for e in Effect]))
            out.append(k.one_of(s.g("s_cost", p, z), [int(c) for c in Cost]))
            empty = k.and_(
                k.not_(s.g("s_up", p, z)),
                k.not_(s.g("s_fresh", p, z)),
                s.g("s_kind", p, z) == 0,
                s.g("s_eff", p, z) == 0,
                s.g("s_cost", p, z) == 0,
            )
            out.append(k.implies(k.not_(occ), empty))
            out.append(k.implies(s.g("s_fresh", p, z), k.and_(p == tp, k.not_(s.g("s_up", p, z)))))
        pending, zone = s.g("trig", p), s.g("trig_zone", p)
        out += [
            k.one_of(pending, [int(x) for x in Pending]),
            k.implies(pending == Pending.NONE, k.and_(s.g("trig_eff", p) == 0, zone == 0)),
            k.implies(
                pending != Pending.NONE,
                k.one_of(
                    s.g("trig_eff", p), (*MONSTER_EFFECTS[MonsterEffect.FLIP], *MONSTER_EFFECTS[MonsterEffect.TRIGGER])
                ),
            ),
            k.implies(
                pending == Pending.FLIPPED,
                k.and_(s.is_phase(Phase.DMG_BEFORE, Phase.DMG_DURING), p != tp, zone >= 0, zone < mz),
            ),
            k.implies(pending == Pending.FLIP_DUE, k.and_(zone >= 0, zone < mz)),
            # a waiting Flip effect's zone holds its Flip monster, or a monster Special Summoned there since (the
            # Flip monster left the field): one with no effect; under trigger_only_in_location (Master Rule 2020)
            # the effect is lost once its monster leaves the field, so the zone holds it
            k.implies(
                k.one_of(pending, (Pending.FLIPPED, Pending.FLIP_DUE)),
                k.and_(s.g("m_occ", p, zone), s.g("m_kind", p, zone) == MonsterEffect.FLIP)
                if r.trigger_only_in_location
                else k.implies(
                    s.g("m_occ", p, zone), k.one_of(s.g("m_kind", p, zone), (MonsterEffect.FLIP, MonsterEffect.NONE))
                ),
            ),
            # 6.3.4.3.5: a battle-destroyed monster's effect; 6.3.6: the turn player's card the hand-limit discard
            # sent from the hand to the Graveyard
            k.implies(
                pending == Pending.TRIGGER_DUE,
                k.or_(
                    k.and_(
                        k.or_(ph == Phase.DMG_END, k.and_(ph == Phase.END, p == tp, r.hand_limit_enforced)),
                        zone == GRAVEYARD,
                    ),
                    # 001:L119: a monster a card effect discarded, whose effect triggers on that
                    k.and_(zone == GRAVEYARD, k.one_of(s.g("trig_eff", p), BY_EFFECT_TRIGGERS)),
                    # 6.3.6 (001:L116): a face-up monster's mandatory End Phase effect, not yet activated (once
                    # both players passed: never while a chain resolves)
                    k.and_(
                        ph == Phase.END,
                        k.not_(s.g("resolving")),
                        zone >= 0,
                        zone < mz,
                        s.g("m_occ", p, zone),
                        s.g("m_up", p, zone),
                        s.g("m_kind", p, zone) == MonsterEffect.END_PHASE,
                        s.g("m_eff", p, zone) == s.g("trig_eff", p),
                        k.not_(s.g("m_used", p, zone)),
                    ),
                ),
            ),
            k.implies(k.one_of(pending, (Pending.FLIP_DUE, Pending.TRIGGER_DUE)), k.not_(s.g("discarding"))),
            # 6.3.6 (001:L116): a mandatory End Phase effect waits alone, with no chain open (each starts its own);
            # the opponent's only once the turn player has none left to activate
            k.implies(
                mandatory(s, p),
                k.and_(
                    length == 0,
                    s.g("trig", s.other(p)) == Pending.NONE,
                    k.implies(p != tp, k.not_(k.or_(*(end_phase_due(s, tp, z) for z in range(mz))))),
                ),
            ),
            # 6.3.6 (001:L116, L118): the hand is adjusted once the mandatory End Phase effects are activated
            k.implies(s.g("discarding"), k.not_(k.or_(*(end_phase_due(s, p, z) for z in range(mz))))),
            # a lasting "no damage" effect applies within the period it lasts for (6.3.4.3.5, 6.3.4.4)
            k.one_of(s.g("no_damage", p), [int(u) for u in Until]),
            k.implies(s.g("no_damage", p) == Until.DAMAGE_STEP, k.and_(s.is_phase(*DAMAGE_STEP), k.not_(seed_000))),
            k.implies(s.g("no_damage", p) == Until.BATTLE_PHASE, s.is_phase(*BATTLE_PHASE)),
            # a waiting effect waits for the chain to resolve, or joins, second, the turn player's effect
            # triggered with it (6.3.4.3.4: they chain by priority, the turn player's first)
            k.implies(
                k.and_(k.one_of(pending, (Pending.FLIP_DUE, Pending.TRIGGER_DUE)), k.not_(s.g("resolving"))),
                k.or_(
                    length == 0,
                    k.and_(
                        length == 1,
                        p != tp,
                        s.g("c_owner", 0) == tp,
                        k.one_of(s.g("c_kind", 0), (Kind.FLIP, Kind.TRIGGER)),
                    ),
                ),
            ),
        ]
    for j in range(cl):
        live_link = j < length
        zone = s.g("c_zone", j)
        owner = s.g("c_owner", j)
        blank = k.and_(
            *(s.g(f, j) == 0 for f in ("c_owner", "c_kind", "c_eff", "c_zone", "c_tp", "c_ta", "c_tz", "c_cost")),
            k.not_(s.g("c_neg", j)),
            k.not_(s.g("c_gone", j)),
        )
        out.append(k.implies(k.not_(live_link), blank))
        card_there = k.and_(
            s.g("s_occ", owner, zone),
            s.g("s_up", owner, zone),
            s.g("s_kind", owner, zone) == s.g("c_kind", j),
            s.g("s_eff", owner, zone) == s.g("c_eff", j),
            s.g("s_cost", owner, zone) == s.g("c_cost", j),
        )
        kind = s.g("c_kind", j)
        is_card = k.one_of(kind, [int(x) for x in (*SPELLS, *TRAPS)])
        monster_link = k.or_(
            k.and_(k.one_of(kind, (Kind.IGNITION, Kind.QUICK_EFFECT, Kind.FLIP)), zone >= 0, zone < mz),
            k.and_(kind == Kind.TRIGGER, zone == GRAVEYARD),
            # 6.3.1: a "before the draw" effect of a monster on the field, in the Draw Phase
            k.and_(kind == Kind.TRIGGER, zone >= 0, zone < mz, ph == Phase.DRAW, j == 0),
            # 6.3.6: a mandatory End Phase effect starts a chain of its own
            k.and_(kind == Kind.TRIGGER, zone >= 0, zone < mz, ph == Phase.END, j == 0),
        )
        out.append(
            k.implies(
                live_link,
                k.and_(
                    s.g("c_tz", j) >= 0,
                    s.g("c_tz", j) < max(mz, sz),
                    k.one_of(s.g("c_eff", j), [int(e) for e in Effect]),
                    k.one_of(s.g("c_cost", j), [int(c) for c in Cost]),
                    k.implies(s.g("c_eff", j) == Effect.NEGATE, j > 0),
                    # a lasting effect's card is activated in the period its text names (6.3.4.3.3, 6.3.4.4)
                    k.implies(s.g("c_eff", j) == Effect.NO_DAMAGE_DS, ph == Phase.DMG_DURING),
                    # under the seed-000 reading nothing is activated during damage calculation (000:L11)
                    k.implies(seed_000, s.g("c_eff", j) != Effect.NO_DAMAGE_DS),
                    k.implies(s.g("c_eff", j) == Effect.NO_DAMAGE_BP, s.is_phase(*BATTLE_PHASE)),
                    # a link whose effect takes no target records none (its trace names no target)
                    k.implies(
                        k.not_(k.one_of(s.g("c_eff", j), TARGETED)),
                        k.and_(*(s.g(f, j) == 0 for f in ("c_tp", "c_ta", "c_tz"))),
                    ),
                    k.or_(
                        k.and_(is_card, zone >= 0, zone < sz, k.implies(k.not_(s.g("c_gone", j)), card_there)),
                        k.and_(monster_link, k.not_(s.g("c_gone", j)), s.g("c_cost", j) == 0),
                    ),
                ),
            )
        )
        for i in range(j):  # two live links never share a card
            out.append(
                k.implies(
                    k.and_(live_link, is_card, k.not_(s.g("c_gone", j)), k.not_(s.g("c_gone", i))),
                    k.or_(
                        s.g("c_owner", i) != owner, s.g("c_zone", i) != zone, k.one_of(s.g("c_kind", i), MONSTER_KINDS)
                    ),
                )
            )
    return out


def _monster_effect(s: State, mkind: Val, eff: Val) -> Val:
    """A monster's effect type and effect are a pair of the model's monster catalogue."""
    k = s.k
    pairs = [k.and_(mkind == m, k.one_of(eff, effects)) for m, effects in MONSTER_EFFECTS.items()]
    return k.or_(k.and_(mkind == 0, eff == 0), *pairs)


always(
    "well-formed",
    "model",
    "Structural facts of every reachable state (ranges, empty zones blank, links on the chain have their card "
    "face-up on the field, an attack has its attacker); the other invariants are proved relative to it.",
    state(_well_formed),
)


def _conservation(s: State) -> Val:
    k, r = s.k, s.r
    out = []
    for p in (0, 1):
        field = s.count(s.row("m_occ", p)) + s.count(s.row("s_occ", p))
        total = s.g("deck", p) + s.g("hand", p) + s.g("gy", p) + field
        out.append(total == r.deck_size)
    return k.and_(*out)


always(
    "card-conservation",
    "seed 000 (duel set-up)",
    "Deck + hand + field + Graveyard is the deck size, for each player, always.",
    state(_conservation),
)


def _lp(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    calc = damage_calculated(s, a, t)
    # effect damage: a resolving link whose text deals damage to both players, the same to each
    burn = k.and_(link_takes_effect(s, a), _top(s, "c_eff") == Effect.DESTROY_DAMAGE_BOTH)
    same = t.g("lp", 0) - s.g("lp", 0) == t.g("lp", 1) - s.g("lp", 1)
    same = k.or_(same, protected(s, 0), protected(s, 1))  # a player under a "no damage" effect takes none
    out = []
    for p in (0, 1):
        paid = k.and_(a.is_("activate"), a.p("cost") == Cost.PAY_LP, s.g("prio") == p)
        cost = k.and_(paid, t.g("lp", p) == s.g("lp", p) - LP_COST)
        down = t.g("lp", p) < s.g("lp", p)
        out.append(k.implies(t.g("lp", p) != s.g("lp", p), k.or_(k.and_(calc, down), cost, k.and_(burn, down, same))))
    return k.and_(*out)


always(
    "lp-accounting",
    "6.3.4.3.3, 6.3.4.3.3.2, seed 000 (costs)",
    "Life Points change only downward: by battle damage at damage calculation, by an LP cost the activating "
    "player pays (1000 LP), or by effect damage a resolving link deals to both players alike.",
    step(_lp),
)


always(
    "lp-zero-ends-duel",
    "seed 000 (winning)",
    "A player whose LP are 0 or less has lost: the duel is over.",
    state(lambda s: s.k.implies(s.k.or_(s.g("lp", 0) <= 0, s.g("lp", 1) <= 0), s.g("winner") != 0)),
)


def _lp_loser(s: State) -> Val:
    """The player at 0 LP or less loses and the other wins; a loss by an empty deck leaves both LP above 0."""
    k = s.k
    out = [s.g("lp", p) <= 0 for p in (0, 1)]
    return k.and_(
        k.implies(k.and_(out[0], k.not_(out[1])), s.g("winner") == 2),
        k.implies(k.and_(out[1], k.not_(out[0])), s.g("winner") == 1),
    )


always(
    "lp-decides-the-winner",
    "seed 000 (winning), rulebook (winning)",
    "The player whose LP are 0 or less loses and the other wins; both players at 0 or less at once is a drawn "
    "duel, and a duel is drawn only so.",
    state(_lp_loser, "loser"),
    state(lambda s: (s.g("winner") == DRAWN) == s.k.and_(s.g("lp", 0) <= 0, s.g("lp", 1) <= 0), "draw"),
)


sometimes(
    "reach-drawn-duel",
    "rulebook (winning)",
    "Both players' LP reach 0 at once (effect damage to both): the duel is a draw.",
    state(lambda s: s.g("winner") == DRAWN),
)


sometimes(
    "reach-duel-ends-mid-chain",
    "seed 000 (winning, chain)",
    "A resolving link ends the duel with links still on the chain: they never resolve.",
    step(lambda s, a, t: s.k.and_(a.is_("resolve"), t.g("winner") != 0, t.g("chain_len") > 0)),
    vanishes=lambda r, case: r.chain_links < 2,  # a second link is needed
)


def _one_spelling(s: State, a: ActionView, t: State) -> Val:
    """A duel log spells each play one way: a triggered effect declined (no link added) names no target; a
    resolution names a monster's ATK, DEF and position only when it Special Summons one (a monster comes to an
    empty zone); an ATK change names an amount, never 0, exactly when it takes effect on a face-up monster."""
    k = s.k
    declined = k.and_(a.is_("trigger"), t.g("chain_len") == s.g("chain_len"))
    no_target = k.and_(a.p("tplayer") == 0, a.p("tarea") == 0, a.p("tzone") == 0)
    resolves = k.and_(a.is_("resolve"), s.g("chain_len") > 0)
    arrived = k.or_(*(k.and_(k.not_(s.g("m_occ", p, z)), t.g("m_occ", p, z)) for p, z in zones(s, "m_occ")))
    no_stats = k.and_(a.p("atk") == 0, a.p("defv") == 0, k.not_(a.p("pos")))
    face_up = s.g("m_up", _top(s, "c_tp"), _top(s, "c_tz"))
    changes = k.and_(link_takes_effect(s, a), _top(s, "c_eff") == Effect.CHANGE_ATK, _target_there(s), face_up)
    return k.and_(
        k.implies(declined, no_target),
        k.implies(k.and_(resolves, k.not_(arrived)), no_stats),
        k.implies(resolves, (a.p("amount") != 0) == changes),
    )


always(
    "one-spelling-per-play",
    "model (duel log)",
    "Each play has one spelling in a duel log: a declined triggered effect names no target; a resolution names "
    "monster stats only for the monster it Special Summons, and an ATK amount, never 0, only for the ATK it "
    "changes.",
    step(_one_spelling),
)


always(
    "nothing-after-the-duel",
    "seed 000 (winning)",
    "Once a player has won, nothing more happens.",
    step(lambda s, a, t: s.g("winner") == 0),
)


def _bookkeeping(s: State) -> Val:
    k = s.k
    draws = k.implies(s.is_phase(Phase.DRAW), s.g("drew") == (s.g("h_draws") >= 1))
    attacks = [s.g("m_decl", p, z) == (s.g("h_attacks", p, z) >= 1) for p, z in zones(s, "m_occ")]
    counts = [s.g("h_draws") >= 0, *(s.g("h_attacks", p, z) >= 0 for p, z in zones(s, "m_occ"))]
    passes = (s.g("h_passes") == 1) == k.and_(s.g("passed"), s.g("chain_len") > 0, k.not_(s.g("resolving")))
    resolving = (s.g("h_resolving") == 1) == s.g("resolving")
    ghosts = [s.g("h_passes") >= 0, s.g("h_passes") <= 1, s.g("h_resolving") >= 0, s.g("h_resolving") <= 1]
    empty = (s.g("h_empty_passes") == 1) == k.and_(s.g("passed"), s.g("chain_len") == 0, k.not_(s.g("discarding")))
    ghosts += [s.g("h_empty_passes") >= 0, s.g("h_empty_passes") <= 1]
    ghosts += [(s.g("h_window") == 1) == s.g("window"), s.g("h_window") >= 0, s.g("h_window") <= 1]
    triggers = []
    for p in (0, 1):
        h, trig = s.g("h_triggers", p), s.g("trig", p)
        triggers += [
            (h == 2) == k.one_of(trig, (Pending.FLIP_DUE, Pending.TRIGGER_DUE)),
            (h == 1) == (trig == Pending.FLIPPED),
            k.implies(h == 1, s.g("trig_zone", p) == s.g("atk_tgt")),  # the attack's target was flipped
            s.g("trig_zone", p) == s.g("h_trig_zone", p),  # where the waiting effect comes from
            h >= 0,
            h <= 2,
            # 001:L119: the effect of a monster a card effect discarded waits from the Graveyard, in any phase; the
            # other effects waiting there (a battle-destroyed monster's, a hand-limit discard's) at their timings
            k.implies(
                s.g("h_trig_discard", p) == 1,
                k.and_(trig == Pending.TRIGGER_DUE, discard_trigger(s, s.g("trig_eff", p), s.g("trig_zone", p))),
            ),
            k.implies(
                k.and_(trig == Pending.TRIGGER_DUE, s.g("trig_zone", p) == GRAVEYARD, s.g("h_trig_discard", p) == 0),
                k.or_(s.g("phase") == Phase.DMG_END, k.and_(s.g("phase") == Phase.END, p == s.tp)),
            ),
            k.one_of(s.g("h_trig_discard", p), (0, 1)),
        ]
    for p in (0, 1):  # 6.3: a delayed effect's turns, counted down by the rules and up by the property layer
        later, seen = s.g("later", p), s.g("h_later", p)
        triggers += [
            (later == 0) == (seen == 0),
            k.implies(seen != 0, later + seen == LATER_DUE + 1),
            s.g("later_own", p) == (s.g("h_later_own", p) == 1),
            k.implies(later == 0, k.not_(s.g("later_own", p))),
            seen >= 0,
            seen <= LATER_DUE,
            s.g("h_later_own", p) >= 0,
            s.g("h_later_own", p) <= 1,
        ]
    # 6.3.3: the start of Main Phase 1, as the rules mark it and as the property layer saw nothing done there
    triggers += [s.g("m1_start") == (s.g("h_m1_start") == 1), s.g("h_m1_start") >= 0, s.g("h_m1_start") <= 1]
    for p in (0, 1):  # a lasting "no damage" effect, as the rules keep it and as the property layer saw it
        triggers.append(s.g("no_damage", p) == s.g("h_no_damage", p))
    if s.r.damage_step_single_chain:  # 6.3.4.3: a chain resolved in this Damage Step timing, to both
        triggers.append(s.g("ds_chained") == (s.g("h_ds_chained") == 1))
    moves = [s.g("m_moved", p, z) == (s.g("h_moves", p, z) >= 1) for p, z in zones(s, "m_occ")]
    moves += [s.g("h_moves", p, z) >= 0 for p, z in zones(s, "m_occ")]
    # seed 000: a phase to be skipped, as the rules mark it and as the property layer saw the effect resolve
    skips = [s.g(f, p) == (s.g(f"h_{f}", p) == 1) for f in ("skip_m1", "skip_bp") for p in (0, 1)]
    # a Battle Phase begun this turn; a monster that came to the field, a card Set, this turn
    skips.append(s.g("bp_done") == (s.g("h_battled") == 1))
    skips += [s.g("h_battled") >= 0, *(s.g(f, p) >= 0 for f in ("h_skip_m1", "h_skip_bp") for p in (0, 1))]
    skips += [s.g("h_arrived", p, z) >= 0 for p, z in zones(s, "m_occ")]
    skips += [s.g("h_set", p, z) >= 0 for p, z in zones(s, "s_occ")]
    for p, z in zones(s, "m_occ"):
        arrived = s.g("h_arrived", p, z) == 1
        occupied = s.g("m_occ", p, z)
        skips += [k.implies(occupied, s.g("m_fresh", p, z) == arrived), k.implies(arrived, occupied)]
    for p, z in zones(s, "s_occ"):
        set_ = s.g("h_set", p, z) == 1
        down = k.and_(s.g("s_occ", p, z), k.not_(s.g("s_up", p, z)))
        skips += [k.implies(down, s.g("s_fresh", p, z) == set_), k.implies(set_, down)]
    # seed 000: the two passes that start a chain's resolution are spent: none is pending while it resolves
    spent = k.implies(s.g("resolving"), k.not_(s.g("passed")))
    # 6.3.4.2: the window of an attack declaration; 6.3.4.2.1: a replay due; a monster's effect used this turn
    battle = [s.g("at_decl") == (s.g("h_declared") == 1), s.g("replay") == (s.g("h_replay") == 1)]
    battle += [s.g("h_declared") >= 0, s.g("h_replay") >= 0]
    battle += [s.g("m_used", p, z) == (s.g("h_used", p, z) == 1) for p, z in zones(s, "m_occ")]
    battle += [s.g("h_used", p, z) >= 0 for p, z in zones(s, "m_occ")]
    # model catalogue: the ATK a monster came to the field with is the one the rules keep as its original ATK
    battle += [s.g("m_batk", p, z) == s.g("h_printed", p, z) for p, z in zones(s, "m_occ")]
    # seed 000 (negation): a link the rules mark negated is one a negation resolved on
    links = range(s.schema["c_neg"].dims[0])
    battle += [s.g("c_neg", j) == (s.g("h_neg", j) == 1) for j in links]
    battle += [s.g("h_neg", j) >= 0 for j in links]
    return k.and_(
        s.g("nsum") == s.g("h_summons"),
        draws,
        *attacks,
        *counts,
        passes,
        resolving,
        *ghosts,
        empty,
        *triggers,
        *moves,
        *skips,
        spent,
        *battle,
    )


always(
    "bookkeeping-matches-history",
    "6.3.1, 6.3.4.2, 6.3.5",
    "The rules' own bookkeeping agrees with what happened, as the property layer counts it: the Normal Summons "
    "and Sets made this turn, the normal draw in the Draw Phase, each monster's attack declared this turn and "
    "battle position changed this turn, a pass with or without the chain open (none pending while a chain "
    "resolves), a chain resolving, a triggered effect waiting, a phase to be skipped, the window of an attack "
    "declaration, a replay due, a monster's effect used this turn, and a chain link negated.",
    state(_bookkeeping),
)


def _as_played(s: State, a: ActionView, t: State) -> Val:
    """6.3.5, seed 000: a card played from the hand is the card the action names (its identity is the action's
    parameter): the monster Normal Summoned (face-up Attack Position), Set (face-down Defense Position) or
    Special Summoned (face-up, in the position chosen) has that ATK and DEF, and a summoned monster that effect
    type and effect; the card Set in a Spell & Trap Zone is that face-down card with its effect and cost."""
    k, tp = s.k, s.tp
    out = []
    top = s.g("chain_len") - 1
    special = k.and_(a.is_("resolve"), s.g("chain_len") > 0, s.g("c_eff", top) == Effect.SPECIAL_SUMMON)
    for p, z in zones(s, "m_occ"):
        came = k.and_(k.not_(s.g("m_occ", p, z)), t.g("m_occ", p, z))
        stats = k.and_(t.g("m_atk", p, z) == a.p("atk"), t.g("m_defv", p, z) == a.p("defv"))
        card = k.and_(stats, t.g("m_kind", p, z) == a.p("mkind"), t.g("m_eff", p, z) == a.p("eff"))
        mine = p == tp
        out += [
            k.implies(
                k.and_(came, a.is_("normal_summon")), k.and_(mine, card, t.g("m_up", p, z), k.not_(t.g("m_def", p, z)))
            ),
            k.implies(
                k.and_(came, a.is_("set_monster")), k.and_(mine, card, k.not_(t.g("m_up", p, z)), t.g("m_def", p, z))
            ),
            k.implies(k.and_(came, special), k.and_(stats, t.g("m_up", p, z), t.g("m_def", p, z) == a.p("pos"))),
        ]
    for p, z in zones(s, "s_occ"):
        came = k.and_(a.is_("set_spell_trap"), k.not_(s.g("s_occ", p, z)), t.g("s_occ", p, z))
        card = k.and_(t.g("s_kind", p, z) == a.p("kind"), t.g("s_eff", p, z) == a.p("eff"))
        out.append(
            k.implies(came, k.and_(p == tp, card, t.g("s_cost", p, z) == a.p("cost"), k.not_(t.g("s_up", p, z))))
        )
    return k.and_(*out)


always(
    "cards-as-played",
    "6.3.5, seed 000",
    "A card played from the hand is the card the action names: a monster Normal Summoned, Set or Special "
    "Summoned has the ATK and DEF (and, from the hand, the effect) it was played with, in the position the rule "
    "gives it; a card Set in a Spell & Trap Zone is face-down with its effect and cost.",
    step(_as_played),
)
