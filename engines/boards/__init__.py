"""Edge-case test boards for game engines: for every guard of every action, a legal board and its illegal twin.

An action's guard is the conjunction of the `require` conjuncts its body adds, each with the words a judge
says when it fails (model/rules.py). `collect_guards` runs each body on a symbolic Builder, as the
transition relation does (model/system.py), and keeps the conjuncts with their reasons; those whose
reason starts with "model range" or "model catalogue" only keep the parameters sane, and those of "model
shortcut" keep a step of several actions to where it is meant: they must hold on every board and get no
board of their own.

For an action X with guard conjuncts g_1..g_n the search looks, one depth at a time from the start of the
duel (as engines/bmc.py does, in one solver session), for

- the *legal board*: the shortest play to a state where X, with some parameters, is legal (every g_j
  holds); one board per action, shared by its guards;
- the *illegal twin* of each g_i: the shortest play to a state where every other conjunct holds and g_i
  fails, so that the judge refuses X with g_i's reason and no other;
- *boundary boards*: state predicates a tester wants (each row of the damage table at equality, a 0 ATK
  battle, LP going to exactly 0, the hand at the limit and one over in the End Phase, the monster zones
  full, the longest chain the model holds), optionally followed by the action they test;
- `--where` boards: a state predicate written in a small language over the duel-log format's words.

Every play is replayed by the concrete interpreter, and the tested action is certified there: legal, or
refused with exactly g_i's reason. Each board is written as a duel log (duelcheck/log.py) with every
observed state and an `expect` block, and is replayed once more through `duelcheck replay` before it is
kept. A guard whose twin is not reached within the bound is `not found up to N`; when additionally the
other conjuncts imply it under the well-formed facts of every reachable state (one solver question), it
is `unreachable (implied by the other guards)`. A twin that exists only with parameters the duel-log
format cannot write (a zone number past the last zone) is `not expressible in the duel-log format`.
Beyond the bound, `deep_search` searches on from the states of plays, `classify` and
`unreachable_by_induction` prove twins unreachable, and, last, `seeded_twins` asks each twin still missing of
the seeded search with its guard dropped (docs/boards.md).
"""

from __future__ import annotations

from duelcheck.engines.boards.beyond import (  # noqa: F401
    deep_search,
    reachable_facts,
    witness_plays,
)
from duelcheck.engines.boards.boundaries import (  # noqa: F401
    BOUNDARIES,
    Boundary,
    _atk_equal,
    _battle,
    _def_equal,
    _hand_at,
    _zero_battle,
)
from duelcheck.engines.boards.bounded import (  # noqa: F401
    Goal,
    _Defs,
    board_play,
    holds,
    search,
    shortened_board,
)
from duelcheck.engines.boards.guards import (  # noqa: F401
    ActionGuards,
    Guard,
    collect_guards,
    expressible,
)
from duelcheck.engines.boards.logs import (  # noqa: F401
    _entry,
    build_log,
    certify,
)
from duelcheck.engines.boards.running import (  # noqa: F401
    BoardsRun,
    _clause_key,
    _goal_json,
    describe_status,
    guard_goals,
    run,
    where_goal,
)
from duelcheck.engines.boards.settings import (  # noqa: F401
    DEEP_DEPTH,
    DEEP_ROUNDS,
    DEEP_SEED,
    DEEP_SHRINK,
    DEEP_WALK_LENGTHS,
    DEEP_WALKS,
    FAR_DEPTH,
    SEEDED_DEPTH,
    WITNESS_DEPTH,
    Reason,
    Status,
)
from duelcheck.engines.boards.twins import (  # noqa: F401
    classify,
    seeded_twins,
    twin_check,
    unreachable_by_induction,
)
from duelcheck.engines.boards.where import (  # noqa: F401
    _COSTS,
    _EFFECTS,
    _FLIP,
    _KINDS,
    _OPS,
    _PHASES,
    _ROOTS,
    _TOKEN,
    _TOP,
    FieldRef,
    Pred,
    _comparison,
    _fields_text,
    _literal,
    _Operand,
    _Parser,
    _scaled,
    _Tok,
    _tokens,
    _where_error,
    parse_where,
    resolve_field,
)
from duelcheck.engines.boards.writing import (  # noqa: F401
    PYTEST_MODULE,
    write,
)
from duelcheck.model.changes import slugify  # noqa: F401
