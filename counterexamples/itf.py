"""Traces in the Informal Trace Format (ITF, `.itf.json`).

Each ITF state holds every model variable plus `action`, the action that led to it, as a variant
`{"tag": name, "value": {parameters}}` (the first state's tag is `init`). Enumerated values are
written by name; arrays as lists (per player, then per zone). LP, ATK and DEF are written in points,
as a person means them (8000 LP), though the model holds them in units of 100. The action `pass` is
tagged `pass_priority`: a tag or a field named by a Python keyword cannot be read by ITF readers that
turn variants into named tuples (itf-py); a reader of duelcheck's accepts either.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from duelcheck.engines.base import Trace
from duelcheck.errors import InputError
from duelcheck.model.cards import Cost, Effect, Kind, MonsterEffect
from duelcheck.model.rules import ACTION_BY_NAME
from duelcheck.model.state import PARAMS, FieldSpec, Key
from duelcheck.model.system import Step, TransitionSystem
from duelcheck.properties.history import COUNT_PREFIX
from duelcheck.rules import Rules, rules_from_mapping
from duelcheck.version import __version__

MAX_SAFE = 2**53 - 1
PARAM_ENUMS: dict[str, Any] = {"kind": Kind, "eff": Effect, "mkind": MonsterEffect, "cost": Cost}


def _int_out(v: int) -> Any:
    return v if abs(v) <= MAX_SAFE else {"#bigint": str(v)}


def _scalar_out(spec_enum: Any, sort: str, v: Any) -> Any:
    if sort == "bool":
        return bool(v)
    if spec_enum is not None:
        try:
            return spec_enum(v).name
        except ValueError:
            return _int_out(int(v))
    return _int_out(int(v))


ITF_TAG = {"pass": "pass_priority"}  # an action's ITF tag, where its name is a Python keyword
ACTION_OF_TAG = {tag: name for name, tag in ITF_TAG.items()}


def _nest(spec: FieldSpec, values: dict[Key, Any]) -> Any:
    def build(prefix: tuple[int, ...], dims: tuple[int, ...]) -> Any:
        if not dims:
            v = values[(spec.name, *prefix)]
            return _scalar_out(spec.enum, spec.sort, v * spec.scale if spec.scale != 1 else v)
        return [build((*prefix, i), dims[1:]) for i in range(dims[0])]

    return build((), spec.dims)


def params_out(params: dict[str, Any]) -> dict[str, Any]:
    return {k: _scalar_out(PARAM_ENUMS.get(k), PARAMS[k].sort, v * PARAMS[k].scale) for k, v in params.items()}


def state_out(ts: TransitionSystem, step: Step, index: int) -> dict[str, Any]:
    clause = ACTION_BY_NAME[step.action].clause if step.action in ACTION_BY_NAME else ""
    out: dict[str, Any] = {"#meta": {"index": index, "clause": clause}}
    out["action"] = {"tag": ITF_TAG.get(step.action, step.action), "value": params_out(step.params)}
    for spec in ts.fields:
        out[spec.name] = _nest(spec, step.state.v)
    return out


def trace_to_itf(ts: TransitionSystem, trace: Trace, meta: dict[str, Any]) -> dict[str, Any]:
    return {
        "#meta": {
            "format": "ITF",
            "source": "duelcheck",
            "duelcheck": __version__,
            "rules": ts.rules.model_dump(),
            **meta,
        },
        "vars": ["action", *(spec.name for spec in ts.fields)],
        "states": [state_out(ts, step, i) for i, step in enumerate(trace.steps)],
    }


def write_atomic(path: Path, text: str) -> None:
    """Write a file so that readers see the old content or the new, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # as any file the user creates (mkstemp makes it 0600)
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_trace(path: Path, ts: TransitionSystem, trace: Trace, meta: dict[str, Any]) -> None:
    write_atomic(path, json.dumps(trace_to_itf(ts, trace, meta), indent=1, ensure_ascii=False) + "\n")


# -- reading ----------------------------------------------------------------------------------


class _Reader:
    def __init__(self, source: str):
        self.source = source

    def fail(self, where: str, expected: str) -> InputError:
        return InputError(f"{self.source}: {where}: expected {expected}")

    def scalar(
        self, where: str, sort: str, enum: Any, raw: Any, lo: int | None = None, hi: int | None = None, scale: int = 1
    ) -> Any:
        if isinstance(raw, dict) and set(raw) == {"#bigint"}:
            try:
                raw = int(raw["#bigint"])
            except (TypeError, ValueError):
                raise self.fail(where, "a #bigint holding an integer") from None
        if scale != 1 and isinstance(raw, int) and not isinstance(raw, bool):
            if raw % scale:
                raise self.fail(where, f"points in steps of {scale}")
            raw //= scale
        if sort == "bool":
            if not isinstance(raw, bool):
                raise self.fail(where, "true or false")
            return raw
        if enum is not None and isinstance(raw, str):
            try:
                return int(enum[raw])
            except KeyError:
                raise self.fail(where, f"one of {', '.join(m.name for m in enum)}") from None
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise self.fail(where, "an integer" if enum is None else f"one of {', '.join(m.name for m in enum)}")
        if (lo is not None and raw < lo) or (hi is not None and raw > hi):
            low, high = (lo * scale, hi * scale) if lo is not None and hi is not None else (lo, hi)
            raise self.fail(where, f"an integer from {low} to {high}")
        return raw


def field_range(spec: FieldSpec) -> tuple[int | None, int | None]:
    if spec.sort == "bool":
        return None, None
    if spec.sort == "player":
        return 0, 1
    if spec.enum is not None:
        return 0, len(spec.enum) - 1
    top = 2 ** (spec.width - 1) - 1
    return -top - 1, top


def read_state_fields(ts: TransitionSystem, raw: dict[str, Any], where: str, rd: _Reader) -> dict[Key, Any]:
    values: dict[Key, Any] = {}
    for spec in ts.fields:
        if spec.name not in raw and spec.ghost:  # the property layer's history: a trace may leave it out
            values.update({key: spec.zero() for key in spec.cells()})
            continue
        if spec.name not in raw:
            raise rd.fail(f"{where}.{spec.name}", "the field (every model variable is in every state)")
        lo, hi = field_range(spec)

        def walk(
            node: Any,
            prefix: tuple[int, ...],
            dims: tuple[int, ...],
            path: str,
            spec: FieldSpec = spec,
            lo: int | None = lo,
            hi: int | None = hi,
        ) -> None:
            if not dims:
                values[(spec.name, *prefix)] = rd.scalar(path, spec.sort, spec.enum, node, lo, hi, spec.scale)
                return
            if not isinstance(node, list) or len(node) != dims[0]:
                raise rd.fail(path, f"a list of {dims[0]}")
            for i, item in enumerate(node):
                walk(item, (*prefix, i), dims[1:], f"{path}[{i}]")

        walk(raw[spec.name], (), spec.dims, f"{where}.{spec.name}")
    return values


def read_params(name: str, raw: Any, where: str, rd: _Reader) -> dict[str, Any]:
    act = ACTION_BY_NAME.get(name)
    if act is None and name != "init":
        tags = ", ".join(ITF_TAG.get(a, a) for a in ACTION_BY_NAME)
        raise rd.fail(f"{where}.tag", f"an action, one of init, {tags}")
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise rd.fail(f"{where}.value", "an object of parameters")
    allowed = act.params if act is not None else ()
    # a parameter the trace leaves out takes its default (0, false), as in the model's own actions
    out: dict[str, Any] = {key: False if PARAMS[key].sort == "bool" else 0 for key in allowed}
    for key, value in raw.items():
        if key not in allowed:
            raise rd.fail(f"{where}.value.{key}", f"a parameter of {name}: {', '.join(allowed) or 'none'}")
        spec = PARAMS[key]
        out[key] = rd.scalar(
            f"{where}.value.{key}", spec.sort, PARAM_ENUMS.get(key), value, spec.lo, spec.hi, spec.scale
        )
    return out


def itf_to_trace(ts: TransitionSystem, data: Any, source: str) -> Trace:
    """Read an ITF document written by duelcheck (or by hand in the same vocabulary)."""
    from duelcheck.model.state import concrete_state

    rd = _Reader(source)
    if not isinstance(data, dict):
        raise rd.fail("(document)", "a JSON object with 'vars' and 'states'")
    states = data.get("states")
    if not isinstance(states, list) or not states:
        raise rd.fail("states", "a non-empty list of states")
    steps = []
    for i, raw in enumerate(states):
        where = f"states[{i}]"
        if not isinstance(raw, dict):
            raise rd.fail(where, "an object")
        action = raw.get("action")
        if not isinstance(action, dict) or not isinstance(action.get("tag"), str):
            raise rd.fail(f"{where}.action", 'a variant {"tag": name, "value": {parameters}}')
        tag: str = action["tag"]
        name = ACTION_OF_TAG.get(tag, tag)
        params = read_params(name, action.get("value"), f"{where}.action", rd)
        if (i == 0) != (name == "init"):
            raise rd.fail(f"{where}.action.tag", "init for the first state only")
        known = {"#meta", "action", *ts.schema}
        # a user's count (engines/boards/where.py): history of the property that asked for it, not of the game
        extra = [k for k in raw if k not in known and not k.startswith(COUNT_PREFIX)]
        if extra:
            raise rd.fail(f"{where}.{extra[0]}", f"a model variable; the rules give {len(ts.schema)} of them")
        values = read_state_fields(ts, raw, where, rd)
        state = concrete_state(ts.rules, ts.schema, values)
        check_reachable_shape(state, where, rd, whole=i == 0)
        steps.append(Step(name, params, state))
    return Trace(steps)


def check_reachable_shape(s: Any, where: str, rd: _Reader, whole: bool) -> None:
    """A state is judged only if the rules could reach a state of its shape: counts from 0 and LP above 0
    while the duel goes on; the first state (the board) meets every structural fact of the well-formed
    invariant too, as a log's board does. Later states are what an engine observed: a difference there is
    reported by the replay, not refused."""
    from duelcheck.properties.catalog import well_formed_facts

    for p in (0, 1):
        for name in ("deck", "hand", "gy"):
            if s.g(name, p) < 0:
                raise rd.fail(f"{where}.{name}[{p}]", "0 or more cards")
        if s.g("winner") == 0 and s.g("lp", p) <= 0:
            raise rd.fail(f"{where}.lp[{p}]", "LP above 0 while the duel goes on (winner 0): at 0 a player has lost")
    if whole and not all(well_formed_facts(s, budget=False)):
        raise rd.fail(where, "a state the rules can reach (it breaks the model's well-formed invariant)")


def recorded_rules(data: Any, source: str) -> Rules:
    """The rules a trace records in `#meta.rules` (the official rules when it records none)."""
    meta = data.get("#meta", {}) if isinstance(data, dict) else {}
    recorded = meta.get("rules", {}) if isinstance(meta, dict) else {}
    return rules_from_mapping(recorded if isinstance(recorded, dict) else {}, f"{source}: #meta.rules")


def load_json(path: Path) -> Any:
    from duelcheck.inputs import load_json as read

    return read(path)
