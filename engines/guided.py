"""Solver-guided plays: plays aimed at the situations random plays rarely reach, for `duelcheck difftest`.

A random play from the start of the duel seldom reaches a replay, a full chain or a Damage Step timing with
something to activate. Here the solver is asked for the shortest play to each *aim* (a state, or an action
legal in a state), among the plays whose cards an engine can be dealt (`steps`, a constraint on every step:
duelcheck/adapters/cards.py `dealable`); the play found is certified by the concrete interpreter, as the
boards are (engines/boards.py). The aims are:

- the legal board of every action: a play to a state where the action is legal, then the action;
- the boundary boards (engines/boards.py `BOUNDARIES`: equal ATK, 0 ATK, LP exactly 0, the hand limit, full
  Monster Zones, the longest chain);
- `AIMS` below, in the `--where` language of `duelcheck boards` (docs/boards.md): each Damage Step timing
  (6.3.4.3.x), a replay due (6.3.4.2.1), an activation whose cost was paid in LP or by a discard, a drawn-out
  deck;
- or, instead of all these, a researcher's own (`duelcheck difftest --aim EXPR`).

The search is bounded in steps (`depth`) and resource-limited like every search here, never timed: the same
rules give the same plays. An aim the bound cannot reach is reported `not-found` up to the bound, never
dropped silently, and one the solver left open `unknown`.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duelcheck.engines.bmc import replay_moves
from duelcheck.engines.boards import (
    BOUNDARIES,
    Goal,
    board_play,
    certify,
    collect_guards,
    search,
    where_goal,
)
from duelcheck.engines.cache import ProofCache
from duelcheck.model.rules import ACTIONS
from duelcheck.model.system import NoHistory, SymStep, TransitionSystem
from duelcheck.rules import Rules

DEPTH = 14  # steps of the longest play asked for (a turn and a half from the start of the duel)

# (name, clause, the state aimed at in the --where language)
AIMS: tuple[tuple[str, str, str], ...] = (
    ("damage-step-start", "6.3.4.3.1", "phase == damage_start"),
    ("damage-step-before-calculation", "6.3.4.3.2", "phase == damage_before_calculation"),
    ("damage-step-calculation", "6.3.4.3.3", "phase == damage_calculation"),
    ("damage-step-after-calculation", "6.3.4.3.4", "phase == damage_after_calculation"),
    ("damage-step-end", "6.3.4.3.5", "phase == damage_end"),
    ("replay", "6.3.4.2.1", "attack.replay_due"),
    ("cost-pay-lp", "seed 000 (chain example: costs)", "chain[0].cost == pay_lp"),
    ("cost-discard", "seed 000 (chain example: costs)", "chain[0].cost == discard"),
    ("chain-of-two", "seed 000 (chains)", "chain_length == 2"),
    ("deck-drawn-out", "6.3.1", "players[0].deck == 0 or players[1].deck == 0"),
)


@dataclass
class Aim:
    """One situation a guided play is aimed at, and the play the solver found to it."""

    name: str
    clause: str
    what: str
    status: str = "not-found"  # found, not-found (up to the bound), unknown (the solver left it open)
    moves: list[tuple[str, dict[str, int]]] = field(default_factory=list)  # the model's steps from the start
    states: list[dict[Any, Any]] = field(default_factory=list)  # the game state after each step (the first: init)
    log: dict[str, Any] | None = None  # the play as a duel log (`duelcheck replay` reads it)

    def to_json(self) -> dict[str, Any]:
        return {"aim": self.name, "clause": self.clause, "what": self.what, "status": self.status}


def goals(rules: Rules, wheres: tuple[str, ...] = ()) -> tuple[list[Goal], list[str]]:
    """The aims as the boards' goals, and the actions whose guards they need: the user's `wheres` when given
    (as `duelcheck boards --where` finds those boards alone), else the legal boards of every action, the
    boundary boards and `AIMS`."""
    out: list[Goal] = []
    if not wheres:
        out += [Goal(f"legal.{g.action}", "legal", g.title, g.clause, g.action) for g in _legal()]
        out += [Goal(f"boundary.{b.name}", "boundary", b.doc, b.clause, b.action, pred=b.pred) for b in BOUNDARIES]
        for name, clause, expr in AIMS:
            g = where_goal(expr, rules)
            out.append(Goal(name, "where", expr, clause, pred=g.pred))
    for expr in wheres:
        g = where_goal(expr, rules)
        out.append(Goal(f"aim.{g.name.removeprefix('where.')}", "where", expr, "--aim", pred=g.pred))
    needed = sorted({g.action for g in out if g.action is not None})
    return out, needed


def _legal() -> list[Goal]:
    """The legal board of every action a player takes (not the rules' own composite steps)."""
    return [Goal(a.name, "legal", f"{a.name} is legal", a.clause, a.name) for a in ACTIONS if a.parts is None]


def find(
    rules: Rules,
    steps: Callable[[TransitionSystem, SymStep], Any] | None = None,
    wheres: tuple[str, ...] = (),
    depth: int = DEPTH,
    solver: str = "auto",
    progress: Callable[[str], None] | None = None,
    cache: Path | None = None,
) -> list[Aim]:
    """The aims, each with the shortest play to it (within `depth` steps, each step meeting `steps`), certified
    by the interpreter and written as a duel log; in the order of `goals`. With `cache`, the solver's plays
    are kept there (keyed by the model's and this search's sources, the rules, the aims and the bound) and
    certified again when read."""
    todo, needed = goals(rules, wheres)
    store, key = _store(cache, rules, todo, depth, steps)
    got = store.get(key) if store is not None else None
    if got is not None:
        found = {a["name"]: (a["status"], [(m, dict(p)) for m, p in a["moves"]]) for a in got["aims"]}
    else:
        ts = TransitionSystem(rules, NoHistory())  # the aims read the game alone
        table = {ag.action.name: ag for ag in collect_guards(ts, needed)} if needed else {}
        search(ts, todo, table, depth, solver, progress, steps=(lambda st: steps(ts, st)) if steps else None)
        found = {g.name: (g.status, board_play(g) if g.status == "found" else []) for g in todo}
        if store is not None and all(status != "unknown" for status, _ in found.values()):
            aims = [{"name": n, "status": st, "moves": [[m, p] for m, p in mv]} for n, (st, mv) in found.items()]
            store.put(key, {"aims": aims})
    full = TransitionSystem(rules)  # a log is written, and certified, from states with the history
    game = full.game_keys  # the cells the difftest side compares (its system keeps no history)
    out = []
    for g in todo:
        status, moves = found[g.name]
        aim = Aim(g.name, g.clause, g.title, status)
        if status == "found":  # the play (a legal board's action last) replayed and certified as a board
            trace = replay_moves(full, None, moves)
            play = [(st.action, dict(st.params), st.state) for st in trace.steps]
            board = Goal(g.name, "where", g.title, g.clause, pred=None if g.action else g.pred, steps=play)
            certify(full, board)
            if board.doc is None:  # the duel-log format cannot write this play: no engine can be given it
                aim.status = "not-expressible"
            else:
                aim.log = board.doc
                aim.moves = moves
                aim.states = [{k: st.v[k] for k in game} for _, _, st in play]
        out.append(aim)
    return out


def _store(cache: Path | None, rules: Rules, todo: list[Goal], depth: int, steps: Any) -> tuple[ProofCache | None, str]:
    if cache is None:
        return None, ""
    import inspect

    store = ProofCache(cache, "aims", "aims")
    h = hashlib.sha256(store.key(rules, []).encode())
    # the search, its goals and its certification are the boards' (every module of engines/boards), the
    # step constraint the caller's (its whole module: the constraint may call helpers there): a change to any
    # of them is a new key
    boards = sorted(name for name in sys.modules if name.startswith("duelcheck.engines.boards."))
    constraint = (inspect.getmodule(steps) or steps) if steps is not None else None
    for source in (sys.modules[__name__], *(sys.modules[name] for name in boards), constraint):
        if source is not None:
            h.update(inspect.getsource(source).encode())
    h.update(json.dumps([g.name for g in todo] + [g.title for g in todo] + [depth]).encode())
    return store, h.hexdigest()[:32]
