"""Bounded model checking, deepening one step at a time from the initial state of the given rules.

The transition relation is built once and copied per step by substitution. One solver session holds
the unrolling (engines/smt.py: Yices through a pipe when installed, else Z3); at each depth d the
session is asked, for each pending goal in turn, "is this goal reached at step d?". Every question
below d was answered no, so a goal first reached at d has a trace of minimal length, and the
minimality is the solver's own proof. The properties are dealt to two sessions (`BMC.groups`), whatever
the number of processes: goals in one session share its unrolling and what its solver learns.
A goal not reached up to the bound was shown unreachable within it (`unreached`); a question the
solver could not answer leaves the goals it asked `unknown`, never `unreached`.

A trace is the solver's choice of actions and parameters, replayed through the concrete interpreter
from the start state: the states reported are the interpreter's, and a step it refuses is an internal
error, never a verdict. The search carries no hint about any property: the goals are the properties'
own predicates, for any rule set.

Measured on this model (2 cores, default rules, a both-players-pass step): the seed's five-link
chain is found at depth 20 with every shallower depth refuted in 28 s with Yices; Z3 took 36 s for
the single question at depth 20.
"""

from __future__ import annotations

import functools
import multiprocessing as mp
import multiprocessing.connection as mp_connection
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import z3

from duelcheck.engines.base import Result, Trace, Verdict
from duelcheck.engines.limits import check_interrupt
from duelcheck.engines.smt import (
    SAT,
    UNSAT,
    Session,
    Stopped,
    _smt2_of,
    exit_on_term,
    open_session,
    session_name,
)
from duelcheck.errors import InternalError
from duelcheck.model.state import PARAMS, State
from duelcheck.model.system import Step, SymStep, TransitionSystem
from duelcheck.properties.catalog import ActionView, Check, Property

OnResult = Callable[[Result], None]
SESSIONS = 2  # the bounded search's solver sessions, whatever the number of processes (see BMC.groups)
_TAG = re.compile(r"@T([01])(?=[|\s)])")  # the template step's state tags in its SMT-LIB text
Start = State | Sequence[State] | None  # where a search starts: the initial state, a state, or any of several
Events = Callable[[str, Any], None]  # ("depth", (group, d, bound, pending goals)) and ("settled", (goal, Reach))


class Unrolling:
    """The symbolic states s_0..s_k, the steps between them, and their constraints, grown on demand."""

    def __init__(self, ts: TransitionSystem, start: Start = None, lemmas: list[Check] | None = None):
        """`start`: the initial state (None), one state, or several (the play starts in any of them: a
        selector constant, among the choices, says which)."""
        self.ts = ts
        self.lemmas = lemmas or []
        self.states = [ts.sym_state("@0")]
        self.steps: list[SymStep | None] = [None]
        starts = _starts(ts, start)
        if not starts:
            raise InternalError("a search needs at least one state to start from")
        self.starts = starts
        self.start = starts[0]
        self.selector = None if len(starts) == 1 else z3.BitVec("start@0", max(1, (len(starts) - 1).bit_length()))
        if self.selector is None:
            self.constraints = [self._is(self.start)]
        else:
            self.constraints = [self._any_of(starts)]

    def _is(self, state: State) -> Any:
        sym = self.states[0].v
        eqs = []
        for k in self.ts.keys:
            v = state.v[k]  # a concrete flag may hold 0 or 1 where a number was written: read as its Boolean
            eqs.append(sym[k] == (bool(v) if z3.is_bool(sym[k]) else v))
        return z3.And(*eqs)

    def _any_of(self, starts: list[State]) -> Any:
        """The first state is one of `starts`, the selector saying which: each cell as a function of the selector,
        its most common value unless the selector names a state where it holds another (the size grows with the
        cells that differ between the states, not with the states times the cells: measured, 2,500 states of
        deep plays took minutes to state as one equality per cell per state)."""
        sel = self.selector
        assert sel is not None
        sym = self.states[0].v
        # no selector past the last state (when the selector's width allows one: 2 states need 1 bit, none past)
        out = [z3.ULT(sel, len(starts))] if len(starts) < 1 << sel.size() else []
        for k in self.ts.keys:
            by_value: dict[Any, list[int]] = {}
            for i, st in enumerate(starts):
                v = st.v[k]
                by_value.setdefault(bool(v) if z3.is_bool(sym[k]) else int(v), []).append(i)
            common = max(by_value, key=lambda v: (len(by_value[v]), -by_value[v][0]))
            value: Any = z3.BoolVal(common) if z3.is_bool(sym[k]) else common
            for v, ids in sorted(by_value.items(), key=lambda item: item[1][0]):
                if v == common:
                    continue
                named = z3.Or(*(sel == i for i in ids))
                value = z3.If(named, z3.BoolVal(v) if z3.is_bool(sym[k]) else z3.BitVecVal(v, sym[k].size()), value)
            out.append(sym[k] == value)
        return z3.And(*out)

    def start_of(self, values: dict[str, Any]) -> State:
        """The state the solver's play starts in (its values include the choices)."""
        if self.selector is None:
            return self.start
        return self.starts[int(values[str(self.selector)])]

    def facts(self, state: State) -> Any:
        """The lemmas in `state`: built once over a template state and copied by substitution, like the
        step relation (evaluating every lemma again in each state cost more than the solver's answers)."""
        key = ("facts", tuple(self.lemmas))
        if key not in self.ts.cache:  # made once per system and process, like the step relation
            tpl = self.ts.sym_state("@lemmas")
            terms = [c.eval(None, None, tpl) for c in self.lemmas]
            self.ts.cache[key] = (tpl, z3.And(*(t for t in terms if not isinstance(t, bool))))
        tpl, facts = self.ts.cache[key]
        return z3.substitute(facts, *[(tpl.v[key], state.v[key]) for key in self.ts.keys])

    def text(self, k: int) -> list[str]:
        """Step k's constraint (`constraints[k]`, k >= 1) as SMT-LIB lines: the text of one template step,
        made once per process (`smt._smt2_of`, canonical), with the names of its two states, its action and
        its parameters renamed to step k's. Every name of step k ends in its state's tag, so renaming is
        exact, and the text depends on the template alone: the same on every run and in every process."""
        key = ("step-text", tuple(self.lemmas))
        tpl = self.ts.cache.get(key)
        if tpl is None:
            pre = self.ts.sym_state("@T0")
            st = self.ts.sym_step(pre, "@T1")
            tpl = _smt2_of(z3.And(st.relation, self.facts(st.post)) if self.lemmas else st.relation)
            self.ts.cache[key] = tpl
        tags = {"0": f"@{k - 1}", "1": f"@{k}"}
        lines = [_TAG.sub(lambda m: tags[m.group(1)], line) for line in tpl]
        return sorted(ln for ln in lines if ln.startswith("(declare-fun")) + [
            ln for ln in lines if not ln.startswith("(declare-fun")
        ]

    def extend(self, depth: int) -> None:
        while len(self.states) <= depth:
            k = len(self.states)
            st = self.ts.sym_step(self.states[-1], f"@{k}")
            self.states.append(st.post)
            self.steps.append(st)
            # proved invariants hold in every reachable state: asserting them prunes the search soundly
            self.constraints.append(z3.And(st.relation, self.facts(st.post)) if self.lemmas else st.relation)

    def value(self, check: Check, k: int) -> Any:
        """The check's predicate at step k (a state check at s_k, a step check on s_{k-1} -> s_k)."""
        if check.on == "state":
            v = check.eval(None, None, self.states[k])
        else:
            if k == 0:
                return None
            st = self.steps[k]
            assert st is not None
            v = check.eval(self.states[k - 1], ActionView(st.act, st.params, symbolic=True), self.states[k])
        return z3.BoolVal(v) if isinstance(v, bool) else v

    def choices(self, k: int) -> list[Any]:
        """The action and parameter variables of steps 1..k: all a trace needs."""
        out: list[Any] = [] if self.selector is None else [self.selector]
        for st in self.steps[1 : k + 1]:
            assert st is not None
            out.append(st.act)
            out += [st.params[name] for name in PARAMS]
        return out

    def moves(self, values: dict[str, int | bool], k: int) -> list[tuple[str, dict[str, int]]]:
        """The actions and parameters the solver chose for steps 1..k."""
        out = []
        for st in self.steps[1 : k + 1]:
            assert st is not None
            act = self.ts.actions[int(values[str(st.act)])]
            out.append((act.name, {name: signed(values[str(st.params[name])], name) for name in act.params}))
        return out


def _starts(ts: TransitionSystem, start: Start) -> list[State]:
    return [ts.init()] if start is None else [start] if isinstance(start, State) else list(start)


def _index_of(starts: list[State], state: State) -> int:
    return next(i for i, st in enumerate(starts) if st.v == state.v)


def replay_moves(ts: TransitionSystem, start: State | None, moves: list[tuple[str, dict[str, int]]]) -> Trace:
    """A play the solver chose, replayed through the concrete interpreter: the states reported are the
    interpreter's, and a step it refuses is an internal error, never a verdict."""
    state = ts.init() if start is None else start
    steps = [Step("init", {}, state)]
    for name, params in moves:
        out = ts.apply(state, name, params)
        if not out.ok or out.state is None:
            raise InternalError(f"the solver's step {len(steps)} ({name}) is refused concretely: {out.reason}")
        state = out.state
        steps.append(Step(name, params, state))
    return Trace(steps)


def signed(value: int | bool, name: str) -> int:
    """A parameter's value as the solver reports it (a bit-vector's unsigned reading), as the rules read it."""
    spec = PARAMS[name]
    v = int(value)
    if spec.sort == "int" and spec.width > 1 and v >= 1 << (spec.width - 1):
        v -= 1 << spec.width
    return v


class SideJob:
    """Other work that shares the search's processes (the slower induction proofs): `run` is called in a
    child process and returns a picklable value, which `done` hears in this process."""

    def run(self) -> Any:
        raise NotImplementedError

    def done(self, value: Any) -> None:
        raise NotImplementedError


def _side_child(conn: Any, job: SideJob) -> None:  # pragma: no cover - runs in a child process
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops this process
    signal.signal(signal.SIGTERM, exit_on_term)  # stopped by the parent: its solver processes stop too
    try:
        conn.send(("value", job.run()))
    except KeyboardInterrupt:
        pass
    except Exception as exc:  # reported by the parent as an internal error
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def deepen_once(
    ts: TransitionSystem,
    session: Session,
    u: Unrolling,
    d: int,
    pending: set[int],
    target: Callable[[int, int], Any],
    reached: Callable[[int, int, Trace, dict[str, Any]], None],
    ask: Callable[[], None] = check_interrupt,
    wanted: Callable[[int], Sequence[Any]] = lambda d: (),
    name: str = "hit",
) -> bool:
    """The questions of one depth of the deepening search, on a session that holds the unrolling to `d`: while
    some pending goal (its `target(i, d)`, a Z3 term or None) holds at step d, the solver's play is replayed
    through the concrete interpreter and `reached(i, d, trace, values)` hears each goal it reaches, which
    leaves `pending`. When none holds any more, that is asserted for the deeper questions (every shorter
    depth was refuted: a goal reached later has a play of minimal length). `ask` runs before each question
    (a Ctrl-C or a time limit stops there); `wanted(d)`, asked once the targets are built, are more constants
    whose values `reached` needs. False
    when the solver gave no answer (the goals left pending are then not settled at this depth)."""
    hits: dict[int, Any] = {}
    for i in sorted(pending):
        t = target(i, d)
        if t is not None and not z3.is_false(t):
            hit = z3.Bool(f"{name}#{i}@{d}")
            session.add(hit == t)
            hits[i] = hit
    more = wanted(d)
    while hits:
        ask()
        answer, values = session.check(z3.Or(*hits.values()), [*hits.values(), *u.choices(d), *more])
        if answer == UNSAT:
            # proved: no pending goal holds at depth d; kept as a fact for the deeper questions
            session.add(z3.Not(z3.Or(*hits.values())))
            return True
        if answer != SAT:
            return False
        trace = replay_moves(ts, u.start_of(values), u.moves(values, d))
        settled = [i for i, h in hits.items() if values.get(str(h))]
        if not settled:
            raise InternalError("the solver's model reaches none of the goals it was asked for")
        for i in settled:
            reached(i, d, trace, values)
            pending.discard(i)
            del hits[i]
    return True


class Goal:
    """One check of one property, as a target: a violation of an invariant, or a witness."""

    def __init__(self, prop: Property, check: Check):
        self.prop = prop
        self.check = check

    def target(self, u: Unrolling, k: int) -> Any:
        v = u.value(self.check, k)
        if v is None:
            return None
        return z3.Not(v) if self.prop.kind == "always" else v


class _Told(Session):
    """A session that keeps what it was told, so that a fresh solver can be told the same (`renew`): after
    a question a time limit cut short, the solver may still be working on it."""

    def __init__(self, opener: Callable[[], Session]):
        self.opener = opener
        self.inner = opener()
        self.name = self.inner.name
        self.told: list[tuple[Any, Callable[[], list[str]] | None]] = []

    def add(self, term: Any) -> None:
        self.told.append((term, None))
        self.inner.add(term)

    def add_step(self, term: Any, text: Callable[[], list[str]]) -> None:
        self.told.append((term, text))
        self.inner.add_step(term, text)

    def check(self, goal: Any, wanted: Sequence[Any]) -> tuple[str, dict[str, int | bool]]:
        self.inner.deadline = self.deadline
        return self.inner.check(goal, wanted)

    def renew(self) -> None:
        self.inner.close()
        self.inner = self.opener()
        for term, text in self.told:
            if text is None:
                self.inner.add(term)
            else:
                self.inner.add_step(term, text)

    def close(self) -> None:
        self.inner.close()


@dataclass
class Reach:
    """What the search says of one goal: `reached` at `depth` (minimal), `unreached` up to `depth`
    (every depth refuted), `unknown` from `depth` on (the solver did not answer there), or `unreachable`
    (a witness whose negation was proved for all depths before any search)."""

    status: str
    depth: int
    trace: Trace | None = None
    note: str = ""
    seconds: float = 0.0  # from the start of the search until this goal was settled


class BMC:
    name = "bmc"

    def __init__(
        self,
        system: TransitionSystem,
        solver: str = "auto",
        rlimit: int | None = None,
        lemmas: list[Check] | None = None,
        deadline: float | None = None,
        workers: int = 1,
        property_timeout: float | None = None,
        together: bool = False,
        unreachable: Callable[[Goal], bool] | None = None,
    ):
        self.ts = system
        # a proof asked of each witness before it is searched (in the search's process): True settles it
        # `unreachable` without a search
        self.unreachable = unreachable
        self.together = together  # every goal in one group: one unrolling, each question asks for any goal
        self.property_timeout = property_timeout  # seconds each goal may be searched (from its group's start)
        self.workers = max(1, workers)
        self.solver = solver
        self.rlimit = rlimit
        self.lemmas = lemmas or []
        self.deadline = deadline
        self.questions = 0
        self.used = ""

    def groups(self, goals: list[Goal]) -> list[list[int]]:
        """The goals each solver session searches: the properties dealt in turn, in the order given, to
        `SESSIONS` sessions (a property's checks stay together), each goal asked on its own at each depth;
        with `together`, every goal in one session and each question for any of them (the first depth at
        which any goal is reached). The grouping depends on the goals alone, never on the number of
        processes or their timing, so the questions asked, and so the traces, are the same on every run."""
        if self.together:
            return [list(range(len(goals)))] if goals else []
        props = list(dict.fromkeys(g.prop.name for g in goals))
        dealt = [[i for i, g in enumerate(goals) if props.index(g.prop.name) % SESSIONS == j] for j in range(SESSIONS)]
        return [group for group in dealt if group]

    def reach(
        self,
        goals: list[Goal],
        depth: int,
        start: Start = None,
        events: Events | None = None,
        side: list[SideJob] | None = None,
    ) -> list[Reach]:
        """For each goal: reached at its minimal depth, unreached up to `depth`, or unknown.

        Each group of goals (`groups`) is searched by its own process and solver, at most `workers` at a
        time, taken in order as processes come free; `side` jobs (a proof, say) share the same processes,
        first in line, and so do side jobs appended to `side` while the search runs (a follow-up of a goal
        just settled, by whoever heard it), ahead of the groups still waiting. Where processes cannot be
        forked, everything runs here one after the other, alike.
        `events` hears, as they happen, each group's depth ("depth", (group, d, bound, pending)) and each
        goal settled ("settled", (goal index, Reach)): a live display shows a row at once."""
        emit = events or (lambda kind, data: None)
        self.used = session_name(self.solver)
        groups = self.groups(goals)
        if goals and self.used == "yices":
            # the step's relation, the lemmas and the step's text are made once, here: every search process
            # starts with them (forked), instead of each making them again
            Unrolling(self.ts, start, self.lemmas).text(1)
        side = side if side is not None else []
        jobs: list[tuple[int, list[int]] | SideJob] = [*side, *enumerate(groups)]
        seen = len(side)

        def later(queue: list[tuple[int, list[int]] | SideJob]) -> None:
            """Side jobs appended since the last look go ahead of the groups still waiting."""
            nonlocal seen
            if len(side) > seen:
                queue[0:0] = side[seen:]
                seen = len(side)

        if len(jobs) < 2 or self.workers < 2 or "fork" not in mp.get_all_start_methods():
            done: dict[int, Reach] = {}
            while True:
                later(jobs)
                if not jobs:
                    break
                job = jobs.pop(0)
                if isinstance(job, SideJob):
                    job.done(job.run())
                    continue
                gi, group = job
                found = self._reach_group([goals[i] for i in group], depth, start, _local(emit, gi, group))
                done.update(zip(group, found, strict=True))
                emit("done", (gi,))
            return [done[i] for i in range(len(goals))]
        ctx = mp.get_context("fork")
        out: list[Reach | None] = [None] * len(goals)
        queue = list(jobs)
        live: dict[Any, tuple[Any, tuple[int, list[int]] | SideJob]] = {}
        try:
            while True:
                later(queue)
                if not queue and not live:
                    break
                while queue and len(live) < self.workers:
                    job = queue.pop(0)
                    recv, send = ctx.Pipe(duplex=False)
                    if isinstance(job, SideJob):
                        proc = ctx.Process(target=_side_child, args=(send, job), daemon=True)
                    else:
                        chosen = [goals[i] for i in job[1]]
                        proc = ctx.Process(target=self._child, args=(send, chosen, depth, start), daemon=True)
                    proc.start()
                    send.close()
                    live[recv] = (proc, job)
                check_interrupt()  # waiting in short slices: a Ctrl-C is seen within a moment
                ready: list[Any] = mp_connection.wait(list(live), timeout=0.2)
                for conn in ready:
                    proc, job = live[conn]
                    try:
                        msg = conn.recv()
                    except EOFError:  # it ended without a word: a crash
                        proc.join()
                        msg = ("error", f"exit code {proc.exitcode}")
                    kind = msg[0]
                    if kind == "error":
                        raise InternalError(f"a search process failed: {msg[1]}")
                    if isinstance(job, SideJob):
                        job.done(msg[1])
                        kind = "done"
                    else:
                        gi, group = job
                        if kind == "depth":
                            emit("depth", (gi, *msg[1:]))
                        elif kind == "settled":
                            i, reach = group[msg[1]], self._reach_of(msg[2:], start)
                            out[i] = reach
                            emit("settled", (i, reach))
                        elif kind == "done":
                            self.used, self.questions = msg[1], self.questions + msg[2]
                    if kind == "done":
                        if not isinstance(job, SideJob):
                            emit("done", (job[0],))
                        del live[conn]
                        proc.join()
                        conn.close()
        finally:
            for proc, _ in live.values():
                if proc.is_alive():
                    proc.terminate()
                proc.join()
            for conn in live:
                conn.close()
        if any(r is None for r in out):
            raise InternalError("a search process ended without settling every goal")
        return [r for r in out if r is not None]

    def _reach_of(self, row: tuple[Any, ...], start: Start) -> Reach:
        status, d, (first, moves), note, seconds = row
        trace = None if moves is None else replay_moves(self.ts, _starts(self.ts, start)[first], moves)
        return Reach(status, d, trace, note, seconds)

    def _child(self, conn: Any, goals: list[Goal], depth: int, start: Start) -> None:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops this process
        signal.signal(signal.SIGTERM, exit_on_term)  # stopped by the parent: its solver process stops too

        def send(kind: str, data: Any) -> None:  # pragma: no cover - runs in a child process
            if kind == "depth":
                conn.send(("depth", *data))
            else:
                i, r = data
                moves = None if r.trace is None else [(st.action, st.params) for st in r.trace.steps[1:]]
                first = 0 if r.trace is None else _index_of(starts, r.trace.steps[0].state)
                conn.send(("settled", i, r.status, r.depth, (first, moves), r.note, r.seconds))

        starts = _starts(self.ts, start)

        try:  # pragma: no cover - runs in a child process
            self._reach_group(goals, depth, start, send)
            conn.send(("done", self.used, self.questions))
        except KeyboardInterrupt:  # pragma: no cover
            pass
        except Exception as exc:  # pragma: no cover - reported by the parent as an internal error
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
        finally:
            conn.close()

    def _reach_group(
        self, goals: list[Goal], depth: int, start: Start = None, emit: Events | None = None
    ) -> list[Reach]:
        """For each goal: reached at its minimal depth, unreached up to `depth`, or unknown; each goal
        is told to `emit` as ("settled", (index, Reach)) once settled, each depth as ("depth", (d, bound, n)).

        One session holds the unrolling; at each depth each pending goal is asked in turn (in `together`
        mode, one question for any of them), so the goals share the unrolling and what the solver learns
        (measured: four witnesses at depths 11 to 12 in 10 s in one session, 18 s in four). A goal's own
        time limit (`property_timeout`, the seconds of its own questions) makes that goal `unknown` alone;
        the others go on in a fresh session told the same constraints (the solver may be mid-answer)."""
        tell: Events = emit or (lambda kind, data: None)
        u = Unrolling(self.ts, start, self.lemmas)
        out: list[Reach | None] = [None] * len(goals)
        pending = set(range(len(goals)))
        units = [list(range(len(goals)))] if self.together else [[i] for i in range(len(goals))]
        spent = [0.0] * len(units)  # the seconds of each unit's own questions
        t0 = time.perf_counter()
        session = _Told(lambda: open_session(self.solver, self.rlimit, self.deadline))
        self.used = session.name
        current = 0  # the unit being asked

        def limit() -> float | None:
            if self.property_timeout is None:
                return None
            return time.monotonic() + self.property_timeout - spent[current]

        def ask() -> None:  # before each question: a Ctrl-C or a time limit stops the search here
            check_interrupt()
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise Stopped("the run's time limit (--timeout)")
            mine = limit()
            if mine is not None and time.monotonic() > mine:
                raise Stopped(f"the property time limit (--property-timeout {self.property_timeout:g} s)")
            self.questions += 1

        def reached(i: int, d: int, trace: Trace, values: dict[str, Any]) -> None:
            out[i] = Reach("reached", d, trace, seconds=time.perf_counter() - t0)
            tell("settled", (i, out[i]))

        def give_up(ids: set[int], d: int, note: str) -> None:
            for i in ids:
                if out[i] is None:  # (a goal reached before the question that stopped stays reached)
                    out[i] = Reach("unknown", d, None, note, seconds=time.perf_counter() - t0)
            pending.difference_update(ids)

        try:
            if self.unreachable is not None:
                for i in sorted(pending):
                    if goals[i].prop.kind == "sometimes" and self.unreachable(goals[i]):
                        out[i] = Reach("unreachable", depth, note="its negation is proved for all depths")
                pending -= {i for i, r in enumerate(out) if r is not None}
            session.add(u.constraints[0])
            for d in range(depth + 1):
                if not pending:
                    break
                if d > 0:
                    u.extend(d)
                    session.add_step(u.constraints[d], functools.partial(u.text, d))
                tell("depth", (d, depth, len(pending)))
                for current, unit in enumerate(units):
                    asked = pending.intersection(unit)
                    if not asked:
                        continue
                    deadlines = [x for x in (self.deadline, limit()) if x is not None]
                    session.deadline = min(deadlines) if deadlines else None
                    began = time.perf_counter()
                    try:
                        answered = deepen_once(
                            self.ts, session, u, d, asked, lambda i, d: goals[i].target(u, d), reached, ask
                        )
                    except Stopped:
                        if self.deadline is not None and time.monotonic() >= self.deadline:
                            raise
                        why = f"the property time limit (--property-timeout {self.property_timeout:g} s)"
                        give_up(asked, d, f"stopped at depth {d}: {why}")
                        if pending:
                            session.renew()  # the solver may be mid-answer: a fresh one, told the same
                        continue
                    finally:
                        spent[current] += time.perf_counter() - began
                    pending.difference_update(i for i in unit if out[i] is not None)
                    if not answered:
                        give_up(asked & pending, d, f"the solver gave no answer at depth {d}")
        except Stopped as stop:
            now = time.monotonic()
            why = str(stop)
            if self.deadline is not None and now >= self.deadline:
                why = "the run's time limit (--timeout)"
            for i in sorted(pending):
                out[i] = Reach("unknown", len(u.states) - 1, None, f"stopped at depth {len(u.states) - 1}: {why}")
            pending.clear()
        finally:
            session.close()
        for i in pending:
            out[i] = Reach("unreached", depth)
        for i, r in enumerate(out):
            if r is not None and r.status != "reached":
                r.seconds = r.seconds or time.perf_counter() - t0
                tell("settled", (i, r))
        return [r for r in out if r is not None]

    def run(
        self,
        props: list[Property],
        depth: int,
        events: Events | None = None,
        on_result: OnResult | None = None,
        side: list[SideJob] | None = None,
        start: Start = None,
    ) -> list[Result]:
        """A result per check of each property; `on_result` hears each one as soon as it is settled.
        `side` jobs share the search's processes (see `reach`); `start`: where the plays start (see
        `Unrolling`; a trace then starts there, not in the initial state)."""
        goals = [Goal(p, c) for p in props for c in p.checks]
        if not goals:
            for job in side or []:
                job.done(job.run())
            return []
        results: dict[int, Result] = {}

        def result(i: int, r: Reach) -> Result:
            g = goals[i]
            kind = g.prop.kind
            verdict: Verdict
            if r.status == "reached":
                verdict = "violated" if kind == "always" else "found"
            elif r.status == "unreachable":
                verdict = "unreachable"
            elif r.status == "unreached":
                verdict = "holds" if kind == "always" else "not-found"
            else:
                verdict = "unknown"
            res = Result(g.prop.name, g.check.label, kind, verdict, r.depth, r.seconds, self.name, r.trace, r.note)
            res.minimal = r.status == "reached"
            res.proved = r.status == "unreachable"
            return res

        def hear(kind: str, data: Any) -> None:
            if kind == "settled":
                i, reach = data
                results[i] = result(i, reach)
                if on_result is not None:
                    on_result(results[i])
            elif events is not None:
                events(kind, data)

        found = self.reach(goals, depth, start, hear, side)
        return [results[i] if i in results else result(i, r) for i, r in enumerate(found)]


def _local(emit: Events, gi: int, group: list[int]) -> Events:
    """The events of one group's search, with the group's goal indices turned into the whole list's."""

    def tell(kind: str, data: Any) -> None:
        if kind == "depth":
            emit("depth", (gi, *data))
        else:
            emit("settled", (group[data[0]], data[1]))

    return tell
