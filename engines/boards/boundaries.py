"""The boundary boards: states a tester wants (equal ATK, 0 ATK, LP exactly 0, the hand limit, full zones, the longest
chain), each with the action it tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from duelcheck.model.cards import (
    DIRECT,
    Phase,
)
from duelcheck.model.kit import Val
from duelcheck.model.state import State


@dataclass(frozen=True)
class Boundary:
    """A board a tester wants: a state predicate, then (optionally) the action it tests, which must be legal."""

    name: str
    clause: str
    doc: str
    pred: Callable[[State], Val]
    action: str | None = None


def _battle(s: State) -> tuple[Val, Val, Val, Val, Val]:
    """Before damage calculation: a battle with a monster (not direct), the attacker's ATK, the target's ATK
    and DEF, and whether the target is in Defense Position."""
    k, tp = s.k, s.tp
    opp = s.other(tp)
    z, t = s.g("atk_zone"), s.g("atk_tgt")
    at = k.and_(s.g("phase") == Phase.DMG_DURING, s.g("attacking"), t != DIRECT)
    return at, s.g("m_atk", tp, z), s.g("m_atk", opp, t), s.g("m_defv", opp, t), s.g("m_def", opp, t)


def _atk_equal(s: State) -> Val:
    at, a, ta, _, is_def = _battle(s)
    return s.k.and_(at, s.k.not_(is_def), a == ta, a != 0)


def _def_equal(s: State) -> Val:
    at, a, _, td, is_def = _battle(s)
    return s.k.and_(at, is_def, a == td)


def _zero_battle(s: State) -> Val:
    at, a, ta, _, is_def = _battle(s)
    return s.k.and_(at, s.k.not_(is_def), a == 0, ta == 0)


def _hand_at(extra: int) -> Callable[[State], Val]:
    def pred(s: State) -> Val:
        k = s.k
        return k.and_(s.g("phase") == Phase.END, s.g("chain_len") == 0, s.g("hand", s.tp) == s.r.hand_limit + extra)

    return pred


BOUNDARIES: tuple[Boundary, ...] = (
    Boundary(
        "battle.atk-equal",
        "6.3.4.3.3",
        "Damage calculation between two Attack Position monsters of equal ATK (not 0): both are destroyed, no damage.",
        _atk_equal,
        "end_step",
    ),
    Boundary(
        "battle.def-equal",
        "6.3.4.3.3",
        "Damage calculation of an attack on a Defense Position monster whose DEF equals the attacker's ATK: "
        "nothing is destroyed, no damage.",
        _def_equal,
        "end_step",
    ),
    Boundary(
        "battle.zero-atk",
        "6.3.4.3.3.1",
        "Damage calculation between two 0 ATK Attack Position monsters: nothing happens.",
        _zero_battle,
        "end_step",
    ),
    Boundary(
        "lp.exactly-zero",
        "seed 000 (winning)",
        "A player's LP go to exactly 0: that player loses.",
        lambda s: s.k.or_(s.g("lp", 0) == 0, s.g("lp", 1) == 0),
    ),
    Boundary(
        "hand.at-limit-end-phase",
        "6.3.6",
        "The End Phase ends with the turn player holding exactly the hand limit: no discard, the turn ends.",
        _hand_at(0),
        "end_step",
    ),
    Boundary(
        "hand.over-limit-end-phase",
        "6.3.6",
        "The End Phase ends with the turn player holding one card over the hand limit: they discard.",
        _hand_at(1),
        "end_step",
    ),
    Boundary(
        "monsters.zones-full",
        "6.3.5",
        "A player's Monster Zones are exactly full.",
        lambda s: s.k.or_(*(s.monsters(p) == s.r.monster_zones for p in (0, 1))),
    ),
    Boundary(
        "chain.longest",
        "seed 000",
        "The longest chain the model holds (the rules' chain_links).",
        lambda s: s.g("chain_len") == s.r.chain_links,
    ),
)
