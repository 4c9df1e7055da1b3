"""Bounded model checking of a variant of the rules, seeded by what is proved of the rules themselves.

A variant B of rules A (a mutant, a changed rule) takes the same steps as A from most states: it differs in a
few actions, and in those only where the changed clause decides. Its plays are searched one depth at a time
from the start of the duel, as engines/bmc.py searches A's, in two parts:

- the prefix: steps of A (A's transition relation, as A's own search unrolls it) that B takes alike (the same
  action and parameters are legal under B and lead to the same state: for each action B changes, "A and B
  disagree here" is one small formula over the state and the parameters, asserted false). Every state of the
  prefix is a state A reaches, so the invariants proved for all depths under A (the lemmas) hold there and are
  asserted: the solver prunes those plays as it prunes A's own;
- the tail: `after` + 1 steps of B's own relation from the prefix's last state, the lemmas no longer assumed
  (the play may have left A's reachable states), the goal (an invariant of the suite violated) at the tail's
  last step.

So depth d asks for a play of B of d steps whose first step B takes otherwise than A is among its last
`after` + 1 steps, that violates an invariant at its last step. Every shorter depth was refuted for such plays,
so a play found is the shortest of them (with `after` + 1 at least the bound, every play of B is one of them and
the search is B's full bounded search). A play of B that violates an invariant has such a first divergence:
while it follows A it keeps every invariant proved under A. The cost is that of A's search with lemmas, a few
formulas per step and a short unpruned tail, where B's own search has no lemmas at all (nothing is proved of B):
the figures are in the README.

The trace is the solver's play replayed by the concrete interpreter under B, and certified there.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import z3

from duelcheck.engines.base import Trace
from duelcheck.engines.bmc import Goal, Unrolling, replay_moves
from duelcheck.engines.limits import check_interrupt
from duelcheck.engines.smt import SAT, UNSAT, Stopped, open_session
from duelcheck.model.rules import Params
from duelcheck.model.state import PARAMS, State, action_body
from duelcheck.model.system import SymStep, TransitionSystem
from duelcheck.properties.catalog import ActionView, Check, Property

REFUSALS = 20  # plays found but not confirmed by the concrete interpreter before the search gives up: unknown


@dataclass
class SeededReach:
    """What the seeded search says: `reached` (the goal, at `depth`, with the trace under B and the first step
    of its tail: the steps before it are A's, taken alike by B), `unreached` up to `depth`, or `unknown` from
    `depth` on (with why)."""

    status: str
    depth: int
    goal: Goal | None = None
    trace: Trace | None = None
    tail_from: int | None = None
    note: str = ""


def action_effects(ts: TransitionSystem, pre: State, pvars: dict[str, Any]) -> dict[str, tuple[Any, dict[Any, Any]]]:
    """Each action's guard and the game state it makes from `pre` (symbolic), as `ts`'s relation builds them
    (the same run of the mutation hook, the same composite parts): the terms a variant is compared by."""
    out: dict[str, tuple[Any, dict[Any, Any]]] = {}
    for a in ts.actions:
        params = Params({name: pvars[name] for name in a.params})
        if a.parts is not None:
            g, made = ts._composite(pre, a, params)
            values = made.v
        else:
            n = pre.edit()
            with action_body(a.name):
                a.body(pre, params, n)
            g, values = n.guard(), n.v
        out[a.name] = (g, {key: values[key] for key in ts.game_keys})
    return out


def _same(x: Any, y: Any) -> bool:
    if x is y:
        return True
    if isinstance(x, z3.ExprRef) and isinstance(y, z3.ExprRef):
        return bool(z3.eq(x, y))
    return bool(not isinstance(x, z3.ExprRef) and not isinstance(y, z3.ExprRef) and x == y)


def _ne(x: Any, y: Any) -> Any:
    d = x != y
    return z3.BoolVal(d) if isinstance(d, bool) else d


class Disagreement:
    """Where B takes a step otherwise than A: for each action whose guard or effect differs between the two (as
    terms), the formula "A and B disagree on this action here", over a template state and parameters, copied to
    any step by substitution. `actions` names the actions that differ; none when B is A on every step."""

    def __init__(
        self,
        a: TransitionSystem,
        effects_a: dict[str, tuple[Any, dict[Any, Any]]],
        effects_b: dict[str, tuple[Any, dict[Any, Any]]],
        pre: State,
        pvars: dict[str, Any],
    ):
        self.pre, self.pvars, self.keys = pre, pvars, a.keys
        self.terms: dict[int, Any] = {}
        for code, act in enumerate(a.actions):
            ga, post_a = effects_a[act.name]
            gb, post_b = effects_b[act.name]
            changed = [_ne(post_a[key], post_b[key]) for key in a.game_keys if not _same(post_a[key], post_b[key])]
            if _same(ga, gb) and not changed:
                continue
            guard = z3.BoolVal(ga) if isinstance(ga, bool) else ga
            self.terms[code] = z3.Or(_ne(ga, gb), z3.And(guard, z3.Or(*changed)) if changed else z3.BoolVal(False))
        self.actions = [a.actions[code].name for code in self.terms]

    def at(self, st: SymStep) -> Any:
        """Whether B disagrees with A on this step (its pre-state, action and parameters)."""
        if not self.terms:
            return z3.BoolVal(False)
        pairs = [(self.pre.v[key], st.pre.v[key]) for key in self.keys]
        pairs += [(self.pvars[name], st.params[name]) for name in PARAMS]
        return z3.Or(*(z3.And(st.act == code, z3.substitute(t, *pairs)) for code, t in self.terms.items()))


def template_effects(a: TransitionSystem) -> tuple[State, dict[str, Any], dict[str, tuple[Any, dict[Any, Any]]]]:
    """A's side of a disagreement: the template state and parameters, and A's effects from them (made with no
    variant in force). The same for every variant of A: a caller comparing many may make it once."""
    pre = a.sym_state("@dis")
    pvars = {name: spec.z3var("@dis") for name, spec in PARAMS.items()}
    return pre, pvars, action_effects(a, pre, pvars)


def disagreement(
    a: TransitionSystem,
    b: TransitionSystem,
    variant: Callable[[], Any],
    a_side: tuple[State, dict[str, Any], dict[str, tuple[Any, dict[Any, Any]]]] | None = None,
) -> Disagreement:
    """`Disagreement` of A and B: A's effects made as they are (or `a_side`, `template_effects(a)` made
    before), B's with `variant()` in force (a context manager: engines/mutate.py `activated`)."""
    pre, pvars, effects_a = template_effects(a) if a_side is None else a_side
    with variant():
        effects_b = action_effects(b, pre, pvars)
    return Disagreement(a, effects_a, effects_b, pre, pvars)


def seeded_search(
    a: TransitionSystem,
    b: TransitionSystem,
    dis: Disagreement,
    lemmas: list[Check],
    props: list[Property],
    depth: int,
    after: int,
    solver: str = "auto",
    deadline: float | None = None,
    accept: Callable[[Goal, Trace], bool] | None = None,
    proved: set[str] | frozenset[str] = frozenset(),
    start: list[State] | None = None,
    refuted: int = 0,
) -> SeededReach:
    """The shortest play of B (at most `depth` steps, its first divergence from A among its last `after` + 1
    steps) that violates one of the invariants `props` at its last step, or why there is none. `dis` is where
    A and B disagree (`disagreement`); `b`'s relation must have been made with the variant in force
    (engines/mutate.py `activated`), `a`'s without; the caller keeps the variant in force while this runs (the
    concrete replay runs B's bodies). `accept(goal, trace)` certifies a violation (the concrete interpreter
    under B): a play it refuses is ruled out and the depth asked again. `proved`: the invariants among `props`
    proved for all depths under A (the lemmas' properties). `start`: states A reaches, each by a play B takes
    alike (the caller replayed it under both), where the plays may start (any one of them, by a selector, as
    engines/bmc.py searches from several); the trace then starts there. `refuted`: the depths up to this one were
    refuted by the same search asked before (the same systems, lemmas, goals, `after` and `start`, a shallower
    `depth`): their refutations are asserted, not asked again."""
    goals = [Goal(p, c) for p in props for c in p.checks if p.kind == "always"]
    u = Unrolling(b, start)  # B's plays
    facts = Unrolling(a, None, lemmas)  # A's lemmas, made once over a template state and copied per state
    apart = start is None and a.init().v != b.init().v  # the duels start apart: no play of B follows A's
    template, targets = goal_template(b, goals)
    session = open_session(solver, None, deadline)
    refused = 0
    try:
        session.add(z3.And(u.constraints[0], facts.facts(u.states[0])) if lemmas and not apart else u.constraints[0])
        for d in range(1, depth + 1):
            check_interrupt()
            if deadline is not None and time.monotonic() > deadline:
                return SeededReach("unknown", d, note=f"stopped at depth {d}: the time limit")
            u.extend(d)
            session.add_step(u.constraints[d], functools.partial(u.text, d))
            told: list[Any] = []
            # step d - after - 1 leaves the tail: from now on it is a step B takes as A does, from and to states A
            # reaches (the lemmas hold there). Every question asked before had it free: their refutations stand.
            k = d - after - 1
            if k >= 1 and not apart:
                st = u.steps[k]
                assert st is not None
                told.append(z3.Not(dis.at(st)))
                if lemmas:
                    told.append(facts.facts(u.states[k]))
            # a play that follows A keeps every invariant proved under A: one of those is violated only after a
            # step of the tail where B disagrees with A
            tail = [u.steps[j] for j in range(max(1, k + 1), d + 1)]
            left = z3.Or(*(dis.at(st) for st in tail if st is not None)) if not apart else z3.BoolVal(True)
            step = u.steps[d]
            assert step is not None
            pairs = [(template.pre.v[key], u.states[d - 1].v[key]) for key in b.keys]
            pairs += [(template.post.v[key], u.states[d].v[key]) for key in b.keys]
            pairs += [(template.act, step.act)] + [(template.params[name], step.params[name]) for name in PARAMS]
            # every goal's question at once: the template's terms copied in one substitution
            placeholder = z3.Bool("seeded-left@G")
            hits: dict[int, Any] = {}
            defs = []
            for i, (g, target) in enumerate(zip(goals, targets, strict=True)):
                if target is None:
                    continue
                hits[i] = z3.Bool(f"seeded#{i}@{d}")
                defs.append(hits[i] == (z3.And(target, placeholder) if g.prop.name in proved else target))
            if defs:
                told.append(z3.substitute(z3.And(*defs), *pairs, (placeholder, left)))
            session.add(z3.And(*told))
            if d <= refuted and hits:  # refuted by the same question asked before: asserted
                session.add(z3.Not(z3.Or(*hits.values())))
                continue
            while hits:
                check_interrupt()
                session.deadline = deadline
                try:
                    answer, values = session.check(z3.Or(*hits.values()), [*hits.values(), *u.choices(d)])
                except Stopped:
                    return SeededReach("unknown", d, note=f"stopped at depth {d}: the time limit")
                if answer == UNSAT:
                    session.add(z3.Not(z3.Or(*hits.values())))
                    break
                if answer != SAT:
                    return SeededReach("unknown", d, note=f"the solver gave no answer at depth {d}")
                trace = replay_moves(b, u.start_of(values), u.moves(values, d))
                for i in sorted(i for i, h in hits.items() if values.get(str(h))):
                    if accept is None or accept(goals[i], trace):
                        return SeededReach("reached", d, goals[i], trace, max(1, d - after))
                # a play the concrete interpreter does not confirm: ruled out, the depth asked again
                refused += 1
                if refused > REFUSALS:
                    return SeededReach("unknown", d, note=f"{refused} plays at depth {d} not confirmed concretely")
                session.add(z3.Not(z3.And(*(_is(v, values) for v in u.choices(d)))))
        return SeededReach("unreached", depth)
    finally:
        session.close()


def goal_template(b: TransitionSystem, goals: list[Goal]) -> tuple[SymStep, list[Any]]:
    """Each goal's term (its invariant violated) over one template step of B, made once per system and process
    and copied to each depth by substitution (evaluating every invariant again at each depth cost more than the
    solver's answers: no-deadlock alone runs every action's guard)."""
    key = ("seeded-goals", tuple((g.prop.name, g.check.label) for g in goals))
    if key not in b.cache:
        st = b.sym_step(b.sym_state("@G0"), "@G1")
        view = ActionView(st.act, st.params, symbolic=True)
        terms: list[Any] = []
        for g in goals:
            c = g.check
            v = c.eval(st.pre, view, st.post) if c.on == "step" else c.eval(None, None, st.post)
            t = z3.Not(z3.BoolVal(v) if isinstance(v, bool) else v)
            terms.append(None if z3.is_false(t) else t)
        b.cache[key] = (st, terms)
    cached: tuple[SymStep, list[Any]] = b.cache[key]
    return cached


def _is(v: Any, values: dict[str, Any]) -> Any:
    x = values[str(v)]
    return v == (bool(x) if z3.is_bool(v) else x)


__all__ = ["Disagreement", "SeededReach", "action_effects", "disagreement", "goal_template", "seeded_search"]
