"""`python -m duelcheck`: the duelcheck command line."""

from duelcheck.interrupts import main

main()
