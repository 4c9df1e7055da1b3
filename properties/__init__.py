"""The property suite: invariants (`always`) and witnesses (`sometimes`), each citing its clause."""

from duelcheck.properties.catalog import BY_NAME, PROPERTIES, ActionView, Check, Property

__all__ = ["BY_NAME", "PROPERTIES", "ActionView", "Check", "Property"]
