"""duelcheck: a formal model checker for the turn rules of the Yu-Gi-Oh! trading card game.

The library API (documented in `duelcheck.api`; imported on first use, so `import duelcheck` stays light):

    import duelcheck

    report = duelcheck.check(properties=["reach-turn-3"], depth=12)
    print(report.results[0].verdict, report.results[0].length)   # found 9

`check(rules, properties, depth, timeout) -> Report`, `load_rules(...) -> Rules`, `replay(play) -> ReplayReport`,
`list_properties() -> list[PropertyInfo]`, `select(names)`; bad input raises `InputError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from duelcheck.api import (
        DEFAULT_DEPTH,
        InputError,
        PropertyInfo,
        ReplayReport,
        Report,
        Result,
        Rules,
        Trace,
        check,
        list_properties,
        load_rules,
        replay,
        select,
    )

from duelcheck.version import __version__

__all__ = [
    "DEFAULT_DEPTH",
    "InputError",
    "PropertyInfo",
    "ReplayReport",
    "Report",
    "Result",
    "Rules",
    "Trace",
    "__version__",
    "check",
    "list_properties",
    "load_rules",
    "replay",
    "select",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from duelcheck import api

        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'duelcheck' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
