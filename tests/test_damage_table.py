"""The battle damage table of seed 000 and 6.3.4.3.3, row by row, concretely and symbolically."""

from __future__ import annotations

import pytest
import z3
from conftest import board, play

from duelcheck.model.cards import DIRECT, POINTS, Phase
from duelcheck.model.rules import ACTION_CODE
from duelcheck.model.system import TransitionSystem
from duelcheck.rules import Rules

# (row, attacker ATK, target ATK, target DEF, target in Defense, direct,
#  damage to the attacker's controller, damage to the opponent, attacker destroyed, target destroyed)
ROWS = [
    ("atk-higher", 2000, 1500, 0, False, False, 0, 500, False, True),
    ("atk-lower", 1000, 1500, 0, False, False, 500, 0, True, False),
    ("atk-equal", 1500, 1500, 0, False, False, 0, 0, True, True),
    ("atk-zero", 0, 0, 0, False, False, 0, 0, False, False),  # 6.3.4.3.3.1
    ("def-higher", 2000, 0, 1500, True, False, 0, 0, False, True),
    ("def-equal", 1500, 0, 1500, True, False, 0, 0, False, False),
    ("def-lower", 1000, 0, 2000, True, False, 1000, 0, False, False),
    ("direct", 1500, 0, 0, False, True, 0, 1500, False, False),
]


def battle_board(ts: TransitionSystem, atk: int, t_atk: int, t_def: int, defense: bool, direct: bool):
    """Turn 2 (player 1 attacks), both players passed during damage calculation."""
    extra = {}
    if not direct:
        extra = {
            "m_occ__0__0": True,
            "m_up__0__0": True,
            "m_def__0__0": defense,
            "m_atk__0__0": t_atk // POINTS,
            "m_defv__0__0": t_def // POINTS,
        }
    return board(
        ts,
        turn=2,
        phase=Phase.DMG_DURING,
        drew=True,
        bp_done=True,
        passed=True,
        prio=0,
        attacking=True,
        atk_zone=0,
        atk_tgt=DIRECT if direct else 0,
        m_occ__1__0=True,
        m_up__1__0=True,
        m_atk__1__0=atk // POINTS,
        m_decl__1__0=True,
        **extra,
    )


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_row_concrete(ts: TransitionSystem, row: tuple) -> None:
    _, atk, t_atk, t_def, defense, direct, dmg_tp, dmg_opp, doom_att, doom_tgt = row
    s = battle_board(ts, atk, t_atk, t_def, defense, direct)
    t = play(ts, s, ("pass", {"choice": 0}))
    assert t.g("phase") == Phase.DMG_AFTER
    assert (s.g("lp", 1) - t.g("lp", 1)) * POINTS == dmg_tp
    assert (s.g("lp", 0) - t.g("lp", 0)) * POINTS == dmg_opp
    assert t.g("m_doomed", 1, 0) == doom_att
    assert t.g("m_doomed", 0, 0) == doom_tgt
    # 6.3.4.3.5: the destroyed monsters reach the Graveyard only at the end of the Damage Step
    assert t.g("m_occ", 1, 0)
    end = play(
        ts, t, ("pass", {"choice": 0}), ("pass", {"choice": 0}), ("pass", {"choice": 0}), ("pass", {"choice": 0})
    )
    assert end.g("phase") == Phase.BATTLE_STEP
    assert end.g("m_occ", 1, 0) == (not doom_att)
    assert end.g("gy", 1) == int(doom_att)


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_row_symbolic(ts: TransitionSystem, row: tuple) -> None:
    """The Z3 transition relation forces exactly the same outcome."""
    _, atk, t_atk, t_def, defense, direct, dmg_tp, dmg_opp, doom_att, doom_tgt = row
    s = battle_board(ts, atk, t_atk, t_def, defense, direct)
    pre = ts.sym_state("@row")
    step = ts.sym_step(pre, "@row1")
    fixed = [pre.v[k] == s.v[k] for k in ts.keys] + [step.act == ACTION_CODE["pass"], step.params["choice"] == 0]
    expected = z3.And(
        step.post.g("lp", 1) == s.g("lp", 1) - dmg_tp // POINTS,
        step.post.g("lp", 0) == s.g("lp", 0) - dmg_opp // POINTS,
        step.post.g("m_doomed", 1, 0) == doom_att,
        step.post.g("m_doomed", 0, 0) == doom_tgt,
    )
    solver = z3.SolverFor("QF_BV")
    solver.add(step.relation, *fixed)
    assert solver.check(expected) == z3.sat
    assert solver.check(z3.Not(expected)) == z3.unsat


def test_zero_atk_variant_destroys_both() -> None:
    """The knob zero_atk_battle_destroys turns 0 against 0 into a mutual destruction."""
    ts = TransitionSystem(Rules(zero_atk_battle_destroys=True))
    s = battle_board(ts, 0, 0, 0, False, False)
    t = play(ts, s, ("pass", {"choice": 0}))
    assert t.g("m_doomed", 1, 0) and t.g("m_doomed", 0, 0)


def test_face_down_target_flips_before_damage_calculation(ts: TransitionSystem) -> None:
    """6.3.4.3.2: a face-down Defense Position target turns face-up at before damage calculation."""
    s = battle_board(ts, 1000, 0, 2000, True, False)
    v = dict(s.v)
    v[("phase",)] = int(Phase.DMG_START)
    v[("m_up", 0, 0)] = False
    s = type(s)(s.k, s.r, s.schema, v)
    t = play(ts, s, ("pass", {"choice": 0}))
    assert t.g("phase") == Phase.DMG_BEFORE
    assert t.g("m_up", 0, 0) and t.g("m_def", 0, 0)
