"""duelcheck: a formal model checker for the turn rules of the Yu-Gi-Oh! trading card game."""

__version__ = "0.1.0"
