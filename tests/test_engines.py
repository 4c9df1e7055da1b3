"""Engine plumbing whose failures must never turn into verdicts."""

from __future__ import annotations

import pytest

from duelcheck.engines.sim import Background
from duelcheck.errors import InternalError
from duelcheck.model.system import TransitionSystem
from duelcheck.properties.catalog import Check


def test_a_crashed_simulation_is_an_internal_error_not_a_witness_not_found(ts: TransitionSystem) -> None:
    def broken(s: object) -> bool:
        raise RuntimeError("a property that cannot be evaluated")

    sim = Background(ts, [Check("broken", "state", broken)], budget_s=5.0)
    if sim.proc is None:
        pytest.skip("no fork on this platform: the search runs in-process and raises directly")
    with pytest.raises(InternalError, match="simulation process failed"):
        sim.result([0])


def test_a_simulated_witness_comes_back_as_a_replayed_trace(ts: TransitionSystem) -> None:
    turn_2 = Check("turn-2", "state", lambda s: s.g("turn") == 2)
    found = Background(ts, [turn_2], budget_s=10.0).result([0])
    assert 0 in found and found[0].steps[-1].state.g("turn") == 2
