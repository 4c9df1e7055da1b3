"""History kept by the property layer: counters of what happened, carried beside the game state.

A rule enforces itself with flags of its own (`drew`, `nsum`, `m_decl`); a property that read those flags
could not notice the rule being wrong, since it would read what the rule wrote. The counters here are
written by no rule: after every step, concrete or symbolic alike, each is advanced from what the step did
(the action taken, by whom, and the state it made), the way a judge keeps count while watching. A property
reads them as state fields (`s.g("h_draws")`); no rule reads them. They are part of the state the engines
search and prove over, written to ITF traces beside the game's fields, and never compared with an engine's
observed state (conformance replay reads the game alone).

Each counter saturates at its top value, so it never wraps around.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from duelcheck.model.cards import (
    ACTIVATED_KINDS,
    BATTLE_PHASE,
    DAMAGE_STEP,
    DELAYED,
    DIRECT,
    GRAVEYARD,
    LASTING,
    LATER_TURNS,
    STOP,
    Effect,
    Kind,
    MonsterEffect,
    Pending,
    Phase,
)
from duelcheck.model.kit import Val
from duelcheck.model.rules import first_due, open_game_state_phase
from duelcheck.model.state import FieldSpec, Key, State
from duelcheck.properties.core import (
    MAIN_ACTS,
    ActionView,
    battle_chosen,
    direct_by_its_effect,
    link_takes_effect,
    main1_would_begin,
    new_link,
)
from duelcheck.rules import Rules

Advance = Callable[[State, ActionView, State, tuple[int, ...]], Val]
# a user's count(...) (engines/boards/where.py): its field is this prefix and a digest of its text, span and
# bound variables; a trace may hold one the system reading it does not keep
COUNT_PREFIX = "u_count_"


@dataclass(frozen=True)
class Counter:
    """A ghost field: its spec; the value of each cell after a step, from the state before (`pre`, holding
    the counter's old value), the action and the state the rules made (`post`); and its value on a board
    that starts a duel log midway (`told`), from what the board says happened this turn."""

    spec: FieldSpec
    advance: Advance
    told: Callable[[State, tuple[int, ...]], int]


def _bump(s: State, old: Val, by: Val, top: int) -> Val:
    """old + 1 when `by` holds (saturating at `top`), else old."""
    k = s.k
    return k.ite(by, k.ite(old >= top, old, old + 1), old)


def _draws(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3.1: the normal draws made in this Draw Phase, or replaced by an effect applied instead (0 outside a Draw
    # Phase)
    k = s.k
    same = k.and_(s.g("turn") == t.g("turn"), s.is_phase(Phase.DRAW))
    drawn = k.or_(a.is_("normal_draw"), a.is_("draw_instead"))
    return k.ite(t.is_phase(Phase.DRAW), _bump(s, k.ite(same, s.g("h_draws"), 0), drawn, 7), 0)


def _summons(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3.5: the Normal Summons and Sets the turn player has made this turn
    k = s.k
    old = k.ite(s.g("turn") == t.g("turn"), s.g("h_summons"), 0)
    return _bump(s, old, k.or_(a.is_("normal_summon"), a.is_("set_monster")), 127)


def _attacks(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3.4.2: the attacks declared this turn by the monster now in this zone (a zone left empty starts again)
    k = s.k
    p, z = idx
    stays = k.and_(s.g("turn") == t.g("turn"), t.g("m_occ", p, z))
    old = k.ite(stays, s.g("h_attacks", p, z), 0)
    declared = k.and_(a.is_("declare_attack"), s.tp == p, a.p("zone") == z)
    count = _bump(s, old, declared, 3)
    if not s.r.replay_stored:
        return count
    # Goat format (`replay_stored`): an attack a replay ended is stored, not counted: the attacker's count drops
    return k.ite(k.and_(_replay_ended(s, a, p, z), old >= 1), old - 1, count)


def _replay_ended(s: State, a: ActionView, p: int, z: int) -> Val:
    """6.3.4.2.1: the step is the turn player's stop at a replay, and player p's monster in zone z was attacking."""
    k = s.k
    return k.and_(a.is_("replay_select"), a.p("tzone") == STOP, s.tp == p, s.g("atk_zone") == z)


def _stored(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3.4.2.1: 1 once a replay ended this monster's attack this turn (the attacker stopped; under
    # `replay_stored`, the Goat format, the attack is stored, not counted), until the turn ends or the zone empties
    k = s.k
    p, z = idx
    stays = k.and_(s.g("turn") == t.g("turn"), t.g("m_occ", p, z))
    return k.ite(k.and_(stays, k.or_(_replay_ended(s, a, p, z), s.g("h_stored", p, z) == 1)), 1, 0, w=2)


def _declined(s: State, a: ActionView) -> Val:
    """An optional triggered effect declined: no action between two passes (it adds no link)."""
    return s.k.and_(a.is_("trigger"), s.k.not_(a.p("pos")))


def _passes(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # seed 000: 1 just after a pass with the chain open that did not start its resolution (the next pass, the
    # other player's, is the second in succession), else 0; an optional trigger declined is no action between
    # the passes (it adds no link), any other action is
    k = s.k
    declined = _declined(s, a)
    first = k.and_(a.is_("pass"), s.g("chain_len") > 0, s.g("h_passes") == 0)
    return k.ite(first, 1, k.ite(declined, s.g("h_passes"), 0, w=2), w=2)


def _resolving(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # seed 000: 1 from the second of two passes in succession with the chain open until the chain is empty
    k = s.k
    starts = k.and_(a.is_("pass"), s.g("chain_len") > 0, s.g("h_passes") == 1)
    return k.ite(k.and_(k.or_(s.g("h_resolving") == 1, starts), t.g("chain_len") > 0), 1, 0, w=2)


def _empty_passes(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3: 1 just after a pass with no chain open that was not the second in succession (the next pass, the
    # other player's, is), else 0
    # (an optional trigger declined is no action between the passes, as for `h_passes`)
    k = s.k
    first = k.and_(a.is_("pass"), s.g("chain_len") == 0, s.g("h_empty_passes") == 0)
    declined = _declined(s, a)
    return k.ite(first, 1, k.ite(declined, s.g("h_empty_passes"), 0, w=2), w=2)


def _window(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3 (response window): 1 from the turn player's summon, Set or change of battle position, or a chain's last
    # link resolved leaving the duel in a Main Phase or in the Battle Step with no attack, until the next action
    # other than the first pass or a declined optional trigger (which is no action); 0 without the knob
    k = s.k
    placed = k.or_(*(a.is_(name) for name in MAIN_ACTS))
    resolved = k.and_(a.is_("resolve"), t.g("chain_len") == 0, open_game_state_phase(t), t.g("winner") == 0)
    first = k.and_(a.is_("pass"), s.g("chain_len") == 0, s.g("h_empty_passes") == 0)
    stays = k.and_(s.g("h_window") == 1, k.or_(first, _declined(s, a)))
    opens = k.or_(placed, resolved, stays)
    return k.ite(k.and_(s.r.response_window, opens), 1, 0, w=2)


def _skips(name: str, effect: Effect, used: Callable[[State, ActionView, State], Val]) -> Advance:
    """Seed 000's catalogue ("the opponent skips their next Main Phase 1 / Battle Phase"): 1 for player p from
    the resolution of such a link that takes effect, whose player is p's opponent, until p's phase is skipped
    (`used`: the step where it would have begun); else 0 (a second such link before the skip changes nothing:
    one phase is skipped)."""

    def advance(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
        (p,) = idx
        k = s.k
        top = s.g("chain_len") - 1
        hits = k.and_(link_takes_effect(s, a), s.g("c_eff", top) == effect, s.other(s.g("c_owner", top)) == p)
        spent = k.and_(s.tp == p, used(s, a, t))
        return k.ite(hits, 1, k.ite(spent, 0, s.g(name, p), w=2), w=2)

    return advance


def _flipped(s: State, t: State, p: int) -> Val:
    """A face-down Flip monster of player p was turned face-up by the step."""
    k = s.k
    if not k.symbolic:  # the same reading, evaluated lazily (every concrete step asks it)
        return any(
            s.g("m_occ", p, z) and not s.g("m_up", p, z) and t.g("m_up", p, z) and t.g("m_occ", p, z)
            and t.g("m_kind", p, z) == MonsterEffect.FLIP
            for z in range(s.r.monster_zones)
        )  # fmt: skip
    return k.or_(
        *(
            k.and_(
                s.g("m_occ", p, z),
                k.not_(s.g("m_up", p, z)),
                t.g("m_occ", p, z),
                t.g("m_up", p, z),
                t.g("m_kind", p, z) == MonsterEffect.FLIP,
            )
            for z in range(s.r.monster_zones)
        )
    )


def _left(s: State, t: State, p: int, kind: MonsterEffect) -> Val:
    """A monster of player p with this kind of effect left the field in the step."""
    k = s.k
    if not k.symbolic:  # the same reading, evaluated lazily
        return any(
            s.g("m_occ", p, z) and s.g("m_kind", p, z) == kind and not t.g("m_occ", p, z)
            for z in range(s.r.monster_zones)
        )
    return k.or_(
        *(
            k.and_(s.g("m_occ", p, z), s.g("m_kind", p, z) == kind, k.not_(t.g("m_occ", p, z)))
            for z in range(s.r.monster_zones)
        )
    )


def _triggers(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3.4.3.2, 6.3.4.3.4, 6.3.4.3.5: player p's triggered effect: 2 while it waits to be activated, 1 for a
    # Flip monster turned face-up by an attack (its effect waits for damage calculation), else 0; a `trigger`
    # step takes the turn player's waiting effect first; 6.3.6: the effect of a card the hand-limit discard sent
    # from the hand to the Graveyard waits too, and so does a mandatory End Phase effect once both players pass
    (p,) = idx
    k = s.k
    old = s.g("h_triggers", p)
    mine_first = s.g("h_triggers", s.tp) == FLIP_DUE
    taken = k.and_(a.is_("trigger"), old == FLIP_DUE, k.ite(mine_first, s.tp == p, s.tp != p))
    moved_on = s.g("phase") != t.g("phase")
    attack_flip = k.and_(moved_on, s.g("phase") == Phase.DMG_START, _flipped(s, t, p))
    other_flip = k.and_(k.not_(k.and_(moved_on, s.g("phase") == Phase.DMG_START)), _flipped(s, t, p))
    tgt = s.g("atk_tgt")
    calculated = k.and_(moved_on, s.g("phase") == Phase.DMG_DURING, old == FLIP_WAITS)
    survived = k.and_(p != s.tp, tgt != DIRECT, t.g("m_occ", p, tgt))
    battle_destroyed = _left(s, t, p, MonsterEffect.TRIGGER)
    destroyed = k.and_(moved_on, s.g("phase") == Phase.DMG_AFTER, battle_destroyed)
    # 6.3.6: the effect of a card the hand-limit discard sent to the Graveyard; a mandatory End Phase effect;
    # 001:L119: the effect of a monster a card effect discarded
    destroyed = k.or_(destroyed, _discarded_trigger(s, a, p), _end_phase_effect(s, a, p))
    destroyed = k.or_(destroyed, _discarded_by_effect_trigger(s, a, p))
    after_calc = k.ite(survived, FLIP_DUE, 0, w=3)
    kept = k.ite(taken, 0, k.ite(calculated, after_calc, old, w=3), w=3)
    if s.r.trigger_only_in_location:
        # Master Rule 2020: a Flip effect that waits is lost once the monster it comes from left the field
        where = s.g("h_trig_zone", p)
        left = [k.and_(where == z, s.g("m_occ", p, z), k.not_(t.g("m_occ", p, z))) for z in range(s.r.monster_zones)]
        kept = k.ite(k.and_(old != 0, k.or_(*left)), 0, kept, w=3)
    return k.ite(k.or_(other_flip, destroyed), FLIP_DUE, k.ite(attack_flip, FLIP_WAITS, kept, w=3), w=3)


def second_pass(s: State, a: ActionView) -> Val:
    """The step is the second of two passes in succession with no chain open (history), or both at once."""
    k = s.k
    return k.or_(a.is_("end_step"), k.and_(a.is_("pass"), s.g("chain_len") == 0, s.g("h_empty_passes") == 1))


def window_passed(s: State, a: ActionView) -> Val:
    """The step is the second of two passes in succession that answered the turn player's summon, Set, change
    of position or resolved chain (history): the response window (6.3, `response_window`)."""
    return s.k.and_(a.is_("pass"), s.g("chain_len") == 0, s.g("h_empty_passes") == 1, s.g("h_window") == 1)


def end_phase_effect_zones(s: State, p: int) -> list[Val]:
    """6.3.6 (001:L116), for each of player p's Monster Zones: a face-up monster whose mandatory End Phase effect
    has not been activated this turn (history: `h_used`) is there."""
    k = s.k
    return [
        k.and_(
            s.g("m_occ", p, z),
            s.g("m_up", p, z),
            s.g("m_kind", p, z) == MonsterEffect.END_PHASE,
            s.g("h_used", p, z) == 0,
        )
        for z in range(s.r.monster_zones)
    ]


def end_phase_effect_due(s: State, p: int) -> Val:
    """6.3.6 (001:L116): player p controls a face-up monster whose mandatory End Phase effect is still to be
    activated this turn."""
    return s.k.or_(*end_phase_effect_zones(s, p))


def _end_phase_effect(s: State, a: ActionView, p: int) -> Val:
    """6.3.6 (001:L116): both players passed in the End Phase with no chain open (not a response window), and
    player p's mandatory End Phase effect is the next to be activated (the turn player's first): it waits as a
    triggered effect."""
    k = s.k
    asked = k.and_(s.g("phase") == Phase.END, second_pass(s, a), k.not_(window_passed(s, a)))
    first = k.or_(p == s.tp, k.not_(end_phase_effect_due(s, s.tp)))
    return k.and_(asked, end_phase_effect_due(s, p), first)


def _end_phase_zone(s: State, p: int) -> Val:
    """The lowest zone of player p's monsters whose mandatory End Phase effect is due (the model activates a
    player's own in zone order; their order among themselves is the player's, and the catalogue's are alike)."""
    return first_due(s, end_phase_effect_zones(s, p))[1]


def discarded_by_effect(s: State, a: ActionView, p: Val) -> Val:
    """001:L118, L119: the step resolves "your opponent discards 1 card" against player p (the last link, its
    opponent's, takes effect) while p holds a card: a discard by a card effect."""
    k = s.k
    top = s.g("chain_len") - 1
    theirs = s.g("c_owner", top) != p
    effect = s.g("c_eff", top) == Effect.OPPONENT_DISCARDS
    return k.and_(link_takes_effect(s, a), effect, theirs, s.g("hand", p) > 0)


def _discarded_by_effect_trigger(s: State, a: ActionView, p: int) -> Val:
    """001:L119: player p's monster a card effect discarded, whose effect triggers when it is discarded to the
    Graveyard by a card effect (the resolution names it: `eff`), has it waiting."""
    return s.k.and_(discarded_by_effect(s, a, p), a.p("eff") != 0)


def _discarded_trigger(s: State, a: ActionView, p: int) -> Val:
    """6.3.6 (001:L118, L119): player p discarded to the hand limit a monster whose effect triggers when it is
    sent from the hand to the Graveyard: a discard by the rules, not by a card effect, so its effect triggers."""
    return s.k.and_(a.is_("discard"), s.tp == p, a.p("eff") != 0)


def delayed_draw(s: State, t: State, p: Val) -> Val:
    """6.3.2: the step adds player p's triggered effect as a new chain link in the Standby Phase with no other
    triggered effect waiting: a delayed effect's draw (the catalogue's only triggered effect of that phase but that
    of a monster a card effect discarded, 001:L119, which waits)."""
    k = s.k
    added, kind, _, owner = new_link(s, t)
    waiting = k.or_(s.g("h_triggers", 0) == FLIP_DUE, s.g("h_triggers", 1) == FLIP_DUE)
    return k.and_(s.is_phase(Phase.STANDBY), added, kind == Kind.TRIGGER, owner == p, k.not_(waiting))


def _delayed_resolved(s: State, a: ActionView, p: int) -> Val:
    """A link of player p's with a delayed effect resolves and takes effect."""
    k = s.k
    top = s.g("chain_len") - 1
    return k.and_(link_takes_effect(s, a), k.one_of(s.g("c_eff", top), DELAYED), s.g("c_owner", top) == p)


def _later(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3 (counting turns): 1 when player p's delayed effect resolves, then 1 more for each turn that begins and
    # counts (every turn for a text that names no player, only p's turns for one counted in them); at LATER_DUE
    # its Standby Phase is this turn's: 0 once p has activated its draw there, or once the turn ends
    (p,) = idx
    k = s.k
    old = s.g("h_later", p)
    if not k.symbolic and old == 0 and not _delayed_resolved(s, a, p):  # the same reading, evaluated lazily
        return 0
    counts = k.or_(s.g("h_later_own", p) == 0, t.tp == p)
    turned = k.ite(old == LATER_DUE, 0, k.ite(k.and_(old >= 1, counts), old + 1, old, w=3), w=3)
    went_on = k.ite(t.g("turn") != s.g("turn"), turned, k.ite(delayed_draw(s, t, p), 0, old, w=3), w=3)
    return k.ite(_delayed_resolved(s, a, p), 1, went_on, w=3)


def _later_own(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3: 1 while player p's delayed effect counts only p's own turns, else 0
    (p,) = idx
    k = s.k
    if not k.symbolic and s.g("h_later_own", p) == 0 and not _delayed_resolved(s, a, p):  # evaluated lazily
        return 0
    top = s.g("chain_len") - 1
    own = k.ite(s.g("c_eff", top) == Effect.DRAW_LATER_OWN, 1, 0, w=2)
    waiting = _later(s, a, t, idx) != 0
    return k.ite(_delayed_resolved(s, a, p), own, k.ite(waiting, s.g("h_later_own", p), 0, w=2), w=2)


def _chained_here(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3.4.3: 1 once a chain has resolved in this timing of the Damage Step (a resolution emptied the chain and
    # the timing is still the same), until the timing ends
    k = s.k
    same = k.and_(s.g("turn") == t.g("turn"), s.g("phase") == t.g("phase"), t.is_phase(*DAMAGE_STEP))
    emptied = k.and_(a.is_("resolve"), t.g("chain_len") == 0)
    return k.ite(k.and_(same, k.or_(emptied, s.g("h_ds_chained") == 1)), 1, 0, w=2)


def _no_damage(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3.4.3.5, 6.3.4.4, 6.3.6: the period of the longest lasting "no damage" effect of this player that
    # resolved and whose period has not ended (1 the Damage Step, 2 the Battle Phase, 3 the turn), else 0; a
    # period ends when play leaves it: the Damage Step, the Battle Phase, the turn
    k = s.k
    (p,) = idx
    old = s.g("h_no_damage", p)
    if not k.symbolic and old == 0 and not a.is_("resolve"):  # the same reading, lazily: nothing to keep or add
        return 0
    left_ds = k.and_(s.is_phase(*DAMAGE_STEP), k.not_(t.is_phase(*DAMAGE_STEP)))
    left_bp = k.and_(s.is_phase(*BATTLE_PHASE), k.not_(t.is_phase(*BATTLE_PHASE)))
    ended = k.or_(t.g("turn") != s.g("turn"), k.and_(left_ds, old == 1), k.and_(left_bp, old <= 2))
    kept = k.ite(ended, 0, old, w=3)
    top = s.g("chain_len") - 1
    eff = s.g("c_eff", top)
    level = 0
    for effect, period in LASTING.items():
        level = k.ite(eff == effect, int(period), level, w=3)
    new = k.ite(k.and_(link_takes_effect(s, a), s.g("c_owner", top) == p), level, 0, w=3)
    return k.ite(new > kept, new, kept, w=3)


def _main1_start(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3.3: 1 from the step that begins Main Phase 1 while the steps there only pass (or decline a triggered
    # effect, which is no act), else 0
    k = s.k
    in_main1 = t.is_phase(Phase.MAIN1)
    began = k.and_(in_main1, k.or_(k.not_(s.is_phase(Phase.MAIN1)), t.g("turn") != s.g("turn")))
    quiet = k.and_(in_main1, s.g("h_m1_start") == 1, k.or_(a.is_("pass"), _declined(s, a)))
    return k.ite(k.or_(began, quiet), 1, 0, w=2)


def protected(s: State, p: Val) -> Val:
    """Player p is under a lasting "no damage" effect, as the property layer saw it resolve (`h_no_damage`)."""
    return s.g("h_no_damage", p) != 0


LATER_DUE = 1 + LATER_TURNS  # the value of h_later in the turn whose Standby Phase is the delayed effect's


FLIP_WAITS, FLIP_DUE = 1, 2  # the values of h_triggers


def _flip_zone(s: State, t: State, p: int) -> Val:
    """The zone of player p's face-down Flip monster turned face-up by the step (0 when none was)."""
    k = s.k
    if not k.symbolic:  # the same reading, evaluated lazily
        for z in range(s.r.monster_zones):
            turned = s.g("m_occ", p, z) and not s.g("m_up", p, z) and t.g("m_occ", p, z) and t.g("m_up", p, z)
            if turned and t.g("m_kind", p, z) == MonsterEffect.FLIP:
                return z
        return 0
    zone: Val = 0
    for z in reversed(range(s.r.monster_zones)):
        turned = k.and_(
            s.g("m_occ", p, z),
            k.not_(s.g("m_up", p, z)),
            t.g("m_occ", p, z),
            t.g("m_up", p, z),
            t.g("m_kind", p, z) == MonsterEffect.FLIP,
        )
        zone = k.ite(turned, z, zone, w=4)
    return zone


def _trigger_source(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3.4.3.4, 6.3.4.3.5: where player p's waiting triggered effect comes from: the zone of the Flip monster
    # turned face-up, or the Graveyard for a monster destroyed by battle; 0 while none waits (h_triggers 0)
    (p,) = idx
    k = s.k
    moved_on = s.g("phase") != t.g("phase")
    destroyed = k.and_(moved_on, s.g("phase") == Phase.DMG_AFTER, _left(s, t, p, MonsterEffect.TRIGGER))
    destroyed = k.or_(destroyed, _discarded_trigger(s, a, p))  # the discarded card's effect: from the Graveyard
    destroyed = k.or_(destroyed, _discarded_by_effect_trigger(s, a, p))
    now = _triggers(s, a, t, idx)
    kept = k.ite(now == 0, 0, s.g("h_trig_zone", p), w=4)
    # 6.3.6: a mandatory End Phase effect: the zone of the monster it comes from
    kept = k.ite(_end_phase_effect(s, a, p), _end_phase_zone(s, p), kept, w=4)
    return k.ite(destroyed, GRAVEYARD, k.ite(_flipped(s, t, p), _flip_zone(s, t, p), kept, w=4), w=4)


def _trigger_discarded(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 001:L119: 1 while player p's waiting triggered effect is that of a monster a card effect discarded (from
    # the Graveyard; a Flip effect that replaces it before it is activated ends it), else 0
    (p,) = idx
    k = s.k
    kept = k.and_(
        s.g("h_trig_discard", p) == 1,
        _triggers(s, a, t, idx) == FLIP_DUE,
        _trigger_source(s, a, t, idx) == GRAVEYARD,
    )
    return k.ite(k.or_(_discarded_by_effect_trigger(s, a, p), kept), 1, 0, w=2)


def _moves(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # seed 000: the battle position changes made this turn by its controller (a change of position or a Flip
    # Summon) to the monster now in this zone (a zone left empty starts again)
    k = s.k
    p, z = idx
    stays = k.and_(s.g("turn") == t.g("turn"), t.g("m_occ", p, z))
    old = k.ite(stays, s.g("h_moves", p, z), 0)
    moved = k.and_(k.or_(a.is_("change_position"), a.is_("flip_summon")), s.tp == p, a.p("zone") == z)
    return _bump(s, old, moved, 3)


def _battled(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3.4, 6.3.5: 1 once a Battle Phase has begun this turn (0 from the next turn on)
    k = s.k
    same = s.g("turn") == t.g("turn")
    return k.ite(same, k.ite(t.is_phase(*BATTLE_PHASE), 1, s.g("h_battled"), w=2), 0, w=2)


def _arrived(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3.3, seed 000: 1 for the monster now in this zone when it came to the field this turn (Normal Summoned,
    # Set or Special Summoned), else 0 (a zone left empty starts again)
    k = s.k
    p, z = idx
    if not k.symbolic and not s.g("m_occ", p, z) and not t.g("m_occ", p, z):  # the same reading, lazily
        return 0
    same = s.g("turn") == t.g("turn")
    came = k.and_(same, k.not_(s.g("m_occ", p, z)), t.g("m_occ", p, z))
    return k.ite(came, 1, k.ite(k.and_(same, t.g("m_occ", p, z)), s.g("h_arrived", p, z), 0, w=2), w=2)


def _set_here(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # seed 000: 1 for the card face-down in this Spell & Trap Zone when it was Set this turn, else 0 (a card
    # turned face-up, or a zone left empty, starts again)
    k = s.k
    p, z = idx
    if not k.symbolic and not s.g("s_occ", p, z) and not t.g("s_occ", p, z):  # the same reading, lazily
        return 0
    same = s.g("turn") == t.g("turn")
    down = k.and_(t.g("s_occ", p, z), k.not_(t.g("s_up", p, z)))
    came = k.and_(same, k.not_(s.g("s_occ", p, z)), down)
    return k.ite(came, 1, k.ite(k.and_(same, down), s.g("h_set", p, z), 0, w=2), w=2)


def _declared(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3.4.2: 1 from an attack declaration while the chain that answers it is built and resolves: until that
    # chain has resolved, the step moves on (no chain made), the attack ends, or a replay's re-selection (no
    # declaration, 6.3.4.2.1) is made; else 0
    k = s.k
    bs = Phase.BATTLE_STEP
    goes_on = k.and_(s.g("phase") == bs, t.g("phase") == bs, t.g("attacking"), t.g("turn") == s.g("turn"))
    closed = k.or_(k.and_(a.is_("resolve"), t.g("chain_len") == 0), a.is_("replay_select"))
    kept = k.ite(k.and_(goes_on, k.not_(closed)), s.g("h_declared"), 0, w=2)
    return k.ite(a.is_("declare_attack"), 1, kept, w=2)


def _replays(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # 6.3.4.2.1: 1 once the monsters the opponent controls changed in number (one left the field or came to
    # it) during an attack in the Battle Step, or once the attacker's own effect that let it attack directly while
    # the opponent controls monsters stops applying to it (001:L55), until the attacker chooses again (or declares
    # anew, or the attack ends); else 0
    k = s.k
    bs, opp = Phase.BATTLE_STEP, s.other(s.tp)
    during = k.and_(s.g("phase") == bs, t.g("phase") == bs, s.g("attacking"), t.g("attacking"))
    during = k.and_(during, t.g("turn") == s.g("turn"), k.not_(a.is_("declare_attack")), k.not_(a.is_("replay_select")))
    changed = k.or_(*(s.g("m_occ", opp, z) != t.g("m_occ", opp, z) for z in range(s.r.monster_zones)))
    had = direct_by_its_effect(s, s.tp, s.g("atk_zone"))
    direct = k.and_(t.g("atk_tgt") == DIRECT, t.monsters(opp) > 0)
    lost = k.and_(direct, had, k.not_(direct_by_its_effect(t, s.tp, t.g("atk_zone"))))
    return k.ite(during, k.ite(k.or_(changed, lost), 1, s.g("h_replay"), w=2), 0, w=2)


def _used(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # model catalogue: 1 for the monster now in this zone once it has activated its Ignition, Quick, 'before
    # the draw' or mandatory End Phase effect this turn (a zone left empty starts again, and so does a monster
    # turned face-down: a new card), else 0
    k = s.k
    p, z = idx
    if not k.symbolic and not t.g("m_occ", p, z):  # the same reading, lazily: an empty zone starts again
        return 0
    added, kind, _, owner = new_link(s, t)
    mine = k.and_(a.is_("activate"), added, owner == p, a.p("zone") == z)
    own = k.and_(mine, k.one_of(kind, ACTIVATED_KINDS))
    # 6.3.6: a mandatory End Phase effect goes on the chain from the monster's zone (`trigger`)
    ends = k.and_(a.is_("trigger"), added, owner == p, kind == Kind.TRIGGER, t.g("c_zone", s.g("chain_len")) == z)
    own = k.or_(own, ends)
    turned_down = k.and_(s.g("m_up", p, z), k.not_(t.g("m_up", p, z)))
    stays = k.and_(s.g("turn") == t.g("turn"), t.g("m_occ", p, z), k.not_(turned_down))
    return k.ite(stays, k.ite(own, 1, s.g("h_used", p, z), w=2), 0, w=2)


def _printed(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # the ATK the monster now in this zone had when it came to the field (its printed ATK: no effect applied
    # to it yet); 0 for an empty zone
    p, z = idx
    if not s.k.symbolic and not t.g("m_occ", p, z):  # the same reading, lazily: 0 for an empty zone
        return 0
    arrived = s.k.and_(s.k.not_(s.g("m_occ", p, z)), t.g("m_occ", p, z))
    return s.k.ite(t.g("m_occ", p, z), s.k.ite(arrived, t.g("m_atk", p, z), s.g("h_printed", p, z), w=9), 0, w=9)


def _negated(s: State, a: ActionView, t: State, idx: tuple[int, ...]) -> Val:
    # seed 000 (negation): 1 for chain link j once a negation resolved on the link above it and took effect,
    # until link j has resolved (a new link in its place starts again), else 0
    k = s.k
    (j,) = idx
    top = s.g("chain_len") - 1
    negates = k.and_(link_takes_effect(s, a), s.g("c_eff", top) == Effect.NEGATE, j == top - 1)
    kept = k.ite(j < s.g("chain_len"), s.g("h_neg", j), 0, w=2)  # a link added now is not negated
    return k.ite(j < t.g("chain_len"), k.ite(negates, 1, kept, w=2), 0, w=2)


def _told_trigger(b: State, p: int) -> int:
    pending = int(b.g("trig", p))
    return FLIP_DUE if pending in (Pending.FLIP_DUE, Pending.TRIGGER_DUE) else FLIP_WAITS if pending else 0


class History:
    """The counters the property suite keeps (`fields`), and how a step advances them (`advance`)."""

    def __init__(self, counters: list[Counter]):
        self.counters = counters
        self.cells = [(c, key) for c in counters for key in c.spec.cells()]  # every step asks for them all

    def fields(self) -> tuple[FieldSpec, ...]:
        return tuple(c.spec for c in self.counters)

    def advance(self, pre: State, act: Any, params: dict[str, Any], symbolic: bool, post: State) -> dict[Key, Val]:
        """The counters' values after a step: `act` is the action's name (concrete) or its code variable
        (symbolic), `post` the state the rules made (its counters still the old ones)."""
        view = ActionView(act, params, symbolic)
        return {key: c.advance(pre, view, post, key[1:]) for c, key in self.cells}

    def told(self, board: State) -> dict[Key, Val]:
        """The counters of a board (a concrete state whose counters are not known yet), from what it says
        happened this turn."""
        return {key: c.told(board, key[1:]) for c in self.counters for key in c.spec.cells()}


def _spec(name: str, dims: tuple[int, ...], width: int, doc: str) -> FieldSpec:
    return FieldSpec(name, dims, "int", width, doc, ghost=True)


ATTACKS_DOC = "attacks declared this turn by this monster (history, 6.3.4.2)"
STORED_DOC = "a replay ended this monster's attack this turn (history, 6.3.4.2.1; stored under replay_stored)"


def history_for(rules: Rules) -> History:
    """The property suite's counters, shaped by the rules (a counter per Monster Zone), and those of a user's
    properties registered in the suite (`duelcheck mutate --properties`: properties/user.py `register`)."""
    from duelcheck.properties.catalog import PROPERTIES

    registered: dict[str, Counter] = {}
    for p in PROPERTIES:
        for c in p.counters:
            registered.setdefault(c.spec.name, c)
    return History([*_suite_counters(rules), *(registered[n] for n in sorted(registered))])


def _suite_counters(rules: Rules) -> list[Counter]:
    monster_zones, spell_trap_zones = rules.monster_zones, rules.spell_trap_zones
    return [
        Counter(
            _spec("h_draws", (), 4, "normal draws made (or replaced) in this Draw Phase (history, 6.3.1)"),
            _draws,
            lambda b, idx: int(b.g("phase") == Phase.DRAW and bool(b.g("drew"))),
        ),
        Counter(
            _spec("h_summons", (), 8, "Normal Summons and Sets made this turn (history, 6.3.5)"),
            _summons,
            lambda b, idx: int(b.g("nsum")),
        ),
        Counter(
            _spec("h_passes", (), 2, "1 after a pass with the chain open that started no resolution (history)"),
            _passes,
            lambda b, idx: int(bool(b.g("passed")) and b.g("chain_len") > 0 and not b.g("resolving")),
        ),
        Counter(
            _spec("h_resolving", (), 2, "1 while a chain resolves after two passes in succession (history)"),
            _resolving,
            lambda b, idx: int(bool(b.g("resolving"))),
        ),
        Counter(
            _spec("h_empty_passes", (), 2, "1 after a first pass with no chain open (history, 6.3)"),
            _empty_passes,
            lambda b, idx: int(bool(b.g("passed")) and b.g("chain_len") == 0 and not b.g("discarding")),
        ),
        Counter(
            _spec("h_window", (), 2, "1 while the opponent may respond to the turn player's act (history, 6.3)"),
            _window,
            lambda b, idx: int(bool(b.g("window"))),
        ),
        Counter(
            _spec(
                "h_triggers",
                (2,),
                3,
                "a player's triggered effect: 2 waiting, 1 waiting for damage calculation (history, 6.3.4.3.4)",
            ),
            _triggers,
            lambda b, idx: _told_trigger(b, idx[0]),
        ),
        Counter(
            _spec("h_trig_zone", (2,), 4, "where a player's waiting triggered effect comes from (history)"),
            _trigger_source,
            lambda b, idx: int(b.g("trig_zone", idx[0])),
        ),
        Counter(
            _spec(
                "h_trig_discard",
                (2,),
                2,
                "a player's waiting triggered effect is that of a monster a card effect discarded (history, 001:L119)",
            ),
            _trigger_discarded,
            lambda b, idx: 0,
        ),
        Counter(
            _spec(
                "h_moves",
                (2, monster_zones),
                3,
                "battle position changes this turn by its controller (history, seed 000)",
            ),
            _moves,
            lambda b, idx: int(bool(b.g("m_moved", *idx))),
        ),
        Counter(
            _spec("h_skip_m1", (2,), 2, "1 while this player's next Main Phase 1 is skipped (history, seed 000)"),
            _skips("h_skip_m1", Effect.SKIP_MAIN1, main1_would_begin),
            lambda b, idx: int(bool(b.g("skip_m1", idx[0]))),
        ),
        Counter(
            _spec("h_skip_bp", (2,), 2, "1 while this player's next Battle Phase is skipped (history, seed 000)"),
            _skips("h_skip_bp", Effect.SKIP_BP, battle_chosen),
            lambda b, idx: int(bool(b.g("skip_bp", idx[0]))),
        ),
        Counter(
            _spec("h_battled", (), 2, "1 once a Battle Phase has begun this turn (history, 6.3.5)"),
            _battled,
            lambda b, idx: int(bool(b.g("bp_done"))),
        ),
        Counter(
            _spec("h_arrived", (2, monster_zones), 2, "this monster came to the field this turn (history, 6.3.3)"),
            _arrived,
            lambda b, idx: int(bool(b.g("m_occ", *idx)) and bool(b.g("m_fresh", *idx))),
        ),
        Counter(
            _spec("h_set", (2, spell_trap_zones), 2, "this face-down card was Set this turn (history, seed 000)"),
            _set_here,
            lambda b, idx: int(bool(b.g("s_occ", *idx)) and bool(b.g("s_fresh", *idx))),
        ),
        Counter(
            _spec(
                "h_declared",
                (),
                2,
                "1 from an attack declaration until the chain answering it resolves (history, 6.3.4.2)",
            ),
            _declared,
            lambda b, idx: int(bool(b.g("at_decl"))),
        ),
        Counter(
            _spec("h_replay", (), 2, "1 while a replay is due (history, 6.3.4.2.1)"),
            _replays,
            lambda b, idx: int(bool(b.g("replay"))),
        ),
        Counter(
            _spec("h_used", (2, monster_zones), 2, "this monster's effect was activated this turn (history)"),
            _used,
            lambda b, idx: int(bool(b.g("m_used", *idx))),
        ),
        Counter(
            _spec("h_printed", (2, monster_zones), 9, "the ATK this monster came to the field with (history)"),
            _printed,
            lambda b, idx: int(b.g("m_batk", *idx)),
        ),
        Counter(
            _spec("h_neg", (rules.chain_links,), 2, "1 for a link a negation resolved on (history, seed 000)"),
            _negated,
            lambda b, idx: int(bool(b.g("c_neg", *idx))),
        ),
        Counter(
            _spec("h_attacks", (2, monster_zones), 3, ATTACKS_DOC),
            _attacks,
            lambda b, idx: int(bool(b.g("m_decl", *idx))),
        ),
        Counter(_spec("h_stored", (2, monster_zones), 2, STORED_DOC), _stored, lambda b, idx: 0),
        Counter(
            _spec("h_later", (2,), 3, "turns counted since this player's delayed effect resolved, plus 1 (history)"),
            _later,
            lambda b, idx: 0 if b.g("later", idx[0]) == 0 else LATER_DUE + 1 - int(b.g("later", idx[0])),
        ),
        Counter(
            _spec("h_later_own", (2,), 2, "1 while that delayed effect counts only its player's turns (history)"),
            _later_own,
            lambda b, idx: int(bool(b.g("later_own", idx[0]))),
        ),
        Counter(
            _spec("h_ds_chained", (), 2, "1 once a chain has resolved in this timing of the Damage Step (history)"),
            _chained_here,
            lambda b, idx: int(bool(b.g("ds_chained"))),
        ),
        Counter(
            _spec("h_m1_start", (), 2, "1 while nothing but passes has happened in this Main Phase 1 (history, 6.3.3)"),
            _main1_start,
            lambda b, idx: int(bool(b.g("m1_start"))),
        ),
        Counter(
            _spec(
                "h_no_damage",
                (2,),
                3,
                "the period of this player's lasting 'no damage' effect: 1 Damage Step, 2 Battle Phase, 3 turn "
                "(history)",
            ),
            _no_damage,
            lambda b, idx: int(b.g("no_damage", idx[0])),
        ),
    ]


def system_for(rules: Rules, props: Iterable[Any] = ()) -> Any:
    """The transition system the engines check `props` on: the suite's history, and the counts a user's
    properties keep (properties/user.py), each field once."""
    from duelcheck.model.system import TransitionSystem

    base = history_for(rules)
    have = {c.spec.name for c in base.counters}
    extra: dict[str, Counter] = {}
    for p in props:
        for c in getattr(p, "counters", ()):
            if c.spec.name not in have:
                extra.setdefault(c.spec.name, c)
    if not extra:
        return TransitionSystem(rules, base)
    return TransitionSystem(rules, History([*base.counters, *(extra[n] for n in sorted(extra))]))
