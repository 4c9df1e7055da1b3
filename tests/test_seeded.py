"""The seeded search (engines/seeded.py): a variant's plays that follow the rules until their last steps.

Where the two disagree is checked against both concrete semantics; the search finds a mutant's violation past
`duelcheck mutate`'s probe, the shortest of its kind, and from the states of a play the rules make; the
several-start encoding of the first state says exactly which start a play takes. Nothing is proved here: the
shortest violation's search assumes well-formed, which `duelcheck check` proves for all depths with the rest of
the suite under these rules.
"""

from __future__ import annotations

import contextlib
import functools
import random
import time
from typing import Any

import pytest
import z3
from conftest import played_until, walk

from duelcheck.counterexamples.certify import certify
from duelcheck.engines import mutate as mu
from duelcheck.engines.bmc import Unrolling
from duelcheck.engines.seeded import disagreement
from duelcheck.model.rules import ACTION_CODE
from duelcheck.model.state import PARAMS, State
from duelcheck.model.system import TransitionSystem
from duelcheck.properties import BY_NAME, PROPERTIES
from duelcheck.rules import Rules

INVARIANTS = [p for p in PROPERTIES if p.kind == "always"]


@functools.cache
def _states() -> list[State]:
    """Every eighth state of a few plays of the simulator's lively players (Summons, attacks, damage
    calculations, chains on the way), under the official rules; made once for every test of the module."""
    from duelcheck.engines.sim import CALM_LEVELS, Simulator

    ts = TransitionSystem(Rules())
    out = []
    for seed in (2, 5, 11):
        sim = Simulator(ts, seed=seed)
        sim.calm = CALM_LEVELS[seed % len(CALM_LEVELS)]
        rng = random.Random(seed)
        s = ts.init()
        for i in range(160):
            step = sim.choose(s, rng)
            if step is None:
                break
            s = step.state
            if i % 8 == 0:
                out.append(s)
    return out


def _val(var: Any, v: Any) -> Any:
    return z3.BoolVal(bool(v)) if z3.is_bool(var) else z3.BitVecVal(int(v), var.size())


def _differ(out_a: Any, out_b: Any, a: TransitionSystem) -> bool:
    """The concrete interpreter's two outcomes of one action instance differ: allowed by one only, or not the
    same game state."""
    if out_a.ok != out_b.ok:
        return True
    if not out_a.ok:
        return False
    return any(out_a.state.v[k] != out_b.state.v[k] for k in a.game_keys)


@pytest.mark.parametrize(
    "mutant_id",
    [
        "drop:pass:3",
        "drop:normal_summon:0",
        "compare:damage_calculation:1",
        "compare:normal_draw:0",
        "write:normal_draw:3",
    ],
)
def test_the_disagreement_is_where_the_mutant_steps_otherwise_in_both_semantics(mutant_id: str) -> None:
    """For states the rules reach and every action instance there: the formula "the rules and the mutant
    disagree here", evaluated at the state, is true exactly when the concrete interpreter under the mutant
    refuses what the rules allow, allows what they refuse, or makes another state. An action not named never
    disagrees."""
    m = mu.mutant_by_id(mutant_id)
    a, b = TransitionSystem(Rules()), TransitionSystem(Rules())
    dis = disagreement(a, b, lambda: mu.activated(m))
    assert dis.actions, "the mutant changes some step"
    seen = {True: 0, False: 0}
    for s in _states():
        solver = z3.Solver()  # the state's values as a model: the disagreement is evaluated in it
        solver.add(*(dis.pre.v[k] == _val(dis.pre.v[k], s.v[k]) for k in a.keys))
        instances = [(act.name, p) for act in a.actions for p in list(act.candidates(s))[:8]]
        with mu.activated(m):  # once per state: a comparison mutant's activation compiles the rules again
            instances += [(act.name, p) for act in a.actions for p in list(act.candidates(s))[:8]]
            under_b = [b.apply(s, name, params) for name, params in instances]
        for (name, params), out_b in zip(instances, under_b, strict=True):
            concrete = _differ(a.apply(s, name, params), out_b, a)
            code = ACTION_CODE[name]
            if code not in dis.terms:
                assert not concrete, (name, params)
                continue
            solver.push()
            for p, var in dis.pvars.items():
                solver.add(var == _val(var, params.get(p, False if PARAMS[p].sort == "bool" else 0)))
            assert solver.check() == z3.sat
            symbolic = solver.model().eval(dis.terms[code], model_completion=True)
            solver.pop()
            assert z3.is_true(symbolic) or z3.is_false(symbolic), symbolic
            assert z3.is_true(symbolic) == concrete, (name, params, concrete)
            seen[concrete] += 1
    assert seen[True] + seen[False] >= 10, seen  # not vacuous: instances of the actions that differ compared


def test_the_rules_never_disagree_with_themselves() -> None:
    a = TransitionSystem(Rules())
    dis = disagreement(a, TransitionSystem(Rules()), contextlib.nullcontext)
    assert dis.actions == [] and z3.is_false(dis.at(a.sym_step(a.sym_state("@x0"), "@x1")))


# a small field (one zone of each, two chain links): the same plays, in a fraction of the solver's time
SMALL = Rules(monster_zones=1, spell_trap_zones=1, chain_links=2)


def test_the_seeded_search_finds_the_shortest_violation_past_the_probe() -> None:
    """A pass after the duel is over (drop:pass:0) breaks nothing-after-the-duel only at step 7, past the
    probe's 5: the seeded search finds the play, each step before the last taken alike by the rules, and
    refutes every shorter one. Certified under the mutant from the start of the duel. Asked
    a short way first, as `duelcheck mutate` asks it (to 4 here), then on with those depths not asked again."""
    m = mu.mutant_by_id("drop:pass:0")
    ts = TransitionSystem(SMALL)
    # pruned by well-formed, as `duelcheck mutate` prunes by every proved invariant (`duelcheck check` proves it
    # for all depths under these rules, with the rest of the suite), on the small field
    seeded = mu.seeded_setup(SMALL, ts, m, ["well-formed"], {})
    assert mu.PROBE_DEPTH < 7
    with mu.activated(m):
        none, why, refuted = mu._seeded_kill(ts, seeded, INVARIANTS, 4, 0, "auto", None)  # the probe's depths
        assert none is None and "unreached up to 4" in why and refuted == 4
        r, _, refuted = mu._seeded_kill(ts, seeded, INVARIANTS, 7, 0, "auto", None, refuted=4)
        assert refuted == 0  # a play found refutes nothing the caller may assert
        assert r is not None and r.verdict == "violated" and r.trace is not None and r.length == 7, r
        prop = BY_NAME[r.prop]
        certify(ts, next(c for c in prop.checks if c.label == r.case), r.trace, False)
        # the last step passes (a pass, or the passes end_step and end_steps take, which run pass's body)
        assert r.trace.steps[-1].action in ("pass", "end_step", "end_steps") and "every shorter one refuted" in r.note
        # depths given as refuted are asserted so, never asked: told all seven were, the search finds nothing
        told, why, refuted = mu._seeded_kill(ts, seeded, INVARIANTS, 7, 0, "auto", None, refuted=7)
        assert told is None and "unreached up to 7" in why and refuted == 7
        # a time limit refutes nothing: the depths it left are not reported refuted
        stopped, why, refuted = mu._seeded_kill(ts, seeded, INVARIANTS, 4, 0, "auto", time.monotonic() - 1)
        assert stopped is None and "time limit" in why and refuted == 0
    a = TransitionSystem(SMALL)  # the rules as written refuse the last step
    state = r.trace.steps[-2].state
    assert not a.apply(state, r.trace.steps[-1].action, r.trace.steps[-1].params).ok
    for prev, st in zip(r.trace.steps, r.trace.steps[1:], strict=False):
        if st is not r.trace.steps[-1]:
            out = a.apply(prev.state, st.action, st.params)
            assert out.ok and out.state is not None and out.state.v == st.state.v


def test_the_far_search_starts_from_the_states_of_a_play_the_rules_make() -> None:
    """The last card's draw read as a deck-out (compare:normal_draw:0, `deck < count` as `<=`) needs a deck
    nearly drawn: no play from the start of the duel reaches it within 2 steps, while the seeded search from the
    states of the rules' random plays (10-card decks: a short duel) finds it one step on. The trace is that play
    up to its start then the search's step, certified from the start of the duel."""
    rules = Rules(deck_size=10)
    walks = mu.far_walks(rules)
    assert walks == mu.far_walks(rules)  # the same rules, the same plays
    m = mu.mutant_by_id("compare:normal_draw:0")
    ts = TransitionSystem(rules)
    seeded = mu.seeded_setup(rules, ts, m, [], walks)
    with mu.activated(m):
        near, why, _ = mu._seeded_kill(ts, seeded, INVARIANTS, 2, 0, "auto", None)
        assert near is None and "unreached up to 2" in why
        r, _, refuted = mu._seeded_kill(ts, seeded, INVARIANTS, 1, 0, "auto", None, far=True)
        assert refuted == 0  # the far search says nothing of the depths from the start of the duel
        assert r is not None and r.prop == "deck-out-loses" and r.trace is not None, r
        certify(ts, BY_NAME[r.prop].checks[0], r.trace, False)
        assert r.trace.steps[0].state.v == ts.init().v and r.trace.steps[-1].action == "normal_draw"
        before = r.trace.steps[-2].state
        assert before.g("deck", before.tp) == 1 and r.trace.steps[-1].state.g("winner") != 0
        assert "from step" in r.note and len(r.trace) > 10


@pytest.mark.slow  # an exhaustive far search: 140 s idle (the find at 7 steps 86 s, the miss at 6 steps 39 s)
def test_a_duel_ended_mid_chain_needs_the_far_search_one_step_deeper() -> None:
    """The dropped "the duel is over" guard of `resolve` (drop:resolve:0): a chain link still resolves after a
    draw from an empty deck has ended the duel mid-chain. From the states of a plain play to the Main Phase of
    a player whose deck is empty the violation is 7 steps on (a Spell, the opponent's pass, a Quick-Play Spell
    that draws, two passes, two resolutions): the far search at FAR_DEPTH (6) misses it, at FAR_LAST finds it."""
    from duelcheck.engines.kind import Induction
    from duelcheck.model.cards import Phase

    assert mu.FAR_LAST == mu.FAR_DEPTH + 1 == 7
    # the second player's first draw takes the last card: a play of 7 steps; a draw card activated with an empty
    # deck (the older reading, draw_needs_deck = false) is what ends the duel mid-chain here
    rules = Rules(deck_size=6, draw_needs_deck=False)
    ts = TransitionSystem(rules)
    play = played_until(ts, [], lambda s: s.g("deck", s.tp) == 0 and s.g("phase") == Phase.MAIN1)
    m = mu.mutant_by_id("drop:resolve:0")
    # pruned by well-formed, proved here for these rules with the suite (well-formed alone is not inductive), as
    # `duelcheck mutate` prunes by every invariant it proved: this test 141 s beside a two-worker run (92 s of
    # CPU; the proof 35 s of it), against 194 s unpruned on an idle machine
    assert "well-formed" in Induction(TransitionSystem(rules)).prove_quick(PROPERTIES)
    seeded = mu.seeded_setup(rules, ts, m, ["well-formed"], {"a plain play to an empty deck": play})
    with mu.activated(m):
        none, why, _ = mu._seeded_kill(ts, seeded, INVARIANTS, mu.FAR_DEPTH, 0, "auto", None, far=True)
        assert none is None, none
        r, _, _ = mu._seeded_kill(ts, seeded, INVARIANTS, mu.FAR_LAST, 0, "auto", None, far=True)
    assert r is not None and r.prop == "nothing-after-the-duel" and r.trace is not None, why
    with mu.activated(m):
        certify(ts, BY_NAME[r.prop].checks[0], r.trace, False)
    last = r.trace.steps[-1]
    assert last.action == "resolve" and r.trace.steps[-2].state.g("winner") != 0


def test_the_wide_search_takes_every_stride_th_state_and_the_last_in_batches_the_last_first() -> None:
    starts, how = list(range(20)), [[i] for i in range(20)]
    chunks = list(mu._windows(starts, how, 6, 2))
    assert [c[0] for c in chunks] == [[18, 19], [6, 12], [0]]
    assert all(h == [[x] for x in s] for s, h in chunks)
    assert list(mu._windows(starts, how, 1, 0)) == [(starts, how)]
    assert list(mu._windows([], [], 6, 18)) == []


@pytest.mark.slow
def test_a_replay_chosen_after_the_duel_was_won_needs_the_wide_search() -> None:
    """The dropped "the duel is over" guard of `replay_select` (drop:replay_select:0): the attacker chooses
    after the duel was won. The first player Sets a Counter Trap that Special Summons; the second player, whose
    first draw empties the deck, summons and enters the Battle Step; then 8 steps: an attack, a Quick-Play
    Spell that draws, the Trap in answer (the number of the opponent's monsters changes: a replay is due), two
    passes, both resolve (the draw from the empty deck ends the duel), and the attacker still chooses. From the
    states of that play the far search `FAR_LAST` (7) steps on finds nothing; the wide search from every
    `WIDE_STRIDE`-th state and the last finds it (on the official rules: 14 steps from step 273 of the
    deck-out play). Opt-in: without proved invariants to prune it, the far search alone takes minutes."""
    from duelcheck.model.cards import Effect, Kind, Phase

    assert mu.WIDE_DEPTH > mu.FAR_LAST and mu.WIDE_STRIDE > 1
    rules = Rules(deck_size=6)
    ts = TransitionSystem(rules)
    trap = {"kind": int(Kind.COUNTER_TRAP), "eff": int(Effect.SPECIAL_SUMMON), "cost": 0}
    setup = [("end_steps", {"choice": 0}), ("set_spell_trap", trap), ("end_steps", {"choice": 3})]
    play = played_until(ts, setup, lambda s: s.g("deck", s.tp) == 0 and s.g("phase") == Phase.MAIN1)
    play += [("normal_summon", {"atk": 10, "defv": 0, "mkind": 0, "eff": 0}), ("end_steps", {"choice": 1})]
    m = mu.mutant_by_id("drop:replay_select:0")
    seeded = mu.seeded_setup(rules, ts, m, [], {"a play to an empty deck, a Trap Set": play})
    with mu.activated(m):
        none, _, _ = mu._seeded_kill(ts, seeded, INVARIANTS, mu.FAR_LAST, 0, "auto", None, far=True)
        assert none is None, none
        r, why, _ = mu._seeded_kill(
            ts, seeded, INVARIANTS, mu.WIDE_DEPTH, 0, "auto", None, True, mu.WIDE_STRIDE, mu.WIDE_BATCH
        )
        assert r is not None and r.prop == "nothing-after-the-duel" and r.trace is not None, why
        certify(ts, BY_NAME[r.prop].checks[0], r.trace, False)
    assert r.trace.steps[-1].action == "replay_select" and r.trace.steps[-2].state.g("winner") != 0
    assert r.trace.steps[-2].state.g("phase") == Phase.BATTLE_STEP


def test_several_starts_are_stated_cell_by_cell_and_the_selector_names_the_start() -> None:
    """The first state is one of several, by a selector: with the selector at i, the first state is the i-th
    start and no other (each cell as a function of the selector)."""
    ts = TransitionSystem(Rules())
    for starts in ([walk(ts, 9, n) for n in (0, 3, 8, 15, 15, 30)], [walk(ts, 9, n) for n in (0, 3)]):
        _selects(ts, starts)


def _selects(ts: TransitionSystem, starts: list[State]) -> None:
    u = Unrolling(ts, starts)
    assert u.selector is not None
    for i, st in enumerate(starts):
        same = z3.And(
            *(u.states[0].v[k] == (bool(st.v[k]) if z3.is_bool(u.states[0].v[k]) else st.v[k]) for k in ts.keys)
        )
        solver = z3.SolverFor("QF_BV")
        solver.add(*u.constraints, u.selector == i)
        assert solver.check(z3.Not(same)) == z3.unsat, i
        assert solver.check(same) == z3.sat, i
    if len(starts) < 1 << u.selector.size():
        solver = z3.SolverFor("QF_BV")
        solver.add(*u.constraints, u.selector == len(starts))
        assert solver.check() == z3.unsat  # no start past the last
