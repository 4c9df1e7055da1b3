"""`duelcheck boards`: guard collection, legal boards and illegal twins replayed by `duelcheck replay`, the
generated pytest module against the reference adapter and broken ones, and the --where language."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import z3
from click.testing import CliRunner
from conftest import REPLAY_DIRECT, played_until

from duelcheck.cli import main
from duelcheck.engines.boards import (
    certify,
    classify,
    collect_guards,
    guard_goals,
    parse_where,
    run,
    search,
    slugify,
    unreachable_by_induction,
    write,
)
from duelcheck.errors import InputError
from duelcheck.model.system import TransitionSystem
from duelcheck.rules import Rules

DOCS = Path(__file__).resolve().parent.parent / "docs" / "boards.md"
DRAW_ONE = "6.3.1: the turn player draws only one card in the Draw Phase"
WAITING_BEFORE_DRAW = (
    "6.3.1: a triggered effect waiting before the draw is activated, or declined, before the draw is made"
)


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


# -- guards -----------------------------------------------------------------------------------


def test_guards_are_collected_with_their_reasons() -> None:
    ts = TransitionSystem(Rules())
    table = {ag.action.name: ag for ag in collect_guards(ts, ["normal_draw", "normal_summon", "end_step"])}
    assert list(table) == ["normal_draw", "end_step", "normal_summon"]  # in the order of model/rules.py
    draw = table["normal_draw"]
    assert [g.reason for g in draw.guards] == [
        "duel_over",  # words that depend on the state: the function that says them
        "6.3.1: the normal draw is made in the Draw Phase",
        DRAW_ONE,
        "6.3.1: the player who goes first does not draw on turn 1",
        "6.3.1: the chain before the draw resolves first",
        WAITING_BEFORE_DRAW,
    ]
    assert callable(draw.guards[0].said) and all(g.tested for g in draw.guards)
    assert len(draw.terms) == 6
    summon = table["normal_summon"]
    skipped = [g.reason for g in summon.guards if not g.tested]
    assert len(skipped) == 2 and all(r.startswith(("model range", "model catalogue")) for r in skipped)
    assert "the turn player has no card in hand" in [g.reason for g in summon.tested]
    assert summon.guards[-1].reason == "the player has no free Monster Zone"
    # end_step runs two passes: their conjuncts are collected too (its terms are whole), with distinct slugs,
    # but they are `pass`'s guards, whose twins are `pass`'s: end_step tests none (its own two are shortcuts)
    step = table["end_step"]
    assert len(step.guards) > 30
    slugs = [g.slug for g in step.guards]
    assert len(set(slugs)) == len(slugs)
    assert "duel-over" in slugs and "duel-over-2" in slugs
    assert step.tested == [] and all(g.reason.startswith("model shortcut") for g in step.guards[:2])
    assert slugify("6.3.4.2: the monster in zone {zone} has already declared an attack this turn") == (
        "the-monster-in-zone-has-already-declared-an-attack-this"
    )


# -- a run on one action ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def draw_boards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("boards")
    result = cli(
        "boards", "--action", "normal_draw", "--depth", "5", "--out", str(out), "--format", "pytest", "--bound-only"
    )
    assert result.exit_code == 0, result.output
    assert "written to" in result.output
    return out


def test_coverage_of_normal_draw(draw_boards: Path) -> None:
    cov = json.loads((draw_boards / "coverage.json").read_text())
    assert cov["depth"] == 5
    (action,) = cov["actions"]
    assert action["action"] == "normal_draw"
    assert action["legal"]["status"] == "found" and action["legal"]["depth"] == 2  # turn 2's Draw Phase
    by_reason = {g["reason"]: g["illegal"] for g in action["guards"]}
    assert by_reason["6.3.1: the player who goes first does not draw on turn 1"]["depth"] == 0
    assert by_reason[DRAW_ONE]["status"] == "found" and by_reason[DRAW_ONE]["depth"] == 3
    # outside the Draw Phase the draw was always made, and before it the duel goes on (well-formed facts): no
    # twin can exist
    assert by_reason["6.3.1: the normal draw is made in the Draw Phase"]["status"] == "unreachable"
    assert by_reason["duel_over"]["status"] == "unreachable"
    # under the official rules only a negation is chained before the draw: nothing it triggers can wait there
    assert by_reason[WAITING_BEFORE_DRAW]["status"] == "unreachable"
    assert cov["summary"]["twins"] == 2 and cov["summary"]["unreachable"] == 3
    clauses = {row["clause"]: row for row in cov["clauses"]}
    assert clauses["6.3.1"]["covered"]
    text = (draw_boards / "coverage.txt").read_text()
    assert "unreachable, proved (implied by the other guards under the well-formed facts)" in text
    assert sorted(cov["boards"]) == sorted(p.name for p in draw_boards.glob("normal_draw.*.json"))


def test_legal_board_and_illegal_twin_replay(draw_boards: Path) -> None:
    legal = draw_boards / "normal_draw.legal.json"
    twin = draw_boards / "normal_draw.the-turn-player-draws-only-one-card-in-the-draw-phase.illegal.json"
    doc = json.loads(twin.read_text())
    assert doc["actions"][-1]["action"] == "normal_draw"
    assert doc["expect"] == {"conforms": False, "stops_at": 6, "clause": "6.3.1", "reason": DRAW_ONE}
    assert all("observed" in a for a in doc["actions"][:-1])  # every state the play goes through
    assert json.loads(legal.read_text())["actions"][-1]["action"] == "normal_draw"

    ok = cli("replay", str(legal))
    assert ok.exit_code == 0, ok.output
    assert "conforms" in ok.output and "expected outcome: matched" in ok.output
    bad = cli("replay", str(twin))
    assert bad.exit_code == 1, bad.output
    assert f"ILLEGAL: {DRAW_ONE}" in bad.output and "expected outcome: matched" in bad.output

    # the twin differs from a legal play only in its last step: the same play without it conforms
    doc["actions"].pop()
    doc["expect"] = {"conforms": True}
    shorter = draw_boards.parent / "twin-without-last-step.json"
    shorter.write_text(json.dumps(doc))
    assert cli("replay", str(shorter)).exit_code == 0


BROKEN = '''
from duelcheck.adapter import ReferenceAdapter
from duelcheck.log import describe


class TakesEverything(ReferenceAdapter):
    """Never refuses: an illegal action leaves the state as it was."""

    def apply(self, action):
        got = super().apply(action)
        return describe(self.state) if isinstance(got, str) else got


class MiscountsTheHand(ReferenceAdapter):
    """Shows one card too many in the turn player's hand after a draw."""

    def apply(self, action):
        got = super().apply(action)
        if isinstance(got, dict) and action["action"] == "normal_draw":
            got["players"][got["turn_player"]]["hand"] += 1
        return got
'''


def _pytest(folder: Path, adapter: str | None, extra_path: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("DUELCHECK_ADAPTER", None)
    if adapter:
        env["DUELCHECK_ADAPTER"] = adapter
    if extra_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(extra_path), env.get("PYTHONPATH", "")) if p)
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(folder)]
    return subprocess.run(
        [*args, str(folder / "test_boards.py")], capture_output=True, text=True, cwd=folder, env=env, timeout=120
    )


def test_generated_module_passes_on_the_reference_and_fails_on_broken_engines(
    draw_boards: Path, tmp_path: Path
) -> None:
    module = (draw_boards / "test_boards.py").read_text()
    assert "import duelcheck" not in module and "from duelcheck" not in module  # self-contained
    good = _pytest(draw_boards, None)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "3 passed" in good.stdout
    (tmp_path / "broken_engines.py").write_text(BROKEN)
    takes = _pytest(draw_boards, "broken_engines:TakesEverything", tmp_path)
    assert takes.returncode == 1, takes.stdout
    assert "2 failed, 1 passed" in takes.stdout and "must be refused" in takes.stdout
    miscounts = _pytest(draw_boards, "broken_engines:MiscountsTheHand", tmp_path)
    assert miscounts.returncode == 1, miscounts.stdout
    assert "hand: expected" in miscounts.stdout


def test_the_duel_logs_plugin_replays_the_boards_and_passes_by_the_coverage_report(
    draw_boards: Path, tmp_path: Path
) -> None:
    """`pytest --duel-logs` on a boards folder: every board is an item and passes; coverage.json, a report,
    is not collected (it is no duel log); a malformed log beside them still fails."""
    assert json.loads((draw_boards / "coverage.json").read_text())["command"] == "duelcheck boards"
    boards = sorted(p.name for p in draw_boards.glob("normal_draw.*.json"))
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--duel-logs", str(draw_boards)]
    run = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{len(boards)} passed" in run.stdout and "coverage.json" not in run.stdout
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in (*boards, "coverage.json"):
        (logs / name).write_text((draw_boards / name).read_text())
    (logs / "broken.json").write_text('{"command": "duelcheck boards", "format": "duel-log"}')
    run = subprocess.run([*args[:-1], str(logs), "-rf"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stdout
    assert f"1 failed, {len(boards)} passed" in run.stdout
    assert "FAILED logs::broken.json" in run.stdout and "coverage.json" not in run.stdout


def test_boards_input_errors(tmp_path: Path) -> None:
    result = cli("boards", "--action", "no_such_action", "--depth", "1")
    assert result.exit_code == 2 and "unknown action 'no_such_action'" in result.output
    result = cli("boards", "--format", "pytest", "--action", "normal_draw")
    assert result.exit_code == 2 and "--out" in result.output


# -- the --where language ---------------------------------------------------------------------


def _documented(kind: str) -> list[tuple[str, ...]]:
    """The rows of docs/boards.md's table of found (`ok`) or refused (`bad`) constraints."""
    text = DOCS.read_text()
    block = text.split(f"<!-- where-{kind} -->")[1].split("<!-- /where -->")[0]
    rows = []
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].startswith("`"):
            rows.append(tuple(c.strip("`") for c in cells))
    return rows


def test_documented_examples_are_found() -> None:
    rows = _documented("ok")
    assert len(rows) == 5
    cheap = [(expr, int(depth)) for expr, depth, *_ in rows if int(depth) <= 6]
    assert len(cheap) >= 3
    result = run(Rules(), depth=6, boundaries=False, guards=False, wheres=tuple(e for e, _ in cheap))
    for (expr, depth), g in zip(cheap, result.by_kind("where"), strict=True):
        assert g.doc is not None, f"{expr}: {g.status} {g.note}"
        assert g.depth == depth, expr
        assert g.doc["expect"] == {"conforms": True}
        last = g.steps[-1][2]
        assert parse_where(expr, Rules())(last) is True


def test_documented_malformed_constraints_are_refused_with_the_column() -> None:
    rows = _documented("bad")
    assert len(rows) == 3
    for expr, column, *_ in rows:
        with pytest.raises(InputError) as err:
            parse_where(expr, Rules())
        assert str(err.value).startswith(f"--where: column {column}: "), (expr, str(err.value))
        result = cli("boards", "--where", expr)
        assert result.exit_code == 2
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and f"column {column}:" in lines[0]


def test_where_reads_the_log_format_units() -> None:
    ts = TransitionSystem(Rules())
    s = ts.init()

    def holds(expr: str) -> bool:
        value = parse_where(expr, ts.rules)(s)
        assert isinstance(value, bool)
        return value

    assert holds("players[0].lp == 8000 and players[1].hand == 5 and phase == draw and turn == 1")
    assert not holds("players[0].lp == 8050")  # LP are multiples of 100
    assert holds("players[0].lp > 7999 and players[0].lp < 8001 and players[0].lp >= 8000")
    assert holds("not attacking and (winner == none or turn > 3) and priority == 0")
    assert holds("players[0].monsters[4].empty and players[1].spells_traps[0].empty and chain_length == 0")
    assert holds("players[0].lp == players[1].lp and players[0].lp <= 100000")
    assert not holds("players[0].lp < -100000")
    for bad, col in (("players[2].lp > 0", 1), ("players[0].monsters[5].atk > 0", 1), ("phase < main1", 7)):
        with pytest.raises(InputError, match=re.escape(f"column {col}:")):
            parse_where(bad, ts.rules)


def test_where_prints_the_board_without_out() -> None:
    found = cli("boards", "--where", "players[0].lp == 7000 and chain_length == 1", "--depth", "2")
    assert found.exit_code == 0, found.output
    doc = json.loads(found.stdout)
    assert doc["expect"] == {"conforms": True} and doc["actions"][-1]["action"] == "activate"
    assert doc["actions"][-1]["cost"] == "pay_lp"
    missing = cli("boards", "--where", "players[0].lp == 100", "--depth", "2", "--bound-only")
    assert missing.exit_code == 1 and "not found up to 2" in missing.output


# -- boundary boards --------------------------------------------------------------------------


def test_boundary_boards_under_small_limits(tmp_path: Path) -> None:
    """With a hand limit of 4 and two chain links the hand and chain boundaries are a few steps away."""
    result = run(Rules(hand_limit=4, chain_links=2), depth=5, guards=False, deep=False)
    got = {g.name: g for g in result.by_kind("boundary")}
    over, at, chain = (
        got["boundary.hand.over-limit-end-phase"],
        got["boundary.hand.at-limit-end-phase"],
        got["boundary.chain.longest"],
    )
    assert (over.depth, at.depth, chain.depth) == (2, 3, 3)
    assert over.doc is not None and at.doc is not None and chain.doc is not None
    last = over.doc["actions"][-1]
    assert last["action"] == "end_step" and last["observed"]["discarding"] is True  # one over: the discard begins
    last = at.doc["actions"][-1]
    assert last["action"] == "end_step" and last["observed"]["turn"] == 2  # at the limit: the turn just ends
    assert chain.doc["actions"][-1]["observed"]["chain_length"] == 2
    assert chain.doc["rules"] == {"hand_limit": 4, "chain_links": 2}
    assert got["boundary.battle.atk-equal"].status == "not-found"  # a battle is 15 steps away
    write(result, tmp_path)
    for g in (over, at, chain):
        report = cli("replay", str(tmp_path / g.file))
        assert report.exit_code == 0 and "expected outcome: matched" in report.output


def test_twins_that_depend_on_the_parameters(tmp_path: Path) -> None:
    """activate's twins at the start of the duel: each needs parameters the solver chose (a target on an
    effect that takes none, a Trap from the hand), certified by the interpreter and read back by replay."""
    result = run(Rules(), depth=1, actions=["activate"], boundaries=False, deep=False, prove=False)
    twins = {g.guard.reason: g for g in result.by_kind("illegal") if g.guard is not None}
    untargeted = twins["this effect takes no target"]
    trap = twins["a Trap must be Set before it is activated; only Spells from the hand"]
    for g in (untargeted, trap):
        assert g.status == "found" and g.depth == 0 and g.doc is not None
    last = untargeted.doc["actions"][-1]
    assert last["effect"] not in ("destroy_card", "change_atk", "change_position", "set_face_down")
    assert "target" in last
    assert trap.doc["actions"][-1]["from"] == "hand" and trap.doc["actions"][-1]["kind"].endswith("_trap")
    write(result, tmp_path)
    report = cli("replay", str(tmp_path / untargeted.file))
    assert report.exit_code == 1 and "ILLEGAL: this effect takes no target" in report.output
    assert "expected outcome: matched" in report.output
    # a zone past the last zone of the rule set keeps the parameter in range: no twin of its own
    skipped = [g.reason for g in result.table["activate"].guards if not g.tested]
    assert "model range: no such Spell & Trap Zone" in skipped and "model range: no such Spell & Trap Zone" not in twins


# -- beyond the bound -------------------------------------------------------------------------


def test_a_board_beyond_the_bound_is_found_from_the_states_of_plays(tmp_path: Path) -> None:
    """Turn 5 is 13 steps from the start: past a bound of 3, the search goes on from the states of seeded
    random plays; the board is certified, not proved the shortest, the same on every run, and replays."""
    expr = "turn == 5 and phase == main1"
    bounded = run(Rules(), depth=3, boundaries=False, guards=False, wheres=(expr,), deep=False)
    assert bounded.by_kind("where")[0].status == "not-found"
    first, again = (run(Rules(), depth=3, boundaries=False, guards=False, wheres=(expr,)) for _ in range(2))
    g = first.by_kind("where")[0]
    assert g.status == "found" and g.doc is not None and not g.minimal
    assert g.depth > 3 and "beyond the bound" in g.note and "not proved the shortest" in g.note
    assert parse_where(expr, Rules())(g.steps[-1][2]) is True
    assert again.by_kind("where")[0].doc == g.doc  # fixed seeds and budgets: the same board
    assert "beyond the bound, not proved the shortest" in first.text()
    write(first, tmp_path)
    report = cli("replay", str(tmp_path / g.file))
    assert report.exit_code == 0 and "expected outcome: matched" in report.output


def test_a_duel_won_is_found_from_the_states_of_a_play_to_the_end_of_the_duel(monkeypatch: pytest.MonkeyPatch) -> None:
    """A won duel lies past the bound and past every board's play: with no lively random plays, the last round
    (plays to the end of the duel, one at a time) finds it, certified, 0 to 4 steps on from a state of such a
    play (10-card decks: a short duel)."""
    from duelcheck.engines import boards

    monkeypatch.setattr(boards.beyond, "DEEP_WALKS", 0)
    expr = "winner != none"
    got = run(Rules(deck_size=10), depth=3, boundaries=False, guards=False, wheres=(expr,))
    g = got.by_kind("where")[0]
    assert g.status == "found" and "to the end of the duel" in g.note and not g.minimal, g.note
    assert parse_where(expr, Rules(deck_size=10))(g.steps[-1][2]) is True and g.depth > 3


def test_a_state_whose_flags_hold_numbers_is_a_start() -> None:
    """A board's parameters come back from the solver as numbers, and a replayed play may write 0 or 1 into a
    flag (a Set in face-down position): such a state is still a start of the search, its flags read as
    Booleans."""
    from duelcheck.engines.bmc import Unrolling

    ts = TransitionSystem(Rules())
    s = ts.init()
    odd = type(s)(s.k, s.r, s.schema, {**s.v, ("passed",): 0, ("drew",): 1})
    u = Unrolling(ts, [s, odd])
    solver = z3.Solver()
    solver.add(u.constraints[0], u.states[0].v[("drew",)])
    assert solver.check() == z3.sat  # the second start, its flag `drew` set


def test_a_twin_no_reachable_state_has_is_proved_unreachable_by_induction() -> None:
    """A discard with the duel won: the one-state question (do the other guards imply "the duel goes on" under
    the well-formed facts?) leaves it open, since nothing says a discarding player has not won; induction shows
    it: the discard begins only from a pass, which needs the duel going on, and nothing is done while
    discarding. Its absence is proved for all depths, so the twin is `unreachable`, not `not found`. On a
    small field (one zone of each, two chain links), where the suite's proof takes seconds, not a minute."""
    ts = TransitionSystem(Rules(monster_zones=1, spell_trap_zones=1, chain_links=2))
    table = {ag.action.name: ag for ag in collect_guards(ts, ["discard"])}
    goals = [g for g in guard_goals(table) if g.guard is not None and g.guard.reason == "duel_over"]
    assert len(goals) == 1
    classify(ts, goals, table)
    assert goals[0].status == "not-found"
    cache = Path(os.environ["DUELCHECK_CACHE"])
    unreachable_by_induction(ts, goals, table, cache)  # the suite's proof first
    assert goals[0].status == "unreachable" and "induction" in goals[0].note
    # a twin a play reaches is never called unreachable
    reachable = [g for g in guard_goals(table) if g.kind == "illegal" and g.guard is not None and g is not goals[0]]
    reachable = [g for g in reachable if g.guard.reason.startswith("6.3.6: cards are discarded to the hand limit")]
    assert len(reachable) == 1
    unreachable_by_induction(ts, reachable, table, cache)
    assert reachable[0].status == "not-found"


def test_an_end_of_duel_twin_is_found_by_the_last_round_further_on_from_a_play_to_the_end_of_the_duel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The "duel is over" twin of `declare_attack`: a player whose deck is empty summons, enters the Battle
    Step, draws with a Quick-Play Spell and loses, with a monster able to attack: 6 steps on from the Main
    Phase of a plain play to an empty deck. The rounds `DEEP_DEPTH` (4) steps on miss it; the last round,
    `FAR_DEPTH` steps on from the plays to the end of the duel, finds it."""
    from duelcheck.engines import boards, mutate
    from duelcheck.model.cards import Phase

    rules = Rules(deck_size=6, draw_needs_deck=False)  # a draw card with an empty deck: the older reading
    ts = TransitionSystem(rules)
    play = played_until(ts, [], lambda s: s.g("deck", s.tp) == 0 and s.g("phase") == Phase.MAIN1)
    monkeypatch.setattr(boards.beyond, "DEEP_WALKS", 0)
    monkeypatch.setattr(mutate, "far_walks", lambda rules: {"a plain play": play})
    table = {ag.action.name: ag for ag in collect_guards(ts, ["declare_attack"])}

    def over() -> list[Any]:
        goals = [g for g in guard_goals(table) if g.guard is not None and g.guard.reason == "duel_over"]
        assert len(goals) == 1
        search(ts, goals, table, 2)
        return goals

    assert boards.FAR_DEPTH == 6 > boards.DEEP_DEPTH
    monkeypatch.setattr(boards.beyond, "FAR_DEPTH", boards.DEEP_DEPTH)
    missed = over()
    boards.deep_search(ts, missed, table)
    assert missed[0].status == "not-found", missed[0].note
    monkeypatch.setattr(boards.beyond, "FAR_DEPTH", 6)
    goals = over()
    boards.deep_search(ts, goals, table)
    assert goals[0].status == "found" and "a plain play to the end of the duel" in goals[0].note, goals[0].note
    certify(ts, goals[0])


def test_a_replay_s_boards_are_found_from_the_plays_to_the_suite_s_witnesses(monkeypatch: pytest.MonkeyPatch) -> None:
    """A replay due lies 12 steps in, past the bound and the boards' plays: from the states of the play to the
    suite's replay witness the search finds the replay's legal board, and then, from that board's state, a
    pass refused because the attacker must first choose (6.3.4.2.1). No random plays, no plays to the end of
    the duel: the witnesses' plays alone."""
    from duelcheck.engines import boards, mutate

    monkeypatch.setattr(boards.beyond, "DEEP_WALKS", 0)
    monkeypatch.setattr(mutate, "far_walks", lambda rules: {})
    ts = TransitionSystem(Rules())
    table = {ag.action.name: ag for ag in collect_guards(ts, ["pass", "replay_select"])}
    goals = [
        g
        for g in guard_goals(table)
        if g.name == "replay_select.legal" or (g.guard is not None and "must first choose" in g.guard.reason)
    ]
    assert [g.action for g in goals] == ["pass", "replay_select"]
    search(ts, goals, table, 2)
    boards.deep_search(ts, goals, table)  # without the witnesses' plays: not found
    assert all(g.status == "not-found" for g in goals)
    boards.deep_search(ts, goals, table, witnesses=lambda: {"reach-replay": REPLAY_DIRECT[:-1]})
    assert all(g.status == "found" and not g.minimal for g in goals), [(g.name, g.status) for g in goals]
    assert all("the play reaching reach-replay" in g.note for g in goals), [g.note for g in goals]
    for g in goals:
        certify(ts, g)


def test_a_twin_the_bound_misses_is_found_by_the_seeded_search_and_is_the_shortest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The second Normal Summon of a turn (6.3.5): missed by the bounded search to 2 steps; the seeded search
    with that conjunct dropped (the rules' steps, then the first step they refuse for it alone) finds it from
    the start of the duel, as short as the bounded search to a larger bound finds it, and certified."""
    from duelcheck.engines import boards, mutate

    monkeypatch.setattr(mutate, "far_walks", lambda rules: {})  # no wide search: the start's is enough here
    rules = Rules(monster_zones=2, spell_trap_zones=1, chain_links=2)  # a small field: the same refusal, faster
    ts = TransitionSystem(rules)
    table = {ag.action.name: ag for ag in collect_guards(ts, ["normal_summon"])}

    def second_summon() -> list[Any]:
        goals = [g for g in guard_goals(table) if g.guard is not None and "only 1 Normal Summon" in g.guard.reason]
        assert len(goals) == 1
        return goals

    shortest = second_summon()
    search(ts, shortest, table, 8)
    assert shortest[0].status == "found"
    goals = second_summon()
    search(ts, goals, table, shortest[0].depth - 1)
    assert goals[0].status == "not-found"
    boards.seeded_twins(ts, goals, rules, cache=Path(os.environ["DUELCHECK_CACHE"]))
    g = goals[0]
    assert g.status == "found" and g.minimal and "seeded search" in g.note, g.note
    assert g.depth == shortest[0].depth  # the seeded search's play is the shortest, as the bounded search's
    certify(ts, g)
    assert g.reason is not None and "Normal Summon" in g.reason


@pytest.mark.slow  # minutes: the wide search from a play of about 300 steps (opt-in: --runslow)
def test_a_twin_beyond_the_seeded_search_from_the_start_is_found_by_the_wide_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The "duel is over" twin of `declare_attack`, deep in a plain play to an empty deck: the seeded search from
    the start (cut to 3 steps here) misses it; the wide search, from every fourth state of that play, finds it,
    certified (and shortened, by few candidates here)."""
    from duelcheck.engines import boards, mutate
    from duelcheck.model.cards import Phase

    rules = Rules()
    ts = TransitionSystem(rules)
    play = played_until(ts, [], lambda s: s.g("deck", s.tp) == 0 and s.g("phase") == Phase.MAIN1)
    monkeypatch.setattr(mutate, "far_walks", lambda rules: {"a plain play": play})
    monkeypatch.setattr(boards.twins, "SEEDED_DEPTH", 3)
    monkeypatch.setattr(boards.bounded, "DEEP_SHRINK", 100)  # the play of about 300 steps shortened a little: seconds
    table = {ag.action.name: ag for ag in collect_guards(ts, ["declare_attack"])}
    goals = [g for g in guard_goals(table) if g.guard is not None and g.guard.reason == "duel_over"]
    assert len(goals) == 1
    boards.seeded_twins(ts, goals, rules, cache=Path(os.environ["DUELCHECK_CACHE"]))
    g = goals[0]
    assert g.status == "found" and not g.minimal and "wide seeded search" in g.note, g.note
    certify(ts, g)


def test_the_generated_module_runs_against_an_engine_in_another_process(draw_boards: Path) -> None:
    """`DUELCHECK_ADAPTER='exec:...'`: the boards replayed against the reference adapter behind the JSON-lines
    protocol, in a child process (the module stays self-contained: it speaks the protocol itself)."""
    spec = f"exec:{sys.executable} -m duelcheck.adapters.serve reference"
    run = _pytest(draw_boards, spec)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 passed" in run.stdout
    broken = _pytest(draw_boards, f"exec:{sys.executable} -c 'import sys; sys.exit(3)'")
    assert broken.returncode != 0 and "the engine ended" in broken.stdout
