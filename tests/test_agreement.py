"""The concrete interpreter and the Z3 transition relation are one semantics (hypothesis)."""

from __future__ import annotations

import random

import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duelcheck.model.rules import ACTION_CODE
from duelcheck.model.state import PARAMS, State
from duelcheck.model.system import Step, SymStep, TransitionSystem
from duelcheck.rules import Rules

TS = TransitionSystem(Rules())
PRE = TS.sym_state("@hyp")
STEP: SymStep = TS.sym_step(PRE, "@hyp1")
# the enumerator tries a set of values for ATK, DEF and ATK changes (any other value is covered by the
# first test: the concrete and symbolic successors agree whatever the values)
SEARCH = [spec.search_domain(STEP.params[name]) for name, spec in PARAMS.items()]


def walk(seed: int, length: int) -> State:
    rng = random.Random(seed)
    s = TS.init()
    for _ in range(length):
        options = list(TS.successors(s))
        if not options:
            break
        s = rng.choice(options).state
    return s


def pinned(s: State) -> list[z3.BoolRef]:
    return [PRE.v[k] == s.v[k] for k in TS.keys]


def action_is(step: Step) -> list[z3.BoolRef]:
    out = [STEP.act == ACTION_CODE[step.action]]
    for name, spec in PARAMS.items():
        value = step.params.get(name, False if spec.sort == "bool" else 0)
        out.append(STEP.params[name] == value)
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), length=st.integers(0, 80), pick=st.integers(0, 10_000))
def test_concrete_successor_is_the_symbolic_one(seed: int, length: int, pick: int) -> None:
    s = walk(seed, length)
    options = list(TS.successors(s))
    if not options:
        return
    step = options[pick % len(options)]
    solver = z3.SolverFor("QF_BV")
    solver.add(STEP.relation, *pinned(s), *action_is(step))
    same = z3.And(*(STEP.post.v[k] == step.state.v[k] for k in TS.keys))
    assert solver.check(same) == z3.sat, "the concrete successor does not satisfy the transition relation"
    assert solver.check(z3.Not(same)) == z3.unsat, "the transition relation allows another successor"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), length=st.integers(0, 80))
def test_every_symbolically_enabled_action_is_enumerated(seed: int, length: int) -> None:
    """The concrete enumerator misses no action instance the symbolic guard allows."""
    s = walk(seed, length)
    known = [z3.And(*action_is(step)) for step in TS.successors(s)]
    solver = z3.SolverFor("QF_BV")
    solver.add(STEP.relation, *SEARCH, *pinned(s), z3.Not(z3.Or(*known)) if known else z3.BoolVal(True))
    answer = solver.check()
    if answer == z3.sat:
        name, params = TS.sym_params(STEP, solver.model())
        raise AssertionError(f"enabled symbolically but not enumerated: {name}{params}")
    assert answer == z3.unsat
