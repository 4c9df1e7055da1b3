"""duelcheck: a formal model checker for the turn rules of the Yu-Gi-Oh! trading card game."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from duelcheck.conformance import Report
    from duelcheck.rules import Rules

__version__ = "0.1.0"


def replay(play: Any, rules: Rules | None = None) -> Report:
    """Replay a duel log or an ITF trace (a path or a parsed document) against the rules: `Report.conforms`."""
    from duelcheck.conformance import replay as _replay

    return _replay(play, rules)
