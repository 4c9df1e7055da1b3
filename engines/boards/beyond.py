"""The search beyond the bound: from the states of the boards' own plays, of the suite's witnesses and of seeded random
plays, for the boards the bound missed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from duelcheck.engines.boards.bounded import Goal, board_play, search, shortened_board
from duelcheck.engines.boards.guards import ActionGuards
from duelcheck.engines.boards.settings import (
    DEEP_DEPTH,
    DEEP_ROUNDS,
    DEEP_SEED,
    DEEP_WALK_LENGTHS,
    DEEP_WALKS,
    FAR_DEPTH,
    WITNESS_DEPTH,
)
from duelcheck.model.state import State
from duelcheck.model.system import Step, TransitionSystem
from duelcheck.rules import Rules


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
