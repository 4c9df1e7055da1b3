"""The semantic catalogue: hand-written rule bugs (a rule that reads the wrong player, forgets a limit, lets a negated
link resolve), each a named replacement of one function of model/rules.py.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from duelcheck.model import rules as R
from duelcheck.model.changes import with_changes


@contextmanager
def mutated(name: str, replacement: Callable[..., Any]) -> Iterator[None]:
    """Swap one rule (a module function of model/rules.py, or an action body) for a wrong one."""
    action = R.ACTION_BY_NAME.get(name)
    if action is not None:
        index = R.ACTIONS.index(action)
        R.ACTIONS[index] = dataclasses.replace(action, body=with_changes(name, replacement))
        R.ACTION_BY_NAME[name] = R.ACTIONS[index]
        try:
            yield
        finally:
            R.ACTIONS[index] = action
            R.ACTION_BY_NAME[name] = action
        return
    original = getattr(R, name)
    setattr(R, name, replacement)
    try:
        yield
    finally:
        setattr(R, name, original)


@contextmanager
def compare_swapped(function: str, replacement: Callable[..., Any]) -> Iterator[None]:
    """Swap a function of model/rules.py for `replacement` everywhere the rules reach it: the module's name
    (the other functions call it by that name) and the actions whose body it is."""
    original = getattr(R, function)
    saved = list(R.ACTIONS)
    owner = next((a.name for a in R.ACTIONS if a.body is original), None)
    # an action's body stays that action's under changed rules (model/changes.py), called by name or not
    swapped = replacement if owner is None else with_changes(owner, replacement)
    setattr(R, function, swapped)
    for i, action in enumerate(R.ACTIONS):
        if action.body is original:
            R.ACTIONS[i] = dataclasses.replace(action, body=swapped)
            R.ACTION_BY_NAME[action.name] = R.ACTIONS[i]
    try:
        yield
    finally:
        setattr(R, function, original)
        R.ACTIONS[:] = saved
        for action in saved:
            R.ACTION_BY_NAME[action.name] = action


def first_turn_draws(s: Any) -> Any:
    """6.3.1 without "the player who goes first does not draw on turn 1": every turn has a draw."""
    return True


def summon_without_limit(s: Any, a: Any, n: Any) -> None:
    """6.3.5 without the limit of one Normal Summon or Set per turn: the rule as written, with a limit no turn
    reaches (everything else about a Normal Summon unchanged)."""
    lifted = type(s)(s.k, s.r.model_copy(update={"normal_summons_per_turn": 127}), s.schema, s.v)
    R.summon_or_set(lifted, a, n, defense=False, up=True)


def set_face_down_attack(s: Any, a: Any, n: Any) -> None:
    """A Set monster placed face-down in Attack Position (seed 000: a Set monster is in Defense Position)."""
    R.summon_or_set(s, a, n, defense=False, up=False)


def set_card_keeps_hand(s: Any, a: Any, n: Any) -> None:
    """A Spell/Trap is Set but never leaves the hand: a card appears from nowhere."""
    hand = s.g("hand", s.tp)
    R.set_spell_trap(s, a, n)
    n.set("hand", s.tp, hand)


def leave_main1_anywhere(n: Any, choice: Any) -> None:
    """6.3.3 and 6.3.5 without their conditions: Main Phase 2 without a Battle Phase, a Battle Phase on turn 1."""
    k = n.k
    with n.when(choice == R.TO_BATTLE):
        n.set("bp_done", True)
        R.enter_phase(n, R.Phase.BATTLE_START)
    with n.when(choice == R.TO_MAIN2):  # Main Phase 2 without a Battle Phase
        R.enter_phase(n, R.Phase.MAIN2)
    with n.when(choice == R.TO_END):
        R.enter_phase(n, R.Phase.END)
    n.require(k.one_of(choice, (R.TO_BATTLE, R.TO_MAIN2, R.TO_END)), "choice")


def traps_any_time(s: Any, a: Any, n: Any) -> None:
    """Activation without the rule "not on the turn it was Set" (seed 000, Spells and Traps)."""
    v = dict(s.v)
    for p in (0, 1):
        for z in range(s.r.spell_trap_zones):
            v[("s_fresh", p, z)] = False
    relaxed = type(s)(s.k, s.r, s.schema, v)
    R.activate(relaxed, a, n)


def negated_link_still_resolves(s: Any, a: Any, n: Any) -> None:
    """A negated link resolves as if it were not negated (seed 000: a negated activation has no effect)."""
    top = s.g("chain_len") - 1
    v = dict(s.v)
    for i in range(s.r.chain_links):
        v[("c_neg", i)] = s.k.and_(s.g("c_neg", i), top != i)
    R.resolve(type(s)(s.k, s.r, s.schema, v), a, n)


def skip_hits_its_player(s: Any, a: Any, n: Any) -> None:
    """'The opponent skips their next Battle Phase' applied to the link's own player."""
    R.resolve(s, a, n)
    top = s.g("chain_len") - 1
    owner = s.g("c_owner", top)
    live = s.k.and_(s.g("c_eff", top) == R.Effect.SKIP_BP, s.k.not_(s.g("c_neg", top)))
    with n.when(live):
        n.set("skip_bp", s.other(owner), s.g("skip_bp", s.other(owner)))
        n.set("skip_bp", owner, True)


def flip_summon_to_defense(s: Any, a: Any, n: Any) -> None:
    """A Flip Summon leaves the monster in Defense Position (6.3.3: it is flipped to face-up Attack Position)."""
    R.flip_summon(s, a, n)
    n.set("m_def", s.tp, a.zone, True)


def first_loser_checked_loses(n: Any) -> None:
    """The end of the duel read one player at a time, player 0 first: both players at 0 LP at once is player
    0's loss, not a drawn duel (rulebook, winning)."""
    k = n.k
    for p in (0, 1):
        with n.when(k.and_(n.g("lp", p) <= 0, n.g("winner") == 0)):
            n.set("winner", R.winner_if_loses(n, p))


def damage_to_the_opponent_only(s: Any, a: Any, n: Any) -> None:
    """'Each player takes damage equal to its ATK' dealt to the link player's opponent alone."""
    R.resolve(s, a, n)
    k, top = s.k, s.g("chain_len") - 1
    owner, tpl, tz = s.g("c_owner", top), s.g("c_tp", top), s.g("c_tz", top)
    live = k.and_(s.g("c_eff", top) == R.Effect.DESTROY_DAMAGE_BOTH, k.not_(s.g("c_neg", top)))
    there = k.and_(s.g("m_occ", tpl, tz), s.g("m_up", tpl, tz), k.not_(s.g("m_doomed", tpl, tz)))
    with n.when(k.and_(s.g("chain_len") > 0, live, there)):
        n.set("lp", owner, s.g("lp", owner))


_next_turn = R.next_turn


def own_turns_count_every_turn(n: Any) -> None:
    """A delayed effect counted in its controller's own turns counts the opponent's turns too (6.3: only that
    player's turns count)."""
    if n.dead:
        return
    k = n.k
    own = [n.g("later_own", p) for p in (0, 1)]
    for p in (0, 1):
        n.set("later_own", p, False)
    _next_turn(n)
    for p in (0, 1):
        n.set("later_own", p, k.and_(own[p], n.g("later", p) != 0))


def discard_ends_the_turn(s: Any, a: Any, n: Any) -> None:
    """The turn ends at the last discard to the hand limit, though a discarded card's 'sent from the hand to
    the Graveyard' effect has just triggered (6.3.6: the turn ends once all processing is over)."""
    R.discard(s, a, n)
    if n.dead:
        return
    k = n.k
    with n.when(k.and_(s.g("hand", s.tp) - 1 <= s.r.hand_limit, a.eff != 0)):
        R.next_turn(n)


def hand_limit_discard_by_effect(s: Any, a: Any, n: Any) -> None:
    """The hand-limit discard counted as a discard by a card effect: a monster discarded to the hand limit whose
    effect triggers when it is discarded by a card effect has it waiting (001:L119: the discard is by the rules,
    and Grapha's effect is not activated)."""
    R.discard(s, a, n)
    if n.dead:
        return
    with n.when(a.pos):
        n.set("trig", s.tp, R.Pending.TRIGGER_DUE)
        n.set("trig_eff", s.tp, R.BY_EFFECT_TRIGGERS[0])
        n.set("trig_zone", s.tp, R.GRAVEYARD)


_end_lasting = R.end_lasting


def battle_phase_effect_lasts_the_turn(n: Any, period: Any) -> None:
    """An effect lasting 'until the end of the Battle Phase' goes on applying after it, to the end of the turn
    (6.3.4.4: it ends with the Battle Phase)."""
    _end_lasting(n, R.Until.DAMAGE_STEP if period == R.Until.BATTLE_PHASE else period)


@dataclass(frozen=True)
class SemanticMutant:
    """A hand-made rule bug: `rule` (a function of model/rules.py or an action) replaced by `replacement`.
    `action` is the action whose behaviour it changes (for `--only`); `catches` (and `case`) the property
    tests/test_mutants.py sees catch it, at the bound `depth` (the Flip Summon bug from a turn-3 board there:
    from the initial state a monster Set on turn 1 is Flip Summoned on turn 3, 13 steps in), under the official
    rules with the knobs `knobs` changed (a shorter play to the same bug: a lower hand limit)."""

    rule: str
    replacement: Callable[..., Any]
    action: str
    catches: str
    depth: int
    case: str = ""
    knobs: tuple[tuple[str, Any], ...] = ()

    @property
    def name(self) -> str:
        return str(self.replacement.__name__)

    @property
    def models(self) -> str:
        return (inspect.getdoc(self.replacement) or self.rule).splitlines()[0]


# the rule bugs caught from the initial state, and the effects misapplied (each caught on one case)
RULE_BUGS: tuple[SemanticMutant, ...] = (
    SemanticMutant("must_draw", first_turn_draws, "normal_draw", "first-turn-no-draw", 2),
    SemanticMutant("normal_summon", summon_without_limit, "normal_summon", "normal-summon-limit", 7),
    SemanticMutant("set_monster", set_face_down_attack, "set_monster", "no-face-down-attack", 5),
    SemanticMutant("set_spell_trap", set_card_keeps_hand, "set_spell_trap", "card-conservation", 5),
    SemanticMutant("leave_main1", leave_main1_anywhere, "pass", "main2-only-after-battle", 7),
    SemanticMutant("activate", traps_any_time, "activate", "set-trap-not-same-turn", 7),
    SemanticMutant("lp_decide", first_loser_checked_loses, "resolve", "lp-decides-the-winner", 6, "draw"),
    SemanticMutant("next_turn", own_turns_count_every_turn, "pass", "delayed-effects", 10, "comes-due"),
    SemanticMutant(
        "discard", discard_ends_the_turn, "discard", "turn-ends-after-all-processing", 5, knobs=(("hand_limit", 3),)
    ),
    SemanticMutant(
        "discard",
        hand_limit_discard_by_effect,
        "discard",
        "bookkeeping-matches-history",
        5,
        knobs=(("hand_limit", 3),),
    ),
)


EFFECT_BUGS: tuple[SemanticMutant, ...] = (
    SemanticMutant("resolve", negated_link_still_resolves, "resolve", "resolution-effects", 7, "negated"),
    SemanticMutant("resolve", skip_hits_its_player, "resolve", "resolution-effects", 5, "named-player"),
    SemanticMutant("flip_summon", flip_summon_to_defense, "flip_summon", "flip-summon-face-up-attack", 2),
    SemanticMutant("resolve", damage_to_the_opponent_only, "resolve", "lp-accounting", 6),
    # from a board at the end of a Battle Phase (tests/test_mutants.py `_battle_phase_protected`)
    SemanticMutant("end_lasting", battle_phase_effect_lasts_the_turn, "pass", "resolution-effects", 5, "as-written"),
)


SEMANTIC = RULE_BUGS + EFFECT_BUGS


SEMANTIC_BY_NAME = {m.name: m for m in SEMANTIC}
