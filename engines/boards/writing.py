"""Writing a run: the boards as duel logs, coverage.json, and the pytest module that runs them against an engine
adapter.
"""

from __future__ import annotations

import json
from pathlib import Path

from duelcheck.engines.boards.running import BoardsRun
from duelcheck.errors import InputError


def write(result: BoardsRun, out: Path, fmt: str = "logs") -> list[Path]:
    """One file per board, the coverage report (coverage.json, coverage.txt), and with `pytest` the test
    module test_boards.py; every file written atomically."""
    from duelcheck.counterexamples.itf import write_atomic

    written = []
    try:
        for g in result.boards():
            path = out / g.file
            write_atomic(path, json.dumps(g.doc, indent=1, ensure_ascii=False) + "\n")
            written.append(path)
        write_atomic(out / "coverage.json", json.dumps(result.to_json(), indent=1, ensure_ascii=False) + "\n")
        write_atomic(out / "coverage.txt", result.text())
        written += [out / "coverage.json", out / "coverage.txt"]
        if fmt == "pytest":
            write_atomic(out / "test_boards.py", PYTEST_MODULE)
            written.append(out / "test_boards.py")
    except OSError as exc:
        raise InputError(f"--out {out}: cannot write ({exc.strerror or exc})") from None
    return written


PYTEST_MODULE = '''\
"""Edge-case boards written by `duelcheck boards`: each board is a duel log (the JSON files beside this
module, listed in coverage.json) replayed against a game engine through an adapter.

The adapter is a class, named by the environment variable DUELCHECK_ADAPTER as `module:Class` (default:
duelcheck's own interpreter, `duelcheck.adapter:ReferenceAdapter`), with this protocol:

    Adapter(rules: dict)            the log's `rules`: the parameters that differ from the official rules
    reset(board: dict[, log: dict]) -> None
                                    start from the log's `board` (the duel-log format's words); an adapter
                                    whose reset takes a second argument gets the whole log too (to stack
                                    its decks); NotImplementedError: a board it cannot start from (skipped)
    apply(action: dict) -> dict | str
                                    take one action (a log entry without `observed` and `note`): the state
                                    after it in the duel-log format's words, or the reason it is refused

A legal action must be taken, and every field the engine returns must equal the board's `observed`
state (fields the engine leaves out are not compared). The action a board expects to be illegal must be
refused; if the adapter has `exact_reasons = True`, with exactly the reason the board gives.

Run: pytest DIR    or    DUELCHECK_ADAPTER=my_engine.adapter:Adapter pytest DIR
     or    DUELCHECK_ADAPTER='exec:COMMAND ARGS' pytest DIR   (an engine in another process, JSON lines:
           docs/engines.md; `python -m duelcheck.adapters.serve ygopro` is ygopro-core)
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
BOARDS = json.loads((HERE / "coverage.json").read_text(encoding="utf-8"))["boards"]
# the model's own limits (a bound, a range, a shortcut), which are no rule of the game: an engine may go past
MODEL_LIMITS = ("model bound", "model range", "model shortcut")
ADAPTER = os.environ.get("DUELCHECK_ADAPTER", "duelcheck.adapter:ReferenceAdapter")


class ExecEngine:
    """An engine in another process speaking the JSON-lines protocol (docs/engines.md): one request a line
    on its standard input, one answer a line on its standard output."""

    def __init__(self, rules: dict[str, Any]) -> None:
        import shlex
        import subprocess

        argv = shlex.split(ADAPTER.removeprefix("exec:"))
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        hello = self.ask({"op": "hello", "rules": rules})
        if "unsupported" in hello:
            raise NotImplementedError(hello["unsupported"])
        assert hello.get("protocol") == "duelcheck-engine/1", f"not a duelcheck engine: {hello}"

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"the engine ended (exit status {self.proc.poll()})"
        answer: dict[str, Any] = json.loads(line)
        assert "error" not in answer, f"the engine failed: {answer['error']}"
        return answer

    def reset(self, board: dict[str, Any], log: dict[str, Any] | None = None) -> None:
        answer = self.ask({"op": "reset", "board": board, "log": log})
        if "unsupported" in answer:
            raise NotImplementedError(answer["unsupported"])

    def apply(self, action: dict[str, Any]) -> dict[str, Any] | str:
        answer = self.ask({"op": "apply", "action": action})
        return answer["refused"] if "refused" in answer else answer["observed"]


def adapter_class() -> Any:
    if ADAPTER.startswith("exec:"):  # an engine in another process, speaking JSON lines
        return ExecEngine
    module, _, name = ADAPTER.partition(":")
    return getattr(importlib.import_module(module), name or "Adapter")


ENGINE: dict[str, Any] = {}  # one engine per rule set for the whole module (a process, for exec:)


def engine_for(rules: dict[str, Any]) -> Any:
    key = json.dumps(rules, sort_keys=True)
    if key not in ENGINE:
        try:
            ENGINE[key] = adapter_class()(rules)
        except NotImplementedError as exc:  # the engine cannot play under these rules
            ENGINE[key] = exc
    got = ENGINE[key]
    if isinstance(got, NotImplementedError):
        pytest.skip(f"the engine cannot play under these rules: {got}")
    return got


def differences(expected: Any, got: Any, path: str = "") -> list[str]:
    """Where the engine's state differs from the board's, over the fields the engine returns."""
    if isinstance(expected, dict) and isinstance(got, dict):
        out = []
        for key, value in got.items():
            if key in expected:
                out += differences(expected[key], value, f"{path}.{key}" if path else key)
        return out
    if isinstance(expected, list) and isinstance(got, list):
        if len(expected) != len(got):
            return [f"{path}: {len(expected)} entries expected, the engine gives {len(got)}"]
        return [d for i, (e, g) in enumerate(zip(expected, got)) for d in differences(e, g, f"{path}[{i}]")]
    return [] if expected == got else [f"{path}: expected {expected!r}, the engine gives {got!r}"]


def _takes_log(engine: Any) -> bool:
    """Whether the adapter's reset takes the whole log as well (to stack its decks for the play)."""
    import inspect

    try:
        return len(inspect.signature(engine.reset).parameters) >= 2
    except (TypeError, ValueError):
        return False


@pytest.mark.parametrize("name", BOARDS, ids=[b.removesuffix(".json") for b in BOARDS])
def test_board(name: str) -> None:
    doc = json.loads((HERE / name).read_text(encoding="utf-8"))
    engine = engine_for(dict(doc.get("rules") or {}))
    try:
        if _takes_log(engine):
            engine.reset(doc["board"], doc)
        else:
            engine.reset(doc["board"])
    except NotImplementedError as exc:  # a board the engine cannot start from: shown as skipped, with why
        pytest.skip(f"the engine cannot start from this board: {exc}")
    expect = doc["expect"]
    for i, entry in enumerate(doc["actions"], 1):
        action = {k: v for k, v in entry.items() if k not in ("observed", "note")}
        got = engine.apply(action)
        if not expect["conforms"] and i == expect["stops_at"]:
            if not isinstance(got, str) and expect.get("clause") in MODEL_LIMITS:
                pytest.skip(f"action {i} goes past a limit of the model, not a rule, which an engine may not have "
                            f"({expect['reason']})")
            assert isinstance(got, str), f"action {i} {action} must be refused ({expect['reason']}); it was taken"
            if getattr(engine, "exact_reasons", False):
                assert got == expect["reason"], f"action {i}: refused with {got!r}, expected {expect['reason']!r}"
            return
        assert not isinstance(got, str), f"action {i} {action} is legal; the engine refused it: {got}"
        diffs = differences(entry.get("observed", {}), got)
        assert not diffs, f"action {i} {action}: " + "; ".join(diffs[:5])
    assert expect["conforms"], "the board ends before its illegal action"
'''
