"""duelcheck.counterexamples."""
