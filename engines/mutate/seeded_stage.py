"""The seeded search (engines/seeded.py) as a kill stage: the far walks of the rules, the states where the mutant first
diverges, the goal-directed search from there.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import z3

from duelcheck.engines.mutate.equivalent import lemma_checks
from duelcheck.engines.mutate.mutants import Mutant, activated
from duelcheck.engines.mutate.settings import (
    FAR_DEPTH,
    FAR_SEED,
    FAR_SHORT,
    FAR_WALK_LENGTH,
    FAR_WALKS,
    REF_STRIDE,
    REFS,
    WIDE_BATCH,
    WIDE_DEPTH,
    WIDE_STRIDE,
)
from duelcheck.engines.mutate.sites import guard_terms
from duelcheck.engines.mutate.stages import _certified, _shortened
from duelcheck.engines.sim import Play
from duelcheck.errors import InternalError
from duelcheck.model import state as S
from duelcheck.properties.catalog import Check
from duelcheck.rules import Rules


@dataclass
class Seeded:
    """What the seeded search needs of the rules as written: their system, where the mutant disagrees with it
    (made with the mutant in force for its side only), their proved lemmas, and the plays the rules make
    (label -> the steps under the rules, from the start), whose states the far search may start from."""

    rules_ts: Any
    dis: Any
    lemmas: list[Check]
    proved: set[str]
    plays: dict[str, list[Any]]
    facts: Callable[[Any], Any] | None = None  # the lemmas in any symbolic state, made with no mutant in force


def far_walks(rules: Rules) -> dict[str, Play]:
    """FAR_WALKS seeded random plays under the rules as written (engines/sim.py's lively players), each up to
    FAR_WALK_LENGTH steps or the end of the duel: deep and varied states (a duel far on, a deck nearly drawn, a
    duel won) for the far seeded search to start from. The same rules give the same plays: made once, in the
    preparation."""
    import random

    from duelcheck.engines.sim import CALM_LEVELS, Simulator
    from duelcheck.model.system import TransitionSystem

    if S.MUTATION is not None:
        raise InternalError("the far walks are the rules as written, with no mutant active")
    ts = TransitionSystem(rules)
    out: dict[str, Play] = {}
    for w in range(FAR_WALKS):
        sim = Simulator(ts, seed=w)
        sim.calm = CALM_LEVELS[w % len(CALM_LEVELS)]
        rng = random.Random(FAR_SEED + w)
        state = ts.init()
        moves: Play = []
        for _ in range(FAR_WALK_LENGTH):
            step = sim.choose(state, rng)
            if step is None:
                break
            moves.append((step.action, dict(step.params)))
            state = step.state
            if state.g("winner") != 0:
                break
        out[f"a seeded random play (seed {FAR_SEED + w})"] = moves
    return out


def seeded_setup(rules: Rules, ts: Any, mutant: Mutant, lemmas: Sequence[str], plays: dict[str, Play]) -> Seeded:
    """The rules' side of the seeded search, made before the mutant is put in force for the search (its own
    side of the disagreement is made with it in force here): the rules' system, the disagreement, the lemmas,
    and the plays (label -> moves: the baseline's, those beyond the bound, the far walks) replayed under the
    rules, each up to a step they refuse."""
    from duelcheck.engines.seeded import disagreement

    if S.MUTATION is not None:
        raise InternalError("the rules' side of the seeded search is made with no mutant active")
    from duelcheck.engines.goal import lemma_facts

    a, a_side, steps_of = _rules_side(rules.model_dump_json(), json.dumps(plays, sort_keys=True))
    dis = disagreement(a, ts, lambda: activated(mutant), a_side)
    checks = lemma_checks(lemmas)
    facts = lemma_facts(a, checks)
    facts(a.sym_state("@lemmas-made"))  # made now, with no mutant in force (a property may run rule bodies)
    return Seeded(a, dis, checks, set(lemmas), dict(steps_of), facts)


@functools.lru_cache(maxsize=2)
def _rules_side(rules_json: str, plays_json: str) -> tuple[Any, Any, dict[str, list[Any]]]:
    """What `seeded_setup` makes of the rules alone, the same for every mutant: made once per process (a worker
    runs many mutants) and only with no mutant in force (the caller checks): the rules' system, its side of the
    disagreement, and the plays replayed under the rules, each up to a step they refuse."""
    from duelcheck.engines.seeded import template_effects
    from duelcheck.engines.sim import replay_prefix
    from duelcheck.model.system import TransitionSystem

    a = TransitionSystem(Rules.model_validate_json(rules_json))
    plays: dict[str, Play] = json.loads(plays_json)
    steps_of: dict[str, list[Any]] = {}
    for label in sorted(plays):
        steps = replay_prefix(a, [(name, params) for name, params in plays[label]])
        steps_of[label if label.startswith("a seeded") else f"the play reaching {label}"] = steps
    return a, template_effects(a), steps_of


def _agreeing_starts(ts: Any, seeded: Seeded, labels: list[str]) -> tuple[list[Any], list[list[Any]]]:
    """The states of these plays of the rules that the mutant reaches alike (each play replayed under the
    mutant up to its first step taken otherwise), each state once, with the play that reaches it."""
    starts: list[Any] = []
    how: list[list[Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for label in labels:
        steps = seeded.plays[label]
        state = ts.init()
        if state.v != steps[0].state.v:
            continue
        for i, st in enumerate(steps[1:], start=1):
            out = ts.apply(state, st.action, dict(st.params))
            if not out.ok or out.state is None or out.state.v != st.state.v:
                break
            state = out.state
            key = tuple(state.v[k] for k in ts.keys)
            if key not in seen:
                seen.add(key)
                starts.append(state)
                how.append(steps[: i + 1])
    return starts, how


def _rerooted(starts: list[Any], how: list[list[Any]], trace: Any) -> Any:
    """A trace of a search from one of `starts` as the play from the start of the duel: the play to its start
    (`how`, one per start), then its steps."""
    from duelcheck.engines.base import Trace

    i = next(i for i, st in enumerate(starts) if st.v == trace.steps[0].state.v)
    return Trace([*how[i], *trace.steps[1:]])


def _windows(
    starts: list[Any], how: list[list[Any]], stride: int, batch: int
) -> Iterator[tuple[list[Any], list[list[Any]]]]:
    """A play's states (and the plays to them) for the far search: every `stride`-th and the last, in searches
    of at most `batch` states (0: one search), the last states first."""
    keep = [i for i in range(len(starts)) if i % stride == 0 or i == len(starts) - 1]
    size = batch or len(keep) or 1
    for end in range(len(keep), 0, -size):
        part = keep[max(0, end - size) : end]
        yield [starts[i] for i in part], [how[i] for i in part]


class SeededKill(NamedTuple):
    """What `_seeded_kill` says: the certified violation found, or None; what the search said (unreached up to
    a depth, or why it gave no answer); and, from the start of the duel, the depth up to which every depth was
    refuted (0 when the search gave no such answer: a far search, a play found, no answer, a time limit)."""

    hit: Any
    note: str
    refuted: int = 0


def _seeded_kill(
    ts: Any,
    seeded: Seeded,
    invariants: list[Any],
    depth: int,
    after: int,
    solver: str,
    deadline: float | None,
    far: bool = False,
    stride: int = 1,
    batch: int = 0,
    confirm: Callable[[Any], bool] | None = None,
    refuted: int = 0,
) -> SeededKill:
    """The seeded search for a violation under the mutant (engines/seeded.py), from the start of the duel or
    (`far`) from the states of the rules' plays the mutant reaches alike: a certified `violated` result, or
    None; what the search said; and the depths it refuted from the start (`SeededKill`). `stride`: of each
    play's states only every stride-th (and its last); `batch`: at most this many states in one search, a
    play's last states first. `confirm`: the concrete word on a play found (the result, its trace from the
    start of the duel) in place of the violation's certificate; a far search's play is then not shortened.
    `refuted`: from the start, the depths up to this one were refuted by this search asked before (not asked
    again)."""
    from duelcheck.engines.base import Result
    from duelcheck.engines.seeded import seeded_search

    group: list[tuple[list[Any], list[list[Any]]]] = []  # the far search's starts and their plays, if any

    def whole(trace: Any) -> Any:
        """The play from the start of the duel: a far search's trace after the rules' play to its start."""
        return _rerooted(*group[-1], trace) if group else trace

    def certified(r: Any) -> bool:
        return confirm(r) if confirm is not None else _certified(ts, r)

    def accept(goal: Any, trace: Any) -> bool:
        r = Result(goal.prop.name, goal.check.label, "always", "violated", depth, 0.0, "seeded", whole(trace))
        try:
            return certified(r)
        except InternalError:
            return False

    search = functools.partial(
        seeded_search, seeded.rules_ts, ts, seeded.dis, seeded.lemmas, invariants, depth, after, solver, deadline,
        accept, seeded.proved,
    )  # fmt: skip
    if not far:
        got = search(refuted=refuted)
        if got.status == "unreached":
            return SeededKill(None, f"unreached up to {got.depth}", got.depth)
        if got.status != "reached" or got.goal is None or got.trace is None:
            return SeededKill(None, got.note or f"{got.status} up to {got.depth}")
        trace = got.trace
    else:
        # the short plays' states in one search, each long play's on its own (measured: one search from 1,800
        # states took minutes at depth 5, where one play's 285 took a second or two)
        short = [label for label in sorted(seeded.plays) if len(seeded.plays[label]) <= FAR_SHORT]
        long_ = sorted(
            (label for label in seeded.plays if len(seeded.plays[label]) > FAR_SHORT),
            key=lambda x: (len(seeded.plays[x]), x),
        )
        groups = [_agreeing_starts(ts, seeded, labels) for labels in ([short] if short else []) + [[x] for x in long_]]
        for starts, how in (chunk for play in groups for chunk in _windows(*play, stride, batch)):
            if not starts:
                continue
            group.append((starts, how))
            got = search(starts)
            if got.status == "unknown":
                return SeededKill(None, got.note)
            if got.status == "reached" and got.goal is not None and got.trace is not None:
                break
        else:
            return SeededKill(None, f"unreached up to {depth} steps from the states of the rules' plays")
        trace = whole(got.trace)
        where = f"from step {len(trace) - got.depth} of a play the rules make"
    tail = "its last step" if after == 0 else f"one of its last {after + 1} steps"
    r = Result(got.goal.prop.name, got.goal.check.label, "always", "violated", depth, 0.0, "seeded", trace)
    if not certified(r):
        return SeededKill(None, "the play found is not confirmed by the concrete interpreter")
    if far and confirm is not None:
        note = f"{where}, {got.depth} step(s) on"
        return SeededKill(dataclasses.replace(r, note=note, minimal=False), "")
    if not far:
        note = (
            f"seeded search from the start of the duel: steps of the rules, which the mutant takes alike, and "
            f"at {tail} the first step the mutant takes otherwise; the shortest such play (every shorter one "
            "refuted)"
        )
    else:
        found = len(trace)
        trace = _shortened(ts, dataclasses.replace(r, trace=trace))
        note = (
            f"seeded search {where} (its steps taken alike by the mutant), {got.depth} step(s) on, the last the "
            f"first the mutant takes otherwise; {found} steps in all, shortened to {len(trace)} by delta "
            "debugging; not proved minimal"
        )
    return SeededKill(dataclasses.replace(r, trace=trace, note=note, minimal=False), "")


def _term_like(value: Any, like: Any) -> Any:
    """A value as a solver term of the sort of `like` (a state cell or parameter may be a plain number)."""
    if isinstance(value, z3.ExprRef):
        return value
    return z3.BoolVal(bool(value)) if z3.is_bool(like) else z3.BitVecVal(int(value), like.sort())


def refused_step(rules: Rules, action: str, index: int) -> Any:
    """An invariant of the rules as written: no step of `action` is taken with its conjunct `index` failing (the
    rules refuse it). Under that conjunct's dropped-guard mutant, a step that violates it is the first the mutant
    takes otherwise: the action allowed with the guard gone and refused by the rules, every other conjunct
    holding and that one failing: the guard's twin. Symbolic only (the seeded search's goal)."""
    from duelcheck.model.system import TransitionSystem
    from duelcheck.properties.catalog import Property

    a_ts = TransitionSystem(rules)
    g = guard_terms(a_ts, action, "@refused")
    term = g.terms[index]

    def fn(s: Any, a: Any, t: Any) -> Any:
        pairs = [(g.pre.v[key], _term_like(s.v[key], g.pre.v[key])) for key in a_ts.keys]
        pairs += [(g.params[name], _term_like(a.p(name), g.params[name])) for name in g.params]
        pairs = [(x, y) for x, y in pairs if z3.is_const(x) and not x.eq(y)]
        fails = z3.Not(z3.substitute(term, *pairs) if pairs else term)
        return s.k.not_(s.k.and_(a.is_(action), fails))

    check = Check("", "step", fn, "always")
    return Property(f"{action} refused for its conjunct {index}", "always", "", "", (check,))


def first_divergence(
    rules: Rules,
    mutant: Mutant,
    lemmas: Sequence[str],
    plays: dict[str, Play],
    confirm: Callable[[Any], bool],
    depth: int,
    solver: str = "auto",
    deadline: float | None = None,
) -> tuple[Any, str]:
    """A play of the rules as written, then the first step a dropped guard's mutant takes otherwise (its action
    with that guard failing: `refused_step`), found by the seeded search: from the start of the duel up to
    `depth` steps (the shortest such play: every shorter one refuted), else the wide search (`WIDE_DEPTH` steps
    on from every `WIDE_STRIDE`-th state of `plays`, the rules' plays, label -> moves). `confirm` is the
    caller's concrete word on a play found (the result, its trace from the start of the duel). Returns the
    result (its `minimal` True from the start) and "", or None and what the searches said. The boards' twins
    still missing are found so (engines/boards.py)."""
    from duelcheck.model.system import TransitionSystem

    if mutant.kind != "drop":
        raise InternalError(f"{mutant.id}: the first divergence is asked of a dropped guard's mutant")
    ts = TransitionSystem(rules)  # its relation is made with the mutant in force, when first asked for
    goal = refused_step(rules, mutant.action, mutant.index)
    seeded = seeded_setup(rules, ts, mutant, lemmas, plays)
    # an invariant of the rules: the search asks its violation at a step where the mutant and the rules disagree
    seeded = dataclasses.replace(seeded, proved=seeded.proved | {goal.name})
    with activated(mutant):
        r, why, _ = _seeded_kill(ts, seeded, [goal], depth, 0, solver, deadline, confirm=confirm)
        if r is not None:
            return dataclasses.replace(r, minimal=True), ""
        r, wide, _ = _seeded_kill(
            ts, seeded, [goal], WIDE_DEPTH, 0, solver, deadline, True, WIDE_STRIDE, WIDE_BATCH, confirm=confirm
        )
    return (r, "") if r is not None else (None, f"from the start: {why}; the wide search: {wide}")


def _goal_kill(ts: Any, seeded: Seeded, invariants: list[Any], solver: str, deadline: float | None) -> Any:
    """The goal-directed search (engines/goal.py) for a violation under the mutant that needs a deep setting-up:
    goals asked of the solver (a state meeting the lemmas from which a step of an action the mutant changes
    breaks an invariant, cut down to the few cells that matter), each searched concretely from the start of the
    duel, then by the seeded search `FAR_DEPTH` steps on from the states nearest it (the last steps of a
    setting-up). A certified `violated` result, shortened by delta debugging, None, or "stopped" (the time
    limit struck first)."""
    from duelcheck.engines.base import Result
    from duelcheck.engines.goal import GoalQuestions, goal_search
    from duelcheck.engines.seeded import seeded_search

    if seeded.facts is None or not seeded.dis.actions:
        return None

    def accept(prop: str, case: str, trace: Any) -> bool:
        try:
            return _certified(ts, Result(prop, case, "always", "violated", len(trace), 0.0, "goal", trace))
        except InternalError:
            return False

    def onward(plays: list[list[Any]]) -> tuple[str, str, Any] | None:
        starts: list[Any] = []
        how: list[list[Any]] = []
        for play in plays:
            if all(play[-1].state.v != st.v for st in starts):
                starts.append(play[-1].state)
                how.append(play)

        def whole(trace: Any) -> Any:
            return _rerooted(starts, how, trace)

        got = seeded_search(
            seeded.rules_ts, ts, seeded.dis, seeded.lemmas, invariants, FAR_DEPTH, 0, solver, deadline,
            lambda g, t: accept(g.prop.name, g.check.label, whole(t)), seeded.proved, starts,
        )  # fmt: skip
        if got.status != "reached" or got.goal is None or got.trace is None:
            return None
        return got.goal.prop.name, got.goal.check.label, whole(got.trace)

    # the reference states: every REF_STRIDE-th state of the rules' plays the mutant takes alike, and their last
    refs: list[list[Any]] = []
    for label in sorted(seeded.plays):
        _, how = _agreeing_starts(ts, seeded, [label])
        refs += [how[i] for i in range(len(how)) if i % REF_STRIDE == REF_STRIDE - 1 or i == len(how) - 1]
    questions = GoalQuestions(ts, seeded.facts, invariants)
    got = goal_search(ts, questions, accept, seeded.dis.actions, deadline, onward, refs[:REFS])
    if got.status == "unknown":
        return "stopped"
    if got.status != "reached" or got.trace is None:
        return None
    r = Result(got.prop, got.case, "always", "violated", len(got.trace), 0.0, "goal", got.trace)
    found = len(got.trace)
    trace = _shortened(ts, r)
    onward_note = f"; {got.note}" if got.note else ""
    note = (
        f"goal-directed search: the solver's goal {got.goals[-1].text()}, searched from the start of the duel"
        f"{onward_note}: {found} steps, shortened to {len(trace)} by delta debugging; not proved minimal"
    )
    return dataclasses.replace(r, trace=trace, note=note, minimal=False)
