"""Rule changes in files (a rule file's `[[change]]` tables, duelcheck/rules.py `Change`): a guard dropped,
negated, or a new one required of an action, applied where the rules require their guards, so that one edit
changes both semantics alike (concrete and symbolic run the same `Builder.require` calls).

A guard is named by its action and a slug of its words (`normal_summon.only-1-normal-summon-or-set-per-turn`),
numbered only among guards of the same words in one run of the action's body: the name does not depend on
the guard's place, so editing, adding or moving another guard leaves it as it was. An action a body runs as
part of itself (`end_step`'s passes) names its guards as itself.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable
from typing import Any

from duelcheck.errors import InputError
from duelcheck.model.kit import Val
from duelcheck.rules import Rules

Reason = str | Callable[..., str]

# the action bodies running, innermost last: [action name, {slug: calls so far}] (only while rules are changed
# or the names are recorded: the official rules pay one test per body)
RUNNING: list[tuple[str, dict[str, int]]] = []
RECORD: list[str] | None = None  # every guard's name, while `guard_names` records them


def slugify(text: str, limit: int = 56) -> str:
    """Words as a file-name part: lower case, dashes, no clause number, at most `limit` characters."""
    text = re.sub(r"^((\d+(\.\d+)+)|(seed \d{3}( \([^)]*\))?)|model( bound| catalogue| range)?):\s*", "", text)
    text = re.sub(r"\{[^}]*\}", "", text)
    words = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if len(words) > limit:
        words = words[:limit].rsplit("-", 1)[0]
    return words or "guard"


def slug_of(reason: Reason) -> str:
    """A guard's name within its action before numbering: a slug of its words (a reason computed from the
    state: its function's name)."""
    return re.sub(r"_", "-", reason.__name__) if callable(reason) else slugify(reason)


def _name(reason: Reason) -> str:
    action, seen = RUNNING[-1]
    base = slug_of(reason)
    seen[base] = seen.get(base, 0) + 1
    return f"{action}.{base}" if seen[base] == 1 else f"{action}.{base}-{seen[base]}"


def applied(r: Rules, reason: Reason) -> tuple[str | None, Reason]:
    """How the rules' changes treat the guard being required: (None, "drop" or "negate"; the words to say when
    it fails)."""
    if not RUNNING:
        return None, reason
    name = _name(reason)
    if RECORD is not None:
        RECORD.append(name)
    for c in r.changes:
        if c.drop == name:
            return "drop", reason
        if c.negate == name:
            words = reason if isinstance(reason, str) else reason.__name__
            return "negate", f"changed rules: {name} negated (it said: {words})"
    return None, reason


class GuardView:
    """The action a new guard reads: its name and its parameters (`action.NAME`), as a property's step does."""

    def __init__(self, name: str, params: Any):
        self.name = name
        self.params = params

    def is_(self, name: str) -> bool:
        return self.name == name

    def p(self, name: str) -> Val:
        return getattr(self.params, name)


@functools.lru_cache(maxsize=64)
def _added(r: Rules, action: str) -> tuple[tuple[Callable[..., Val], str], ...]:
    """The guards the changes add to `action`: each predicate (of the state before and the action) and its
    reason."""
    from duelcheck.engines.boards.where import parse_guard

    return tuple((parse_guard(c.require, r), c.reason or "") for c in r.changes if c.require and c.action == action)


def with_changes(name: str, fn: Callable[..., None]) -> Callable[..., None]:
    """An action's body under changed rules: run as that action (its guards named within it), then the
    guards the changes add to it, required of the state before and its parameters."""

    @functools.wraps(fn)
    def body(s: Any, a: Any, n: Any) -> None:
        if not s.r.changes and RECORD is None:
            fn(s, a, n)
            return
        RUNNING.append((name, {}))
        try:
            fn(s, a, n)
            for pred, reason in _added(s.r, name):
                n.require(pred(s, GuardView(name, a), s), reason)
        finally:
            RUNNING.pop()

    return body


@functools.lru_cache(maxsize=16)
def guard_names(r: Rules) -> tuple[str, ...]:
    """Every guard's name under `r` (the changes it holds applied), each action's body run symbolically."""
    global RECORD
    from duelcheck.model.rules import ACTIONS, Params
    from duelcheck.model.state import PARAMS
    from duelcheck.model.system import NoHistory, TransitionSystem

    ts = TransitionSystem(r, NoHistory())
    pre = ts.sym_state("@names")
    names: list[str] = []
    RECORD = names
    try:
        for act in ACTIONS:
            if act.parts is None:
                params = {p: PARAMS[p].z3var(f"@names@{act.name}") for p in act.params}
                act.body(pre, Params(params), pre.edit())
    finally:
        RECORD = None
    return tuple(dict.fromkeys(names))


def check_changes(rules: Rules, path: str, prefix: str = "") -> None:
    """Each change names a guard the rules have (under the same knobs, before any change) or an action and a
    guard in the language; else one InputError naming the file, the table and what was expected."""
    from duelcheck.engines.boards.where import parse_guard
    from duelcheck.model.rules import ACTION_BY_NAME

    known = guard_names(rules.model_copy(update={"changes": ()}))
    for i, c in enumerate(rules.changes):
        at = f"{path}: {prefix}change[{i}]"
        target = c.drop if c.drop is not None else c.negate
        if target is not None:
            key = "drop" if c.drop is not None else "negate"
            if target not in known:
                close = difflib.get_close_matches(target, known, n=1, cutoff=0.5)
                hint = f"; did you mean {close[0]}?" if close else ""
                raise InputError(
                    f"{at}.{key}: no guard {target!r} (ACTION.GUARD, as `duelcheck rules` lists them){hint}"
                )
            continue
        act = ACTION_BY_NAME.get(c.action or "")
        if act is None or act.parts is not None:
            close = difflib.get_close_matches(
                c.action or "", [a for a, x in ACTION_BY_NAME.items() if x.parts is None], n=1
            )
            hint = f"; did you mean {close[0]}?" if close else ""
            raise InputError(f"{at}.action: expected an action of the rules (not a composite){hint}")
        if not (c.reason or "").strip():
            raise InputError(f"{at}.reason: expected the words a judge says when the guard fails")
        try:
            parse_guard(c.require or "", rules)
        except InputError as exc:
            raise InputError(f"{at}.require: {str(exc).removeprefix('--where: ')}") from None
