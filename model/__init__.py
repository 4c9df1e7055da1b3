"""duelcheck.model."""
