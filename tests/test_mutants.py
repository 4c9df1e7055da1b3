"""Hand-made rule bugs: each one must be caught by some property, with a certified trace."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest

from duelcheck.counterexamples.certify import certify, holds_at_end
from duelcheck.engines.bmc import BMC, Goal
from duelcheck.engines.mutate import EFFECT_BUGS, RULE_BUGS, mutated
from duelcheck.model.system import TransitionSystem
from duelcheck.properties import BY_NAME
from duelcheck.rules import Rules

# The catalogue of hand-made rule bugs lives in engines/mutate.py (`duelcheck mutate` runs it as its semantic
# mutants): each bug, the property that catches it and a bound at which it does.
MUTANTS = [(m.rule, m.replacement, m.catches, m.depth, dict(m.knobs)) for m in RULE_BUGS]


@pytest.mark.parametrize(("rule", "bug", "prop", "depth", "knobs"), MUTANTS, ids=[m[0] for m in MUTANTS])
def test_mutant_is_caught(rule: str, bug: Callable[..., Any], prop: str, depth: int, knobs: dict[str, Any]) -> None:
    with mutated(rule, bug):
        ts = TransitionSystem(Rules(**knobs))
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
    # 6.3 (response window): the turn player's next act before the opponent could respond to the last one
    ("the opponent may first respond", "summon-and-attack-timing", "response-window", Rules(), 4),
    ("duel_over", "nothing-after-the-duel", "", Rules(first_turn_battle=True, starting_lp=100), 12),
    # read from the property layer's history (properties/history.py), not from the flag the rule keeps
    ("draws only one card in the Draw Phase", "one-normal-draw-per-draw-phase", "", Rules(first_turn_draw=True), 3),
    ("Normal Summon or Set per turn", "normal-summon-limit", "", Rules(), 5),
    ("nobody acts until it has resolved", "chain-resolution-uninterrupted", "", Rules(), 6),
    ("6.3.3: only the end of Main Phase 1 offers a choice", "phase-choice-where-offered", "", Rules(), 2),
    ("6.3.5: Main Phase 2 comes only when a Battle Phase ends", "phase-choice-where-offered", "", Rules(), 2),
    # 6.3: end_step taken after a pass ends the phase and passes again (the new phase begins with the opponent
    # holding priority): the model's shortcut guard, which the property's reading of end_step still needs
    ("end_step is both passes, and one player has passed", "passes-end-phases", "turn-player-first", Rules(), 2),
    # 6.3.3: both players pass at the end of Main Phase 1 without a choice, and the phase stays
    ("when Main Phase 1 ends the turn player chooses", "passes-end-phases", "both-passed", Rules(), 3),
    ("a Trap must be Set before it is activated", "activation-sources", "card", Rules(), 3),
    ("no face-up monster in that zone", "activation-sources", "card", Rules(), 3),
    ("the Set card's cost", "activation-sources", "card", Rules(), 6),  # Set, the window's two passes, activate
    ("the Battle Phase is ended from within it", "activation-sources", "end-battle-phase", Rules(), 3),
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


def _main2_after_attack(ts: TransitionSystem) -> Any:
    """Turn 3, Main Phase 2 after a Battle Phase: the turn player's face-up monster in zone 0 declared an attack
    this turn (the history counts it too), and a face-down Flip monster in zone 1, Set on an earlier turn."""
    from duelcheck.model.cards import MonsterEffect, Phase

    return _relaxed(
        ts.init(),
        turn=3, phase=int(Phase.MAIN2), drew=True, bp_done=True, hand__0=5, deck__0=34,
        m_occ__0__0=True, m_up__0__0=True, m_atk__0__0=10, m_defv__0__0=10, m_decl__0__0=True, h_attacks__0__0=1,
        m_occ__0__1=True, m_def__0__1=True, m_atk__0__1=10, m_defv__0__1=10, m_kind__0__1=int(MonsterEffect.FLIP),
        m_eff__0__1=7,
    )  # fmt: skip


def _replay_due(ts: TransitionSystem) -> Any:
    """Turn 3, the Battle Step: the turn player's monster in zone 0 attacks, and the opponent's monster count
    changed after the declaration, so a replay is due (6.3.4.2.1; the history saw the change too)."""
    from duelcheck.model.cards import DIRECT, Phase

    return _relaxed(
        ts.init(),
        turn=3, phase=int(Phase.BATTLE_STEP), drew=True, bp_done=True, hand__0=5, deck__0=34,
        m_occ__0__0=True, m_up__0__0=True, m_atk__0__0=10, m_defv__0__0=10, m_decl__0__0=True, h_attacks__0__0=1,
        attacking=True, atk_zone=0, atk_tgt=DIRECT, replay=True, h_replay=1,
    )  # fmt: skip


BOARD_GUARD_MUTANTS = [
    # (the guard's words, the property, its case, the board, the depth searched from it): deep in a duel
    # (an attack declared takes 19 steps from the start), so the search starts on the board
    ("declared an attack this turn and cannot change", "position-change-rules", "", _main2_after_attack, 1),
    # a Flip Summon, then a Normal Summon before the Flip effect
    ("waiting_trigger", "triggers-first", "", _main2_after_attack, 2),
    ("must first choose a new target or stop", "replay-only-in-battle-step", "chosen-first", _replay_due, 1),
]


@pytest.mark.parametrize(
    ("reason", "prop", "case", "board", "depth"), BOARD_GUARD_MUTANTS, ids=[m[1] for m in BOARD_GUARD_MUTANTS]
)
def test_a_dropped_guard_is_caught_deep_in_a_duel(
    reason: str, prop: str, case: str, board: Callable[[TransitionSystem], Any], depth: int
) -> None:
    check = _check(prop, case)
    goal = Goal(replace(BY_NAME[prop], checks=(check,)), check)
    with dropped(reason):
        ts = TransitionSystem(Rules())
        found = BMC(ts).reach([goal], depth, board(ts))[0]
        assert found.status == "reached", f"{prop}[{case}] did not catch the dropped guard {reason!r}"
        assert found.trace is not None and not holds_at_end(found.trace, check)
    ts = TransitionSystem(Rules())
    assert BMC(ts).reach([goal], depth, board(ts))[0].status == "unreached"


def _stored_attack_counted(s: Any, a: Any, n: Any) -> None:
    """Goat format's stored replay that still counts the attack: the monster cannot declare an attack again."""
    from duelcheck.model import rules as R

    R.replay_select(s, a, n)
    n.set("m_decl", s.tp, s.g("atk_zone"), True)


def test_goat_stored_replays_are_read_by_the_properties() -> None:
    """Under `replay_stored` (Goat format) a replay ends the attack, and the monster attacks again: the witness
    finds it from a replay due, and loses it when the rule still counts the stored attack; dropping the guard
    that forbids a new target is caught by `attack-ends`."""
    from duelcheck.engines.mutate import mutated

    goat = Rules(replay_stored=True)
    check = _check("reach-every-replay-choice", "stored")
    goal = Goal(replace(BY_NAME["reach-every-replay-choice"], checks=(check,)), check)
    ts = TransitionSystem(goat)
    found = BMC(ts).reach([goal], 2, _replay_due(ts))[0]
    assert found.status == "reached" and found.trace is not None
    assert [step.action for step in found.trace.steps[1:]] == ["replay_select", "declare_attack"]
    with mutated("replay_select", _stored_attack_counted):
        ts = TransitionSystem(goat)
        assert BMC(ts).reach([goal], 3, _replay_due(ts))[0].status == "unreached"
    ends = _check("attack-ends", "stored-replay")
    ends_goal = Goal(replace(BY_NAME["attack-ends"], checks=(ends,)), ends)
    with dropped("no new target is chosen"):
        ts = TransitionSystem(goat)
        caught = BMC(ts).reach([ends_goal], 1, _replay_due(ts))[0]
        assert caught.status == "reached" and caught.trace is not None and not holds_at_end(caught.trace, ends)
    ts = TransitionSystem(goat)
    assert BMC(ts).reach([ends_goal], 1, _replay_due(ts))[0].status == "unreached"


EFFECT_MUTANTS = [(m.rule, m.replacement, m.catches, m.case, m.depth) for m in EFFECT_BUGS]


def _flip_board(ts: TransitionSystem) -> Any:
    """Turn 3, Main Phase 1: the turn player's monster Set on turn 1 is face-down in zone 0 (a Flip Summon
    needs a monster Set on an earlier turn: 13 steps from the start, so the search starts here)."""
    from duelcheck.model.cards import Phase

    return _relaxed(
        ts.init(),
        turn=3, phase=int(Phase.MAIN1), drew=True, hand__0=5, deck__0=34, m_occ__0__0=True, m_def__0__0=True,
        m_atk__0__0=10, m_defv__0__0=10,
    )  # fmt: skip


def _battle_phase_protected(ts: TransitionSystem) -> Any:
    """Turn 3, the End Step: the opponent is under a "no damage" effect lasting until the end of the Battle
    Phase (6.3.4.4), the turn player has a face-up monster and cards in hand (an attack and the effect take 20
    steps from the start, so the search starts here)."""
    from duelcheck.model.cards import Phase, Until

    return _relaxed(
        ts.init(),
        turn=3, phase=int(Phase.BATTLE_END), drew=True, bp_done=True, h_battled=1, hand__0=5, deck__0=34,
        m_occ__0__0=True, m_up__0__0=True, m_atk__0__0=10, m_batk__0__0=10, m_defv__0__0=10, h_printed__0__0=10,
        no_damage__1=int(Until.BATTLE_PHASE), h_no_damage__1=int(Until.BATTLE_PHASE),
    )  # fmt: skip


EFFECT_BOARDS = {"flip_summon": _flip_board, "end_lasting": _battle_phase_protected}


@pytest.mark.parametrize(
    ("rule", "bug", "prop", "case", "depth"), EFFECT_MUTANTS, ids=[m[2] + "/" + m[3] for m in EFFECT_MUTANTS]
)
def test_a_misapplied_effect_is_caught(rule: str, bug: Callable[..., Any], prop: str, case: str, depth: int) -> None:
    check = _check(prop, case)
    with mutated(rule, bug):
        ts = TransitionSystem(Rules())
        board = EFFECT_BOARDS.get(rule)
        start = board(ts) if board else None
        goal = Goal(replace(BY_NAME[prop], checks=(check,)), check)
        found = BMC(ts).reach([goal], depth, start)[0]
        assert found.status == "reached", f"{prop}[{case}] did not catch the mutant of {rule}"
        assert found.trace is not None  # replayed by the concrete interpreter from its start already
        if start is None:
            certify(ts, check, found.trace, False)
        else:
            assert not holds_at_end(found.trace, check)


# -- comparisons turned round, each caught by a property that reads the clause itself --------------------------


def _attack_on_a_face_down_monster(ts: TransitionSystem) -> Any:
    """Turn 3, the start of the Damage Step (6.3.4.3.1): the turn player's monster in zone 0 attacks the
    opponent's face-down Defense Position monster in zone 0 (27 steps from the start, so the search starts here)."""
    from duelcheck.model.cards import Phase

    return _relaxed(
        ts.init(),
        turn=3, phase=int(Phase.DMG_START), drew=True, bp_done=True, h_battled=1, hand__0=5, deck__0=34,
        m_occ__0__0=True, m_up__0__0=True, m_atk__0__0=10, m_defv__0__0=10, m_decl__0__0=True, h_attacks__0__0=1,
        m_occ__1__0=True, m_def__1__0=True, m_atk__1__0=5, m_defv__1__0=5,
        attacking=True, atk_zone=0, atk_tgt=0,
    )  # fmt: skip


COMPARE_MUTANTS = [
    # (the mutant, the property, its case, the board or None for the start of the duel, the depth)
    # `tz != DIRECT` read as `==`: the attacked face-down monster stays face-down (6.3.4.3.2)
    ("compare:advance:10", "face-down-battler-turned-face-up", "", _attack_on_a_face_down_monster, 1),
    # `deck == 0` read as `!=`: "draw a card" with cards in the deck makes its player lose
    ("compare:resolve:19", "resolution-effects", "named-player", None, 4),
]


@pytest.mark.parametrize(
    ("mutant_id", "prop", "case", "board", "depth"), COMPARE_MUTANTS, ids=[m[0] for m in COMPARE_MUTANTS]
)
def test_a_comparison_turned_round_is_caught(
    mutant_id: str, prop: str, case: str, board: Callable[[TransitionSystem], Any] | None, depth: int
) -> None:
    from duelcheck.engines.mutate import activated, mutant_by_id

    check = _check(prop, case) if case else BY_NAME[prop].checks[0]
    goal = Goal(replace(BY_NAME[prop], checks=(check,)), check)
    with activated(mutant_by_id(mutant_id, Rules())):
        ts = TransitionSystem(Rules())
        found = BMC(ts).reach([goal], depth, board(ts) if board else None)[0]
        assert found.status == "reached", f"{prop} did not catch {mutant_id}"
        assert found.trace is not None and not holds_at_end(found.trace, check)
        if board is None:
            certify(ts, check, found.trace, False)
    ts = TransitionSystem(Rules())
    assert BMC(ts).reach([goal], depth, board(ts) if board else None)[0].status == "unreached"
