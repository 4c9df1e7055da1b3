"""duelcheck.engines."""
