"""The state vector: a schema of named fields, a read-only State view, and a Builder for successors.

The same State class holds concrete values or Z3 terms; the kit it carries decides which.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import z3

from duelcheck.model import changes
from duelcheck.model.cards import (
    ATK_CAP,
    ATK_CHANGES,
    POINTS,
    STAT_VALUES,
    Cost,
    Effect,
    Kind,
    MonsterEffect,
    Pending,
    Phase,
    Until,
)
from duelcheck.model.kit import CONCRETE, SYMBOLIC, Kit, Val
from duelcheck.rules import Rules

Key = tuple[Any, ...]
_MISSING = object()


@dataclass(frozen=True)
class FieldSpec:
    name: str
    dims: tuple[int, ...]
    sort: str  # "bool" | "int" | "enum" | "player"
    width: int
    doc: str
    enum: type[IntEnum] | None = None
    scale: int = 1  # ATK, DEF and LP are held in units of 100 points
    ghost: bool = False  # history kept by the property layer (properties/history.py): no rule reads or writes it

    def cells(self) -> Iterator[Key]:
        for idx in itertools.product(*(range(d) for d in self.dims)):
            yield (self.name, *idx)

    def zero(self) -> Val:
        return False if self.sort == "bool" else 0

    def z3var(self, key: Key, tag: str) -> Any:
        label = key[0] + "".join(f"[{i}]" for i in key[1:]) + tag
        if self.sort == "bool":
            return z3.Bool(label)
        return z3.BitVec(label, self.width)


def build_schema(r: Rules) -> tuple[FieldSpec, ...]:
    mz, sz, cl = r.monster_zones, r.spell_trap_zones, r.chain_links
    B, N, E, P = "bool", "int", "enum", "player"
    f = FieldSpec
    return (
        f("turn", (), N, 9, "turn number, from 1"),
        f("phase", (), E, 4, "current phase or step (6.3)", Phase),
        f("prio", (), P, 1, "player who may act now"),
        f("passed", (), B, 1, "the other player passed last: a pass now ends the step or resolves the chain (6.3)"),
        f(
            "window",
            (),
            B,
            1,
            "the opponent may respond to the turn player's summon, Set, change of position or resolved chain (6.3)",
        ),
        f("resolving", (), B, 1, "the chain is resolving, last in first out (seed 000)"),
        f("discarding", (), B, 1, "the turn player is discarding to the hand limit (6.3.6)"),
        f(
            "replacing",
            (2,),
            B,
            1,
            "damage calculation determined this player's monster destroyed, and they decide whether to apply its "
            "destruction replacement (6.3.4.3.3)",
        ),
        f("winner", (), N, 4, "0 while the duel goes on; 1 + the winning player"),
        f("drew", (), B, 1, "the turn player has made the normal draw (6.3.1)"),
        f("nsum", (), N, 8, "Normal Summons and Sets this turn (6.3.5)"),
        f("bp_done", (), B, 1, "a Battle Phase was entered this turn (6.3.5)"),
        f("attacking", (), B, 1, "an attack is in progress (6.3.4.2)"),
        f("atk_zone", (), N, 4, "zone of the attacking monster"),
        f("atk_tgt", (), N, 4, "zone of the attack target, 5 for a direct attack"),
        f("at_decl", (), B, 1, "the attack declaration timing is open (6.3.4.2)"),
        f("replay", (), B, 1, "the opponent's monsters changed in the Battle Step: a replay is due (6.3.4.2.1)"),
        f("chain_len", (), N, 4, "links on the chain"),
        f("m1_start", (), B, 1, "Main Phase 1 has begun and nothing has been done in it yet (6.3.3)"),
        f(
            "ds_chained",
            (),
            B,
            1,
            "a chain has resolved in this timing of the Damage Step (Goat format: one chain per timing, 6.3.4.3)",
        ),
        f("lp", (2,), N, 9, "Life Points", None, POINTS),
        f("deck", (2,), N, 9, "cards in the deck"),
        f("hand", (2,), N, 9, "cards in the hand (each unknown until played)"),
        f("gy", (2,), N, 9, "cards in the Graveyard"),
        f("skip_bp", (2,), B, 1, "this player's next Battle Phase is skipped"),
        f("skip_m1", (2,), B, 1, "this player's next Main Phase 1 is skipped"),
        f(
            "later",
            (2,),
            N,
            3,
            "this player's delayed effect: counted turns left until its Standby Phase, plus 1 (1: due this turn; "
            "0: none) (6.3)",
        ),
        f("later_own", (2,), B, 1, "that delayed effect counts only its controller's own turns (6.3)"),
        f(
            "no_damage",
            (2,),
            E,
            3,
            "this player takes no damage until the end of: 1 the Damage Step, 2 the Battle Phase, 3 the turn (a "
            "lasting effect: 6.3.4.3.5, 6.3.4.4, 6.3.6)",
            Until,
        ),
        f("m_occ", (2, mz), B, 1, "a monster is in the zone"),
        f("m_up", (2, mz), B, 1, "the monster is face-up"),
        f("m_def", (2, mz), B, 1, "the monster is in Defense Position"),
        f("m_atk", (2, mz), N, 9, "the monster's ATK", None, POINTS),
        f("m_batk", (2, mz), N, 9, "the monster's original ATK (turned face-down, it has it again)", None, POINTS),
        f("m_defv", (2, mz), N, 9, "the monster's DEF", None, POINTS),
        f("m_fresh", (2, mz), B, 1, "summoned or Set this turn"),
        f("m_moved", (2, mz), B, 1, "its battle position changed this turn"),
        f("m_decl", (2, mz), B, 1, "it declared an attack this turn"),
        f("m_doomed", (2, mz), B, 1, "determined destroyed by battle: to the Graveyard at the end of the Damage Step"),
        f("m_kind", (2, mz), E, 3, "the monster's effect type", MonsterEffect),
        f("m_eff", (2, mz), E, 5, "the monster's effect", Effect),
        f("m_used", (2, mz), B, 1, "its effect was activated this turn (once per turn)"),
        f("s_occ", (2, sz), B, 1, "a Spell/Trap is in the zone"),
        f("s_up", (2, sz), B, 1, "the Spell/Trap is face-up"),
        f("s_kind", (2, sz), E, 5, "the Spell/Trap's kind", Kind),
        f("s_eff", (2, sz), E, 5, "the Spell/Trap's effect", Effect),
        f("s_fresh", (2, sz), B, 1, "Set this turn"),
        f("s_cost", (2, sz), E, 2, "the Spell/Trap's activation cost", Cost),
        f("trig", (2,), E, 2, "this player's triggered effect waiting to be activated (6.3.4.3.4, 6.3.4.3.5)", Pending),
        f("trig_eff", (2,), E, 5, "the effect of that triggered effect", Effect),
        f("trig_zone", (2,), N, 4, "where it is activated from: a Monster Zone, or 6 for the Graveyard"),
        f("c_owner", (cl,), P, 1, "player who activated the link"),
        f("c_kind", (cl,), E, 5, "kind of what was activated", Kind),
        f("c_eff", (cl,), E, 5, "effect of the link", Effect),
        f("c_zone", (cl,), N, 4, "Spell & Trap Zone of the activated card"),
        f("c_tp", (cl,), P, 1, "target's controller"),
        f("c_ta", (cl,), P, 1, "target's area: 0 Monster Zone, 1 Spell & Trap Zone"),
        f("c_tz", (cl,), N, 4, "target's zone"),
        f("c_neg", (cl,), B, 1, "the activation was negated"),
        f("c_gone", (cl,), B, 1, "the activated card left the field before the link resolved"),
        f("c_cost", (cl,), E, 2, "the cost paid on activation (not returned if negated)", Cost),
    )


@dataclass(frozen=True)
class ParamSpec:
    name: str
    sort: str
    width: int
    lo: int = 0
    hi: int = 1
    scale: int = 1
    search: tuple[int, ...] | None = None  # the values the concrete enumerator tries (simulation), not a rule

    def z3var(self, tag: str) -> Any:
        return z3.Bool(self.name + tag) if self.sort == "bool" else z3.BitVec(self.name + tag, self.width)

    def domain(self, var: Any) -> Any:
        """The range a parameter variable may take (so signed comparisons never see wrapped values)."""
        if self.sort in ("bool", "player"):
            return True
        if self.sort == "enum":  # codes from 0: compared unsigned (a narrow enum's top code is negative signed)
            return z3.ULE(var, self.hi)
        return z3.And(var >= self.lo, var <= self.hi)

    def search_domain(self, var: Any) -> Any:
        """The values the concrete enumerator tries (the candidates of model/rules.py), as a Z3 constraint."""
        if self.search is None:
            return True
        return z3.Or(*(var == v for v in self.search))


PARAMS: dict[str, ParamSpec] = {
    p.name: p
    for p in (
        ParamSpec("choice", "int", 4, 0, 3),
        ParamSpec("zone", "int", 4, 0, 7),
        ParamSpec("kind", "enum", 5, 0, len(Kind) - 1),
        ParamSpec("eff", "enum", 5, 0, len(Effect) - 1),
        ParamSpec("tplayer", "player", 1),
        ParamSpec("tarea", "player", 1),
        ParamSpec("tzone", "int", 4, 0, 7),
        ParamSpec("atk", "int", 9, -ATK_CAP, ATK_CAP, POINTS, STAT_VALUES),
        ParamSpec("defv", "int", 9, -ATK_CAP, ATK_CAP, POINTS, STAT_VALUES),
        ParamSpec("pos", "bool", 1),
        ParamSpec("amount", "int", 9, -ATK_CAP, ATK_CAP, POINTS, (0, *ATK_CHANGES)),
        ParamSpec("mkind", "enum", 3, 0, len(MonsterEffect) - 1),
        ParamSpec("cost", "enum", 2, 0, len(Cost) - 1),
    )
}


class State:
    """Read access to a state; concrete or symbolic according to `k`."""

    __slots__ = ("k", "r", "schema", "v")

    def __init__(self, k: Kit, r: Rules, schema: dict[str, FieldSpec], v: dict[Key, Val]):
        self.k = k
        self.r = r
        self.schema = schema
        self.v = v

    # -- access -------------------------------------------------------------------------------
    def g(self, name: str, *idx: Val) -> Val:
        if not self.k.symbolic or all(isinstance(i, int) for i in idx):  # concrete indices: one look-up
            got = self.v.get((name, *idx), _MISSING)
            if got is _MISSING:  # past the last cell (a don't-care behind a false guard under the rules)
                return self._past_end(name, idx)
            return got
        spec = self.schema[name]
        pos = next(j for j, i in enumerate(idx) if not isinstance(i, int))
        options = [self.g(name, *idx[:pos], c, *idx[pos + 1 :]) for c in range(spec.dims[pos])]
        return self.k.sel(options, idx[pos])

    def _past_end(self, name: str, idx: tuple[Val, ...]) -> Val:
        """A read past the last cell reads the last cell, in both semantics (the symbolic look-up `Kit.sel`
        does so for an index it cannot fold): a guard dropped or a bound changed by a mutant may expose such
        a read, and the concrete interpreter must then agree with the solver's terms."""
        spec = self.schema[name]
        if len(idx) != len(spec.dims):
            return spec.zero()
        last = tuple(i if 0 <= i < d else d - 1 for i, d in zip(idx, spec.dims, strict=True))
        return self.v.get((name, *last), spec.zero())

    def row(self, name: str, p: Val) -> list[Val]:
        """The per-zone values of player p."""
        return [self.g(name, p, z) for z in range(self.schema[name].dims[1])]

    def count(self, flags: list[Val], width: int = 9) -> Val:
        if not self.k.symbolic:
            return sum(1 for f in flags if f)
        # summed in as few bits as the count needs, then widened: a narrow adder is a smaller circuit
        narrow = min(width, max(1, len(flags).bit_length()))
        one, zero = z3.BitVecVal(1, narrow), z3.BitVecVal(0, narrow)
        total: Val = z3.BitVecVal(0, narrow)
        for f in flags:
            total = total + self.k.ite(f, one, zero)
        return total if narrow == width else z3.ZeroExt(width - narrow, total)

    # -- derived ------------------------------------------------------------------------------
    @property
    def tp(self) -> Val:
        """The turn player: player 0 plays the odd turns."""
        turn = self.g("turn")
        if isinstance(turn, int):
            return 0 if turn % 2 else 1
        return ~z3.Extract(0, 0, turn)

    def other(self, p: Val) -> Val:
        return 1 - p

    def is_phase(self, *phases: Phase) -> Val:
        return self.k.one_of(self.g("phase"), [int(p) for p in phases])

    def monsters(self, p: Val) -> Val:
        return self.count(self.row("m_occ", p))

    def over(self) -> Val:
        return self.g("winner") != 0

    def edit(self) -> Builder:
        return Builder(self)


class Rejected(Exception):
    """Concrete evaluation stops at the first guard conjunct that fails."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class _When:
    """The context of `Builder.when`: a plain object (entered for every conditional block of every rule
    evaluated, concrete evaluation included, so it must be cheap)."""

    __slots__ = ("b", "cond")

    def __init__(self, b: Builder, cond: Val):
        self.b = b
        self.cond = cond

    def __enter__(self) -> None:
        b = self.b
        b.conds.append(self.cond)
        if not b.k.symbolic:
            b.alive.append(b.alive[-1] and bool(self.cond))

    def __exit__(self, *exc: object) -> None:
        b = self.b
        b.conds.pop()
        if not b.k.symbolic:
            b.alive.pop()


class Builder(State):
    """A successor under construction: guarded (require) and conditional (when) writes."""

    __slots__ = ("alive", "base", "conds", "guards")

    def __init__(self, base: State):
        super().__init__(base.k, base.r, base.schema, dict(base.v))
        self.base = base
        self.conds: list[Val] = []
        self.guards: list[tuple[Val, str]] = []
        self.alive = [True]  # concrete: whether every enclosing `when` holds, innermost last

    @property
    def dead(self) -> bool:
        """Concrete evaluation behind a false `when`, where no mutation hook still needs to count the guard calls
        (none installed, or one past the call it changes: `MutationHook.counting`): every write and guard conjunct
        here is a no-op, so a helper may return at once (it only saves time)."""
        if self.r.changes:  # a changed guard is named by its place among its action's calls: every call counts
            return False
        return not self.alive[-1] and not self.k.symbolic and (MUTATION is None or not MUTATION.counting)

    def _cond(self) -> Val:
        if not self.k.symbolic:
            return self.alive[-1]
        return self.k.and_(*self.conds) if self.conds else True

    def when(self, cond: Val) -> _When:
        """The writes and guard conjuncts of the block hold only where `cond` holds."""
        return _When(self, cond)

    def require(self, cond: Val, reason: str | Callable[[State], str]) -> None:
        """A conjunct of the guard, with the clause and words a judge would use when it fails (a function of
        the state before the action where the clause to cite depends on it, as who acts first in a phase)."""
        if self.r.changes or changes.RECORD is not None:  # a rule file's [[change]] tables (model/changes.py)
            how, reason = changes.applied(self.r, reason)
            if how == "drop":
                return
            if how == "negate":
                cond = self.k.not_(cond)
        if MUTATION is not None:  # the mutation hook (below): off unless engines/mutate.py turns it on
            change = MUTATION.visit(reason)
            if change == "drop":
                return
            if change == "negate":
                cond = self.k.not_(cond)
        if not self.k.symbolic:
            if not cond and self._cond():
                raise Rejected(reason(self.base) if callable(reason) else reason)
            return
        said = reason if isinstance(reason, str) else ""
        self.guards.append((self.k.implies(self._cond(), cond) if self.conds else cond, said))

    def set(self, name: str, *idx_value: Val) -> None:
        *idx, value = idx_value
        if MUTATION is not None and MUTATION.rewrites:  # the mutation hook (below): a write dropped, or swapped
            changed = _write_mutated(self, name, idx)
            if changed is None:
                return
            idx = changed
        self._write(name, idx, value)

    def _write(self, name: str, idx: list[Val], value: Val) -> None:
        k = self.k
        if not k.symbolic:
            if self.alive[-1]:
                key = (name, *idx)
                if key in self.v:
                    self.v[key] = value
            return
        cond = self._cond()
        spec = self.schema[name]
        choices = [range(d) if not isinstance(i, int) else (i,) for d, i in zip(spec.dims, idx, strict=True)]
        for combo in itertools.product(*choices):
            key = (name, *combo)
            if key not in self.v:
                continue
            here = k.and_(cond, *(i == c for i, c in zip(idx, combo, strict=True) if not isinstance(i, int)))
            self.v[key] = k.ite(here, value, self.v[key])

    def add(self, name: str, *idx_delta: Val) -> None:
        *idx, delta = idx_delta
        if MUTATION is not None and MUTATION.rewrites:  # one write, as `set`: a swapped one adds to the other
            changed = _write_mutated(self, name, idx)
            if changed is None:
                return
            idx = changed
        self._write(name, idx, self.g(name, *idx) + delta)

    def guard(self) -> Val:
        return self.k.and_(*(g for g, _ in self.guards))


# -- the mutation hook ------------------------------------------------------------------------------
#
# Mutation analysis (engines/mutate.py) asks whether the property suite notices a rule changed. A guard mutant
# names one call of `Builder.require` by the action whose body makes it and its position among that body's
# calls (from 0, counted in call order over one run of the body, nested helpers and `in_succession` included;
# an action a body runs as part of itself, in `action_body`, is a run of that action, counted as its own).
# model/system.py opens a run before each action body, concrete (`apply`) and symbolic (`_build_step`) alike,
# and both run the same Python code, so a position names the same call in both semantics. A write mutant names
# the writes (`set` or `add`) made at one line of the rules' source within one action's body: the same line in
# both semantics too. With no hook installed (`MUTATION is None`, always outside mutation analysis) `require`,
# `set` and `add` pay one global lookup.


def by_player(spec: FieldSpec) -> bool:
    """Whether a field's first index is a player (LP, hand, a Monster Zone's cells; not a chain link's)."""
    return bool(spec.dims) and spec.dims[0] == 2 and not spec.name.startswith("c_")


def _write_mutated(b: Builder, name: str, idx: list[Val]) -> list[Val] | None:
    """The index a write goes to under the mutation hook: None when the write is dropped."""
    assert MUTATION is not None
    frame = sys._getframe(2)  # the rule's line that writes: `set` or `add` was called from there
    line = f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno}"
    change = MUTATION.visit_write(name, by_player(b.schema[name]), line)
    if change == "drop":
        return None
    if change == "swap":
        return [b.other(idx[0]), *idx[1:]]
    return idx


@dataclass(frozen=True)
class WriteMutant:
    """A rule with one write changed: in `action`, the writes (`set` or `add`) made at one line of the rules'
    source (`file:line`; every write that line makes, as a loop over the zones makes several) are dropped (an
    effect the rule forgets) or, with `swap`, made to the other player's cell of the field (an effect that
    reaches the wrong player; fields kept per player only)."""

    action: str
    line: str
    swap: bool = False


@dataclass(frozen=True)
class GuardMutant:
    """A rule with one guard conjunct changed: in `action`, the `index`-th `require` call is dropped (the
    conjunct is not required: a missing rule) or, with `negate`, its condition negated (`require not cond`:
    a rule stated backwards)."""

    action: str
    index: int
    negate: bool = False


class MutationHook:
    """Counts the `require` calls of the action body being run, changes the one the mutant names, and
    records (action, position, reason) of every call when `record` is set (to enumerate the guard sites)."""

    def __init__(self, mutant: GuardMutant | WriteMutant | None = None, record: bool = False):
        self.mutant = mutant
        self.sites: list[tuple[str, int, str | Callable[[State], str]]] | None = [] if record else None
        self.writes: list[tuple[str, str, str, bool]] | None = [] if record else None  # (action, line, field, kept
        # per player) of every write
        self.action: str | None = None  # None outside an action body: nothing is counted or changed
        self.count = 0

    @property
    def counting(self) -> bool:
        """Whether the `require` calls still to come in this run must be counted: while recording, and while a
        guard mutant's call in the body being run is not yet reached (a helper behind a false `when` may skip
        its calls only once the position no longer matters: concrete and symbolic runs then change the same
        call). A write mutant names its line, not a position."""
        if self.sites is not None:
            return True
        m = self.mutant
        return isinstance(m, GuardMutant) and self.action == m.action and self.count <= m.index

    @property
    def rewrites(self) -> bool:
        """Whether writes are looked at: while recording them, or for a write mutant."""
        return self.writes is not None or isinstance(self.mutant, WriteMutant)

    def begin(self, action: str) -> None:
        self.action = action
        self.count = 0

    def visit_write(self, name: str, player: bool, line: str) -> str | None:
        """The change made to this write, made at `line` of the rules' source: "drop", "swap" or None."""
        if self.action is None:
            return None
        if self.writes is not None:
            self.writes.append((self.action, line, name, player))
        m = self.mutant
        if isinstance(m, WriteMutant) and m.line == line and m.action == self.action:
            if not m.swap:
                return "drop"
            return "swap" if player else None  # a field both players share has no other player's cell
        return None

    def end(self) -> None:
        self.action = None

    def changes_runs_of(self, actions: frozenset[str]) -> bool:
        """Whether a run of these actions' bodies may come out otherwise than with no hook: only a run of the
        mutant's own action is changed (guards and writes are counted and changed per action run); a hook that
        records sites must see every run."""
        if self.sites is not None or self.writes is not None:
            return True
        return self.mutant is not None and self.mutant.action in actions

    def visit(self, reason: str | Callable[[State], str]) -> str | None:
        """The change made to this `require` call: "drop", "negate" or None."""
        if self.action is None:  # a body run outside the system (a property's `enabled`): the rules as written
            return None
        index = self.count
        self.count += 1
        if self.sites is not None:
            self.sites.append((self.action, index, reason))
        m = self.mutant
        if isinstance(m, GuardMutant) and m.index == index and m.action == self.action:
            return "negate" if m.negate else "drop"
        return None


MUTATION: MutationHook | None = None
# the actions whose bodies have run, while the transition system records them (model/system.py `_body_terms`)
RUNS: set[str] | None = None


@contextmanager
def action_body(action: str) -> Iterator[None]:
    """While an action body runs: the mutation hook's run for it (when a hook is installed), ended however
    the body ends. Runs nest: an action body that takes another action as part of itself (`end_step`'s two
    passes) runs it as that action, counted from its first call as a run of its own, and its own run goes on
    after it."""
    if RUNS is not None:
        RUNS.add(action)
    hook = MUTATION
    if hook is None:
        yield
        return
    outer = (hook.action, hook.count)
    hook.begin(action)
    try:
        yield
    finally:
        hook.action, hook.count = outer


def concrete_state(r: Rules, schema: dict[str, FieldSpec], v: dict[Key, Val]) -> State:
    return State(CONCRETE, r, schema, v)


def symbolic_state(r: Rules, schema: dict[str, FieldSpec], tag: str) -> State:
    v = {key: spec.z3var(key, tag) for spec in schema.values() for key in spec.cells()}
    return State(SYMBOLIC, r, schema, v)
