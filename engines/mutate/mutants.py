"""The mutants: one per site and kind plus the semantic catalogue, selected by kind, action or id, and activated one at
a time.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from duelcheck.engines.mutate.semantic import SEMANTIC, SEMANTIC_BY_NAME, compare_swapped, mutated
from duelcheck.engines.mutate.settings import KINDS
from duelcheck.engines.mutate.sites import (
    _rule_functions,
    _runners,
    compare_mutated,
    compare_sites,
    guard_sites,
    hooked,
    write_sites,
)
from duelcheck.errors import InputError
from duelcheck.model import rules as R
from duelcheck.model.state import GuardMutant, MutationHook, WriteMutant
from duelcheck.rules import Rules


@dataclass(frozen=True)
class Mutant:
    """One mutant: `drop:ACTION:POSITION`, `negate:ACTION:POSITION`, `write:ACTION:POSITION`,
    `swap:ACTION:POSITION` or `semantic:NAME` (the replacement's)."""

    id: str
    kind: str
    action: str
    index: int  # the call site's position; -1 for a semantic mutant
    reason: str  # the guard's reason (a write: the field and the line; a semantic mutant: what it models)
    scored: bool
    line: str = ""  # a write mutant's line of the rules' source (file:line)

    @property
    def models(self) -> str:
        """What the mutant models, in words."""
        if self.kind == "drop":
            return f"{self.action} without the rule: {self.reason}"
        if self.kind == "negate":
            return f"{self.action} with the rule stated backwards: {self.reason}"
        if self.kind == "write":
            return f"{self.action} without its write to {self.reason}"
        if self.kind == "swap":
            return f"{self.action} writing {self.reason} for the other player"
        if self.kind == "compare":
            return f"{self.action} with {self.reason}"
        return self.reason

    @property
    def digest(self) -> str:
        """What a stored result depends on besides the model version: the site's reason, or the semantic
        mutant's source (a result stored for another text is run again)."""
        text = self.id + "\n" + self.reason
        if self.kind == "semantic":
            text += "\n" + inspect.getsource(SEMANTIC_BY_NAME[self.id.split(":", 1)[1]].replacement)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "action": self.action,
            "position": None if self.index < 0 else self.index,
            "reason": self.reason,
            "scored": self.scored,
            "models": self.models,
            **({"line": self.line} if self.line else {}),
        }


def all_mutants(rules: Rules | None = None) -> list[Mutant]:
    """Every mutant, in a fixed order: the drop mutants action by action, then the negated ones, the dropped
    writes, the swapped ones, then the semantic catalogue."""
    sites = guard_sites(rules)
    out = [Mutant(f"drop:{g.action}:{g.index}", "drop", g.action, g.index, g.reason, g.scored) for g in sites]
    out += [Mutant(f"negate:{g.action}:{g.index}", "negate", g.action, g.index, g.reason, g.scored) for g in sites]
    writes = write_sites(rules)
    out += [Mutant(f"write:{w.action}:{w.index}", "write", w.action, w.index, w.words, True, w.line) for w in writes]
    out += [
        Mutant(f"swap:{w.action}:{w.index}", "swap", w.action, w.index, w.words, True, w.line)
        for w in writes
        if w.player
    ]
    out += [
        Mutant(f"compare:{c.function}:{c.index}", "compare", c.function, c.index, c.words, c.scored, c.line)
        for c in compare_sites()
    ]
    out += [Mutant(f"semantic:{m.name}", "semantic", m.action, -1, m.models, True) for m in SEMANTIC]
    return out


def select_mutants(
    only: str | None = None,
    kinds: tuple[str, ...] = KINDS,
    limit: int | None = None,
    rules: Rules | None = None,
    ids: tuple[str, ...] = (),
) -> tuple[list[Mutant], list[Mutant]]:
    """The mutants to run (scored, of the given kinds and action, the first `limit`; or those named by `ids`)
    and those excluded from scoring (model range and catalogue guards) among the same selection."""
    import difflib

    if ids:
        known = {m.id: m for m in all_mutants(rules)}
        for mid in ids:
            if mid not in known:
                close = difflib.get_close_matches(mid, list(known), n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]}?" if close else ""
                raise InputError(f"--mutant {mid}: no such mutant (ids as `duelcheck mutate` prints them){hint}")
        named = [known[mid] for mid in dict.fromkeys(ids)]
        return [m for m in named if m.scored], [m for m in named if not m.scored]

    if only is not None and only not in R.ACTION_BY_NAME:
        close = difflib.get_close_matches(only, list(R.ACTION_BY_NAME), n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}? " if close else ""
        raise InputError(f"--only {only}: no such action; {hint}expected one of {', '.join(R.ACTION_BY_NAME)}")
    for kind in kinds:
        if kind not in KINDS:
            raise InputError(f"--kind {kind}: expected one of {', '.join(KINDS)}")
    chosen = [m for m in all_mutants(rules) if m.kind in kinds and (only is None or _of_action(m, only))]
    scored = [m for m in chosen if m.scored]
    excluded = [m for m in chosen if not m.scored]
    return (scored if limit is None else scored[:limit]), excluded


def _of_action(m: Mutant, action: str) -> bool:
    """Whether a mutant changes the action (a comparison: in a function that action's body runs)."""
    return action in actions_of(m)


def actions_of(m: Mutant) -> list[str]:
    """The actions a mutant changes: its own and those whose bodies run it as part of themselves (end_step's
    passes), or, for a comparison, those whose body runs its function."""
    if m.kind == "compare":
        return [name for name, functions in _rule_functions().items() if m.action in functions]
    return [m.action, *_runners(json.dumps(Rules().model_dump(), sort_keys=True)).get(m.action, ())]


def mutant_by_id(mutant_id: str, rules: Rules | None = None) -> Mutant:
    for m in all_mutants(rules):
        if m.id == mutant_id:
            return m
    raise InputError(f"{mutant_id}: no such mutant")


@contextmanager
def activated(mutant: Mutant) -> Iterator[None]:
    """The mutant is the model while inside (in this process): a hook that changes one guard, or a rule
    swapped. Build transition systems inside: a system builds its relation once, when first asked."""
    if mutant.kind == "semantic":
        sem = SEMANTIC_BY_NAME[mutant.id.split(":", 1)[1]]
        with mutated(sem.rule, sem.replacement):
            yield
        return
    if mutant.kind == "compare":
        with compare_swapped(mutant.action, compare_mutated(mutant.action, mutant.index)):
            yield
        return
    if mutant.kind in ("write", "swap"):
        with hooked(MutationHook(WriteMutant(mutant.action, mutant.line, swap=mutant.kind == "swap"))):
            yield
        return
    with hooked(MutationHook(GuardMutant(mutant.action, mutant.index, negate=mutant.kind == "negate"))):
        yield
