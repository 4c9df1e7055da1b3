"""Engine plumbing whose failures must never turn into verdicts."""

from __future__ import annotations

import pytest

from duelcheck.engines.checker import Checker
from duelcheck.engines.sim import Simulator
from duelcheck.errors import InternalError
from duelcheck.model.system import TransitionSystem
from duelcheck.properties.catalog import Check, Property
from duelcheck.rules import Rules


def test_a_property_that_cannot_be_evaluated_in_simulation_is_an_internal_error_not_a_verdict() -> None:
    def broken(s: object) -> bool:
        if s.k.symbolic:  # the symbolic search sees an ordinary false predicate
            return False
        raise RuntimeError("a property that cannot be evaluated")

    prop = Property("broken", "sometimes", "", "", (Check("", "state", broken),))
    checker = Checker(Rules(), depth=1, prove=False, workers=1)
    with pytest.raises(InternalError, match="simulation"):
        checker.run([prop])


def test_the_simulation_is_the_same_on_every_run(ts: TransitionSystem) -> None:
    turn_2 = Check("turn-2", "state", lambda s: s.g("turn") == 2)
    a = Simulator(ts, walks=2).search([turn_2])[0]
    b = Simulator(ts, walks=2).search([turn_2])[0]
    assert [(s.action, s.params) for s in a.steps] == [(s.action, s.params) for s in b.steps]
    assert a.steps[-1].state.g("turn") == 2


def _square_or_stop(x: int) -> int:
    if x < 0:
        from duelcheck.engines.smt import Stopped

        raise Stopped("time limit")
    if x == 99:
        raise ValueError("a broken rule")
    return x * x


def test_forked_parts_answer_in_order_and_a_child_stop_or_failure_reaches_the_caller() -> None:
    from duelcheck.engines.kind import fork_map
    from duelcheck.engines.smt import Stopped

    assert fork_map(_square_or_stop, [3, 4, 5], workers=2) == [9, 16, 25] == fork_map(_square_or_stop, [3, 4, 5], 1)
    with pytest.raises(Stopped):
        fork_map(_square_or_stop, [1, -1], workers=2)  # the second runs in a child
    with pytest.raises(InternalError, match="a broken rule"):
        fork_map(_square_or_stop, [1, 99], workers=2)


def test_the_first_layer_is_dealt_into_fixed_parts_whatever_the_number_of_processes() -> None:
    """The parts (and so each incremental solver's questions) do not depend on `workers`."""
    from duelcheck.engines.kind import QUICK_PARTS, Induction
    from duelcheck.properties import PROPERTIES

    ts = TransitionSystem(Rules())
    invariants = [p for p in PROPERTIES if p.kind == "always"]
    one, two = (Induction(ts, workers=w)._parts(invariants) for w in (1, 2))
    assert [[p.name for p in part] for part in one] == [[p.name for p in part] for part in two]
    assert len(one) == QUICK_PARTS
    assert sorted(p.name for part in one for p in part) == sorted(p.name for p in invariants)


def test_a_proof_that_does_not_close_names_the_step_that_breaks_it() -> None:
    """An invariant true of every play so far but not inductive (the turn stays at most 3) is not proved, and
    the note names the action of the counterexample to induction; that action does break it from a state the
    property allows (asked again here of a fresh solver), so the note leads a researcher to the right rule."""
    import re

    import z3

    from duelcheck.engines.kind import Induction
    from duelcheck.properties.user import user_property

    ts = TransitionSystem(Rules())
    prop = user_property("turn-at-most-3", "always", "turn <= 3", ts.rules)
    induction = Induction(ts)
    assert induction.prove_suite([prop]) == set()
    note = induction.notes[prop.name]
    m = re.fullmatch(r"not inductive: a `(\w+)` step from a state every invariant of the suite allows breaks it", note)
    assert m, note
    code = next(i for i, a in enumerate(ts.actions) if a.name == m.group(1))
    st = ts.sym_step(ts.sym_state("@a"), "@b", fine=True)
    check = prop.checks[0]
    solver = z3.Solver()
    solver.add(st.relation, st.act == code, check.eval(None, None, st.pre), z3.Not(check.eval(None, None, st.post)))
    assert solver.check() == z3.sat


@pytest.mark.parametrize("fine", [False, True])
def test_every_action_code_is_a_step_of_the_relation(fine: bool) -> None:
    """Each action, the last one too, makes a step of the symbolic relation from some state: the bound on the
    action code is the last code, not the count (with 16 actions the count does not fit the code's 4 bits, and a
    bound of 16 read as 0 once made every step impossible, every invariant vacuously proved)."""
    import z3

    from duelcheck.model.rules import ACTIONS

    ts = TransitionSystem(Rules())
    st = ts.sym_step(ts.sym_state("@a"), "@b", fine=fine)
    for code, action in enumerate(ACTIONS):
        if fine and action.parts is not None:
            continue
        solver = z3.Solver()
        solver.add(st.relation, st.act == code)
        assert solver.check() == z3.sat, action.name


def test_an_invariant_its_parts_solver_left_open_is_asked_again_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first layer of the proofs shares one solver between the invariants of a part; one its resource limit
    ran out on (shown here by a solver that gives up on the last question of each part) is asked again alone on a
    fresh solver, so that the part an invariant falls in does not decide whether it is proved."""
    from duelcheck.engines import kind
    from duelcheck.properties.catalog import BY_NAME

    ts = TransitionSystem(Rules())
    # an invariant true of every state, beside one of the suite proved on its own
    turn = Property(
        "turn-is-the-turn", "always", "test", "", (Check("", "state", lambda s: s.g("turn") == s.g("turn")),)
    )
    props = [BY_NAME["first-turn-no-draw"], turn]
    asked: list[list[str]] = []
    real = kind.Induction._quick_round

    def gives_up(self: kind.Induction, part: list[Property], assume: list[object], first: bool) -> object:
        asked.append([p.name for p in part])
        failed, open_, seconds, queries, notes = real(self, part, assume, first)
        if len(part) > 1:
            open_ = open_ | {part[-1].name}
        return failed, open_, seconds, queries, notes

    monkeypatch.setattr(kind, "QUICK_PARTS", 1)
    monkeypatch.setattr(kind.Induction, "_quick_round", gives_up)
    proved, left = kind.Induction(ts, workers=1)._quick_layer(props, [])
    assert asked[:2] == [["first-turn-no-draw", "turn-is-the-turn"], ["turn-is-the-turn"]]
    assert proved == {"first-turn-no-draw", "turn-is-the-turn"} and not left


@pytest.mark.parametrize("solver", ["z3", "yices"])
def test_a_session_gives_a_value_for_a_constant_no_assertion_names(solver: str) -> None:
    """A parameter no rule reads (the hand-limit discard's 'discarded by a card effect' monster, say) is never
    named by an assertion; a session asked its value still answers, with the model's (any) value."""
    import z3

    from duelcheck.engines.smt import SAT, open_session, yices_path

    if solver == "yices" and yices_path() is None:
        pytest.skip("yices-smt2 is not installed")
    x, unused = z3.BitVec("x", 4), z3.BitVec("unused", 4)
    session = open_session(solver)
    try:
        session.add(x == 3)
        answer, values = session.check(x > 2, [x, unused])
        assert answer == SAT and values["x"] == 3 and "unused" in values
        assert session.check(x == 3, [x])[0] == SAT  # the session goes on after it
    finally:
        session.close()
