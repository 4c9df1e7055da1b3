"""The language-neutral engine protocol: an engine in another process, one JSON object per line.

`DUELCHECK_ADAPTER='exec:COMMAND ARGS'` (or `duelcheck difftest --engine 'exec:COMMAND ARGS'`) starts
COMMAND and speaks to it on its standard input and output, one request per line and one answer per line
(UTF-8 JSON, no pretty-printing). The requests and answers, and the JSON Schema that fixes them
(duelcheck/schemas/engine-protocol.schema.json, also `duelcheck schema --engine-protocol`):

    {"op": "hello", "rules": {...}}              -> {"protocol": "duelcheck-engine/1", "engine": "NAME"}
    {"op": "deal", "decks": [[card, ...], [...]]} -> {"ok": true}            (optional for an engine)
    {"op": "reset", "board": {...}, "log": {...}|null}
                                                  -> {"ok": true, "observed": {...}?} | {"unsupported": "why"}
    {"op": "offers"}                              -> {"offers": [action, ...]}
    {"op": "resolutions", "resolve": [action, ...]} -> {"ok": true}       (optional for an engine)
    {"op": "apply", "action": {...}}              -> {"observed": {...}} | {"refused": "why"}
    any request the engine cannot serve           -> {"error": "why"}

`rules` is a duel log's `rules` mapping, `board` a duel log's `board`, an action a duel-log action without
`observed` and `note`, `observed` the state after it in the duel-log format's words (the fields the engine
gives are compared, the others are not). `resolutions` tells, before the action that resolves a chain, what
the rules' resolutions brought (duel-log `resolve` actions in order: a Special Summon's monster, an ATK
change), so that the engine's card makes the same choice. An engine closes when its input ends.

duelcheck's own engines (`python -m duelcheck.adapters.serve ...`) are started in the system's temporary
folder (`builtin_cwd`), so that a checkout's `duelcheck/` folder in the present folder does not shadow
the installed package in the child.

`serve()` is the other end for any adapter class written in Python: `python -m duelcheck.adapters.serve
reference` runs duelcheck's own interpreter behind this protocol, `... serve ygopro` ygopro-core.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
from typing import IO, Any

from duelcheck.errors import InputError, one_line

PROTOCOL = "duelcheck-engine/1"
DEFAULT_TIMEOUT = 30.0  # seconds an engine may take for one answer before it is taken for hung


def builtin_cwd() -> str:
    """Where duelcheck's own engine processes run: a folder with no `duelcheck/` in it to shadow the package."""
    import tempfile

    return tempfile.gettempdir()


class EngineError(Exception):
    """The engine process failed: it crashed, hung, or answered outside the protocol (exit 4)."""

    def __init__(self, message: str):
        super().__init__(one_line(message))


class Unsupported(NotImplementedError):
    """The engine cannot start from this board or play under these rules (its reason)."""


class ExecAdapter:
    """An engine in a child process behind the JSON-lines protocol, as an adapter object."""

    exact_reasons = False

    def __init__(
        self,
        rules: dict[str, Any] | None = None,
        command: str | list[str] | None = None,
        timeout: float | None = None,
        cwd: str | None = None,
    ):
        """`cwd`: the folder the engine runs in (default: this process's)."""
        if isinstance(command, list):
            argv = list(command)
        else:
            spec = command if command is not None else os.environ.get("DUELCHECK_ADAPTER", "")
            argv = shlex.split(spec.removeprefix("exec:"))
        if not argv:
            raise InputError("exec: adapter: no command given (DUELCHECK_ADAPTER='exec:COMMAND ARGS')")
        self.argv = argv
        self.timeout = DEFAULT_TIMEOUT if timeout is None else timeout
        try:
            self.proc = subprocess.Popen(
                argv,
                cwd=cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        except OSError as exc:
            raise InputError(f"exec: {argv[0]}: cannot start it ({exc.strerror or exc})") from None
        hello = self._ask({"op": "hello", "rules": dict(rules or {})})
        if "bad_input" in hello:
            self.close()
            raise InputError(str(hello["bad_input"]))
        if hello.get("protocol") != PROTOCOL:
            self.close()
            raise EngineError(f"exec: {argv[0]}: not a duelcheck engine (its hello was {_short(hello)})")
        self.engine = str(hello.get("engine", argv[0]))
        if "unsupported" in hello:
            self.close()
            raise Unsupported(str(hello["unsupported"]))

    # -- the protocol ----------------------------------------------------------------------------------
    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        proc = self.proc
        if proc.stdin is None or proc.stdout is None:
            raise EngineError("exec: the engine's pipes are closed")
        try:
            proc.stdin.write(json.dumps(request, separators=(",", ":")) + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineError(f"exec: {self.argv[0]} ended ({self._why_ended()})") from None
        line = _readline(proc.stdout, self.timeout)
        if line is None:
            self.close()
            raise EngineError(f"exec: {self.argv[0]} gave no answer to {request['op']} in {self.timeout:g} s: killed")
        if line == "":
            raise EngineError(f"exec: {self.argv[0]} ended ({self._why_ended()})")
        try:
            answer = json.loads(line)
        except ValueError:
            raise EngineError(
                f"exec: {self.argv[0]} answered {request['op']} with a line that is not JSON: {line[:80]!r}"
            ) from None
        if not isinstance(answer, dict):
            raise EngineError(f"exec: {self.argv[0]} answered {request['op']} with {_short(answer)}, not an object")
        if "error" in answer:
            raise EngineError(f"exec: {self.argv[0]}: {answer['error']}")
        return answer

    def _why_ended(self) -> str:
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "its output closed"
        err = (self.proc.stderr.read() if self.proc.stderr else "").strip().splitlines()
        tail = f": {err[-1]}" if err else ""
        return f"exit status {code}{tail}" if code >= 0 else f"killed by signal {-code}{tail}"

    def deal(self, decks: list[list[dict[str, Any]]]) -> None:
        self._expect(self._ask({"op": "deal", "decks": decks}), "ok", "deal")

    def reset(self, board: dict[str, Any], log: dict[str, Any] | None = None) -> None:
        answer = self._ask({"op": "reset", "board": board, "log": log})
        if "unsupported" in answer:
            raise Unsupported(str(answer["unsupported"]))
        self._expect(answer, "ok", "reset")
        observed = answer.get("observed")
        self._at_reset = observed if isinstance(observed, dict) else None

    def observe(self) -> dict[str, Any] | None:
        """The state the engine showed when its duel started (its reset's optional `observed`), else None."""
        return getattr(self, "_at_reset", None)

    def resolutions(self, entries: list[dict[str, Any]]) -> None:
        self._expect(self._ask({"op": "resolutions", "resolve": entries}), "ok", "resolutions")

    def offers(self) -> list[dict[str, Any]]:
        answer = self._ask({"op": "offers"})
        offers = answer.get("offers")
        if not isinstance(offers, list) or not all(isinstance(a, dict) for a in offers):
            raise EngineError(f"exec: {self.argv[0]} answered offers with {_short(answer)}")
        return offers

    def apply(self, action: dict[str, Any]) -> dict[str, Any] | str:
        answer = self._ask({"op": "apply", "action": action})
        if "refused" in answer and isinstance(answer["refused"], str):
            return answer["refused"]
        observed = answer.get("observed")
        if not isinstance(observed, dict):
            raise EngineError(f"exec: {self.argv[0]} answered apply with {_short(answer)}")
        return observed

    def _expect(self, answer: dict[str, Any], key: str, op: str) -> None:
        if answer.get(key) is not True:
            raise EngineError(f"exec: {self.argv[0]} answered {op} with {_short(answer)}")

    def close(self) -> None:
        proc = self.proc
        if proc.poll() is None:
            try:
                if proc.stdin:
                    proc.stdin.close()
                proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()

    def __del__(self) -> None:  # an adapter dropped without close(): its process is not left behind
        proc = getattr(self, "proc", None)
        if proc is not None and proc.poll() is None:
            proc.kill()


def _readline(stream: IO[str], timeout: float) -> str | None:
    """One line from the engine, or None after `timeout` seconds (a thread reads, so a hung engine cannot
    hang duelcheck)."""
    box: list[str] = []
    reader = threading.Thread(target=lambda: box.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    return box[0] if box else None


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


# -- the other end: any Python adapter as an engine process ------------------------------------------


def serve(make: Any, name: str, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Answer the protocol on stdin/stdout with the adapter `make(rules)` builds; 0 when the input ends."""
    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    adapter: Any = None

    def answer(obj: dict[str, Any]) -> None:
        out.write(json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n")
        out.flush()

    for line in inp:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            op = request.get("op") if isinstance(request, dict) else None
        except ValueError:
            answer({"error": "a request line that is not JSON"})
            continue
        try:
            if op == "hello":
                hello: dict[str, Any] = {"protocol": PROTOCOL, "engine": name}
                try:
                    adapter = make(request.get("rules") or {})
                except NotImplementedError as exc:
                    hello["unsupported"] = str(exc)
                except InputError as exc:
                    hello["bad_input"] = str(exc)
                answer(hello)
            elif adapter is None:
                answer({"error": f"{op!r} before hello"})
            elif op == "deal":
                if not hasattr(adapter, "deal"):
                    answer({"error": f"{name} cannot be dealt decks"})
                    continue
                adapter.deal(request.get("decks"))
                answer({"ok": True})
            elif op == "reset":
                try:
                    _reset(adapter, request.get("board") or {}, request.get("log"))
                except NotImplementedError as exc:
                    answer({"unsupported": str(exc)})
                    continue
                started: dict[str, Any] = {"ok": True}
                if hasattr(adapter, "observe"):
                    started["observed"] = adapter.observe()
                answer(started)
            elif op == "resolutions":
                if hasattr(adapter, "resolutions"):
                    adapter.resolutions(request.get("resolve") or [])
                answer({"ok": True})
            elif op == "offers":
                answer({"offers": adapter.offers() if hasattr(adapter, "offers") else []})
            elif op == "apply":
                got = adapter.apply(request.get("action") or {})
                answer({"refused": got} if isinstance(got, str) else {"observed": got})
            else:
                answer({"error": f"unknown op {op!r}"})
        except Exception as exc:  # the engine's own failure, told to the other end (exit 4 there), not a crash here
            answer({"error": f"{type(exc).__name__}: {one_line(str(exc))}"})
    return 0


def _reset(adapter: Any, board: dict[str, Any], log: dict[str, Any] | None) -> None:
    """reset(board, log) where the adapter takes the log, else reset(board) (the protocol's first form)."""
    import inspect

    try:
        takes_log = len(inspect.signature(adapter.reset).parameters) >= 2
    except (TypeError, ValueError):
        takes_log = False
    if takes_log:
        adapter.reset(board, log)
    else:
        adapter.reset(board)
