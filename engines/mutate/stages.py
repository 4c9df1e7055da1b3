"""The kill stages before the seeded search: the baseline's witnesses, the first bounded probe, the witnesses' replays
and searches, and the deep search from the rules' own plays.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from duelcheck.engines.mutate.equivalent import lemma_checks
from duelcheck.engines.mutate.settings import DEEP_DEPTH, DEEP_SEED, DEEP_SHRINK, DEEP_WALK_LENGTH, DEEP_WALKS
from duelcheck.engines.sim import Play
from duelcheck.errors import InternalError
from duelcheck.model import state as S
from duelcheck.rules import Rules


def baseline(
    rules: Rules, depth: int, lemmas: list[str], solver: str = "auto", beyond: int = 0
) -> tuple[dict[str, int], dict[str, Play], dict[str, Play]]:
    """The witnesses the rules as written reach within the bound, each with its minimal length, and the play
    that reaches it (bounded model checking with the proved invariants as lemmas); and the plays of the
    witnesses the same search reaches in up to `beyond` steps more (the last stage's starting points and the
    deep witnesses a mutant may provably lose, never witnesses a mutant must reach within the bound)."""
    from duelcheck.engines.bmc import BMC
    from duelcheck.model.system import TransitionSystem
    from duelcheck.properties import PROPERTIES

    if S.MUTATION is not None:
        raise InternalError("the baseline is the rules as written, with no mutant active")
    witnesses = [p for p in PROPERTIES if p.kind == "sometimes"]
    bmc = BMC(TransitionSystem(rules), solver, None, lemma_checks(lemmas), None, 1, together=True)
    results = [r for r in bmc.run(witnesses, depth + beyond) if r.verdict == "found" and r.length is not None]
    plays = {r.label: [(st.action, dict(st.params)) for st in r.trace.steps[1:]] for r in results if r.trace}
    within = {r.label: r.length for r in results if r.length is not None and r.length <= depth}
    return (
        within,
        {label: play for label, play in plays.items() if label in within},
        {label: play for label, play in plays.items() if label not in within},
    )


def deep_plays(rules: Rules, found: dict[str, int]) -> dict[str, Play]:
    """The witnesses beyond the bound, each by a play of the rules as written: seeded simulation, the play
    shortened by delta debugging (as `duelcheck check` finds them). Starting points of the last stage's search,
    never witnesses a mutant must reach (that needs the bounded search's verdict)."""
    from duelcheck.engines.shrink import shrink
    from duelcheck.engines.sim import Simulator
    from duelcheck.model.system import TransitionSystem
    from duelcheck.properties import PROPERTIES

    if S.MUTATION is not None:
        raise InternalError("the deep plays are the rules as written, with no mutant active")
    ts = TransitionSystem(rules)
    missing = [
        (label, c)
        for p in PROPERTIES
        if p.kind == "sometimes"
        for c in p.checks
        for label in [f"{p.name}[{c.label}]" if c.label else p.name]
        if label not in found
    ]
    # one simulation for all of them (its walks do not depend on what is looked for)
    traces = Simulator(ts).search([c for _, c in missing]) if missing else {}
    out: dict[str, Play] = {}
    for i, trace in sorted(traces.items()):
        label, c = missing[i]
        out[label] = [(st.action, dict(st.params)) for st in shrink(ts, c, trace).steps[1:]]
    return out


class _Enough(Exception):
    """The first depth with a violation has been searched: the probe stops."""


def _probe(ts: Any, invariants: list[Any], bound: int, solver: str, deadline: float | None) -> list[Any]:
    """Stage 1: the violations of the invariants at the first depth (up to `bound`) that has any; when there is
    none, every invariant's result (holds up to the bound, or unknown where the solver gave no answer)."""
    from duelcheck.engines.bmc import BMC

    kills: list[Any] = []

    def heard(r: Any) -> None:
        if r.verdict == "violated":
            kills.append(r)

    def events(kind: str, data: Any) -> None:
        if kind == "depth" and kills:  # the next depth begins: every violation at the last one is in
            raise _Enough

    try:
        results = BMC(ts, solver, None, [], deadline, 1, together=True).run(invariants, bound, events, heard)
    except _Enough:
        return kills
    return results


def _first(r: Any) -> tuple[int, bool, str]:
    """The kill to name: the shortest trace, a property of the rules before the model's structural facts."""
    return (r.length or 0, r.prop == "well-formed", r.label)


def _certified(ts: Any, r: Any) -> bool:
    """A violation's trace replays under the mutant and violates its check there (as the checker certifies)."""
    from duelcheck.counterexamples.certify import certify
    from duelcheck.properties import BY_NAME

    prop = BY_NAME[r.prop]
    check = next(c for c in prop.checks if c.label == r.case)
    certify(ts, check, r.trace, False)
    return prop.certify is None or bool(prop.certify(ts, r.trace.steps[-1].state))


def _witnesses(found: dict[str, int]) -> list[Any]:
    """The witness properties, each cut down to the cases the baseline reached."""
    from duelcheck.properties import PROPERTIES

    out = []
    for p in PROPERTIES:
        if p.kind != "sometimes":
            continue
        checks = tuple(c for c in p.checks if (f"{p.name}[{c.label}]" if c.label else p.name) in found)
        if checks:
            out.append(dataclasses.replace(p, checks=checks))
    return out


def _witness_stage(
    ts: Any, found: dict[str, int], plays: dict[str, Play], depth: int, solver: str, deadline: float | None
) -> list[Any]:
    """Stage 2's witnesses under the mutant. Each is first replayed from the baseline's play: one that play
    still reaches within the bound is reached (a play exists, so no search could lose it). The others are
    searched, one property at a time (its cases the play no longer reaches), the shortest in the baseline
    first, each on a solver of its own; the first witness lost (refuted at every depth, or unreachable) ends
    the stage: the mutant is killed."""
    out, todo = _witness_replays(ts, found, plays, depth)
    return out + _witness_search(ts, todo, found, depth, solver, deadline)


def _witness_replays(ts: Any, found: dict[str, int], plays: dict[str, Play], depth: int) -> tuple[list[Any], list[Any]]:
    """The witnesses the baseline's plays still reach under the mutant (found), and the properties cut down to
    the cases whose play breaks (to search)."""
    from duelcheck.engines.base import Result, Trace
    from duelcheck.engines.shrink import reaches
    from duelcheck.model.system import Step

    out: list[Any] = []
    todo = []
    for p in _witnesses(found):
        left = []
        for c in p.checks:
            label = f"{p.name}[{c.label}]" if c.label else p.name
            steps = reaches(ts, c, ts.init(), plays[label]) if label in plays else None
            if steps is None:
                left.append(c)
                continue
            trace = Trace([Step("init", {}, ts.init()), *steps])  # the interpreter's own states, replayed above
            note = "the baseline's play still reaches it under the mutant"
            out.append(Result(p.name, c.label, "sometimes", "found", depth, 0.0, "replay", trace, note))
        if left:
            todo.append(dataclasses.replace(p, checks=tuple(left)))
    return out, todo


def _witness_search(
    ts: Any, todo: list[Any], found: dict[str, int], depth: int, solver: str, deadline: float | None
) -> list[Any]:
    """The witnesses whose play broke, searched one property at a time, the shortest in the baseline first; the
    first one lost ends the search."""
    from duelcheck.engines.bmc import BMC

    out: list[Any] = []
    labels = {p.name: [f"{p.name}[{c.label}]" if c.label else p.name for c in p.checks] for p in todo}
    for p in sorted(todo, key=lambda p: (min(found[label] for label in labels[p.name]), p.name)):
        results = BMC(ts, solver, None, [], deadline, 1).run([p], depth)
        out += results
        if any(r.verdict in ("not-found", "unreachable") for r in results):
            break
    return out


def _lost_beyond(ts: Any, found: dict[str, int], deep: dict[str, Play], deadline: float | None) -> list[Any]:
    """The witnesses the rules reach only beyond the bound (by the plays of `deep`) that the mutant provably
    loses: the play breaks under the mutant, and induction under the mutant proves the witness's negation for
    all depths on its own (it holds at the start and after every first step, and no step from a state where
    it holds reaches the witness: the question `duelcheck check` asks of a witness before its search; no
    invariant of the rules is assumed, since the mutant may break them). Each is an `unreachable` result; the
    time limit striking first ends the list with an `unknown` one."""
    from duelcheck.engines.base import Result
    from duelcheck.engines.kind import Induction
    from duelcheck.engines.shrink import reaches
    from duelcheck.engines.smt import Stopped
    from duelcheck.properties import PROPERTIES

    broken = [
        (p, c, label)
        for p in PROPERTIES
        if p.kind == "sometimes"
        for c in p.checks
        for label in [f"{p.name}[{c.label}]" if c.label else p.name]
        if label not in found and label in deep and reaches(ts, c, ts.init(), deep[label]) is None
    ]
    induction = Induction(ts, deadline=deadline)
    out = []
    for p, c, label in broken:
        try:
            gone = induction.unreachable_at_once(c)
        except Stopped:  # the time limit: this witness (and the rest) undecided, never lost nor kept
            note = "the time limit struck while its negation was asked of induction under the mutant"
            bound = len(deep[label])
            out.append(Result(p.name, c.label, "sometimes", "unknown", bound, 0.0, "k-induction", None, note))
            break
        if gone:
            note = "its negation is proved for all depths under the mutant (induction)"
            lost = Result(p.name, c.label, "sometimes", "unreachable", len(deep[label]), 0.0, "k-induction", None, note)
            out.append(dataclasses.replace(lost, proved=True))
    return out


def _deep_stage(ts: Any, props: list[Any], plays: dict[str, Play], solver: str, deadline: float | None) -> Any:
    """Stage 4: bounded model checking of the invariants, `DEEP_DEPTH` steps from any state of the rules' own
    plays (the baseline's witnesses, also those found beyond the bound by simulation) replayed under the
    mutant: a violation that needs a deep setting-up (a duel won, an attack declared) and then a short
    divergence; first from the states of the rules' plays alone, then also from those of seeded random plays
    under the mutant (engines/sim.py's players: diverse deep states, a monster that attacks on a later turn than
    it arrived, a duel won). The first violation found, its trace the play to that state and the search's
    steps, replayed from the initial state, certified and shortened by delta debugging; not proved minimal.
    None when there is none (or no answer)."""
    for walks in (0, DEEP_WALKS):  # the short plays first: their violations have short traces
        found = _deep_search(ts, props, plays, walks, solver, deadline)
        if found is not None:
            return found
    return None


def _shortened(ts: Any, r: Any) -> Any:
    """A certified violation's trace shortened by delta debugging (engines/shrink.py), the violation read as a
    witness to reach; the shorter trace only if it is certified too."""
    from duelcheck.engines.kind import negation
    from duelcheck.engines.shrink import shrink
    from duelcheck.properties import BY_NAME

    check = next(c for c in BY_NAME[r.prop].checks if c.label == r.case)
    short = shrink(ts, dataclasses.replace(negation(check), kind="sometimes"), r.trace, DEEP_SHRINK)
    if len(short) < len(r.trace) and _certified(ts, dataclasses.replace(r, trace=short)):
        return short
    return r.trace


def _replay_violation(ts: Any, invariants: list[Any], plays: dict[str, Play]) -> Any:
    """The rules' own plays (the baseline's witnesses, and those beyond the bound) replayed under the mutant, each
    invariant checked concretely after every step (milliseconds): the first violation, certified, its trace the
    play up to there shortened by delta debugging; None when every step of every play keeps every invariant.
    A mutant that changes what a play the rules make does (an equal-ATK battle won by the attacker) is caught
    on the step where it does, without a search."""
    from duelcheck.engines.base import Result, Trace
    from duelcheck.model.system import Step
    from duelcheck.properties.catalog import ActionView

    checks = [(p, c) for p in invariants for c in p.checks]
    for label in sorted(plays):
        state = ts.init()
        steps = [Step("init", {}, state)]
        # each step as the fine steps it takes (a composite's parts, which a step check reads one by one)
        fine: list[Step | None] = [None]
        for move, given in plays[label]:
            parts = ts.expand(state, move, given)
            if not isinstance(parts, list):
                break  # refused under the mutant: the replay stops there
            fine += parts
            state = parts[-1].state
        state = steps[0].state
        for st in fine:
            pre = state
            act = None
            if st is not None:
                act, state = ActionView(st.action, st.params, symbolic=False), st.state
                steps.append(st)
            for p, c in checks:
                if c.on == "step" and act is None:
                    continue
                if c.eval(pre, act, state) if c.on == "step" else c.eval(None, None, state):
                    continue
                r = Result(p.name, c.label, "always", "violated", len(steps) - 1, 0.0, "replay", Trace(list(steps)))
                if not _certified(ts, r):
                    continue
                trace = _shortened(ts, r)
                note = (
                    f"found on the play reaching {label} replayed under the mutant, step {len(steps) - 1}; "
                    f"shortened to {len(trace)} by delta debugging; not proved minimal"
                )
                return dataclasses.replace(r, trace=trace, note=note)
    return None


def _deep_search(
    ts: Any, props: list[Any], plays: dict[str, Play], walks: int, solver: str, deadline: float | None
) -> Any:
    """`_deep_stage` from the states of the plays and of `walks` random plays."""
    from duelcheck.engines.base import Trace
    from duelcheck.engines.bmc import BMC
    from duelcheck.engines.sim import play_states

    starts, how = play_states(ts, plays, walks, DEEP_WALK_LENGTH, DEEP_SEED)
    if not starts or not props:
        return None
    results = BMC(ts, solver, None, [], deadline, 1, together=True).run(props, DEEP_DEPTH, start=starts)
    for r in sorted((r for r in results if r.verdict == "violated" and r.trace is not None), key=_first):
        tail = r.trace
        assert tail is not None
        label, before = next(
            (lab, steps) for st, (lab, steps) in zip(starts, how, strict=True) if st.v == tail.steps[0].state.v
        )
        trace = Trace([*before, *tail.steps[1:]])
        if not _certified(ts, dataclasses.replace(r, trace=trace)):
            continue
        found = len(trace)
        trace = _shortened(ts, dataclasses.replace(r, trace=trace))
        note = (
            f"found from step {len(before) - 1} of {label} under the mutant, {len(tail)} step(s) on, {found} steps "
            "in all; "
            f"shortened to {len(trace)} by delta debugging; not proved minimal"
        )
        return dataclasses.replace(r, trace=trace, minimal=False, note=note)
    return None
