"""The settings of a mutation run: the bounds and budgets of each stage, the kinds of mutant, the statuses."""

from __future__ import annotations

from pathlib import Path

DEFAULT_DEPTH = 12  # the bound of the kill stage; deeper bounds kill more and cost more


PROBE_DEPTH = 5  # the first stage's bounded search for a violation stops here (or at the bound, if smaller)


DEEP_DEPTH = 4  # the last stage's search from the states of the rules' own plays goes this many steps on


DEEP_WALKS, DEEP_WALK_LENGTH, DEEP_SEED = 3, 300, 7  # and from the states of these random plays under the mutant


BEYOND = 4  # the baseline's search goes this many steps past the bound for the witnesses it has not reached


# the seeded search (engines/seeded.py): plays that follow the rules until their last steps, the rules' proved
# invariants pruning the prefix; from the start of the duel this many steps past the bound, with a tail of one
# step (the violation at the first step the mutant takes otherwise), then of SEEDED_TAILS steps to the bound
SEEDED_BEYOND = 4


SEEDED_TAILS = (2,)


# before the proofs, a short seeded search from the start: to this depth (the shortest kills are most: of the 67
# seeded kills from the start in the first 118 mutants of a whole run, 57 at 10 steps or fewer), which settles a
# mutant before the induction questions it would otherwise pay for (measured: the module's docstring, stage 2)
SEEDED_EARLY = 10


# and from the states of the rules' own plays and of FAR_WALKS seeded random plays under the rules (up to
# FAR_WALK_LENGTH steps, or the end of the duel), this many steps on, a tail of one step
FAR_DEPTH = 6


FAR_LAST = 7  # and, for the mutants nothing else settled, this many


# and before that, far deeper from fewer states: every WIDE_STRIDE-th state of each play (a search from one
# state follows the play's own steps too), at most WIDE_BATCH in one search (measured: 18 states 15 steps on,
# 24 to 32 s, where the far search from a whole play's 285 states took minutes at 7)
WIDE_DEPTH, WIDE_STRIDE, WIDE_BATCH = 15, 4, 18


# the goal-directed search asks its goals near every REF_STRIDE-th state of the rules' plays (at most REFS)
REF_STRIDE, REFS = 60, 40


FAR_WALKS, FAR_WALK_LENGTH, FAR_SEED = 3, 700, 11


FAR_SHORT = 50  # plays of at most this many steps are searched from together, longer ones each on its own


DEEP_SHRINK = 1500  # the candidates delta debugging may try on a violation found there


DEFAULT_STORE = Path("duelcheck-mutate.sqlite")


KINDS = ("drop", "negate", "write", "swap", "compare", "semantic")


EXCLUDED_PREFIXES = ("model range", "model catalogue", "model shortcut")


EQUIVALENCE_RLIMIT = 50_000_000  # the solver's resource limit for one equivalence question (deterministic)


STATUSES = ("killed", "survived", "equivalent", "unknown")
