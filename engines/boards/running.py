"""A whole boards run: the goals (legal boards, illegal twins, boundaries, --where), the searches in order, the report
and its JSON.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from duelcheck.conformance import broken_clause
from duelcheck.engines.boards.beyond import deep_search, reachable_facts, witness_plays
from duelcheck.engines.boards.boundaries import BOUNDARIES
from duelcheck.engines.boards.bounded import Goal, search
from duelcheck.engines.boards.guards import ActionGuards, collect_guards
from duelcheck.engines.boards.logs import certify
from duelcheck.engines.boards.twins import classify, seeded_twins, unreachable_by_induction
from duelcheck.engines.boards.where import parse_where
from duelcheck.errors import InputError
from duelcheck.model.changes import slugify
from duelcheck.model.rules import ACTION_BY_NAME, ACTIONS
from duelcheck.model.system import TransitionSystem
from duelcheck.rules import Rules


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
