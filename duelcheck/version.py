"""The version of duelcheck (a module of its own, so that anything can read it without importing the package's API)."""

__version__ = "0.1.0"
