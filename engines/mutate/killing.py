"""Killing one mutant: the stages in order (proofs kept, probe, witnesses, deep, seeded, goals), stopped at the first
property that fails, and the run of one mutant in a worker process.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import z3

from duelcheck.engines.mutate.equivalent import equivalence, prove_lemmas
from duelcheck.engines.mutate.mutants import Mutant, actions_of, activated, mutant_by_id
from duelcheck.engines.mutate.seeded_stage import _goal_kill, _seeded_kill, far_walks, seeded_setup
from duelcheck.engines.mutate.settings import (
    BEYOND,
    FAR_DEPTH,
    FAR_LAST,
    PROBE_DEPTH,
    SEEDED_BEYOND,
    SEEDED_EARLY,
    SEEDED_TAILS,
    WIDE_BATCH,
    WIDE_DEPTH,
    WIDE_STRIDE,
)
from duelcheck.engines.mutate.stages import (
    _certified,
    _deep_stage,
    _first,
    _lost_beyond,
    _probe,
    _replay_violation,
    _witness_replays,
    _witness_search,
    baseline,
    deep_plays,
)
from duelcheck.engines.sim import Play
from duelcheck.errors import InternalError, one_line
from duelcheck.model import state as S
from duelcheck.rules import Rules

HOOKED = ("drop", "negate", "write", "swap")  # mutants that change only their own action's body


def _suite(proved: Sequence[str | Any]) -> list[Any]:
    from duelcheck.properties import BY_NAME

    return [p for p in (BY_NAME[x] if isinstance(x, str) else x for x in proved) if p.kind == "always"]


def _terms(xs: list[Any]) -> list[Any]:
    return [z3.BoolVal(x) if isinstance(x, bool) else x for x in xs]


def proof_terms(rules: Rules, proved: Sequence[str | Any]) -> tuple[list[Any], list[Any]]:
    """The facts the rules' proof of `proved` assumes in a state and asks after a step, as the rules as written
    build them (no mutant active): what `still_inductive` compares a comparison mutant's with."""
    from duelcheck.engines.kind import Induction
    from duelcheck.model.system import TransitionSystem

    if S.MUTATION is not None:
        raise InternalError("the proof's terms are the rules as written, with no mutant active")
    props = _suite(proved)
    ind = Induction(TransitionSystem(rules))
    assume = ind._state_facts(props, {p.name for p in props})
    return _terms(assume), _terms([fact for p in props for fact in ind._goals(p)])


def read_by_properties(mutant: Mutant) -> bool:
    """Whether a property reads the enabledness of an action the mutant changes (no-deadlock runs the bodies of
    its progress actions as the system runs them, mutation hook included): then its facts change too."""
    from duelcheck.properties.core import PROGRESS

    return bool(set(actions_of(mutant)) & {name for name, _ in PROGRESS})


def still_inductive(
    ts: Any,
    mutant: Mutant,
    proved: Sequence[str | Any],
    deadline: float | None = None,
    original: tuple[list[Any], list[Any]] | None = None,
) -> str | None:
    """None when the invariants proved for the rules as written (`proved`) stay inductive under the mutant, so that
    each is proved for all depths under it; else the first reason they may not (a fact not settled, or a step
    that breaks one from a state meeting them all: perhaps unreachable, so no violation either).

    The rules' proof assumed the whole set in a state and showed every step keeps it. A mutant that changes one
    action's body (a guard or a write: the mutation hook acts inside that body alone, and in a property that
    reads that action's enabledness, as no-deadlock reads its progress actions') leaves every other action's
    steps as they were, so only its own steps are asked again, unless a property's facts changed with it (then
    as a comparison below): the initial state and first steps (the base case), then, for each turn player, every
    fact of the set after a step of that action from a state meeting the set, all at once on a fresh solver per
    case (split finer where it gives no answer, as engines/kind.py certifies its first layer). A comparison
    changes the actions whose bodies run its function, and whatever property reads that function (no-deadlock
    reads the actions' enabledness): with `original` (`proof_terms` of the rules), the other actions are asked
    again only the facts the mutant changed, and every action all of them if it changed an assumed fact. The
    actions a hooked mutant changes include those whose bodies run its action (end_step's passes). A hand-made
    bug: every action, every fact."""
    from duelcheck.engines.kind import Induction
    from duelcheck.engines.smt import SAT, UNSAT, solve_cases

    props = _suite(proved)
    ind = Induction(ts, deadline=deadline)
    for p in props:
        if not ind._base(p):
            return f"{p.name} fails in the initial state or the first step under the mutant"
    st = ind._st
    assume = _terms(ind._state_facts(props, {p.name for p in props}))
    goals = _terms([fact for p in props for fact in ind._goals(p)])
    everything = [a.name for a in ts.actions]
    changed, again = everything, []  # the actions asked every fact, and the facts every other action is asked
    if mutant.kind in HOOKED and not read_by_properties(mutant):
        changed = actions_of(mutant)
    elif mutant.kind in (*HOOKED, "compare") and original is not None:
        before, after = original
        if len(before) == len(assume) and all(map(z3.eq, before, assume)) and len(after) == len(goals):
            changed = actions_of(mutant)
            again = [g for g, o in zip(goals, after, strict=True) if not z3.eq(g, o)]

    def settled(code: int, case: list[Any], bad: Any, answer: Any) -> bool:
        if answer == z3.unknown:  # split finer and asked again, as the proofs do
            verdict = solve_cases(
                [st.relation, *assume, bad], list(ind._finer(st, case, code)), ind.case_limit, deadline=deadline
            )
            answer = {UNSAT: z3.unsat, SAT: z3.sat}.get(verdict, z3.unknown)
        return bool(answer == z3.unsat)

    for code, a in enumerate(ts.actions):
        facts = goals if a.name in changed else again
        if a.parts is not None or not facts:
            continue
        bad = z3.Not(z3.And(*facts))
        for player in (0, 1):
            case = [st.act == code, st.pre.tp == player]
            if not settled(code, case, bad, ind._fresh([st.relation, *assume, *case, bad])):
                return f"the invariants are not shown kept by {a.name} under the mutant"
    return None


def _proof_kept(
    ts: Any,
    mutant: Mutant,
    invariants: list[Any],
    lemmas: Sequence[str],
    deadline: float | None,
    original: tuple[list[Any], list[Any]] | None = None,
) -> dict[str, Any] | None:
    """The survival of a mutant under which the rules' proof of every invariant still holds (`still_inductive`):
    every invariant proved for all depths, so no search can violate one; None when that is not shown."""
    from duelcheck.engines.smt import Stopped

    if not lemmas or not {p.name for p in invariants} <= set(lemmas):
        return None
    try:
        why = still_inductive(ts, mutant, lemmas, deadline, original)
    except Stopped:
        return None
    if why is not None:
        return None
    labels = [f"{p.name}[{c.label}]" if c.label else p.name for p in invariants for c in p.checks]
    return _outcome(
        "survived",
        f"every invariant ({len(invariants)}) proved for all depths under the mutant: the proof of the rules as "
        "written still holds (the mutant's steps keep every invariant from any state meeting them all); every "
        "witness the rules reach within the bound is reached",
        dict.fromkeys(labels, "proved"),
    )


def _outcome(
    status: str,
    note: str,
    verdicts: dict[str, str],
    killed_by: str | None = None,
    kill_kind: str | None = None,
    length: int | None = None,
) -> dict[str, Any]:
    """What `kill` says of a mutant (the store's columns)."""
    return {
        "status": status,
        "killed_by": killed_by,
        "kill_kind": kill_kind,
        "length": length,
        "note": note,
        "verdicts": verdicts,
    }


def kill(
    rules: Rules,
    mutant: Mutant,
    depth: int,
    found: dict[str, int],
    prove: bool = True,
    solver: str = "auto",
    timeout: float | None = None,
    plays: dict[str, Play] | None = None,
    deep: dict[str, Play] | None = None,
    lemmas: Sequence[str] = (),
    far: dict[str, Play] | None = None,
    first: Callable[[], dict[str, Any] | None] | None = None,
    first_early: bool = False,
) -> dict[str, Any]:
    """Check one mutant with the engines (see the module's docstring); `found` is the baseline's witnesses,
    `plays` the plays that reach them under the rules as written, `deep` those that reach witnesses beyond
    the bound (the last stage starts from the states of both), `lemmas` the invariants proved for the rules as
    written (when they are the whole suite and stay inductive under the mutant, it survives at once), `far` the
    random plays under the rules the far seeded search also starts from (`far_walks`, made in the preparation),
    `first` a question asked with no mutant in force before the goal-directed and wide searches (the caller's:
    whether the mutant is dead code), whose outcome, if any, is the answer; with `first_early`, asked sooner:
    once the replays and the short seeded search from the start killed nothing, before the proof is asked
    again and the longer searches.
    Returns status (killed, survived or unknown), killed_by, kill_kind (violated, not-found or unreachable),
    length, note and the verdict of every label checked."""
    from duelcheck.engines.checker import Checker
    from duelcheck.model.system import TransitionSystem
    from duelcheck.properties import PROPERTIES

    deadline = None if timeout is None else time.monotonic() + timeout
    invariants = [p for p in PROPERTIES if p.kind == "always"]
    verdicts: dict[str, str] = {}
    whole = bool(lemmas) and {p.name for p in invariants} <= set(lemmas)
    # the rules' proof terms, to tell which facts a mutant changes: a comparison's, or a hooked mutant's of an
    # action whose enabledness a property reads
    asks = mutant.kind == "compare" or (mutant.kind in HOOKED and read_by_properties(mutant))
    original = proof_terms(rules, lemmas) if prove and whole and asks else None
    ts = TransitionSystem(rules)  # its relation is made with the mutant in force, when first asked for
    walks = far or {}  # the preparation's random plays under the rules (`far_walks`), if given
    # the seeded search prunes by the lemmas: with none proved it is not run, and not set up
    seeded = seeded_setup(rules, ts, mutant, lemmas, {**(plays or {}), **(deep or {}), **walks}) if lemmas else None

    def violation_kill(r: Any) -> dict[str, Any]:
        """A certified violation found before the checker (a replayed play, the seeded search): the kill."""
        return _outcome(
            "killed",
            f"violated at step {r.length}; {r.note}",
            {r.label: f"violated ({r.length})"},
            killed_by=r.label,
            kill_kind="violated",
            length=r.length,
        )

    late = False  # whether the searches that cost the most are made (below, once the others settled nothing)
    checking = False  # whether the checker is run (last)
    seeded_depth = depth + SEEDED_BEYOND
    early = min(seeded_depth, SEEDED_EARLY)
    with activated(mutant):
        try:
            # the witnesses first: the baseline's plays replayed (milliseconds), every invariant checked along
            # them; then the seeded search for a violation, the witnesses whose play broke, the shallow search
            results, todo = _witness_replays(ts, found, plays or {}, depth)
            # the rules' own plays replayed under the mutant, every invariant checked along them (milliseconds)
            seen = _replay_violation(ts, invariants, {**(plays or {}), **(deep or {})})
            if seen is not None:
                return violation_kill(seen)
            # the seeded search: the rules' plays, pruned by their proved invariants, up to the first step the
            # mutant takes otherwise, where an invariant breaks (most kills: a missing guard lets one step through)
            # (with no invariant proved for the rules it would be the shallow search below made deeper, unpruned);
            # a short way first, before any induction question: most kills are short, and a kill needs no proof
            hit, refuted = None, 0  # refuted: every depth up to it refuted from the start, not asked again
            if seeded is not None:
                hit, _, refuted = _seeded_kill(ts, seeded, invariants, early, 0, solver, deadline)
            if hit is not None:
                return violation_kill(hit)
        except InternalError as exc:
            return _outcome("unknown", one_line(f"the two semantics disagree under this mutant: {exc}"), verdicts)
    if first_early and first is not None:
        settled = first()  # asked with no mutant in force (the caller's: a dead rule)
        if settled is not None:
            return settled
    with activated(mutant):
        try:
            # the rules' proof asked again of the mutant's steps: where it still holds, no invariant is violated
            # at any depth, so no search for a violation is made and only a lost witness can kill (measured: a
            # dropped write of `pass` whose seeded search gave no answer in 595 s, the proof kept in 45 s)
            proof = _proof_kept(ts, mutant, invariants, lemmas, deadline, original) if prove else None
            # then the seeded search the rest of the way (the depths refuted above are not asked again)
            if seeded is not None and proof is None and seeded_depth > early:
                hit, _, _ = _seeded_kill(ts, seeded, invariants, seeded_depth, 0, solver, deadline, refuted=refuted)
            if hit is not None:
                return violation_kill(hit)
            # a witness whose play broke under the mutant, searched before the shallow search: a rule made
            # stricter (a guard negated) loses a play without breaking an invariant, and the shallow search
            # after the seeded one found no violation in the first 210 mutants of a full run (of 121 kills by a
            # violation, the seeded search found every one)
            results += _witness_search(ts, todo, found, depth, solver, deadline)
            witness_lost = any(r.verdict in ("not-found", "unreachable") for r in results)
            probe = min(depth, PROBE_DEPTH)
            probed = [] if witness_lost or proof is not None else _probe(ts, invariants, probe, solver, deadline)
            kills = [r for r in probed if r.verdict == "violated" and _certified(ts, r)]
            # what the probe left open: no answer, or a violation the concrete interpreter does not confirm
            unsure = [r.label for r in probed if r.verdict != "holds" and r not in kills]
            if kills:
                best = min(kills, key=_first)
                return _outcome(
                    "killed",
                    f"violated at step {best.length} (minimal)"
                    + "".join(f"; also {r.label}" for r in sorted(kills, key=_first) if r is not best),
                    {r.label: f"violated ({r.length})" for r in kills},
                    killed_by=best.label,
                    kill_kind="violated",
                    length=best.length,
                )
            if not witness_lost:
                # a witness the rules reach only beyond the bound, that no step under the mutant takes
                results += _lost_beyond(ts, found, deep or {}, deadline)
            if not any(r.verdict in ("not-found", "unreachable") for r in results):
                if proof is not None:
                    proof["verdicts"].update({r.label: f"{r.verdict} ({r.length})" for r in results})
                    open_ = [r.label for r in results if r.verdict in ("unknown", "interrupted")]
                    if open_:  # a witness the search left open: never a survivor (nor a kill)
                        note = "every invariant proved for all depths under the mutant; no verdict for "
                        return _outcome("unknown", note + ", ".join(open_), proof["verdicts"])
                    return proof
                # the seeded search again: from the states of the rules' own plays (a duel won, a deck nearly
                # drawn), and from the start with a longer tail after the first step taken otherwise
                hit = None
                if seeded is not None:
                    hit, _, _ = _seeded_kill(ts, seeded, invariants, FAR_DEPTH, 0, solver, deadline, far=True)
                    for after in SEEDED_TAILS if hit is None else ():
                        hit, _, _ = _seeded_kill(ts, seeded, invariants, depth, after, solver, deadline)
                        if hit is not None:
                            break
                if hit is not None:
                    hit_out = violation_kill(hit)
                    hit_out["verdicts"].update({r.label: f"{r.verdict} ({r.length})" for r in results})
                    return hit_out
                searched = prove or depth > probe  # the invariants are checked again below, fully
                if unsure and not searched:
                    return _outcome(
                        "unknown",
                        f"no verdict for {', '.join(unsure)} up to {probe} steps",
                        {label: "unknown" for label in unsure},
                    )
                # the searches for a deep setting-up next (below), and the checker last: of the 684 kills of the
                # whole run on model f638f75a it made one (`compare:trigger:1`, at step 12), while for a mutant whose
                # kill needs a deep setting-up it came first and cost the most (`write:discard:11`: the checker 88
                # min, the search beyond it 28 min and more; with the checker last, killed in 46 min in all)
                settled_or_open = ("violated", "not-found", "unreachable", "unknown", "interrupted")
                late = seeded is not None and not any(r.verdict in settled_or_open for r in results)
                checking = searched
        except InternalError as exc:
            return _outcome("unknown", one_line(f"the two semantics disagree under this mutant: {exc}"), verdicts)
    if late and first is not None and not first_early:
        # asked with no mutant in force, before the searches that cost the most (the caller's: dead code)
        settled = first()
        if settled is not None:
            return settled
    if late:
        assert seeded is not None
        with activated(mutant):
            try:
                deep_hit = _goal_kill(ts, seeded, invariants, solver, deadline)
                if deep_hit == "stopped":  # the time limit only ever leaves a mutant unknown
                    done = {r.label: f"{r.verdict} ({r.length})" for r in results}
                    return _outcome("unknown", "the goal-directed search was stopped by the time limit", done)
                results += [deep_hit] if deep_hit is not None else []
                if deep_hit is None:  # then the far search much deeper, from fewer states at a time
                    far_hit, _, _ = _seeded_kill(
                        ts, seeded, invariants, WIDE_DEPTH, 0, solver, deadline, True, WIDE_STRIDE, WIDE_BATCH
                    )
                    if far_hit is None and deadline is not None and time.monotonic() > deadline:
                        done = {r.label: f"{r.verdict} ({r.length})" for r in results}
                        note = f"the seeded search {WIDE_DEPTH} steps on was stopped by the time limit"
                        return _outcome("unknown", note, done)
                    results += [far_hit] if far_hit is not None else []
                if deep_hit is None and not any(r.verdict == "violated" for r in results):
                    # then the far search one step deeper than before, from every state (the checker comes after)
                    far_hit, _, _ = _seeded_kill(ts, seeded, invariants, FAR_LAST, 0, solver, deadline, far=True)
                    if far_hit is None and deadline is not None and time.monotonic() > deadline:
                        done = {r.label: f"{r.verdict} ({r.length})" for r in results}
                        note = f"the seeded search {FAR_LAST} steps on was stopped by the time limit"
                        return _outcome("unknown", note, done)
                    results += [far_hit] if far_hit is not None else []
            except InternalError as exc:
                note = one_line(f"the two semantics disagree under this mutant: {exc}")
                return _outcome("unknown", note, verdicts)
    if checking and not any(r.verdict == "violated" for r in results):
        # last: the checker (induction, then bounded model checking to the bound), and the search beyond it
        with activated(mutant):
            try:
                checker = Checker(
                    rules, depth, solver=solver, simulate=False, prove=prove, cache=None, deadline=deadline, workers=1
                )
                results += checker.run(invariants).results
                # beyond the bound: a short search from the states of the rules' own plays (replayed under the
                # mutant), for the invariants that hold to the bound and are not proved
                bounded = {r.prop for r in results if r.kind == "always" and r.verdict == "holds" and not r.proved}
                decided = any(r.verdict in ("violated", "not-found", "unreachable") for r in results)
                if bounded and not decided:
                    props = [p for p in invariants if p.name in bounded]
                    beyond = _deep_stage(ts, props, {**(plays or {}), **(deep or {})}, solver, deadline)
                    results = [r for r in results if beyond is None or r.label != beyond.label]
                    results += [beyond] if beyond is not None else []
            except InternalError as exc:
                return _outcome("unknown", one_line(f"the two semantics disagree under this mutant: {exc}"), verdicts)
    for r in results:
        verdicts[r.label] = f"{r.verdict} ({r.length})" if r.length is not None else r.verdict
        if r.proved and r.kind == "always":
            verdicts[r.label] = "proved"
    violated = [r for r in results if r.verdict == "violated"]
    lost = [r for r in results if r.kind == "sometimes" and r.verdict in ("not-found", "unreachable")]
    if violated:
        best = min(violated, key=_first)
        return _outcome(
            "killed",
            f"violated at step {best.length}; {best.note}",
            verdicts,
            killed_by=best.label,
            kill_kind="violated",
            length=best.length,
        )
    if lost:
        reach = {**{label: len(play) for label, play in (deep or {}).items()}, **found}
        best = min(lost, key=lambda r: (reach[r.label], r.label))
        return _outcome(
            "killed",
            f"the rules as written reach it in {reach[best.label]} steps; under the mutant: {best.note}",
            verdicts,
            killed_by=best.label,
            kill_kind=best.verdict,
            length=reach[best.label],
        )
    unsettled = [r.label for r in results if r.verdict in ("unknown", "interrupted")]
    if unsettled:
        return _outcome("unknown", f"no verdict for {', '.join(unsettled)}", verdicts)
    proved = len({r.prop for r in results if r.kind == "always" and r.proved})
    note = f"no invariant violated up to {depth} steps"
    if prove:
        note += f" ({proved} of {len(invariants)} invariants proved for all depths under the mutant)"
    if found:
        note += f"; every witness the rules reach within the bound is reached ({len(found)})"
    return _outcome("survived", note, verdicts)


def model_version() -> str:
    """The model version the store keys results by (the proof cache's digest of the model's source)."""
    from duelcheck.sweep import model_version as version

    return version()


def property_files(paths: Sequence[str]) -> list[list[str]]:
    """A user's property files for the suite (`mutate --properties`): each parsed now (bad input is one line
    before anything runs), as [its absolute path, the digest of its text] (the digest is in the results'
    settings: an edited file runs the mutants again)."""
    from duelcheck.properties.user import digested

    return [list(digested(path)[:2]) for path in paths]


def with_users(rules: Rules, options: dict[str, Any]) -> None:
    """A user's properties join this process's suite (once), so that every stage reads them as it reads the
    shipped ones."""
    files = [path for path, _ in options.get("property_files", ())]
    if files:
        from duelcheck.properties.user import register

        register(files, rules)


def run_mutant(
    mutant_id: str, rules: dict[str, Any], depth: int, options: dict[str, Any], prepared: dict[str, Any]
) -> dict[str, Any]:
    """The task a worker runs: one mutant, from its equivalence question to its kill (or not)."""
    started = time.monotonic()
    r = Rules(**rules)
    with_users(r, options)
    mutant = mutant_by_id(mutant_id, r)
    status, note = equivalence(r, mutant, prepared["lemmas"])
    if status == "equivalent":
        out: dict[str, Any] = {
            "status": "equivalent",
            "killed_by": None,
            "kill_kind": None,
            "length": None,
            "note": note,
            "verdicts": {},
        }
    else:
        asked: list[dict[str, Any] | None] = []

        def dead_code() -> dict[str, Any] | None:
            """Whether the step differs only in states no play reaches, asked of induction (a proof with fixed
            resource limits: the same answer however long the engines ran before); once."""
            if not asked:
                again, why = equivalence(r, mutant, prepared["lemmas"], induction=True)
                done = {"status": "equivalent", "killed_by": None, "kill_kind": None, "length": None}
                asked.append(done | {"note": why, "verdicts": {}} if again == "equivalent" else None)
            return asked[0]

        ask = bool(prepared["lemmas"])
        out = kill(
            r,
            mutant,
            depth,
            prepared["witnesses"],
            prove=options.get("prove", True),
            solver=options.get("solver", "auto"),
            timeout=options.get("timeout"),
            plays=prepared.get("plays"),
            deep=prepared.get("deep_plays"),
            lemmas=prepared["lemmas"],
            far=prepared.get("far_plays"),
            first=dead_code if ask else None,  # before the goal-directed and wide searches, which cost the most
            first_early=mutant.kind == "drop",  # a dropped guard's twin: before the proof and the longer searches
        )
        if status == "unknown" and out["status"] != "equivalent":
            out["note"] = f"{out['note']}; {note}"
        if out["status"] in ("survived", "unknown") and ask:
            # no kill by an earlier stage either (a proof kept, a time limit): asked now, if not yet
            out = dead_code() or out
    out["seconds"] = time.monotonic() - started
    out["model_version"] = model_version()
    return out


def prepare(rules: dict[str, Any], depth: int, options: dict[str, Any]) -> dict[str, Any]:
    """The task run once before the mutants: the invariants proved for the rules as written (the lemmas of the
    equivalence questions; none with proofs off) and the witnesses they reach within the bound."""
    started = time.monotonic()
    r = Rules(**rules)
    with_users(r, options)
    lemmas: list[str] = []
    if options.get("prove", True):
        cache = options.get("cache")
        lemmas = prove_lemmas(r, Path(cache) if cache else None, options.get("lemma_suite"))
    deep = options.get("prove", True) or depth > PROBE_DEPTH  # the last stage of `kill` runs (after the checker)
    found, plays, further = baseline(r, depth, lemmas, options.get("solver", "auto"), BEYOND if deep else 0)
    reached = {**found, **{label: len(play) for label, play in further.items()}}
    return {
        "lemmas": lemmas,
        "witnesses": found,
        "plays": plays,
        # the witnesses beyond the bound: by the search a few steps on, then by simulation
        "deep_plays": {**further, **deep_plays(r, reached)} if deep else {},
        "far_plays": far_walks(r) if lemmas else {},  # the seeded search's starts: it runs only with lemmas
        "seconds": time.monotonic() - started,
        "model_version": model_version(),
    }
