"""Hand-made rule bugs: each one must be caught by some property, with a certified trace."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest

from duelcheck.counterexamples.certify import certify, holds_at_end
from duelcheck.engines.bmc import BMC, Goal
from duelcheck.model import rules as R
from duelcheck.model.system import TransitionSystem
from duelcheck.properties import BY_NAME
from duelcheck.rules import Rules


@contextmanager
def mutated(name: str, replacement: Callable[..., Any]) -> Iterator[None]:
    """Swap one rule (a module function, or an action body) for a wrong one."""
    action = R.ACTION_BY_NAME.get(name)
    if action is not None:
        index = R.ACTIONS.index(action)
        R.ACTIONS[index] = R.Action(
            action.name, action.clause, action.doc, action.params, replacement, action.candidates
        )
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


def first_turn_draws(s: Any) -> Any:
    return True  # drops 6.3.1's "no draw on turn 1"


def summon_without_limit(s: Any, a: Any, n: Any) -> None:
    k, tp = s.k, s.tp
    R.require_open_main(s, n)
    n.require(s.g("hand", tp) > 0, "no card")
    n.require(k.and_(k.one_of(a.atk, R.STAT_VALUES), k.one_of(a.defv, R.STAT_VALUES)), "stats")
    n.add("hand", tp, -1)
    n.add("nsum", 1)
    R.place_monster(n, tp, a.atk, a.defv, False, True)


def set_face_down_attack(s: Any, a: Any, n: Any) -> None:
    R.summon_or_set(s, a, n, defense=False, up=False)


def set_card_keeps_hand(s: Any, a: Any, n: Any) -> None:
    hand = s.g("hand", s.tp)
    R.set_spell_trap(s, a, n)
    n.set("hand", s.tp, hand)  # the card is Set but never leaves the hand


def leave_main1_anywhere(n: Any, choice: Any) -> None:
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
    """Activation without the 'not on the turn it was Set' rule."""
    v = dict(s.v)
    for p in (0, 1):
        for z in range(s.r.spell_trap_zones):
            v[("s_fresh", p, z)] = False
    relaxed = type(s)(s.k, s.r, s.schema, v)
    R.activate(relaxed, a, n)


MUTANTS = [
    ("must_draw", first_turn_draws, "first-turn-no-draw", 2),
    ("normal_summon", summon_without_limit, "normal-summon-limit", 7),
    ("set_monster", set_face_down_attack, "no-face-down-attack", 5),
    ("set_spell_trap", set_card_keeps_hand, "card-conservation", 5),
    ("leave_main1", leave_main1_anywhere, "main2-only-after-battle", 7),
    ("activate", traps_any_time, "set-trap-not-same-turn", 7),
]


@pytest.mark.parametrize(("rule", "bug", "prop", "depth"), MUTANTS, ids=[m[0] for m in MUTANTS])
def test_mutant_is_caught(rule: str, bug: Callable[..., Any], prop: str, depth: int) -> None:
    with mutated(rule, bug):
        ts = TransitionSystem(Rules())
        results = BMC(ts).run([BY_NAME[prop]], depth)
        violated = [r for r in results if r.verdict == "violated"]
        assert violated, f"{prop} did not catch the mutant of {rule}"
        trace = violated[0].trace
        assert trace is not None
        certify(
            ts,
            BY_NAME[prop].checks[0] if len(BY_NAME[prop].checks) == 1 else _check(prop, violated[0].case),
            trace,
            False,
        )


def _check(prop: str, case: str) -> Any:
    return next(c for c in BY_NAME[prop].checks if c.label == case)


def test_the_unmutated_model_passes_the_same_checks() -> None:
    ts = TransitionSystem(Rules())
    results = BMC(ts).run([BY_NAME[m[2]] for m in MUTANTS], 5)
    assert all(r.verdict == "holds" for r in results), [(r.label, r.verdict) for r in results]


# -- guards dropped, and effects misapplied: each caught by the property that reads what happened --------


@contextmanager
def dropped(reason: str) -> Iterator[None]:
    """Every guard whose reason says `reason` is dropped, in both semantics (the relation is built inside)."""
    from duelcheck.model.state import Builder

    original = Builder.require

    def require(self: Any, cond: Any, why: Any) -> None:
        text = why if isinstance(why, str) else getattr(why, "__name__", "")
        if reason in text:
            return
        original(self, cond, why)

    Builder.require = require  # type: ignore[method-assign]
    try:
        yield
    finally:
        Builder.require = original  # type: ignore[method-assign]


def _relaxed(s: Any, **values: Any) -> Any:
    v = dict(s.v)
    for key, value in values.items():
        name, *idx = key.split("__")
        v[(name, *(int(i) for i in idx))] = value
    return type(s)(s.k, s.r, s.schema, v)


def negated_link_still_resolves(s: Any, a: Any, n: Any) -> None:
    """The last link resolves as if it were not negated."""
    top = s.g("chain_len") - 1
    v = dict(s.v)
    for i in range(s.r.chain_links):
        v[("c_neg", i)] = s.k.and_(s.g("c_neg", i), top != i) if s.k.symbolic else bool(s.g("c_neg", i) and top != i)
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
    R.flip_summon(s, a, n)
    n.set("m_def", s.tp, a.zone, True)


GUARD_MUTANTS = [
    # (the guard's words, the property, its case, the rules, the depth searched)
    ("only in its controller's own turn", "activation-timing", "quick-play-from-hand", Rules(), 3),
    ("6.3.3: this is done only while no chain is open", "summon-and-attack-timing", "main-phase", Rules(), 6),
    (
        "an attack is declared while no chain is open",
        "summon-and-attack-timing",
        "attack",
        Rules(first_turn_battle=True),
        9,
    ),
    ("a card that can only be activated at an attack declaration", "activation-timing", "attack-negation", Rules(), 4),
    ("duel_over", "nothing-after-the-duel", "", Rules(first_turn_battle=True, starting_lp=100), 12),
]


@pytest.mark.parametrize(
    ("reason", "prop", "case", "rules", "depth"), GUARD_MUTANTS, ids=[m[1] + "/" + m[2] for m in GUARD_MUTANTS]
)
def test_a_dropped_guard_is_caught(reason: str, prop: str, case: str, rules: Rules, depth: int) -> None:
    check = _check(prop, case)
    with dropped(reason):
        ts = TransitionSystem(rules)
        results = BMC(ts).run([replace(BY_NAME[prop], checks=(check,))], depth)
        assert results[0].verdict == "violated", f"{prop}[{case}] did not catch the dropped guard {reason!r}"
        assert results[0].trace is not None
        certify(ts, check, results[0].trace, False)
    clean = BMC(TransitionSystem(rules)).run([replace(BY_NAME[prop], checks=(check,))], depth)
    assert clean[0].verdict == "holds"


EFFECT_MUTANTS = [
    ("resolve", negated_link_still_resolves, "resolution-effects", "negated", 7),
    ("resolve", skip_hits_its_player, "resolution-effects", "named-player", 5),
    ("flip_summon", flip_summon_to_defense, "flip-summon-face-up-attack", "", 2),
]


def _flip_board(ts: TransitionSystem) -> Any:
    """Turn 3, Main Phase 1: the turn player's monster Set on turn 1 is face-down in zone 0 (a Flip Summon
    needs a monster Set on an earlier turn: 13 steps from the start, so the search starts here)."""
    from duelcheck.model.cards import Phase

    return _relaxed(
        ts.init(),
        turn=3, phase=int(Phase.MAIN1), drew=True, hand__0=5, deck__0=34, m_occ__0__0=True, m_def__0__0=True,
        m_atk__0__0=10, m_defv__0__0=10,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("rule", "bug", "prop", "case", "depth"), EFFECT_MUTANTS, ids=[m[2] + "/" + m[3] for m in EFFECT_MUTANTS]
)
def test_a_misapplied_effect_is_caught(rule: str, bug: Callable[..., Any], prop: str, case: str, depth: int) -> None:
    check = _check(prop, case)
    with mutated(rule, bug):
        ts = TransitionSystem(Rules())
        start = _flip_board(ts) if rule == "flip_summon" else None
        goal = Goal(replace(BY_NAME[prop], checks=(check,)), check)
        found = BMC(ts).reach([goal], depth, start)[0]
        assert found.status == "reached", f"{prop}[{case}] did not catch the mutant of {rule}"
        assert found.trace is not None  # replayed by the concrete interpreter from its start already
        if start is None:
            certify(ts, check, found.trace, False)
        else:
            assert not holds_at_end(found.trace, check)
