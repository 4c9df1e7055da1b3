"""The bounds and budgets of a boards run: how deep each search goes beyond the bound, and how many plays it starts
from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from duelcheck.model.state import State

Reason = str | Callable[[State], str]


DEEP_DEPTH = 4  # beyond the bound: the search goes this many steps on from the states of plays


FAR_DEPTH = 6  # and, last, this many from the states of the plays to the end of the duel


DEEP_ROUNDS = 3  # rounds from the boards' plays, each from the boards found in the round before


DEEP_WALKS, DEEP_SEED = 3, 7  # then the seeded random plays it also starts from: their first steps, then all


DEEP_WALK_LENGTHS = (60, 300)


DEEP_SHRINK = 3000  # the candidates delta debugging may try on each board found there


WITNESS_DEPTH = 16  # the bound of the plays to the suite's witnesses it also starts from (a replay's choices: 14)


SEEDED_DEPTH = 16  # last, for a twin still missing: the seeded search from the start of the duel, to this many steps


Status = Literal["found", "unreachable", "not-found", "not-expressible", "unknown"]
