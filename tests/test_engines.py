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
