"""The researchers' workbench: presets with their sources, the Rush Duel knobs, and `duelcheck diff`."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from duelcheck.cli import main
from duelcheck.engines.diff import diff
from duelcheck.model.cards import Phase
from duelcheck.model.system import TransitionSystem
from duelcheck.rules import PRESET_FILES, PRESETS, Rules, load_rules, rules_from_mapping


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_every_preset_is_listed_loads_and_cites_its_sources() -> None:
    code, out, _ = run("presets", "--format", "json")
    assert code == 0
    listed = {row["preset"]: row for row in json.loads(out)}
    assert set(listed) == set(PRESET_FILES) >= {"current", "goat", "speed", "rush", "master-rule-2"}
    for name, preset in PRESET_FILES.items():
        rules = load_rules(name)
        assert listed[name]["changes"] == rules.changed()
        text = preset.path.read_text(encoding="utf-8")
        for knob in preset.rules:  # every setting carries a comment saying where it comes from
            line = next(ln for ln in text.splitlines() if ln.startswith(f"{knob} ="))
            assert "#" in line, f"{preset.path.name}: {knob} has no comment"
    assert load_rules("official") == Rules() == load_rules("current")
    assert rules_from_mapping({"preset": "rush", "hand_limit": 7}).hand_limit == 7


@pytest.mark.parametrize("name", sorted(PRESET_FILES))
def test_check_runs_under_each_preset_by_name(tmp_path: Any, name: str) -> None:
    code, out, err = run(
        "check", "--rules", name, "--no-proofs", "--no-simulation", "--depth", "3",
        "--property", "phase-order", "--out", str(tmp_path), "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    report = json.loads(out)
    assert report["rules"] == load_rules(name).model_dump()
    assert report["results"][0]["verdict"] == "holds"


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("description = 3\n[rules]\nhand_limit = 5\n", ": description: expected a string"),
        ('description = "x"\n[rules]\nhand_limt = 5\n', ": rules.hand_limt: unknown key"),
        ('description = "x"\nfoo = 1\n[rules]\nhand_limit = 5\n', ": foo: unknown key beside a [rules] table"),
        ('aliases = "x"\n[rules]\nhand_limit = 5\n', ": aliases: expected a list of strings"),
        ('[rules]\nhand_limit = "six"\n', ": rules.hand_limit: "),
    ],
)
def test_a_preset_shaped_file_is_read_by_path_and_its_errors_name_the_key(tmp_path: Any, text: str, place: str) -> None:
    for name, preset in PRESET_FILES.items():  # a shipped preset's file given as a path: the preset's knobs
        assert load_rules(str(preset.path)) == load_rules(name)
    custom = tmp_path / "mine.toml"
    custom.write_text('description = "mine"\naliases = []\n[rules]\npreset = "speed"\nhand_limit = 5\n')
    assert load_rules(str(custom)) == rules_from_mapping({"preset": "speed", "hand_limit": 5})
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    code, _, err = run("check", "--rules", str(bad))
    assert code == 2 and err.count("\n") == 1 and f"{bad}{place}" in err, err


def test_an_unknown_preset_is_one_line_with_a_hint() -> None:
    code, _, err = run("check", "--rules", "gaot")
    assert code == 2 and err.count("\n") == 1 and "did you mean goat" in err


def _after(ts: TransitionSystem, s: Any, *names: str) -> Any:
    for name in names:
        step = next(st for st in ts.successors(s) if st.action == name)
        s = step.state
    return s


def test_rush_duel_draws_to_five_skips_the_standby_phase_and_has_no_hand_limit() -> None:
    ts = TransitionSystem(load_rules("rush"))
    s = ts.init()
    assert s.g("hand", 0) == 4 and s.g("phase") == Phase.DRAW
    s = _after(ts, s, "normal_draw")  # the first player draws too, up to 5
    assert s.g("hand", 0) == 5 and s.g("deck", 0) == ts.rules.deck_size - 5
    s = _after(ts, s, "end_step")
    assert s.g("phase") == Phase.MAIN1  # no Standby Phase
    crowded = _with(ts.init(), {("hand", 0): 8, ("deck", 0): ts.rules.deck_size - 8})
    drawn = _after(ts, crowded, "normal_draw")
    assert drawn.g("hand", 0) == 9  # holding 5 or more: one card
    thin = _with(crowded, {("hand", 0): 1, ("deck", 0): 3})  # needs 4, the deck holds 3: the duel is lost
    lost = _after(ts, thin, "normal_draw")
    assert lost.g("winner") == 2  # player 1 wins (winner holds the player + 1)
    end = _with(crowded, {("phase",): int(Phase.END), ("drew",): True})
    nxt = _after(ts, end, "end_step")
    assert nxt.g("turn") == 2 and nxt.g("hand", 0) == 8  # no discard: no hand limit
    official = TransitionSystem(Rules())
    kept = _after(official, _with(official.init(), {("phase",): int(Phase.END), ("hand", 0): 8}), "end_step")
    assert kept.g("turn") == 1 and kept.g("discarding")  # the official rules discard down to 6


def _with(s: Any, values: dict[tuple[Any, ...], Any]) -> Any:
    from duelcheck.model.state import State

    return State(s.k, s.r, s.schema, {**s.v, **values})


def test_diff_of_a_rule_set_with_itself_is_equivalent() -> None:
    result = diff(Rules(), Rules(), 6)
    assert result.verdict == "equivalent" and result.a_to_b is None and result.b_to_a is None


@pytest.mark.parametrize("era", ["goat", "master-rule-2"])
def test_diff_finds_the_first_turn_draw_as_step_1_and_it_replays_under_both(era: str) -> None:
    a, b = Rules(), load_rules(era)
    result = diff(a, b, 6)
    assert result.verdict == "different"
    draw = result.b_to_a  # legal under the era's rules, refused by today's
    assert draw is not None and draw.kind == "refused" and draw.length == 1
    assert draw.trace is not None and draw.trace.steps[1].action == "normal_draw"
    assert "6.3.1" in draw.reason
    today = TransitionSystem(a)
    assert not today.apply(today.init(), "normal_draw", {}).ok  # the report is what the rules say
    other = result.a_to_b
    assert other is not None and other.length == 1 and other.trace is not None
    era_ts = TransitionSystem(b)
    step = other.trace.steps[1]
    assert today.apply(today.init(), step.action, dict(step.params)).ok
    assert not era_ts.apply(era_ts.init(), step.action, dict(step.params)).ok


def test_diff_of_rule_sets_that_start_apart_says_so_at_step_0() -> None:
    result = diff(Rules(), load_rules("speed"), 4)
    assert result.a_to_b is not None and result.a_to_b.kind == "start" and result.a_to_b.length == 0
    fields = {f: (x, y) for f, x, y in result.a_to_b.fields}
    assert fields["players[0].lp"] == (8000, 4000)


def test_diff_command_text_and_json() -> None:
    code, out, _ = run("diff", "current", "goat", "--no-verdicts", "--depth", "4", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["verdict"] == "different" and doc["b_to_a"]["length"] == 1
    assert doc["b_to_a"]["play"]["steps"][0]["action"] == {"action": "normal_draw"}
    code, out, _ = run("diff", "current", "current", "--no-verdicts", "--depth", "4")
    assert code == 0 and "equivalent" in out
    assert PRESETS["official"] == PRESETS["current"] == {}


def test_k_induction_proves_a_discard_unreachable_without_a_hand_limit_and_not_with_one() -> None:
    """A discard needs a discard already begun (a state no play reaches without a hand limit): 1-induction
    cannot see that, 2-induction can, assuming the structural facts (proved for all depths under every
    preset, see the slow test below)."""
    from duelcheck.engines.kind import Induction
    from duelcheck.properties import BY_NAME, PROPERTIES

    check = BY_NAME["reach-hand-limit-discard"].checks[0]
    answers = {}
    for name in ("rush", "current"):
        ind = Induction(TransitionSystem(load_rules(name)), cache=None)
        ind.proved, ind._suite = {"well-formed"}, [p for p in PROPERTIES if p.kind == "always"]
        answers[name] = ind._k_inductive(check, PROPERTIES, 2)
    assert answers == {"rush": True, "current": False}


@pytest.mark.slow
def test_under_rush_rules_the_hand_limit_discard_is_unreachable_proved() -> None:
    from duelcheck.api import check

    report = check("rush", ["reach-hand-limit-discard", "well-formed"], depth=4, cache=False, simulate=False)
    verdicts = {r.label: (r.verdict, r.proved) for r in report.results}
    assert verdicts == {"well-formed": ("holds", True), "reach-hand-limit-discard": ("unreachable", True)}
