"""The engine adapter protocol of `duelcheck boards --format pytest`, and duelcheck's own interpreter as the
reference adapter.

The test module `duelcheck boards --format pytest` writes replays every board (a duel log) against an engine
through a small class:

    class MyEngineAdapter:
        def __init__(self, rules: dict[str, Any]) -> None: ...
        def reset(self, board: dict[str, Any]) -> None: ...
        def apply(self, action: dict[str, Any]) -> dict[str, Any] | str: ...

- `rules` is the log's `rules` mapping: the rule parameters that differ from the official rules
  (`duelcheck presets` and docs/duel-log.md name them).
- `reset(board)` starts a new duel from the log's `board`, in the duel-log format's words.
- `apply(action)` takes one action, a log entry without `observed` and `note` (for example
  `{"action": "declare_attack", "attacker": 0, "target": "direct"}`), and returns the state after it in the
  duel-log format's words (the shape of `observed`: `duelcheck.log.describe`), or, when the engine refuses
  the action, the reason as a string.
- `exact_reasons = True` (optional) asks the test module to compare a refusal's reason with the board's
  word for word; an engine with its own wording leaves it out, and any refusal counts.

`ReferenceAdapter` is duelcheck's concrete interpreter behind this protocol: the generated tests pass
against it by construction, which is what `duelcheck boards` checks of its own output.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import TypeAdapter, ValidationError

from duelcheck.errors import InputError
from duelcheck.log import Action, Board, board_state, describe
from duelcheck.model.state import State
from duelcheck.model.system import TransitionSystem
from duelcheck.rules import rules_from_mapping

__all__ = ["EngineAdapter", "ReferenceAdapter", "load_adapter"]


@runtime_checkable
class EngineAdapter(Protocol):
    """What the generated test module needs of an engine (constructed with the log's `rules` mapping)."""

    def reset(self, board: dict[str, Any]) -> None:
        """Start from this board (the duel-log format's `board`)."""

    def apply(self, action: dict[str, Any]) -> dict[str, Any] | str:
        """Take one action: the state after it (the duel-log format's words), or the reason it is refused."""


_ACTION: TypeAdapter[Any] = TypeAdapter(Action)


class ReferenceAdapter:
    """duelcheck's own interpreter as an engine: the rules of the model, as `duelcheck replay` applies them."""

    exact_reasons = True

    def __init__(self, rules: dict[str, Any] | None = None):
        self.ts = TransitionSystem(rules_from_mapping(dict(rules or {}), "rules"))
        self.state: State = self.ts.init()
        self.index = 0

    def reset(self, board: dict[str, Any]) -> None:
        try:
            parsed = Board.model_validate(board)
        except ValidationError as exc:
            raise InputError(f"board: not a duel-log board ({exc.errors()[0]['msg']})") from None
        self.state = board_state(self.ts, parsed, "<adapter>")
        self.index = 0

    def apply(self, action: dict[str, Any]) -> dict[str, Any] | str:
        from duelcheck.conformance import step_entry

        self.index += 1
        try:
            entry = _ACTION.validate_python(action)
        except ValidationError as exc:
            raise InputError(f"action {self.index}: not a duel-log action ({exc.errors()[0]['msg']})") from None
        after, reason, _ = step_entry(self.ts, self.state, entry, self.index, "<adapter>")
        if reason is not None:
            return reason
        self.state = after
        return describe(after)


def load_adapter(spec: str) -> type[Any]:
    """The adapter class `module:Class` names (default class name: `Adapter`)."""
    import importlib

    module, _, name = spec.partition(":")
    try:
        cls: type[Any] = getattr(importlib.import_module(module), name or "Adapter")
        return cls
    except (ImportError, AttributeError) as exc:
        raise InputError(f"adapter {spec!r}: cannot load it ({exc})") from None
