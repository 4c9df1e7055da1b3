"""The mutation sites of model/rules.py: each guard conjunct of each action (drop, negate), each write of each action's
body (write, swap), and each comparison (compare), with the hooks that mutate one of them.
"""

from __future__ import annotations

import ast
import functools
import inspect
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import z3

from duelcheck.engines.mutate.settings import EXCLUDED_PREFIXES
from duelcheck.errors import InternalError
from duelcheck.model import rules as R
from duelcheck.model import state as S
from duelcheck.model.state import PARAMS, MutationHook
from duelcheck.properties.catalog import Check
from duelcheck.rules import Rules


def reason_text(reason: str | Callable[..., str]) -> str:
    """A guard's reason as text: the words themselves, or, for a reason computed from the state, the helper's
    name and the first line of its docstring."""
    if isinstance(reason, str):
        return reason
    doc = (inspect.getdoc(reason) or "").splitlines()
    name = getattr(reason, "__name__", "reason")
    return f"<{name}> {doc[0]}" if doc else f"<{name}>"


@dataclass(frozen=True)
class GuardSite:
    """One `require` call site reached while building an action: the action, its position, its reason."""

    action: str
    index: int
    reason: str

    @property
    def scored(self) -> bool:
        """False for the model's range and catalogue bounds: not rules of the game, never scored."""
        return not self.reason.startswith(EXCLUDED_PREFIXES)


@contextmanager
def hooked(hook: MutationHook | None) -> Iterator[None]:
    """Install a mutation hook in model/state.py for the duration (the previous one is put back)."""
    old = S.MUTATION
    S.MUTATION = hook
    try:
        yield
    finally:
        S.MUTATION = old


@dataclass
class GuardTerms:
    """An action's guard conjuncts over a symbolic state and parameters, one per call site, in call order."""

    sites: list[GuardSite]
    terms: list[Any]
    pre: Any
    params: dict[str, Any]


def guard_terms(ts: Any, action: str, tag: str = "@g") -> GuardTerms:
    """Run an action body symbolically under a recording hook: its call sites and their guard conjuncts."""
    act = R.ACTION_BY_NAME[action]
    pre = ts.sym_state(tag)
    pvars = {name: PARAMS[name].z3var(tag) for name in act.params}
    hook = MutationHook(record=True)
    with hooked(hook):
        n = pre.edit()
        with S.action_body(action):
            act.body(pre, R.Params(pvars), n)
    assert hook.sites is not None
    sites = [GuardSite(name, i, reason_text(reason)) for name, i, reason in hook.sites]
    if len(sites) != len(n.guards):
        raise InternalError(f"{action}: {len(sites)} require calls but {len(n.guards)} guard conjuncts")
    terms = [z3.BoolVal(g) if isinstance(g, bool) else g for g, _ in n.guards]
    return GuardTerms(sites, terms, pre, pvars)


def state_witness(ts: Any, pre: Any, params: dict[str, Any], term: Any, name: str) -> Check:
    """A term over the template state `pre` and the parameters `params` as a witness over any state: some
    parameters (in their domains) that make it true there."""
    fresh = {p: PARAMS[p].z3var(f"@witness@{name}") for p in params}
    domain = [PARAMS[p].domain(fresh[p]) for p in fresh]

    def value(template: Any, v: Any) -> Any:  # a concrete state's value as a term of the template's sort
        if isinstance(v, z3.ExprRef):
            return v
        return z3.BoolVal(bool(v)) if z3.is_bool(template) else z3.BitVecVal(int(v), template.size())

    def holds(s: Any) -> Any:
        pairs = [(pre.v[k], value(pre.v[k], s.v[k])) for k in ts.keys]
        pairs += [(params[p], fresh[p]) for p in params]
        mine = z3.And(*domain, z3.substitute(term, *pairs))
        if s.k.symbolic:
            return mine
        solver = z3.Solver()  # a concrete state: whether some parameters make it true there
        solver.add(mine)
        return solver.check() == z3.sat

    return Check(name, "state", holds, "sometimes")


def twin_check(ts: Any, pre: Any, params: dict[str, Any], terms: list[Any], at: int, name: str) -> Check:
    """The twin of guard conjunct `at` of an action (`terms`, over the template state `pre` and parameters
    `params`) as a witness over any state: some parameters in their domains with which every other conjunct
    holds and this one fails. Where no reachable state has it, dropping the guard changes no step: the boards'
    illegal twin is unreachable, and the mutant that drops it is equivalent."""
    term = z3.And(*(t for j, t in enumerate(terms) if j != at), z3.Not(terms[at]))
    return state_witness(ts, pre, params, term, name)


@functools.lru_cache(maxsize=4)
def _sites(rules_json: str) -> tuple[GuardSite, ...]:
    from duelcheck.model.system import TransitionSystem

    ts = TransitionSystem(Rules(**json.loads(rules_json)))
    out: list[GuardSite] = []
    for act in R.ACTIONS:
        if act.parts is None:  # a composite's guards are its parts' own sites
            # an action another's body runs as part of itself (end_step's passes) is that action's run, not its own
            out += [g for g in guard_terms(ts, act.name, "@sites").sites if g.action == act.name]
    return tuple(out)


@functools.lru_cache(maxsize=4)
def _runners(rules_json: str) -> dict[str, tuple[str, ...]]:
    """For each action, the other actions whose bodies run it as part of themselves (end_step runs pass twice):
    a mutant of its body changes their steps too."""
    from duelcheck.model.system import TransitionSystem

    ts = TransitionSystem(Rules(**json.loads(rules_json)))
    out: dict[str, list[str]] = {}
    for act in R.ACTIONS:
        if act.parts is None:
            for inner in dict.fromkeys(g.action for g in guard_terms(ts, act.name, "@runs").sites):
                if inner != act.name:
                    out.setdefault(inner, []).append(act.name)
    return {name: tuple(runs) for name, runs in out.items()}


def guard_sites(rules: Rules | None = None) -> list[GuardSite]:
    """Every `require` call site of every action, in the order of the actions and of the calls."""
    rules = rules or Rules()
    return list(_sites(json.dumps(rules.model_dump(), sort_keys=True)))


@dataclass(frozen=True)
class WriteSite:
    """A line of the rules' source that writes a field in an action's body: its place among that body's writing
    lines (in the order first reached), the line (file:line), the field, and whether the field is per player."""

    action: str
    index: int
    line: str
    field: str
    player: bool

    @property
    def words(self) -> str:
        return f"{self.field} ({self.line})"


@functools.lru_cache(maxsize=4)
def _write_sites(rules_json: str) -> tuple[WriteSite, ...]:
    from duelcheck.model.system import TransitionSystem

    ts = TransitionSystem(Rules(**json.loads(rules_json)))
    out: list[WriteSite] = []
    for act in R.ACTIONS:
        if act.parts is not None:
            continue
        pre = ts.sym_state("@writes")
        hook = MutationHook(record=True)
        with hooked(hook):
            n = pre.edit()
            with S.action_body(act.name):
                act.body(pre, R.Params({name: PARAMS[name].z3var("@writes") for name in act.params}), n)
        assert hook.writes is not None
        first: dict[str, tuple[str, bool]] = {}
        for action, line, name, player in hook.writes:
            if action == act.name:  # the writes of an action its body runs (end_step's passes) are that one's
                first.setdefault(line, (name, player))
        out += [WriteSite(act.name, i, line, f, p) for i, (line, (f, p)) in enumerate(first.items())]
    return tuple(out)


def write_sites(rules: Rules | None = None) -> list[WriteSite]:
    """Every line that writes in every action's body, in the order of the actions and of first reaching."""
    rules = rules or Rules()
    return list(_write_sites(json.dumps(rules.model_dump(), sort_keys=True)))


# a comparison's boundary twin: the off-by-one and the inverted test a rule's author could write instead
TWIN: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
}


SYMBOL = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


@dataclass(frozen=True)
class CompareSite:
    """A comparison in a function of model/rules.py that an action's body runs: the function, its place among
    the function's comparisons (from 0, in source order; each operator of a chained comparison its own), the
    line (file:line), the comparison's source, and its operator."""

    function: str
    index: int
    line: str
    text: str
    op: str
    scored: bool = True  # False inside a guard that bounds the model's encoding (model range, model catalogue)

    @property
    def twin(self) -> str:
        return SYMBOL[TWIN[next(k for k, v in SYMBOL.items() if v == self.op)]]

    @property
    def words(self) -> str:
        return f"`{self.text}` with {self.op} read as {self.twin} ({self.line})"


def _rules_tree() -> ast.Module:
    return ast.parse(inspect.getsource(R), R.__file__)


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}


def _comparisons(fn: ast.FunctionDef) -> list[tuple[ast.Compare, int]]:
    """The comparison operators of a function with a boundary twin, in source order (and, within a chained
    comparison, left to right)."""
    nodes = sorted((n for n in ast.walk(fn) if isinstance(n, ast.Compare)), key=lambda n: (n.lineno, n.col_offset))
    return [(n, j) for n in nodes for j, op in enumerate(n.ops) if type(op) in TWIN]


def _callees(fn: ast.FunctionDef, functions: dict[str, ast.FunctionDef]) -> set[str]:
    body = ast.Module(body=fn.body, type_ignores=[])  # not the decorator (the action's registration)
    names = [n for n in ast.walk(body) if isinstance(n, ast.Name) and n.id in functions and n.id != fn.name]
    # a guard's reason computed for the judge (`n.require(cond, duel_over)`) words a refusal; it is no rule
    reasons = {
        id(call.args[1])
        for call in ast.walk(body)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "require"
        if len(call.args) > 1
    }
    return {n.id for n in names if id(n) not in reasons}


@functools.lru_cache(maxsize=1)
def _rule_functions() -> dict[str, tuple[str, ...]]:
    """The functions of model/rules.py each action's body runs (the body and what it calls, by name): the rules.
    The actions' candidate enumerations (which parameters the concrete interpreter tries) are the model's
    encoding, not a rule, and are left out unless a body calls them too."""
    functions = _functions(_rules_tree())
    out: dict[str, tuple[str, ...]] = {}
    for act in R.ACTIONS:
        if act.parts is not None or act.body.__name__ not in functions:
            continue
        seen: list[str] = []
        todo = [act.body.__name__]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.append(name)
            todo += sorted(_callees(functions[name], functions) - set(seen), reverse=True)
        out[act.name] = tuple(seen)
    return out


@functools.lru_cache(maxsize=1)
def _compare_sites() -> tuple[CompareSite, ...]:
    lines = inspect.getsource(R).encode().splitlines()  # ast's offsets are in bytes, its lines 1-based
    functions = _functions(_rules_tree())
    reached = {name for names in _rule_functions().values() for name in names}
    path = Path(R.__file__).name
    out: list[CompareSite] = []
    for name, fn in functions.items():
        if name not in reached:
            continue
        bounds = {  # the comparisons of a guard whose reason says it bounds the model's encoding
            id(n)
            for call in ast.walk(fn)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "require"
            if len(call.args) > 1 and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str)
            if call.args[1].value.startswith(EXCLUDED_PREFIXES)
            for n in ast.walk(call.args[0])
        }
        for i, (node, j) in enumerate(_comparisons(fn)):
            first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
            chunk = [lines[first][node.col_offset :], *lines[first + 1 : last + 1]]
            if last > first:
                chunk[-1] = chunk[-1][: node.end_col_offset]
            else:
                chunk[0] = lines[first][node.col_offset : node.end_col_offset]
            words = " ".join(b" ".join(chunk).decode().split())
            out.append(
                CompareSite(name, i, f"{path}:{node.lineno}", words, SYMBOL[type(node.ops[j])], id(node) not in bounds)
            )
    return tuple(out)


def compare_sites() -> list[CompareSite]:
    """Every comparison with a boundary twin in the functions the actions' bodies run, function by function in
    the order of the source."""
    return list(_compare_sites())


def compare_mutated(function: str, index: int) -> Callable[..., Any]:
    """The function of model/rules.py with its `index`-th comparison's operator replaced by its twin: compiled
    from the module's source with the module's globals, so that it calls the rules as they stand."""
    import __future__

    tree = _rules_tree()
    fn = _functions(tree)[function]
    sites = _comparisons(fn)
    if not 0 <= index < len(sites):
        raise InternalError(f"{function}: no comparison {index} (it has {len(sites)})")
    node, j = sites[index]
    node.ops[j] = TWIN[type(node.ops[j])]()
    fn.decorator_list = []  # an action's registration is not run again: `compare_swapped` puts it in place
    code = compile(
        ast.Module(body=[fn], type_ignores=[]), R.__file__, "exec", __future__.annotations.compiler_flag, True
    )
    space: dict[str, Any] = {}
    exec(code, vars(R), space)  # defines the function (globals: the module's own), nothing else
    return space[function]
