"""The concrete interpreter and the Z3 transition relation are one semantics (hypothesis)."""

from __future__ import annotations

from typing import Any

import pytest
import z3
from conftest import walk
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
    s = walk(TS, seed, length)
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
    s = walk(TS, seed, length)
    known = [z3.And(*action_is(step)) for step in TS.successors(s)]
    solver = z3.SolverFor("QF_BV")
    solver.add(STEP.relation, *SEARCH, *pinned(s), z3.Not(z3.Or(*known)) if known else z3.BoolVal(True))
    answer = solver.check()
    if answer == z3.sat:
        name, params = TS.sym_params(STEP, solver.model())
        raise AssertionError(f"enabled symbolically but not enumerated: {name}{params}")
    assert answer == z3.unsat


# -- the same under every preset (Rush Duel's draw-until and missing phases included) --------------------

_SYSTEMS: dict[str, tuple[TransitionSystem, State, SymStep]] = {}


def _system(name: str) -> tuple[TransitionSystem, State, SymStep]:
    from duelcheck.rules import load_rules

    if name not in _SYSTEMS:
        ts = TransitionSystem(load_rules(name))
        pre = ts.sym_state("@p")
        _SYSTEMS[name] = (ts, pre, ts.sym_step(pre, "@p1"))
    return _SYSTEMS[name]


@settings(max_examples=16, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    preset=st.sampled_from(["goat", "master-rule-2", "rush", "speed"]),
    seed=st.integers(0, 10_000),
    length=st.integers(0, 60),
    pick=st.integers(0, 10_000),
)
def test_the_two_semantics_agree_under_every_preset(preset: str, seed: int, length: int, pick: int) -> None:
    ts, pre, step_ = _system(preset)
    s = walk(ts, seed, length)
    options = list(ts.successors(s))
    if not options:
        return
    step = options[pick % len(options)]
    solver = z3.SolverFor("QF_BV")
    solver.add(step_.relation, *(pre.v[k] == s.v[k] for k in ts.keys))
    solver.add(step_.act == ACTION_CODE[step.action])
    for name, spec in PARAMS.items():
        solver.add(step_.params[name] == step.params.get(name, False if spec.sort == "bool" else 0))
    same = z3.And(*(step_.post.v[k] == step.state.v[k] for k in ts.keys))
    assert solver.check(same) == z3.sat, f"{preset}: the concrete successor is not in the relation"
    assert solver.check(z3.Not(same)) == z3.unsat, f"{preset}: the relation allows another successor"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), length=st.integers(0, 60), zone=st.integers(0, 15), link=st.integers(-3, 12))
def test_a_read_past_the_last_cell_agrees_in_both_semantics(seed: int, length: int, zone: int, link: int) -> None:
    """A look-up past the last cell (hidden by a false guard under the rules; a mutant that drops a range bound
    exposes it) reads the last cell, concretely and in the solver's terms at a symbolic index alike."""
    walked = walk(TS, seed, length)
    # the last cells made non-zero, so that reading "nothing" past them would show
    cells = {**walked.v, ("m_occ", 1, 4): True, ("c_kind", TS.rules.chain_links - 1): 8}
    s = State(walked.k, walked.r, walked.schema, cells)
    i = z3.BitVec("i@past", 5)
    for name, idx, last in (("m_occ", (1, zone), (1, 4)), ("c_kind", (link,), (TS.rules.chain_links - 1,))):
        concrete = s.g(name, *idx)
        inside = all(0 <= x < d for x, d in zip(idx, TS.schema[name].dims, strict=True))
        assert concrete == s.g(name, *(idx if inside else last))
        solver = z3.Solver()
        solver.add(*pinned(s), i == idx[-1] % 32, PRE.g(name, *idx[:-1], i) != concrete)
        assert solver.check() == z3.unsat, (name, idx)


def _every_instance(ts: TransitionSystem, s: State) -> list[tuple[str, dict[str, int]]]:
    """Every candidate of every action tried, no shortcut: the enabled instances by brute force."""
    return [(act.name, dict(p)) for act in ts.actions for p in act.candidates(s) if ts.apply(s, act.name, dict(p)).ok]


def _corpus_states() -> list[State]:
    """The boards of the scenario corpus (battles, replays, chains, the hand limit) and every state their
    legal actions reach, under the official rules."""
    import json
    from pathlib import Path

    from duelcheck.conformance import step_entry
    from duelcheck.log import board_state, is_log, log_rules, parse

    out = []
    for path in sorted((Path(__file__).parent / "scenarios").rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if not is_log(data):
            continue
        log = parse(data, str(path))
        if log_rules(log, str(path)) != Rules():
            continue
        state = board_state(TS, log.board, str(path))
        out.append(state)
        for i, entry in enumerate(log.actions, 1):
            after, reason, _ = step_entry(TS, state, entry, i, str(path))
            if reason is not None or after is state:
                break
            state = after
            out.append(state)
    return out


def test_skipping_an_action_refused_before_its_parameters_are_read_loses_no_instance() -> None:
    """`successors` and `enabled` skip an action whose body refuses it before reading a parameter; they list
    exactly the instances that trying every candidate finds, in the same order, under the rules and under a
    mutant that drops the priority guard of activations (the mutation hook runs in the skipped body too)."""
    import contextlib

    from duelcheck.engines import mutate as mu

    corpus = _corpus_states()
    wanted = ("declare_attack", "replay_select", "activate", "resolve", "normal_summon")
    states = corpus[::18]  # every eighteenth, and the first state where each wanted action is enabled:
    for name in wanted:  # battles, a replay, chains and a summon are always among them, whatever the corpus holds
        first = next((s for s in corpus if any(n == name for n, _ in TS.enabled(s))), None)
        if first is not None and first not in states:
            states.append(first)
    seen: set[str] = set()
    for mutant in (None, "drop:activate:1"):
        with mu.activated(mu.mutant_by_id(mutant)) if mutant else contextlib.nullcontext():
            ts = TransitionSystem(Rules())
            for s in states:
                brute = _every_instance(ts, s)
                steps = list(ts.successors(s))
                assert [(st.action, st.params) for st in steps] == brute
                assert list(ts.enabled(s)) == brute
                seen |= {name for name, _ in brute}
    assert set(wanted) <= seen, seen


def test_a_relation_is_built_once_for_the_same_rule_bodies_and_again_for_others() -> None:
    """A second system of the same rules reuses the relation this process built; other rules, a rule body
    swapped for another (a hand-made bug) or a guard dropped by a patched builder make their own; under a
    mutation hook (which counts as bodies run) it is built each time; the one asked for last is kept longest."""
    from duelcheck.engines.mutate import activated, mutant_by_id, mutated
    from duelcheck.engines.mutate.semantic import battle_phase_effect_lasts_the_turn
    from duelcheck.model.state import Builder

    again = TransitionSystem(Rules())._built(False)
    for limit in (4, 5, 6):  # three others built since: the official rules' relation is the oldest kept
        TransitionSystem(Rules(hand_limit=limit))._built(False)
    assert again is TransitionSystem(Rules())._built(False)  # asked for again: now the last to go
    assert TransitionSystem(Rules(hand_limit=3))._built(False) is not again
    with mutated("end_lasting", battle_phase_effect_lasts_the_turn):
        swapped = TransitionSystem(Rules())._built(False)
        assert swapped is not again
    original = Builder.require
    Builder.require = lambda self, cond, why: None  # type: ignore[method-assign, assignment]
    try:
        assert TransitionSystem(Rules())._built(False) is not again
    finally:
        Builder.require = original  # type: ignore[method-assign]
    with activated(mutant_by_id("drop:normal_draw:3")):
        ts = TransitionSystem(Rules())
        assert ts._made_from(False) is None and ts._built(False) is not again
    assert TransitionSystem(Rules())._built(False) is again  # the rules as written again


@pytest.mark.parametrize("mutant_id", ["negate:activate:20", "drop:pass:13", "write:normal_draw:3", "swap:resolve:5"])
def test_a_mutants_relation_from_the_kept_terms_of_its_unchanged_actions_is_the_one_built_whole(
    mutant_id: str,
) -> None:
    """Under a guard or a write mutant, the relation is built from the terms kept from the rules as written for
    every action whose run does not run the mutated one, and the bodies that do are run again: the relation is
    the one every body run afresh makes (the same transitions), and only those bodies ran."""
    from duelcheck.engines.mutate import actions_of, activated, mutant_by_id
    from duelcheck.model import state as state_module
    from duelcheck.model import system as system_module

    mutant = mutant_by_id(mutant_id)
    system_module._TEMPLATES.clear()  # built, not copied: whatever this process built before
    TransitionSystem(Rules())._built(False)  # the rules as written: each action's terms kept
    ran: list[str] = []
    original = state_module.action_body

    def counted(action: str) -> Any:
        ran.append(action)
        return original(action)

    with activated(mutant):
        system_module.action_body = counted  # type: ignore[assignment]
        try:
            kept = TransitionSystem(Rules()).sym_step(TS.sym_state("@k0"), "@k1")
        finally:
            system_module.action_body = original
        saved = dict(system_module._BODY_TERMS)
        system_module._BODY_TERMS.clear()
        try:
            whole = TransitionSystem(Rules()).sym_step(TS.sym_state("@k0"), "@k1")
        finally:
            system_module._BODY_TERMS.update(saved)
    solver = z3.SolverFor("QF_BV")
    solver.add(z3.Xor(kept.relation, whole.relation))
    assert solver.check() == z3.unsat
    assert set(ran) == set(actions_of(mutant)) & {a.name for a in TS.actions}, ran


def test_a_function_closing_over_a_name_not_bound_yet_is_read_without_failing() -> None:
    """What a counter's advance is made from, read while a name it closes over is not bound yet: the cell
    itself stands for it (only that closure matches), not an error."""
    from duelcheck.model.system import _code

    def outer() -> tuple[object, ...]:
        def advance() -> object:
            return later

        made = _code(advance)
        later = 1
        assert later == advance()
        return made

    made = outer()
    assert made[0] is not None and len(made) == 2
