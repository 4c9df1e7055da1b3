"""The illegal twins the searches missed: classified as unreachable when the other guards imply theirs (under the
invariants proved for all depths), or found by the seeded search.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import z3

from duelcheck.engines.boards.bounded import Goal, holds, shortened_board
from duelcheck.engines.boards.guards import ActionGuards, expressible
from duelcheck.engines.boards.settings import SEEDED_DEPTH
from duelcheck.engines.limits import check_interrupt
from duelcheck.engines.mutate import hooked
from duelcheck.engines.mutate import twin_check as mutate_twin
from duelcheck.engines.smt import SAT, UNSAT, open_session
from duelcheck.model.state import PARAMS, State
from duelcheck.model.system import TransitionSystem
from duelcheck.properties.catalog import Check, well_formed_facts
from duelcheck.rules import Rules


def classify(
    ts: TransitionSystem,
    goals: list[Goal],
    table: dict[str, ActionGuards],
    solver: str = "auto",
    facts: Callable[[State], list[Any]] | None = None,
) -> None:
    """For each twin not found: `unreachable` when the other conjuncts imply the guard under the well-formed
    facts (unsat of well_formed(s) and the others and not g), or, with `facts` (the invariants proved for all
    depths, over a template state), in every reachable state; `not-expressible` when that holds only with
    parameters the duel-log format writes, else it stays `not-found`."""
    missed = [g for g in goals if g.kind == "illegal" and g.status == "not-found" and g.guard is not None]
    if not missed:
        return
    s = next(iter(table.values())).pre  # the state the guard terms are written over
    session = open_session(solver)
    proved = facts(s) if facts is not None else []
    try:
        session.add(z3.And(*(f for f in well_formed_facts(s) if not isinstance(f, bool)), *proved))
        for g in missed:
            check_interrupt()
            assert g.guard is not None and g.action is not None
            ag = table[g.action]
            i = g.guard.index
            base = [*(t for j, t in enumerate(ag.terms) if j != i), z3.Not(ag.terms[i])]
            base += [PARAMS[name].domain(ag.params[name]) for name in ag.params]
            answer, _ = session.check(z3.And(*base), [])
            if answer == UNSAT:
                g.status, g.note = (
                    "unreachable",
                    (
                        f"implied by the other guards in every reachable state ({len(proved)} facts of the invariants "
                        "proved for all depths)"
                        if proved
                        else "implied by the other guards under the well-formed facts"
                    ),
                )
                continue
            if answer != SAT:
                g.note = "the solver gave no answer whether the other guards imply it"
                continue
            answer, _ = session.check(z3.And(*base, *expressible(ts.rules, g.action, ag.params, s)), [])
            if answer == UNSAT:
                g.status = "not-expressible"
                g.note = "it fails only with parameters the duel-log format cannot write"
    finally:
        session.close()


def twin_check(ts: TransitionSystem, ag: ActionGuards, g: Goal) -> Check:
    """The illegal twin as a witness over any symbolic state: some parameters in their domains with which
    every other conjunct of the action holds and this one fails (engines/mutate.py `twin_check`)."""
    assert g.guard is not None
    return mutate_twin(ts, ag.pre, ag.params, ag.terms, g.guard.index, g.name)


def unreachable_by_induction(
    ts: TransitionSystem, goals: list[Goal], table: dict[str, ActionGuards], cache: Path | None = None
) -> None:
    """Each twin still not found, asked as a witness of its own: `unreachable` when its negation is proved for
    all depths (engines/kind.py `prove_negation`: induction on its own, then with the invariants proved for all
    depths as lemmas, then k-induction for k = 2 and 3). Where the other guards imply the guard only in states
    that a step can reach from no reachable state (a discard with the duel won: the discard needs the End
    Phase reached by a pass, which needs the duel going on), one step of induction shows what the one-state
    question of `classify` cannot. The lemmas are the invariants proved for all depths (read from the proof
    cache when there). Fixed resource limits, no clock: the answer does not depend on timing."""
    from duelcheck.engines.kind import Induction
    from duelcheck.properties import PROPERTIES

    missed = [g for g in goals if g.kind == "illegal" and g.status == "not-found" and g.guard is not None]
    if not missed:
        return
    suite = [p for p in PROPERTIES if p.kind == "always"]
    induction = Induction(ts, cache=cache)
    induction.prove_suite(suite)
    for g in missed:
        check_interrupt()
        assert g.action is not None
        if induction.prove_negation(twin_check(ts, table[g.action], g), suite):
            g.status = "unreachable"
            g.note = "no reachable state has it: its absence is proved for all depths by induction"


def seeded_twins(
    ts: TransitionSystem,
    goals: list[Goal],
    rules: Rules,
    solver: str = "auto",
    progress: Callable[[str], None] | None = None,
    cache: Path | None = None,
) -> None:
    """Last, each twin still missing, asked as `duelcheck mutate` asks a dropped guard's mutant: the rules with
    that conjunct dropped take every step the rules take, and more: the first step they take otherwise is the
    action with that conjunct alone failing, on a board the rules reach: the twin. The seeded search
    (engines/seeded.py, the rules' steps pruned by the invariants proved for all depths) looks for it from the
    start of the duel up to `SEEDED_DEPTH` steps (then its play is the shortest: every shorter one refuted), else
    the wide search from the states of `duelcheck mutate`'s far walks (engines/mutate.py `first_divergence`),
    whose play is shortened by delta debugging, not proved the shortest. Each play is confirmed by the concrete
    interpreter: the rules take its steps, and refuse its last for that conjunct alone (`holds`). Fixed depths
    and seeds, no clock."""
    from dataclasses import replace

    from duelcheck.engines import mutate as mu

    pending = [g for g in goals if g.kind == "illegal" and g.status == "not-found" and g.guard is not None]
    if not pending:
        return
    tell = progress or (lambda text: None)
    lemmas = mu.prove_lemmas(rules, cache)
    walks = mu.far_walks(rules)
    for g in pending:
        check_interrupt()
        assert g.guard is not None and g.action is not None
        t0 = time.perf_counter()
        tell(f"the seeded search for {g.name}: from the start of the duel, then from the plays to its end")

        def confirm(r: Any, g: Goal = g) -> bool:
            """The rules take the play's steps and refuse its last for this conjunct alone (`holds`)."""
            last = r.trace.steps[-1]
            with hooked(None):
                state = ts.init()
                for st in r.trace.steps[1:-1]:
                    out = ts.apply(state, st.action, dict(st.params))
                    if not out.ok or out.state is None:
                        return False
                    state = out.state
                return last.action == g.action and holds(ts, replace(g, params=dict(last.params)), state)

        mutant = mu.Mutant(f"drop:{g.action}:{g.guard.index}", "drop", g.action, g.guard.index, g.guard.reason, False)
        r, why = mu.first_divergence(rules, mutant, lemmas, walks, confirm, SEEDED_DEPTH, solver)
        if r is None:
            beyond = f"nor by the seeded search ({why})"
            g.note = f"{g.note}; {beyond}" if g.note else beyond
            continue
        board = list(r.trace.steps[:-1])
        g.params = dict(r.trace.steps[-1].params)
        if r.minimal:
            g.steps = [(st.action, dict(st.params), st.state) for st in board]
            g.depth, g.minimal = len(board) - 1, True
            g.note = (
                f"the seeded search from the start of the duel, with this conjunct dropped: the shortest play "
                f"({g.depth} steps; every shorter one refuted)"
            )
        else:
            g.steps = shortened_board(ts, g, board)
            g.depth, g.minimal = len(g.steps) - 1, False
            g.note = (
                f"beyond the bound: the wide seeded search with this conjunct dropped, {r.note}; {len(r.trace) - 1} "
                f"steps in all, shortened to {g.depth} by delta debugging; not proved the shortest"
            )
        g.status, g.seconds = "found", time.perf_counter() - t0
