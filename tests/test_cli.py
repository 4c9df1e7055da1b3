"""The command line: verdicts, exit codes, traces that replay, and bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from duelcheck.cli import main
from duelcheck.counterexamples.certify import replay_trace
from duelcheck.counterexamples.itf import itf_to_trace
from duelcheck.errors import InputError
from duelcheck.model.cards import Phase
from duelcheck.model.system import TransitionSystem
from duelcheck.properties import PROPERTIES
from duelcheck.rules import Rules


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def rules_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "rules.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def check_variant(tmp_path: Path, rules_text: str, prop: str) -> tuple[int, str]:
    """Check one property by BMC to depth 8 under a rule file; the exit code and the JSON report."""
    rules = rules_file(tmp_path, rules_text)
    code, out, _ = run(
        "check", "--rules", rules, "--depth", "8", "--property", prop,
        "--out", str(tmp_path / "out"), "--format", "json", "--no-proofs",
    )  # fmt: skip
    return code, out


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("hand_limt = 7\n", "hand_limt: unknown key"),
        ('hand_limit = "seven"\n', "hand_limit:"),
        ("hand_limit = \n", "not valid TOML"),
        ("starting_lp = 8050\n", "starting_lp:"),
        ('preset = "nope"\n', "preset:"),
    ],
)
def test_bad_rule_files_give_one_line_and_exit_2(tmp_path: Path, text: str, needle: str) -> None:
    code, _out, err = run("check", "--rules", rules_file(tmp_path, text), "--no-proofs", "--depth", "1")
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "rules.toml" in lines[0]
    assert "Traceback" not in err


def test_missing_rule_file_and_unknown_property() -> None:
    code, _, err = run("check", "--rules", "/nonexistent/rules.toml")
    assert code == 2 and "cannot read" in err
    code, _, err = run("check", "--property", "no-such-property")
    assert code == 2 and "no such property" in err and err.count("\n") == 1
    code, _, err = run("check", "--property", "reach-every-damage-outcome[dirrect]")
    assert code == 2 and "did you mean reach-every-damage-outcome[direct]" in err


def test_invariants_hold_to_the_bound(tmp_path: Path) -> None:
    code, out, _ = run(
        "check",
        "--no-proofs",
        "--depth",
        "4",
        "--property",
        "first-turn-no-draw",
        "--property",
        "phase-order",
        "--out",
        str(tmp_path),
        "--format",
        "json",
    )
    assert code == 0
    data = json.loads(out)
    assert data["depth"] == 4 and data["rules"]["hand_limit"] == 6
    assert [r["verdict"] for r in data["results"]] == ["holds", "holds"]
    assert {"property", "kind", "verdict", "bound", "length", "seconds", "trace"} <= set(data["results"][0])


def test_main2_without_battle_phase_is_caught_with_a_minimal_replayable_trace(tmp_path: Path) -> None:
    code, out = check_variant(tmp_path, "main_phase_2_requires_battle_phase = false\n", "main2-only-after-battle")
    assert code == 1
    result = json.loads(out)["results"][0]
    assert result["verdict"] == "violated"
    # Draw and Standby Phase end when both players pass (one end_steps step: two ends in one), then Main
    # Phase 1 ends into Main Phase 2 (an end_step): 2 steps, and no shorter play exists
    assert result["length"] == 2
    ts = TransitionSystem(Rules(main_phase_2_requires_battle_phase=False))
    data = json.loads(Path(result["trace"]).read_text())
    trace = itf_to_trace(ts, data, result["trace"])
    replay_trace(ts, trace)
    assert trace.steps[-1].state.g("phase") == Phase.MAIN2 and not trace.steps[-1].state.g("bp_done")
    assert data["#meta"]["property"] == "main2-only-after-battle"
    assert data["#meta"]["rules"]["main_phase_2_requires_battle_phase"] is False
    code, shown, _ = run("show", result["trace"])
    assert code == 0 and "Main Phase 2" in shown and "[6.3]" in shown


def test_chain_speed_knob_off_is_caught(tmp_path: Path) -> None:
    code, out = check_variant(tmp_path, "chain_speed_check = false\n", "chain-speed-legal")
    assert code == 1
    result = json.loads(out)["results"][0]
    assert result["verdict"] == "violated"
    data = json.loads(Path(result["trace"]).read_text())
    activations = [s["action"] for s in data["states"] if s["action"]["tag"] == "activate"]
    assert len(activations) >= 2


def test_hand_limit_seven_still_holds(tmp_path: Path) -> None:
    code, out = check_variant(tmp_path, "hand_limit = 7\n", "hand-limit-at-turn-end")
    assert code == 0 and json.loads(out)["results"][0]["verdict"] == "holds"


def test_properties_lists_every_property() -> None:
    code, out, _ = run("properties", "--format", "json")
    assert code == 0
    listed = {row["property"] for row in json.loads(out)}
    assert listed == {p.name for p in PROPERTIES}
    assert all(row["clause"] for row in json.loads(out))


def test_show_rejects_a_bad_trace(tmp_path: Path) -> None:
    bad = tmp_path / "bad.itf.json"
    bad.write_text('{"states": [{"action": {"tag": "fly"}}]}')
    code, _, err = run("show", str(bad))
    assert code == 2 and "states[0].action.tag" in err and len(err.strip().splitlines()) == 1
    bad.write_text("{not json")
    code, _, err = run("show", str(bad))
    assert code == 2 and "not valid JSON" in err


def test_replay_own_trace_conforms_and_variant_trace_does_not(tmp_path: Path) -> None:
    _, out = check_variant(tmp_path, "main_phase_2_requires_battle_phase = false\n", "main2-only-after-battle")
    trace = json.loads(out)["results"][0]["trace"]
    code, out, _ = run("replay", trace)
    assert code == 0 and "conforms" in out
    official = tmp_path / "official.toml"
    official.write_text("")
    code, out, _ = run("replay", trace, "--rules", str(official), "--format", "json")
    assert code == 1
    report = json.loads(out)
    assert report["stopped_at"] == 2 and report["steps_checked"] == 2
    last = report["steps"][-1]
    assert not last["legal"] and last["reason"].startswith("6.3.5") and last["clause"] == "6.3.5"


def test_every_trace_a_check_writes_replays_as_conforming(tmp_path: Path) -> None:
    """Witness traces from the bounded search and from simulation replay under the rules that produced them."""
    out_dir = tmp_path / "traces"
    small = rules_file(tmp_path, "monster_zones = 1\nspell_trap_zones = 1\nchain_links = 2\n")  # the same turns
    code, out, _ = run(
        "check", "--no-proofs", "--depth", "10", "--property", "reach-turn-3", "--rules", small,
        "--property", "reach-hand-limit-discard", "--out", str(out_dir), "--format", "json",
    )  # fmt: skip
    assert code == 0
    engines = {r["engine"] for r in json.loads(out)["results"]}
    assert engines == {"bmc/yices", "sim+shrink"}
    traces = sorted(out_dir.glob("*.itf.json"))
    assert len(traces) == 2
    for trace in traces:
        code, text, _ = run("replay", str(trace))
        assert code == 0 and "conforms" in text, text


def test_a_tampered_trace_fails_its_certificate(tmp_path: Path) -> None:
    """A trace that does not replay is an internal error, never a verdict."""
    from duelcheck.counterexamples.certify import certify
    from duelcheck.errors import InternalError
    from duelcheck.properties import BY_NAME

    _, out = check_variant(tmp_path, "main_phase_2_requires_battle_phase = false\n", "main2-only-after-battle")
    ts = TransitionSystem(Rules(main_phase_2_requires_battle_phase=False))
    trace = itf_to_trace(ts, json.loads(Path(json.loads(out)["results"][0]["trace"]).read_text()), "t")
    check = BY_NAME["main2-only-after-battle"].checks[0]
    certify(ts, check, trace, expect=False)
    with pytest.raises(InternalError, match="does not witness"):
        certify(ts, check, trace, expect=True)
    trace.steps[2].state.v[("hand", 0)] = 9
    with pytest.raises(InternalError, match="step 2"):
        certify(ts, check, trace, expect=False)
    with pytest.raises(InternalError, match="initial state"):
        certify(TransitionSystem(Rules(hand_limit=7, starting_hand=6)), check, trace, expect=False)


SCENARIOS = Path(__file__).parent / "scenarios"


def test_replay_a_duel_log_and_its_expectation() -> None:
    code, out, _ = run("replay", str(SCENARIOS / "battle/01-atk-vs-atk-higher.json"))
    assert code == 0 and "conforms" in out and "expected outcome: matched" in out
    code, out, _ = run("replay", str(SCENARIOS / "chain/02-speed-2-answers-counter-trap.json"), "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["stopped_at"] == 3 and data["expectation"]["matched"]
    illegal = data["steps"][-1]
    assert not illegal["legal"] and illegal["clause"] == "seed 000" and "speed" in illegal["reason"]


def test_schema_command_prints_the_shipped_schema() -> None:
    code, out, _ = run("schema")
    assert code == 0
    assert json.loads(out)["title"] == "DuelLog"


BASE_LOG = {
    "format": "duelcheck-log/1",
    "board": {"turn": 3, "phase": "main1", "players": [{"hand": 4}, {"hand": 5}]},
    "actions": [{"action": "normal_summon", "atk": 1500, "def": 1000}],
}


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda d: None, "line 1 column"),  # not JSON at all (written as text below)
        (lambda d: d.pop("actions"), "actions: missing"),
        (lambda d: d["actions"][0].update(atk=1850), "actions[0].atk: expected a multiple of 100"),
        (lambda d: d["actions"][0].update(atk=12000), "actions[0].atk: expected less than or equal to 9000"),
        (lambda d: d["actions"][0].update(action="summon"), "actions[0].action: expected an action, one of"),
        (lambda d: d["board"].update(phaze="main1"), "board.phaze: unknown field"),
        (lambda d: d["board"]["players"][0].update(monsters=[{"zone": 5, "atk": 0, "def": 0}]),
         "board.players[0].monsters[0].zone: expected a Monster Zone from 0 to 4"),
        (lambda d: d["board"]["players"][0].update(deck=40), "board.players[0].deck: expected 36"),
        (lambda d: d["board"].update(turn_player=1), "board.turn_player: expected 0"),
        (lambda d: d["board"].update(chain=[{"player": 0, "kind": "normal_trap", "effect": "none", "zone": 1}]),
         "board.chain[0].zone: expected the zone of player 0's face-up normal_trap"),
        (lambda d: (d["board"]["players"][0].update(
            spells_traps=[{"zone": 0, "kind": "quick_play_spell", "effect": "destroy_card", "face": "up"}]),
            d["board"].update(chain=[{"player": 0, "kind": "quick_play_spell", "effect": "destroy_card", "zone": 0}])),
         "board.chain[0].target: expected a target"),
        (lambda d: d["board"].update(attack={"attacker": 0, "target": "direct"}),
         "board.attack: expected no attack outside the Battle Step"),
        (lambda d: d["actions"].insert(0, {"action": "declare_attack", "attacker": 0, "target": 5}),
         "actions[0].target: expected a Monster Zone from 0 to 4"),
        (lambda d: d["actions"].insert(0, {"action": "declare_attack", "attacker": 0, "target": "x"}),
         "actions[0].target: expected"),
    ],
)  # fmt: skip
def test_malformed_logs_give_one_line_and_exit_2(tmp_path: Path, edit: Any, needle: str) -> None:
    data = json.loads(json.dumps(BASE_LOG))
    edit(data)
    path = tmp_path / "engine.log.json"
    path.write_text("{not json" if needle.startswith("line 1") else json.dumps(data), encoding="utf-8")
    code, _, err = run("replay", str(path))
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "engine.log.json" in lines[0] and needle in lines[0], lines
    assert "Traceback" not in err and "constrained" not in err


def test_partial_observed_state_checks_only_what_it_gives(tmp_path: Path) -> None:
    data = json.loads(json.dumps(BASE_LOG))
    data["actions"][0]["observed"] = {"players": [{"hand": 3, "monsters": [{"zone": 0, "atk": 1500}]}, {}]}
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert run("replay", str(path))[0] == 0
    data["actions"][0]["observed"] = {"players": [{"hand": 4, "monsters": [{"zone": 0, "position": "defense"}]}, {}]}
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, _ = run("replay", str(path), "--format", "json")
    diffs = {(d["field"], d["model"], d["observed"]) for d in json.loads(out)["steps"][0]["differences"]}
    assert code == 1
    assert diffs == {("players[0].hand", 3, 4), ("players[0].monsters[zone 0].position", "attack", "defense")}


def test_a_special_summon_the_log_does_not_describe_is_bad_input(tmp_path: Path) -> None:
    data = {
        "format": "duelcheck-log/1",
        "board": {"turn": 3, "phase": "main1", "players": [{"hand": 3}, {"hand": 5}]},
        "actions": [
            {"action": "activate", "from": "hand", "kind": "normal_spell", "effect": "special_summon"},
            {"action": "pass"},
            {"action": "pass"},
            {"action": "resolve"},
        ],
    }
    path = tmp_path / "summon.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run("replay", str(path))
    assert code == 2 and "actions[3].summon: expected" in err
    data["actions"][3]["summon"] = {"atk": 1500, "def": 500, "position": "defense"}
    data["actions"][3]["observed"] = {"players": [{"monsters": [{"zone": 0, "atk": 1500, "position": "defense"}]}, {}]}
    path.write_text(json.dumps(data), encoding="utf-8")
    assert run("replay", str(path))[0] == 0


def test_log_actions_are_shown_in_the_logs_own_words(tmp_path: Path) -> None:
    data = json.loads(json.dumps(BASE_LOG))
    data["actions"] = [{"action": "normal_summon", "atk": 1800, "def": 1000}]
    path = tmp_path / "real-values.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, _ = run("replay", str(path))
    assert code == 0, out  # an engine's real ATK and DEF: any multiple of 100 from 0 to 9000
    assert "normal_summon(atk=1800, def=1000)  [6.3.5]  legal" in out
    data["actions"] = [{"action": "normal_summon", "atk": 1850, "def": 1000}]
    path.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run("replay", str(path))
    assert code == 2 and "actions[0].atk" in err and "multiple of 100" in err


def test_a_trace_becomes_a_duel_log_that_replays(tmp_path: Path) -> None:
    """A counterexample as a test board and play for an engine: the log conforms under the trace's rules,
    and from the middle of the trace too."""
    _, out = check_variant(tmp_path, "main_phase_2_requires_battle_phase = false\n", "main2-only-after-battle")
    trace = json.loads(out)["results"][0]["trace"]
    # the log takes the trace's two-phase step as the two end_steps it is: 3 actions from the start (the two
    # steps, one of them two-phase), and from step 1 the actions of the steps after it
    steps = [st["action"]["tag"] for st in json.loads(Path(trace).read_text(encoding="utf-8"))["states"][1:]]
    assert len(steps) == 2 and steps.count("end_steps") == 1, steps
    expected = {"0": 3, "1": 2 if steps[1] == "end_steps" else 1}
    counts = {}
    for first in ("0", "1"):
        log = tmp_path / f"from-{first}.json"
        code, _, err = run("to-log", trace, "--out", str(log), "--from-step", first)
        assert code == 0, err
        data = json.loads(log.read_text(encoding="utf-8"))
        assert data["rules"] == {"main_phase_2_requires_battle_phase": False}
        assert all("observed" in a for a in data["actions"])
        counts[first] = len(data["actions"])
        code, text, _ = run("replay", str(log))
        assert code == 0 and "conforms" in text
    assert counts == expected, (counts, steps)
    code, _, err = run("to-log", trace, "--from-step", "99")
    assert code == 2 and "--from-step" in err


def test_the_end_of_main_phase_1_says_where_the_turn_goes(tmp_path: Path) -> None:
    """6.3.3: the choice is the turn player's, made when Main Phase 1 ends, and only then."""
    data = json.loads(json.dumps(BASE_LOG))
    path = tmp_path / "choice.json"
    for actions, reason in (
        ([{"action": "end_step"}], "6.3.3: when Main Phase 1 ends the turn player chooses"),
        ([{"action": "pass", "then": "end_phase"}], "6.3.3: only the end of Main Phase 1 offers a choice"),
    ):
        data["actions"] = actions
        path.write_text(json.dumps(data), encoding="utf-8")
        code, out, _ = run("replay", str(path), "--format", "json")
        last = json.loads(out)["steps"][-1]
        assert code == 1 and not last["legal"] and last["clause"] == "6.3.3" and last["reason"].startswith(reason)
    data["actions"] = [{"action": "pass"}, {"action": "pass", "then": "end_phase", "observed": {"phase": "end"}}]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert run("replay", str(path))[0] == 0


def test_a_board_the_rules_cannot_reach_is_refused(tmp_path: Path) -> None:
    """docs/duel-log.md: a board no play reaches is bad input (exit 2), not a state to judge."""
    cases = [
        ({"turn": 3, "phase": "draw", "drew": False, "priority": 1}, "board.priority", "6.3.1"),
        ({"turn": 3, "phase": "main1", "players": [{}, {"lp": 0}]}, "board.players[1].lp", "above 0"),
        ({"turn": 3, "phase": "main1", "players": [{}, {"lp": -500}]}, "board.players[1].lp", "above 0"),
    ]
    for board, place, words in cases:
        data = {**BASE_LOG, "board": board, "actions": [{"action": "pass"}]}
        path = tmp_path / "board.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        code, out, err = run("replay", str(path))
        assert code == 2, (board, out)
        assert place in err and words in err and err.count("\n") == 1
    # the same LP with the duel over is a board the rules reach
    data = {**BASE_LOG, "board": {"turn": 3, "phase": "main1", "winner": 0, "players": [{}, {"lp": 0}]}}
    data["actions"] = [{"action": "pass"}]
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, _ = run("replay", str(path))
    assert code == 1 and "the duel is over" in out


def test_an_itf_trace_with_a_state_the_rules_cannot_reach_is_refused(tmp_path: Path) -> None:
    _, out = check_variant(tmp_path, "main_phase_2_requires_battle_phase = false\n", "main2-only-after-battle")
    trace = Path(json.loads(out)["results"][0]["trace"])
    good = json.loads(trace.read_text(encoding="utf-8"))
    assert run("replay", str(trace))[0] == 0
    cases = (("gy", [-1, 0], "gy[0]: expected 0 or more"), ("lp", [8000, -25600], "lp[1]: expected LP"))
    for field, value, words in cases:
        bad = json.loads(json.dumps(good))
        bad["states"][1][field] = value
        path = tmp_path / "bad.itf.json"
        path.write_text(json.dumps(bad), encoding="utf-8")
        for command in ("replay", "show", "to-log"):
            code, _, err = run(command, str(path))
            assert code == 2 and "states[1]." + words in err, (command, err)
    bad = json.loads(json.dumps(good))
    bad["states"][0]["chain_len"] = 3  # a chain with no links on it
    path.write_text(json.dumps(bad), encoding="utf-8")
    code, _, err = run("replay", str(path))
    assert code == 2 and "states[0]: expected a state the rules can reach" in err


def test_the_older_damage_step_reading_is_a_knob(tmp_path: Path) -> None:
    """damage_step_activations = "seed-000": the property reads the knob, so it holds under either reading,
    and the scenario corpus shows the activation it refuses."""
    for reading in ("6.3.4.3", "seed-000"):
        code, out = check_variant(tmp_path, f'damage_step_activations = "{reading}"\n', "damage-step-activations")
        assert code == 0 and json.loads(out)["results"][0]["verdict"] == "holds"
    code, _, err = run("check", "--rules", rules_file(tmp_path, 'damage_step_activations = "older"\n'))
    assert code == 2 and "damage_step_activations" in err and "'seed-000'" in err


def test_traces_load_with_itf_py_and_hold_points(tmp_path: Path) -> None:
    """A trace with a `pass` (a Python keyword) loads with itf-py; LP and ATK are written in points."""
    itf_py = pytest.importorskip("itf_py")
    from duelcheck.counterexamples.itf import write_trace
    from duelcheck.engines.base import Trace
    from duelcheck.model.system import Step

    ts = TransitionSystem(Rules())
    steps = [Step("init", {}, ts.init())]
    wanted = ["end_step", "end_step", "normal_summon", "pass"]  # to Main Phase 1, summon, pass priority
    for name in wanted:
        step = next(st for st in ts.successors(steps[-1].state) if st.action == name)
        steps.append(step)
    path = tmp_path / "t.itf.json"
    write_trace(path, ts, Trace(steps), {"description": "hand-made"})
    data = json.loads(path.read_text(encoding="utf-8"))
    loaded = itf_py.trace_from_json(data)
    assert len(loaded.states) == len(steps)
    assert data["states"][0]["lp"] == [8000, 8000]
    summon = data["states"][3]["action"]
    assert summon["tag"] == "normal_summon" and summon["value"]["atk"] % 100 == 0
    assert data["states"][3]["m_atk"][0][0] == summon["value"]["atk"] == steps[3].state.g("m_atk", 0, 0) * 100
    assert data["states"][4]["action"]["tag"] == "pass_priority"
    back = itf_to_trace(ts, data, str(path))  # and duelcheck reads it back, in the model's units
    assert [st.action for st in back.steps] == [st.action for st in steps]
    assert back.steps[3].state.v == steps[3].state.v
    bad = json.loads(json.dumps(data))
    bad["states"][0]["lp"] = [8050, 8000]
    with pytest.raises(InputError, match=r"lp\[0\]: expected points in steps of 100"):
        itf_to_trace(ts, bad, "bad.itf.json")
