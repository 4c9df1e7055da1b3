"""Hand-made rule bugs: each one must be caught by some property, with a certified trace."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from duelcheck.counterexamples.certify import certify
from duelcheck.engines.bmc import BMC
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
