"""Two evaluators for one rule text: concrete Python values, or Z3 terms.

Rules never use Python's `if`, `and`, `or`, `not`, `min` or `max` on model values; they call the kit,
which computes the value (concrete) or builds the term (symbolic). Comparisons and `+`/`-` work on
both kinds of value as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import z3

Val = Any  # a Python bool/int, or a z3 term


def _is_py(x: Val) -> bool:
    return isinstance(x, (bool, int))


class Kit:
    symbolic: bool = False

    def ite(self, c: Val, a: Val, b: Val, w: int | None = None) -> Val:
        return a if c else b

    def and_(self, *xs: Val) -> Val:
        return all(xs)

    def or_(self, *xs: Val) -> Val:
        return any(xs)

    def not_(self, x: Val) -> Val:
        return not x

    def implies(self, a: Val, b: Val) -> Val:
        return (not a) or b

    def odd(self, x: Val) -> Val:
        return bool(x & 1)

    def smax(self, a: Val, b: Val) -> Val:
        return a if a >= b else b

    def smin(self, a: Val, b: Val) -> Val:
        return a if a <= b else b

    def one_of(self, x: Val, values: Iterable[int]) -> Val:
        return x in tuple(values)

    def sel(self, values: Sequence[Val], i: Val, w: int | None = None) -> Val:
        return values[i] if 0 <= i < len(values) else values[-1]

    def wide(self, x: Val, w: int) -> Val:
        """A signed number `x` at width `w`, for arithmetic that must not wrap (a concrete int is exact)."""
        return x


class SymKit(Kit):
    """Builds Z3 terms; folds Python constants so terms stay small."""

    symbolic = True

    def ite(self, c: Val, a: Val, b: Val, w: int | None = None) -> Val:
        if _is_py(c):
            return a if c else b
        if a is b:
            return a
        if isinstance(a, bool) and isinstance(b, bool):
            return c if a else z3.Not(c)
        if _is_py(a) and _is_py(b):
            if w is None:
                raise TypeError("ite of two Python ints under a symbolic condition needs a width")
            if a == b:
                return a
            return z3.If(c, z3.BitVecVal(a, w), z3.BitVecVal(b, w))
        return z3.If(c, a, b)

    def and_(self, *xs: Val) -> Val:
        terms = []
        for x in xs:
            if _is_py(x):
                if not x:
                    return False
            else:
                terms.append(x)
        if not terms:
            return True
        return terms[0] if len(terms) == 1 else z3.And(*terms)

    def or_(self, *xs: Val) -> Val:
        terms = []
        for x in xs:
            if _is_py(x):
                if x:
                    return True
            else:
                terms.append(x)
        if not terms:
            return False
        return terms[0] if len(terms) == 1 else z3.Or(*terms)

    def not_(self, x: Val) -> Val:
        return (not x) if _is_py(x) else z3.Not(x)

    def implies(self, a: Val, b: Val) -> Val:
        return self.or_(self.not_(a), b)

    def odd(self, x: Val) -> Val:
        if _is_py(x):
            return bool(x & 1)
        return z3.Extract(0, 0, x) == 1

    def smax(self, a: Val, b: Val) -> Val:
        return self.ite(a >= b, a, b)

    def smin(self, a: Val, b: Val) -> Val:
        return self.ite(a <= b, a, b)

    def one_of(self, x: Val, values: Iterable[int]) -> Val:
        if _is_py(x):
            return x in tuple(values)
        return self.or_(*(x == v for v in values))

    def sel(self, values: Sequence[Val], i: Val, w: int | None = None) -> Val:
        if _is_py(i):
            return values[i] if 0 <= i < len(values) else values[-1]
        out = values[-1]
        for j in range(len(values) - 2, -1, -1):
            out = self.ite(i == j, values[j], out, w)
        return out

    def wide(self, x: Val, w: int) -> Val:
        if _is_py(x):
            return z3.BitVecVal(int(x), w)
        return z3.SignExt(w - x.size(), x) if x.size() < w else x


CONCRETE = Kit()
SYMBOLIC = SymKit()
