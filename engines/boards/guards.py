"""The guards of each action: its conjuncts, each with the clause and the reason the judge gives when it fails, and
what the duel-log format can write of its parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3

from duelcheck.conformance import broken_clause
from duelcheck.engines.boards.settings import Reason
from duelcheck.engines.mutate import EXCLUDED_PREFIXES, hooked
from duelcheck.errors import InternalError
from duelcheck.model.cards import (
    DIRECT,
    HAND,
    SPELLS,
    STOP,
    TRAPS,
    Cost,
    Kind,
)
from duelcheck.model.changes import slug_of
from duelcheck.model.rules import ACTION_BY_NAME, ACTIONS, Action, Params
from duelcheck.model.state import PARAMS, MutationHook, State, action_body
from duelcheck.model.system import TransitionSystem
from duelcheck.rules import Rules


@dataclass(frozen=True)
class Guard:
    """One guard conjunct of an action, with the words a judge says when it fails."""

    action: str
    index: int  # its place among the action's conjuncts, in the order the body requires them
    reason: str  # the words; for words that depend on the state, the name of the function that says them
    said: Reason = field(compare=False)  # what `require` was given: the words, or that function
    slug: str  # the reason as a file-name part, unique within the action
    tested: bool  # False for "model range" / "model catalogue" / "model shortcut" conjuncts (on every board) and
    # for another action's conjuncts the body runs as part of itself (`end_step`'s passes: twins of `pass`)

    @property
    def clause(self) -> str:
        """The clause the reason cites (the action's own clause when it cites none or depends on the state)."""
        if callable(self.said):
            return ACTION_BY_NAME[self.action].clause
        return broken_clause(self.reason, ACTION_BY_NAME[self.action].clause)

    def words(self, pre: State, params: dict[str, int]) -> str:
        """The reason the concrete interpreter gives in `pre` with these parameters."""
        if callable(self.said):
            return self.said(pre)
        try:
            return self.said.format(**{p: params.get(p, 0) for p in ACTION_BY_NAME[self.action].params})
        except (KeyError, IndexError, ValueError):
            return self.said


@dataclass
class ActionGuards:
    """An action's guard conjuncts as Z3 terms over a template state `pre` and template parameters."""

    action: Action
    pre: State
    params: dict[str, Any]
    guards: list[Guard]
    terms: list[Any]

    @property
    def tested(self) -> list[Guard]:
        """The conjuncts that get an illegal twin (all but "model range", "model catalogue", "model shortcut")."""
        return [g for g in self.guards if g.tested]


def guard_slugs(said: list[Reason]) -> list[str]:
    """Each guard's name within its action, from its words alone (a state-dependent reason: its function's
    name): a slug of the reason, numbered only among guards with the same words. A guard's name does not
    depend on its place, so renaming, adding or moving another guard leaves it as it was."""
    seen: dict[str, int] = {}
    out = []
    for reason in said:
        base = slug_of(reason)
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return out


def collect_guards(ts: TransitionSystem, actions: list[str] | None = None) -> list[ActionGuards]:
    """Every action's guard conjuncts with their reasons, run on a symbolic Builder as the transition
    relation is built (model/system.py `_build_step`)."""
    out = []
    pre = ts.sym_state("@guard")
    for act in ACTIONS:
        if act.parts is not None or (actions is not None and act.name not in actions):
            continue  # a composite's guards are its parts' own
        params = {name: PARAMS[name].z3var(f"@guard@{act.name}") for name in act.params}
        hook = MutationHook(record=True)  # records every `require` call with what it was given
        n = pre.edit()
        with hooked(hook), action_body(act.name):
            act.body(pre, Params(params), n)
        assert hook.sites is not None
        said = [reason for _, _, reason in hook.sites]
        # a conjunct of another action the body runs as part of itself (`end_step`'s two passes) is that
        # action's guard: its twin is that action's, as `duelcheck mutate` counts its mutants once
        own = [site == act.name for site, _, _ in hook.sites]
        if len(said) != len(n.guards):
            raise InternalError(f"{act.name}: {len(n.guards)} guard conjuncts but {len(said)} reasons recorded")
        guards: list[Guard] = []
        terms: list[Any] = []
        slugs = guard_slugs(said)
        for i, ((term, _), reason, mine, slug) in enumerate(zip(n.guards, said, own, slugs, strict=True)):
            words = reason.__name__ if callable(reason) else reason
            # no board for parameter sanity, nor for another action's guard
            tested = mine and (callable(reason) or not reason.startswith(EXCLUDED_PREFIXES))
            guards.append(Guard(act.name, i, words, reason, slug, tested))
            terms.append(z3.BoolVal(term) if isinstance(term, bool) else term)
        out.append(ActionGuards(act, pre, params, guards, terms))
    return out


def expressible(r: Rules, name: str, p: dict[str, Any], s: State) -> list[Any]:
    """What the duel-log format can write of the action's parameters (zones the rules have, kinds it names),
    as constraints on the parameter variables in state `s`."""
    mz, sz = r.monster_zones, r.spell_trap_zones
    out: list[Any] = []

    def target() -> Any:
        return z3.Or(z3.And(p["tarea"] == 0, p["tzone"] < mz), z3.And(p["tarea"] == 1, p["tzone"] < sz))

    if name in ("flip_summon", "change_position"):
        out.append(p["zone"] < mz)
    elif name == "declare_attack":
        out += [p["zone"] < mz, z3.Or(p["tzone"] < mz, p["tzone"] == DIRECT)]
    elif name == "replay_select":
        out.append(z3.Or(p["tzone"] < mz, p["tzone"] == DIRECT, p["tzone"] == STOP))
    elif name in ("normal_summon", "set_monster"):
        out += [p["atk"] >= 0, p["defv"] >= 0, z3.Implies(p["mkind"] == 0, p["eff"] == 0)]
    elif name == "set_spell_trap":
        out.append(z3.Or(*(p["kind"] == int(k) for k in (*SPELLS, *TRAPS))))
    elif name == "activate":
        card = z3.Or(*(p["kind"] == int(k) for k in (*SPELLS, *TRAPS)))
        monster = z3.Or(p["kind"] == int(Kind.IGNITION), p["kind"] == int(Kind.QUICK_EFFECT))
        out += [
            z3.Or(card, monster),
            z3.Implies(card, z3.Or(p["zone"] < sz, p["zone"] == HAND)),
            z3.Implies(monster, z3.And(p["zone"] < mz, p["cost"] == int(Cost.NONE))),
            target(),
        ]
    elif name == "trigger":
        out.append(target())
    elif name == "resolve":
        out += [p["atk"] >= 0, p["defv"] >= 0, p["atk"] <= 90, p["defv"] <= 90]
    return out
