"""The search within the bound: every board's shortest play, one solver session deepening one step at a time, each
board settled at its minimal depth.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import z3

from duelcheck.engines.base import Trace
from duelcheck.engines.bmc import Start, Unrolling, deepen_once, signed
from duelcheck.engines.boards.guards import ActionGuards, Guard, expressible
from duelcheck.engines.boards.settings import DEEP_SHRINK, Status
from duelcheck.engines.boards.where import Pred
from duelcheck.engines.mutate import hooked
from duelcheck.engines.smt import open_session
from duelcheck.errors import InternalError
from duelcheck.model.state import PARAMS, GuardMutant, MutationHook, State
from duelcheck.model.system import Step, SymStep, TransitionSystem
from duelcheck.properties.catalog import Check


@dataclass
class Goal:
    """One board to find: a legal board, an illegal twin, a boundary board or a --where board."""

    name: str  # the board's file stem
    kind: Literal["legal", "illegal", "boundary", "where"]
    title: str
    clause: str
    action: str | None = None  # the action tested last (None: the play ends where the predicate holds)
    guard: Guard | None = None  # the conjunct that fails (illegal twins)
    pred: Pred | None = None  # the state predicate (boundary and --where boards)
    status: Status = "not-found"
    depth: int = 0
    note: str = ""
    steps: list[tuple[str, dict[str, int], State]] = field(default_factory=list)
    params: dict[str, int] = field(default_factory=dict)
    reason: str | None = None  # the judge's reason (illegal twins)
    doc: dict[str, Any] | None = None
    seconds: float = 0.0
    minimal: bool = True  # False for a board found beyond the bound (its play is not proved the shortest)

    @property
    def file(self) -> str:
        """The board's file name in the --out folder."""
        return f"{self.name}.json"


class _Defs:
    """The guard conjuncts of each action at each depth, as literals defined once in the solver session."""

    def __init__(
        self,
        ts: TransitionSystem,
        u: Unrolling,
        session: Any,
        table: dict[str, ActionGuards],
        steps: Callable[[Any], Any] | None = None,
    ):
        self.ts, self.u, self.session, self.table, self.steps = ts, u, session, table, steps
        self.done: dict[tuple[str, int], tuple[dict[str, Any], list[Any], Any]] = {}

    def at(self, action: str, d: int) -> tuple[dict[str, Any], list[Any], Any]:
        """(parameter variables, one literal per conjunct, the parameters' domain) of `action` at depth d."""
        key = (action, d)
        if key in self.done:
            return self.done[key]
        ag = self.table[action]
        state = self.u.states[d]
        params = {name: PARAMS[name].z3var(f"@{action}@{d}") for name in ag.action.params}
        pairs = [(ag.pre.v[k], state.v[k]) for k in self.ts.keys]
        pairs += [(ag.params[name], params[name]) for name in params]
        lits = []
        for i, term in enumerate(ag.terms):
            lit = z3.Bool(f"guard#{action}#{i}@{d}")
            self.session.add(lit == z3.substitute(term, *pairs))
            lits.append(lit)
        domain = [PARAMS[name].domain(params[name]) for name in params]
        domain += expressible(self.ts.rules, action, params, state)
        if self.steps is not None:  # the tested action meets the plays' step constraint too
            every = {n: params[n] if n in params else PARAMS[n].z3var(f"@{action}@{d}~") for n in PARAMS}
            code = z3.BitVecVal(self.ts.actions.index(ag.action), self.ts.act_width)
            domain.append(self.steps(SymStep(code, every, state, state, z3.BoolVal(True))))
        self.done[key] = (params, lits, z3.And(*domain) if domain else z3.BoolVal(True))
        return self.done[key]

    def target(self, g: Goal, d: int) -> Any:
        """The goal at depth d: its predicate, and the tested action's conjuncts (all, or all but one negated)."""
        parts: list[Any] = []
        if g.pred is not None:
            v = g.pred(self.u.states[d])
            parts.append(z3.BoolVal(v) if isinstance(v, bool) else v)
        if g.action is not None:
            _, lits, domain = self.at(g.action, d)
            if g.guard is None:
                parts += [domain, *lits]
            else:
                i = g.guard.index
                parts += [domain, *(lit for j, lit in enumerate(lits) if j != i), z3.Not(lits[i])]
        return z3.And(*parts)

    def wanted(self, d: int) -> list[Any]:
        """The parameter variables of every action defined at depth d: the solver reports their values."""
        return [v for (_, depth), (params, _, _) in self.done.items() if depth == d for v in params.values()]


def search(
    ts: TransitionSystem,
    goals: list[Goal],
    table: dict[str, ActionGuards],
    depth: int,
    solver: str = "auto",
    progress: Callable[[str], None] | None = None,
    start: Start = None,
    steps: Callable[[SymStep], Any] | None = None,
) -> None:
    """Settle each goal: `found` at its minimal depth (its play and the tested action's parameters), or
    `not-found` up to `depth`, or `unknown` where the solver gave no answer. One session, deepening one step
    at a time; every question below a goal's depth was answered no, so its play is of minimal length.
    `start`: where the plays start (engines/bmc.py `Unrolling`): the initial state by default. `steps`: a
    constraint every step of a play meets besides the rules (the cards an engine can be dealt, say): the
    plays are then the shortest of those, and `not-found` says so of those alone."""
    tell = progress or (lambda text: None)
    t0 = time.perf_counter()
    u = Unrolling(ts, start)
    session = open_session(solver)
    defs = _Defs(ts, u, session, table, steps)
    pending = set(range(len(goals)))

    def found(i: int, d: int, trace: Trace, values: dict[str, Any]) -> None:
        g = goals[i]
        g.status, g.depth, g.seconds = "found", d, time.perf_counter() - t0
        g.steps = [(st.action, st.params, st.state) for st in trace.steps]
        if g.action is not None:
            params, _, _ = defs.at(g.action, d)
            g.params = {name: signed(values[str(var)], name) for name, var in params.items()}

    def target(i: int, d: int) -> Any:
        return defs.target(goals[i], d)

    try:
        session.add(u.constraints[0])
        for d in range(depth + 1):
            if not pending:
                break
            if d > 0:
                u.extend(d)
                session.add(u.constraints[d])
                if steps is not None:
                    step = u.steps[d]
                    assert step is not None
                    session.add(steps(step))
            tell(f"depth {d} of {depth}: {len(pending)} boards to find ({time.perf_counter() - t0:.0f} s)")
            if not deepen_once(ts, session, u, d, pending, target, found, wanted=defs.wanted, name="board"):
                for i in pending:
                    goals[i].status, goals[i].depth = "unknown", d
                    goals[i].note = f"the solver gave no answer at depth {d}"
                pending.clear()
    finally:
        session.close()
    for i in pending:
        goals[i].status, goals[i].depth = "not-found", depth
        goals[i].seconds = time.perf_counter() - t0


def holds(ts: TransitionSystem, g: Goal, s: State) -> bool:
    """The goal in a concrete state, with the parameters found for its tested action: the predicate, and the
    action legal (a legal board) or refused for its guard alone (an illegal twin: refused by the rules, and
    allowed once that one conjunct is negated, so every other conjunct holds)."""
    if g.pred is not None and not g.pred(s):
        return False
    if g.action is None:
        return True
    out = ts.apply(s, g.action, g.params)
    if g.guard is None:
        return out.ok
    if out.ok:
        return False
    with hooked(MutationHook(GuardMutant(g.action, g.guard.index, negate=True))):
        return ts.apply(s, g.action, g.params).ok


def shortened_board(ts: TransitionSystem, g: Goal, steps: list[Step]) -> list[tuple[str, dict[str, int], State]]:
    """A play to the board of `g` (its parameters set) shortened by delta debugging (engines/shrink.py: each
    candidate replayed by the interpreter, the board tested there by `holds`), as the goal keeps its steps."""
    from duelcheck.engines.shrink import slide

    check = Check("", "state", lambda st: holds(ts, g, st), "sometimes")
    short = slide(ts, check, Trace(steps), max_candidates=DEEP_SHRINK)
    if not holds(ts, g, short.steps[-1].state):
        raise InternalError(f"{g.name}: the shortened play does not reach the board")
    return [(st.action, dict(st.params), st.state) for st in short.steps]


def board_play(g: Goal) -> list[tuple[str, dict[str, int]]]:
    """The play to a board found, and for a legal board its action too: the states after it are starts."""
    play = [(a, dict(p)) for a, p, _ in g.steps[1:]]
    return [*play, (g.action, dict(g.params))] if g.kind == "legal" and g.action is not None else play
