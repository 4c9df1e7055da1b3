"""The library API: what `import duelcheck` offers a program (the command line is built on it).

    import duelcheck

    rules = duelcheck.load_rules({"hand_limit": 7})
    report = duelcheck.check(rules, properties=["hand-limit-at-turn-end", "reach-turn-3"], depth=12)
    for r in report.results:
        print(r.label, r.verdict, r.length)

A property's case is spelled one way everywhere (the table, `--property`, trace file names, ITF and JSON):
`name[case]`, e.g. `reach-every-damage-outcome[direct]`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from duelcheck.conformance import Report as ReplayReport
from duelcheck.engines.base import Result, Trace
from duelcheck.engines.checker import DEFAULT_DEPTH, Checker, Report
from duelcheck.errors import InputError
from duelcheck.properties.catalog import BY_NAME, PROPERTIES, Property
from duelcheck.rules import Rules, rules_from_mapping
from duelcheck.rules import load_rules as _load_rules_file

_LABEL = re.compile(r"^(?P<name>[^\[\]]+)(?:\[(?P<case>[^\[\]]*)\])?$")


@dataclass(frozen=True)
class PropertyInfo:
    """A property of the suite: its name, kind (`always` or `sometimes`), clause, meaning, and cases."""

    name: str
    kind: str
    clause: str
    doc: str
    cases: tuple[str, ...]

    @property
    def labels(self) -> tuple[str, ...]:
        """Every label that selects it or one of its cases: `name` and `name[case]`."""
        return (self.name, *(f"{self.name}[{c}]" for c in self.cases))


def list_properties() -> list[PropertyInfo]:
    """Every property of the suite, in the order `duelcheck check` reports them (the suite itself, as
    predicates, is the package `duelcheck.properties`, hence this name)."""
    return [
        PropertyInfo(p.name, p.kind, p.clause, p.doc, tuple(c.label for c in p.checks if c.label)) for p in PROPERTIES
    ]


def load_rules(source: str | Path | Mapping[str, Any] | Rules | None = None) -> Rules:
    """Rule parameters: None for today's official rules, a TOML file's path, a mapping of knobs (the rule
    file's keys, `preset` included), or a `Rules` already made. Bad input raises `InputError`."""
    if source is None or isinstance(source, Rules):
        return source if source is not None else _load_rules_file(None)
    if isinstance(source, Mapping):
        return rules_from_mapping(dict(source))
    return _load_rules_file(source)


def select(names: Iterable[str] | None, extra: Iterable[Property] = ()) -> list[Property]:
    """The properties named (all when None or empty): `name` for every case, `name[case]` for one. `extra`
    (a user's properties, properties/user.py) are in every selection and may be named like the shipped ones
    (naming one runs only the user's properties and those named). An unknown name raises `InputError` with
    the closest names ("did you mean")."""
    extra = list(extra)
    known = {**BY_NAME, **{p.name: p for p in extra}}
    chosen: dict[str, Property] = {}
    for raw in names or ():
        m = _LABEL.match(raw.strip())
        prop = known.get(m.group("name")) if m else None
        case = m.group("case") if m else None
        cases = [c.label for c in prop.checks] if prop is not None else []
        if prop is None or (case is not None and case not in cases):
            labels = [label for info in list_properties() for label in info.labels] + [p.name for p in extra]
            close = difflib.get_close_matches(raw, labels, n=3, cutoff=0.6)
            hint = f"; did you mean {' or '.join(close)}?" if close else "; `duelcheck properties` lists them"
            raise InputError(f"--property {raw!r}: no such property{' case' if prop is not None else ''}{hint}")
        if case is None:
            chosen[prop.name] = prop
            continue
        held = chosen.get(prop.name)
        if held is not None and len(held.checks) == len(prop.checks):
            continue  # the whole property is selected already
        kept = {c.label for c in (held.checks if held is not None else ())} | {case}
        chosen[prop.name] = replace(prop, checks=tuple(c for c in prop.checks if c.label in kept))
    if not chosen:
        return list(PROPERTIES) + extra
    for p in extra:  # a user's properties are in every run they are given to
        chosen.setdefault(p.name, p)
    order = [p.name for p in PROPERTIES] + [p.name for p in extra]
    return sorted(chosen.values(), key=lambda p: order.index(p.name))


def user_properties(
    rules: Rules, always: tuple[str, ...] = (), sometimes: tuple[str, ...] = (), files: Iterable[str | Path] = ()
) -> list[Property]:
    """A user's properties under these rules: `--always`/`--sometimes` expressions and property files
    (properties/user.py); a malformed one raises `InputError` naming where."""
    from duelcheck.properties.user import from_command_line, from_file

    out = from_command_line(always, sometimes, rules)
    for path in files:
        out += from_file(path, rules)
    names = [p.name for p in out]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise InputError(f"property {twice!r} is given twice")
    return out


def check(
    rules: str | Path | Mapping[str, Any] | Rules | None = None,
    properties: Iterable[str] | None = None,
    depth: int = DEFAULT_DEPTH,
    timeout: float | None = None,
    *,
    out: str | Path | None = None,
    solver: str = "auto",
    workers: int | None = None,
    prove: bool = True,
    simulate: bool = True,
    cache: str | Path | bool | None = True,
    property_timeout: float | None = None,
    on_result: Callable[[Result], None] | None = None,
    progress: Callable[[str], None] | None = None,
    always: Iterable[str] = (),
    sometimes: Iterable[str] = (),
    property_files: Iterable[str | Path] = (),
) -> Report:
    """Check properties (names or `name[case]` labels; all when None) under rules (see `load_rules`).

    Invariants are proved for all depths by induction, witnesses and unproved invariants searched by
    bounded model checking to `depth` (then simulation for a witness beyond it). Returns a `Report`:
    `.results` (each a `Result` with `.label`, `.verdict`, `.trace`, `.length`, `.minimal`, `.note`),
    `.exit_code` (the command line's), `.to_json()`. `timeout` (seconds for the whole run) makes what does
    not finish `unknown`. Traces are written to `out` when given. `cache=True` keeps proofs in the
    user's cache folder, a path keeps them there, False or None proves again. `on_result` hears each
    result as soon as it is settled; `progress` hears what the run is doing. `always` and `sometimes` add a
    property each, a state predicate in the `--where` language (docs/boards.md); `property_files` add the
    `[[property]]` tables of TOML files (properties/user.py)."""
    import time

    from duelcheck.engines.cache import default_cache_dir

    started = time.monotonic()
    chosen_rules = load_rules(rules)
    chosen = select(properties, user_properties(chosen_rules, tuple(always), tuple(sometimes), property_files))
    folder = Path(out) if out is not None else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    cache_dir = default_cache_dir() if cache is True else (Path(cache) if cache else None)
    checker = Checker(
        chosen_rules,
        depth,
        folder,
        progress,
        solver=solver,
        prove=prove,
        simulate=simulate,
        cache=cache_dir,
        deadline=None if timeout is None else started + timeout,
        workers=workers,
        property_timeout=property_timeout,
        on_result=on_result,
    )
    report = checker.run(chosen)
    checker.write(report)
    return report


def replay(
    play: str | Path | Mapping[str, Any], rules: str | Path | Mapping[str, Any] | Rules | None = None
) -> ReplayReport:
    """Replay a duel log or an ITF trace (a path or a parsed document) against the rules (by default
    those the file records): `.conforms`, `.steps` (each legal or not, with the rules' reason and the
    fields that differ), `.expectation_failures()`. Bad input raises `InputError`."""
    from duelcheck.conformance import replay as _replay

    document = dict(play) if isinstance(play, Mapping) else play
    return _replay(document, None if rules is None else load_rules(rules))


__all__ = [
    "DEFAULT_DEPTH",
    "InputError",
    "PropertyInfo",
    "ReplayReport",
    "Report",
    "Result",
    "Rules",
    "Trace",
    "check",
    "list_properties",
    "load_rules",
    "replay",
    "select",
]
