"""The goal-directed deep search (engines/goal.py): the solver's goal is a few cells that imply the violation,
and the concrete search reaches a goal turns deep, the same play on every run."""

from __future__ import annotations

import functools
from typing import Any

import z3

from duelcheck.engines import mutate as mu
from duelcheck.engines.bmc import Unrolling, replay_moves
from duelcheck.engines.goal import GoalQuestions, Measure, Target, _split, lemma_facts, search_towards
from duelcheck.engines.seeded import disagreement
from duelcheck.model.system import TransitionSystem
from duelcheck.properties import PROPERTIES
from duelcheck.rules import Rules

INVARIANTS = [p for p in PROPERTIES if p.kind == "always"]
# the lemmas: every invariant, as `duelcheck check` proves them for all depths under the official rules (not
# proved again here)
LEMMAS = [p.name for p in INVARIANTS]
# the first player's second Monster Zone filled: two Summons at least, on turns 1 and 3
SECOND_ZONE = Target(((("m_occ", 0, 1), True),), (), "well-formed", "")


def test_the_measure_counts_the_goal_s_cells_then_their_siblings() -> None:
    ts = TransitionSystem(Rules())
    s = ts.init()
    m = Measure(ts.keys, ((("m_occ", 0, 2), True), (("lp", 1), 0)))
    # the zone empty (1) and LP 8000 away from 0 (80 in the model's units of 100); the zone's 4 siblings empty
    assert m(s) == (1 + 80, 4)
    s.v[("m_occ", 0, 0)] = True
    assert m(s) == (1 + 80, 3)
    s.v[("m_occ", 0, 2)] = True
    assert m(s) == (80, 0)  # siblings count only while the cell itself is off


def test_the_search_reaches_a_goal_turns_deep_and_finds_the_same_play_every_time() -> None:
    ts = TransitionSystem(Rules())
    status, trace, near = search_towards(ts, SECOND_ZONE, lambda t: True, budget=3000)
    assert status == "reached" and trace is not None and not near
    last = trace.steps[-1].state
    assert last.g("m_occ", 0, 1) and last.g("turn") >= 3
    # the play is the concrete interpreter's from the start of the duel
    again = replay_moves(ts, None, [(st.action, dict(st.params)) for st in trace.steps[1:]])
    assert [st.state.v for st in again.steps] == [st.state.v for st in trace.steps]
    # deterministic: a budget counted in steps, a seeded player
    _, second, _ = search_towards(TransitionSystem(Rules()), SECOND_ZONE, lambda t: True, budget=3000)
    assert second is not None
    assert [(st.action, st.params) for st in second.steps] == [(st.action, st.params) for st in trace.steps]


def test_a_goal_out_of_reach_of_the_budget_gives_the_plays_nearest_it() -> None:
    ts = TransitionSystem(Rules())
    status, trace, near = search_towards(ts, SECOND_ZONE, lambda t: True, budget=120)
    assert status == "unreached" and trace is None and near
    m = Measure(ts.keys, SECOND_ZONE.cells)
    best = min(m(p[-1].state) for p in near)
    assert best < m(ts.init())
    assert m(near[0][-1].state) == best


def test_a_goal_refused_by_accept_is_not_reached() -> None:
    ts = TransitionSystem(Rules())
    status, trace, _ = search_towards(ts, SECOND_ZONE, lambda t: False, budget=200)
    assert status == "unreached" and trace is None


def _setting(mutant_id: str) -> tuple[mu.Mutant, TransitionSystem, Any, TransitionSystem, Any]:
    """A mutant of the official rules, the rules' system and their lemmas (made with no mutant in force), the
    mutant's system and where it disagrees with the rules."""
    rules = Rules()
    mutant = mu.mutant_by_id(mutant_id, rules)
    a = TransitionSystem(rules)
    facts = lemma_facts(a, mu.lemma_checks(LEMMAS))
    facts(a.sym_state("@made"))
    b = TransitionSystem(rules)
    return mutant, a, facts, b, disagreement(a, b, lambda: mu.activated(mutant))


@functools.cache
def _replay_select_goal() -> Target:
    """The solver's first goal for the comparison mutant that lets a replay's new target be zone 5 of 5 (it
    reads as the fifth zone in the symbolic semantics and as no zone in the concrete one)."""
    mutant, _, facts, b, dis = _setting("compare:replay_select:3")
    with mu.activated(mutant):
        goals = GoalQuestions(b, facts, INVARIANTS).targets(1, dis.actions, 1)
    assert len(goals) == 1
    return goals[0]


def test_the_solver_s_goal_is_a_few_cells_that_imply_the_violation() -> None:
    goal = _replay_select_goal()
    assert goal.moves[0][0] == "replay_select" and dict(goal.moves[0][1])["tzone"] == 5
    cells = dict(goal.cells)
    assert len(cells) <= 16
    assert cells.get(("replay",)) is True  # a replay is due
    # which minimal set of cells the solver returns depends on what the process asked it before (the fifth
    # zone in use is one; a whole-suite run has returned another): each is checked below to imply the
    # violation, and to stop implying it with any one cell left out
    # the cells imply the violation: with one of them left out it is no longer implied (made minimal)
    rules = Rules()
    mutant = mu.mutant_by_id("compare:replay_select:3", rules)
    b = TransitionSystem(rules)
    lemmas = lemma_facts(TransitionSystem(rules), mu.lemma_checks(LEMMAS))
    lemmas(b.sym_state("@made"))  # made with no mutant in force: the no-deadlock lemma runs rule bodies
    with mu.activated(mutant):
        s0 = b.sym_state("@t0")
        st = b.sym_step(s0, "@t1")
        q = GoalQuestions(b, lambda s: z3.BoolVal(True), INVARIANTS)
        bad = z3.Or(*(t for g, t in q._violations(st) if g.prop.name == goal.prop and g.check.label == goal.case))
        name, params = goal.moves[0]
        fixed = [st.act == [a.name for a in b.actions].index(name)]
        given = dict(params)  # the parameters the action takes; the others are zero in every step
        fixed += [var == given.get(p, z3.BoolVal(False) if z3.is_bool(var) else 0) for p, var in st.params.items()]

        frame, legal = _split(st.relation, st.post, b.keys)

        def implied(cells: list[tuple[object, object]]) -> bool:
            """The step is legal and breaks the invariant in every state meeting the lemmas and these cells."""
            solver = z3.Solver()
            solver.add(lemmas(s0), *frame, *fixed, z3.Not(z3.And(*legal, bad)))
            solver.add(*(s0.v[k] == v for k, v in cells))
            return bool(solver.check() == z3.unsat)

        assert implied(list(goal.cells))
        for i in range(len(goal.cells)):
            assert not implied([c for j, c in enumerate(goal.cells) if j != i])


def test_the_rules_lemmas_are_made_with_no_mutant_in_force() -> None:
    """no-deadlock reads whether the progress actions are enabled by running their bodies, mutation hook
    included: the lemmas of the rules as written, asserted in the seeded and goal-directed searches, are made
    before the mutant is put in force, whatever the search asks first."""
    rules = Rules()
    mutant = mu.mutant_by_id("negate:normal_draw:0", rules)
    assert mu.read_by_properties(mutant)
    lemmas = ["no-deadlock"]
    clean = TransitionSystem(rules)
    s = clean.sym_state("@probe")
    wanted = lemma_facts(clean, mu.lemma_checks(lemmas))(s)
    # the same lemma made under the mutant says something else (so this test can tell the two apart)
    other = TransitionSystem(rules)
    with mu.activated(mutant):
        wrong = lemma_facts(other, mu.lemma_checks(lemmas))(s)
    assert z3.Solver().check(wanted != wrong) == z3.sat
    mu._rules_side.cache_clear()
    b = TransitionSystem(rules)
    seeded = mu.seeded_setup(rules, b, mutant, lemmas, {})
    assert seeded.facts is not None
    with mu.activated(mutant):
        made = seeded.facts(s)
        again = Unrolling(seeded.rules_ts, None, seeded.lemmas).facts(s)  # the seeded search's own reading
    assert z3.Solver().check(wanted != made) == z3.unsat
    assert z3.Solver().check(wanted != again) == z3.unsat


def test_a_goal_asked_near_reference_states_is_the_nearest_and_searched_from_there() -> None:
    """A second Normal Summon in a turn (its limit dropped): asked near the start of the duel and near the
    state after the turn's first Normal Summon and the two passes of the response window it opened (6.3), the
    goal is found near the second, met there already, and the search begins at that state's play and ends one
    step on."""
    from conftest import REPLAY_DIRECT

    from duelcheck.engines.base import Result
    from duelcheck.engines.sim import replay_prefix

    mutant, a, facts, b, dis = _setting("drop:normal_summon:11")
    window = [("pass", {"choice": 0}), ("pass", {"choice": 0})]  # 6.3: the summon's window, passed by both
    summoned = replay_prefix(a, [*REPLAY_DIRECT[:2], *window])
    assert summoned[-3].action == "normal_summon"
    refs = [summoned[:1], summoned]
    with mu.activated(mutant):
        goals = GoalQuestions(b, facts, INVARIANTS).targets(1, dis.actions, 1, refs=[p[-1].state for p in refs])
        assert len(goals) == 1
        goal = goals[0]
        assert goal.ref == 1 and goal.moves[0][0] == "normal_summon"
        assert Measure(b.keys, goal.cells)(summoned[-1].state)[0] == 0

        def accept(t: object) -> bool:
            return mu._certified(b, Result(goal.prop, goal.case, "always", "violated", 0, 0.0, "goal", t))

        status, trace, _ = search_towards(b, goal, accept, budget=50, start=refs[goal.ref])
    assert status == "reached" and trace is not None
    assert [st.state.v for st in trace.steps[: len(summoned)]] == [st.state.v for st in summoned]
    assert len(trace) == len(summoned) and trace.steps[-1].action == "normal_summon"


def test_the_goal_stage_stopped_by_the_time_limit_leaves_the_mutant_unknown() -> None:
    """A time limit never turns into "nothing found": the goal stage says it was stopped, and `kill` reports
    the mutant unknown rather than survived."""
    import time

    from duelcheck.engines.goal import goal_search

    mutant, a, facts, b, dis = _setting("compare:replay_select:3")
    with mu.activated(mutant):
        got = goal_search(b, GoalQuestions(b, facts, INVARIANTS), lambda p, c, t: True, dis.actions, time.monotonic())
    assert got.status == "unknown" and got.trace is None
    seeded = mu.Seeded(a, dis, mu.lemma_checks(LEMMAS), set(LEMMAS), {}, facts)
    with mu.activated(mutant):
        assert mu._goal_kill(b, seeded, INVARIANTS, "auto", time.monotonic()) == "stopped"
