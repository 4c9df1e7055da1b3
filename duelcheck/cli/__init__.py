"""The `duelcheck` command line: a small shared core (`_core`) and one module per command, each registering
its command on the `main` group when imported."""

from __future__ import annotations

from duelcheck.cli import (  # noqa: F401  (each module registers its command)
    boards,
    certify,
    check,
    diff,
    difftest,
    export,
    graph,
    mutate,
    presets,
    properties,
    replay,
    rulebook,
    schema,
    show,
    sweep,
    to_log,
)
from duelcheck.cli._core import main

__all__ = ["main"]
