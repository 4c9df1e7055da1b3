"""`duelcheck mutate`: guard mutants agree in both semantics, equivalences are proved, kills are certified, and
a killed run resumes from its store.

Kept small: bounds of 2 or 3, no proofs of the whole suite (the lemmas of the equivalence test are one
invariant proved on its own), one local Dask cluster of one worker. About a minute on a busy 2-core machine.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
import z3
from click.testing import CliRunner
from conftest import REPLAY_DIRECT, played_until, walk

from duelcheck.cli import main
from duelcheck.counterexamples.certify import certify
from duelcheck.engines import mutate as mu
from duelcheck.engines.bmc import BMC
from duelcheck.engines.kind import Induction
from duelcheck.errors import InputError
from duelcheck.model import rules as R
from duelcheck.model import state as S
from duelcheck.model.cards import DIRECT, HAND, NO_CHOICE, TO_BATTLE, TO_END, Cost, Effect, Kind, MonsterEffect, Phase
from duelcheck.model.rules import ACTION_BY_NAME, ACTION_CODE
from duelcheck.model.state import PARAMS, State
from duelcheck.model.system import TransitionSystem
from duelcheck.properties import BY_NAME, PROPERTIES, Check, Property
from duelcheck.properties.catalog import ActionView
from duelcheck.rules import Rules

NO_TURN_1_DRAW = "6.3.1: the player who goes first does not draw on turn 1"

# a small field (two Monster Zones, one Spell & Trap Zone, two chain links): the tests whose point is a path or
# a proof's use, not the field's size, prove the suite there in a third of the time
SMALL = Rules(monster_zones=2, spell_trap_zones=1, chain_links=2)


def _write(action: str, source: str) -> str:
    """The id of the write mutant of `action` at the line of the rules' source that holds `source` (write ids
    number an action's writes in order, so a new write elsewhere moves them)."""
    lines = (Path(R.__file__)).read_text().splitlines()
    found = [
        m.id
        for m in mu.all_mutants()
        if m.kind == "write" and m.action == action and source in lines[int(m.line.split(":")[1]) - 1]
    ]
    assert len(found) == 1, (action, source, found)
    return found[0]


def test_guard_sites_of_a_few_actions_with_their_reasons() -> None:
    sites = {(g.action, g.index): g for g in mu.guard_sites()}
    draw = [g.reason for (a, _), g in sorted(sites.items()) if a == "normal_draw"]
    assert draw == [
        "<duel_over> The rule that ended the duel, for a judge refusing any later action.",
        "6.3.1: the normal draw is made in the Draw Phase",
        "6.3.1: the turn player draws only one card in the Draw Phase",
        NO_TURN_1_DRAW,
        "6.3.1: the chain before the draw resolves first",  # last, so that no other guard moves
        "6.3.1: a triggered effect waiting before the draw is activated, or declined, before the draw is made",
    ]
    # require_can_act's eight guards come first, then the action's own, in call order
    assert sites[("declare_attack", 8)].reason == "6.3.4.2: attacks are declared in the Battle Step"
    assert sites[("declare_attack", 13)].reason.startswith("6.3.4.2: the monster in zone {zone} has already")
    assert sites[("flip_summon", 14)].reason == "6.3.3: a monster cannot be Flip Summoned on the turn it was Set"
    # end_step runs pass twice, each a run of pass (pass's own sites); its own two guards are the model's
    # shortcut, never scored; a mutant of pass changes end_step too
    assert sites[("pass", 18)].reason == "6.3.4: the player who goes first cannot conduct a Battle Phase on turn 1"
    shortcut = [g for (a, _), g in sorted(sites.items()) if a == "end_step"]
    assert [g.reason.split(":")[0] for g in shortcut] == ["model shortcut"] * 2 and not any(g.scored for g in shortcut)
    assert mu.actions_of(mu.mutant_by_id("drop:pass:18")) == ["pass", "end_step"]
    # its one write of its own closes a response window open first (its two passes change nothing else)
    assert [w.field for w in mu.write_sites() if w.action == "end_step"] == ["window"]
    # the model's range and catalogue bounds are listed but not scored
    summon = [g for (a, _), g in sorted(sites.items()) if a == "normal_summon"]
    assert [g.reason.split(":")[0] for g in summon if not g.scored] == ["model range", "model catalogue"]
    run, excluded = mu.select_mutants(only="normal_summon", kinds=("drop",))
    assert len(run) == len(summon) - 2 and {m.id for m in excluded} == {
        f"drop:normal_summon:{g.index}" for g in summon if not g.scored
    }
    run, _ = mu.select_mutants(only="normal_draw", limit=7)
    assert [m.id for m in run] == [*(f"drop:normal_draw:{i}" for i in range(6)), "negate:normal_draw:0"]
    with pytest.raises(InputError, match="did you mean normal_draw"):
        mu.select_mutants(only="normal_drew")
    bad = CliRunner().invoke(main, ["mutate", "--only", "normal_drew"])
    assert bad.exit_code == 2 and "no such action" in bad.stderr
    # by id: the ones named, in the order given, once each; an excluded guard is listed apart
    named, apart = mu.select_mutants(ids=("drop:pass:13", "semantic:first_turn_draws", "drop:pass:13"))
    assert [m.id for m in named] == ["drop:pass:13", "semantic:first_turn_draws"] and apart == []
    with pytest.raises(InputError, match="did you mean drop:pass:12"):
        mu.select_mutants(ids=("drop:pass:120",))
    for args in (["--mutant", "drop:pass:120"], ["--mutant", "drop:pass:13", "--only", "pass"]):
        bad = CliRunner().invoke(main, ["mutate", *args])
        assert bad.exit_code == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr


# -- the two semantics agree under guard mutants ----------------------------------------------------------------

# eight mutants, each kind among them, run by default; the other seven with --runslow (the same test)
AGREEMENT = [
    "drop:normal_draw:3",  # the first player draws on turn 1
    pytest.param("negate:normal_draw:2", marks=pytest.mark.slow),  # a draw only once a card was drawn
    "drop:pass:18",  # a guard of the pass that ends Main Phase 1: a Battle Phase on turn 1 (end_step's too)
    "negate:pass:9",  # a first pass only with a choice
    pytest.param("drop:flip_summon:14", marks=pytest.mark.slow),  # Flip Summon on the turn the monster was Set
    pytest.param("negate:discard:1", marks=pytest.mark.slow),  # discard when not discarding
    pytest.param("write:normal_draw:3", marks=pytest.mark.slow),  # the normal draw leaves the hand as it was
    pytest.param("swap:normal_draw:3", marks=pytest.mark.slow),  # the opponent gets the drawn card
    "swap:activate:2",  # the LP cost paid by the opponent
    "swap:pass:21",  # battle damage to the other player
    "write:pass:13",  # a phase change that forgets a write
    # a comparison of the draw rule given its boundary twin
    pytest.param("compare:require_draw_due:0", marks=pytest.mark.slow),
    "compare:live:0",  # the duel read as over while it goes on (every action's guard)
    "compare:damage_calculation:1",  # the battle damage table at equality (> read as >=)
    # a player with exactly the cards to draw loses as if the deck were empty
    pytest.param("compare:normal_draw:0", marks=pytest.mark.slow),
]


def _agree(ts: TransitionSystem, step: Any, s: State, name: str, params: dict[str, int]) -> bool:
    """The concrete outcome of one action instance is the symbolic relation's (the same successor, or none);
    returns whether the action is allowed."""
    out = ts.apply(s, name, params)
    solver = z3.SolverFor("QF_BV")
    solver.add(step.relation, *(step.pre.v[k] == s.v[k] for k in ts.keys), step.act == ACTION_CODE[name])
    for p, spec in PARAMS.items():
        solver.add(step.params[p] == params.get(p, False if spec.sort == "bool" else 0))
    if not out.ok:
        assert solver.check() == z3.unsat, f"{name}{params}: refused concretely ({out.reason}) but not symbolically"
        return False
    assert out.state is not None
    same = z3.And(*(step.post.v[k] == out.state.v[k] for k in ts.keys))
    assert solver.check(same) == z3.sat, f"{name}{params}: the concrete successor is not in the relation"
    assert solver.check(z3.Not(same)) == z3.unsat, f"{name}{params}: the relation allows another successor"
    return True


@pytest.mark.parametrize("mutant_id", AGREEMENT)
def test_mutants_agree_in_the_concrete_and_symbolic_semantics(mutant_id: str) -> None:
    m = mu.mutant_by_id(mutant_id)
    rng = random.Random(mutant_id)
    with mu.activated(m):
        ts = TransitionSystem(Rules())
        step = ts.sym_step(ts.sym_state("@m0"), "@m1")
        checked = 0
        actions = mu.actions_of(m)
        composites = [a.name for a in R.ACTIONS if a.parts is not None]  # their parts run the mutant's bodies
        for name in [*rng.sample(actions, min(3, len(actions))), *composites]:
            act = ACTION_BY_NAME[name]
            for seed, length in [(1, 0), (2, 5), (4, 14), (6, 30)]:
                s = walk(ts, seed, length)
                options = list(act.candidates(s))
                for params in rng.sample(options, min(4, len(options))):
                    _agree(ts, step, s, name, params)
                    checked += 1
    assert checked >= 4
    assert S.MUTATION is None  # the hook is off again


def test_a_guard_mutant_changes_both_semantics_and_the_rules_come_back() -> None:
    """The control of the agreement test: under the mutant the step is allowed in both semantics, under the
    rules as written it is refused in both (and the concrete reason is the dropped guard's)."""
    ts = TransitionSystem(Rules())
    step = ts.sym_step(ts.sym_state("@r0"), "@r1")
    assert ts.apply(ts.init(), "normal_draw", {}).reason == NO_TURN_1_DRAW
    assert not _agree(ts, step, ts.init(), "normal_draw", {})
    with mu.activated(mu.mutant_by_id("drop:normal_draw:3")):
        mts = TransitionSystem(Rules())
        assert _agree(mts, mts.sym_step(mts.sym_state("@r0"), "@r1"), mts.init(), "normal_draw", {})
    # in Main Phase 1 of turn 1: a Battle Phase is refused; dropping that guard of pass allows it, in the two
    # passes of end_step too
    main1 = ts.init()
    for _ in range(2):
        out = ts.apply(main1, "end_step", {"choice": 0})
        assert out.ok and out.state is not None
        main1 = out.state
    assert not _agree(ts, step, main1, "end_step", {"choice": 1})
    with mu.activated(mu.mutant_by_id("drop:pass:18")):
        mts = TransitionSystem(Rules())
        assert _agree(mts, mts.sym_step(mts.sym_state("@r0"), "@r1"), main1, "end_step", {"choice": 1})
    assert ts.apply(ts.init(), "normal_draw", {}).reason == NO_TURN_1_DRAW


def test_a_write_mutant_changes_both_semantics_and_names_its_line() -> None:
    """The control for write mutants: the normal draw of turn 2 under the rules, without its write to the hand,
    and with that write made to the opponent's hand; the same successor concretely and symbolically."""
    ts = TransitionSystem(Rules())
    s = ts.init()
    while s.g("turn") == 1:  # to turn 2's Draw Phase, each player passing (Main Phase 1 to the End Phase)
        out = ts.apply(s, "end_step", {"choice": NO_CHOICE})
        if not out.ok:
            out = ts.apply(s, "end_step", {"choice": TO_END})
        assert out.ok and out.state is not None
        s = out.state
    tp = s.tp
    drawn = ts.apply(s, "normal_draw", {}).state
    assert drawn is not None and drawn.g("hand", tp) == s.g("hand", tp) + 1
    forgot, swapped = mu.mutant_by_id("write:normal_draw:3"), mu.mutant_by_id("swap:normal_draw:3")
    assert forgot.line == swapped.line and forgot.line.startswith("rules.py:") and forgot.reason.startswith("hand")
    for m, mine, theirs in ((forgot, 0, 0), (swapped, 0, 1)):
        with mu.activated(m):
            mts = TransitionSystem(Rules())
            assert _agree(mts, mts.sym_step(mts.sym_state("@w0"), "@w1"), s, "normal_draw", {})
            after = mts.apply(s, "normal_draw", {}).state
            assert after is not None and after.g("deck", tp) == s.g("deck", tp) - 1
            assert after.g("hand", tp) == s.g("hand", tp) + mine
            assert after.g("hand", 1 - tp) == s.g("hand", 1 - tp) + theirs
    again = ts.apply(s, "normal_draw", {}).state
    assert S.MUTATION is None and again is not None and again.v == drawn.v


# -- equivalence, proved ------------------------------------------------------------------------------------------


# A fact of every reachable state, inductive on its own (so proved here in seconds, not with the whole suite):
# a chain that is resolving has a link on it (seed 000: it resolves only after both players pass on a chain).
CHAIN_HAS_A_LINK = Property(
    "resolving-has-a-link",
    "always",
    "seed 000 (chain)",
    "A resolving chain has a link.",
    (Check("", "state", lambda s: s.k.implies(s.g("resolving"), s.g("chain_len") > 0)),),
)


def test_a_guard_implied_by_another_and_a_proved_invariant_is_an_equivalent_mutant() -> None:
    """resolve's "no chain to resolve" is implied by its guard "the chain is resolving" in every reachable state
    (proved by induction): dropping it is an equivalent mutant, a dead rule. Without the invariant the solver
    finds a state where it is not implied; dropping Flip Summon's "not on the turn it was Set" is not
    equivalent; pass's "Main Phase 2 comes only when a Battle Phase ends" is implied by its next guard alone
    (a rule stated twice)."""
    assert Induction(TransitionSystem(Rules())).prove_suite([CHAIN_HAS_A_LINK]) == {"resolving-has-a-link"}
    lemma = CHAIN_HAS_A_LINK.checks[0]
    dead = mu.mutant_by_id("drop:resolve:2")
    assert dead.reason == "no chain to resolve"
    status, why = mu.equivalence(Rules(), dead, [lemma])
    assert status == "equivalent" and "dead rule" in why
    assert mu.equivalence(Rules(), dead, [])[0] == "not-equivalent"  # the invariant is needed
    fresh = mu.mutant_by_id("drop:flip_summon:14")
    assert mu.equivalence(Rules(), fresh, [lemma])[0] == "not-equivalent"
    twice = mu.mutant_by_id("drop:pass:8")
    assert twice.reason == "6.3.5: Main Phase 2 comes only when a Battle Phase ends"
    status, why = mu.equivalence(Rules(), twice, [])
    assert status == "equivalent" and "stated twice" in why
    # negated guards are never asked (not the question this proves)
    assert mu.equivalence(Rules(), mu.mutant_by_id("negate:pass:8"), [])[0] == "not-equivalent"


def test_a_dropped_guard_whose_twin_no_play_reaches_is_equivalent_by_induction() -> None:
    """The dropped "the duel is over" guard of `discard`: a state meeting every proved invariant where a player
    who has won is discarding exists (nothing says otherwise), so the one-state question finds one; induction
    shows no play makes it (the discard begins only from a step that needs the duel going on, and nothing is
    done while discarding): a dead rule, proved. Dropping the guard that a discard is due is not equivalent."""
    invariants = [p for p in PROPERTIES if p.kind == "always"]
    cache = Path(os.environ["DUELCHECK_CACHE"])
    proved = sorted(Induction(TransitionSystem(SMALL), cache=cache).prove_suite(invariants))
    over = mu.mutant_by_id("drop:discard:0")
    assert over.reason == "<duel_over> The rule that ended the duel, for a judge refusing any later action."
    assert mu.equivalence(SMALL, over, [c for n in proved for c in BY_NAME[n].checks if c.on == "state"])[0] == (
        "not-equivalent"
    )  # the same invariants as checks: the one-state question alone
    assert mu.equivalence(SMALL, over, proved) == ("not-equivalent", "")  # without induction: the one state
    status, why = mu.equivalence(SMALL, over, proved, induction=True)
    assert status == "equivalent" and "induction" in why, why
    due = mu.mutant_by_id("drop:discard:1")
    assert mu.equivalence(SMALL, due, proved, induction=True)[0] == "not-equivalent"


def test_a_write_the_field_always_holds_where_the_action_runs_is_dead_code_proved_by_induction() -> None:
    """A replay's new choice hands priority to the turn player with no pass made: `replay_select` without its
    write of `passed` leaves the flag as it was. A state meeting the invariants may hold a pass with a replay
    due, so the one-state question finds the steps differ; but no play makes that state: induction proves it,
    and the mutant is dead code. A triggered link's write of `passed` is not: in the Standby Phase a delayed
    effect's draw may follow the turn player's pass (6.3.2)."""
    invariants = [p for p in PROPERTIES if p.kind == "always"]
    cache = Path(os.environ["DUELCHECK_CACHE"])
    proved = sorted(Induction(TransitionSystem(SMALL), cache=cache).prove_suite(invariants))
    stale = mu.mutant_by_id("write:replay_select:7")
    assert stale.models.startswith("replay_select without its write to passed "), stale.models
    assert mu.equivalence(SMALL, stale, proved) == ("not-equivalent", "")  # the one-state question alone
    status, why = mu.equivalence(SMALL, stale, proved, induction=True)
    assert status == "equivalent" and "replay_select" in why and "induction" in why, why
    live = mu.mutant_by_id("write:trigger:4")
    assert live.models.startswith("trigger without its write to passed "), live.models
    assert mu.equivalence(SMALL, live, proved, induction=True)[0] == "not-equivalent"


def test_a_mutant_the_engines_do_not_kill_is_asked_of_induction_before_it_is_called_a_survivor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The induction question comes after the cheaper stages of the engines (6 to 9 s lost on each mutant that
    is not equivalent) and before the goal-directed and wide searches, which cost the most (`kill` asks it
    through `first`, with no mutant in force): a mutant whose step differs only where no play goes is reported
    equivalent without them; one whose step differs in a reachable state goes on and, unkilled, stays a
    survivor; the question is asked once."""
    invariants = [p for p in PROPERTIES if p.kind == "always"]
    cache = Path(os.environ["DUELCHECK_CACHE"])
    proved = sorted(Induction(TransitionSystem(SMALL), cache=cache).prove_suite(invariants))
    ran: list[str] = []
    late: list[str] = []
    asked: list[str] = []
    equivalence = mu.equivalence

    def counted(rules: Rules, mutant: mu.Mutant, lemmas: Any, induction: bool = False) -> tuple[str, str]:
        asked.extend([mutant.id] if induction else [])
        return equivalence(rules, mutant, lemmas, induction)

    def no_kill(rules: Rules, mutant: mu.Mutant, *args: Any, first: Any = None, **kwargs: Any) -> dict[str, Any]:
        ran.append(mutant.id)
        settled = first() if first is not None else None  # the point before the costliest searches
        if settled is not None:
            return dict(settled)
        late.append(mutant.id)
        return {"status": "survived", "killed_by": None, "kill_kind": None, "length": None, "note": "", "verdicts": {}}

    monkeypatch.setattr(mu.killing, "kill", no_kill)
    monkeypatch.setattr(mu.killing, "equivalence", counted)
    prepared = {"lemmas": proved, "witnesses": {}}
    dead = mu.run_mutant("write:replay_select:7", SMALL.model_dump(), 4, {}, prepared)
    assert dead["status"] == "equivalent" and "induction" in dead["note"], dead
    live = mu.run_mutant("compare:replay_select:1", SMALL.model_dump(), 4, {}, prepared)
    assert live["status"] == "survived"
    assert ran == ["write:replay_select:7", "compare:replay_select:1"]  # the cheaper stages ran first, for both
    assert late == ["compare:replay_select:1"]  # the costliest searches only for the one not proved dead
    assert asked == ["write:replay_select:7", "compare:replay_select:1"]  # once each


def test_a_dropped_guard_is_asked_of_induction_only_when_the_short_seeded_search_kills_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shortest kills come before the induction questions (`SEEDED_EARLY`): the first player's draw on turn
    1 (drop:normal_draw:3) is killed at step 1 by the short seeded search, and its twin is never asked of
    induction; a discard with the duel won (drop:discard:0), where that search finds nothing, is asked once and
    proved a dead rule, through the whole of `run_mutant` (the engines' own stages, no stand-in)."""
    invariants = [p for p in PROPERTIES if p.kind == "always"]
    cache = Path(os.environ["DUELCHECK_CACHE"])
    proved = sorted(Induction(TransitionSystem(SMALL), cache=cache).prove_suite(invariants))
    asked: list[str] = []
    equivalence = mu.equivalence

    def counted(rules: Rules, mutant: mu.Mutant, lemmas: Any, induction: bool = False) -> tuple[str, str]:
        asked.extend([mutant.id] if induction else [])
        return equivalence(rules, mutant, lemmas, induction)

    monkeypatch.setattr(mu.killing, "equivalence", counted)
    prepared = {"lemmas": proved, "witnesses": {}}
    assert mu.SEEDED_EARLY < mu.DEFAULT_DEPTH + mu.SEEDED_BEYOND
    # a bound of 2: the short seeded search goes SEEDED_BEYOND steps past it, 6 steps (a third of the time of 8)
    drawn = mu.run_mutant("drop:normal_draw:3", SMALL.model_dump(), 2, {}, prepared)
    assert drawn["status"] == "killed" and drawn["length"] == 1 and "seeded search" in drawn["note"], drawn
    assert asked == []
    dead = mu.run_mutant("drop:discard:0", SMALL.model_dump(), 2, {}, prepared)
    assert dead["status"] == "equivalent" and "dead rule" in dead["note"] and "induction" in dead["note"], dead
    assert asked == ["drop:discard:0"]


def test_the_turn_1_battle_rule_on_the_path_that_skips_main_phase_1_is_a_dead_rule() -> None:
    """6.3.4 refuses a Battle Phase on turn 1 wherever Main Phase 1 ends, also when an effect had it skipped
    (seed 000); but on turn 1 the second player has had no turn, so no effect of theirs has skipped a phase of
    the first player's (well-formed, proved for all depths). Dropping the rule on that path is a dead rule,
    proved; the well-formed facts without the turn-1 fact leave it open."""
    from duelcheck.properties.catalog import well_formed_facts

    def facts(turn_1: bool) -> Check:
        def holds(s: Any) -> Any:
            out = well_formed_facts(s)
            return s.k.and_(*(out if turn_1 else [f for f in out if "skip_m1" not in str(f)]))

        return Check("", "state", holds)

    for mid in ("drop:pass:15",):
        m = mu.mutant_by_id(mid)
        assert m.reason == "6.3.4: the player who goes first cannot conduct a Battle Phase on turn 1"
        status, why = mu.equivalence(Rules(), m, [facts(True)])
        assert status == "equivalent" and "dead rule" in why, (mid, why)
        assert mu.equivalence(Rules(), m, [facts(False)])[0] == "not-equivalent", mid


# -- killing ------------------------------------------------------------------------------------------------------


def test_dropping_no_draw_on_turn_1_is_killed_by_first_turn_no_draw_in_one_step() -> None:
    m = mu.mutant_by_id("drop:normal_draw:3")
    assert m.reason == NO_TURN_1_DRAW
    got = mu.kill(Rules(), m, 2, {}, prove=False)
    assert (got["status"], got["killed_by"], got["kill_kind"], got["length"]) == (
        "killed",
        "first-turn-no-draw",
        "violated",
        1,
    )
    # the kill's trace is real under the mutant, and the rules as written refuse its step
    from duelcheck.engines.bmc import BMC

    with mu.activated(m):
        ts = TransitionSystem(Rules())
        (r,) = BMC(ts).run([BY_NAME["first-turn-no-draw"]], 1)
        assert r.trace is not None
        certify(ts, BY_NAME["first-turn-no-draw"].checks[0], r.trace, False)
    assert not TransitionSystem(Rules()).apply(TransitionSystem(Rules()).init(), "normal_draw", {}).ok


@pytest.mark.parametrize("mutant_id", ["write:normal_draw:3", "swap:normal_draw:3"])
def test_a_forgotten_or_misdirected_draw_is_killed_by_card_conservation(mutant_id: str) -> None:
    """A write mutant killed by the engines: the drawn card lost (not put in the hand) or given to the opponent;
    card-conservation counts each player's cards and sees it on turn 2's draw."""
    got = mu.kill(Rules(), mu.mutant_by_id(mutant_id), 5, {}, prove=False)
    assert (got["status"], got["kill_kind"]) == ("killed", "violated"), got
    assert got["killed_by"] == "card-conservation" and got["length"] <= 5


def test_a_witness_is_replayed_from_the_baseline_play_and_searched_only_where_the_play_breaks() -> None:
    """The witness stage: the drawing rule negated breaks the baseline's play of turn 3, and the search then
    refutes turn 3 at every depth; a guard dropped (more plays
    allowed) keeps the play, and the witness is reached by replaying it, with no search."""
    found, plays, _ = mu.baseline(Rules(), 5, [])
    assert found["reach-turn-3"] == 5 and len(plays["reach-turn-3"]) == 5
    turn3 = {"reach-turn-3": 5}
    with mu.activated(mu.mutant_by_id("negate:normal_draw:1")):
        ts = TransitionSystem(Rules())
        (r,) = mu._witness_stage(ts, turn3, plays, 6, "auto", None)
    assert (r.verdict, r.engine) == ("not-found", "bmc"), r
    # the whole check kills it before any search: turn 2's Draw Phase has no step at all under it (the draw is
    # refused and nothing is done before it), a deadlock no-deadlock sees on the replayed play, certified
    got = mu.kill(Rules(), mu.mutant_by_id("negate:normal_draw:1"), 6, turn3, prove=False, plays=plays)
    assert (got["status"], got["killed_by"], got["kill_kind"], got["length"]) == (
        "killed",
        "no-deadlock",
        "violated",
        2,
    )
    with mu.activated(mu.mutant_by_id("drop:normal_draw:1")):
        ts = TransitionSystem(Rules())
        (r,) = mu._witness_stage(ts, turn3, plays, 6, "auto", None)
    assert (r.verdict, r.engine, r.length) == ("found", "replay", 5)


ATTACK_THEN_MAIN2 = [  # turn 3: the monster Normal Summoned on turn 1 attacks directly, then Main Phase 2
    ("end_steps", {"choice": NO_CHOICE}),
    ("normal_summon", {"atk": 10, "defv": 10, "mkind": 0, "eff": 0}),
    ("end_steps", {"choice": TO_END}),
    ("normal_draw", {}),
    ("end_steps", {"choice": NO_CHOICE}),
    ("end_steps", {"choice": TO_END}),
    ("normal_draw", {}),
    ("end_steps", {"choice": NO_CHOICE}),
    ("end_steps", {"choice": TO_BATTLE}),
    ("declare_attack", {"zone": 0, "tzone": DIRECT}),
    *[("end_steps", {"choice": NO_CHOICE})] * 4,
]


def test_the_last_stage_searches_from_the_states_of_a_deep_play() -> None:
    """A guard whose drop needs a deep setting-up (a monster that attacked this turn, not Summoned this turn,
    in Main Phase 2: 14 steps) is caught by the short search from the states of a play of the rules as
    written, replayed under the mutant; the trace is that play then the search's step, certified from the
    initial state. The rules as written give nothing from the same states."""
    prop = BY_NAME["position-change-rules"]
    plays = {"attack-then-main2": ATTACK_THEN_MAIN2}
    with mu.activated(mu.mutant_by_id("drop:change_position:16")):
        ts = TransitionSystem(Rules())
        r = mu._deep_stage(ts, [prop], plays, "auto", None)
        assert r is not None and r.verdict == "violated" and r.trace is not None
        assert r.length == len(ATTACK_THEN_MAIN2) + 1 and r.trace.steps[-1].action == "change_position"
        certify(ts, prop.checks[0], r.trace, False)
        assert "step 14 of the play reaching attack-then-main2 under the mutant" in r.note
    assert mu._deep_search(TransitionSystem(Rules()), [prop], plays, 0, "auto", None) is None


def test_a_search_from_several_states_starts_in_the_one_its_play_needs() -> None:
    """Bounded model checking from any of several states: the play starts in the one that leads to the goal,
    the trace starts there, and a selector among the choices says which (here the second: Main Phase 2)."""
    from duelcheck.engines.bmc import BMC, Goal
    from duelcheck.model.cards import Phase

    ts = TransitionSystem(Rules())
    states = [ts.init()]
    for name, params in ATTACK_THEN_MAIN2:
        states.append(ts.apply(states[-1], name, params).state)
    main2 = Property("end-phase", "sometimes", "", "", (Check("", "state", lambda s: s.g("phase") == Phase.END),))
    (r,) = BMC(ts).reach([Goal(main2, main2.checks[0])], 1, [states[0], states[-1]])
    assert r.status == "reached" and r.depth == 1 and r.trace is not None
    assert r.trace.steps[0].state.v == states[-1].v
    (none,) = BMC(ts).reach([Goal(main2, main2.checks[0])], 1, [states[0], states[3]])
    assert none.status == "unreached"


def test_a_probe_without_an_answer_is_unknown_never_survived() -> None:
    """A time limit the probe cannot meet leaves the mutant unknown; with no other search after the probe
    (no proofs, a bound within the probe's), it must not read as a survivor."""
    m = mu.mutant_by_id("drop:normal_draw:3")
    got = mu.kill(Rules(), m, 2, {}, prove=False, timeout=1e-6)
    assert got["status"] == "unknown", got
    assert got["verdicts"] and set(got["verdicts"].values()) == {"unknown"}


# -- the store: a killed run resumes ------------------------------------------------------------------------------


# three mutants of two outcomes, each settled in about a second (in the store's order): a hand-size comparison
# no step reads (equivalent), the duel read as over while it goes on (killed at step 0), the first player's draw
# on turn 1 (killed)
STORED = ["compare:draw_count:1", "compare:live:0", "semantic:first_turn_draws"]
THREE = tuple(arg for mid in STORED for arg in ("--mutant", mid))


def _run(store: Path, *args: str, code: int = 0) -> tuple[dict[str, Any], str]:
    """A mutation run into `store` (the three mutants of STORED, unless `args` name others), exiting with
    `code`: its JSON report and what it told on stderr."""
    args = args or THREE
    store_args = ["--store", str(store), "--format", "json"]
    result = CliRunner().invoke(main, ["mutate", *args, "--depth", "2", "--no-proofs", "--workers", "1", *store_args])
    assert result.exit_code == code, result.output
    return dict(json.loads(result.stdout)), result.stderr


def test_the_store_resumes_only_what_is_missing(tmp_path: Path) -> None:
    store = tmp_path / "mutate.sqlite"
    first, told = _run(store)
    assert "proving the invariants" in told  # the preparation, made once
    ids = STORED
    assert [m["id"] for m in first["mutants"]] == ids
    assert first["ran"] == 3 and first["from_store"] == 0
    assert all(m["status"] in mu.STATUSES for m in first["mutants"])
    db = sqlite3.connect(store)
    rows = {r[0]: r[1:] for r in db.execute("SELECT mutant_id, run_id, finished_at, status FROM mutants")}
    assert sorted(rows) == ids
    with db:
        db.execute("DELETE FROM mutants WHERE mutant_id = ?", (ids[1],))
    db.close()
    again, told = _run(store)
    assert again["ran"] == 1 and again["from_store"] == 2 and "proving the invariants" not in told
    assert [m["id"] for m in again["mutants"] if m["ran_now"]] == [ids[1]]
    db = sqlite3.connect(store)
    after = {r[0]: r[1:] for r in db.execute("SELECT mutant_id, run_id, finished_at, status FROM mutants")}
    db.close()
    assert sorted(after) == ids
    for mid in (ids[0], ids[2]):
        assert after[mid] == rows[mid]  # untouched: the same run, the same moment
    assert after[ids[1]][2] == rows[ids[1]][2] and after[ids[1]][0] != rows[ids[1]][0]
    assert [m["status"] for m in again["mutants"]] == [m["status"] for m in first["mutants"]]
    # checked again with another time limit: a result is kept (a limit only ever leaves a mutant unknown); an
    # unknown runs again only under a longer limit than it had (none is the longest), with the store's
    # preparation (it runs no mutant: the limit is not among what it depends on)
    with sqlite3.connect(store) as db:
        db.execute("UPDATE mutants SET status = 'unknown' WHERE mutant_id = ?", (ids[0],))
    db.close()
    kept, _ = _run(store, *THREE, "--timeout", "500", code=3)  # exit 3: a mutant is unknown
    assert kept["ran"] == 0 and kept["from_store"] == 3  # unknown with no limit: no limit does better
    with sqlite3.connect(store) as db:
        (settings,) = db.execute("SELECT settings FROM mutants WHERE mutant_id = ?", (ids[0],)).fetchone()
        within_100 = json.dumps({**json.loads(settings), "timeout": 100.0}, sort_keys=True)
        db.execute("UPDATE mutants SET settings = ? WHERE mutant_id = ?", (within_100, ids[0]))
    db.close()
    shorter, _ = _run(store, *THREE, "--timeout", "50", code=3)
    assert shorter["ran"] == 0 and shorter["from_store"] == 3
    longer, told = _run(store, *THREE, "--timeout", "500")
    assert [m["id"] for m in longer["mutants"] if m["ran_now"]] == [ids[0]] and longer["from_store"] == 2
    assert "proving the invariants" not in told
    assert longer["mutants"][0]["status"] == first["mutants"][0]["status"]


# -- comparison mutants ---------------------------------------------------------------------------------------------


def test_comparison_sites_are_the_rules_comparisons_not_the_judge_s_words_or_the_enumeration() -> None:
    """Each comparison of a function an action's body runs, in source order, with its boundary twin; the
    functions that word a refusal for the judge (`duel_over`) and the candidate enumerations are left out."""
    sites = {(c.function, c.index): c for c in mu.compare_sites()}
    draw = [c for c in sites.values() if c.function == "normal_draw"]
    assert [(c.op, c.twin) for c in draw] == [("<", "<=")]
    assert draw[0].text == 's.g("deck", tp) < count' and draw[0].line.startswith("rules.py:")
    # the guards the normal draw shares with the effect applied instead of it (6.3.1), in their own functions
    due = [c for c in sites.values() if c.function == "require_draw_due"]
    assert [c.text for c in due] == ['s.g("phase") == Phase.DRAW']
    assert mu.actions_of(mu.mutant_by_id("compare:require_draw_due:0")) == ["normal_draw", "draw_instead"]
    functions = {c.function for c in sites.values()}
    assert {"damage_calculation", "activate", "live", "not_holding_priority"} - functions == {"not_holding_priority"}
    assert "duel_over" not in functions and "_monsters" not in functions
    m = mu.mutant_by_id("compare:damage_calculation:1")
    assert m.reason.startswith("`a > t_atk` with > read as >=") and mu.actions_of(m) == ["pass", "end_step"]
    # a comparison inside a guard that bounds the model's encoding (ATK up to 9000) is left out like the guard
    bound = mu.mutant_by_id("compare:require_stats:1")
    assert bound.reason.startswith("`atk <= ATK_CAP`") and not bound.scored
    chosen, _ = mu.select_mutants(only="normal_draw", kinds=("compare",))
    assert {m.action for m in chosen} >= {"normal_draw", "live", "draw_count"}


def test_a_comparison_mutant_is_killed_and_the_rules_come_back() -> None:
    """`phase == Phase.DRAW` read as `!=` in the normal draw's guard: the turn player of turn 2 can never make the
    draw the Draw Phase waits for, and no-deadlock sees it on turn 2 (2 steps: both phase ends of turn 1 in one)."""
    before = (R.normal_draw, R.ACTION_BY_NAME["normal_draw"].body, list(R.ACTIONS))
    got = mu.kill(Rules(), mu.mutant_by_id("compare:require_draw_due:0"), 3, {}, prove=False)
    assert (got["status"], got["killed_by"], got["length"]) == ("killed", "no-deadlock", 2), got
    assert (R.normal_draw, R.ACTION_BY_NAME["normal_draw"].body, list(R.ACTIONS)) == before


# -- the witnesses of the Main Phase's other actions (a negated guard that makes an action never legal is lost) --


def _turn_3(summon: str, then: str) -> list[tuple[str, dict[str, int]]]:
    """A monster summoned (or Set) on turn 1 and acted on in Main Phase 1 of turn 3 (9 steps)."""
    monster = {"atk": 0, "defv": 0, "mkind": 0, "eff": 0}
    calm = [("end_steps", {"choice": NO_CHOICE}), ("end_steps", {"choice": TO_END}), ("normal_draw", {})]
    return [calm[0], (summon, monster), *calm[1:], *calm, calm[0], (then, {"zone": 0})]


@pytest.mark.parametrize(
    ("witness", "play", "mutant"),
    [
        ("reach-flip-summon", _turn_3("set_monster", "flip_summon"), "negate:flip_summon:13"),
        ("reach-position-change", _turn_3("normal_summon", "change_position"), "negate:change_position:15"),
        (
            "reach-set-spell-trap",
            [("end_steps", {"choice": NO_CHOICE}), ("set_spell_trap", {"kind": int(Kind.NORMAL_TRAP)})],
            None,
        ),
    ],
)
def test_the_main_phase_witnesses_read_what_happened(witness: str, play: list[Any], mutant: str | None) -> None:
    """Each witness is reached by its play (and not one step earlier), reads the card's change (a Flip Summon
    that left the monster face-down is no witness), and the play breaks under a guard negated so that the action
    is never legal: the mutant the witness exists to kill."""
    from duelcheck.engines.shrink import reaches

    (check,) = BY_NAME[witness].checks
    ts = TransitionSystem(Rules())
    steps = reaches(ts, check, ts.init(), play)
    assert steps is not None and len(steps) == len(play), witness
    assert reaches(ts, check, ts.init(), play[:-1]) is None
    if mutant is not None:
        with mu.activated(mu.mutant_by_id(mutant)):
            mts = TransitionSystem(Rules())
            assert reaches(mts, check, mts.init(), play) is None
        with mu.activated(mu.mutant_by_id("semantic:flip_summon_to_defense")):
            mts = TransitionSystem(Rules())
            assert (reaches(mts, check, mts.init(), play) is None) == (witness == "reach-flip-summon")


def test_a_mutant_that_changes_no_step_is_proved_equivalent_whatever_its_kind() -> None:
    """One solver question per action the mutant changes: `a < t_def` read as `<=` in damage calculation
    changes nothing (at equality the damage is 0 either way); the turn's end clearing the other player's
    "Set this turn" flags instead of its own changes nothing (both are cleared); the normal draw that forgets
    the hand, or a Defense Position row at equality read as the row below it, does change a step."""
    original = R.damage_calculation
    for mid in ("compare:damage_calculation:6", "swap:discard:17"):
        status, why = mu.equivalence(Rules(), mu.mutant_by_id(mid), [])
        assert status == "equivalent" and why.startswith("dead code: in every state"), (mid, why)
    for mid in ("write:normal_draw:3", "compare:damage_calculation:5"):
        assert mu.equivalence(Rules(), mu.mutant_by_id(mid), []) == ("not-equivalent", ""), mid
    assert S.MUTATION is None and R.damage_calculation is original


def test_the_rules_proof_is_asked_again_of_the_mutants_own_steps_only() -> None:
    """A fact proved for the rules (a resolving chain has a link) stays inductive under a mutant whose action
    does not touch it (a Set Spell/Trap with no card in hand) and is not shown kept
    when the last resolution forgets to end the resolving (its write dropped); a mutant whose first step breaks
    a property fails the base case."""
    for mid, kept in (("drop:set_spell_trap:11", True), (_write("resolve", 'n.set("resolving", False)'), False)):
        m = mu.mutant_by_id(mid)
        with mu.activated(m):
            why = mu.still_inductive(TransitionSystem(Rules()), m, [CHAIN_HAS_A_LINK])
        assert (why is None) == kept, (mid, why)
        assert kept or why == "the invariants are not shown kept by resolve under the mutant"
    # a comparison: the actions that run its function are asked every fact, the others what the mutant changed
    original = mu.proof_terms(Rules(), [CHAIN_HAS_A_LINK])
    m = mu.mutant_by_id("compare:set_spell_trap:0")
    assert mu.actions_of(m) == ["set_spell_trap"]
    with mu.activated(m):
        assert mu.still_inductive(TransitionSystem(Rules()), m, [CHAIN_HAS_A_LINK], original=original) is None
    m = mu.mutant_by_id("drop:normal_draw:3")
    with mu.activated(m):
        why = mu.still_inductive(TransitionSystem(Rules()), m, ["first-turn-no-draw"])
    assert why == "first-turn-no-draw fails in the initial state or the first step under the mutant"


# an equal-ATK battle as the baseline finds it (11 steps): a monster of 6400 ATK each side, turn 2 attacks
EQUAL_ATK_BATTLE: list[tuple[str, dict[str, Any]]] = [
    ("end_steps", {"choice": NO_CHOICE}),
    ("normal_summon", {"atk": 64, "defv": 0, "eff": 0, "mkind": 0}),
    ("end_steps", {"choice": TO_END}),
    ("normal_draw", {}),
    ("end_steps", {"choice": NO_CHOICE}),
    ("normal_summon", {"atk": 64, "defv": 0, "eff": 0, "mkind": 0}),
    ("end_steps", {"choice": TO_BATTLE}),
    ("declare_attack", {"tzone": 0, "zone": 0}),
    ("end_step", {"choice": NO_CHOICE}),
    ("end_steps", {"choice": NO_CHOICE}),
    ("end_step", {"choice": NO_CHOICE}),
]


def test_the_rules_own_plays_replayed_under_a_mutant_show_its_violation_without_a_search() -> None:
    """`a != 0` read as `a == 0` in the damage table's equal-ATK row: the play the rules make to an equal-ATK
    battle, replayed under the mutant, breaks the damage table at its damage calculation (the last fine step); the
    rules as written keep every invariant along the same play."""
    invariants = [BY_NAME["battle-damage-table"], BY_NAME["card-conservation"], BY_NAME["well-formed"]]
    ts = TransitionSystem(Rules())
    assert mu._replay_violation(ts, invariants, {"equal": EQUAL_ATK_BATTLE}) is None
    with mu.activated(mu.mutant_by_id("compare:damage_calculation:4")):
        mts = TransitionSystem(Rules())
        r = mu._replay_violation(mts, invariants, {"equal": EQUAL_ATK_BATTLE})
    # the play is replayed fine step by fine step (a composite's parts one by one): the damage calculation is
    # the last of them
    fine, state = 0, ts.init()
    for move, given in EQUAL_ATK_BATTLE:
        parts = ts.expand(state, move, given)
        assert isinstance(parts, list), move
        fine, state = fine + len(parts), parts[-1].state
    assert fine > len(EQUAL_ATK_BATTLE)
    assert r is not None and r.label == "battle-damage-table" and r.length == fine
    assert r.note.startswith(f"found on the play reaching equal replayed under the mutant, step {fine};")


def test_a_player_who_loses_with_a_card_left_is_caught_by_deck_out_loses() -> None:
    """`deck < count` read as `deck <= count` in the normal draw: the last card's draw loses the duel. Survived
    the first comparison run (deck-out-loses said only that an empty deck loses); with a deck of one card after
    the opening hand, turn 2's draw shows it at once."""
    rules = Rules(deck_size=6, starting_hand=5)
    got = mu.kill(rules, mu.mutant_by_id("compare:normal_draw:0", rules), 4, {}, prove=False)
    assert (got["status"], got["killed_by"]) == ("killed", "deck-out-loses"), got
    assert got["length"] <= 3


@pytest.mark.parametrize(
    ("mutant_id", "prop", "depth"),
    [
        ("compare:pay_cost:0", "costs-paid-on-activation", 4),  # a no-cost card discards; Magic Jammer does not
        # a card targets itself (5 steps: a response window, 6.3, is passed by both on the way)
        ("compare:choose_targets:6", "target-is-another-card", 5),
        ("compare:choose_targets:10", "well-formed", 4),  # an untargeted link records a target
    ],
)
def test_the_properties_added_for_the_comparison_survivors_kill_them(mutant_id: str, prop: str, depth: int) -> None:
    """Survivors of the comparison run, each killed at once by the property written for the clause it breaks (on
    the small field: these are of costs and targets, which one zone of each kind holds)."""
    got = mu.kill(SMALL, mu.mutant_by_id(mutant_id, SMALL), depth, {}, prove=False)
    assert (got["status"], got["killed_by"], got["kill_kind"]) == ("killed", prop, "violated"), got


def test_a_witness_beyond_the_bound_is_lost_when_induction_under_the_mutant_rules_it_out() -> None:
    """A replay's direct attack (13 steps, past the bound of 12): the rules' play reaches it, so nothing is lost;
    under the re-selection's `t == DIRECT` read as `!=` (a direct attack is never a legal new target) the play
    breaks and induction proves that no re-selection is ever a direct attack: the mutant is killed by a lost
    witness. A mutant whose play still reaches it loses nothing."""
    label = "reach-every-replay-choice[direct]"
    deep = {label: REPLAY_DIRECT}
    assert mu._lost_beyond(TransitionSystem(Rules()), {}, deep, None) == []
    with mu.activated(mu.mutant_by_id("compare:replay_select:4")):
        (r,) = mu._lost_beyond(TransitionSystem(Rules()), {}, deep, None)
    assert (r.label, r.verdict, r.proved, r.bound) == (label, "unreachable", True, 13)
    with mu.activated(mu.mutant_by_id("drop:replay_select:0")):  # one guard fewer: the play stands
        assert mu._lost_beyond(TransitionSystem(Rules()), {}, deep, None) == []


def test_the_time_limit_in_the_induction_of_a_witness_beyond_the_bound_is_unknown_not_a_failure() -> None:
    """The same broken play with the time limit already struck: the witness is undecided (unknown), neither
    lost nor kept, and no exception escapes to fail the mutant (a full run once lost four mutants this way)."""
    label = "reach-every-replay-choice[direct]"
    with mu.activated(mu.mutant_by_id("compare:replay_select:1")):
        (r,) = mu._lost_beyond(TransitionSystem(Rules()), {}, {label: REPLAY_DIRECT}, time.monotonic())
    assert (r.label, r.verdict, r.proved) == (label, "unknown", False) and "time limit" in r.note


def test_a_mutant_whose_proof_is_kept_is_searched_for_no_violation_and_still_loses_its_witnesses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the rules' proof still holds under the mutant no invariant is violated at any depth: past the short
    seeded search made before the proof is asked (`SEEDED_EARLY`), neither the seeded search nor the shallow
    search is made (a dropped write of `pass` once spent 595 s in the seeded search before a proof of 45 s
    settled it), and the mutant survives with its invariants proved; a witness whose play breaks is still
    searched, and a lost one kills it (a Set only with an empty hand never Sets in 2 steps)."""
    found, plays, _ = mu.baseline(Rules(), 2, [])
    assert found["reach-set-spell-trap"] == 2
    searched: list[int] = []
    monkeypatch.setattr(
        mu.killing, "SEEDED_EARLY", 3
    )  # short of the bound's 2 + SEEDED_BEYOND: a further search is due

    def short_only(ts: Any, seeded: Any, invariants: Any, depth: int, *args: Any, **kwargs: Any) -> Any:
        if searched or depth > mu.killing.SEEDED_EARLY:
            raise AssertionError("a search for a violation under a mutant whose proof is kept")
        searched.append(depth)
        return mu.SeededKill(None, f"unreached up to {depth} steps", depth)

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a search for a violation under a mutant whose proof is kept")

    def kept(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return mu._outcome("survived", "every invariant proved for all depths under the mutant", {})

    monkeypatch.setattr(mu.killing, "_proof_kept", kept)
    monkeypatch.setattr(mu.killing, "_seeded_kill", short_only)
    monkeypatch.setattr(mu.killing, "_probe", never)
    lemmas = ["well-formed"]
    out = mu.kill(Rules(), mu.mutant_by_id("drop:set_spell_trap:15"), 2, found, plays=plays, lemmas=lemmas)
    assert out["status"] == "survived" and out["note"].startswith("every invariant proved")
    assert searched == [mu.killing.SEEDED_EARLY]
    searched.clear()
    out = mu.kill(Rules(), mu.mutant_by_id("negate:set_spell_trap:11"), 2, found, plays=plays, lemmas=lemmas)
    assert (out["status"], out["killed_by"], out["kill_kind"]) == ("killed", "reach-set-spell-trap", "not-found")
    assert searched == [3]
    searched.clear()
    # the time limit striking in that witness's search leaves it open: unknown, never a survivor
    m = mu.mutant_by_id("negate:set_spell_trap:11")
    out = mu.kill(Rules(), m, 2, found, plays=plays, lemmas=lemmas, timeout=1e-9)
    assert out["status"] == "unknown" and "reach-set-spell-trap" in out["note"], out


@pytest.mark.parametrize(("said", "refuted"), [("unreached up to 3", 0), ("the solver gave no answer at depth 4", 3)])
def test_the_longer_seeded_search_is_told_what_the_short_one_refuted_by_its_status_not_its_words(
    monkeypatch: pytest.MonkeyPatch, said: str, refuted: int
) -> None:
    """The depths the short seeded search refuted from the start are asserted by the longer one, not asked again:
    the number it reports, whatever its note says (a note is for people)."""
    asked: list[tuple[int, int]] = []

    class Enough(Exception):
        pass

    def seeded(ts: Any, seeded: Any, invariants: Any, depth: int, *args: Any, **kwargs: Any) -> Any:
        asked.append((depth, kwargs.get("refuted", 0)))
        if len(asked) > 1:
            raise Enough
        return mu.SeededKill(None, said, refuted)

    monkeypatch.setattr(mu.killing, "SEEDED_EARLY", 3)
    monkeypatch.setattr(mu.killing, "_seeded_kill", seeded)
    monkeypatch.setattr(mu.killing, "_proof_kept", lambda *args, **kwargs: None)
    with pytest.raises(Enough):
        mu.kill(Rules(), mu.mutant_by_id("write:discard:13"), 2, {}, lemmas=["well-formed"])
    assert asked == [(3, 0), (2 + mu.SEEDED_BEYOND, refuted)]


@pytest.mark.parametrize("deep_kill", [True, False])
def test_the_checker_comes_last_after_the_searches_for_a_deep_setting_up(
    monkeypatch: pytest.MonkeyPatch, deep_kill: bool
) -> None:
    """Stages 1 to 4 settle nothing (each stood in for): the goal-directed, wide and far searches come next,
    and the checker (induction, then bounded model checking to the bound) only after them, and only when they
    found no violation: a kill needing a deep setting-up pays nothing for the checker's bounded search."""
    from duelcheck.engines import checker as checker_module
    from duelcheck.engines.base import Result, Trace
    from duelcheck.model.system import Step

    order: list[str] = []

    def seeded(ts: Any, seeded: Any, invariants: Any, depth: int, *args: Any, **kwargs: Any) -> Any:
        far = kwargs.get("far", False) or (len(args) > 3 and args[3])
        order.append("far" if far else "seeded")
        return mu.SeededKill(None, f"unreached up to {depth}", 0 if far else depth)

    def goal(ts: Any, *args: Any) -> Any:
        order.append("goal")
        if not deep_kill:
            return None
        state = ts.init()
        trace = Trace([Step("init", {}, state), Step("normal_draw", {}, state)])
        return Result("well-formed", "", "always", "violated", 1, 0.0, "goal", trace, "goal-directed search")

    class Checker:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            order.append("checker")

        def run(self, props: Any) -> Any:
            return type("Run", (), {"results": []})()

    monkeypatch.setattr(mu.killing, "_replay_violation", lambda *args: None)
    monkeypatch.setattr(mu.killing, "_seeded_kill", seeded)
    monkeypatch.setattr(mu.killing, "_proof_kept", lambda *args, **kwargs: None)
    monkeypatch.setattr(mu.killing, "_witness_search", lambda *args: [])
    monkeypatch.setattr(mu.killing, "_probe", lambda *args: [])
    monkeypatch.setattr(mu.killing, "_lost_beyond", lambda *args: [])
    monkeypatch.setattr(mu.killing, "_goal_kill", goal)
    monkeypatch.setattr(checker_module, "Checker", Checker)
    out = mu.kill(Rules(), mu.mutant_by_id("write:discard:17"), 12, {}, lemmas=["well-formed"])
    early = ["seeded", "seeded", "far", "seeded"]  # to SEEDED_EARLY, to the bound's 4 + 4, the far search, a tail
    if deep_kill:
        assert order == [*early, "goal"] and (out["status"], out["killed_by"]) == ("killed", "well-formed"), out
    else:
        assert order == [*early, "goal", "far", "far", "checker"] and out["status"] == "survived", out


def _on_to_turn(ts: TransitionSystem, moves: list[tuple[str, dict[str, Any]]], turn: int) -> list[Any]:
    """`moves` made, then the plainest way on until `turn` is past its Main Phase 1."""
    before = (Phase.DRAW, Phase.STANDBY, Phase.MAIN1)
    return played_until(ts, moves, lambda s: s.g("turn") >= turn and s.g("phase") not in before)


@pytest.mark.parametrize(
    ("mutant_id", "effect", "case"),
    [("write:pass:13", Effect.SKIP_MAIN1, "main-phase-1"), ("write:pass:14", Effect.SKIP_BP, "battle-phase")],
)
def test_a_skip_effect_that_skips_more_than_one_phase_is_caught_by_phase_skips(
    mutant_id: str, effect: Effect, case: str
) -> None:
    """Seed 000's "the opponent skips their next Main Phase 1 / Battle Phase", with the rule's mark never
    cleared (its write dropped): the player skips that phase again on their next turn. `phase-skips` reads what
    resolved (the property layer's history), not the rules' mark: the rules' play to a skip effect's resolution
    on turn 1 (the witness that skips Main Phase 1, its card given the effect), then the plainest way on to
    turn 4, keeps it; the mutant's breaks it on the second skip (every invariant survived these mutants)."""
    (found,) = BMC(TransitionSystem(Rules())).run([BY_NAME["reach-standby-to-end"]], 9)
    assert found.verdict == "found" and found.trace is not None
    moves = [(st.action, dict(st.params)) for st in found.trace.steps[1:]]
    last = max(i for i, (move, _) in enumerate(moves) if move == "resolve")
    skip = [(m, {**g, "eff": int(effect)} if m == "activate" else g) for m, g in moves[: last + 1]]
    prop = [BY_NAME["phase-skips"]]
    ts = TransitionSystem(Rules())
    assert mu._replay_violation(ts, prop, {"skip": _on_to_turn(ts, skip, 4)}) is None
    with mu.activated(mu.mutant_by_id(mutant_id)):
        mts = TransitionSystem(Rules())
        r = mu._replay_violation(mts, prop, {"skip": _on_to_turn(mts, skip, 4)})
    assert r is not None and r.label == f"phase-skips[{case}]", r


@pytest.mark.parametrize(
    "mutant_id",
    [_write("normal_summon", 'n.set("m_fresh", p, z, True)'), _write("set_monster", 'n.set("m_fresh", p, z, True)')],
)
def test_a_position_changed_on_the_turn_its_monster_arrived_is_caught_from_history(mutant_id: str) -> None:
    """The "summoned or Set this turn" mark not written (a dropped write of the monster's placing): the monster
    changes its battle position (or is Flip Summoned) on the turn it arrived. `position-change-rules` reads when
    it arrived from the property layer's history, not the rules' mark, and catches it on that step."""
    summon = ("normal_summon", {"atk": 10, "defv": 10, "eff": 0, "mkind": 0})
    set_ = ("set_monster", {"atk": 10, "defv": 10, "eff": 0, "mkind": 0})
    first = summon if mutant_id.startswith("write:normal_summon") else set_
    second = ("change_position", {"zone": 0}) if first is summon else ("flip_summon", {"zone": 0})
    prop = [BY_NAME["position-change-rules"]]
    ts = TransitionSystem(Rules())
    main1 = ts.expand(ts.init(), "end_steps", {"choice": NO_CHOICE})  # turn 1's Main Phase 1
    assert isinstance(main1, list)
    assert not ts.apply(ts.apply(main1[-1].state, *first).state, *second).ok  # the rules refuse it
    window = [("pass", {"choice": NO_CHOICE})] * 2  # 6.3: the response window the summon or Set opens
    with mu.activated(mu.mutant_by_id(mutant_id)):
        play = [("end_steps", {"choice": NO_CHOICE}), first, *window, second]
        r = mu._replay_violation(TransitionSystem(Rules()), prop, {"arrived": play})
    assert r is not None and r.label == "position-change-rules" and r.trace.steps[-1].action == second[0], r


def _resolving_board(ts: TransitionSystem, effect: Effect) -> State:
    """Turn 3, the Battle Step: player 0's Quick-Play Spell (face-up in their zone 0) resolves alone on the
    chain, its effect `effect`, targeting player 1's face-up Attack Position monster in zone 0."""
    init = ts.init()
    v = dict(init.v)
    v.update({("turn",): 3, ("phase",): int(Phase.BATTLE_STEP), ("drew",): True, ("bp_done",): True})
    v.update({("h_battled",): 1, ("resolving",): True, ("h_resolving",): 1, ("chain_len",): 1})
    v.update({("m_occ", 1, 0): True, ("m_up", 1, 0): True, ("m_atk", 1, 0): 10, ("m_defv", 1, 0): 10})
    v.update({("s_occ", 0, 0): True, ("s_up", 0, 0): True, ("s_kind", 0, 0): int(Kind.QUICK_SPELL)})
    v.update({("c_owner", 0): 0, ("c_kind", 0): int(Kind.QUICK_SPELL), ("c_eff", 0): int(effect), ("c_zone", 0): 0})
    v.update({("c_tp", 0): 1, ("c_ta", 0): 0, ("c_tz", 0): 0})
    return State(init.k, init.r, init.schema, v)


@pytest.mark.parametrize(
    ("mutant_id", "effect"),
    [
        (_write("resolve", 'k.not_(s.g("m_def", tpl, tz))'), Effect.CHANGE_POSITION),  # the other position not written
        (_write("resolve", 'n.set("phase", Phase.BATTLE_END)'), Effect.END_BATTLE_PHASE),  # not to the End Step
    ],
)
def test_an_effect_that_does_nothing_is_caught_by_resolution_effects(mutant_id: str, effect: Effect) -> None:
    """A catalogue effect whose write is dropped resolves and does nothing (every invariant survived these):
    `resolution-effects[as-written]` reads the link's text and what the step changed."""
    check = next(c for c in BY_NAME["resolution-effects"].checks if c.label == "as-written")
    params = {"atk": 0, "defv": 0, "pos": 0, "amount": 0}
    ts = TransitionSystem(Rules())
    board = _resolving_board(ts, effect)
    out = ts.apply(board, "resolve", params)
    assert out.ok and out.state is not None and check.eval(board, ActionView("resolve", params, False), out.state)
    with mu.activated(mu.mutant_by_id(mutant_id)):
        mts = TransitionSystem(Rules())
        out = mts.apply(board, "resolve", params)
        assert out.ok and out.state is not None
        assert not check.eval(board, ActionView("resolve", params, False), out.state)


@pytest.mark.parametrize(
    "mutant_id",
    [
        _write("normal_summon", 'n.set("m_defv", p, z, defv)'),
        _write("set_monster", 'n.set("m_atk", p, z, atk)'),
        "write:set_spell_trap:3",
    ],
)
def test_a_card_played_as_another_is_caught_by_cards_as_played(mutant_id: str) -> None:
    """A write of the card played dropped (its DEF, its ATK, a Set card's effect): the card on the field is not
    the one the action names. Every invariant survived these (a 0 DEF monster is a card too); `cards-as-played`
    reads the action's parameters and catches each on that step. The rules keep it on every such step of turn 1."""
    action = mutant_id.split(":")[1]
    ts = TransitionSystem(Rules())
    main1 = ts.expand(ts.init(), "end_steps", {"choice": NO_CHOICE})
    assert isinstance(main1, list)
    start = main1[-1].state
    steps = [st for st in ts.successors(start) if st.action == action and any(st.params.values())]
    assert steps
    check = BY_NAME["cards-as-played"].checks[0]
    assert all(check.eval(start, ActionView(st.action, st.params, False), st.state) for st in steps)
    with mu.activated(mu.mutant_by_id(mutant_id)):
        mts = TransitionSystem(Rules())
        caught = [st for st in mts.successors(start) if st.action == action]
        assert any(not check.eval(start, ActionView(st.action, st.params, False), st.state) for st in caught)


def _to_main1(ts: TransitionSystem, moves: list[tuple[str, dict[str, Any]]], turn: int) -> list[Any]:
    """`moves` made, then the plainest way on until Main Phase 1 of `turn` begins."""
    return played_until(ts, moves, lambda s: s.g("turn") == turn and s.g("phase") == Phase.MAIN1)


def _caught(mutant_id: str, prop: str, play: list[Any]) -> Any:
    """The rules keep `prop` on every step of `play`; the first violation of it on the play under the mutant."""
    props = [BY_NAME[prop]]
    assert mu._replay_violation(TransitionSystem(Rules()), props, {"play": play}) is None
    with mu.activated(mu.mutant_by_id(mutant_id)):
        return mu._replay_violation(TransitionSystem(Rules()), props, {"play": play})


MAIN1 = ("end_steps", {"choice": NO_CHOICE})
PASS = ("pass", {"choice": NO_CHOICE})
RESOLVE = ("resolve", {"atk": 0, "defv": 0, "pos": False, "amount": 0})
NO_TARGET = {"tplayer": 0, "tarea": 0, "tzone": 0}


def _from_hand(kind: Kind, eff: Effect, cost: Cost = Cost.NONE) -> tuple[str, dict[str, int]]:
    return ("activate", {"zone": HAND, "kind": int(kind), "eff": int(eff), **NO_TARGET, "cost": int(cost)})


def _direct_attack_on_turn_2(attacker: dict[str, int]) -> list[Any]:
    """Player 0 summons a monster of 0 ATK on turn 1; on turn 2 player 1 summons `attacker` and attacks directly."""
    return [
        MAIN1,
        ("normal_summon", {"atk": 0, "defv": 0, "mkind": 0, "eff": 0}),
        ("end_steps", {"choice": TO_END}),
        ("normal_draw", {}),
        MAIN1,
        ("normal_summon", attacker),
        ("end_steps", {"choice": TO_BATTLE}),
        ("declare_attack", {"zone": 0, "tzone": DIRECT}),
    ]


def test_a_direct_attack_lost_to_an_atk_raise_is_caught_from_history() -> None:
    """6.3.4.2.1 (001:L55): the replay an ATK raise causes never marked (write:resolve:41): the monster that attacks
    directly by its own effect ("while its ATK is 1000 or less") goes on with 1100 ATK against an opponent who
    controls a monster. The property layer's history sees the ability lost and keeps the replay due."""
    direct = {"atk": 3, "defv": 0, "mkind": int(MonsterEffect.CONTINUOUS), "eff": int(Effect.ATTACK_DIRECTLY)}
    raise_atk = ("activate", {**_from_hand(Kind.QUICK_SPELL, Effect.CHANGE_ATK)[1], "tplayer": 1})
    play = [*_direct_attack_on_turn_2(direct), raise_atk, PASS, PASS]
    play.append(("resolve", {"atk": 0, "defv": 0, "pos": False, "amount": 8}))
    r = _caught("write:resolve:41", "bookkeeping-matches-history", play)
    assert r is not None and r.trace.steps[-1].action == "resolve", r


@pytest.mark.parametrize("prop", ["attack-target-stays-legal", "attack-targets"])
def test_a_direct_attack_past_the_opponents_monster_is_caught(prop: str) -> None:
    """6.3.4.2: the guard that keeps a direct attack to an empty field, or to the attacker's own effect, dropped
    (drop:declare_attack:14): a monster without that effect attacks directly past the opponent's monster."""
    play = _direct_attack_on_turn_2({"atk": 10, "defv": 0, "mkind": 0, "eff": 0})
    r = _caught("drop:declare_attack:14", prop, play)
    assert r is not None and r.trace.steps[-1].action == "declare_attack", r


REPLACED = [
    MAIN1,
    (
        "normal_summon",
        {"atk": 15, "defv": 10, "mkind": int(MonsterEffect.CONTINUOUS), "eff": int(Effect.DISCARD_INSTEAD)},
    ),
    ("end_steps", {"choice": TO_END}),
    ("normal_draw", {}),
    MAIN1,
    ("normal_summon", {"atk": 20, "defv": 0, "mkind": 0, "eff": 0}),
    ("end_steps", {"choice": TO_BATTLE}),
    ("declare_attack", {"zone": 0, "tzone": 0}),
    ("end_steps", {"choice": NO_CHOICE}),  # to before damage calculation
    ("end_steps", {"choice": NO_CHOICE}),  # damage calculation: 2000 against 1500, the replacement offered
    ("replace_destruction", {"pos": True}),
]


@pytest.mark.parametrize(
    ("mutant_id", "prop"),
    [
        ("write:replace_destruction:3", "destruction-replacement"),  # a card discarded, the monster still destroyed
        ("write:replace_destruction:1", "destruction-replacement"),  # the monster spared, no card discarded
    ],
)
def test_a_destruction_replacement_that_does_not_do_what_it_says_is_caught(mutant_id: str, prop: str) -> None:
    """6.3.4.3.3 (001:L86): the replacement applied at damage calculation spares the monster, its controller
    discarding a card; a rule that forgets either half is caught on the play that applies it."""
    r = _caught(mutant_id, prop, REPLACED)
    assert r is not None and r.trace.steps[-1].action == "replace_destruction", r


def test_a_trap_past_a_continuous_spell_that_forbids_it_is_caught() -> None:
    """6.3.4.3 (001:L64): the guard of "your opponent cannot activate Trap cards" dropped (drop:activate:52): the
    opponent's Trap is activated while a resolved Continuous Spell with that effect is face-up."""
    spell = _from_hand(Kind.CONT_SPELL, Effect.NO_TRAPS)
    set_trap = ("set_spell_trap", {"kind": int(Kind.NORMAL_TRAP), "eff": int(Effect.DRAW), "cost": 0})
    trap = ("activate", {"zone": 0, "kind": int(Kind.NORMAL_TRAP), "eff": int(Effect.DRAW), **NO_TARGET, "cost": 0})
    play = [MAIN1, spell, PASS, PASS, RESOLVE, ("end_steps", {"choice": TO_END})]
    play += [("normal_draw", {}), MAIN1, set_trap, ("end_steps", {"choice": TO_END}), ("normal_draw", {}), MAIN1]
    play += [PASS, trap]
    r = _caught("drop:activate:52", "continuous-effects", play)
    assert r is not None and r.trace.steps[-1].action == "activate", r


def test_a_monster_effect_used_twice_in_a_turn_is_caught_from_history() -> None:
    """`m_used` never written (write:activate:11): a monster's Ignition effect is activated a second time in the
    turn. `activation-timing[monster-effect-once-per-turn]` counts the activations itself (history `h_used`)."""
    ignition = {"atk": 10, "defv": 10, "mkind": int(MonsterEffect.IGNITION), "eff": int(Effect.DRAW)}
    use = ("activate", {"zone": 0, "kind": int(Kind.IGNITION), "eff": int(Effect.DRAW), **NO_TARGET, "cost": 0})
    # each act and each resolved chain opens a response window (6.3), passed by both before the next use
    play = [MAIN1, ("normal_summon", ignition), PASS, PASS, use, PASS, PASS, RESOLVE, PASS, PASS, use]
    ts = TransitionSystem(Rules())
    state = ts.init()
    for move, given in play[:-1]:
        state = ts.apply(state, move, given).state
    assert not ts.apply(state, *play[-1]).ok  # the rules refuse the second use
    r = _caught("write:activate:11", "activation-timing", play)
    assert r is not None and r.label == "activation-timing[monster-effect-once-per-turn]", r
    assert r.trace.steps[-1].action == "activate"


def test_an_activation_that_keeps_priority_is_caught_by_responses_after_each_link() -> None:
    """Priority not handed over by a new link (write:activate:14): the opponent never gets to respond first."""
    r = _caught("write:activate:14", "responses-after-each-link", [MAIN1, _from_hand(Kind.NORMAL_SPELL, Effect.DRAW)])
    assert r is not None and r.trace.steps[-1].action == "activate", r


def _flip_summon_play(ts: TransitionSystem) -> list[Any]:
    """A plain monster Set on turn 1 (zone 0), a Flip monster on turn 3 (zone 1), Flip Summoned on turn 5 and
    its effect activated."""
    plain = ("set_monster", {"atk": 10, "defv": 10, "mkind": 0, "eff": 0})
    flip = ("set_monster", {"atk": 10, "defv": 10, "mkind": int(MonsterEffect.FLIP), "eff": int(Effect.DRAW)})
    play = _to_main1(ts, [MAIN1, plain], 3)
    play = _to_main1(ts, [*play, flip], 5)
    return [*play, ("flip_summon", {"zone": 1}), ("trigger", {"pos": True, **NO_TARGET})]


@pytest.mark.parametrize(
    ("mutant_id", "prop"),
    [
        ("write:trigger:3", "responses-after-each-link"),  # the triggered link keeps priority with its player
        ("write:flip_summon:8", "triggers-first"),  # the Flip effect's link names zone 0, not the flipped monster's
    ],
)
def test_a_triggered_link_is_its_card_s_and_the_other_player_responds(mutant_id: str, prop: str) -> None:
    play = _flip_summon_play(TransitionSystem(Rules()))
    r = _caught(mutant_id, prop, play)
    assert r is not None and r.label == prop and r.trace.steps[-1].action == "trigger", r


def test_priority_during_the_hand_limit_discard_is_the_turn_player_s() -> None:
    """Priority not given to the turn player at the hand-limit discard (write:pass:42): `well-formed`."""
    play = played_until(TransitionSystem(Rules()), [], lambda s: s.g("discarding"))
    r = _caught("write:pass:42", "well-formed", play)
    assert r is not None and r.trace.steps[-1].state.g("discarding"), r


def test_a_spell_from_the_hand_keeps_the_cost_its_link_paid() -> None:
    """A Continuous Spell activated from the hand with a discard cost, the card's cost not written
    (write:activate:8): the card on the field and its link disagree; `well-formed` reads both."""
    r = _caught("write:activate:8", "well-formed", [MAIN1, _from_hand(Kind.CONT_SPELL, Effect.NONE, Cost.DISCARD)])
    assert r is not None and r.trace.steps[-1].action == "activate", r


@pytest.mark.parametrize(
    ("mutant_id", "action"),
    [
        ("write:declare_attack:4", "declare_attack"),  # the declaration's window never opened
        ("write:resolve:43", "resolve"),  # nor closed when the chain answering it resolved
        ("write:replay_select:0", "replay_select"),  # a replay still due after the new choice
    ],
)
def test_the_attack_declaration_and_the_replay_are_read_from_what_happened(mutant_id: str, action: str) -> None:
    """The rules' marks of an attack declaration's window and of a replay due, checked against the property
    layer's history (`h_declared`, `h_replay`) on the play of a replay's direct attack."""
    r = _caught(mutant_id, "bookkeeping-matches-history", REPLAY_DIRECT)
    assert r is not None and r.trace.steps[-1].action == action, r


def test_an_atk_change_that_does_nothing_is_caught_by_resolution_effects() -> None:
    """The new ATK not written; `resolution-effects[as-written]` reads the amount chosen."""
    check = next(c for c in BY_NAME["resolution-effects"].checks if c.label == "as-written")
    params = {"atk": 0, "defv": 0, "pos": 0, "amount": 5}
    ts = TransitionSystem(Rules())
    board = _resolving_board(ts, Effect.CHANGE_ATK)
    out = ts.apply(board, "resolve", params)
    assert out.ok and out.state is not None and out.state.g("m_atk", 1, 0) == 15
    assert check.eval(board, ActionView("resolve", params, False), out.state)
    with mu.activated(mu.mutant_by_id(_write("resolve", 'n.set("m_atk", tpl, tz, new)'))):
        out = TransitionSystem(Rules()).apply(board, "resolve", params)
        assert out.ok and out.state is not None
        assert not check.eval(board, ActionView("resolve", params, False), out.state)


def _dark_hole_keeps_the_attack(n: Any) -> None:
    """The rule before "each leaving means what one destroyed alone means": the attack ends only if the
    attacker's player had a monster, so a target destroyed in the End Damage Step, the attacker gone, leaves
    the attack going on."""
    k, tp = n.k, n.tp
    mine_had = n.monsters(tp) > 0
    for p in (0, 1):
        for z in range(n.r.monster_zones):
            with n.when(k.and_(n.g("m_occ", p, z), k.not_(n.g("m_doomed", p, z)))):
                R.to_graveyard(n, p, z)
    with n.when(k.and_(mine_had, n.g("attacking"))):
        R.end_attack(n)


def test_an_attack_whose_target_leaves_in_the_damage_step_ends_whatever_destroyed_it() -> None:
    """6.3.4.3.3: Dark Hole resolving in the End Damage Step after the attacker was destroyed by battle destroys
    the target: the attack ends, as when one card destroys the target. `attack-ends[battler-leaves]`
    catches the older rule, which no other invariant did."""
    check = BY_NAME["attack-ends"].checks[0]
    ts = TransitionSystem(Rules())
    board = _resolving_board(ts, Effect.DESTROY_ALL_MONSTERS)
    v = dict(board.v)
    v.update({("phase",): int(Phase.DMG_END), ("attacking",): True, ("atk_zone",): 0, ("atk_tgt",): 0})
    v.update({("c_tp", 0): 0, ("c_tz", 0): 0, ("s_kind", 0, 0): int(Kind.NORMAL_SPELL)})
    v.update({("c_kind", 0): int(Kind.NORMAL_SPELL), ("m_decl", 0, 0): False})
    board = State(board.k, board.r, board.schema, v)
    view = ActionView("resolve", dict(RESOLVE[1]), False)
    out = ts.apply(board, *RESOLVE)
    assert out.ok and out.state is not None and not out.state.g("attacking") and not out.state.g("m_occ", 1, 0)
    assert check.eval(board, view, out.state)
    with mu.mutated("destroy_all_monsters", _dark_hole_keeps_the_attack):
        out = TransitionSystem(Rules()).apply(board, *RESOLVE)
        assert out.ok and out.state is not None and out.state.g("attacking")
        assert not check.eval(board, view, out.state)


def _battle_board(ts: TransitionSystem, effect: Effect, target: tuple[int, int], attacker: int = 0) -> State:
    """`_resolving_board` in the Battle Step of an attack: player 0's monsters in zones 0 and 1 (face-up Attack
    Position), the one in zone `attacker` attacking player 1's monster in zone 0; the link targets the monster
    of player `target[0]` in zone `target[1]`."""
    board = _resolving_board(ts, effect)
    v = dict(board.v)
    for z in (0, 1):
        v.update({("m_occ", 0, z): True, ("m_up", 0, z): True, ("m_atk", 0, z): 10, ("m_defv", 0, z): 10})
    v.update({("attacking",): True, ("atk_zone",): attacker, ("atk_tgt",): 0})
    v.update({("m_decl", 0, attacker): True, ("h_attacks", 0, attacker): 1})
    v.update({("c_tp", 0): target[0], ("c_tz", 0): target[1]})
    return State(board.k, board.r, board.schema, v)


@pytest.mark.parametrize(
    ("mutant_id", "target", "attacker", "cases"),
    [
        # the target's position changed ends the attack (`p == n.tp` read as !=)
        ("compare:attacker_changed:0", (1, 0), 0, ["only-for-a-reason"]),
        # another of the attacking player's monsters changed ends it (`z == atk_zone` read as !=)
        ("compare:attacker_changed:1", (0, 0), 1, ["only-for-a-reason"]),
        # the attacker to Defense Position in the Battle Step goes on battling (`phase == BATTLE_STEP` as !=)
        # (and an attacker in Defense Position in the Battle Step)
        ("compare:attacker_changed:2", (0, 0), 0, ["attacker-to-defense", "attacker-in-attack-position"]),
    ],
)
def test_an_attack_ends_for_the_rules_reasons_only(
    mutant_id: str, target: tuple[int, int], attacker: int, cases: list[str]
) -> None:
    """6.3.4.2: a position change in the Battle Step ends the attack exactly when it turns the attacker to
    Defense Position. The three survivors of the last whole run (no property said which attacks end) are
    caught by `attack-ends`, which the rules keep."""
    checks = BY_NAME["attack-ends"].checks
    ts = TransitionSystem(Rules())
    board = _battle_board(ts, Effect.CHANGE_POSITION, target, attacker)
    view = ActionView("resolve", dict(RESOLVE[1]), False)
    out = ts.apply(board, *RESOLVE)
    assert out.ok and out.state is not None
    assert out.state.g("attacking") == (target != (0, attacker))
    assert all(c.eval(board, view, out.state) for c in checks)
    with mu.activated(mu.mutant_by_id(mutant_id)):
        out = TransitionSystem(Rules()).apply(board, *RESOLVE)
        assert out.ok and out.state is not None
        broken = [c.label for c in checks if not c.eval(board, view, out.state)]
    assert broken == cases


def test_a_destruction_destroys_its_target_alone() -> None:
    """compare:resolve:11 (`tar == 1` read as !=): "destroy one card" on a monster also destroys the card in
    the Spell & Trap Zone of the same number. `resolution-effects[only-what-it-names]` reads every zone."""
    check = next(c for c in BY_NAME["resolution-effects"].checks if c.label == "only-what-it-names")
    ts = TransitionSystem(Rules())
    board = _resolving_board(ts, Effect.DESTROY_CARD)
    v = dict(board.v)
    v.update({("c_kind", 0): int(Kind.NORMAL_SPELL), ("s_kind", 0, 0): int(Kind.NORMAL_SPELL)})
    v.update({("s_occ", 1, 0): True, ("s_kind", 1, 0): int(Kind.NORMAL_TRAP), ("hand", 1): 4})
    board = State(board.k, board.r, board.schema, v)
    view = ActionView("resolve", dict(RESOLVE[1]), False)
    out = ts.apply(board, *RESOLVE)
    assert out.ok and out.state is not None and not out.state.g("m_occ", 1, 0) and out.state.g("s_occ", 1, 0)
    assert check.eval(board, view, out.state)
    with mu.activated(mu.mutant_by_id("compare:resolve:11")):
        out = TransitionSystem(Rules()).apply(board, *RESOLVE)
        assert out.ok and out.state is not None and not out.state.g("s_occ", 1, 0)
        assert not check.eval(board, view, out.state)


def test_a_link_is_negated_only_by_a_negation_resolving_on_it() -> None:
    """compare:resolve:13 (`eff == Effect.NEGATE` read as !=): every other effect negates the link below it.
    The property layer keeps which links a negation resolved on (history `h_neg`): the rules' mark disagrees
    with it at once, and the link below, unnegated, must do what its text says."""
    books = BY_NAME["bookkeeping-matches-history"].checks[0]
    as_written = next(c for c in BY_NAME["resolution-effects"].checks if c.label == "as-written")
    ts = TransitionSystem(Rules())
    board = _resolving_board(ts, Effect.CHANGE_POSITION)  # link 0: a position change of player 1's monster
    v = dict(board.v)
    v.update({("chain_len",): 2, ("s_occ", 0, 1): True, ("s_up", 0, 1): True, ("s_kind", 0, 1): int(Kind.QUICK_SPELL)})
    v.update({("c_owner", 1): 0, ("c_kind", 1): int(Kind.QUICK_SPELL), ("c_eff", 1): int(Effect.DRAW)})
    v.update({("c_zone", 1): 1, ("deck", 0): 10})
    board = State(board.k, board.r, board.schema, v)
    assert books.eval(None, None, board)
    view = ActionView("resolve", dict(RESOLVE[1]), False)
    after = ts.apply(board, *RESOLVE).state
    assert after is not None and books.eval(None, None, after) and not after.g("c_neg", 0)
    last = ts.apply(after, *RESOLVE).state
    assert last is not None and last.g("m_def", 1, 0) and as_written.eval(after, view, last)
    with mu.activated(mu.mutant_by_id("compare:resolve:13")):
        mts = TransitionSystem(Rules())
        after = mts.apply(board, *RESOLVE).state
        assert after is not None and after.g("c_neg", 0) and not books.eval(None, None, after)
        last = mts.apply(after, *RESOLVE).state
        assert last is not None and not last.g("m_def", 1, 0) and not as_written.eval(after, view, last)


def test_each_play_has_one_spelling_in_the_log() -> None:
    """drop:trigger:11: a declined Flip effect may name a target, so the same play has two spellings in a duel
    log; `one-spelling-per-play` reads the action taken and what it did. So do a resolution naming an ATK
    amount it does not apply (compare:resolve:8) and monster stats it does not summon (drop:resolve:4)."""
    check = BY_NAME["one-spelling-per-play"].checks[0]
    ts = TransitionSystem(Rules())
    state = ts.init()
    for move, given in _flip_summon_play(ts)[:-1]:
        state = ts.apply(state, move, given).state
    plain, named = {"pos": False, **NO_TARGET}, {"pos": False, "tplayer": 0, "tarea": 0, "tzone": 1}
    out = ts.apply(state, "trigger", plain)
    assert out.ok and check.eval(state, ActionView("trigger", plain, False), out.state)
    assert not ts.apply(state, "trigger", named).ok
    with mu.activated(mu.mutant_by_id("drop:trigger:11")):
        out = TransitionSystem(Rules()).apply(state, "trigger", named)
        assert out.ok and not check.eval(state, ActionView("trigger", named, False), out.state)
    board = _resolving_board(ts, Effect.CHANGE_POSITION)
    for mutant_id, params in (
        ("compare:resolve:8", {**RESOLVE[1], "amount": 5}),
        ("drop:resolve:4", {**RESOLVE[1], "atk": 10, "defv": 10}),
    ):
        assert not ts.apply(board, "resolve", params).ok
        with mu.activated(mu.mutant_by_id(mutant_id)):
            out = TransitionSystem(Rules()).apply(board, "resolve", params)
            assert out.ok and not check.eval(board, ActionView("resolve", params, False), out.state)


def test_a_users_property_joins_the_suite_that_kills_mutants(tmp_path: Path) -> None:
    """`mutate --properties FILE`: the file's properties are checked against each mutant like the shipped ones
    (their counts kept as history in every system built), and a malformed file is one line, exit 2."""
    from duelcheck.engines import mutate as mu
    from duelcheck.properties import BY_NAME, PROPERTIES, user

    path = tmp_path / "mine.toml"
    path.write_text(
        '[[property]]\nname = "one-summon-counted"\nkind = "always"\n'
        'state = "count(action in (normal_summon, set_monster), this_turn) <= 1"\n',
        encoding="utf-8",
    )
    before = list(PROPERTIES)
    try:
        options = {"prove": False, "property_files": mu.property_files([str(path)])}
        mu.with_users(SMALL, options)
        mu.with_users(SMALL, options)  # once per process, however many tasks ask
        assert [p.name for p in PROPERTIES].count("one-summon-counted") == 1
        (m,) = [
            x
            for x in mu.all_mutants()
            if x.kind == "drop" and x.action == "normal_summon" and "Normal Summon or Set per turn" in x.reason
        ]
        out = mu.kill(SMALL, m, 6, {}, prove=False)  # the small field: two Monster Zones, two summons
        assert out["status"] == "killed" and out["verdicts"]["one-summon-counted"].startswith("violated")
    finally:
        PROPERTIES[:] = before
        BY_NAME.pop("one-summon-counted", None)
        user._REGISTERED.clear()
    bad = tmp_path / "bad.toml"
    bad.write_text('[[property]]\nname = "x"\nkind = "always"\nstate = "turn >"\n', encoding="utf-8")
    run = CliRunner().invoke(main, ["mutate", "--properties", str(bad), "--limit", "1", "--store", str(tmp_path / "s")])
    assert run.exit_code == 2 and len(run.stderr.strip().splitlines()) == 1 and "column" in run.stderr
