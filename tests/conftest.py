"""Shared helpers: boards built by hand, a short way to play actions, a uniform random walk."""

from __future__ import annotations

import os
import random
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from duelcheck.model.cards import DIRECT, NO_CHOICE, TO_BATTLE, TO_END, Kind, Phase
from duelcheck.model.state import State
from duelcheck.model.system import TransitionSystem
from duelcheck.rules import Rules


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", default=False, help="run slow exhaustive checks")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def proof_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Proofs cached for this test session only: never a user's cache, never one from an earlier run. Under
    pytest-xdist the workers share one (their temporary folders' common parent is this session's), so that a
    suite one worker proved is read by the other rather than proved again; entries are written atomically."""
    old = os.environ.get("DUELCHECK_CACHE")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.getbasetemp().parent / "proof-cache"
        folder.mkdir(exist_ok=True)
    else:
        folder = tmp_path_factory.mktemp("proof-cache")
    os.environ["DUELCHECK_CACHE"] = str(folder)
    yield
    if old is None:
        os.environ.pop("DUELCHECK_CACHE", None)
    else:
        os.environ["DUELCHECK_CACHE"] = old


@pytest.fixture(scope="session")
def ts() -> TransitionSystem:
    return TransitionSystem(Rules())


def play(ts: TransitionSystem, s: State, *moves: tuple[str, dict[str, Any]] | str) -> State:
    """Apply moves in order; each must be legal."""
    for move in moves:
        name, params = (move, {}) if isinstance(move, str) else move
        out = ts.apply(s, name, params)
        assert out.ok and out.state is not None, f"{name}{params} refused: {out.reason}"
        s = out.state
    return s


def board(ts: TransitionSystem, **changes: Any) -> State:
    """The initial state with some fields changed; keys like m_atk__1__0 mean m_atk[1][0]."""
    s = ts.init()
    v = dict(s.v)
    for name, value in changes.items():
        parts = name.split("__")
        key = (parts[0], *(int(p) for p in parts[1:]))
        assert key in v, key
        v[key] = int(value) if isinstance(value, Phase) else value
    return State(s.k, s.r, s.schema, v)


def walk(ts: TransitionSystem, seed: int, length: int) -> State:
    """The state after `length` steps, each chosen uniformly among every enabled step (fewer if none is).
    A walk is a function of the rules the system runs (the mutant active, if any), the seed and the length:
    each is made once per system and kept (the interpreter's enumeration of every successor is the cost)."""
    from duelcheck.model import state as S

    hook = S.MUTATION
    key = (id(hook), seed, length)  # the hook is kept with the walk, so that its id names it while kept
    kept = _WALKS.setdefault(ts, {})
    if key not in kept:
        rng = random.Random(seed)
        s = ts.init()
        for _ in range(length):
            options = list(ts.enabled(s))  # the instances `successors` makes, in its order, without their states
            if not options:
                break
            name, params = rng.choice(options)
            out = ts.apply(s, name, params)
            assert out.ok and out.state is not None, (name, params, out.reason)
            s = out.state
        kept[key] = (hook, s)
    return kept[key][1]


_WALKS: weakref.WeakKeyDictionary[TransitionSystem, dict[tuple[int, int, int], tuple[Any, State]]] = (
    weakref.WeakKeyDictionary()
)


REPLAY_DIRECT = [  # turn 2: an attack on the only monster, destroyed in answer; the attacker re-selects directly
    ("end_steps", {"choice": NO_CHOICE}),
    ("normal_summon", {"atk": 0, "defv": 0, "mkind": 0, "eff": 0}),
    ("end_steps", {"choice": TO_END}),
    ("normal_draw", {}),
    ("end_steps", {"choice": NO_CHOICE}),
    ("normal_summon", {"atk": 0, "defv": 0, "mkind": 0, "eff": 0}),
    ("end_steps", {"choice": TO_BATTLE}),
    ("declare_attack", {"zone": 0, "tzone": 0}),
    ("activate", {"zone": 7, "kind": int(Kind.QUICK_SPELL), "eff": 1, "tplayer": 0, "tarea": 0, "tzone": 0, "cost": 1}),
    ("pass", {"choice": NO_CHOICE}),
    ("pass", {"choice": NO_CHOICE}),
    ("resolve", {"atk": 0, "defv": 0, "pos": False, "amount": 0}),
    ("replay_select", {"tzone": DIRECT}),
]


# the plainest way on through a duel: the normal draw when due, else the step ended, the Battle Phase chosen
# where it may be (it passes with no attack), the End Phase otherwise, a discard when the hand is over the limit
PLAIN_WAY_ON = [
    ("normal_draw", {}),
    ("end_step", {"choice": TO_BATTLE}),
    ("end_step", {"choice": NO_CHOICE}),
    ("end_step", {"choice": TO_END}),
    ("discard", {}),
]


def played_until(ts: TransitionSystem, moves: list[tuple[str, dict[str, Any]]], done: Any) -> list[Any]:
    """`moves` made, then the plainest way on until `done(state)`."""
    state, play = ts.init(), list(moves)
    for move, given in moves:
        out = ts.apply(state, move, given)
        assert out.ok and out.state is not None, move
        state = out.state
    while not done(state):
        move, given = next((m, g) for m, g in PLAIN_WAY_ON if ts.apply(state, m, g).ok)
        play.append((move, given))
        state = ts.apply(state, move, given).state
    return play
