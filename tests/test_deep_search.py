"""The deep search: the both-players-pass step loses no play, verdicts are honest, results repeat."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli import rules_file, run

from duelcheck.api import load_rules
from duelcheck.engines.base import Trace
from duelcheck.engines.bmc import BMC, Goal
from duelcheck.engines.kind import Induction
from duelcheck.engines.shrink import shrink, slide
from duelcheck.engines.sim import Simulator
from duelcheck.model.cards import NO_CHOICE, TO_END
from duelcheck.model.rules import ACTION_BY_NAME
from duelcheck.model.state import State
from duelcheck.model.system import Step, TransitionSystem
from duelcheck.properties import BY_NAME
from duelcheck.properties.catalog import Check
from duelcheck.rules import Rules

COMPOSITES = [name for name, act in ACTION_BY_NAME.items() if act.parts is not None]
FINE = [name for name in ACTION_BY_NAME if name != "end_step" and name not in COMPOSITES]


def _walk(ts: TransitionSystem, seed: int, names: list[str], length: int) -> list[Step]:
    """A random legal play using only the named actions (candidates filtered by the rules)."""
    rng = random.Random(seed)
    s = ts.init()
    steps = [Step("init", {}, s)]
    for _ in range(length):
        options = []
        for name in rng.sample(names, len(names)):
            for params in ACTION_BY_NAME[name].candidates(s):
                out = ts.apply(s, name, params)
                if out.ok and out.state is not None:
                    options.append(Step(name, dict(params), out.state))
            if options:
                break
        if not options:
            break
        step = rng.choice(options)
        steps.append(step)
        s = step.state
    return steps


def _same(a: State, b: State) -> bool:
    return a.v == b.v


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32))
def test_every_fine_play_has_a_coarse_play_with_the_same_states(seed: int) -> None:
    """A play of the fine rules (single passes only): each pass pair that starts a round of passing
    with an empty chain is one end_step, which leads to the same state."""
    ts = TransitionSystem(Rules())
    steps = _walk(ts, seed, FINE, 40)
    s = ts.init()
    i = 1
    while i < len(steps):
        a = steps[i]
        b = steps[i + 1] if i + 1 < len(steps) else None
        pair = (
            b is not None
            and a.action == b.action == "pass"
            and a.params.get("choice") == NO_CHOICE
            and not s.g("passed")
            and s.g("chain_len") == 0
            and not s.g("window")  # two passes of a response window close it: the phase goes on (6.3)
        )
        if pair and b is not None:
            out = ts.apply(s, "end_step", b.params)
            assert out.ok and out.state is not None, out.reason
            assert _same(out.state, b.state)
            s, i = b.state, i + 2
        else:
            out = ts.apply(s, a.action, a.params)
            assert out.ok and out.state is not None and _same(out.state, a.state)
            s, i = a.state, i + 1


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32))
def test_every_coarse_play_expands_to_a_fine_play_with_the_same_states(seed: int) -> None:
    """A play that uses end_step: each end_step is a pass with no choice then a pass with its choice (after the
    two passes that close a response window open first)."""
    ts = TransitionSystem(Rules())
    steps = _walk(ts, seed, [*FINE, "end_step", "end_step", "end_step"], 40)
    s = ts.init()
    for step in steps[1:]:
        if step.action == "end_step":
            if s.g("window"):  # a response window open first: its two passes close it, then the two that end
                for _ in range(2):
                    closing = ts.apply(s, "pass", {"choice": NO_CHOICE})
                    assert closing.ok and closing.state is not None, closing.reason
                    s = closing.state
                assert not s.g("window") and not s.g("passed")
            first = ts.apply(s, "pass", {"choice": NO_CHOICE})
            assert first.ok and first.state is not None, first.reason
            second = ts.apply(first.state, "pass", step.params)
            assert second.ok and second.state is not None, second.reason
            assert _same(second.state, step.state)
        s = step.state


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32))
def test_every_play_with_two_end_steps_in_one_has_the_same_states_as_its_end_steps(seed: int) -> None:
    """Both ways: a play with end_step but no composite, each two end_steps in succession taken as one
    end_steps step, leads through the same states; and a play with end_steps expands into end_step pairs."""
    ts = TransitionSystem(Rules())
    steps = _walk(ts, seed, [*FINE, "end_step", "end_step", "end_step", "end_step"], 40)
    s, i = ts.init(), 1
    while i < len(steps):
        a, b = steps[i], steps[i + 1] if i + 1 < len(steps) else None
        if b is not None and a.action == b.action == "end_step":
            # some choice of the composite's leads to the same state (the choice is made at whichever end
            # is the end of Main Phase 1; "Main Phase 2" said where it is the only way on changes nothing)
            outs = [ts.apply(s, "end_steps", params) for params in ACTION_BY_NAME["end_steps"].candidates(s)]
            assert any(o.ok and o.state is not None and _same(o.state, b.state) for o in outs), (a, b)
            s, i = b.state, i + 2
            continue
        s, i = a.state, i + 1
    coarse = _walk(ts, seed, [*FINE, "end_steps", "end_steps", "end_steps", "end_steps"], 30)
    s = ts.init()
    for step in coarse[1:]:
        parts = ts.expand(s, step.action, step.params)
        assert isinstance(parts, list)
        if step.action == "end_steps":
            assert [p.action for p in parts] == ["end_step", "end_step"]
        state = s
        for part in parts:
            out = ts.apply(state, part.action, part.params)
            assert out.ok and out.state is not None and _same(out.state, part.state)
            state = out.state
        assert _same(state, step.state)
        s = step.state


def test_a_composite_step_is_never_the_step_a_property_reads(ts: TransitionSystem) -> None:
    """Two phase ends in one step skip a phase in its pre and post states; the phase order reads the two
    end_step parts instead, each a step of its own, so it holds; a witness is not reached by it either."""
    s = ts.init()
    out = ts.apply(s, "end_steps", {"choice": NO_CHOICE})  # Draw Phase -> Standby Phase -> Main Phase 1
    assert out.ok and out.state is not None
    (order,) = BY_NAME["phase-order"].checks
    from duelcheck.properties.catalog import ActionView

    whole = ActionView("end_steps", {"choice": NO_CHOICE}, symbolic=False)
    assert order.fn(s, whole, out.state) is False  # read as one step, the order is broken ...
    assert order.eval(s, whole, out.state) is True  # ... but a composite is never the step a property reads
    parts = ts.expand(s, "end_steps", {"choice": NO_CHOICE})
    assert isinstance(parts, list)
    pre = s
    for part in parts:
        assert order.eval(pre, ActionView(part.action, part.params, symbolic=False), part.state) is True
        pre = part.state
    witness = Check("", "step", lambda a, v, b: True, kind="sometimes")
    assert witness.eval(s, whole, out.state) is False


def test_end_step_needs_an_empty_chain_and_a_fresh_round_of_passing(ts: TransitionSystem) -> None:
    s = ts.init()
    out = ts.apply(s, "pass", {"choice": NO_CHOICE})
    assert out.ok and out.state is not None
    refused = ts.apply(out.state, "end_step", {"choice": NO_CHOICE})
    assert not refused.ok and "one player has passed" in (refused.reason or "")


def test_an_unreachable_witness_is_reported_unreachable(tmp_path: Path) -> None:
    """Without Main Phase 2 the witness reach-main2 cannot happen: proved, not merely not found."""
    code, out, _ = run(
        "check", "--rules", rules_file(tmp_path, "main_phase_2 = false\n"), "--depth", "3",
        "--property", "reach-main2", "--out", str(tmp_path / "out"), "--format", "json",
    )  # fmt: skip
    result = json.loads(out)["results"][0]
    assert result["verdict"] == "unreachable" and result["proved"] and code == 0


def test_a_witness_the_rules_rule_out_is_settled_before_its_search() -> None:
    """Without Main Phase 2, one induction step shows reach-main2 unreachable before the bounded search asks
    its first question (rather than refuting every depth to the bound); a reachable witness is still
    searched and found at its minimal depth."""
    ts = TransitionSystem(Rules(main_phase_2=False))
    induction = Induction(ts)
    bmc = BMC(ts, "auto", unreachable=lambda g: induction.unreachable_at_once(g.check))
    (main2,) = bmc._reach_group([Goal(BY_NAME["reach-main2"], c) for c in BY_NAME["reach-main2"].checks], 24)
    assert main2.status == "unreachable" and bmc.questions == 0
    (turn3,) = bmc._reach_group([Goal(BY_NAME["reach-turn-3"], c) for c in BY_NAME["reach-turn-3"].checks], 24)
    assert turn3.status == "reached" and turn3.depth == 5 and bmc.questions > 0
    # under the official rules the same question does not rule it out: it is reachable
    assert not Induction(TransitionSystem(Rules())).unreachable_at_once(BY_NAME["reach-main2"].checks[0])


_TEXT_OF_TWO_STEPS = """
import hashlib, sys
from duelcheck.engines import smt
from duelcheck.engines.bmc import Unrolling
from duelcheck.engines.kind import Induction
from duelcheck.model.system import TransitionSystem
from duelcheck.properties import BY_NAME
from duelcheck.rules import Rules
ts = TransitionSystem(Rules())
if sys.argv[1] == "after-other-work":  # terms made and dropped first shift the solver library's ids
    Induction(ts).unreachable_at_once(BY_NAME["reach-main2"].checks[0])
u = Unrolling(ts)
u.extend(2)
text = "\\n".join(line for c in u.constraints for line in smt._smt2_of(c))
print(hashlib.sha256(text.encode()).hexdigest())
"""


def test_the_solver_reads_the_same_text_whatever_the_process_did_before(tmp_path: Path) -> None:
    """The text a question is sent as depends on the terms alone, not on the terms the process made before
    (Z3's printer names and orders shared subterms by internal ids): so the traces do not depend on the
    number of processes or the order of work."""
    import subprocess
    import sys

    texts = {
        history: subprocess.run(
            # run outside the repository: its root's folders would shadow the installed package
            [sys.executable, "-c", _TEXT_OF_TWO_STEPS, history],
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp_path,
        ).stdout
        for history in ("fresh", "after-other-work")
    }
    assert len(texts["fresh"].strip()) == 64 and texts["fresh"] == texts["after-other-work"]


def test_traces_do_not_depend_on_the_number_of_processes(tmp_path: Path) -> None:
    props = ["reach-turn-3", "reach-standby-to-end", "reach-main2"]
    # a small field: these witnesses are of phases and turns, not of the field's size
    small = rules_file(tmp_path, "monster_zones = 1\nspell_trap_zones = 1\nchain_links = 2\n")
    for workers in ("1", "2"):
        code, _, _ = run(
            "check", "--no-proofs", "--depth", "11", "--workers", workers, "--out", str(tmp_path / workers),
            "--rules", small, *(a for p in props for a in ("--property", p)),
        )  # fmt: skip
        assert code == 0
    for p in props:
        one, two = (tmp_path / w / f"{p}.itf.json" for w in ("1", "2"))
        assert one.read_bytes() == two.read_bytes()


def test_an_unknown_is_never_turned_into_not_found(tmp_path: Path) -> None:
    """A resource limit so small that the solver gives up: unknown, exit 3."""
    code, out, _ = run(
        "check", "--solver", "z3", "--rlimit", "1", "--no-proofs", "--no-simulation", "--depth", "12",
        "--property", "reach-turn-3", "--out", str(tmp_path / "out"), "--format", "json",
    )  # fmt: skip
    result = json.loads(out)["results"][0]
    assert result["verdict"] == "unknown" and code == 3


def test_a_witness_beyond_the_bound_comes_from_simulation_marked_not_minimal(tmp_path: Path) -> None:
    code, out, _ = run(
        "check", "--no-proofs", "--depth", "3", "--property", "reach-turn-3",
        "--out", str(tmp_path / "out"), "--format", "json",
    )  # fmt: skip
    result = json.loads(out)["results"][0]
    # beyond the bound, simulation finds it: found, and marked as not proved minimal
    assert result["verdict"] == "found" and result["minimal"] is False and code == 0
    assert result["engine"] == "sim+shrink"


def test_witnesses_within_the_bound_are_minimal_and_two_runs_write_the_same_bytes(tmp_path: Path) -> None:
    outs = []
    for name in ("a", "b"):
        out_dir = tmp_path / name
        code, out, _ = run(
            "check", "--no-proofs", "--depth", "11", "--property", "reach-turn-3", "--property", "reach-main2",
            "--out", str(out_dir), "--format", "json",
        )  # fmt: skip
        assert code == 0
        results = json.loads(out)["results"]
        assert all(r["verdict"] == "found" and r["minimal"] for r in results)
        assert {r["property"]: r["length"] for r in results} == {"reach-turn-3": 5, "reach-main2": 6}
        outs.append({p.name: p.read_bytes() for p in sorted(out_dir.glob("*.itf.json"))})
    assert outs[0] == outs[1] and len(outs[0]) == 2


def test_the_shrinker_shortens_a_simulated_play_that_still_reaches_the_witness(ts: TransitionSystem) -> None:
    turn_3 = BY_NAME["reach-turn-3"].checks[0]
    found = Simulator(ts, walks=4).search([turn_3])
    trace = found[0]
    short = shrink(ts, turn_3, trace)
    assert len(short) <= len(trace)
    assert short.steps[-1].state.g("turn") == 3
    # every step of the shortened play is legal and leads where the trace says
    s = ts.init()
    for step in short.steps[1:]:
        out = ts.apply(s, step.action, step.params)
        assert out.ok and out.state is not None and out.state.v == step.state.v
        s = out.state


def test_the_shrinker_removes_detours_down_to_the_minimal_play(ts: TransitionSystem) -> None:
    """Turn 3 by single passes, with a Normal Summon on the way (and the two passes of the response window it
    opens): 20 steps; the shortest play is 5 (found and proved by the bounded search, two phase ends per step),
    and the shrinker gets there: its sliding windows take the summon and its window's two passes out as one
    block (removed alone, the passes would end the phase instead)."""
    passes = [("pass", {"choice": NO_CHOICE})]
    end_main_1 = [("pass", {"choice": NO_CHOICE}), ("pass", {"choice": TO_END})]
    window = passes * 2  # 6.3: the summon's response window, passed by both
    detours = [("normal_summon", {"atk": 10, "defv": 10})]
    turn_1 = passes * 4 + detours + window + end_main_1 + passes * 2  # Draw, Standby, Main 1, End: 11 steps
    turn_2 = [("normal_draw", {})] + passes * 4 + end_main_1 + passes * 2  # 9 steps
    s = ts.init()
    steps = [Step("init", {}, s)]
    for name, params in turn_1 + turn_2:
        out = ts.apply(s, name, params)
        assert out.ok and out.state is not None, (name, out.reason)
        s = out.state
        steps.append(Step(name, params, s))
    assert s.g("turn") == 3 and len(steps) - 1 == 20
    turn_3 = BY_NAME["reach-turn-3"].checks[0]
    short = slide(ts, turn_3, Trace(steps))
    assert len(short) == 5 and short.steps[-1].state.g("turn") == 3


def test_the_shrinker_keeps_a_play_it_cannot_shorten(ts: TransitionSystem) -> None:
    never = Check("never", "state", lambda s: False)
    trace = Trace([Step("init", {}, ts.init())])
    assert shrink(ts, never, trace) is trace


VARIANTS = [
    'preset = "goat"\n',
    'preset = "speed"\n',
    "first_turn_draw = true\n",
    "first_turn_battle = true\n",
    "main_phase_2 = false\n",
    "main_phase_2_requires_battle_phase = false\n",
    "chain_speed_check = false\n",
    "hand_limit = 3\n",
    "normal_summons_per_turn = 2\n",
    "zero_atk_battle_destroys = true\n",
    "monster_zones = 1\nspell_trap_zones = 1\n",
    "starting_lp = 100\nstarting_hand = 0\ndeck_size = 2\nchain_links = 1\n",
    "first_turn_battle = true\nfirst_turn_draw = true\nhand_limit = 0\nnormal_summons_per_turn = 0\n",
]


@pytest.mark.parametrize("text", VARIANTS, ids=[" ".join(t.split()) for t in VARIANTS])
def test_the_structural_invariant_holds_under_every_rule_set(text: str) -> None:
    """well-formed describes the state, not the official rules: no rule set breaks it (BMC to 4, with two
    phase ends in a step: into turn 2, and a Battle Phase where turn 1 has one). In this process: the
    command line's reading of the rule files is tested elsewhere. One test per rule set, so that the test
    processes share them."""
    import tomllib

    ts = TransitionSystem(load_rules(tomllib.loads(text)))
    (result,) = BMC(ts, "auto", workers=1).run([BY_NAME["well-formed"]], 4)
    assert result.verdict == "holds", (text, result.verdict, result.note)


def test_phase_order_reads_the_main_phase_2_knob(tmp_path: Path) -> None:
    """Without Main Phase 2 the Battle Phase leads to the End Phase: that is the order, not a violation."""
    code, out, _ = run(
        "check", "--rules", rules_file(tmp_path, "main_phase_2 = false\n"), "--no-proofs", "--depth", "9",
        "--property", "phase-order", "--out", str(tmp_path / "out"), "--format", "json",
    )  # fmt: skip
    assert (code, json.loads(out)["results"][0]["verdict"]) == (0, "holds")


def test_proofs_are_cached_per_rule_set_and_suite(tmp_path: Path) -> None:
    from duelcheck.engines.kind import Induction

    suite = [BY_NAME["well-formed"], BY_NAME["main2-only-after-battle"], BY_NAME["first-turn-no-draw"]]
    first = Induction(TransitionSystem(Rules()), cache=tmp_path)
    proved = first.prove_suite(suite)
    assert "first-turn-no-draw" in proved and not first.from_cache
    again = Induction(TransitionSystem(Rules()), cache=tmp_path)
    assert again.prove_suite(suite) == proved and again.from_cache
    # another rule set is another question: not read from the cache, and first-turn-no-draw then fails
    goat = Induction(TransitionSystem(Rules(first_turn_draw=True)), cache=tmp_path)
    assert goat.cached_suite(suite) is None
    assert "first-turn-no-draw" not in goat.prove_suite(suite) and not goat.from_cache


def test_a_cost_stays_paid_when_the_activation_is_negated(tmp_path: Path) -> None:
    """The witness of seed 000's costs: found by the search with a minimal trace whose negated link paid a cost,
    and the cost was not returned (the states are the interpreter's)."""
    code, out, _ = run(
        "check", "--no-proofs", "--depth", "8", "--property", "reach-negated-activation-kept-its-cost",
        "--out", str(tmp_path / "out"), "--format", "json",
    )  # fmt: skip
    result = json.loads(out)["results"][0]
    assert code == 0 and result["verdict"] == "found" and result["minimal"], result
    states = json.loads(Path(result["trace"]).read_text(encoding="utf-8"))["states"]
    first, last = states[0], states[-1]
    actions = [s["action"] for s in states]
    paid = [a for a in actions if a["tag"] == "activate" and a["value"]["cost"] in ("DISCARD", "PAY_LP")]
    assert paid, "some activation paid a cost"
    assert (last["gy"] != first["gy"]) or (last["lp"] != first["lp"])
