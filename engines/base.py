"""What every engine returns: per property (and case), a verdict, and a trace when there is one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from duelcheck.model.system import Step

Verdict = Literal["holds", "violated", "found", "unreachable", "not-found", "unknown", "interrupted"]


@dataclass
class Trace:
    """A play from the initial state: steps[0] is the initial state (action "init")."""

    steps: list[Step]

    def __len__(self) -> int:
        return len(self.steps) - 1


@dataclass
class Result:
    prop: str
    case: str  # "" or the name of one case of a property with several (a row of the damage table)
    kind: str
    verdict: Verdict
    bound: int
    seconds: float
    engine: str
    trace: Trace | None = None
    note: str = ""
    trace_path: str | None = field(default=None)
    proved: bool = False  # an invariant (or, for `unreachable`, a witness's negation) proved for all depths
    minimal: bool = False  # the trace is of minimal length: the solver refuted every shorter play
    lost: bool = False  # an unreachable witness the rules are not meant to remove (properties/core.py `vanishes`)

    @property
    def label(self) -> str:
        return f"{self.prop}[{self.case}]" if self.case else self.prop

    @property
    def length(self) -> int | None:
        return len(self.trace) if self.trace is not None else None

    def to_json(self) -> dict[str, object]:
        return {
            "label": self.label,
            "property": self.prop,
            "case": self.case or None,
            "kind": self.kind,
            "verdict": self.verdict,
            "bound": None if self.proved else self.bound,
            "proved": self.proved,
            "length": self.length,
            "minimal": self.minimal if self.trace is not None else None,
            "seconds": round(self.seconds, 3),
            "engine": self.engine,
            "trace": self.trace_path,
            "note": self.note or None,
            "lost": self.lost,
        }
