"""A researcher's own properties, with no Python: a state predicate in the `--where` language of
`duelcheck boards` (docs/boards.md), given on the command line (`duelcheck check --always EXPR`,
`--sometimes EXPR`) or in a TOML file (`--properties FILE`) of `[[property]]` tables:

    [[property]]
    name = "no-lp-lost-on-turn-1"
    kind = "always"                  # or "sometimes"
    clause = "6.3.4"                 # what it states (free text)
    doc = "Nobody loses LP on turn 1."
    state = "turn > 1 or (players[0].lp == 8000 and players[1].lp == 8000)"

    [[property]]
    name = "attacks-in-the-battle-step"
    kind = "always"
    step = "action == declare_attack implies (phase == battle_step and next.attacking)"

A `step` predicate reads the state before the step in plain field names, the state after as `next.FIELD`
and the step's action as `action` (`action == declare_attack`, `action in (pass, end_step)`); on the command
line an expression that uses them is a step predicate. The language has `and`, `or`, `not`, `implies`,
`in (a, b, ...)` and comparisons (engines/boards/where.py).

The predicate is parsed once and evaluated in both semantics like the shipped properties' predicates, so
the same engines decide it: proved for all depths, violated with a minimal certified trace, a witness found
or proved unreachable. Its expression is part of the proof cache's key (`Property.source`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from duelcheck.errors import InputError
from duelcheck.properties.core import PROPERTIES, Kind_, Property, state, step
from duelcheck.rules import Rules

KINDS = ("always", "sometimes")
NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
FIELDS = {"name", "kind", "clause", "doc", "state", "step"}


def user_property(
    name: str, kind: str, expr: str, rules: Rules, clause: str = "user", doc: str = "", on_step: bool | None = None
) -> Property:
    """One property of kind `kind` whose check is the predicate `expr`: of a step when `on_step` (a file's
    `step`), of a state when not (a file's `state`: `next.` and `action` refused), and when None (the command
    line) of a step exactly when it reads the step (the state after as `next.FIELD`, the action as `action`).
    An InputError naming the column when it does not parse under these rules."""
    from duelcheck.engines.boards.where import parse_step, parse_where

    if on_step is False:
        # the state language alone: `next.` and `action` are refused with their column (outside a count)
        parse_where(expr, rules, counts=True)
    parsed = parse_step(expr, rules)
    pred = parsed.pred
    of_kind: Kind_ = "always" if kind == "always" else "sometimes"
    if parsed.reads_step or on_step:
        check = replace(step(pred), kind=of_kind)
    else:
        check = replace(state(lambda st: pred(st, None, st)), kind=of_kind)
    return Property(name, of_kind, clause, doc or f"{kind} {expr}", (check,), source=expr, counters=parsed.counters)


def from_command_line(always: tuple[str, ...], sometimes: tuple[str, ...], rules: Rules) -> list[Property]:
    """The properties of `--always EXPR` and `--sometimes EXPR`, each named by its kind and a slug of its text
    with a digest (`always-turn-1-and-...-3f2a1c`), so that two expressions never share a name."""
    out = []
    for kind, exprs in (("always", always), ("sometimes", sometimes)):
        for expr in exprs:
            slug = re.sub(r"[^a-z0-9]+", "-", expr.lower()).strip("-")[:40].strip("-") or "expr"
            name = f"{kind}-{slug}-{hashlib.sha1(expr.encode()).hexdigest()[:6]}"
            try:
                out.append(user_property(name, kind, expr, rules, doc=f"{kind} {expr} (from the command line)"))
            except InputError as exc:
                raise InputError(f"--{kind} {expr!r}: {str(exc).removeprefix('--where: ')}") from None
    return out


def from_file(path: str | Path, rules: Rules) -> list[Property]:
    """The `[[property]]` tables of a TOML file; a malformed one is one InputError naming the file, the table
    and what was expected."""
    from duelcheck.inputs import load_toml

    where = str(path)
    data = load_toml(Path(path), "property file")
    tables = data.get("property")
    extra = set(data) - {"property"}
    if extra:
        raise InputError(f"{where}: {sorted(extra)[0]}: unknown key (a property file holds [[property]] tables)")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise InputError(f"{where}: expected [[property]] tables")
    out: list[Property] = []
    taken = {p.name for p in PROPERTIES}
    for i, t in enumerate(tables):
        at = f"{where}: property[{i}]"
        unknown = set(t) - FIELDS
        if unknown:
            raise InputError(f"{at}: {sorted(unknown)[0]}: unknown key (expected {', '.join(sorted(FIELDS))})")
        if ("state" in t) == ("step" in t):
            raise InputError(f'{at}: expected one of state = "EXPR" (a state predicate) or step = "EXPR"')
        on_step = "step" in t
        name, kind, expr = t.get("name"), t.get("kind"), t.get("step" if on_step else "state")
        if not isinstance(name, str) or not NAME.match(name):
            raise InputError(f"{at}: name: expected lower-case words joined by dashes, got {name!r}")
        if name in taken:
            raise InputError(f"{at}: name: {name!r} is taken (a shipped property or an earlier one)")
        if kind not in KINDS:
            raise InputError(f"{at}: kind: expected always or sometimes, got {kind!r}")
        key = "step" if on_step else "state"
        if not isinstance(expr, str):
            raise InputError(f"{at}: {key}: expected the predicate as a string")
        clause, doc = t.get("clause", "user"), t.get("doc", "")
        if not isinstance(clause, str) or not isinstance(doc, str):
            raise InputError(f"{at}: clause and doc: expected strings")
        try:
            out.append(user_property(name, str(kind), expr, rules, clause, doc, on_step=on_step))
        except InputError as exc:
            raise InputError(f"{at}: {key}: {str(exc).removeprefix('--where: ')}") from None
        taken.add(name)
    return out


def register(files: Iterable[str | Path], rules: Rules) -> list[Property]:
    """Add the properties of `files` to the suite of this process (`PROPERTIES`, `BY_NAME`), each file once: for
    the engines that read the suite itself (`duelcheck mutate --properties`: a user's property kills mutants
    too); their counts join every transition system built afterwards (properties/history.py `history_for`)."""
    from duelcheck.properties.catalog import BY_NAME

    out: list[Property] = []
    for path in files:
        key = str(Path(path).resolve())
        if key not in _REGISTERED:
            _REGISTERED[key] = from_file(path, rules)
            for p in _REGISTERED[key]:
                PROPERTIES.append(p)
                BY_NAME[p.name] = p
        out += _REGISTERED[key]
    return out


_REGISTERED: dict[str, list[Property]] = {}  # the files registered in this process, and their properties


def digested(path: str | Path, rules: Rules | None = None) -> tuple[str, str, list[str]]:
    """A property file for a run that stores its results (`sweep`, `mutate`): parsed now, so that bad input is
    one line before anything runs; its absolute path, the digest of its text (part of each stored result's
    settings: an edited file runs again) and the names of its properties."""
    p = Path(path).resolve()
    names = [prop.name for prop in from_file(p, rules or Rules())]
    return str(p), hashlib.sha256(p.read_bytes()).hexdigest()[:16], names
