"""The transition system: initial state, concrete steps, and the symbolic transition relation.

Both evaluations run the same action bodies of model/rules.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import z3

from duelcheck.model.cards import POINTS, Phase
from duelcheck.model.kit import SYMBOLIC, Val
from duelcheck.model.rules import ACTION_BY_NAME, ACTION_CODE, ACTIONS, Action, Params
from duelcheck.model.state import (
    PARAMS,
    FieldSpec,
    Key,
    Rejected,
    State,
    action_body,
    build_schema,
    concrete_state,
    symbolic_state,
)
from duelcheck.rules import Rules


class _ReadsParameter(Exception):
    """An action body read a parameter of the `_Unread` stand-in."""


class _Unread:
    """Parameters that may not be read: the first read raises `_ReadsParameter`."""

    def __getattr__(self, name: str) -> Any:
        raise _ReadsParameter(name)


@dataclass
class Step:
    """One concrete step: the action taken, its parameters, and the state it led to."""

    action: str
    params: dict[str, int]
    state: State


@dataclass
class Outcome:
    ok: bool
    state: State | None
    reason: str | None  # the first guard conjunct that failed, in a judge's words


@dataclass
class SymStep:
    """The symbolic copy of one transition, from `pre` to `post`."""

    act: Any
    params: dict[str, Any]
    pre: State
    post: State
    relation: Any  # the transition constraint


class NoHistory:
    """No history beside the game state: for what reads the game alone (difftest, the
    guided plays' search): the property layer's history (properties/history.py) would only cost time there."""

    def fields(self) -> tuple[Any, ...]:
        return ()

    def advance(self, pre: State, act: Any, params: dict[str, Any], symbolic: bool, post: State) -> dict[Any, Any]:
        return {}


# the relations this process built, by what each was made from (`TransitionSystem._made_from`): a system of the
# same rules, history and rule bodies asks for the relation again (each test, each engine of a run builds its
# own system) and copies it instead of building it; the few kept last are enough for that
_TEMPLATES: dict[tuple[Any, ...], SymStep] = {}
_KEPT = 4
# each action's terms over the template variables (its guard and the values it writes, or a composite's with the
# history its parts advance), by what the relation is made from and the action, with the actions whose bodies
# its run ran: a mutant that changes one action's runs (a guard or a write: model/state.py `MutationHook`) has its
# relation built from these for every other action, and runs only the bodies it changes. Kept for the rule sets
# of the last few relations
_BODY_TERMS: dict[tuple[Any, ...], dict[str, tuple[Any, dict[Key, Any], frozenset[str]]]] = {}


class TransitionSystem:
    def __init__(self, rules: Rules, history: Any = None):
        """`history`: the property layer's history (properties/history.py) that every step carries along
        beside the game state; by default the property suite's."""
        if history is None:
            from duelcheck.properties.history import history_for

            history = history_for(rules)
        self.rules = rules
        self.history = history
        self.fields: tuple[FieldSpec, ...] = (*build_schema(rules), *history.fields())
        self.schema: dict[str, FieldSpec] = {f.name: f for f in self.fields}
        self.keys: list[Key] = [key for f in self.fields for key in f.cells()]
        self.game_fields: tuple[FieldSpec, ...] = tuple(f for f in self.fields if not f.ghost)
        self.game_keys: list[Key] = [key for f in self.game_fields for key in f.cells()]
        self.game_set = frozenset(self.game_keys)
        self.actions: list[Action] = ACTIONS
        self.act_width = max(1, (len(ACTIONS) - 1).bit_length())
        self._template: dict[bool, SymStep] = {}
        self.cache: dict[Any, Any] = {}  # what the engines make once per system and process (a step's text)

    # -- concrete -----------------------------------------------------------------------------
    def init(self) -> State:
        r = self.rules
        v: dict[Key, Val] = {key: self.schema[key[0]].zero() for key in self.keys}
        v[("turn",)] = 1
        v[("phase",)] = int(Phase.DRAW)
        for p in (0, 1):
            v[("lp", p)] = r.starting_lp // POINTS
            v[("deck", p)] = r.deck_size - r.starting_hand
            v[("hand", p)] = r.starting_hand
        return concrete_state(r, self.schema, v)

    def apply(self, s: State, name: str, params: dict[str, Any]) -> Outcome:
        """Take one action concretely: the successor, or the reason it is not allowed."""
        act = ACTION_BY_NAME.get(name)
        if act is None:
            return Outcome(False, None, f"unknown action {name!r}")
        unknown = set(params) - set(act.params)
        if unknown:
            return Outcome(False, None, f"{name} takes no parameter {', '.join(sorted(unknown))}")
        if act.parts is not None:  # a composite: its parts taken one after the other, each as itself
            fine = self.expand(s, name, params)
            if isinstance(fine, Outcome):
                return fine
            return Outcome(True, fine[-1].state, None)
        n = s.edit()
        try:
            with action_body(name):  # the mutation hook's run (model/state.py), when one is installed
                act.body(s, Params(params), n)
        except Rejected as rej:
            full = {p: params.get(p, 0) for p in act.params}
            try:
                reason = rej.reason.format(**full)
            except (KeyError, IndexError, ValueError):
                reason = rej.reason
            return Outcome(False, None, reason)
        post = State(s.k, s.r, s.schema, n.v)
        post.v.update(self.history.advance(s, name, dict(params), False, post))
        return Outcome(True, post, None)

    def expand(self, s: State, name: str, params: dict[str, Any]) -> list[Step] | Outcome:
        """The fine steps of one step: the step itself, or a composite action's parts (model/rules.py
        `composite`) taken in turn from `s`; the refusal of the first part refused, if one is."""
        act = ACTION_BY_NAME[name]
        if act.parts is None:
            out = self.apply(s, name, params)
            return [Step(name, dict(params), out.state)] if out.ok and out.state is not None else out
        steps: list[Step] = []
        state = s
        full = Params({p: params.get(p, 0) for p in act.params})
        for part, pa in act.parts(s, full):
            pp = {p: int(v) for p, v in vars(pa).items()}
            out = self.apply(state, part, pp)
            if not out.ok or out.state is None:
                return out
            state = out.state
            steps.append(Step(part, pp, state))
        return steps

    def successors(self, s: State) -> Iterator[Step]:
        """Every enabled action instance and its successor (candidates filtered by the guard)."""
        for act in self.actions:
            if self.refused_whatever_params(s, act):
                continue  # every candidate would be refused for the same reason: none is tried
            for params in act.candidates(s):
                out = self.apply(s, act.name, params)
                if out.ok and out.state is not None:
                    yield Step(act.name, dict(params), out.state)

    def enabled(
        self, s: State, skip: tuple[str, ...] = (), candidates: dict[str, Any] | None = None
    ) -> Iterator[tuple[str, dict[str, int]]]:
        """Every enabled action instance, in the order of `successors`, without its successor state (the
        guard alone is run: a random player that picks one instance needs only the chosen one's state).
        `skip`: actions not tried; `candidates`: other candidates for some actions (a function of the state)."""
        for act in self.actions:
            if act.name in skip or self.refused_whatever_params(s, act):
                continue
            tried = (candidates or {}).get(act.name, act.candidates)
            for params in tried(s):
                if act.parts is not None:
                    if self.apply(s, act.name, params).ok:
                        yield act.name, dict(params)
                    continue
                try:
                    with action_body(act.name):
                        act.body(s, Params(params), s.edit())
                except Rejected:
                    continue
                yield act.name, dict(params)

    def refused_whatever_params(self, s: State, act: Action) -> bool:
        """The action's body refuses it in `s` before it reads any parameter: then it refuses every instance
        (the body is a function of the state and the parameters, and failed before the parameters could tell).
        A shortcut for enumerating successors: most actions are refused by a guard on the state alone
        (not this player's priority, not this phase), and their hundreds of candidates need not be tried."""
        if not act.params or act.parts is not None:
            return False  # nothing to save, or a composite's parts read its parameters at once
        n = s.edit()
        try:
            with action_body(act.name):
                act.body(s, _Unread(), n)  # type: ignore[arg-type]
        except Rejected:
            return True
        except _ReadsParameter:
            return False
        return False

    # -- symbolic -----------------------------------------------------------------------------
    def sym_state(self, tag: str) -> State:
        return symbolic_state(self.rules, self.schema, tag)

    def sym_init(self, s: State) -> Any:
        c = self.init()
        return z3.And(*(s.v[key] == c.v[key] for key in self.keys))

    def sym_step(self, pre: State, tag: str, fine: bool = False) -> SymStep:
        """The transition relation from `pre` to a fresh state `post`, with fresh action and parameter variables.

        The relation is built once, over template variables, and copied per step by substitution. `fine`:
        without the composite actions (model/rules.py `composite`). Their steps are runs of fine steps, so
        both relations reach the same states: a proof for all depths needs only the fine one (smaller), a
        search for a short play takes the whole one.
        """
        if self._template.get(fine) is None:
            self._template[fine] = self._built(fine)
        tpl = self._template[fine]
        act = z3.BitVec("act" + tag, self.act_width)
        pvars = {name: spec.z3var(tag) for name, spec in PARAMS.items()}
        post = self.sym_state(tag)
        pairs = [(tpl.pre.v[key], pre.v[key]) for key in self.keys]
        pairs += [(tpl.post.v[key], post.v[key]) for key in self.keys]
        pairs += [(tpl.act, act)] + [(tpl.params[name], pvars[name]) for name in PARAMS]
        relation = z3.substitute(tpl.relation, *pairs)
        return SymStep(act, pvars, pre, post, relation)

    def _built(self, fine: bool) -> SymStep:
        """The relation over template variables: built, or the one this process built from the same rules,
        history and rule bodies (`_made_from`)."""
        key = self._made_from(fine)
        if key is None:
            return self._build_step(self.sym_state("@pre"), "@post", fine)
        tpl = _TEMPLATES.pop(key, None)
        if tpl is None:
            tpl = self._build_step(self.sym_state("@pre"), "@post", fine)
        else:
            self._body_terms(tpl.pre, "@post")  # its actions' terms are asked for too: kept as long
        _TEMPLATES[key] = tpl  # the last asked for is the last to go
        while len(_TEMPLATES) > _KEPT:
            del _TEMPLATES[next(iter(_TEMPLATES))]  # the one asked for longest ago first
        return tpl

    def _made_from(self, fine: bool) -> tuple[Any, ...] | None:
        """What the relation is made from, object by object: the rules, the history's counters, the action
        bodies, the functions of the rules' module and the builder's methods (a rule or a guard swapped for
        another is another object, so another relation); None while a mutation hook is installed (it keeps
        counts as a body runs: that relation is built each time)."""
        from duelcheck.model import state as state_module

        if state_module.MUTATION is not None:
            return None
        return self._made_of(fine)

    def _made_of(self, fine: bool) -> tuple[Any, ...] | None:
        """`_made_from`, whatever mutation hook is installed (the relation with no hook)."""
        from duelcheck.model import rules as rules_module
        from duelcheck.model import state as state_module

        counters = getattr(self.history, "counters", None)
        history = tuple((c.spec, *_code(c.advance)) for c in counters) if counters is not None else type(self.history)
        bodies = tuple((a.name, a.body, a.parts) for a in self.actions)
        functions = tuple(v for v in vars(rules_module).values() if callable(v))
        methods = tuple(v for v in vars(state_module.Builder).values() if callable(v))
        key = (self.rules.model_dump_json(), fine, history, bodies, functions, methods)
        try:
            hash(key)
        except TypeError:  # a counter closing over a value that cannot be compared so: built each time
            return None
        return key

    def _build_step(self, pre: State, tag: str, fine: bool = False) -> SymStep:
        act = z3.BitVec("act" + tag, self.act_width)
        pvars = {name: spec.z3var(tag) for name, spec in PARAMS.items()}
        post = self.sym_state(tag)
        updates: dict[Key, Any] = {key: pre.v[key] for key in self.keys}
        choices = []
        composed: dict[int, State] = {}
        terms = self._body_terms(pre, tag)
        for code, a in enumerate(self.actions):
            params = Params({name: pvars[name] for name in a.params})
            if a.parts is not None and fine:
                continue
            g, values = self._action_terms(terms, pre, a, params)
            if a.parts is not None:
                composed[code] = State(pre.k, pre.r, pre.schema, values)
            unused = [self._zero(PARAMS[name], pvars[name]) for name in PARAMS if name not in a.params]
            choices.append(z3.And(act == code, g, *unused))
            for key in self.game_keys:
                val = values[key]
                if val is not pre.v[key]:
                    updates[key] = z3.If(act == code, val, updates[key])
        # the property layer's history follows what the step did (the action taken, the state it made); through
        # a composite's parts, one part at a time, as when they are taken as steps of their own
        told = self.history.advance(pre, act, pvars, True, State(pre.k, pre.r, pre.schema, dict(updates)))
        updates.update({key: _as_sort(v, pre.v[key]) for key, v in told.items()})  # a rule knob can fix a value
        for code, whole in composed.items():
            for key in self.keys:
                if key not in self.game_set:
                    updates[key] = z3.If(act == code, whole.v[key], updates[key])
        domains = [PARAMS[name].domain(pvars[name]) for name in PARAMS]
        frame = [post.v[key] == updates[key] for key in self.keys]
        # the last code, not the count: with a power of two of actions the count does not fit the code's width
        relation = z3.And(z3.Or(*choices), z3.ULE(act, len(self.actions) - 1), *domains, *frame)
        return SymStep(act, pvars, pre, post, relation)

    def _body_terms(self, pre: State, tag: str) -> dict[str, tuple[Any, dict[Key, Any], frozenset[str]]] | None:
        """The kept terms of each action for what this relation is made from, with no hook, over variables named
        as these (None when that cannot be told: then every body runs)."""
        key = self._made_of(False)  # an action's terms are the same in the fine relation and the whole one
        if key is None:
            return None
        key = (*key, tuple(self.keys), str(pre.v[self.keys[0]]), tag)
        terms = _BODY_TERMS.pop(key, None)
        if terms is None:
            terms = {}
        _BODY_TERMS[key] = terms  # the last asked for is the last to go
        while len(_BODY_TERMS) > _KEPT:
            del _BODY_TERMS[next(iter(_BODY_TERMS))]
        return terms

    def _action_terms(
        self, terms: dict[str, tuple[Any, dict[Key, Any], frozenset[str]]] | None, pre: State, a: Action, params: Params
    ) -> tuple[Any, dict[Key, Any]]:
        """One action's guard and the values it makes over the template variables: kept from a run with no
        hook where the hook installed now changes none of the bodies that run ran, else run now (and kept when
        no hook is installed)."""
        from duelcheck.model import changes
        from duelcheck.model import state as state_module

        hook = state_module.MUTATION
        if changes.RECORD is not None:  # the guards' names are being recorded: every body runs
            terms = None
        kept = terms.get(a.name) if terms is not None else None
        if kept is not None and (hook is None or not hook.changes_runs_of(kept[2])):
            return kept[0], {**pre.v, **kept[1]}  # the cells it left as they were are this state's own
        outer = state_module.RUNS
        ran: set[str] = set()
        state_module.RUNS = ran
        try:
            if a.parts is not None:
                g, post_v = self._composite(pre, a, params)
                values = post_v.v
            else:
                n = pre.edit()
                with action_body(a.name):  # the same run of the mutation hook as in `apply`
                    a.body(pre, params, n)
                g, values = n.guard(), n.v
        finally:
            state_module.RUNS = outer
        if terms is not None and hook is None:
            made = {key: v for key, v in values.items() if v is not pre.v[key]}
            terms[a.name] = (g, made, frozenset(ran))
        return g, values

    def _composite(self, pre: State, a: Action, params: Params) -> tuple[Any, State]:
        """A composite action's guard and the state its parts make, the history advanced after each part."""
        assert a.parts is not None
        guards = []
        cur = pre
        for part, pa in a.parts(pre, params):
            n = cur.edit()
            with action_body(part):
                ACTION_BY_NAME[part].body(cur, pa, n)
            guards.append(n.guard())
            made = State(pre.k, pre.r, pre.schema, dict(n.v))
            made.v.update(self.history.advance(cur, ACTION_CODE[part], dict(vars(pa)), True, made))
            cur = made
        return z3.And(*guards), cur

    @staticmethod
    def _zero(spec: Any, var: Any) -> Any:
        return z3.Not(var) if spec.sort == "bool" else var == 0

    def sym_params(self, step: SymStep, model: Any) -> tuple[str, dict[str, int]]:
        code = model.eval(step.act, model_completion=True).as_long()
        act = self.actions[code]
        params = {
            name: value_of(model.eval(step.params[name], model_completion=True), PARAMS[name].sort == "int")
            for name in act.params
        }
        return act.name, params


def _code(fn: Any) -> tuple[Any, ...]:
    """A function as what it runs: its code and the values it closes over (a counter made again by the same
    code over the same values advances the same way)."""
    cells = tuple(_contents(c) for c in (getattr(fn, "__closure__", None) or ()))
    return (getattr(fn, "__code__", fn), *cells)


def _contents(cell: Any) -> Any:
    """What a closure's cell holds, or the cell itself while it is empty (then only that closure matches)."""
    try:
        return cell.cell_contents
    except ValueError:  # a name the function closes over that is not bound yet
        return cell


def parts_of(pre: State, name: str, params: dict[str, int], post: State) -> list[Step]:
    """One step of a play as the fine steps a person or an engine takes: the step itself, or a composite
    action's parts with the states between them (for a duel log, `show`, a picture). A step the rules
    refuse (a trace read with missing parameters) stays as it is, for a reader to show."""
    act = ACTION_BY_NAME.get(name)
    if act is None or act.parts is None:
        return [Step(name, params, post)]
    steps = TransitionSystem(pre.r).expand(pre, name, params)
    return [Step(name, params, post)] if isinstance(steps, Outcome) else steps


def value_of(term: Any, signed: bool = True) -> Any:
    if z3.is_bool(term):
        return z3.is_true(term)
    return term.as_signed_long() if signed and term.size() > 1 else term.as_long()


__all__ = ["SYMBOLIC", "Outcome", "Step", "SymStep", "TransitionSystem", "parts_of"]


def _as_sort(value: Any, like: Any) -> Any:
    """A value the kit folded to a Python constant (a counter a rule knob turns off), as a term of `like`'s sort."""
    if not isinstance(value, (bool, int)):
        return value
    if z3.is_bool(like):
        return z3.BoolVal(bool(value))
    return z3.BitVecVal(int(value), like.size())
