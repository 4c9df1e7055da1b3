"""Battle and replays (6.3.4, 6.3.4.2, 6.3.4.2.1, 6.3.4.4; seed 000 battle positions): attack declarations, targets,
positions, replays, how an attack ends.
"""

from __future__ import annotations

from typing import Any

from duelcheck.model.cards import (
    DAMAGE_STEP,
    DIRECT,
    MAIN_PHASES,
    STOP,
    Effect,
    Phase,
)
from duelcheck.model.kit import Val
from duelcheck.model.state import State
from duelcheck.properties.core import (
    ActionView,
    _top,
    _trigger_waits,
    always,
    direct_by_its_effect,
    link_takes_effect,
    negated_link,
    sometimes,
    state,
    step,
    zones,
)


def _one_attack(s: State) -> Val:
    # read from the property layer's history (properties/history.py), not from the rule's own flag
    return s.k.and_(*(s.g("h_attacks", p, z) <= 1 for p, z in zones(s, "m_occ")))


always(
    "one-attack-declaration-per-monster",
    "6.3.4.2, 6.3.4.2.1",
    "A monster declares at most one attack per turn; stopping on a replay still counts as declared, except "
    "under `replay_stored` (Goat format), where an attack a replay ended is stored and not counted (counted by "
    "the property layer: attacks declared this turn by the monster in each zone).",
    state(_one_attack),
)


def _positions(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    tp = s.tp
    out = []
    for p, y in zones(s, "m_occ"):
        stays = k.and_(s.g("m_occ", p, y), t.g("m_occ", p, y))
        changed = k.and_(stays, s.g("m_def", p, y) != t.g("m_def", p, y))
        here = k.and_(p == tp, a.p("zone") == y, s.is_phase(*MAIN_PHASES))
        # what happened this turn, from the property layer's history: the position changes its controller made
        # to this monster, and the attacks it declared (not the rules' own flags)
        unmoved = k.and_(s.g("h_moves", p, y) == 0, s.g("h_arrived", p, y) == 0)
        manual = k.and_(a.is_("change_position"), here, unmoved, s.g("h_attacks", p, y) == 0)
        flip = k.and_(a.is_("flip_summon"), here, unmoved, s.g("h_attacks", p, y) == 0)  # 000:L57 (F9)
        top = s.g("chain_len") - 1
        by_effect = k.and_(
            a.is_("resolve"),
            k.one_of(s.g("c_eff", top), (Effect.CHANGE_POSITION, Effect.SET_FACE_DOWN)),
            k.not_(negated_link(s)),
            s.g("c_tp", top) == p,
            s.g("c_ta", top) == 0,
            s.g("c_tz", top) == y,
        )
        out.append(k.implies(changed, k.or_(manual, flip, by_effect)))
    return k.and_(*out)


always(
    "position-change-rules",
    "seed 000 (battle positions), 6.3.3",
    "A battle position changes by the turn player in a Main Phase (once per turn, not on the turn the monster "
    "arrived, not after it declared an attack: a Flip Summon neither), or by a resolving effect that targets the "
    "monster.",
    step(_positions),
)


def _replay_place(s: State) -> Val:
    k = s.k
    return k.implies(s.g("replay"), k.and_(s.g("phase") == Phase.BATTLE_STEP, s.g("attacking")))


def _replay_step(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    return k.implies(
        a.is_("replay_select"),
        k.and_(s.g("phase") == Phase.BATTLE_STEP, k.not_(t.g("at_decl"))),
    )


def _replay_seen(s: State) -> Val:
    """6.3.4.2.1: a replay is due (history: the opponent's monsters changed in number during the attack in the
    Battle Step, and the attacker has not chosen again since), once the chain in progress has resolved."""
    k = s.k
    return k.and_(s.g("h_replay") == 1, s.g("attacking"), s.g("chain_len") == 0, s.g("h_resolving") == 0)


def _replay_first(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.2.1: once a replay is due, the attacker's new choice comes before anything else is done (a
    triggered effect that is waiting goes first, 6.3.4.3.4); and a new choice is made only then, once per
    replay."""
    k = s.k
    due = _replay_seen(s)
    return k.and_(
        k.implies(k.and_(due, k.not_(_trigger_waits(s))), a.is_("replay_select")),
        k.implies(a.is_("replay_select"), due),
    )


always(
    "replay-only-in-battle-step",
    "6.3.4.2.1",
    "A replay is pending and taken only in the Battle Step, never in the Damage Step, and the re-selection "
    "is not an attack declaration; once a replay is due, the attacker chooses before anything else is done, "
    "once per replay (what changed on the field is kept by the property layer).",
    state(_replay_place, "pending"),
    step(_replay_step, "re-selection"),
    step(_replay_first, "chosen-first"),
)


def _face_down_attack(s: State) -> Val:
    k = s.k
    return k.and_(
        *(k.implies(s.g("m_occ", p, z), k.or_(s.g("m_up", p, z), s.g("m_def", p, z))) for p, z in zones(s, "m_occ"))
    )


always(
    "no-face-down-attack",
    "seed 000 (battle positions)",
    "No monster is ever in face-down Attack Position.",
    state(_face_down_attack),
)


def _battler_left(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.2: an attack whose attacker leaves the field cannot go on; 6.3.4.3.3: nor one whose target leaves
    the field during the Damage Step (there is no damage calculation). A monster destroyed by battle leaves
    when the Damage Step ends, and the battle is over then: this reads a monster leaving with the phase
    unchanged."""
    k = s.k
    attacker, target = _battlers_gone(s, t)
    left = k.and_(s.g("attacking"), t.g("phase") == s.g("phase"), t.g("turn") == s.g("turn"), k.or_(attacker, target))
    return k.implies(left, k.not_(t.g("attacking")))


def _battlers_gone(s: State, t: State) -> tuple[Val, Val]:
    """The step took the attacker off the field (6.3.4.2), and the target during the Damage Step (6.3.4.3.3)."""
    k, tp = s.k, s.tp
    opp = s.other(tp)
    az, tz = s.g("atk_zone"), s.g("atk_tgt")
    attacker = k.and_(s.g("m_occ", tp, az), k.not_(t.g("m_occ", tp, az)))
    target = k.and_(s.is_phase(*DAMAGE_STEP), tz != DIRECT, s.g("m_occ", opp, tz), k.not_(t.g("m_occ", opp, tz)))
    return attacker, target


# the timings where an attacker that changes to Defense Position no longer battles: the Battle Step (6.3.4.2) and
# the Damage Step up to damage calculation (6.3.4.3.3)
UNTIL_CALCULATION = (Phase.BATTLE_STEP, Phase.DMG_START, Phase.DMG_BEFORE, Phase.DMG_DURING)


def _attacker_to_defense(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.2: an attacker that changes to Defense Position in the Battle Step (by an effect: a position
    change, or Set face-down) cannot go on battling: the attack ends there and no Damage Step follows; in the
    Damage Step, up to damage calculation, the attack ends too and no damage is calculated (6.3.4.3.3)."""
    k, tp = s.k, s.tp
    az = s.g("atk_zone")
    stays = k.and_(t.g("phase") == s.g("phase"), t.g("turn") == s.g("turn"), s.is_phase(*UNTIL_CALCULATION))
    there = k.and_(s.g("m_occ", tp, az), t.g("m_occ", tp, az))
    changed = k.and_(s.g("attacking"), stays, there, k.not_(s.g("m_def", tp, az)), t.g("m_def", tp, az))
    return k.implies(changed, k.not_(t.g("attacking")))


def _attacker_stands(s: State) -> Val:
    """6.3.4.2: an attack is declared by a face-up Attack Position monster, and in the Battle Step (and the Damage
    Step up to damage calculation, 6.3.4.3.3) it goes on only while its attacker is there in face-up Attack
    Position."""
    k, tp = s.k, s.tp
    az = s.g("atk_zone")
    stands = k.and_(s.g("m_occ", tp, az), s.g("m_up", tp, az), k.not_(s.g("m_def", tp, az)))
    return k.implies(k.and_(s.g("attacking"), s.is_phase(*UNTIL_CALCULATION)), stands)


def _attack_end_reason(s: State, a: ActionView, t: State) -> Val:
    """An attack ends only for a reason the rules give: its battle is over when the Damage Step ends
    (6.3.4.3.5); its attacker leaves the field, or changes to Defense Position in the Battle Step, or the
    attack is negated (6.3.4.2); its target leaves the field during the Damage Step, or its attacker changes to
    Defense Position there before damage calculation (6.3.4.3.3); the attacking player stops after a replay
    (6.3.4.2.1); an effect ends the Battle Phase (6.3.4.4). A monster of another zone, or of the other player,
    changing position ends no attack, nor does the attacker after damage calculation."""
    k, tp = s.k, s.tp
    az = s.g("atk_zone")
    ended = k.and_(s.g("attacking"), k.not_(t.g("attacking")))
    over = k.and_(s.g("phase") == Phase.DMG_END, t.g("phase") == Phase.BATTLE_STEP)
    attacker_left, target_left = _battlers_gone(s, t)
    to_defense = k.and_(s.is_phase(*UNTIL_CALCULATION), k.not_(s.g("m_def", tp, az)), t.g("m_def", tp, az))
    live, eff = link_takes_effect(s, a), _top(s, "c_eff")
    negated = k.and_(live, eff == Effect.NEGATE_ATTACK)
    bp_ends = k.and_(live, eff == Effect.END_BATTLE_PHASE, s.is_phase(Phase.BATTLE_START, Phase.BATTLE_STEP))
    stopped = k.and_(a.is_("replay_select"), a.p("tzone") == STOP)
    reasons = (over, attacker_left, to_defense, target_left, negated, bp_ends, stopped)
    return k.implies(ended, k.or_(*reasons))


def _stored_replay_ends(s: State, a: ActionView, t: State) -> Val:
    """Goat format (`replay_stored`): a replay ends the attack (it is stored); no new target is chosen."""
    if not s.r.replay_stored:
        return True
    return s.k.implies(a.is_("replay_select"), s.k.not_(t.g("attacking")))


always(
    "attack-ends",
    "6.3.4.2, 6.3.4.2.1, 6.3.4.3.3, 6.3.4.3.5, 6.3.4.4",
    "An attack ends when its attacker leaves the field (whether one monster is destroyed or all of them) or "
    "its target leaves it during the Damage Step; when its attacker changes to Defense Position in the Battle "
    "Step or in the Damage Step before damage calculation, so that there an attacker is always in face-up Attack "
    "Position; and only for a reason the rules give: the Damage Step over, the attack negated, a battler gone, "
    "the attacker to Defense Position before damage calculation, a stop after a replay, the Battle Phase ended. "
    "Under `replay_stored` (Goat format) a replay always ends the attack.",
    step(_battler_left, "battler-leaves"),
    step(_attacker_to_defense, "attacker-to-defense"),
    state(_attacker_stands, "attacker-in-attack-position"),
    step(_attack_end_reason, "only-for-a-reason"),
    step(_stored_replay_ends, "stored-replay"),
)


def _flipped_face_up(s: State, a: ActionView, t: State) -> Val:
    """The turn player's face-down monster in the action's zone is face-up in Attack Position after the step."""
    k, tp = s.k, s.tp
    z = a.p("zone")
    before = k.and_(s.g("m_occ", tp, z), k.not_(s.g("m_up", tp, z)))
    after = k.and_(t.g("m_occ", tp, z), t.g("m_up", tp, z), k.not_(t.g("m_def", tp, z)))
    return k.and_(before, after)


def _flip_summon(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 (battle positions): a Flip Summon turns the turn player's face-down monster face-up in Attack
    Position."""
    return s.k.implies(a.is_("flip_summon"), _flipped_face_up(s, a, t))


always(
    "flip-summon-face-up-attack",
    "seed 000 (battle positions)",
    "A Flip Summon turns a face-down monster face-up in Attack Position.",
    step(_flip_summon),
)


def _attack_target(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.2 (and seed 000, battle): an attack targets a monster the opponent controls, or the opponent
    directly when they control none; 6.3.4.2.1: so does the new target chosen after a replay (or the attack
    stops)."""
    k = s.k
    opp = s.other(s.tp)
    tz = a.p("tzone")
    chooses = k.or_(a.is_("declare_attack"), k.and_(a.is_("replay_select"), tz != STOP))
    none = s.monsters(opp) == 0
    monster = k.or_(*(k.and_(tz == z, s.g("m_occ", opp, z)) for z in range(s.r.monster_zones)))
    attacker = k.ite(a.is_("declare_attack"), a.p("zone"), s.g("atk_zone"), w=4)
    by_effect = k.and_(tz == DIRECT, direct_by_its_effect(s, s.tp, attacker))  # 001:L55
    return k.implies(chooses, k.ite(none, tz == DIRECT, k.or_(monster, by_effect)))


always(
    "attack-targets",
    "6.3.4.2, 6.3.4.2.1",
    "An attack declaration, and the new target chosen after a replay, name a monster the opponent controls, or "
    "the opponent directly when they control none or when the attacker's own effect lets it attack directly.",
    step(_attack_target),
)


def _target_still_legal(s: State) -> Val:
    """6.3.4.2, 6.3.4.2.1: while an attack goes on in the Battle Step and no replay is due (the property layer's
    history), its target is still one it may attack: a monster the opponent controls, or the opponent directly
    when they control none or when the attacker's own effect lets it (001:L55)."""
    k, opp = s.k, s.other(s.tp)
    tgt = s.g("atk_tgt")
    monster = k.or_(*(k.and_(tgt == z, s.g("m_occ", opp, z)) for z in range(s.r.monster_zones)))
    direct = k.and_(tgt == DIRECT, k.or_(s.monsters(opp) == 0, direct_by_its_effect(s, s.tp, s.g("atk_zone"))))
    going_on = k.and_(s.g("phase") == Phase.BATTLE_STEP, s.g("attacking"), s.g("h_replay") == 0)
    return k.implies(going_on, k.or_(monster, direct))


always(
    "attack-target-stays-legal",
    "6.3.4.2, 6.3.4.2.1",
    "While an attack goes on in the Battle Step, its target is one it may attack (a monster the opponent controls, "
    "or the opponent directly when they control none or the attacker's own effect lets it), unless a replay is "
    "due: whatever changes the target's legality makes a replay, so no attack reaches the Damage Step against a "
    "target it may not attack.",
    state(_target_still_legal),
)


sometimes(
    "reach-replay",
    "6.3.4.2.1",
    "A play where the opponent's monsters change after an attack declaration and a replay is due.",
    state(_replay_seen),
)


def _direct_attack_lost(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.2.1 (001:L55): a monster attacks directly by its own effect while the opponent controls monsters; after
    this step the effect no longer lets it, and a replay is due (the property layer's history)."""
    k, tp, opp = s.k, s.tp, s.other(s.tp)
    direct = k.and_(s.g("phase") == Phase.BATTLE_STEP, s.g("attacking"), s.g("atk_tgt") == DIRECT, s.monsters(opp) > 0)
    before = k.and_(direct, direct_by_its_effect(s, tp, s.g("atk_zone")))
    after = k.and_(t.g("attacking"), t.g("atk_tgt") == DIRECT, k.not_(direct_by_its_effect(t, tp, t.g("atk_zone"))))
    return k.and_(before, after, t.g("h_replay") == 1)


sometimes(
    "reach-replay-direct-attack-lost",
    "6.3.4.2.1",
    "A monster attacking directly by its own effect while the opponent controls monsters loses that ability in the "
    "Battle Step (another effect raises its ATK), and a replay is due.",
    step(_direct_attack_lost),
)


def _flip_summoned(s: State, a: ActionView, t: State) -> Val:
    """The turn player's Flip Summon turns one of their face-down monsters face-up in Attack Position."""
    return s.k.and_(a.is_("flip_summon"), _flipped_face_up(s, a, t))


def _position_changed(s: State, a: ActionView, t: State) -> Val:
    """The turn player changes a face-up monster's battle position (Attack to Defense or back); it stays."""
    k, tp, z = s.k, s.tp, a.p("zone")
    stays = k.and_(s.g("m_occ", tp, z), s.g("m_up", tp, z), t.g("m_occ", tp, z), t.g("m_up", tp, z))
    return k.and_(a.is_("change_position"), stays, t.g("m_def", tp, z) != s.g("m_def", tp, z))


def _reselects(s: State, a: ActionView, t: State) -> Val:
    return a.is_("replay_select")


def _attacks_again(s: State, a: ActionView, t: State) -> Val:
    """Goat format (`replay_stored`): a monster whose attack a replay stored this turn (the property layer's
    history) declares an attack again."""
    if not s.r.replay_stored:  # no attack is ever stored: the case is empty
        return False
    return s.k.and_(a.is_("declare_attack"), s.g("h_stored", s.tp, a.p("zone")) == 1)


def _choice_vanishes(r: Any, case: str) -> bool:
    """Stored replays (Goat format) offer no new target; the official rules store no attack."""
    return r.replay_stored if case in ("new-target", "direct") else case == "stored" and not r.replay_stored


sometimes(
    "reach-every-replay-choice",
    "6.3.4.2.1",
    "After a replay the attacker chooses another monster the opponent controls, attacks directly when they "
    "control none, or stops the attack; under `replay_stored` (Goat format) the replay ends the attack, which "
    "is stored: the monster declares an attack again.",
    step(lambda s, a, t: s.k.and_(_reselects(s, a, t), a.p("tzone") < s.r.monster_zones), "new-target"),
    step(lambda s, a, t: s.k.and_(_reselects(s, a, t), a.p("tzone") == DIRECT), "direct"),
    step(lambda s, a, t: s.k.and_(_reselects(s, a, t), a.p("tzone") == STOP), "stop"),
    step(_attacks_again, "stored"),
    vanishes=_choice_vanishes,
)


sometimes(
    "reach-flip-summon",
    "6.3.3, seed 000 (battle positions)",
    "A monster Set face-down is Flip Summoned on a later turn: face-up in Attack Position.",
    step(_flip_summoned),
)


sometimes(
    "reach-position-change",
    "6.3.3, seed 000 (battle positions)",
    "A face-up monster's battle position is changed in a Main Phase of a later turn than it was summoned.",
    step(_position_changed),
)
