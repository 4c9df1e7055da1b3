"""The --where language: a constraint on a state in the duel-log format's words (`phase == damage_start and
players[1].lp <= 1000`), parsed into a predicate evaluated concretely or symbolically.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from duelcheck.errors import InputError
from duelcheck.log import (
    COST_NAME,
    KIND_NAME,
    LINK_KIND_NAME,
    NEXT,
    PHASE_NAME,
)
from duelcheck.model.cards import (
    BATTLE_PHASE,
    DIRECT,
    HAND,
    POINTS,
    STOP,
    Effect,
)
from duelcheck.model.kit import Val
from duelcheck.model.state import State
from duelcheck.properties.history import COUNT_PREFIX
from duelcheck.rules import Rules


@dataclass(frozen=True)
class FieldRef:
    """A field in the duel-log format's words: how to read it from a state, and what it compares with."""

    path: str
    sort: Literal["int", "bool", "enum"]
    get: Callable[[Any], Val]  # reads a state (an action, for an action's parameter: `ACTION_PARAMS`)
    width: int = 9
    scale: int = 1
    names: dict[str, int | bool] = field(default_factory=dict)  # name literals it takes (enum: the only ones)
    top: int | None = None  # a count's top: it reads `top` from then on (compared exactly below it)


_TOKEN = re.compile(
    r"\s*(?:(?P<int>\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>==|!=|<=|>=|<|>)|(?P<arith>[+-])|(?P<punct>[()\[\].,:]))"
)


_OPS = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


_FLIP = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


_PHASES = {name: int(ph) for ph, name in PHASE_NAME.items()}


_EFFECTS: dict[str, int | bool] = {e.name.lower(): int(e) for e in Effect}


_KINDS: dict[str, int | bool] = {name: int(k) for k, name in LINK_KIND_NAME.items()}


_COSTS: dict[str, int | bool] = {name: int(c) for c, name in COST_NAME.items()}


def _param(name: str, sort: Literal["int", "bool", "enum"], scale: int = 1, **names: int | bool) -> FieldRef:
    """An action's parameter (properties/core.py `ActionView.p`): `get` reads it from the action."""
    return FieldRef(f"action.{name}", sort, lambda a: a.p(name), 9, scale, dict(names))


# `action.NAME` in a step predicate: the step's parameters in the duel-log format's words and units (each is
# the parameter of whichever action names it; an action that has no such parameter holds 0 there)
ACTION_PARAMS: dict[str, FieldRef] = {
    "atk": _param("atk", "int", POINTS),  # a summoned or Set monster's ATK; a resolution's summoned monster's
    "def": _param("defv", "int", POINTS),
    "atk_change": _param("amount", "int", POINTS),  # resolve: the ATK change chosen
    "zone": _param("zone", "int"),  # flip_summon, change_position
    "monster": _param("zone", "int"),  # activate_effect: the monster's zone
    "attacker": _param("zone", "int"),  # declare_attack
    "from": _param("zone", "int", hand=HAND),  # activate: a Spell & Trap Zone, or the hand
    "kind": FieldRef("action.kind", "enum", lambda a: a.p("kind"), 5, 1, {n: int(k) for k, n in KIND_NAME.items()}),
    "effect": FieldRef("action.effect", "enum", lambda a: a.p("eff"), 5, 1, _EFFECTS),
    "cost": FieldRef("action.cost", "enum", lambda a: a.p("cost"), 2, 1, _COSTS),
    "then": FieldRef("action.then", "enum", lambda a: a.p("choice"), 4, 1, {k: int(v) for k, v in NEXT.items()}),
    # declare_attack and replay: the monster attacked (a zone), or `direct` (replay: or `stop`)
    "target": _param("tzone", "int", direct=DIRECT, stop=STOP),
    "target.player": _param("tplayer", "int"),  # an activation's target
    "target.area": FieldRef(
        "action.target.area", "enum", lambda a: a.p("tarea"), 1, 1, {"monster": 0, "spell_trap": 1}
    ),
    "target.zone": _param("tzone", "int"),
}


_TOP = (
    "turn",
    "turn_player",
    "phase",
    "priority",
    "normal_summons",
    "battle_phase_entered",
    "passed",
    "resolving",
    "discarding",
    "drew",
    "winner",
    "chain_length",
    "attacking",
)


_ROOTS = (*_TOP, "attack", "chain", "players")


# the names at each place of a field path, listed once: the error messages (`_fields_text`) and their hints
# (`closest`) read them; `resolve_field` gives each its meaning
_LEAVES = {
    r"attack\.(\w+)": ("attacker", "target", "at_declaration", "replay_due"),
    r"chain\[\d+\]\.(\w+)": ("player", "kind", "effect", "negated", "left_field", "cost"),
    r"players\[\d+\]\.monsters\[\d+\]\.(\w+)": (
        "empty",
        "atk",
        "def",
        "position",
        "face",
        "position_changed",
        "attacked",
        "destroyed_by_battle",
        "summoned_this_turn",
        "effect_used",
    ),
    r"players\[\d+\]\.spells_traps\[\d+\]\.(\w+)": ("empty", "kind", "effect", "face", "set_this_turn", "cost"),
    r"players\[\d+\]\.(\w+)": (
        "lp",
        "hand",
        "deck",
        "graveyard",
        "skip_battle_phase",
        "skip_main_phase_1",
        "monsters",
        "spells_traps",
    ),
    r"(\w+)": _ROOTS,
}


# where each group of names sits, as the messages write it (the containers `monsters` and `spells_traps` are
# written with their own names)
_PLACES = {
    r"attack\.(\w+)": "attack",
    r"chain\[\d+\]\.(\w+)": "chain[i]",
    r"players\[\d+\]\.(\w+)": "players[p]",
    r"players\[\d+\]\.monsters\[\d+\]\.(\w+)": "players[p].monsters[z]",
    r"players\[\d+\]\.spells_traps\[\d+\]\.(\w+)": "players[p].spells_traps[z]",
}


def _fields_text() -> str:
    """Every field a condition may name, for an error message: written from `_LEAVES`, the one list of names."""
    groups = []
    for pattern, place in _PLACES.items():
        names = [n for n in _LEAVES[pattern] if n not in ("monsters", "spells_traps")]
        groups.append(f"{place}.{{{','.join(names)}}}")
    return ", ".join([*_TOP, *groups])


def closest(path: str) -> str:
    """`; did you mean X?` for a field path that names none: its last name against the names at its place."""
    for pattern, leaves in _LEAVES.items():
        m = re.fullmatch(pattern, path)
        if m:
            close = difflib.get_close_matches(m.group(1), leaves, n=1, cutoff=0.6)
            if close:
                return f"; did you mean {path[: m.start(1)]}{close[0]}?"
            return ""
    return ""


def resolve_field(path: str, r: Rules) -> FieldRef | str:
    """The field a path names under the rules, or why it names none."""
    F = FieldRef
    bools = {"battle_phase_entered": "bp_done", "passed": "passed", "resolving": "resolving"}
    bools |= {"discarding": "discarding", "drew": "drew", "attacking": "attacking"}
    if path in bools:
        key = bools[path]
        return F(path, "bool", lambda s: s.g(key))
    if path == "turn":
        return F(path, "int", lambda s: s.g("turn"))
    if path == "normal_summons":
        return F(path, "int", lambda s: s.g("nsum"), 8)
    if path == "chain_length":
        return F(path, "int", lambda s: s.g("chain_len"), 4)
    if path == "turn_player":
        return F(path, "enum", lambda s: s.tp, 1, names={"0": 0, "1": 1})
    if path == "priority":
        return F(path, "enum", lambda s: s.g("prio"), 1, names={"0": 0, "1": 1})
    if path == "winner":
        return F(path, "enum", lambda s: s.g("winner"), 4, names={"none": 0, "0": 1, "1": 2, "draw": 3})
    if path == "phase":
        return F(path, "enum", lambda s: s.g("phase"), 4, names=dict(_PHASES))
    m = re.fullmatch(r"attack\.(\w+)", path)
    if m:
        what = m.group(1)
        if what == "attacker":
            return F(path, "int", lambda s: s.g("atk_zone"), 4)
        if what == "target":
            return F(path, "int", lambda s: s.g("atk_tgt"), 4, names={"direct": DIRECT})
        if what in ("at_declaration", "replay_due"):
            key = "at_decl" if what == "at_declaration" else "replay"
            return F(path, "bool", lambda s: s.g(key))
        return f"unknown field {path!r}"
    m = re.fullmatch(r"chain\[(\d+)\]\.(\w+)", path)
    if m:
        j, what = int(m.group(1)), m.group(2)
        if j >= r.chain_links:
            return f"{path}: the chain holds links 0 to {r.chain_links - 1}"
        link: dict[str, FieldRef] = {
            "player": F(path, "enum", lambda s: s.g("c_owner", j), 1, names={"0": 0, "1": 1}),
            "kind": F(path, "enum", lambda s: s.g("c_kind", j), 5, names=_KINDS),
            "effect": F(path, "enum", lambda s: s.g("c_eff", j), 5, names=_EFFECTS),
            "negated": F(path, "bool", lambda s: s.g("c_neg", j)),
            "left_field": F(path, "bool", lambda s: s.g("c_gone", j)),
            "cost": F(path, "enum", lambda s: s.g("c_cost", j), 2, names=_COSTS),
        }
        return link.get(what, f"unknown field {path!r}")
    m = re.fullmatch(r"players\[(\d+)\]\.(\w+)(?:\[(\d+)\]\.(\w+))?", path)
    if not m:
        return f"unknown field {path!r}"
    p = int(m.group(1))
    if p > 1:
        return f"{path}: a player is 0 or 1"
    what = m.group(2)
    if m.group(3) is None:
        counts = {"hand": "hand", "deck": "deck", "graveyard": "gy"}
        if what == "lp":
            return F(path, "int", lambda s: s.g("lp", p), scale=POINTS)
        if what in counts:
            key = counts[what]
            return F(path, "int", lambda s: s.g(key, p))
        if what in ("skip_battle_phase", "skip_main_phase_1"):
            key = "skip_bp" if what == "skip_battle_phase" else "skip_m1"
            return F(path, "bool", lambda s: s.g(key, p))
        return f"unknown field {path!r}"
    z, leaf = int(m.group(3)), m.group(4)
    if what == "monsters":
        if z >= r.monster_zones:
            return f"{path}: Monster Zones are 0 to {r.monster_zones - 1}"
        monster: dict[str, FieldRef] = {
            "empty": F(path, "bool", lambda s: s.k.not_(s.g("m_occ", p, z))),
            "atk": F(path, "int", lambda s: s.g("m_atk", p, z), scale=POINTS),
            "def": F(path, "int", lambda s: s.g("m_defv", p, z), scale=POINTS),
            "position": F(path, "enum", lambda s: s.g("m_def", p, z), names={"attack": False, "defense": True}),
            "face": F(path, "enum", lambda s: s.g("m_up", p, z), names={"down": False, "up": True}),
            "position_changed": F(path, "bool", lambda s: s.g("m_moved", p, z)),
            "attacked": F(path, "bool", lambda s: s.g("m_decl", p, z)),
            "destroyed_by_battle": F(path, "bool", lambda s: s.g("m_doomed", p, z)),
            "summoned_this_turn": F(path, "bool", lambda s: s.g("m_fresh", p, z)),
            "effect_used": F(path, "bool", lambda s: s.g("m_used", p, z)),
        }
        return monster.get(leaf, f"unknown field {path!r}")
    if what == "spells_traps":
        if z >= r.spell_trap_zones:
            return f"{path}: Spell & Trap Zones are 0 to {r.spell_trap_zones - 1}"
        kinds: dict[str, int | bool] = {name: int(k) for k, name in KIND_NAME.items()}
        spell: dict[str, FieldRef] = {
            "empty": F(path, "bool", lambda s: s.k.not_(s.g("s_occ", p, z))),
            "kind": F(path, "enum", lambda s: s.g("s_kind", p, z), 5, names=kinds),
            "effect": F(path, "enum", lambda s: s.g("s_eff", p, z), 5, names=_EFFECTS),
            "face": F(path, "enum", lambda s: s.g("s_up", p, z), names={"down": False, "up": True}),
            "set_this_turn": F(path, "bool", lambda s: s.g("s_fresh", p, z)),
            "cost": F(path, "enum", lambda s: s.g("s_cost", p, z), 2, names=_COSTS),
        }
        return spell.get(leaf, f"unknown field {path!r}")
    return f"unknown field {path!r}"


Pred = Callable[[State], Val]
# a predicate of a step: the state before, the action (properties/core.py `ActionView`; None for a state), after
StepPred = Callable[[State, Any, State], Val]
KEYWORDS = ("and", "or", "not", "implies", "in", "all", "any", "count")
SPANS = ("this_turn", "this_phase", "this_duel")  # count(...)'s spans
COUNT_WIDTH = 8  # a count's field: it saturates at COUNT_TOP (127: "127 or more")
COUNT_TOP = (1 << (COUNT_WIDTH - 1)) - 1
SUM_WIDTH = 24  # a sum is computed at this width: no field's terms can wrap it


@dataclass(frozen=True)
class _Tok:
    kind: str  # int | name | op | punct | end
    text: str
    col: int  # 1-based


@dataclass(frozen=True)
class _Operand:
    col: int
    field: FieldRef | None = None
    number: int | None = None
    name: str | None = None
    post: bool = False  # next.FIELD: the field in the state after the step
    action: bool = False  # `action`: the step's action
    param: bool = False  # action.NAME: a parameter of the step's action (`field` reads it from the action)
    reader: StepPred | None = None  # count(...): how the step or state reads it

    def get(self) -> StepPred:
        assert self.field is not None
        f = self.field
        if self.reader is not None:
            return self.reader
        if self.param:
            return lambda s, a, t: f.get(a)
        return (lambda s, a, t: f.get(t)) if self.post else (lambda s, a, t: f.get(s))


def _tokens(text: str) -> list[_Tok]:
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            col = pos + 1 + (len(text[pos:]) - len(text[pos:].lstrip()))
            ch = text[col - 1]
            hint = ": use == to compare" if ch == "=" else ""
            raise _where_error(col, f"unexpected {ch!r}{hint}")
        kind = next(k for k in ("int", "name", "op", "arith", "punct") if m.group(k) is not None)
        out.append(_Tok(kind, m.group(kind), m.start(kind) + 1))
        pos = m.end()
    out.append(_Tok("end", "", len(text) + 1))
    return out


def _where_error(col: int, message: str) -> InputError:
    return InputError(f"--where: column {col}: {message}")


class _Parser:
    """expr := implies; implies := or ('implies' implies)?; or := and ('or' and)*; and := not ('and' not)*;
    not := 'not' not | ('all' | 'any') NAME ':' expr | atom;
    atom := '(' expr ')' | sum (op sum | 'in' '(' sum (',' sum)* ')')?; sum := operand (('+' | '-') operand)*;
    operand := path | 'next.' path | 'action' | 'action.' NAME | ['-'] integer | name
             | 'count' '(' expr ',' ('this_turn' | 'this_phase' | 'this_duel') ')'.
    `next.` and `action` only in a step predicate (and in a count's body, which is one); count only in a
    property. A quantifier's NAME stands for an index in the paths of its body."""

    def __init__(self, text: str, rules: Rules, step: bool = False, allow_count: bool = False, after: bool = True):
        self.text = text
        self.toks = _tokens(text)
        self.i = 0
        self.r = rules
        self.step = step  # whether the predicate is of a step (`next.` and `action` allowed)
        self.step_forms = False  # whether it used them
        self.bound: dict[str, int] = {}  # the quantifiers' variables, each at the value the body is read for
        self.allow_count = allow_count  # a property's predicate: its counts are kept as history
        self.counting = False  # inside a count's body
        self.counters: dict[str, Any] = {}  # the counts' history fields (properties/history.py Counter), by name
        self.after = after  # `next.` allowed (not in a guard, which reads the state before its action)

    def peek(self) -> _Tok:
        return self.toks[self.i]

    def take(self) -> _Tok:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expect(self, text: str) -> _Tok:
        tok = self.peek()
        if tok.kind != "punct" or tok.text != text:
            got = "the end" if tok.kind == "end" else repr(tok.text)
            raise _where_error(tok.col, f"expected {text!r}, got {got}")
        return self.take()

    def parse(self) -> StepPred:
        pred = self.implies()
        tok = self.peek()
        if tok.kind != "end":
            raise _where_error(tok.col, f"expected 'and', 'or', 'implies' or the end, got {tok.text!r}")
        return pred

    def _keyword(self, word: str) -> bool:
        return self.peek().kind == "name" and self.peek().text == word

    def implies(self) -> StepPred:
        left = self.or_()
        if not self._keyword("implies"):
            return left
        self.take()
        right = self.implies()
        return lambda s, a, t: s.k.implies(left(s, a, t), right(s, a, t))

    def or_(self) -> StepPred:
        parts = [self.and_()]
        while self._keyword("or"):
            self.take()
            parts.append(self.and_())
        return parts[0] if len(parts) == 1 else (lambda s, a, t: s.k.or_(*(p(s, a, t) for p in parts)))

    def and_(self) -> StepPred:
        parts = [self.not_()]
        while self._keyword("and"):
            self.take()
            parts.append(self.not_())
        return parts[0] if len(parts) == 1 else (lambda s, a, t: s.k.and_(*(p(s, a, t) for p in parts)))

    def not_(self) -> StepPred:
        if self._keyword("not"):
            self.take()
            inner = self.not_()
            return lambda s, a, t: s.k.not_(inner(s, a, t))
        if self._keyword("all") or self._keyword("any"):
            return self.quantifier()
        return self.atom()

    def quantifier(self) -> StepPred:
        """`all NAME: EXPR` / `any NAME: EXPR` (the body reaches as far as it can): EXPR for every value of NAME
        an index takes where it is used (players[NAME]: 0 and 1; monsters[NAME]: each Monster Zone; ...)."""
        word = self.take().text
        var = self.take()
        if var.kind != "name" or var.text in KEYWORDS or var.text in _ROOTS or var.text in self.bound:
            raise _where_error(var.col, "expected a new variable name after " + repr(word))
        self.expect(":")
        start = self.i
        size = self._range_of(var.text, var.col)
        parts = []
        for value in range(size):
            self.i = start
            self.bound[var.text] = value
            parts.append(self.implies())
        del self.bound[var.text]
        join = "and_" if word == "all" else "or_"
        return lambda s, a, t: getattr(s.k, join)(*(p(s, a, t) for p in parts))

    def _range_of(self, var: str, col: int) -> int:
        """How many values a variable takes: the size of the lists it indexes in the body (each the same)."""
        sizes = {"players": 2, "monsters": self.r.monster_zones, "spells_traps": self.r.spell_trap_zones}
        sizes["chain"] = self.r.chain_links
        found: set[int] = set()
        for j in range(self.i, len(self.toks) - 3):
            a, b, c, d = self.toks[j : j + 4]
            if b.text == "[" and c.kind == "name" and c.text == var and d.text == "]" and a.text in sizes:
                found.add(sizes[a.text])
        if not found:
            raise _where_error(col, f"{var!r} indexes no list (players[{var}], monsters[{var}], ...)")
        if len(found) > 1:
            raise _where_error(col, f"{var!r} indexes lists of different sizes: use a variable for each")
        return found.pop()

    def atom(self) -> StepPred:
        tok = self.peek()
        if tok.text == "(" and tok.kind == "punct":
            self.take()
            inner = self.implies()
            self.expect(")")
            return inner
        terms = self.sum_()
        if self.peek().kind == "op":
            op = self.take()
            return _compare(terms, op, self.sum_())
        if self._keyword("in"):
            eq = _Tok("op", "==", self.take().col)
            self.expect("(")
            options = [_compare(terms, eq, self.sum_())]
            while self.peek().kind == "punct" and self.peek().text == ",":
                self.take()
                options.append(_compare(terms, eq, self.sum_()))
            self.expect(")")
            return lambda s, a, t: s.k.or_(*(o(s, a, t) for o in options))
        if len(terms) > 1 or terms[0][0] < 0:
            raise _where_error(terms[0][1].col, "a sum is not a condition: compare it (e.g. a - b <= 1000)")
        left = terms[0][1]
        if left.field is not None and left.field.sort == "bool":
            return left.get()
        if left.name in ("true", "false"):
            value = left.name == "true"
            return lambda s, a, t: value
        if left.name is not None:
            hint = closest(left.name)
            raise _where_error(left.col, f"unknown field {left.name!r}{hint} (fields: {_fields_text()})")
        what = left.field.path if left.field is not None else str(left.number)
        raise _where_error(left.col, f"{what!r} is not a condition: compare it (e.g. players[0].lp <= 1000)")

    def sum_(self) -> list[tuple[int, _Operand]]:
        """Operands joined by `+` and `-`, each with its sign (flat, read left to right)."""
        terms = [(1, self.operand())]
        while self.peek().kind == "arith":
            sign = 1 if self.take().text == "+" else -1
            terms.append((sign, self.operand()))
        return terms

    def operand(self) -> _Operand:
        tok = self.take()
        if tok.kind == "arith" and tok.text == "-" and self.peek().kind == "int":
            return _Operand(tok.col, number=-int(self.take().text))
        if tok.kind == "int":
            return _Operand(tok.col, number=int(tok.text))
        if tok.kind == "name" and tok.text == "count" and self.peek().text == "(":
            return self._count(tok)
        if tok.kind != "name" or tok.text in KEYWORDS:
            got = "the end" if tok.kind == "end" else repr(tok.text)
            raise _where_error(tok.col, f"expected a field, a number or a name, got {got}")
        post = False
        if tok.text in ("next", "action"):
            if not self.step:
                raise _where_error(tok.col, f"{tok.text!r} is only in a step predicate (a property's `step`)")
            self.step_forms = True
            if tok.text == "next" and not self.after:
                raise _where_error(tok.col, "'next' is not in a guard: it reads the state before its action")
            if tok.text == "action":
                if not (self.peek().kind == "punct" and self.peek().text == "."):
                    return _Operand(tok.col, action=True)
                return self._param()
            self.expect(".")
            post, tok = True, self.take()
            if tok.kind != "name" or tok.text not in _ROOTS:
                raise _where_error(tok.col, f"expected a field after 'next.' (fields: {_fields_text()})")
        if tok.text not in _ROOTS:
            return _Operand(tok.col, name=tok.text)
        path = tok.text
        while self.peek().kind == "punct" and self.peek().text in ("[", "."):
            if self.take().text == "[":
                index = self.take()
                if index.kind == "name" and index.text in self.bound:
                    index = _Tok("int", str(self.bound[index.text]), index.col)
                if index.kind != "int" or index.text.startswith("-"):
                    raise _where_error(index.col, "expected an index (0, 1, ...) or a quantifier's variable")
                self.expect("]")
                path += f"[{int(index.text)}]"
            else:
                part = self.take()
                if part.kind != "name":
                    raise _where_error(part.col, "expected a field name after '.'")
                path += f".{part.text}"
        ref = resolve_field(path, self.r)
        if isinstance(ref, str):
            hint = closest(path) if ref.startswith("unknown field") else ""
            raise _where_error(tok.col, f"{ref}{hint} (fields: {_fields_text()})")
        return _Operand(tok.col, field=ref, post=post)

    def _count(self, tok: _Tok) -> _Operand:
        """`count(STEP_EXPR, SPAN)`: how many steps of the span so far the step predicate held for (the present
        step included, in a step predicate), kept as history beside the state (a Counter of properties/history.py
        that no rule reads)."""
        if not self.allow_count:
            raise _where_error(tok.col, "count(...) is only in a property (--always, --sometimes, a property file)")
        if self.counting:
            raise _where_error(tok.col, "count(...) inside a count: count one step predicate at a time")
        self.expect("(")
        first = self.peek()
        outer = (self.step, self.step_forms)
        self.step, self.counting = True, True
        body = self.implies()
        self.step, self.step_forms = outer  # the body reads a step; the predicate around it need not
        self.counting = False
        comma = self.peek()
        if comma.text != ",":
            got = "the end" if comma.kind == "end" else repr(comma.text)
            raise _where_error(
                comma.col, f"expected ',' and a span ({', '.join(SPANS)}) after count's predicate, got {got}"
            )
        self.take()
        span = self.take()
        if span.kind != "name" or span.text not in SPANS:
            raise _where_error(span.col, f"expected a span: {', '.join(SPANS)}")
        self.expect(")")
        text = " ".join(self.text[first.col - 1 : comma.col - 1].split())
        at = ",".join(f"{k}={v}" for k, v in sorted(self.bound.items()))
        digest = hashlib.sha1(f"{text}|{span.text}|{at}".encode()).hexdigest()[:10]
        name = f"{COUNT_PREFIX}{digest}"
        self.counters[name] = _counter(name, f"count({text}, {span.text})", body, span.text)
        ref = FieldRef(f"count({text}, {span.text})", "int", lambda st: st.g(name), COUNT_WIDTH, top=COUNT_TOP)

        def reads(s: State, a: Any, t: State) -> Val:
            if a is None:  # a state predicate: the count in the state
                return t.g(name)
            return _bump(s, s.g(name), body(s, a, t))  # a step's: the steps of its span so far, this one too

        return _Operand(tok.col, field=ref, reader=reads)

    def _param(self) -> _Operand:
        """`action.NAME` (after `action`): a parameter of the step's action, in the duel-log format's words."""
        self.expect(".")
        tok = self.take()
        name = tok.text
        if tok.kind == "name" and name == "target" and self.peek().text == ".":
            self.take()
            part = self.take()
            name = f"target.{part.text}"
        if name not in ACTION_PARAMS:
            raise _where_error(
                tok.col, f"{name!r} is not a parameter of an action (expected one of {', '.join(ACTION_PARAMS)})"
            )
        return _Operand(tok.col, field=ACTION_PARAMS[name], param=True)


def _bump(s: State, old: Val, by: Val) -> Val:
    """old + 1 when `by` holds, saturating at COUNT_TOP."""
    k = s.k
    return k.ite(by, k.ite(old >= COUNT_TOP, old, old + 1), old)


def _same_span(span: str, s: State, t: State) -> Val:
    """Whether the step from s to t stays in s's span: the duel, the turn, or the phase (the Battle Phase's
    steps are one phase, 6.3.4)."""
    k = s.k
    if span == "this_duel":
        return True
    turn = s.g("turn") == t.g("turn")
    if span == "this_turn":
        return turn
    battle = [int(ph) for ph in BATTLE_PHASE]
    both = k.and_(k.one_of(s.g("phase"), battle), k.one_of(t.g("phase"), battle))
    return k.and_(turn, k.or_(s.g("phase") == t.g("phase"), both))


def _counter(name: str, words: str, body: StepPred, span: str) -> Any:
    """The history field of one count: after a step, the steps of the span so far its predicate held for (0
    once the step leaves the span); a board that starts midway starts it at 0."""
    from duelcheck.model.state import FieldSpec
    from duelcheck.properties.history import Counter

    def advance(s: State, a: Any, t: State, idx: tuple[int, ...]) -> Val:
        return s.k.ite(_same_span(span, s, t), _bump(s, s.g(name), body(s, a, t)), 0, w=COUNT_WIDTH)

    spec = FieldSpec(name, (), "int", COUNT_WIDTH, f"{words} (history of a user's property)", ghost=True)
    return Counter(spec, advance, lambda b, idx: 0)


def _literal(f: FieldRef, o: _Operand) -> int | bool:
    """The code a name or number stands for when compared with field f."""
    if o.name is not None:
        if o.name in ("true", "false") and f.sort == "bool":
            return o.name == "true"
        if o.name in f.names:
            return f.names[o.name]
        options = ", ".join(f.names) or ("true, false" if f.sort == "bool" else "numbers")
        close = difflib.get_close_matches(o.name, list(f.names), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise _where_error(o.col, f"{o.name!r} is not a value of {f.path}{hint} (expected {options})")
    assert o.number is not None
    if f.sort == "enum" and str(o.number) in f.names:
        return f.names[str(o.number)]
    if f.sort != "int":
        options = ", ".join(f.names) or "true, false"
        raise _where_error(o.col, f"{f.path} is not a number (expected {options})")
    if f.top is not None and o.number >= f.top:
        raise _where_error(o.col, f"{f.path} counts exactly up to {f.top - 1}: compare it with a smaller number")
    return o.number


def _compare(left: list[tuple[int, _Operand]], op: _Tok, right: list[tuple[int, _Operand]]) -> StepPred:
    """A comparison of two sums: of two operands as they are, or of the sum of their difference."""
    if len(left) == 1 and len(right) == 1 and left[0][0] > 0 and right[0][0] > 0:
        return _comparison(left[0][1], op, right[0][1])
    terms = [*left, *((-sign, o) for sign, o in right)]
    fields: list[tuple[int, _Operand]] = []
    points = 0  # the numbers, moved to the right of the comparison
    for sign, o in terms:
        if o.action:
            raise _where_error(o.col, "'action' is not a number: it cannot be added")
        if o.name is not None:
            raise _where_error(o.col, f"{o.name!r} cannot be added: only numbers and fields that are numbers")
        if o.number is not None:
            points -= sign * o.number
            continue
        assert o.field is not None
        if o.field.sort != "int":
            raise _where_error(o.col, f"{o.field.path} is not a number: it cannot be added")
        fields.append((sign, o))
    if not fields:
        raise _where_error(op.col, "compare a field (e.g. players[0].lp - players[1].lp >= 1000), not two values")
    first = fields[0][1].field
    assert first is not None
    for _, o in fields[1:]:
        assert o.field is not None
        if o.field.scale != first.scale:
            raise _where_error(o.col, f"{first.path} and {o.field.path} are not the same kind of value")
    gets = [(sign, o.get()) for sign, o in fields]

    def total(s: State, a: Any, t: State) -> Val:
        out: Val = 0
        for sign, get in gets:
            v = s.k.wide(get(s, a, t), SUM_WIDTH)
            out = out + v if sign > 0 else out - v
        return out

    return _scaled(total, SUM_WIDTH, first.scale, op.text, points)


def _comparison(left: _Operand, op: _Tok, right: _Operand) -> StepPred:
    if right.action and not left.action:
        left, right = right, left
    if left.action:  # the step's action, by its name in the duel-log format (model/rules.py's actions)
        from duelcheck.model.rules import ACTION_BY_NAME

        if op.text not in ("==", "!="):
            raise _where_error(op.col, "compare the action with == or != (or: action in (a, b))")
        if right.name not in ACTION_BY_NAME:
            got = right.name if right.name is not None else (right.field.path if right.field else right.number)
            raise _where_error(right.col, f"{got!r} is not an action (expected one of {', '.join(ACTION_BY_NAME)})")
        name, same = right.name, op.text == "=="
        return (lambda s, a, t: a.is_(name)) if same else (lambda s, a, t: s.k.not_(a.is_(name)))
    if left.field is None and right.field is not None:
        left, right = right, left
        op = _Tok(op.kind, _FLIP[op.text], op.col)
    f = left.field
    if f is None:
        if left.name is not None and left.name not in ("true", "false"):
            hint = closest(left.name)
            raise _where_error(left.col, f"unknown field {left.name!r}{hint} (fields: {_fields_text()})")
        raise _where_error(left.col, "compare a field (e.g. players[0].lp <= 1000), not two values")
    if op.text not in ("==", "!=") and f.sort != "int":
        raise _where_error(op.col, f"{f.path} is not a number: compare it with == or !=")
    if right.field is not None:
        g = right.field
        if (f.sort, f.scale, f.names) != (g.sort, g.scale, g.names):
            raise _where_error(right.col, f"{f.path} and {g.path} are not the same kind of value")
        fn, lget, rget = _OPS[op.text], left.get(), right.get()
        return lambda s, a, t: fn(lget(s, a, t), rget(s, a, t))
    value = _literal(f, right)
    get = left.get()
    if isinstance(value, bool) or f.sort != "int":
        fn = _OPS[op.text]
        return lambda s, a, t: fn(get(s, a, t), value)
    return _scaled(left.get(), f.width, f.scale, op.text, value)


def _scaled(get: StepPred, width: int, sc: int, op: str, points: int) -> StepPred:
    """A value held in units of `sc` (a field, or a sum of fields, of `width` bits) against a literal in the
    log's units (LP 1000 is 10 units)."""
    if op in ("==", "!=") and points % sc:
        const = op == "!="
        return lambda s, a, t: const
    units = {"==": points // sc, "!=": points // sc, "<=": points // sc, ">": points // sc}
    units |= {"<": -((-points) // sc), ">=": -((-points) // sc)}
    c = units[op]
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    if c > hi or c < lo:  # past what the value can hold: the answer does not depend on the state
        const = {"==": False, "!=": True, "<": c > hi, "<=": c > hi, ">": c < lo, ">=": c < lo}[op]
        return lambda s, a, t: const
    fn = _OPS[op]
    return lambda s, a, t: fn(get(s, a, t), c)


def parse_where(text: str, rules: Rules, counts: bool = False) -> Pred:
    """A `--where` constraint as a predicate over a state (concrete or symbolic). A syntax error or an
    unknown name is an InputError naming the column. `counts`: count(...) allowed (a property's predicate)."""
    if not text.strip():
        raise _where_error(1, "expected a constraint, e.g. players[1].lp <= 1000 and phase == battle_step")
    pred = _Parser(text, rules, allow_count=counts).parse()
    return lambda st: pred(st, None, st)


@dataclass(frozen=True)
class Parsed:
    """A property's predicate: of a step (fields of the state before, `next.FIELD` after, `action`); whether
    it used the step's forms at all (when not, it is a predicate of a state); the history its counts keep."""

    pred: StepPred
    reads_step: bool
    counters: tuple[Any, ...]


def parse_guard(text: str, rules: Rules) -> StepPred:
    """A new guard of an action (a rule file's `require`): a predicate of the state before the action and its
    parameters (`action.NAME`); no `next.`, no count."""
    if not text.strip():
        raise _where_error(1, "expected a condition, e.g. turn >= 3")
    return _Parser(text, rules, step=True, after=False).parse()


def parse_step(text: str, rules: Rules) -> Parsed:
    """A property's predicate, read as a step predicate (count(...) allowed)."""
    if not text.strip():
        raise _where_error(1, "expected a constraint, e.g. action == declare_attack implies phase == battle_step")
    parser = _Parser(text, rules, step=True, allow_count=True)
    pred = parser.parse()
    return Parsed(pred, parser.step_forms, tuple(parser.counters[n] for n in sorted(parser.counters)))
