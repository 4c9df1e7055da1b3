"""Turn-procedure rules of 6.3 and seed 000, each with the case the text gives."""

from __future__ import annotations

from conftest import board, play

from duelcheck.model.cards import TO_BATTLE, TO_END, TO_MAIN2, Phase
from duelcheck.model.system import TransitionSystem


def test_no_draw_and_no_battle_phase_on_turn_1(ts: TransitionSystem) -> None:
    s = ts.init()
    out = ts.apply(s, "normal_draw", {})
    assert not out.ok and "6.3.1" in (out.reason or "")
    s = play(ts, s, "pass", "pass", "pass", "pass", "pass")
    out = ts.apply(s, "pass", {"choice": TO_BATTLE})
    assert not out.ok and "6.3.4" in (out.reason or "")
    out = ts.apply(s, "pass", {"choice": TO_MAIN2})
    assert not out.ok and "6.3.5" in (out.reason or "")


def test_skipped_main_phase_1_goes_from_standby_to_end(ts: TransitionSystem) -> None:
    """seed 000: with Main Phase 1 and the Battle Phase skipped, Standby goes straight to End."""
    s = board(ts, turn=2, phase=Phase.STANDBY, drew=True, prio=0, passed=True, skip_m1__1=True, skip_bp__1=True)
    t = play(ts, s, ("pass", {"choice": TO_BATTLE}))
    assert t.g("phase") == Phase.END
    assert not t.g("skip_m1", 1) and not t.g("skip_bp", 1) and not t.g("bp_done")


def test_skipped_battle_phase_leads_to_end_never_main2(ts: TransitionSystem) -> None:
    s = board(ts, turn=2, phase=Phase.MAIN1, drew=True, prio=0, passed=True, skip_bp__1=True)
    t = play(ts, s, ("pass", {"choice": TO_BATTLE}))
    assert t.g("phase") == Phase.END and not t.g("bp_done")


def test_hand_limit_discards_exactly_down_to_the_limit(ts: TransitionSystem) -> None:
    """6.3.6: 7 cards at the end of the End Phase: discard exactly one; the opponent never discards."""
    s = board(ts, turn=2, phase=Phase.END, drew=True, prio=0, passed=True, hand__1=7, deck__1=33, hand__0=9, deck__0=31)
    t = play(ts, s, "pass")
    assert t.g("discarding") and t.g("phase") == Phase.END
    assert not ts.apply(t, "pass", {}).ok
    u = play(ts, t, "discard")
    assert u.g("turn") == 3 and u.g("hand", 1) == 6 and u.g("gy", 1) == 1 and u.g("hand", 0) == 9


def test_normal_summon_once_across_both_main_phases(ts: TransitionSystem) -> None:
    s = board(ts, turn=2, phase=Phase.MAIN2, drew=True, bp_done=True, prio=1, nsum=1)
    out = ts.apply(s, "normal_summon", {"atk": 10, "defv": 10})
    assert not out.ok and "6.3.5" in (out.reason or "")
    assert not ts.apply(s, "set_monster", {"atk": 10, "defv": 10}).ok


def test_deck_out_at_the_draw_loses(ts: TransitionSystem) -> None:
    s = board(ts, turn=2, phase=Phase.DRAW, prio=1, deck__1=0, hand__1=35)
    t = play(ts, s, "normal_draw")
    assert t.g("winner") == 1  # player 0 wins
    assert not list(ts.successors(t))


def test_to_end_from_main1_skips_main2(ts: TransitionSystem) -> None:
    s = board(ts, turn=2, phase=Phase.MAIN1, drew=True, prio=0, passed=True)
    assert play(ts, s, ("pass", {"choice": TO_END})).g("phase") == Phase.END


def test_a_flip_effect_kept_after_its_monster_left_is_caught_under_master_rule_2020() -> None:
    """`trigger_only_in_location` (docs/engine-findings.md F10): a hand-made bug, the rules keeping the Flip
    effect of a monster that left the field (the seeds' step taken under the knob), is caught by
    activation-timing's check, which holds for the rules as written."""
    import json
    from pathlib import Path

    from duelcheck.log import moves, parse
    from duelcheck.log.writing import board_state
    from duelcheck.model.state import State
    from duelcheck.properties import BY_NAME
    from duelcheck.properties.catalog import ActionView
    from duelcheck.rules import Rules

    path = Path(__file__).parent / "scenarios" / "engine" / "06-a-flip-effect-whose-monster-left-the-field.json"
    doc = parse(json.loads(path.read_text(encoding="utf-8")), str(path))
    check = next(c for c in BY_NAME["activation-timing"].checks if c.label == "flip-effect-in-location")
    on = Rules(trigger_only_in_location=True)
    states = {}
    for rules in (Rules(), on):
        ts = TransitionSystem(rules)
        s = board_state(ts, doc.board, str(path))
        for entry in doc.actions[:-1]:
            for mv in moves(entry):
                got = ts.apply(s, mv.name, mv.params)
                assert got.ok and got.state is not None, (mv, got.reason)
                s = got.state
        states[rules == on] = (ts, s)
    ts_on, before_on = states[True]
    assert not ts_on.apply(before_on, "trigger", {"pos": 1}).ok  # the rule: nothing waits
    ts_off, before_off = states[False]
    kept = ts_off.apply(before_off, "trigger", {"pos": 1})
    assert kept.ok and kept.state is not None
    view = ActionView("trigger", {"pos": 1}, False)
    assert check.eval(before_off, view, kept.state)  # the seeds' rules: no question asked
    bug_before = State(before_off.k, on, before_off.schema, before_off.v)
    bug_after = State(kept.state.k, on, kept.state.schema, kept.state.v)
    assert not check.eval(bug_before, view, bug_after)
