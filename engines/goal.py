"""Goal-directed deep search: a violation that needs a deep setting-up, found by first asking the solver what the
setting-up is, then searching the plays concretely towards it.

A bounded search from the start of the duel reaches about one turn; a play that fills the opponent's fifth
Monster Zone, or draws a deck out, is hundreds of steps long. Random plays reach such states only by luck. This
engine turns the question round, in three parts:

1. the goal, asked of the solver: a state `s0` where every invariant proved for all depths under the rules as
   written holds (the lemmas: every state the rules reach is one), and a short tail of the variant's steps from
   `s0` (`tail` steps) that ends in a violated invariant. The solver's model is one such state, one value per
   cell: far more than the violation needs. Given reference states (states some play reaches), the model is
   asked near each: equal to the reference in every cell, the cells of each refutation's unsat core let go
   until the solver answers; the references it answers nearest give the goals, and the search begins there;
2. the few cells that matter: the model's cells as assumptions, the tail's moves fixed, and the question "the
   tail is legal and violates the invariant" negated, with the lemmas. The assumptions the refutation uses (its
   unsat core, then made minimal one cell at a time) are a goal of a few cells ("the opponent's fifth Monster
   Zone holds a monster, a replay is due, the attacker's turn") that, with the lemmas, implies the violation.
   Another goal is asked with this one excluded, up to `GOALS` goals;
3. the play, searched concretely (`search_towards`): walks of the variant's plays from the start of the duel
   or the reference state (its concrete interpreter), from an archive of the states found, one per distance
   to the goal (how many of the goal's cells a state misses, a number cell counting its distance, then the
   empty siblings of a zone wanted), turn player and phase; each round walks on from the nearest state
   explored least. Each state that meets the goal has the tail's moves replayed from it; a play that violates
   an invariant there is the answer. A goal no walk reaches leaves the plays to the states nearest it, for a
   short symbolic search from there (the caller's).

Every answer is certified (the play replayed from the start by the concrete interpreter, its check evaluated
there) by the caller. The search is bounded by a number of steps walked (`budget`), not by time, and its order
is fixed (a seeded player, ties between archived states broken by their cells): the same rules and variant give
the same play on any machine; only a time limit the user sets stops it sooner (then it says so, never "not
found"). The solver's questions run under a resource limit, not a time limit, for the same reason. A goal no
play reaches within the budget says nothing: the lemmas over-approximate what the rules reach.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import z3

from duelcheck.engines.base import Trace
from duelcheck.engines.bmc import Goal, Unrolling
from duelcheck.engines.limits import check_interrupt
from duelcheck.engines.seeded import goal_template
from duelcheck.model.state import PARAMS, Key, State
from duelcheck.model.system import Step, TransitionSystem
from duelcheck.properties.catalog import Check, Property

GOALS = 3  # goals asked of the solver for each tail length
TAILS = (1, 2)  # the tail's lengths, in steps of the variant from the goal state
BUDGET = 3000  # steps the concrete search walks for one goal (measured: 30 to 80 s on a shared 2-core machine)
WALK = 40  # steps of one walk from an archived state
GOAL_SEED = 17
CLOSE_TRIES = 12  # refutations let go of before a reference state is left
REF_TRIES = 5  # reference states asked for each action and turn player
QUESTIONS = 60  # questions asked near reference states in all (a mutant of three actions asked 360 otherwise)
REFUSALS = 10  # states meeting a goal whose tail is refused or not certified before the goal is left
NEAR = 6  # the plays to the states nearest a goal no walk reached, kept for a short symbolic search from there
RLIMIT = 20_000_000  # the solver's resource limit for one question (deterministic, unlike a time limit)


@dataclass(frozen=True)
class Target:
    """A goal: cells of the state and their values (the rest free), and the tail's moves from there."""

    cells: tuple[tuple[Key, int | bool], ...]
    moves: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]
    prop: str
    case: str
    ref: int = -1  # the reference state the goal was found nearest (an index into the caller's), if any

    def text(self) -> str:
        shown = ", ".join(f"{'.'.join(str(x) for x in key)}={int(v)}" for key, v in self.cells)
        return f"{{{shown}}} then {', '.join(name for name, _ in self.moves)}"


@dataclass
class GoalReach:
    """What the goal-directed search says: the play (`trace`, violating `prop`'s check `case` at its last step),
    or none with why (`note`); `status` is reached, unreached (every goal's budget spent) or unknown (the time
    limit)."""

    status: str
    trace: Trace | None = None
    prop: str = ""
    case: str = ""
    note: str = ""
    goals: list[Target] = field(default_factory=list)


def _value(model: Any, term: Any) -> int | bool:
    v = model.eval(term, model_completion=True)
    if z3.is_bool(v):
        return bool(z3.is_true(v))
    return int(v.as_signed_long()) if v.size() > 1 else int(v.as_long())


def _value_of(v: Any, term: Any) -> int | bool:
    """A concrete cell's value as the solver's model gives it (a flag may be held as 0 or 1)."""
    return bool(v) if z3.is_bool(term) else int(v)


def _lit(term: Any, value: int | bool) -> Any:
    return term == (z3.BoolVal(bool(value)) if z3.is_bool(term) else z3.BitVecVal(value, term.size()))


def _split(relation: Any, post: State, keys: list[Key]) -> tuple[list[Any], list[Any]]:
    """A step's relation (system.py `_build_step`: the choice, the domains, then one equation per cell of the
    post-state) as its frame (the equations, which fix the post-state from the pre-state and the move) and the
    rest (what makes the move legal)."""
    posts = {post.v[key].get_id() for key in keys}
    frame, legal = [], []
    for c in relation.children() if z3.is_and(relation) else [relation]:
        if z3.is_eq(c) and c.arg(0).get_id() in posts:
            frame.append(c)
        else:
            legal.append(c)
    return frame, legal


class GoalQuestions:
    """The solver's side: goals for a variant B of rules A whose lemmas are known."""

    def __init__(self, b: TransitionSystem, lemma_facts: Callable[[State], Any], props: list[Property]):
        self.b = b
        self.lemma_facts = lemma_facts
        self.goals = [Goal(p, c) for p in props for c in p.checks if p.kind == "always"]
        self.asked = 0  # the questions asked near reference states, over every call (at most QUESTIONS)

    def _violations(self, st: Any) -> list[tuple[Goal, Any]]:
        """Each invariant's violation at step `st`, where it can be violated: the seeded search's terms, made once
        per system over a template step (engines/seeded.py `goal_template`) and copied here by substitution."""
        template, terms = goal_template(self.b, self.goals)
        pairs = [(template.pre.v[key], st.pre.v[key]) for key in self.b.keys]
        pairs += [(template.post.v[key], st.post.v[key]) for key in self.b.keys]
        pairs += [(template.act, st.act)] + [(template.params[name], st.params[name]) for name in PARAMS]
        return [(g, z3.substitute(t, *pairs)) for g, t in zip(self.goals, terms, strict=True) if t is not None]

    def targets(
        self,
        tail: int,
        first: list[str],
        count: int = GOALS,
        deadline: float | None = None,
        refs: list[State] | None = None,
    ) -> list[Target]:
        """Up to `count` goals for tails of `tail` steps whose first step is one of the actions `first` (where the
        variant differs from the rules: a step elsewhere keeps every lemma), asked one action and turn player at
        a time (measured: the whole question at once gave no answer in 200 s, each case answers in a tenth of a
        second), each goal excluded before the next is asked. With `refs` (states some play reaches), the goals
        nearest them come first: the solver's state is asked to agree with a reference state in every cell, the
        cells of each refutation's core let go until it answers, and the references whose answer differs in the
        fewest cells give the goals (`Target.ref`: a search towards it may start there)."""
        b = self.b
        s0 = b.sym_state("@goal0")
        steps = []
        pre = s0
        for i in range(1, tail + 1):
            st = b.sym_step(pre, f"@goal{i}")
            steps.append(st)
            pre = st.post
        violations = self._violations(steps[-1])
        if not violations:
            return []
        facts = self.lemma_facts(s0)
        frames, legals = [], []
        for st in steps:
            fr, lg = _split(st.relation, st.post, b.keys)
            frames += fr
            legals += lg
        which = [z3.Bool(f"goal-violates#{i}") for i in range(len(violations))]
        codes = {a.name: code for code, a in enumerate(b.actions)}
        out: list[Target] = []
        for name in first:
            for player in (0, 1):
                find = z3.Solver()
                find.set("rlimit", RLIMIT)
                find.add(facts, *frames, *legals, steps[0].act == codes[name], s0.tp == player)
                find.add(*(w == t for w, (_, t) in zip(which, violations, strict=True)))
                find.add(z3.Or(*which))
                near = []
                mine = [i for i, ref in enumerate(refs or []) if ref.tp == player]
                # at most REF_TRIES of them, spread over the list (each costs up to CLOSE_TRIES questions)
                picked = sorted({mine[j * len(mine) // REF_TRIES] for j in range(REF_TRIES)}) if mine else []
                for i in picked:
                    if deadline is not None and time.monotonic() > deadline:
                        break
                    if self.asked >= QUESTIONS:
                        break
                    assert refs is not None
                    got = self._close_to(find, s0, refs[i])
                    if got is not None:
                        near.append((got[0], i, got[1]))
                for _, i, m in sorted(near, key=lambda x: (x[0], x[1]))[: max(0, count - len(out))]:
                    target = self._target(s0, m, steps, facts, frames, legals, which, violations, i)
                    if target is not None:
                        out.append(target)
                while len(out) < count:
                    check_interrupt()
                    if deadline is not None and time.monotonic() > deadline:
                        return out
                    if find.check() != z3.sat:
                        break
                    target = self._target(s0, find.model(), steps, facts, frames, legals, which, violations, -1)
                    if target is None:
                        break
                    out.append(target)
                    find.add(z3.Not(z3.And(*(_lit(s0.v[key], v) for key, v in target.cells))))
        return out

    def _close_to(self, find: Any, s0: State, ref: State) -> tuple[int, Any] | None:
        """The solver's state as near `ref` as the cores let it be: (the cells it changes, the model) or None."""
        keys = list(self.b.keys)
        marks = {key: z3.Bool(f"goal-ref#{i}") for i, key in enumerate(keys)}
        by_mark = {marks[key].get_id(): key for key in keys}
        find.push()
        try:
            find.add(*(z3.Implies(marks[key], _lit(s0.v[key], ref.v[key])) for key in keys))
            live = set(keys)
            for _ in range(CLOSE_TRIES):
                check_interrupt()
                self.asked += 1
                answer = find.check(*(marks[key] for key in keys if key in live))
                if answer == z3.sat:
                    m = find.model()
                    changed = sum(int(_value(m, s0.v[key]) != _value_of(ref.v[key], s0.v[key])) for key in keys)
                    return changed, m
                if answer != z3.unsat:
                    return None
                core = {by_mark[c.get_id()] for c in find.unsat_core() if c.get_id() in by_mark}
                if not core:
                    return None
                live -= core
            return None
        finally:
            find.pop()

    def _target(
        self,
        s0: State,
        m: Any,
        steps: list[Any],
        facts: Any,
        frames: list[Any],
        legals: list[Any],
        which: list[Any],
        violations: list[tuple[Goal, Any]],
        ref: int,
    ) -> Target | None:
        """The goal a model gives: its tail's moves, and its cells cut down to those that imply the violation."""
        b = self.b
        hit = next(i for i, w in enumerate(which) if z3.is_true(m.eval(w, model_completion=True)))
        moves = []
        fixed = []
        for st in steps:
            act, params = b.sym_params(st, m)
            moves.append((act, tuple(sorted(params.items()))))
            fixed.append(st.act == m.eval(st.act, model_completion=True))
            fixed += [st.params[p] == m.eval(st.params[p], model_completion=True) for p in PARAMS]
        cells = self._minimal(s0, m, facts, frames, fixed, z3.And(*legals, violations[hit][1]))
        if cells is None:
            return None
        goal, _ = violations[hit]
        return Target(cells, tuple(moves), goal.prop.name, goal.check.label, ref)

    def _minimal(
        self, s0: State, m: Any, facts: Any, frames: list[Any], fixed: list[Any], wanted: Any
    ) -> tuple[tuple[Key, int | bool], ...] | None:
        """The model's cells of `s0` that, with the lemmas, make the fixed tail legal and violating: an unsat core
        of the refutation of the contrary, then each of its cells dropped in turn where the rest still suffice."""
        keys = list(self.b.keys)
        values = {key: _value(m, s0.v[key]) for key in keys}
        marks = {key: z3.Bool(f"goal-cell#{i}") for i, key in enumerate(keys)}
        ask = z3.Solver()
        ask.set("rlimit", RLIMIT)
        ask.add(facts, *frames, *fixed, z3.Not(wanted))
        ask.add(*(z3.Implies(marks[key], _lit(s0.v[key], values[key])) for key in keys))
        if ask.check(*marks.values()) != z3.unsat:
            return None
        by_mark = {marks[key].get_id(): key for key in keys}
        core = [by_mark[c.get_id()] for c in ask.unsat_core()]
        core.sort(key=keys.index)
        kept = list(core)
        for key in core:
            check_interrupt()
            trial = [k for k in kept if k != key]
            if ask.check(*(marks[k] for k in trial)) == z3.unsat:
                kept = trial
        return tuple((key, values[key]) for key in kept)


class Measure:
    """How far a state is from a goal: first the goal's cells (a Boolean cell off counts 1, a number cell its
    distance), then, for each cell of an indexed field off, its siblings off (the other cells of that field with
    the same leading indices: the monster zones beside the one wanted, which a duel fills in order)."""

    def __init__(self, keys: list[Key], cells: tuple[tuple[Key, int | bool], ...]):
        self.cells = cells
        self.siblings = {key: [k for k in keys if len(key) > 1 and k != key and k[:-1] == key[:-1]] for key, _ in cells}

    def __call__(self, state: State) -> tuple[int, int]:
        d = near = 0
        for key, want in self.cells:
            have = state.v[key]
            if isinstance(want, bool) or isinstance(have, bool):
                off = int(bool(have) != bool(want))
                if off:
                    near += sum(int(bool(state.v[k]) != bool(want)) for k in self.siblings[key])
            else:
                off = abs(int(have) - int(want))
            d += off
        return d, near


def _tail(
    ts: TransitionSystem, state: State, moves: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]
) -> list[Step] | None:
    steps = []
    for name, params in moves:
        out = ts.apply(state, name, dict(params))
        if not out.ok or out.state is None:
            return None
        state = out.state
        steps.append(Step(name, dict(params), state))
    return steps


def search_towards(
    ts: TransitionSystem,
    target: Target,
    accept: Callable[[Trace], bool],
    budget: int = BUDGET,
    deadline: float | None = None,
    seed: int = 0,
    start: list[Step] | None = None,
) -> tuple[str, Trace | None, list[list[Step]]]:
    """The concrete search of `ts`'s plays from the start of the duel towards `target` (see the module's
    docstring): reached with the play (its tail included, `accept`ed), unreached with the plays to the `NEAR`
    states nearest the goal, or unknown (the time limit).

    An archive of plays, one per cell (the state's measure, its turn player and phase): each round takes the
    cell nearest the goal that was explored least, plays `WALK` steps on from its state with a seeded lively
    player (engines/sim.py), and keeps every state of the walk whose cell is new or which reaches its cell in
    fewer steps. `budget` counts the steps walked in all."""
    from duelcheck.engines.sim import CALM_LEVELS, Simulator

    measure = Measure(ts.keys, target.cells)
    sim = Simulator(ts, seed=seed)
    rng = random.Random(GOAL_SEED + seed)
    init = ts.init()
    # cell -> (steps from the start, the state, the play to it, times explored)
    archive: dict[tuple[Any, ...], list[Any]] = {}

    def cell(state: State) -> tuple[Any, ...]:
        return (*measure(state), state.g("turn") % 2, state.g("phase"))

    tried = [0]  # the goal's states whose tail was tried: a goal whose tail fails there REFUSALS times is left

    def at_goal(play: list[Step]) -> Trace | None:
        if tried[0] >= REFUSALS:
            return None
        tried[0] += 1
        tail = _tail(ts, play[-1].state, target.moves)
        if tail is None:
            return None
        trace = Trace([*play, *tail])
        return trace if accept(trace) else None

    begun = start or [Step("init", {}, init)]  # `start`: a play from the start of the duel to begin from
    first = begun[-1].state
    archive[cell(first)] = [len(begun) - 1, first, list(begun), 0]
    if measure(first)[0] == 0 and (t := at_goal(begun)) is not None:
        return "reached", t, []
    walked = 0
    ended: set[tuple[Any, ...]] = set()  # cells whose state has no step (a duel won): never walked from again
    while walked < budget:
        check_interrupt()
        if deadline is not None and time.monotonic() > deadline:
            return "unknown", None, []
        if tried[0] >= REFUSALS:
            break
        open_ = [c for c in archive if c not in ended]
        if not open_:
            break
        key = min(open_, key=lambda c: (c[0], c[1], archive[c][3], c))
        entry = archive[key]
        entry[3] += 1
        play = list(entry[2])
        state = entry[1]
        sim.calm = CALM_LEVELS[entry[3] % len(CALM_LEVELS)]
        walked += 1  # a round counts even when its state has no step
        for _ in range(WALK):
            step = None if state.g("winner") != 0 else sim.choose(state, rng)
            if step is None:
                if len(play) == len(entry[2]):
                    ended.add(key)
                break
            walked += 1
            state = step.state
            play.append(step)
            c = cell(state)
            if c not in archive or len(play) < archive[c][0]:
                archive[c] = [len(play), state, list(play), archive[c][3] if c in archive else 0]
                ended.discard(c)
                if c[0] == 0 and (t := at_goal(play)) is not None:
                    return "reached", t, []
    nearest = sorted(archive, key=lambda c: (c[0], c[1], archive[c][0], c))[:NEAR]
    return "unreached", None, [archive[c][2] for c in nearest]


def goal_search(
    ts: TransitionSystem,
    questions: GoalQuestions,
    accept: Callable[[str, str, Trace], bool],
    first: list[str],
    deadline: float | None = None,
    onward: Callable[[list[list[Step]]], tuple[str, str, Trace] | None] | None = None,
    refs: list[list[Step]] | None = None,
    tails: tuple[int, ...] = TAILS,
    goals: int | None = None,
    budget: int | None = None,
) -> GoalReach:
    """Goals asked of the solver (tails of each length in `tails`, up to `goals` each, first steps among the
    actions `first`), each searched concretely under `ts` (the variant's system: the caller keeps the variant in
    force) until a play reaches one and violates its invariant there (`accept(prop, case, trace)` certifies it).
    A goal no walk reaches hands the plays to the states nearest it to `onward` (a short symbolic search from
    there, the caller's: the last steps of a setting-up, such as an effect resolving in the Battle Step, are
    those a random walk misses and a solver finds), which returns the violation it found (property, case, the
    play from the start of the duel) or None. `refs`: plays (from the start of the duel, steps `ts` takes) whose
    last states the goals are asked near, and a goal's search begins at its own."""
    goals = GOALS if goals is None else goals
    budget = BUDGET if budget is None else budget
    asked: list[Target] = []
    for tail in tails:
        for target in questions.targets(tail, first, goals, deadline, [p[-1].state for p in refs or []]):
            asked.append(target)
            begin = refs[target.ref] if refs and target.ref >= 0 else None
            status, trace, closest = search_towards(
                ts, target, functools.partial(accept, target.prop, target.case), budget, deadline, start=begin
            )
            if status == "unknown":
                return GoalReach("unknown", note="stopped by the time limit", goals=asked)
            if trace is not None:
                return GoalReach("reached", trace, target.prop, target.case, goals=asked)
            if onward is not None and closest:
                got = onward(closest)
                if got is not None:
                    prop, case, whole = got
                    note = "from a state nearest the goal, by the symbolic search"
                    return GoalReach("reached", whole, prop, case, note=note, goals=asked)
            if deadline is not None and time.monotonic() > deadline:
                return GoalReach("unknown", note="stopped by the time limit", goals=asked)
    if deadline is not None and time.monotonic() > deadline:  # a question or a goal left unasked
        return GoalReach("unknown", note="stopped by the time limit", goals=asked)
    note = f"{len(asked)} goal(s) from the solver, none reached within {budget} steps each"
    return GoalReach("unreached", note=note, goals=asked)


def lemma_facts(a: TransitionSystem, lemmas: list[Check]) -> Callable[[State], Any]:
    """The lemmas (invariants proved under the rules as written `a`) in any symbolic state."""
    u = Unrolling(a, None, lemmas)
    return u.facts


__all__ = ["GoalQuestions", "GoalReach", "Measure", "Target", "goal_search", "lemma_facts", "search_towards"]
