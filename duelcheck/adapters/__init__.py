"""Engines behind duelcheck's adapter protocol: duelcheck's own interpreter (the reference adapter), the
rules with cards for `duelcheck difftest` (model.py), ygopro-core (ygopro.py, over ocgcore.py), and any
engine in another process speaking JSON lines (jsonlines.py, `exec:COMMAND`)."""

from duelcheck.adapter import EngineAdapter, ReferenceAdapter, load_adapter

__all__ = ["EngineAdapter", "ReferenceAdapter", "load_adapter"]
