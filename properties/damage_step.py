"""The Damage Step (6.3.4.3 to 6.3.4.3.5): its five timings, what may be activated there, the damage table, face-down
battlers, destruction and triggers.
"""

from __future__ import annotations

from collections.abc import Callable

from duelcheck.model.cards import (
    DAMAGE_STEP,
    DIRECT,
    GRAVEYARD,
    TARGETED,
    Effect,
    Kind,
    MonsterEffect,
    Phase,
)
from duelcheck.model.kit import Val
from duelcheck.model.state import State
from duelcheck.properties.core import (
    ActionView,
    StepPred,
    _trigger_waits,
    always,
    damage_calculated,
    new_link,
    replacement_offered,
    sometimes,
    step,
    zones,
)
from duelcheck.properties.history import FLIP_DUE, LATER_DUE, protected


def monster_zone_count(s: State) -> int:
    return s.schema["m_occ"].dims[1]


def _battle(s: State) -> dict[str, Val]:
    """The battle at damage calculation, read from the state before it (6.3.4.3.3)."""
    tp = s.tp
    opp = s.other(tp)
    z, t = s.g("atk_zone"), s.g("atk_tgt")
    return {
        "tp": tp,
        "opp": opp,
        "a": s.g("m_atk", tp, z),
        "ta": s.g("m_atk", opp, t),
        "td": s.g("m_defv", opp, t),
        "def": s.g("m_def", opp, t),
        "direct": t == DIRECT,
        "z": z,
        "t": t,
    }


def _vs_atk(s: State, b: dict[str, Val]) -> Val:
    return s.k.and_(s.k.not_(b["direct"]), s.k.not_(b["def"]))


def _vs_def(s: State, b: dict[str, Val]) -> Val:
    return s.k.and_(s.k.not_(b["direct"]), b["def"])


def _is_damage_calc(s: State, a: ActionView, t: State) -> Val:
    return s.k.and_(damage_calculated(s, a, t), s.g("attacking"))


def battle_losses(s: State) -> tuple[Val, Val]:
    """6.3.4.3.3: the battle damage the table gives the opponent and the turn player, read from the state before
    damage calculation (before any effect that says a player takes none)."""
    k = s.k
    b = _battle(s)
    atk, opp_atk, opp_def, vs_atk, vs_def = b["a"], b["ta"], b["td"], _vs_atk(s, b), _vs_def(s, b)
    zero = 0
    loss_opp = k.ite(
        b["direct"],
        atk,
        k.ite(k.and_(vs_atk, atk > opp_atk), atk - opp_atk, zero),
    )
    loss_tp = k.ite(
        k.and_(vs_atk, atk < opp_atk),
        opp_atk - atk,
        k.ite(k.and_(vs_def, atk < opp_def), opp_def - atk, zero),
    )
    return loss_opp, loss_tp


def _damage_table(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.3.3 and 6.3.4.3.3.1, restated: expected LP loss and destruction for each row."""
    k = s.k
    b = _battle(s)
    atk, opp_atk, opp_def, vs_atk, vs_def = b["a"], b["ta"], b["td"], _vs_atk(s, b), _vs_def(s, b)
    zero = 0
    loss_opp, loss_tp = battle_losses(s)
    tie = k.and_(vs_atk, atk == opp_atk, atk != 0)
    doom_target = k.or_(k.and_(vs_atk, k.or_(atk > opp_atk, tie)), k.and_(vs_def, atk > opp_def))
    doom_attacker = k.and_(vs_atk, k.or_(atk < opp_atk, tie))
    tp, opp = b["tp"], b["opp"]
    # a player under a lasting "no damage" effect takes none (6.3.4.3.5, 6.3.4.4, 6.3.6)
    loss_opp = k.ite(protected(s, opp), zero, loss_opp, w=s.schema["lp"].width)
    loss_tp = k.ite(protected(s, tp), zero, loss_tp, w=s.schema["lp"].width)
    row = k.and_(
        t.g("lp", opp) == s.g("lp", opp) - loss_opp,
        t.g("lp", tp) == s.g("lp", tp) - loss_tp,
        k.implies(
            k.not_(b["direct"]), t.g("m_doomed", opp, b["t"]) == k.or_(doom_target, s.g("m_doomed", opp, b["t"]))
        ),
        t.g("m_doomed", tp, b["z"]) == k.or_(doom_attacker, s.g("m_doomed", tp, b["z"])),
    )
    no_battle = k.and_(*(t.g("lp", p) == s.g("lp", p) for p in (0, 1)))
    calc = damage_calculated(s, a, t)
    return k.and_(
        k.implies(_is_damage_calc(s, a, t), row),
        k.implies(k.and_(calc, k.not_(s.g("attacking"))), no_battle),
    )


always(
    "battle-damage-table",
    "6.3.4.3.3, 6.3.4.3.3.1",
    "Damage calculation follows the table of seed 000 exactly, row by row (0 against 0: nothing); a player under "
    "a lasting 'no damage' effect takes none.",
    step(_damage_table),
)


def _damage_step_activations(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    kind, eff = a.p("kind"), a.p("eff")
    before_calc = s.is_phase(Phase.DMG_START, Phase.DMG_BEFORE)
    if s.r.damage_step_activations == "seed-000":  # the older overview's reading
        allowed = k.and_(before_calc, k.or_(kind == Kind.COUNTER_TRAP, eff == Effect.CHANGE_ATK))
    else:
        # a card that says "during damage calculation" at that timing (6.3.4.3.3, 001:L78)
        at_calc = k.and_(eff == Effect.NO_DAMAGE_DS, s.g("phase") == Phase.DMG_DURING)
        allowed = k.or_(
            kind == Kind.COUNTER_TRAP, eff == Effect.NEGATE, k.and_(eff == Effect.CHANGE_ATK, before_calc), at_calc
        )
    # triggered effects: a battle-destroyed monster's effect is activated at the end of the Damage Step (and a
    # delayed effect's draw in the Standby Phase, 6.3.2: properties/turn.py `delayed-effects`; a card the
    # hand-limit discard sent from the hand to the Graveyard, in the End Phase, 6.3.6; the effect of a monster a
    # card effect discarded, wherever that chain resolved, 001:L119: history)
    new = s.g("chain_len")
    destroyed = k.and_(a.is_("trigger"), a.p("pos"), t.g("c_kind", new) == Kind.TRIGGER)
    taker = k.ite(s.g("h_triggers", s.tp) == FLIP_DUE, s.tp, s.other(s.tp), w=1)
    discarded = s.g("h_trig_discard", taker) == 1
    triggered = k.implies(destroyed, k.or_(s.is_phase(Phase.DMG_END, Phase.STANDBY, Phase.END), discarded))
    return k.and_(k.implies(k.and_(a.is_("activate"), s.is_phase(*DAMAGE_STEP)), allowed), triggered)


always(
    "damage-step-activations",
    "6.3.4.3",
    "In the Damage Step only Counter Traps, negating effects, (up to before damage calculation) ATK/DEF "
    "changes and (during damage calculation) cards that say so are activated (under the seed-000 reading: "
    "ATK/DEF changes and Counter Traps, up to before damage calculation); a battle-destroyed monster's effect "
    "only at the end of the Damage Step.",
    step(_damage_step_activations),
)


def _turned_face_up(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.3.2: a face-down monster that battles becomes face-up Defense Position at the timing "before damage
    calculation" (the step from the start of the Damage Step to it); no other monster is turned face-up or
    face-down by that step."""
    k = s.k
    into = k.and_(s.g("phase") == Phase.DMG_START, t.g("phase") == Phase.DMG_BEFORE)
    tgt = s.g("atk_tgt")
    battles = k.and_(s.g("attacking"), tgt != DIRECT)
    out = []
    for p, z in zones(s, "m_occ"):
        target = k.and_(battles, s.other(s.tp) == p, tgt == z, s.g("m_occ", p, z))
        turned = k.and_(t.g("m_up", p, z), k.implies(k.not_(s.g("m_up", p, z)), t.g("m_def", p, z)))
        out += [k.implies(target, turned), k.implies(k.not_(target), t.g("m_up", p, z) == s.g("m_up", p, z))]
    return k.implies(into, k.and_(*out))


always(
    "face-down-battler-turned-face-up",
    "6.3.4.3.2",
    "A face-down monster that is attacked becomes face-up Defense Position before damage calculation, and that "
    "step turns no other monster.",
    step(_turned_face_up),
)


def _to_graveyard_at_damage_end(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    enters_end = k.and_(s.g("phase") == Phase.DMG_AFTER, t.g("phase") == Phase.DMG_END)
    out = []
    for p in (0, 1):
        doomed = [s.g("m_doomed", p, z) for z in range(monster_zone_count(s))]
        gone = [k.implies(d, k.not_(t.g("m_occ", p, z))) for z, d in enumerate(doomed)]
        out.append(k.implies(enters_end, k.and_(*gone, t.g("gy", p) == s.g("gy", p) + s.count(doomed))))
        kept = [k.implies(s.g("m_doomed", p, z), t.g("m_occ", p, z)) for z in range(monster_zone_count(s))]
        out.append(k.implies(k.not_(enters_end), k.and_(*kept)))
    return k.and_(*out)


always(
    "battle-destroyed-to-graveyard-at-damage-step-end",
    "6.3.4.3.3, 6.3.4.3.5",
    "A monster determined destroyed by battle stays on the field until the end of the Damage Step and is sent "
    "to the Graveyard as that timing begins, before its effects are activated.",
    step(_to_graveyard_at_damage_end),
)


def _spared(s: State, t: State, p: int, z: int) -> Val:
    """The monster in player p's zone z was determined destroyed by battle before the step and no longer is
    after it, still on the field."""
    k = s.k
    return k.and_(s.g("m_doomed", p, z), t.g("m_occ", p, z), k.not_(t.g("m_doomed", p, z)))


def _replaced(s: State, a: ActionView, t: State) -> Val:
    return s.k.or_(*(_spared(s, t, p, z) for p, z in zones(s, "m_occ")))


def _replaced_as_written(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.3.3 (001:L86): a monster determined destroyed by battle counts as not destroyed only by its own
    "if this card would be destroyed by battle, you can discard 1 card instead", applied at damage calculation,
    its controller discarding one card; and a replacement applied spares a monster."""
    k = s.k
    applied = k.and_(a.is_("replace_destruction"), a.p("pos"))
    out = [k.implies(applied, _replaced(s, a, t))]
    for p, z in zones(s, "m_occ"):
        carries = k.and_(
            s.g("m_up", p, z),
            s.g("m_kind", p, z) == MonsterEffect.CONTINUOUS,
            s.g("m_eff", p, z) == Effect.DISCARD_INSTEAD,
        )
        paid = k.and_(t.g("hand", p) == s.g("hand", p) - 1, t.g("gy", p) == s.g("gy", p) + 1)
        at_calc = k.and_(s.g("phase") == Phase.DMG_DURING, replacement_offered(s))
        out.append(k.implies(_spared(s, t, p, z), k.and_(carries, paid, at_calc)))
    return k.and_(*out)


def _decided_first(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.3.3: once damage calculation has determined destroyed a monster whose replacement its controller can
    apply, the replacement is applied or declined before anything else; and only then."""
    k = s.k
    offered = replacement_offered(s)
    return k.and_(k.implies(offered, a.is_("replace_destruction")), k.implies(a.is_("replace_destruction"), offered))


always(
    "destruction-replacement",
    "6.3.4.3.3",
    "A monster determined destroyed by battle counts as not destroyed only by its own destruction replacement "
    '("if this card would be destroyed by battle, you can discard 1 card instead"), applied at damage '
    "calculation with one card discarded, and applied it spares the monster; once damage calculation offers it, "
    "it is applied or declined before anything else.",
    step(_replaced_as_written, "as-written"),
    step(_decided_first, "decided-first"),
)


sometimes(
    "reach-destruction-replaced",
    "6.3.4.3.3",
    "A monster determined destroyed by battle is not destroyed: its controller applies its destruction replacement "
    "at damage calculation, discarding a card.",
    step(_replaced),
)


def _no_target_destroyed(s: State, a: ActionView, t: State) -> Val:
    """Read from what happened: a new chain link whose target is a monster."""
    k = s.k
    new = s.g("chain_len")
    added = t.g("chain_len") == new + 1
    chooses = k.and_(added, k.one_of(t.g("c_eff", new), TARGETED), t.g("c_ta", new) == 0)
    return k.implies(chooses, k.not_(s.g("m_doomed", t.g("c_tp", new), t.g("c_tz", new))))


always(
    "no-target-determined-destroyed",
    "6.3.4.3.3",
    "A monster determined destroyed by battle is never chosen as the target of an effect before it is sent "
    "to the Graveyard.",
    step(_no_target_destroyed),
)


def _triggers_first(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.3.4, 6.3.4.3.5: a waiting triggered effect (history) is activated or declined before anything
    else is done (an effect triggered while a chain resolves waits for the rest of the chain); and only a
    waiting one is, as the link of the card it came from (history: the Flip monster's zone, or the
    Graveyard)."""
    k = s.k
    waiting = _trigger_waits(s)
    first = k.implies(k.and_(waiting, k.not_(a.is_("resolve"))), a.is_("trigger"))
    added, _, _, owner = new_link(s, t)
    zone = t.g("c_zone", s.g("chain_len"))
    source = k.implies(k.and_(a.is_("trigger"), added, waiting), zone == s.g("h_trig_zone", owner))
    # 6.3.2: or, with none waiting, a delayed effect's draw in the Standby Phase its turns are counted to, by its
    # player holding priority, from the Graveyard (properties/turn.py `delayed-effects`)
    holder = s.g("prio")
    delayed = k.and_(s.is_phase(Phase.STANDBY), s.g("h_later", holder) == LATER_DUE)
    drawn = k.implies(k.and_(a.is_("trigger"), k.not_(waiting)), k.and_(added, owner == holder, zone == GRAVEYARD))
    return k.and_(first, k.implies(a.is_("trigger"), k.or_(waiting, delayed)), source, drawn)


always(
    "triggers-first",
    "6.3.4.3.4, 6.3.4.3.5",
    "A Flip effect (after damage calculation, or after a flip) and a battle-destroyed monster's effect (at the "
    "end of the Damage Step) are activated, or declined, before either player does anything else, as the link "
    "of the card they came from, and no triggered effect is activated without its event (kept by the property "
    "layer: what was flipped or destroyed by battle, and where; or a delayed effect's counted turns, 6.3.2).",
    step(_triggers_first),
)


def _row(cond: Callable[[State, dict[str, Val]], Val]) -> StepPred:
    def pred(s: State, a: ActionView, t: State) -> Val:
        return s.k.and_(_is_damage_calc(s, a, t), cond(s, _battle(s)))

    return pred


sometimes(
    "reach-every-damage-outcome",
    "6.3.4.3.3, 6.3.4.3.3.1",
    "Every row of the battle damage table happens in some play.",
    step(_row(lambda s, b: s.k.and_(_vs_atk(s, b), b["a"] > b["ta"])), "atk-higher"),
    step(_row(lambda s, b: s.k.and_(_vs_atk(s, b), b["a"] < b["ta"])), "atk-lower"),
    step(_row(lambda s, b: s.k.and_(_vs_atk(s, b), b["a"] == b["ta"], b["a"] != 0)), "atk-equal"),
    step(_row(lambda s, b: s.k.and_(_vs_atk(s, b), b["a"] == 0, b["ta"] == 0)), "atk-zero"),
    step(_row(lambda s, b: s.k.and_(_vs_def(s, b), b["a"] > b["td"])), "def-higher"),
    step(_row(lambda s, b: s.k.and_(_vs_def(s, b), b["a"] == b["td"])), "def-equal"),
    step(_row(lambda s, b: s.k.and_(_vs_def(s, b), b["a"] < b["td"])), "def-lower"),
    step(_row(lambda s, b: b["direct"]), "direct"),
)


def _triggered(phase: Phase, kind: Kind) -> StepPred:
    def pred(s: State, a: ActionView, t: State) -> Val:
        k = s.k
        new = s.g("chain_len")
        added = k.and_(t.g("chain_len") == new + 1, t.g("c_kind", new) == kind)
        return k.and_(a.is_("trigger"), s.g("phase") == phase, added)

    return pred


sometimes(
    "reach-flip-effect-after-damage-calculation",
    "6.3.4.3.2, 6.3.4.3.4",
    "A face-down monster with a Flip effect is attacked and flipped; its effect is activated after damage calculation.",
    step(_triggered(Phase.DMG_AFTER, Kind.FLIP)),
)


sometimes(
    "reach-battle-destroyed-trigger",
    "6.3.4.3.5",
    "A monster destroyed by battle is sent to the Graveyard and its effect is activated at the end of the Damage Step.",
    step(_triggered(Phase.DMG_END, Kind.TRIGGER)),
)


def _damage_step_activation(phases: tuple[Phase, ...], what: Callable[[State, Val, Val], Val]) -> StepPred:
    def pred(s: State, a: ActionView, t: State) -> Val:
        k = s.k
        added, kind, eff, _ = new_link(s, t)
        return k.and_(a.is_("activate"), added, s.is_phase(*phases), what(s, kind, eff))

    return pred


def _second_chain(s: State, a: ActionView, t: State) -> Val:
    """A card activated to start a new chain in a timing of the Damage Step where a chain has already resolved,
    as the property layer saw it (`h_ds_chained`)."""
    added, _, _, _ = new_link(s, t)
    return s.k.and_(a.is_("activate"), added, s.g("chain_len") == 0, s.g("h_ds_chained") == 1)


always(
    "damage-step-single-chain",
    "6.3.4.3 (Goat format)",
    "Under `damage_step_single_chain` (the Goat format) a timing of the Damage Step holds one chain: once a chain "
    "has resolved there, no card is activated to start another (a triggered effect may still start one).",
    step(lambda s, a, t: s.k.not_(_second_chain(s, a, t)) if s.r.damage_step_single_chain else True),
)


sometimes(
    "reach-second-damage-step-chain",
    "6.3.4.3",
    "In one timing of the Damage Step a chain resolves and a card is then activated to start a second chain.",
    step(_second_chain),
    vanishes=lambda r, case: r.damage_step_single_chain,  # the Goat format's one chain per timing
)


sometimes(
    "reach-damage-step-activations",
    "6.3.4.3",
    "In the Damage Step an ATK change is activated before damage calculation, a negating effect that is not a "
    "Counter Trap is activated, and a Counter Trap is activated after damage calculation.",
    step(
        _damage_step_activation((Phase.DMG_START, Phase.DMG_BEFORE), lambda s, kind, eff: eff == Effect.CHANGE_ATK),
        "atk-change-before-calculation",
    ),
    step(
        _damage_step_activation(
            DAMAGE_STEP, lambda s, kind, eff: s.k.and_(eff == Effect.NEGATE, kind != Kind.COUNTER_TRAP)
        ),
        "negation-not-counter-trap",
    ),
    step(
        _damage_step_activation((Phase.DMG_AFTER, Phase.DMG_END), lambda s, kind, eff: kind == Kind.COUNTER_TRAP),
        "counter-trap-after-calculation",
    ),
    # seed 000's older reading (Goat): only ATK/DEF changes and Counter Traps, up to before damage calculation
    vanishes=lambda r, case: r.damage_step_activations == "seed-000" and case != "atk-change-before-calculation",
)
