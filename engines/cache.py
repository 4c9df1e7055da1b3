"""A cache of proofs, keyed by everything a proof depends on: the rule set, the invariants' names, the
source of the model, the properties and the proof engine, and the solver's version. A changed rule,
property or engine is a new key; nothing is ever reused across them. Entries are written atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import z3

from duelcheck.version import __version__

_SOURCES = (
    "duelcheck.model.cards",
    "duelcheck.model.kit",
    "duelcheck.model.state",
    "duelcheck.model.rules",
    "duelcheck.model.system",
    "duelcheck.properties.core",
    "duelcheck.properties.turn",
    "duelcheck.properties.chain",
    "duelcheck.properties.battle",
    "duelcheck.properties.damage_step",
    "duelcheck.properties.effects",
    "duelcheck.properties.bookkeeping",
    "duelcheck.properties.catalog",
    "duelcheck.properties.user",
    "duelcheck.engines.boards.where",  # the language of a user's properties
    "duelcheck.properties.history",  # the counters the properties read: a change there changes every proof
    "duelcheck.engines.kind",
)


def default_cache_dir() -> Path:
    """$DUELCHECK_CACHE, else $XDG_CACHE_HOME/duelcheck, else ~/.cache/duelcheck."""
    env = os.environ.get("DUELCHECK_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "duelcheck"


def _model_digest() -> str:
    import importlib
    import inspect

    h = hashlib.sha256(__version__.encode())
    h.update(z3.get_version_string().encode())
    for name in _SOURCES:
        h.update(inspect.getsource(importlib.import_module(name)).encode())
    return h.hexdigest()


class ProofCache:
    """Proofs under `folder`/proofs; with another `sub` and `field`, other answers of the same dependence (an
    entry is read only when it holds a list under `field`)."""

    def __init__(self, folder: Path, sub: str = "proofs", field: str = "proved"):
        self.folder = folder / sub
        self.field = field

    def key(self, rules: Any, props: list[Any]) -> str:
        h = hashlib.sha256(_model_digest().encode())
        h.update(json.dumps(rules.model_dump(), sort_keys=True).encode())
        h.update(json.dumps(sorted(p.name for p in props)).encode())
        sources = sorted((p.name, p.source) for p in props if getattr(p, "source", None) is not None)
        if sources:  # a user's properties: their expressions too (the shipped ones are in the model's digest)
            h.update(json.dumps(sources).encode())
        return h.hexdigest()[:32]

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            data = json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and isinstance(data.get(self.field), list) else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp = self.folder / f".{key}.{os.getpid()}.tmp"
            tmp.write_text(json.dumps(value, sort_keys=True), encoding="utf-8")
            os.replace(tmp, self.folder / f"{key}.json")
        except OSError:
            pass  # a cache that cannot be written only costs time
