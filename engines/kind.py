"""Proofs for all depths by induction (1-induction over the state invariants, proved together).

The state invariants are assumed in a state s; every invariant is then asked of any successor of s
(step invariants of the transition s -> s'). An invariant that fails (or is not settled) is dropped
from the assumptions and the rest asked again, until a fixpoint: what remains is mutually inductive.
With the base case (the initial state satisfies every state invariant, and every first step
satisfies the step invariants), the survivors hold in every reachable state, at every depth.

How the questions are asked (measured on this model): one question per conjunct of an invariant,
on one incremental solver holding the relation and the assumptions, answers the whole suite in a
few seconds, where one question per invariant (a disjunction of ~200 negated facts) timed out at
60 s. A conjunct the incremental solver cannot settle within a small resource limit is split by
action and by the turn player, each case asked of a fresh solver with the case as a hard constraint,
so that preprocessing removes every other action: Yices when installed, each case to its end (measured:
card-conservation's step in 14 s, where Z3 within its resource limit and then Yices on a finer split took
42 s). Without Yices, a case Z3 does not settle is split once more: an action that names a zone by that
zone, any other by the length of the chain and the effect and player of its last link (where `resolve`
reads symbolic indices), and asked of Z3 again.
Every fact the incremental solver settled is then re-checked by fresh solvers, case by case, from the
final assumption set (a fact settled by the case split was settled by fresh solvers already).

Limits are Z3 resource limits (`rlimit`, counted in the solver's own steps), never time-outs, and
Yices runs each finer case to its end, so a proof does not depend on the machine's load: the same
rules prove the same invariants every time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import z3

from duelcheck.engines.cache import ProofCache
from duelcheck.engines.limits import check_interrupt
from duelcheck.engines.smt import SAT, UNSAT, Stopped, exit_on_term, solve_cases, yices_path
from duelcheck.errors import InternalError
from duelcheck.model.cards import Effect
from duelcheck.model.state import PARAMS
from duelcheck.model.system import SymStep, TransitionSystem
from duelcheck.properties.catalog import ActionView, Check, Property

# About 1 s and 4 s of solver work on this machine (measured 1.8 to 6.4 million units a second).
QUICK_RLIMIT = 4_000_000
CASE_RLIMIT = 16_000_000
# The first layer's questions go to this many incremental solvers, the invariants dealt out by the number of
# facts each must keep. The split is fixed, so the answers (within resource limits) do not depend on the
# number of processes; with two or more, the parts run at once.
QUICK_PARTS = 2


def fork_map(fn: Callable[[Any], Any], items: list[Any], workers: int) -> list[Any]:
    """[fn(x) for x in items], the items after the first in forked processes when `workers` > 1 (one each),
    the first here; in order either way. In a daemon process (a search process), or where processes cannot
    be forked, one after the other. `fn` returns a picklable value; a time limit or a Ctrl-C it meets
    stops the lot."""
    import multiprocessing as mp
    import multiprocessing.connection as mp_connection

    if workers < 2 or len(items) < 2 or mp.current_process().daemon or "fork" not in mp.get_all_start_methods():
        return [fn(x) for x in items]
    ctx = mp.get_context("fork")
    live = []
    try:
        for x in items[1:]:
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_fork_child, args=(send, fn, x), daemon=True)
            proc.start()
            send.close()
            live.append((proc, recv))
        out = [fn(items[0])]
        for proc, recv in live:
            while not mp_connection.wait([recv], timeout=0.2):
                check_interrupt()  # waiting in short slices: a Ctrl-C is seen within a moment
            try:
                kind, value = recv.recv()
            except EOFError:
                check_interrupt()
                raise InternalError(f"a proof process ended without a word (exit code {proc.exitcode})") from None
            if kind == "interrupted":
                raise KeyboardInterrupt
            if kind == "stopped":
                raise Stopped(value)
            if kind == "error":
                raise InternalError(f"a proof process failed: {value}")
            out.append(value)
        return out
    finally:
        for proc, recv in live:
            if proc.is_alive():
                proc.terminate()
            proc.join()
            recv.close()


def _fork_child(conn: Any, fn: Callable[[Any], Any], x: Any) -> None:  # pragma: no cover - a child process
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops this process
    signal.signal(signal.SIGTERM, exit_on_term)  # stopped by the parent: its solver processes stop too
    try:
        conn.send(("value", fn(x)))
    except KeyboardInterrupt:  # a Ctrl-C the parent had recorded before this process began
        conn.send(("interrupted", None))
    except Stopped as stop:
        conn.send(("stopped", str(stop)))
    except Exception as exc:
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def conjuncts(term: Any) -> list[Any]:
    """The top-level conjuncts of a predicate (a Python bool or a Z3 term)."""
    if isinstance(term, bool):
        return [] if term else [z3.BoolVal(False)]
    if z3.is_and(term):
        return [c for child in term.children() for c in conjuncts(child)]
    if z3.is_true(term):
        return []
    return [term]


def negation(check: Check) -> Check:
    """The check that holds exactly where `check` does not (a witness read as an invariant)."""

    def neg(*args: Any) -> Any:
        v = check.fn(*args)
        state = args[0]
        return state.k.not_(v)

    return Check(check.label, check.on, neg)


class Induction:
    name = "k-induction"

    def __init__(
        self,
        system: TransitionSystem,
        rlimit_scale: float = 1.0,
        cache: Path | None = None,
        deadline: float | None = None,
        workers: int = 1,
    ):
        self.ts = system
        self.workers = workers  # processes for the first layer's parts and its certificate
        self.deadline = deadline  # a time limit the user set (time.monotonic()); past it, Stopped
        self.quick_limit = int(QUICK_RLIMIT * rlimit_scale)
        self.case_limit = int(CASE_RLIMIT * rlimit_scale)
        self.notes: dict[str, str] = {}
        self.seconds: dict[str, float] = {}
        self.queries = 0
        self.cache = ProofCache(cache) if cache is not None else None
        self.proved: set[str] = set()
        self.quick: set[str] = set()  # proved by the first layer alone: the bounded search's lemmas
        self.open: set[str] = set()  # left by the first layer to the second (prove_slow)
        self._candidates: list[Property] = []
        self.from_cache = False
        self._suite: list[Property] = []
        self._pre = system.sym_state("@i0")
        # composite actions (runs of fine steps in one) reach no state the fine steps do not: proofs over
        # every depth take the fine relation only
        self._st = system.sym_step(self._pre, "@i1", fine=True)
        self._act = ActionView(self._st.act, self._st.params, symbolic=True)
        self._first = system.sym_step(system.sym_state("@b0"), "@b1", fine=True)  # the first step, for the base case
        self._memo: dict[tuple[str, str], tuple[Property, list[Any]]] = {}  # a property's facts, built once

    # -- questions ----------------------------------------------------------------------------
    def _tick(self) -> None:
        """Stop between questions on Ctrl-C, or once the user's time limit has passed (nothing is cached)."""
        check_interrupt()
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise Stopped("time limit")

    def _fresh(self, constraints: list[Any]) -> Any:
        self._tick()
        solver = z3.SolverFor("QF_BV")
        solver.set("rlimit", self.case_limit)
        solver.add(*constraints)
        self.queries += 1
        return solver.check()

    def _cases(self, st: SymStep) -> Iterator[tuple[int, list[Any]]]:
        """The case split: each action (of the fine relation the proofs take), for each turn player."""
        for code, action in enumerate(self.ts.actions):
            if action.parts is not None:
                continue
            for player in (0, 1):
                yield code, [st.act == code, st.pre.tp == player]

    def _finer(self, st: SymStep, case: list[Any], code: int | None = None) -> Iterator[list[Any]]:
        """A case split further: an action that names a zone, by that zone (its writes then land in one
        known place); any other, by the chain's length and the effect and player of its last link (what
        `resolve` reads at symbolic indices). Each split ends with a case for whatever it does not name."""
        pre = st.pre
        if code is not None and "zone" in self.ts.actions[code].params:
            zone = st.params["zone"]
            named = [zone == z for z in range(PARAMS["zone"].hi + 1)]
            yield from ([*case, v] for v in named)
            yield [*case, z3.Not(z3.Or(*named))]
            return
        covered = [pre.g("chain_len") == 0]
        yield [*case, covered[0]]
        for n in range(1, self.ts.rules.chain_links + 1):
            for eff in Effect:
                for owner in (0, 1):  # and its player (measured: card-conservation's resolve 75 s -> 40 s)
                    split = z3.And(
                        pre.g("chain_len") == n, pre.g("c_eff", n - 1) == int(eff), pre.g("c_owner", n - 1) == owner
                    )
                    covered.append(split)
                    yield [*case, split]
        yield [*case, z3.Not(z3.Or(*covered))]  # whatever else (out of range): the split leaves no gap

    def _by_cases(self, st: SymStep, assume: list[Any], bad: Any, hard: bool = False) -> Any:
        """unsat when no case has a successor violating the fact; otherwise sat or unknown.

        Each case is asked of a fresh Z3 within the resource limit, and a case it leaves is split finer and
        asked of Yices (or Z3 again). Facts the incremental Z3 could not settle (`hard`) go to Yices at once
        when it is installed: each case a fresh Yices process, two at a time, to its end (measured, default
        rules: card-conservation's step in 14 s, against 42 s for Z3 within its resource limit and then Yices
        on the finer split of what Z3 left; the certificate of the first layer, facts Z3 settled, takes
        fresh Z3 cases 5.6 s and Yices 9.8 s)."""
        if hard and yices_path() is not None:
            each = [case for _, case in self._cases(st)]
            self.queries += len(each)
            verdict = solve_cases([st.relation, *assume, bad], each, deadline=self.deadline)
            return {UNSAT: z3.unsat, SAT: z3.sat}.get(verdict, z3.unknown)
        cases = list(self._cases(st))

        def first_open(part: int) -> tuple[tuple[int, str] | None, int]:
            """The first case of this part (every QUICK_PARTS-th) not shown unsat, (its index, the answer), and
            the questions asked (counted by the caller: this may run in another process)."""
            before = self.queries
            try:
                return ask_part(part), self.queries - before
            finally:
                self.queries = before

        def ask_part(part: int) -> tuple[int, str] | None:
            for i in range(part, len(cases), QUICK_PARTS):
                code, case = cases[i]
                answer = self._fresh([st.relation, *assume, *case, bad])
                if answer == z3.unknown:
                    splits = list(self._finer(st, case, code))
                    self.queries += len(splits)
                    verdict = solve_cases([st.relation, *assume, bad], splits, self.case_limit, deadline=self.deadline)
                    answer = {UNSAT: z3.unsat, SAT: z3.sat}.get(verdict, z3.unknown)
                if answer != z3.unsat:
                    return i, str(answer)
            return None

        # the answer of the first case in order not shown unsat, as if the cases were asked one by one
        answers = fork_map(first_open, list(range(QUICK_PARTS)), self.workers)
        self.queries += sum(n for _, n in answers)
        found = [r for r, _ in answers if r is not None]
        if not found:
            return z3.unsat
        return {"sat": z3.sat, "unsat": z3.unsat}.get(min(found)[1], z3.unknown)

    # -- the proof ----------------------------------------------------------------------------
    def _facts(self, check: Check, pre: Any, act: Any, post: Any) -> list[Any]:
        return conjuncts(check.eval(pre, act, post) if check.on == "step" else check.eval(None, None, post))

    def _state_facts(self, props: list[Property], names: set[str]) -> list[Any]:
        """The state checks of the named properties in the step's pre-state (each built once: the fixpoint
        rounds and the certificate ask for them again)."""
        out = []
        for p in props:
            if p.name in names:
                key = ("state", p.name)
                if key not in self._memo or self._memo[key][0] is not p:
                    facts = [f for c in p.checks if c.on == "state" for f in self._facts(c, None, None, self._pre)]
                    self._memo[key] = (p, facts)
                out += self._memo[key][1]
        return out

    def _goals(self, p: Property) -> list[Any]:
        """What the step must keep of the property: its checks on the step (each built once)."""
        key = ("goals", p.name)
        if key not in self._memo or self._memo[key][0] is not p:
            self._memo[key] = (p, [f for c in p.checks for f in self._facts(c, self._pre, self._act, self._st.post)])
        return self._memo[key][1]

    def _base(self, p: Property) -> bool:
        """The initial state satisfies the state checks, and every first step the step checks."""
        ts = self.ts
        init = ts.init()
        if not all(c.eval(None, None, init) for c in p.checks if c.on == "state"):
            return False
        first = self._first
        # and read symbolically: a predicate whose two readings disagree (a constant too wide for its field
        # wraps around in the solver) must not be proved from a false assumption in the inductive step
        facts = [f for c in p.checks if c.on == "state" for f in self._facts(c, None, None, first.pre)]
        if facts and self._fresh([ts.sym_init(first.pre), z3.Not(z3.And(*facts))]) != z3.unsat:
            return False
        first_act = ActionView(first.act, first.params, symbolic=True)
        for c in p.checks:
            if c.on == "step":
                bad = z3.Not(z3.And(*self._facts(c, first.pre, first_act, first.post)))
                if self._fresh([ts.sym_init(first.pre), first.relation, bad]) != z3.unsat:
                    return False
        return True

    def _inductive(self, candidates: list[Property], lemmas: list[Any]) -> set[str]:
        """The largest subset of the candidates that is inductive together, assuming the lemmas.

        In two layers. First the invariants whose every fact the incremental solver settles within the
        quick limit, assuming only each other (a fixpoint; the others count as not yet proved): they are
        inductive on their own. Then the rest, with the first layer as lemmas, each property's
        remaining facts asked at once by the case split on fresh solvers (again to a fixpoint)."""
        quick, slow = self._quick_layer(candidates, lemmas)
        return quick | self._slow_layer(candidates, lemmas, quick, slow)

    def _slow_layer(self, candidates: list[Property], lemmas: list[Any], quick: set[str], slow: set[str]) -> set[str]:
        """Of the invariants the quick layer left open (`slow`), those inductive together with the quick
        layer as lemmas, each property's facts asked at once by the case split (to a fixpoint)."""
        if not slow:
            return set()
        layer = lemmas + self._state_facts(candidates, quick)
        rest = [p for p in candidates if p.name in slow]
        active = {p.name for p in rest}
        while active:
            assume = layer + self._state_facts(rest, active)
            failed = set()
            for p in rest:
                if p.name not in active:
                    continue
                t0 = time.perf_counter()
                answer = self._by_cases(self._st, assume, z3.Not(z3.And(*self._goals(p))), hard=True)
                if answer != z3.unsat:
                    failed.add(p.name)
                    self.notes[p.name] = "not inductive" if answer == z3.sat else "induction step not settled"
                self.seconds[p.name] = self.seconds.get(p.name, 0.0) + time.perf_counter() - t0
            if not failed:
                break
            active -= failed
        return active

    def _quick_layer(self, candidates: list[Property], lemmas: list[Any]) -> tuple[set[str], set[str]]:
        """The invariants proved by the incremental solver alone (certified), and those it left open."""
        st = self._st
        active = {p.name for p in candidates}
        slow: set[str] = set()
        first = True  # the first round assumes every candidate
        parts = self._parts(candidates)
        while True:
            assume = lemmas + self._state_facts(candidates, active)
            asked = [[p for p in part if p.name in active] for part in parts]

            def ask(part: list[Property], assume: list[Any] = assume, first: bool = first) -> Any:
                return self._quick_round(part, assume, first)

            def rounds(parts: list[list[Property]]) -> tuple[set[str], set[str]]:
                """The invariants found not inductive and those left open by one round over these parts."""
                failed, open_ = set(), set()
                for f, o, seconds, queries, notes in fork_map(ask, parts, self.workers):
                    failed |= f
                    open_ |= o
                    self.queries += queries
                    self.notes.update(notes)
                    for name, t in seconds.items():
                        self.seconds[name] = self.seconds.get(name, 0.0) + t
                return failed, open_

            failed, open_ = rounds(asked)
            # what a part's solver left open (its resource limit spent on the questions before) is asked again
            # alone, on a fresh solver: which part an invariant falls in must not decide whether it is proved
            again, open_ = rounds([[p] for p in candidates if p.name in open_])
            failed |= again
            if not failed and not open_:
                break
            active -= failed | open_
            slow |= open_
            first = False
        # Certificate: every fact is asked again of fresh solvers, case by case, from the final assumptions.
        every = [f for p in candidates if p.name in active for f in self._goals(p)]
        if every and self._by_cases(st, assume, z3.Not(z3.And(*every))) != z3.unsat:
            for name in active:
                self.notes[name] = "the proof did not re-check on fresh solvers"
            slow |= active
            active = set()
        return active, slow

    def _parts(self, candidates: list[Property]) -> list[list[Property]]:
        """The candidates in QUICK_PARTS parts of about as many facts each (the heaviest dealt first, each to
        the lightest part), each part in the catalogue's order."""
        weight = [0] * QUICK_PARTS
        where: dict[str, int] = {}
        for p in sorted(candidates, key=lambda p: -len(self._goals(p))):  # stable: ties in catalogue order
            j = weight.index(min(weight))
            where[p.name] = j
            weight[j] += len(self._goals(p))
        return [[p for p in candidates if where[p.name] == j] for j in range(QUICK_PARTS)]

    def _quick_round(self, part: list[Property], assume: list[Any], first: bool) -> Any:
        """One round of the first layer over one part, on one incremental solver: the invariants found not
        inductive (sat in the first round: final), those left open, the seconds, questions and notes."""
        solver = z3.SolverFor("QF_BV")
        solver.set("rlimit", self.quick_limit)
        solver.add(self._st.relation, *assume)
        failed: set[str] = set()
        open_: set[str] = set()
        seconds: dict[str, float] = {}
        notes: dict[str, str] = {}
        queries = 0
        for p in part:
            t0 = time.perf_counter()
            for fact in self._goals(p):
                self._tick()
                queries += 1
                answer = solver.check(z3.Not(fact))
                if answer == z3.sat and first:  # not inductive even assuming every candidate: final
                    failed.add(p.name)
                    notes[p.name] = self._not_inductive(solver.model())
                    break
                if answer != z3.unsat:
                    open_.add(p.name)
                    break
            seconds[p.name] = time.perf_counter() - t0
        return failed, open_, seconds, queries, notes

    def _not_inductive(self, model: Any) -> str:
        """What a researcher needs to strengthen the proof: the step of the counterexample to induction (a
        state every invariant of the suite allows, reached by no play or not, whose step breaks the property).
        The solver's model is deterministic for the same questions, so the note is the same on every run."""
        code = model.eval(self._st.act, model_completion=True).as_long()
        name = self.ts.actions[code].name if 0 <= code < len(self.ts.actions) else "?"
        return f"not inductive: a `{name}` step from a state every invariant of the suite allows breaks it"

    def cached_suite(self, props: list[Property]) -> set[str] | None:
        """The invariants proved before for this rule set, suite and model version, if cached."""
        invariants = [p for p in props if p.kind == "always"]
        if self.cache is None:
            return None
        cached = self.cache.get(self.cache.key(self.ts.rules, invariants))
        if cached is None or not isinstance(cached.get("quick"), list):
            return None
        self._suite = invariants
        self.from_cache = True
        names = {p.name for p in invariants}
        self.proved = set(cached["proved"]) & names
        self.quick = set(cached["quick"]) & self.proved
        self.open = set()
        self.notes.update(cached.get("notes", {}))
        return self.proved

    def prove_suite(self, props: list[Property]) -> set[str]:
        """The names of the invariants proved for all depths (from the cache when this rule set, suite
        and model version were proved before)."""
        self.prove_quick(props)
        if self.open:
            self.finish(self.prove_slow())
        return self.proved

    def prove_quick(self, props: list[Property]) -> set[str]:
        """The first layer of the proof of the suite (`quick`): the invariants the incremental solver proves
        on its own, certified. Those it left open (`open`) are for `prove_slow`, which may run in another
        process meanwhile; `finish` records its outcome. From the cache, everything is known at once."""
        if self.cached_suite(props) is not None:
            return self.quick
        invariants = [p for p in props if p.kind == "always"]
        self._suite = invariants
        self._candidates = []
        for p in invariants:
            t0 = time.perf_counter()
            if self._base(p):
                self._candidates.append(p)
            else:
                self.notes[p.name] = "fails in the initial state or the first step"
            self.seconds[p.name] = time.perf_counter() - t0
        self.quick, self.open = self._quick_layer(self._candidates, [])
        self.proved = set(self.quick)
        self._tick()  # a question cut short by the time limit proves nothing
        if not self.open:
            self.finish(set())
        return self.quick

    def prove_slow(self) -> tuple[set[str], dict[str, str], dict[str, float], bool]:
        """The second layer, for the invariants `prove_quick` left open: what it proved, the notes and
        seconds of each, and whether it was stopped by the time limit (then nothing is proved)."""
        try:
            proved = self._slow_layer(self._candidates, [], self.quick, self.open)
            self._tick()
        except Stopped:
            return set(), {}, {}, True
        names = self.open
        return (
            proved,
            {n: v for n, v in self.notes.items() if n in names},
            {n: v for n, v in self.seconds.items() if n in names},
            False,
        )

    def finish(self, slow: tuple[set[str], dict[str, str], dict[str, float], bool] | set[str]) -> None:
        """Record the second layer's outcome (from `prove_slow`, here or in another process) and cache the
        proof of the suite, unless a time limit cut it short."""
        if isinstance(slow, set):
            slow = (slow, {}, {}, False)
        proved, notes, seconds, stopped = slow
        self.notes.update(notes)
        self.seconds.update(seconds)
        if stopped:
            for name in self.open:
                self.notes[name] = "proof stopped by the run's time limit (--timeout)"
            self.open = set()
            return
        self.proved = self.quick | proved
        self.open = set()
        if self.cache is not None:
            entry = {"proved": sorted(self.proved), "quick": sorted(self.quick), "notes": self.notes}
            self.cache.put(self.cache.key(self.ts.rules, self._suite), entry)

    def prove_negation(self, check: Check, suite: list[Property]) -> bool:
        """Whether a witness is unreachable: its negation holds in every reachable state (every step).
        Asked first on its own, then with the proved invariants of the suite as lemmas."""
        probe = self._probe(check)
        if probe is None:
            return False
        if self._inductive([probe], []):
            return True
        if not self._suite:
            self.prove_suite(suite)
        lemmas = self._state_facts(self._suite, self.proved)
        if self._inductive([probe], lemmas):
            return True
        # A step the witness needs may be enabled only by a state no play reaches (a discard under rules with
        # no hand limit needs a discard already begun): k-induction assumes k steps in a row without the
        # witness, each from a state meeting the proved invariants, and asks the next step.
        return any(self._k_inductive(check, suite, k) for k in (2, 3))

    def unreachable_at_once(self, check: Check) -> bool:
        """Whether a witness is unreachable by one induction step over the first layer's invariants: its
        negation holds in the initial state and after every first step, and no step from a state meeting
        the first layer and the negation reaches it. Asked before a witness is searched (measured: about
        0.15 s for each witness of the suite), so that a witness the rules rule out (`reach-main2` with no
        Main Phase 2) is not refuted depth after depth to the bound. It reads the first layer alone, never
        the second, whose proof may still run: the answer does not depend on timing."""
        probe = self._probe(check)
        return probe is not None and bool(self._inductive([probe], self._state_facts(self._suite, self.quick)))

    def _probe(self, check: Check) -> Property | None:
        """The witness's negation as an invariant, if it holds in the initial state and after every first step."""
        probe = Property(f"not {check.label}", "always", "", "", (negation(check),))
        return probe if self._base(probe) else None

    def _k_inductive(self, check: Check, suite: list[Property], k: int) -> bool:
        """Whether the witness `check` is unreachable by k-induction: no play of k steps from the start
        reaches it (the base), and k steps in a row that do not reach it, from states meeting the proved
        invariants, cannot be followed by a step that does. Each question is asked of a fresh Z3 within its
        resource limit, then the step case re-checked by a second solver (Yices when installed)."""
        lemma_checks = self.lemmas(self.proved, self._suite or suite)

        def facts(s: Any) -> list[Any]:
            values = (c.eval(None, None, s) for c in lemma_checks)
            return [v for v in values if not isinstance(v, bool)]

        def hit(pre: Any, st: SymStep) -> Any:
            v = (
                check.eval(pre, ActionView(st.act, st.params, symbolic=True), st.post)
                if check.on == "step"
                else (check.eval(None, None, st.post))
            )
            return z3.BoolVal(v) if isinstance(v, bool) else v

        # the base: no play of at most k steps from the start reaches the witness. Each length is asked with
        # only the steps it takes: the relation is not total (a duel that is over has no next step), and a
        # play that reaches the witness and then ends would be missed by a question asking for k steps
        chain = self._path(f"@kb{k}", k)
        init = self.ts.sym_init(chain[0][0])
        for j in range(1, k + 1):
            prefix = [init, *(st.relation for _, st in chain[:j])]
            if self._fresh([*prefix, hit(*chain[j - 1])]) != z3.unsat:
                return False
        # the step: k steps without the witness, then one with it
        steps = self._path(f"@ks{k}", k + 1)
        assume = [c for p, st in steps for c in (*facts(p), st.relation)]
        assume += [z3.Not(hit(p, st)) for p, st in steps[:-1]]
        last_pre, last = steps[-1]
        question = [*assume, hit(last_pre, last)]
        if self._fresh(question) != z3.unsat:
            return False
        return solve_cases(question, [[z3.BoolVal(True)]], self.case_limit, deadline=self.deadline) == UNSAT

    def _path(self, tag: str, n: int) -> list[tuple[Any, SymStep]]:
        """n symbolic steps in a row from a free state: each step with the state it leaves."""
        out: list[tuple[Any, SymStep]] = []
        pre = self.ts.sym_state(f"{tag}_0")
        for i in range(1, n + 1):
            st = self.ts.sym_step(pre, f"{tag}_{i}", fine=True)
            out.append((pre, st))
            pre = st.post
        return out

    def lemmas(self, proved: set[str], props: list[Property]) -> list[Check]:
        """The state checks of proved invariants: true in every reachable state, so usable as lemmas."""
        return [c for p in props if p.name in proved for c in p.checks if c.on == "state"]
