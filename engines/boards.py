"""Edge-case test boards for game engines: for every guard of every action, a legal board and its illegal twin.

An action's guard is the conjunction of the `require` conjuncts its body adds, each with the words a judge
says when it fails (model/rules.py). `collect_guards` runs each body on a symbolic Builder, as the
transition relation does (model/system.py), and keeps the conjuncts with their reasons; those whose
reason starts with "model range" or "model catalogue" only keep the parameters sane, and those of "model
shortcut" keep a step of several actions to where it is meant: they must hold on every board and get no
board of their own.

For an action X with guard conjuncts g_1..g_n the search looks, one depth at a time from the start of the
duel (as engines/bmc.py does, in one solver session), for

- the *legal board*: the shortest play to a state where X, with some parameters, is legal (every g_j
  holds); one board per action, shared by its guards;
- the *illegal twin* of each g_i: the shortest play to a state where every other conjunct holds and g_i
  fails, so that the judge refuses X with g_i's reason and no other;
- *boundary boards*: state predicates a tester wants (each row of the damage table at equality, a 0 ATK
  battle, LP going to exactly 0, the hand at the limit and one over in the End Phase, the monster zones
  full, the longest chain the model holds), optionally followed by the action they test;
- `--where` boards: a state predicate written in a small language over the duel-log format's words.

Every play is replayed by the concrete interpreter, and the tested action is certified there: legal, or
refused with exactly g_i's reason. Each board is written as a duel log (duelcheck/log.py) with every
observed state and an `expect` block, and is replayed once more through `duelcheck replay` before it is
kept. A guard whose twin is not reached within the bound is `not found up to N`; when additionally the
other conjuncts imply it under the well-formed facts of every reachable state (one solver question), it
is `unreachable (implied by the other guards)`. A twin that exists only with parameters the duel-log
format cannot write (a zone number past the last zone) is `not expressible in the duel-log format`.
Beyond the bound, `deep_search` searches on from the states of plays, `classify` and
`unreachable_by_induction` prove twins unreachable, and, last, `seeded_twins` asks each twin still missing of
the seeded search with its guard dropped (docs/boards.md).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import z3

from duelcheck.conformance import broken_clause, replay
from duelcheck.engines.base import Trace
from duelcheck.engines.bmc import Start, Unrolling, deepen_once
from duelcheck.engines.limits import check_interrupt
from duelcheck.engines.mutate import EXCLUDED_PREFIXES, hooked
from duelcheck.engines.mutate import twin_check as mutate_twin
from duelcheck.engines.smt import SAT, UNSAT, open_session
from duelcheck.errors import InputError, InternalError
from duelcheck.log import (
    COST_NAME,
    KIND_NAME,
    LINK_KIND_NAME,
    PHASE_NAME,
    _target_out,
    log_action,
    log_of,
)
from duelcheck.model.cards import (
    DIRECT,
    HAND,
    POINTS,
    SPELLS,
    STOP,
    TARGETED,
    TRAPS,
    Cost,
    Effect,
    Kind,
    Phase,
)
from duelcheck.model.kit import Val
from duelcheck.model.rules import ACTION_BY_NAME, ACTIONS, Action, Params, trigger_due
from duelcheck.model.state import PARAMS, GuardMutant, MutationHook, State, action_body
from duelcheck.model.system import Step, SymStep, TransitionSystem
from duelcheck.properties.catalog import Check, well_formed_facts
from duelcheck.rules import Rules

Reason = str | Callable[[State], str]
DEEP_DEPTH = 4  # beyond the bound: the search goes this many steps on from the states of plays
FAR_DEPTH = 6  # and, last, this many from the states of the plays to the end of the duel
DEEP_ROUNDS = 3  # rounds from the boards' plays, each from the boards found in the round before
DEEP_WALKS, DEEP_SEED = 3, 7  # then the seeded random plays it also starts from: their first steps, then all
DEEP_WALK_LENGTHS = (60, 300)
DEEP_SHRINK = 3000  # the candidates delta debugging may try on each board found there
WITNESS_DEPTH = 16  # the bound of the plays to the suite's witnesses it also starts from (a replay's choices: 14)
SEEDED_DEPTH = 16  # last, for a twin still missing: the seeded search from the start of the duel, to this many steps
Status = Literal["found", "unreachable", "not-found", "not-expressible", "unknown"]


# -- guards -----------------------------------------------------------------------------------


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


def slugify(text: str, limit: int = 56) -> str:
    """Words as a file-name part: lower case, dashes, no clause number, at most `limit` characters."""
    text = re.sub(r"^((\d+(\.\d+)+)|(seed \d{3}( \([^)]*\))?)|model( bound| catalogue| range)?):\s*", "", text)
    text = re.sub(r"\{[^}]*\}", "", text)
    words = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if len(words) > limit:
        words = words[:limit].rsplit("-", 1)[0]
    return words or "guard"


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
        seen: dict[str, int] = {}
        for i, ((term, _), reason, mine) in enumerate(zip(n.guards, said, own, strict=True)):
            words = reason.__name__ if callable(reason) else reason
            base = re.sub(r"_", "-", words) if callable(reason) else slugify(words)
            seen[base] = seen.get(base, 0) + 1
            slug = base if seen[base] == 1 else f"{base}-{seen[base]}"
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


# -- boundary boards --------------------------------------------------------------------------


@dataclass(frozen=True)
class Boundary:
    """A board a tester wants: a state predicate, then (optionally) the action it tests, which must be legal."""

    name: str
    clause: str
    doc: str
    pred: Callable[[State], Val]
    action: str | None = None


def _battle(s: State) -> tuple[Val, Val, Val, Val, Val]:
    """Before damage calculation: a battle with a monster (not direct), the attacker's ATK, the target's ATK
    and DEF, and whether the target is in Defense Position."""
    k, tp = s.k, s.tp
    opp = s.other(tp)
    z, t = s.g("atk_zone"), s.g("atk_tgt")
    at = k.and_(s.g("phase") == Phase.DMG_DURING, s.g("attacking"), t != DIRECT)
    return at, s.g("m_atk", tp, z), s.g("m_atk", opp, t), s.g("m_defv", opp, t), s.g("m_def", opp, t)


def _atk_equal(s: State) -> Val:
    at, a, ta, _, is_def = _battle(s)
    return s.k.and_(at, s.k.not_(is_def), a == ta, a != 0)


def _def_equal(s: State) -> Val:
    at, a, _, td, is_def = _battle(s)
    return s.k.and_(at, is_def, a == td)


def _zero_battle(s: State) -> Val:
    at, a, ta, _, is_def = _battle(s)
    return s.k.and_(at, s.k.not_(is_def), a == 0, ta == 0)


def _hand_at(extra: int) -> Callable[[State], Val]:
    def pred(s: State) -> Val:
        k = s.k
        return k.and_(s.g("phase") == Phase.END, s.g("chain_len") == 0, s.g("hand", s.tp) == s.r.hand_limit + extra)

    return pred


BOUNDARIES: tuple[Boundary, ...] = (
    Boundary(
        "battle.atk-equal",
        "6.3.4.3.3",
        "Damage calculation between two Attack Position monsters of equal ATK (not 0): both are destroyed, no damage.",
        _atk_equal,
        "end_step",
    ),
    Boundary(
        "battle.def-equal",
        "6.3.4.3.3",
        "Damage calculation of an attack on a Defense Position monster whose DEF equals the attacker's ATK: "
        "nothing is destroyed, no damage.",
        _def_equal,
        "end_step",
    ),
    Boundary(
        "battle.zero-atk",
        "6.3.4.3.3.1",
        "Damage calculation between two 0 ATK Attack Position monsters: nothing happens.",
        _zero_battle,
        "end_step",
    ),
    Boundary(
        "lp.exactly-zero",
        "seed 000 (winning)",
        "A player's LP go to exactly 0: that player loses.",
        lambda s: s.k.or_(s.g("lp", 0) == 0, s.g("lp", 1) == 0),
    ),
    Boundary(
        "hand.at-limit-end-phase",
        "6.3.6",
        "The End Phase ends with the turn player holding exactly the hand limit: no discard, the turn ends.",
        _hand_at(0),
        "end_step",
    ),
    Boundary(
        "hand.over-limit-end-phase",
        "6.3.6",
        "The End Phase ends with the turn player holding one card over the hand limit: they discard.",
        _hand_at(1),
        "end_step",
    ),
    Boundary(
        "monsters.zones-full",
        "6.3.5",
        "A player's Monster Zones are exactly full.",
        lambda s: s.k.or_(*(s.monsters(p) == s.r.monster_zones for p in (0, 1))),
    ),
    Boundary(
        "chain.longest",
        "seed 000",
        "The longest chain the model holds (the rules' chain_links).",
        lambda s: s.g("chain_len") == s.r.chain_links,
    ),
)


# -- the --where language ---------------------------------------------------------------------


@dataclass(frozen=True)
class FieldRef:
    """A field in the duel-log format's words: how to read it from a state, and what it compares with."""

    path: str
    sort: Literal["int", "bool", "enum"]
    get: Callable[[State], Val]
    width: int = 9
    scale: int = 1
    names: dict[str, int | bool] = field(default_factory=dict)  # name literals it takes (enum: the only ones)


_TOKEN = re.compile(
    r"\s*(?:(?P<int>-?\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>==|!=|<=|>=|<|>)|(?P<punct>[()\[\].]))"
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


def _fields_text() -> str:
    return (
        "turn, turn_player, phase, priority, normal_summons, battle_phase_entered, passed, resolving, discarding, "
        "drew, winner, chain_length, attacking, attack.{attacker,target,at_declaration,replay_due}, "
        "chain[i].{player,kind,effect,negated,left_field,cost}, "
        "players[p].{lp,hand,deck,graveyard,skip_battle_phase,skip_main_phase_1}, "
        "players[p].monsters[z].{empty,atk,def,position,face,position_changed,attacked,destroyed_by_battle,"
        "summoned_this_turn,effect_used}, players[p].spells_traps[z].{empty,kind,effect,face,set_this_turn,cost}"
    )


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
        return F(path, "enum", lambda s: s.g("winner"), 4, names={"none": 0, "0": 1, "1": 2})
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
        kind = next(k for k in ("int", "name", "op", "punct") if m.group(k) is not None)
        out.append(_Tok(kind, m.group(kind), m.start(kind) + 1))
        pos = m.end()
    out.append(_Tok("end", "", len(text) + 1))
    return out


def _where_error(col: int, message: str) -> InputError:
    return InputError(f"--where: column {col}: {message}")


class _Parser:
    """expr := or; or := and ('or' and)*; and := not ('and' not)*; not := 'not' not | atom;
    atom := '(' expr ')' | operand (op operand)?; operand := path | integer | name."""

    def __init__(self, text: str, rules: Rules):
        self.toks = _tokens(text)
        self.i = 0
        self.r = rules

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

    def parse(self) -> Pred:
        pred = self.or_()
        tok = self.peek()
        if tok.kind != "end":
            raise _where_error(tok.col, f"expected 'and', 'or' or the end, got {tok.text!r}")
        return pred

    def or_(self) -> Pred:
        parts = [self.and_()]
        while self.peek().kind == "name" and self.peek().text == "or":
            self.take()
            parts.append(self.and_())
        return parts[0] if len(parts) == 1 else (lambda s: s.k.or_(*(p(s) for p in parts)))

    def and_(self) -> Pred:
        parts = [self.not_()]
        while self.peek().kind == "name" and self.peek().text == "and":
            self.take()
            parts.append(self.not_())
        return parts[0] if len(parts) == 1 else (lambda s: s.k.and_(*(p(s) for p in parts)))

    def not_(self) -> Pred:
        if self.peek().kind == "name" and self.peek().text == "not":
            self.take()
            inner = self.not_()
            return lambda s: s.k.not_(inner(s))
        return self.atom()

    def atom(self) -> Pred:
        tok = self.peek()
        if tok.text == "(" and tok.kind == "punct":
            self.take()
            inner = self.or_()
            self.expect(")")
            return inner
        left = self.operand()
        if self.peek().kind == "op":
            op = self.take()
            right = self.operand()
            return _comparison(left, op, right)
        if left.field is not None and left.field.sort == "bool":
            get = left.field.get
            return lambda s: get(s)
        if left.name in ("true", "false"):
            value = left.name == "true"
            return lambda s: value
        if left.name is not None:
            raise _where_error(left.col, f"unknown field {left.name!r} (fields: {_fields_text()})")
        what = left.field.path if left.field is not None else str(left.number)
        raise _where_error(left.col, f"{what!r} is not a condition: compare it (e.g. players[0].lp <= 1000)")

    def operand(self) -> _Operand:
        tok = self.take()
        if tok.kind == "int":
            return _Operand(tok.col, number=int(tok.text))
        if tok.kind != "name" or tok.text in ("and", "or", "not"):
            got = "the end" if tok.kind == "end" else repr(tok.text)
            raise _where_error(tok.col, f"expected a field, a number or a name, got {got}")
        if tok.text not in _ROOTS:
            return _Operand(tok.col, name=tok.text)
        path = tok.text
        while self.peek().kind == "punct" and self.peek().text in ("[", "."):
            if self.take().text == "[":
                index = self.take()
                if index.kind != "int" or index.text.startswith("-"):
                    raise _where_error(index.col, "expected an index (0, 1, ...)")
                self.expect("]")
                path += f"[{int(index.text)}]"
            else:
                part = self.take()
                if part.kind != "name":
                    raise _where_error(part.col, "expected a field name after '.'")
                path += f".{part.text}"
        ref = resolve_field(path, self.r)
        if isinstance(ref, str):
            raise _where_error(tok.col, f"{ref} (fields: {_fields_text()})")
        return _Operand(tok.col, field=ref)


def _literal(f: FieldRef, o: _Operand) -> int | bool:
    """The code a name or number stands for when compared with field f."""
    if o.name is not None:
        if o.name in ("true", "false") and f.sort == "bool":
            return o.name == "true"
        if o.name in f.names:
            return f.names[o.name]
        options = ", ".join(f.names) or ("true, false" if f.sort == "bool" else "numbers")
        raise _where_error(o.col, f"{o.name!r} is not a value of {f.path} (expected {options})")
    assert o.number is not None
    if f.sort == "enum" and str(o.number) in f.names:
        return f.names[str(o.number)]
    if f.sort != "int":
        options = ", ".join(f.names) or "true, false"
        raise _where_error(o.col, f"{f.path} is not a number (expected {options})")
    return o.number


def _comparison(left: _Operand, op: _Tok, right: _Operand) -> Pred:
    if left.field is None and right.field is not None:
        left, right = right, left
        op = _Tok(op.kind, _FLIP[op.text], op.col)
    f = left.field
    if f is None:
        if left.name is not None and left.name not in ("true", "false"):
            raise _where_error(left.col, f"unknown field {left.name!r} (fields: {_fields_text()})")
        raise _where_error(left.col, "compare a field (e.g. players[0].lp <= 1000), not two values")
    if op.text not in ("==", "!=") and f.sort != "int":
        raise _where_error(op.col, f"{f.path} is not a number: compare it with == or !=")
    if right.field is not None:
        g = right.field
        if (f.sort, f.scale, f.names) != (g.sort, g.scale, g.names):
            raise _where_error(right.col, f"{f.path} and {g.path} are not the same kind of value")
        fn = _OPS[op.text]
        return lambda s: fn(f.get(s), g.get(s))
    value = _literal(f, right)
    if isinstance(value, bool) or f.sort != "int":
        fn = _OPS[op.text]
        return lambda s: fn(f.get(s), value)
    return _scaled(f, op.text, value)


def _scaled(f: FieldRef, op: str, points: int) -> Pred:
    """A field held in units of `f.scale` against a literal in the log's units (LP 1000 is 10 units)."""
    sc = f.scale
    if op in ("==", "!=") and points % sc:
        const = op == "!="
        return lambda s: const
    units = {"==": points // sc, "!=": points // sc, "<=": points // sc, ">": points // sc}
    units |= {"<": -((-points) // sc), ">=": -((-points) // sc)}
    c = units[op]
    lo, hi = -(1 << (f.width - 1)), (1 << (f.width - 1)) - 1
    if c > hi or c < lo:  # past what the field can hold: the answer does not depend on the state
        const = {"==": False, "!=": True, "<": c > hi, "<=": c > hi, ">": c < lo, ">=": c < lo}[op]
        return lambda s: const
    fn = _OPS[op]
    return lambda s: fn(f.get(s), c)


def parse_where(text: str, rules: Rules) -> Pred:
    """A `--where` constraint as a predicate over a state (concrete or symbolic). A syntax error or an
    unknown name is an InputError naming the column."""
    if not text.strip():
        raise _where_error(1, "expected a constraint, e.g. players[1].lp <= 1000 and phase == battle_step")
    return _Parser(text, rules).parse()


# -- the search -------------------------------------------------------------------------------


@dataclass
class Goal:
    """One board to find: a legal board, an illegal twin, a boundary board or a --where board."""

    name: str  # the board's file stem
    kind: Literal["legal", "illegal", "boundary", "where"]
    title: str
    clause: str
    action: str | None = None  # the action tested last (None: the play ends where the predicate holds)
    guard: Guard | None = None  # the conjunct that fails (illegal twins)
    pred: Pred | None = None  # the state predicate (boundary and --where boards)
    status: Status = "not-found"
    depth: int = 0
    note: str = ""
    steps: list[tuple[str, dict[str, int], State]] = field(default_factory=list)
    params: dict[str, int] = field(default_factory=dict)
    reason: str | None = None  # the judge's reason (illegal twins)
    doc: dict[str, Any] | None = None
    seconds: float = 0.0
    minimal: bool = True  # False for a board found beyond the bound (its play is not proved the shortest)

    @property
    def file(self) -> str:
        """The board's file name in the --out folder."""
        return f"{self.name}.json"


class _Defs:
    """The guard conjuncts of each action at each depth, as literals defined once in the solver session."""

    def __init__(
        self,
        ts: TransitionSystem,
        u: Unrolling,
        session: Any,
        table: dict[str, ActionGuards],
        steps: Callable[[Any], Any] | None = None,
    ):
        self.ts, self.u, self.session, self.table, self.steps = ts, u, session, table, steps
        self.done: dict[tuple[str, int], tuple[dict[str, Any], list[Any], Any]] = {}

    def at(self, action: str, d: int) -> tuple[dict[str, Any], list[Any], Any]:
        """(parameter variables, one literal per conjunct, the parameters' domain) of `action` at depth d."""
        key = (action, d)
        if key in self.done:
            return self.done[key]
        ag = self.table[action]
        state = self.u.states[d]
        params = {name: PARAMS[name].z3var(f"@{action}@{d}") for name in ag.action.params}
        pairs = [(ag.pre.v[k], state.v[k]) for k in self.ts.keys]
        pairs += [(ag.params[name], params[name]) for name in params]
        lits = []
        for i, term in enumerate(ag.terms):
            lit = z3.Bool(f"guard#{action}#{i}@{d}")
            self.session.add(lit == z3.substitute(term, *pairs))
            lits.append(lit)
        domain = [PARAMS[name].domain(params[name]) for name in params]
        domain += expressible(self.ts.rules, action, params, state)
        if self.steps is not None:  # the tested action meets the plays' step constraint too
            every = {n: params[n] if n in params else PARAMS[n].z3var(f"@{action}@{d}~") for n in PARAMS}
            code = z3.BitVecVal(self.ts.actions.index(ag.action), self.ts.act_width)
            domain.append(self.steps(SymStep(code, every, state, state, z3.BoolVal(True))))
        self.done[key] = (params, lits, z3.And(*domain) if domain else z3.BoolVal(True))
        return self.done[key]

    def target(self, g: Goal, d: int) -> Any:
        """The goal at depth d: its predicate, and the tested action's conjuncts (all, or all but one negated)."""
        parts: list[Any] = []
        if g.pred is not None:
            v = g.pred(self.u.states[d])
            parts.append(z3.BoolVal(v) if isinstance(v, bool) else v)
        if g.action is not None:
            _, lits, domain = self.at(g.action, d)
            if g.guard is None:
                parts += [domain, *lits]
            else:
                i = g.guard.index
                parts += [domain, *(lit for j, lit in enumerate(lits) if j != i), z3.Not(lits[i])]
        return z3.And(*parts)

    def wanted(self, d: int) -> list[Any]:
        """The parameter variables of every action defined at depth d: the solver reports their values."""
        return [v for (_, depth), (params, _, _) in self.done.items() if depth == d for v in params.values()]


def _signed(value: int | bool, name: str) -> int:
    spec = PARAMS[name]
    v = int(value)
    if spec.sort == "int" and spec.width > 1 and v >= 1 << (spec.width - 1):
        v -= 1 << spec.width
    return v


def search(
    ts: TransitionSystem,
    goals: list[Goal],
    table: dict[str, ActionGuards],
    depth: int,
    solver: str = "auto",
    progress: Callable[[str], None] | None = None,
    start: Start = None,
    steps: Callable[[SymStep], Any] | None = None,
) -> None:
    """Settle each goal: `found` at its minimal depth (its play and the tested action's parameters), or
    `not-found` up to `depth`, or `unknown` where the solver gave no answer. One session, deepening one step
    at a time; every question below a goal's depth was answered no, so its play is of minimal length.
    `start`: where the plays start (engines/bmc.py `Unrolling`): the initial state by default. `steps`: a
    constraint every step of a play meets besides the rules (the cards an engine can be dealt, say): the
    plays are then the shortest of those, and `not-found` says so of those alone."""
    tell = progress or (lambda text: None)
    t0 = time.perf_counter()
    u = Unrolling(ts, start)
    session = open_session(solver)
    defs = _Defs(ts, u, session, table, steps)
    pending = set(range(len(goals)))

    def found(i: int, d: int, trace: Trace, values: dict[str, Any]) -> None:
        g = goals[i]
        g.status, g.depth, g.seconds = "found", d, time.perf_counter() - t0
        g.steps = [(st.action, st.params, st.state) for st in trace.steps]
        if g.action is not None:
            params, _, _ = defs.at(g.action, d)
            g.params = {name: _signed(values[str(var)], name) for name, var in params.items()}

    def target(i: int, d: int) -> Any:
        return defs.target(goals[i], d)

    try:
        session.add(u.constraints[0])
        for d in range(depth + 1):
            if not pending:
                break
            if d > 0:
                u.extend(d)
                session.add(u.constraints[d])
                if steps is not None:
                    step = u.steps[d]
                    assert step is not None
                    session.add(steps(step))
            tell(f"depth {d} of {depth}: {len(pending)} boards to find ({time.perf_counter() - t0:.0f} s)")
            if not deepen_once(ts, session, u, d, pending, target, found, wanted=defs.wanted, name="board"):
                for i in pending:
                    goals[i].status, goals[i].depth = "unknown", d
                    goals[i].note = f"the solver gave no answer at depth {d}"
                pending.clear()
    finally:
        session.close()
    for i in pending:
        goals[i].status, goals[i].depth = "not-found", depth
        goals[i].seconds = time.perf_counter() - t0


def holds(ts: TransitionSystem, g: Goal, s: State) -> bool:
    """The goal in a concrete state, with the parameters found for its tested action: the predicate, and the
    action legal (a legal board) or refused for its guard alone (an illegal twin: refused by the rules, and
    allowed once that one conjunct is negated, so every other conjunct holds)."""
    if g.pred is not None and not g.pred(s):
        return False
    if g.action is None:
        return True
    out = ts.apply(s, g.action, g.params)
    if g.guard is None:
        return out.ok
    if out.ok:
        return False
    with hooked(MutationHook(GuardMutant(g.action, g.guard.index, negate=True))):
        return ts.apply(s, g.action, g.params).ok


def shortened_board(ts: TransitionSystem, g: Goal, steps: list[Step]) -> list[tuple[str, dict[str, int], State]]:
    """A play to the board of `g` (its parameters set) shortened by delta debugging (engines/shrink.py: each
    candidate replayed by the interpreter, the board tested there by `holds`), as the goal keeps its steps."""
    from duelcheck.engines.shrink import slide

    check = Check("", "state", lambda st: holds(ts, g, st), "sometimes")
    short = slide(ts, check, Trace(steps), max_candidates=DEEP_SHRINK)
    if not holds(ts, g, short.steps[-1].state):
        raise InternalError(f"{g.name}: the shortened play does not reach the board")
    return [(st.action, dict(st.params), st.state) for st in short.steps]


def deep_search(
    ts: TransitionSystem,
    goals: list[Goal],
    table: dict[str, ActionGuards],
    solver: str = "auto",
    progress: Callable[[str], None] | None = None,
    witnesses: Callable[[], dict[str, list[tuple[str, dict[str, int]]]]] | None = None,
) -> None:
    """Beyond the bound: the goals still not found, searched `DEEP_DEPTH` steps on from every state of the
    boards already found (`DEEP_ROUNDS` rounds: each from the boards the round before found; a legal board's
    play goes on with its action), then from the states of all boards and of `DEEP_WALKS` seeded random plays,
    their first 60 steps, then 300 (engines/sim.py's lively players: battles, Flip Summons and discards come
    late), then from the states of each of `duelcheck mutate`'s far walks (seeded random plays to the end of
    the duel: a deck drawn out, a duel won, where the end-of-duel rules decide), last from the states of the
    plays to the suite's witnesses (`witnesses`, made only if a goal is still pending: a replay due, a battle's
    every outcome, the seed's five-link chain, a Flip effect after damage calculation). A board found so is the
    play to that
    state and the search's steps, shortened by delta debugging (each candidate replayed by the interpreter,
    the goal tested concretely by `holds`) and marked not proved shortest. Deterministic: fixed seeds and
    fixed budgets, no clock."""
    from duelcheck.engines.sim import play_states

    done: set[str] = set()
    tell = progress or (lambda text: None)
    searched = 0  # the states searched from, in every round

    def one_round(
        pending: list[Goal], starts: list[State], how: list[tuple[str, list[Step]]], where: str, depth: int = DEEP_DEPTH
    ) -> None:
        """The pending goals searched `depth` steps on from these states; each found is shortened."""
        kept = {id(g): (g.depth, g.note) for g in pending}
        tell(f"beyond the bound: {len(pending)} boards, from {len(starts)} states of {where}, {depth} steps on")
        search(ts, pending, table, depth, solver, progress, start=starts)
        for g in pending:
            if g.status != "found":
                g.status = "not-found"  # (or unknown) the deep search is not a refutation: the bound's verdict
                g.depth, g.note = kept[id(g)]
                continue
            first = g.steps[0][2]
            label, before = next((lab, st) for x, (lab, st) in zip(starts, how, strict=True) if x.v == first.v)
            steps = [*before, *(Step(a, dict(p), st) for a, p, st in g.steps[1:])]
            whole = len(steps) - 1
            g.steps = shortened_board(ts, g, steps)
            g.depth, g.minimal = len(g.steps) - 1, False
            g.note = (
                f"beyond the bound: from step {len(before) - 1} of {label}, {whole} steps in all, shortened to "
                f"{g.depth} by delta debugging; not proved the shortest"
            )

    rounds = [(0, 0)] * DEEP_ROUNDS + [(DEEP_WALKS, length) for length in DEEP_WALK_LENGTHS]
    for r, (walks, length) in enumerate(rounds):
        pending = [g for g in goals if g.status == "not-found"]
        if not pending:
            return
        fresh = {g.name: board_play(g) for g in goals if g.status == "found"}
        if not walks and r and not set(fresh) - done:
            continue  # the last round found nothing new to start from
        # the boards found in the last round are plays of their own: the next round goes on from their states
        plays = {name: play for name, play in fresh.items() if walks or name not in done}
        done |= set(fresh)
        starts, how = play_states(ts, plays, walks, length, DEEP_SEED)
        if starts:
            where = (
                "the boards' plays" if not walks else f"the boards' plays and {walks} seeded random plays of {length}"
            )
            one_round(pending, starts, how, where)
            searched += len(starts)
    # then the states of plays to the end of the duel (engines/mutate.py's far walks: a deck drawn out, a duel
    # won, where the end-of-duel rules decide), each play's in a search of its own, the shortest first
    from duelcheck.engines.mutate import far_walks

    walks_far = far_walks(ts.rules) if any(g.status == "not-found" for g in goals) else {}
    for label in sorted(walks_far, key=lambda x: (len(walks_far[x]), x)):
        pending = [g for g in goals if g.status == "not-found"]
        if not pending:
            return
        starts, how = play_states(ts, {label: walks_far[label]})
        how = [(f"{label} to the end of the duel", steps) for _, steps in how]
        one_round(pending, starts, how, f"{label} to the end of the duel")
        searched += len(starts)
    # last, the states of the plays to the suite's witnesses: deep in a battle, a replay, a long chain
    pending = [g for g in goals if g.status == "not-found"]
    if witnesses is not None and pending:
        starts, how = play_states(ts, witnesses())
        if starts:
            one_round(pending, starts, how, "the plays to the suite's witnesses")
            searched += len(starts)
        # and once more from the boards that round found (a replay's legal board is where a pass must wait)
        fresh = {g.name: board_play(g) for g in goals if g.status == "found" and g.name not in done}
        pending = [g for g in goals if g.status == "not-found"]
        starts, how = play_states(ts, fresh) if fresh and pending else ([], [])
        if starts:
            one_round(pending, starts, how, "the boards' plays")
            searched += len(starts)
    # last, what is still pending: the plays to the end of the duel again, FAR_DEPTH steps on (the end-of-duel
    # twins: a duel won where an action's other guards hold, a few steps after a deck is drawn out)
    far = 0
    for label in sorted(walks_far, key=lambda x: (len(walks_far[x]), x)):
        pending = [g for g in goals if g.status == "not-found"]
        if not pending:
            break
        starts, how = play_states(ts, {label: walks_far[label]})
        how = [(f"{label} to the end of the duel", steps) for _, steps in how]
        one_round(pending, starts, how, f"{label} to the end of the duel", FAR_DEPTH)
        far += len(starts)
    for g in goals:
        if g.status == "not-found" and searched:
            beyond = f"nor {DEEP_DEPTH} steps on from {searched} states of plays"
            beyond += f", nor {FAR_DEPTH} from {far} states of plays to the end of the duel" if far else ""
            g.note = f"{g.note}; {beyond}" if g.note else beyond


def board_play(g: Goal) -> list[tuple[str, dict[str, int]]]:
    """The play to a board found, and for a legal board its action too: the states after it are starts."""
    play = [(a, dict(p)) for a, p, _ in g.steps[1:]]
    return [*play, (g.action, dict(g.params))] if g.kind == "legal" and g.action is not None else play


def witness_plays(rules: Rules, solver: str = "auto", cache: Path | None = None) -> dict[str, Any]:
    """The plays to the suite's witnesses within `WITNESS_DEPTH` steps (bounded model checking with the
    invariants proved for all depths as lemmas, as `duelcheck mutate` prepares them)."""
    from duelcheck.engines.mutate import baseline, prove_lemmas

    _, within, _ = baseline(rules, WITNESS_DEPTH, prove_lemmas(rules, cache), solver)
    return within


def reachable_facts(rules: Rules, s: State, cache: Path | None = None) -> list[Any]:
    """The state checks of every invariant proved for all depths under these rules (from the proof cache when
    there), over the template state `s`: facts of every reachable state."""
    from duelcheck.engines.mutate import lemma_checks, prove_lemmas

    facts = [c.eval(None, None, s) for c in lemma_checks(prove_lemmas(rules, cache))]
    return [f for f in facts if not isinstance(f, bool)]


def classify(
    ts: TransitionSystem,
    goals: list[Goal],
    table: dict[str, ActionGuards],
    solver: str = "auto",
    facts: Callable[[State], list[Any]] | None = None,
) -> None:
    """For each twin not found: `unreachable` when the other conjuncts imply the guard under the well-formed
    facts (unsat of well_formed(s) and the others and not g), or, with `facts` (the invariants proved for all
    depths, over a template state), in every reachable state; `not-expressible` when that holds only with
    parameters the duel-log format writes, else it stays `not-found`."""
    missed = [g for g in goals if g.kind == "illegal" and g.status == "not-found" and g.guard is not None]
    if not missed:
        return
    s = next(iter(table.values())).pre  # the state the guard terms are written over
    session = open_session(solver)
    proved = facts(s) if facts is not None else []
    try:
        session.add(z3.And(*(f for f in well_formed_facts(s) if not isinstance(f, bool)), *proved))
        for g in missed:
            check_interrupt()
            assert g.guard is not None and g.action is not None
            ag = table[g.action]
            i = g.guard.index
            base = [*(t for j, t in enumerate(ag.terms) if j != i), z3.Not(ag.terms[i])]
            base += [PARAMS[name].domain(ag.params[name]) for name in ag.params]
            answer, _ = session.check(z3.And(*base), [])
            if answer == UNSAT:
                g.status, g.note = (
                    "unreachable",
                    (
                        f"implied by the other guards in every reachable state ({len(proved)} facts of the invariants "
                        "proved for all depths)"
                        if proved
                        else "implied by the other guards under the well-formed facts"
                    ),
                )
                continue
            if answer != SAT:
                g.note = "the solver gave no answer whether the other guards imply it"
                continue
            answer, _ = session.check(z3.And(*base, *expressible(ts.rules, g.action, ag.params, s)), [])
            if answer == UNSAT:
                g.status = "not-expressible"
                g.note = "it fails only with parameters the duel-log format cannot write"
    finally:
        session.close()


def twin_check(ts: TransitionSystem, ag: ActionGuards, g: Goal) -> Check:
    """The illegal twin as a witness over any symbolic state: some parameters in their domains with which
    every other conjunct of the action holds and this one fails (engines/mutate.py `twin_check`)."""
    assert g.guard is not None
    return mutate_twin(ts, ag.pre, ag.params, ag.terms, g.guard.index, g.name)


def unreachable_by_induction(
    ts: TransitionSystem, goals: list[Goal], table: dict[str, ActionGuards], cache: Path | None = None
) -> None:
    """Each twin still not found, asked as a witness of its own: `unreachable` when its negation is proved for
    all depths (engines/kind.py `prove_negation`: induction on its own, then with the invariants proved for all
    depths as lemmas, then k-induction for k = 2 and 3). Where the other guards imply the guard only in states
    that a step can reach from no reachable state (a discard with the duel won: the discard needs the End
    Phase reached by a pass, which needs the duel going on), one step of induction shows what the one-state
    question of `classify` cannot. The lemmas are the invariants proved for all depths (read from the proof
    cache when there). Fixed resource limits, no clock: the answer does not depend on timing."""
    from duelcheck.engines.kind import Induction
    from duelcheck.properties import PROPERTIES

    missed = [g for g in goals if g.kind == "illegal" and g.status == "not-found" and g.guard is not None]
    if not missed:
        return
    suite = [p for p in PROPERTIES if p.kind == "always"]
    induction = Induction(ts, cache=cache)
    induction.prove_suite(suite)
    for g in missed:
        check_interrupt()
        assert g.action is not None
        if induction.prove_negation(twin_check(ts, table[g.action], g), suite):
            g.status = "unreachable"
            g.note = "no reachable state has it: its absence is proved for all depths by induction"


def seeded_twins(
    ts: TransitionSystem,
    goals: list[Goal],
    rules: Rules,
    solver: str = "auto",
    progress: Callable[[str], None] | None = None,
    cache: Path | None = None,
) -> None:
    """Last, each twin still missing, asked as `duelcheck mutate` asks a dropped guard's mutant: the rules with
    that conjunct dropped take every step the rules take, and more: the first step they take otherwise is the
    action with that conjunct alone failing, on a board the rules reach: the twin. The seeded search
    (engines/seeded.py, the rules' steps pruned by the invariants proved for all depths) looks for it from the
    start of the duel up to `SEEDED_DEPTH` steps (then its play is the shortest: every shorter one refuted), else
    the wide search from the states of `duelcheck mutate`'s far walks (engines/mutate.py `first_divergence`),
    whose play is shortened by delta debugging, not proved the shortest. Each play is confirmed by the concrete
    interpreter: the rules take its steps, and refuse its last for that conjunct alone (`holds`). Fixed depths
    and seeds, no clock."""
    from dataclasses import replace

    from duelcheck.engines import mutate as mu

    pending = [g for g in goals if g.kind == "illegal" and g.status == "not-found" and g.guard is not None]
    if not pending:
        return
    tell = progress or (lambda text: None)
    lemmas = mu.prove_lemmas(rules, cache)
    walks = mu.far_walks(rules)
    for g in pending:
        check_interrupt()
        assert g.guard is not None and g.action is not None
        t0 = time.perf_counter()
        tell(f"the seeded search for {g.name}: from the start of the duel, then from the plays to its end")

        def confirm(r: Any, g: Goal = g) -> bool:
            """The rules take the play's steps and refuse its last for this conjunct alone (`holds`)."""
            last = r.trace.steps[-1]
            with hooked(None):
                state = ts.init()
                for st in r.trace.steps[1:-1]:
                    out = ts.apply(state, st.action, dict(st.params))
                    if not out.ok or out.state is None:
                        return False
                    state = out.state
                return last.action == g.action and holds(ts, replace(g, params=dict(last.params)), state)

        mutant = mu.Mutant(f"drop:{g.action}:{g.guard.index}", "drop", g.action, g.guard.index, g.guard.reason, False)
        r, why = mu.first_divergence(rules, mutant, lemmas, walks, confirm, SEEDED_DEPTH, solver)
        if r is None:
            beyond = f"nor by the seeded search ({why})"
            g.note = f"{g.note}; {beyond}" if g.note else beyond
            continue
        board = list(r.trace.steps[:-1])
        g.params = dict(r.trace.steps[-1].params)
        if r.minimal:
            g.steps = [(st.action, dict(st.params), st.state) for st in board]
            g.depth, g.minimal = len(board) - 1, True
            g.note = (
                f"the seeded search from the start of the duel, with this conjunct dropped: the shortest play "
                f"({g.depth} steps; every shorter one refuted)"
            )
        else:
            g.steps = shortened_board(ts, g, board)
            g.depth, g.minimal = len(g.steps) - 1, False
            g.note = (
                f"beyond the bound: the wide seeded search with this conjunct dropped, {r.note}; {len(r.trace) - 1} "
                f"steps in all, shortened to {g.depth} by delta debugging; not proved the shortest"
            )
        g.status, g.seconds = "found", time.perf_counter() - t0


# -- boards as duel logs ----------------------------------------------------------------------


def _entry(pre: State, name: str, params: dict[str, int], post: State | None) -> dict[str, Any]:
    """The action as a log entry; a target is written whenever the parameters give one (an illegal twin's
    untargeted effect with a target, a trigger refused before its link exists)."""
    out = log_action(pre, name, params, post)
    if name in ("activate", "trigger") and "target" not in out:
        given = any(params.get(p, 0) for p in ("tplayer", "tarea", "tzone"))
        if name == "trigger" and params.get("pos") and post is None:
            tp = pre.tp
            p = tp if trigger_due(pre, tp) else 1 - tp
            given = given or Effect(pre.g("trig_eff", p)) in TARGETED
        if given:
            out["target"] = _target_out(params)
    return out


def build_log(ts: TransitionSystem, g: Goal) -> dict[str, Any]:
    """The goal's board as a duel log: every observed state, the tested action last, and `expect`."""
    steps = list(g.steps)
    doc = log_of(steps, ts.rules, g.title)
    if g.clause:
        doc["clause"] = g.clause
    pre = steps[-1][2]
    if g.kind == "illegal":
        assert g.action is not None
        doc["actions"].append(_entry(pre, g.action, g.params, None))
        n = len(doc["actions"])
        doc["expect"] = {
            "conforms": False,
            "stops_at": n,
            "clause": broken_clause(g.reason, ACTION_BY_NAME[g.action].clause),
            "reason": g.reason,
        }
    else:
        doc["expect"] = {"conforms": True}
    return doc


def certify(ts: TransitionSystem, g: Goal) -> None:
    """The concrete interpreter's word on the tested action (and the predicate), then the log replayed by
    `duelcheck replay` against its `expect`. A disagreement of the interpreter with the solver is an
    internal error; a log the format cannot hold makes the board `not-expressible`."""
    pre = g.steps[-1][2]
    if g.pred is not None and g.action is None and not g.pred(pre):
        raise InternalError(f"{g.name}: the play's last state does not meet the board's predicate")
    if g.action is not None:
        if g.pred is not None and not g.pred(pre):
            raise InternalError(f"{g.name}: the state before the tested action does not meet the predicate")
        out = ts.apply(pre, g.action, g.params)
        if g.guard is None:
            if not out.ok or out.state is None:
                raise InternalError(f"{g.name}: the interpreter refuses the legal board's action: {out.reason}")
            g.steps.append((g.action, dict(g.params), out.state))
        else:
            want = g.guard.words(pre, g.params)
            if out.ok or out.reason != want:
                raise InternalError(f"{g.name}: the interpreter says {out.reason!r}, the guard {want!r}")
            g.reason = want
    doc = build_log(ts, g)
    try:
        report = replay(json.loads(json.dumps(doc)))
    except InputError as exc:
        g.status, g.note = "not-expressible", f"the duel-log format cannot hold it: {exc}"
        return
    failures = report.expectation_failures()
    if failures:
        g.status, g.note = "not-expressible", f"duelcheck replay reads the log otherwise: {failures[0]}"
        return
    g.doc = doc


# -- a whole run ------------------------------------------------------------------------------


@dataclass
class BoardsRun:
    """What `duelcheck boards` found: the goals with their boards, and the guards they cover."""

    rules: Rules
    depth: int
    goals: list[Goal]
    table: dict[str, ActionGuards]
    seconds: float = 0.0

    def by_kind(self, kind: str) -> list[Goal]:
        """The goals of one kind: legal, illegal, boundary or where."""
        return [g for g in self.goals if g.kind == kind]

    def boards(self) -> list[Goal]:
        """The goals whose board was found, certified and written as a duel log."""
        return [g for g in self.goals if g.doc is not None]

    def summary(self) -> dict[str, int]:
        """How many guards got a twin, and how many are unreachable, not found, not expressible or unknown."""
        twins = self.by_kind("illegal")
        out = {"guards": len(twins), "twins": sum(1 for g in twins if g.doc is not None)}
        for status in ("unreachable", "not-found", "not-expressible", "unknown"):
            out[status] = sum(1 for g in twins if g.status == status)
        legal = self.by_kind("legal")
        out["actions"] = len(legal)
        out["legal_boards"] = sum(1 for g in legal if g.doc is not None)
        extra = self.by_kind("boundary") + self.by_kind("where")
        out["other_boards"] = sum(1 for g in extra if g.doc is not None)
        out["boards"] = len(self.boards())
        return out

    def clauses(self) -> list[dict[str, Any]]:
        """Each clause a guard, an action or a boundary board cites: its boards, or why it has none."""
        cited: dict[str, dict[str, Any]] = {}

        def note(clause: str, g: Goal) -> None:
            row = cited.setdefault(clause, {"clause": clause, "boards": [], "missing": []})
            if g.doc is not None:
                row["boards"].append(g.file)
            else:
                row["missing"].append(f"{g.name}: {describe_status(g, self.depth)}")

        for g in self.goals:
            if g.kind == "illegal" and g.guard is not None:
                clause = broken_clause(g.reason, g.clause) if g.reason else g.guard.clause
                note(clause, g)
            elif g.kind in ("legal", "boundary"):
                note(g.clause, g)
        rows = sorted(cited.values(), key=lambda row: _clause_key(row["clause"]))
        for row in rows:
            row["covered"] = bool(row["boards"])
        return rows

    def to_json(self) -> dict[str, Any]:
        """The coverage report as JSON (coverage.json)."""
        actions = []
        for name, ag in self.table.items():
            legal = next((g for g in self.goals if g.kind == "legal" and g.action == name), None)
            twins = {g.guard.index: g for g in self.goals if g.kind == "illegal" and g.action == name and g.guard}
            actions.append(
                {
                    "action": name,
                    "clause": ag.action.clause,
                    "legal": _goal_json(legal, self.depth) if legal else None,
                    "guards": [
                        {
                            "index": gd.index,
                            "reason": gd.reason,
                            "slug": gd.slug,
                            "clause": gd.clause,
                            "illegal": _goal_json(twins[gd.index], self.depth),
                        }
                        for gd in ag.tested
                        if gd.index in twins
                    ],
                    "skipped": [gd.reason for gd in ag.guards if not gd.tested],
                }
            )
        return {
            "command": "duelcheck boards",  # a report, not a duel log: `pytest --duel-logs` passes it by
            "rules": self.rules.changed(),
            "depth": self.depth,
            "seconds": round(self.seconds, 1),
            "summary": self.summary(),
            "actions": actions,
            "boundaries": [_goal_json(g, self.depth) for g in self.by_kind("boundary")],
            "where": [_goal_json(g, self.depth) for g in self.by_kind("where")],
            "clauses": self.clauses(),
            "boards": [g.file for g in self.boards()],
        }

    def text(self) -> str:
        """The coverage report as text (coverage.txt, and what the command prints)."""
        s = self.summary()
        lines = [
            f"duelcheck boards   depth {self.depth}   {s['boards']} boards   {self.seconds:.1f} s",
            "",
        ]
        for name, ag in self.table.items():
            legal = next((g for g in self.goals if g.kind == "legal" and g.action == name), None)
            if legal is not None:
                lines.append(f"{name} [{ag.action.clause}]   legal board: {describe_status(legal, self.depth)}")
            for g in self.goals:
                if g.kind == "illegal" and g.action == name and g.guard is not None:
                    lines.append(f"  {g.guard.reason}")
                    lines.append(f"      illegal twin: {describe_status(g, self.depth)}")
        for kind, head in (("boundary", "boundary boards"), ("where", "--where boards")):
            rows = self.by_kind(kind)
            if rows:
                lines += ["", head + ":"]
                for g in rows:
                    what = g.name if kind == "boundary" else g.title.removeprefix("a board where ")
                    lines.append(f"  {what}: {describe_status(g, self.depth)}")
        clauses = self.clauses()
        if clauses:
            lines += ["", "clauses:"]
            for row in clauses:
                if row["covered"]:
                    lines.append(f"  {row['clause']}: {len(row['boards'])} board(s)")
                else:
                    lines.append(f"  {row['clause']}: no board ({'; '.join(row['missing'][:3])})")
        if self.table:
            lines += [
                "",
                f"guards: {s['guards']}: twins {s['twins']}, unreachable {s['unreachable']}, "
                f"not found {s['not-found']}, not expressible {s['not-expressible']}, unknown {s['unknown']}; "
                f"legal boards {s['legal_boards']} of {s['actions']} actions; other boards {s['other_boards']}",
            ]
        return "\n".join(line for i, line in enumerate(lines) if line or (i and lines[i - 1])) + "\n"


def _clause_key(clause: str) -> tuple[Any, ...]:
    """Clauses in the rulebook's order (6.3.4.2 before 6.3.10), then seed 000 and model bounds."""
    nums = re.findall(r"\d+", clause)
    return (not clause[0].isdigit(), [int(n) for n in nums], clause)


def describe_status(g: Goal, depth: int) -> str:
    """What became of a goal, in the report's words."""
    if g.doc is not None:
        more = "" if g.minimal else ", beyond the bound, not proved the shortest"
        return f"{g.file} ({g.depth} step{'s' if g.depth != 1 else ''} to the board{more})"
    if g.status == "not-found":
        return f"not found up to {depth}" + (f" ({g.note})" if g.note else "")
    if g.status == "unreachable":
        return f"unreachable, proved ({g.note})"
    if g.status == "not-expressible":
        return f"not expressible in the duel-log format ({g.note})"
    return f"unknown ({g.note})"


def _goal_json(g: Goal, depth: int) -> dict[str, Any]:
    """One goal's row of coverage.json."""
    return {
        "name": g.name,
        "status": "found" if g.doc is not None else g.status,
        "file": g.file if g.doc is not None else None,
        "depth": g.depth,
        "bound": depth,
        "clause": g.clause,
        "title": g.title,
        "reason": g.reason,
        "note": g.note or None,
        "seconds": round(g.seconds, 2),
        "minimal": g.minimal,
    }


def guard_goals(table: dict[str, ActionGuards]) -> list[Goal]:
    """A legal board per action and an illegal twin per tested guard."""
    goals = []
    for name, ag in table.items():
        clause = ag.action.clause
        goals.append(
            Goal(f"{name}.legal", "legal", f"{name} is legal: every guard holds ({len(ag.guards)})", clause, name)
        )
        for gd in ag.tested:
            title = f"{name} is illegal, and only because: {gd.reason}"
            goals.append(Goal(f"{name}.{gd.slug}.illegal", "illegal", title, gd.clause, name, gd))
    return goals


def where_goal(expr: str, rules: Rules) -> Goal:
    """The goal of a --where constraint (parsed now: a malformed one stops the run before any search)."""
    pred = parse_where(expr, rules)
    digest = hashlib.sha1(expr.encode()).hexdigest()[:6]
    name = f"where.{slugify(expr, 40)}-{digest}"
    return Goal(name, "where", f"a board where {expr}", "", pred=pred)


def run(
    rules: Rules,
    depth: int = 12,
    actions: list[str] | None = None,
    boundaries: bool = True,
    wheres: tuple[str, ...] = (),
    guards: bool = True,
    solver: str = "auto",
    progress: Callable[[str], None] | None = None,
    deep: bool = True,
    prove: bool = True,
    cache: Path | None = None,
) -> BoardsRun:
    """Find the boards: every guard's legal board and illegal twin (of the given actions, default all),
    the boundary boards, and a board for each --where constraint; certify and write each as a duel log.
    What the bound misses is searched beyond it (`deep_search`); a twin still missing is `unreachable` when
    the other guards imply its guard under the invariants proved for all depths (`prove`; the proofs read
    from and written to `cache`)."""
    t0 = time.perf_counter()
    if actions is not None:
        unknown = [a for a in actions if a not in ACTION_BY_NAME]
        if unknown:
            raise InputError(f"--action: unknown action {unknown[0]!r} (actions: {', '.join(ACTION_BY_NAME)})")
    ts = TransitionSystem(rules)
    goals = [where_goal(expr, rules) for expr in wheres]  # parse errors before any work
    tested = [a.name for a in ACTIONS if guards and a.parts is None and (actions is None or a.name in actions)]
    needed = set(tested)
    if boundaries:
        goals += [Goal(f"boundary.{b.name}", "boundary", b.doc, b.clause, b.action, pred=b.pred) for b in BOUNDARIES]
        needed |= {b.action for b in BOUNDARIES if b.action is not None}
    table = {ag.action.name: ag for ag in collect_guards(ts, sorted(needed))} if needed else {}
    goals = guard_goals({n: table[n] for n in tested}) + goals
    search(ts, goals, table, depth, solver, progress)
    classify(ts, goals, table, solver)
    if deep:
        witnesses = (lambda: witness_plays(rules, solver, cache)) if prove else None
        deep_search(ts, goals, table, solver, progress, witnesses)
    if prove and any(g.kind == "illegal" and g.status == "not-found" for g in goals):
        classify(ts, goals, table, solver, lambda s: reachable_facts(rules, s, cache))
        unreachable_by_induction(ts, goals, table, cache)
    if prove and deep:
        seeded_twins(ts, goals, rules, solver, progress, cache)
    for g in goals:
        if g.status == "found":
            certify(ts, g)
    return BoardsRun(rules, depth, goals, {n: table[n] for n in tested}, time.perf_counter() - t0)


# -- writing ----------------------------------------------------------------------------------


def write(result: BoardsRun, out: Path, fmt: str = "logs") -> list[Path]:
    """One file per board, the coverage report (coverage.json, coverage.txt), and with `pytest` the test
    module test_boards.py; every file written atomically."""
    from duelcheck.counterexamples.itf import write_atomic

    written = []
    try:
        for g in result.boards():
            path = out / g.file
            write_atomic(path, json.dumps(g.doc, indent=1, ensure_ascii=False) + "\n")
            written.append(path)
        write_atomic(out / "coverage.json", json.dumps(result.to_json(), indent=1, ensure_ascii=False) + "\n")
        write_atomic(out / "coverage.txt", result.text())
        written += [out / "coverage.json", out / "coverage.txt"]
        if fmt == "pytest":
            write_atomic(out / "test_boards.py", PYTEST_MODULE)
            written.append(out / "test_boards.py")
    except OSError as exc:
        raise InputError(f"--out {out}: cannot write ({exc.strerror or exc})") from None
    return written


PYTEST_MODULE = '''\
"""Edge-case boards written by `duelcheck boards`: each board is a duel log (the JSON files beside this
module, listed in coverage.json) replayed against a game engine through an adapter.

The adapter is a class, named by the environment variable DUELCHECK_ADAPTER as `module:Class` (default:
duelcheck's own interpreter, `duelcheck.adapter:ReferenceAdapter`), with this protocol:

    Adapter(rules: dict)            the log's `rules`: the parameters that differ from the official rules
    reset(board: dict[, log: dict]) -> None
                                    start from the log's `board` (the duel-log format's words); an adapter
                                    whose reset takes a second argument gets the whole log too (to stack
                                    its decks); NotImplementedError: a board it cannot start from (skipped)
    apply(action: dict) -> dict | str
                                    take one action (a log entry without `observed` and `note`): the state
                                    after it in the duel-log format's words, or the reason it is refused

A legal action must be taken, and every field the engine returns must equal the board's `observed`
state (fields the engine leaves out are not compared). The action a board expects to be illegal must be
refused; if the adapter has `exact_reasons = True`, with exactly the reason the board gives.

Run: pytest DIR    or    DUELCHECK_ADAPTER=my_engine.adapter:Adapter pytest DIR
     or    DUELCHECK_ADAPTER='exec:COMMAND ARGS' pytest DIR   (an engine in another process, JSON lines:
           docs/engines.md; `python -m duelcheck.adapters.serve ygopro` is ygopro-core)
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
BOARDS = json.loads((HERE / "coverage.json").read_text(encoding="utf-8"))["boards"]
ADAPTER = os.environ.get("DUELCHECK_ADAPTER", "duelcheck.adapter:ReferenceAdapter")


class ExecEngine:
    """An engine in another process speaking the JSON-lines protocol (docs/engines.md): one request a line
    on its standard input, one answer a line on its standard output."""

    def __init__(self, rules: dict[str, Any]) -> None:
        import shlex
        import subprocess

        argv = shlex.split(ADAPTER.removeprefix("exec:"))
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        hello = self.ask({"op": "hello", "rules": rules})
        if "unsupported" in hello:
            raise NotImplementedError(hello["unsupported"])
        assert hello.get("protocol") == "duelcheck-engine/1", f"not a duelcheck engine: {hello}"

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"the engine ended (exit status {self.proc.poll()})"
        answer: dict[str, Any] = json.loads(line)
        assert "error" not in answer, f"the engine failed: {answer['error']}"
        return answer

    def reset(self, board: dict[str, Any], log: dict[str, Any] | None = None) -> None:
        answer = self.ask({"op": "reset", "board": board, "log": log})
        if "unsupported" in answer:
            raise NotImplementedError(answer["unsupported"])

    def apply(self, action: dict[str, Any]) -> dict[str, Any] | str:
        answer = self.ask({"op": "apply", "action": action})
        return answer["refused"] if "refused" in answer else answer["observed"]


def adapter_class() -> Any:
    if ADAPTER.startswith("exec:"):  # an engine in another process, speaking JSON lines
        return ExecEngine
    module, _, name = ADAPTER.partition(":")
    return getattr(importlib.import_module(module), name or "Adapter")


ENGINE: dict[str, Any] = {}  # one engine per rule set for the whole module (a process, for exec:)


def engine_for(rules: dict[str, Any]) -> Any:
    key = json.dumps(rules, sort_keys=True)
    if key not in ENGINE:
        try:
            ENGINE[key] = adapter_class()(rules)
        except NotImplementedError as exc:  # the engine cannot play under these rules
            ENGINE[key] = exc
    got = ENGINE[key]
    if isinstance(got, NotImplementedError):
        pytest.skip(f"the engine cannot play under these rules: {got}")
    return got


def differences(expected: Any, got: Any, path: str = "") -> list[str]:
    """Where the engine's state differs from the board's, over the fields the engine returns."""
    if isinstance(expected, dict) and isinstance(got, dict):
        out = []
        for key, value in got.items():
            if key in expected:
                out += differences(expected[key], value, f"{path}.{key}" if path else key)
        return out
    if isinstance(expected, list) and isinstance(got, list):
        if len(expected) != len(got):
            return [f"{path}: {len(expected)} entries expected, the engine gives {len(got)}"]
        return [d for i, (e, g) in enumerate(zip(expected, got)) for d in differences(e, g, f"{path}[{i}]")]
    return [] if expected == got else [f"{path}: expected {expected!r}, the engine gives {got!r}"]


def _takes_log(engine: Any) -> bool:
    """Whether the adapter's reset takes the whole log as well (to stack its decks for the play)."""
    import inspect

    try:
        return len(inspect.signature(engine.reset).parameters) >= 2
    except (TypeError, ValueError):
        return False


@pytest.mark.parametrize("name", BOARDS, ids=[b.removesuffix(".json") for b in BOARDS])
def test_board(name: str) -> None:
    doc = json.loads((HERE / name).read_text(encoding="utf-8"))
    engine = engine_for(dict(doc.get("rules") or {}))
    try:
        if _takes_log(engine):
            engine.reset(doc["board"], doc)
        else:
            engine.reset(doc["board"])
    except NotImplementedError as exc:  # a board the engine cannot start from: shown as skipped, with why
        pytest.skip(f"the engine cannot start from this board: {exc}")
    expect = doc["expect"]
    for i, entry in enumerate(doc["actions"], 1):
        action = {k: v for k, v in entry.items() if k not in ("observed", "note")}
        got = engine.apply(action)
        if not expect["conforms"] and i == expect["stops_at"]:
            assert isinstance(got, str), f"action {i} {action} must be refused ({expect['reason']}); it was taken"
            if getattr(engine, "exact_reasons", False):
                assert got == expect["reason"], f"action {i}: refused with {got!r}, expected {expect['reason']!r}"
            return
        assert not isinstance(got, str), f"action {i} {action} is legal; the engine refused it: {got}"
        diffs = differences(entry.get("observed", {}), got)
        assert not diffs, f"action {i} {action}: " + "; ".join(diffs[:5])
    assert expect["conforms"], "the board ends before its illegal action"
'''
