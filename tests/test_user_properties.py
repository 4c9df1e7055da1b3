"""A researcher's own properties, from the command line and from files: decided by the same engines."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duelcheck.api import select, user_properties
from duelcheck.cli import main
from duelcheck.engines.cache import ProofCache
from duelcheck.errors import InputError
from duelcheck.rules import Rules

QUESTIONS = """
[[property]]
name = "no-lp-lost-on-turn-1"
kind = "always"
clause = "6.3.4"
doc = "Nobody loses LP on turn 1 (no battle on turn 1)."
state = "turn > 1 or (players[0].lp == 8000 and players[1].lp == 8000)"

[[property]]
name = "a-chain-of-three"
kind = "sometimes"
clause = "seed 000 (chains)"
doc = "Some play builds a chain of three links."
state = "chain_length == 3"
"""


def _check(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    result = CliRunner().invoke(main, ["check", "--out", str(tmp_path / "out"), "--format", "json", *args])
    data = json.loads(result.stdout) if result.stdout.strip().startswith("{") else {}
    return result.exit_code, data, result.stderr


def test_a_file_of_questions_is_answered_with_certified_traces(tmp_path: Path) -> None:
    (tmp_path / "q.toml").write_text(QUESTIONS, encoding="utf-8")
    code, report, err = _check(
        tmp_path, "--properties", str(tmp_path / "q.toml"), "--property", "no-lp-lost-on-turn-1",
        "--property", "a-chain-of-three", "--depth", "6", "--no-proofs", "--no-simulation",
    )  # fmt: skip
    verdicts = {r["label"]: (r["verdict"], r["length"]) for r in report["results"]}
    # a cost paid in LP is the one way to lose LP on turn 1 (no battle then): one step
    assert verdicts == {"no-lp-lost-on-turn-1": ("violated", 1), "a-chain-of-three": ("found", 5)}, err
    assert code == 1
    trace = json.loads((tmp_path / "out" / "no-lp-lost-on-turn-1.itf.json").read_text(encoding="utf-8"))
    assert trace["states"][-1]["lp"] == [7000, 8000]  # in points, as a person reads it


def test_an_invariant_from_the_command_line_is_proved_for_all_depths(tmp_path: Path) -> None:
    # a small field (one zone of each, two chain links): the suite's induction, which the user's invariant
    # joins, in a few seconds rather than half a minute; the command and the proof are the same
    small = tmp_path / "small.toml"
    small.write_text("monster_zones = 1\nspell_trap_zones = 1\nchain_links = 2\n", encoding="utf-8")
    args = ("--rules", str(small), "--always", "players[0].hand >= 0", "--property", "well-formed")
    code, report, err = _check(tmp_path, *args)
    user = next(r for r in report["results"] if r["label"].startswith("always-players-0-hand"))
    assert code == 0 and user["verdict"] == "holds" and user["proved"] is True, err


def test_a_witness_from_the_command_line_is_found_minimal(tmp_path: Path) -> None:
    args = ("--sometimes", "phase == damage_calculation", "--depth", "10", "--no-proofs", "--no-simulation")
    code, report, err = _check(tmp_path, *args, "--property", "reach-main2")
    user = next(r for r in report["results"] if r["label"].startswith("sometimes-phase-damage-calculation"))
    assert code == 0 and user["verdict"] == "found" and user["minimal"] and user["length"] >= 6, err


def test_the_cache_key_follows_the_expression() -> None:
    r = Rules()
    a = user_properties(r, always=("players[0].lp >= 0",))
    b = user_properties(r, always=("players[0].lp >= 100",))
    store = ProofCache(Path("/nonexistent"))
    assert store.key(r, a) != store.key(r, b) and store.key(r, a) == store.key(r, list(a))
    assert [p.name for p in select(["reach-main2"], a)] == ["reach-main2", a[0].name]  # given: always in the run
    assert select([a[0].name], a) == a


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[[property]]\nname = "x"\nkind = "always"\nstate = "phase == nowhere"\n', "property[0]: state: column"),
        ('[[property]]\nname = "x"\nkind = "often"\nstate = "turn == 1"\n', "property[0]: kind: expected always"),
        ('[[property]]\nname = "X y"\nkind = "always"\nstate = "turn == 1"\n', "property[0]: name: expected"),
        ('[[property]]\nname = "well-formed"\nkind = "always"\nstate = "turn == 1"\n', "is taken"),
        (
            '[[property]]\nname = "x"\nkind = "always"\nstate = "turn == 1"\nstep = "turn == 1"\n',
            "expected one of state",
        ),
        ('[[property]]\nname = "x"\nkind = "always"\nstate = "next.turn == 1"\n', "only in a step predicate"),
        ('[[property]]\nname = "x"\nkind = "always"\nstep = "action == charge"\n', "is not an action"),
        ('[[property]]\nname = "x"\nkind = "always"\nstep = "turn in (1, 2"\n', "column 14: expected"),
        ('[[property]]\nname = "x"\nkind = "always"\nstate = "turn == 1"\ncolour = 1\n', "colour: unknown key"),
        ("title = 1\n", "title: unknown key"),
    ],
)
def test_a_malformed_property_file_is_one_line_naming_the_place(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=words.replace("[", r"\[").replace("]", r"\]")):
        user_properties(Rules(), files=[path])
    code, _, err = _check(tmp_path, "--properties", str(path))
    assert code == 2 and str(path) in err and len(err.strip().splitlines()) == 1


def test_a_malformed_expression_on_the_command_line_names_its_column(tmp_path: Path) -> None:
    code, _, err = _check(tmp_path, "--always", "players[0].lp >=")
    assert code == 2 and "--always 'players[0].lp >='" in err and "column" in err


def test_a_witness_no_rule_is_meant_to_remove_is_lost_when_unreachable_and_fails_the_run(tmp_path: Path) -> None:
    """A witness proved unreachable under rules that do not remove its behaviour on purpose is a lost
    witness: the run fails (exit 1). The same state asked two ways under the TCG's Speed Duel: the shipped
    `reach-main2` declares that rule set removes Main Phase 2 (passes); a user's witness of it declares
    nothing (lost). With --runslow also seed 000's Damage Step under goat and Rush Duel's removals."""
    name = next(p.name for p in user_properties(Rules(), sometimes=("phase == main2",)))
    args = ("--rules", "speed", "--sometimes", "phase == main2", "--property", "reach-main2", "--property", name)
    code, report, err = _check(tmp_path, *args, "--no-simulation")
    got = {r["label"]: (r["verdict"], r["lost"]) for r in report["results"]}
    assert got == {"reach-main2": ("unreachable", False), name: ("unreachable", True)}, err
    assert code == 1 and "a lost witness" in report["results"][1]["note"]
    _meant(tmp_path, "speed", "reach-main2")


def _meant(tmp_path: Path, preset: str, label: str) -> None:
    code, report, err = _check(tmp_path / preset, "--rules", preset, "--property", label, "--no-simulation")
    (result,) = report["results"]
    assert (code, result["verdict"], result["lost"]) == (0, "unreachable", False), (preset, label, err)


@pytest.mark.slow  # each needs the suite's proofs under its preset: about 3 minutes in all
@pytest.mark.parametrize(
    ("preset", "label"),
    [
        ("goat", "reach-damage-step-activations[counter-trap-after-calculation]"),
        ("rush", "reach-hand-limit-discard"),
        ("rush", "reach-standby-to-end"),
    ],
)
def test_the_presets_removals_are_not_lost_witnesses(tmp_path: Path, preset: str, label: str) -> None:
    _meant(tmp_path, preset, label)


def test_step_predicates_implies_and_in_are_decided_by_the_engines(tmp_path: Path) -> None:
    """A step property from a file and one from the command line: an attack is declared only in the Battle
    Step and leaves an attack going on (proved: 6.3.4.2); a step that ends the Battle Phase by a pass or an
    end_step reaches the End Step or the Damage Step (a witness, found); a wrong one is violated with a trace
    whose last step is the action it names."""
    import duelcheck

    path = tmp_path / "mine.toml"
    path.write_text(
        "[[property]]\n"
        'name = "attacks-in-the-battle-step"\n'
        'kind = "always"\n'
        'clause = "6.3.4.2"\n'
        'step = "action == declare_attack implies (phase == battle_step and next.attacking)"\n'
        "\n[[property]]\n"
        'name = "a-pass-into-the-damage-step"\n'
        'kind = "sometimes"\n'
        'step = "action in (pass, end_step) and phase == battle_step and next.phase in (damage_start, battle_end)"\n'
        "\n[[property]]\n"
        'name = "summons-only-in-main-phase-2"\n'
        'kind = "always"\n'
        'step = "action == normal_summon implies phase == main2"\n',
        encoding="utf-8",
    )
    names = ["attacks-in-the-battle-step", "a-pass-into-the-damage-step", "summons-only-in-main-phase-2"]
    # the bounded search alone here (the proof of the suite it leans on is a minute: the slow test below)
    report = duelcheck.check(properties=names, depth=6, prove=False, simulate=False, property_files=[path])
    got = {r.prop: r for r in report.results}
    assert got["attacks-in-the-battle-step"].verdict == "holds" and got["attacks-in-the-battle-step"].bound == 6
    found = got["a-pass-into-the-damage-step"]
    assert found.verdict == "found" and found.length == 6 and found.minimal
    wrong = got["summons-only-in-main-phase-2"]
    assert wrong.verdict == "violated" and wrong.trace is not None
    assert wrong.trace.steps[-1].action == "normal_summon"


def test_quantifiers_read_as_their_expansion_over_players_and_zones() -> None:
    """`all p:` / `any z:` stand for the conjunction / disjunction of their body over the indices the variable
    takes (players: 0 and 1; a Monster Zone: each of the rules' zones), on every state of a seeded play, and a
    variable that indexes nothing, or lists of two sizes, is refused with its column."""
    import random

    from duelcheck.engines.boards.where import parse_where
    from duelcheck.model.system import TransitionSystem

    rules = Rules(monster_zones=3)
    pairs = [
        ("all p: players[p].lp >= 8000", "players[0].lp >= 8000 and players[1].lp >= 8000"),
        (
            "any z: not players[0].monsters[z].empty",
            " or ".join(f"not players[0].monsters[{z}].empty" for z in range(3)),
        ),
        (
            "all p: any z: players[p].monsters[z].empty",
            " and ".join(
                "(" + " or ".join(f"players[{p}].monsters[{z}].empty" for z in range(3)) + ")" for p in (0, 1)
            ),
        ),
    ]
    ts = TransitionSystem(rules)
    rng = random.Random(32)  # a play in which player 0 summons a monster to zone 0
    s, seen = ts.init(), []
    for _ in range(80):
        seen.append(s)
        options = list(ts.enabled(s))
        if not options:
            break
        name, params = rng.choice(options)
        got = ts.apply(s, name, params)
        assert got.ok and got.state is not None
        s = got.state
    assert any(not s.g("m_occ", 0, 0) for s in seen) and any(s.g("m_occ", 0, 0) for s in seen)
    for quantified, expanded in pairs:
        q, e = parse_where(quantified, rules), parse_where(expanded, rules)
        assert [bool(q(s)) for s in seen] == [bool(e(s)) for s in seen], quantified
    for bad, words in (
        ("all x: turn == 1", "column 5: 'x' indexes no list"),
        ("all p: players[p].monsters[p].empty", "lists of different sizes"),
        ("any turn: turn == 1", "column 5: expected a new variable name"),
    ):
        with pytest.raises(InputError, match=words):
            parse_where(bad, rules)


@pytest.mark.slow
def test_a_step_invariant_from_a_file_is_proved_for_all_depths(tmp_path: Path) -> None:
    import duelcheck

    path = tmp_path / "mine.toml"
    path.write_text(
        '[[property]]\nname = "attacks-in-the-battle-step"\nkind = "always"\n'
        'step = "action == declare_attack implies (phase == battle_step and next.attacking)"\n',
        encoding="utf-8",
    )
    report = duelcheck.check(properties=["attacks-in-the-battle-step"], depth=6, property_files=[path])
    (row,) = report.results
    assert row.verdict == "holds" and row.proved


def test_an_actions_parameters_read_in_the_duel_log_formats_words_and_units(tmp_path: Path) -> None:
    """`action.NAME`: a parameter of the step's action as the duel-log format writes it (ATK in points, an
    attack's `direct` target, the hand as an activation's source). On every step of a seeded play each
    reads as the step's log entry says; the engines decide a question about them (a monster of 2000 ATK or
    more Normal Summoned: found, minimal; a direct attack before turn 2: never, within the bound); an unknown
    parameter is refused with its column."""
    import random

    import duelcheck
    from duelcheck.engines.boards.where import parse_step
    from duelcheck.log import log_action
    from duelcheck.model.system import TransitionSystem
    from duelcheck.properties.catalog import ActionView

    rules = Rules()
    ts = TransitionSystem(rules)
    rng = random.Random(3)
    s, seen = ts.init(), 0
    for _ in range(300):
        options = list(ts.enabled(s))
        if not options:
            break
        kinds = sorted({o[0] for o in options})  # an action by its name first, then its parameters
        name = rng.choice(kinds)
        params = rng.choice([p for n, p in options if n == name])
        got = ts.apply(s, name, params)
        assert got.ok and got.state is not None
        entry = log_action(s, name, params, got.state)
        view = ActionView(name, params, False)
        for text, want in (
            ("action.atk == 1500", (entry.get("atk") or (entry.get("summon") or {}).get("atk")) == 1500),
            ("action.target == direct", name == "declare_attack" and entry.get("target") == "direct"),
            ("action.from == hand", entry.get("action") == "activate" and entry.get("from") == "hand"),
        ):
            pred = parse_step(text, rules).pred
            assert bool(pred(s, view, got.state)) == want, (text, entry)
        seen += entry.get("action") in ("normal_summon", "set_monster", "declare_attack")
        s = got.state
    assert seen >= 3
    with pytest.raises(InputError, match="column 8: 'power' is not a parameter of an action"):
        parse_step("action.power == 1", rules)
    path = tmp_path / "params.toml"
    path.write_text(
        "[[property]]\n"
        'name = "a-strong-summon"\n'
        'kind = "sometimes"\n'
        'step = "action == normal_summon and action.atk >= 2000"\n'
        "\n[[property]]\n"
        'name = "no-direct-attack-on-turn-1"\n'
        'kind = "always"\n'
        'step = "action == declare_attack and action.target == direct implies turn >= 2"\n',
        encoding="utf-8",
    )
    names = ["a-strong-summon", "no-direct-attack-on-turn-1"]
    report = duelcheck.check(properties=names, depth=5, prove=False, simulate=False, property_files=[path])
    got_ = {r.prop: r for r in report.results}
    strong = got_["a-strong-summon"]
    assert strong.verdict == "found" and strong.minimal and strong.trace is not None
    assert strong.trace.steps[-1].action == "normal_summon"
    assert got_["no-direct-attack-on-turn-1"].verdict == "holds"


SUMS_AND_COUNTS = (
    "players[0].lp - players[1].lp >= 1000",
    "players[0].hand + players[1].hand - players[0].deck <= -20",
    "next.players[1].lp + 500 < players[1].lp",
    "count(action == pass, this_turn) >= 3",
    "count(action in (normal_summon, set_monster), this_phase) + players[0].hand == 6",
    "action == pass implies count(action == pass, this_duel) - count(action == end_step, this_turn) <= 10",
)


def _system_with_counts() -> tuple[Any, list[Any]]:
    from duelcheck.engines.boards.where import parse_step
    from duelcheck.properties.history import system_for

    parsed = [parse_step(text, Rules()) for text in SUMS_AND_COUNTS]
    return system_for(Rules(), parsed), parsed


@functools.cache
def _symbolic() -> tuple[Any, list[Any], Any, Any]:
    """The system with the counts' history, its parsed expressions, and one symbolic step (made once)."""
    ts, parsed = _system_with_counts()
    pre = ts.sym_state("@sum")
    return ts, parsed, pre, ts.sym_step(pre, "@sum1")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), length=st.integers(0, 70), pick=st.integers(0, 10_000))
def test_sums_and_counts_agree_in_both_semantics(seed: int, length: int, pick: int) -> None:
    """`+`, `-` and count(...): each expression, read on a step of a random play, is the same in the concrete
    and the symbolic semantics (the symbolic step pinned to the concrete state and action)."""
    import z3
    from conftest import walk

    from duelcheck.model.rules import ACTION_CODE
    from duelcheck.model.state import PARAMS
    from duelcheck.properties.core import ActionView

    ts, parsed, pre, sym = _symbolic()
    s = walk(ts, seed, length)
    options = list(ts.successors(s))
    if not options:
        return
    step = options[pick % len(options)]
    view = ActionView(step.action, dict(step.params), False)
    sym_view = ActionView(sym.act, sym.params, True)
    solver = z3.SolverFor("QF_BV")
    solver.add(sym.relation, *(pre.v[k] == s.v[k] for k in ts.keys), sym.act == ACTION_CODE[step.action])
    for name, spec in PARAMS.items():
        solver.add(sym.params[name] == step.params.get(name, False if spec.sort == "bool" else 0))
    for text, p in zip(SUMS_AND_COUNTS, parsed, strict=True):
        want = bool(p.pred(s, view, step.state))
        got = p.pred(pre, sym_view, sym.post)
        assert solver.check(z3.Not(got) if want else got) == z3.unsat, (text, want)


def test_a_count_is_the_steps_of_its_span_so_far() -> None:
    """count(EXPR, this_turn / this_phase / this_duel) in a state is the number of steps of that span so far
    for which EXPR held, and in a step predicate the same with the present step; counted by hand over a
    seeded play."""
    import random

    from duelcheck.engines.boards.where import parse_step
    from duelcheck.model.cards import BATTLE_PHASE
    from duelcheck.properties.core import COMPOSITES, ActionView
    from duelcheck.properties.history import system_for

    def span_of(st: Any, span: str) -> tuple[int, ...]:
        phase = st.g("phase")
        return {"this_duel": (), "this_turn": (st.g("turn"),)}.get(
            span, (st.g("turn"), -1 if phase in [int(ph) for ph in BATTLE_PHASE] else phase)
        )

    rules = Rules()
    spans = ("this_turn", "this_phase", "this_duel")
    ts = system_for(rules, [parse_step(f"count(action in (pass, end_step), {sp}) >= 0", rules) for sp in spans])
    rng = random.Random(11)
    s, history = ts.init(), []  # each step: its span keys and whether it passed
    for _ in range(120):
        # fine steps: a composite's parts are counted one by one (properties/core.py Check.eval)
        options = [o for o in ts.successors(s) if o.action not in COMPOSITES]
        if not options:
            break
        step = rng.choice(options)
        passed = step.action in ("pass", "end_step")
        for span in spans:
            here = span_of(s, span)
            so_far = sum(1 for keys, p in history if keys[span] == here and p)
            view = ActionView(step.action, dict(step.params), False)
            with_this = parse_step(f"count(action in (pass, end_step), {span}) == {so_far + passed}", rules)
            assert with_this.pred(s, view, step.state), (span, so_far, passed)
        history.append(({span: span_of(s, span) for span in spans}, passed))
        s = step.state
        for span in spans:
            here = span_of(s, span)
            n = sum(1 for keys, p in history if keys[span] == here and p)
            assert parse_step(f"count(action in (pass, end_step), {span}) == {n}", rules).pred(s, None, s), span
    assert len(history) == 120 and len({keys["this_turn"] for keys, _ in history}) >= 3


@pytest.mark.parametrize(
    "text, words",
    [
        (
            "players[0].lp + players[0].hand >= 1",
            r"column 17: players\[0\]\.lp and players\[0\]\.hand are not",
        ),
        ("players[0].lp + phase >= 1", "column 17: phase is not a number: it cannot be added"),
        ("turn + 1", "column 1: a sum is not a condition"),
        ("count(action == pass, this_game) >= 1", "column 23: expected a span"),
        ("count(action == pass, this_turn) >= 200", r"column 37: .* counts exactly up to 126"),
        ("count(count(action == pass, this_turn) >= 1, this_turn) >= 1", r"column 7: count.* inside a count"),
        ("count(action == pass) >= 1", "column 21: expected ',' and a span"),
    ],
)
def test_a_malformed_sum_or_count_names_its_column(text: str, words: str) -> None:
    from duelcheck.engines.boards.where import parse_step

    with pytest.raises(InputError, match=words):
        parse_step(text, Rules())


def test_count_is_refused_where_no_history_is_kept() -> None:
    """`--where` (boards, difftest) reads a state with no property's history: count(...) is refused there."""
    from duelcheck.engines.boards.where import parse_where

    with pytest.raises(InputError, match=r"column 1: count\(\.\.\.\) is only in a property"):
        parse_where("count(action == pass, this_turn) >= 1", Rules())


def _questions() -> list[tuple[str, list[str], str]]:
    """The ten questions of docs/properties.md: (number, the command's words, the answer)."""
    import re
    import shlex

    doc = (Path(__file__).parent.parent / "docs" / "properties.md").read_text(encoding="utf-8")
    section = doc.split("## Ten questions, answered from files", 1)[1]
    rows = re.findall(r"^\| (\d+) \| [^|]+ \| `([^`]+)` \| ([^|]+) \|$", section, flags=re.M)
    return [(n, shlex.split(command), answer.strip()) for n, command, answer in rows]


def _asked(words: list[str]) -> tuple[str | None, str, str]:
    """The rule file, the property file and the property a question's command names."""
    assert words[:2] == ["duelcheck", "check"], words
    opts = dict(zip(words[2::2], words[3::2], strict=True))
    assert set(opts) <= {"--rules", "--properties", "--property"}, opts
    return opts.get("--rules"), opts["--properties"], opts["--property"]


def test_the_ten_questions_are_in_the_doc_and_their_files_exist() -> None:
    root = Path(__file__).parent.parent
    questions = _questions()
    assert [n for n, _, _ in questions] == [str(i) for i in range(1, 11)]
    for _, words, _ in questions:
        rules, props, _ = _asked(words)
        assert (root / props).is_file() and (rules is None or (root / rules).is_file())


@pytest.mark.parametrize("number", [str(i) for i in range(1, 11)])
def test_each_question_gives_the_answer_the_doc_shows(number: str) -> None:
    """Each of the ten questions, from its files alone, within the bound (the proofs the doc claims are run by
    the slow test below): a violation or a witness of the length the doc says, minimal and certified; an
    invariant that holds, holds within the bound."""
    import re

    import duelcheck

    root = Path(__file__).parent.parent
    _, words, answer = next(q for q in _questions() if q[0] == number)
    rules, props, name = _asked(words)
    report = duelcheck.check(
        rules=None if rules is None else root / rules,
        properties=[name],
        depth=9,  # the longest answer the doc shows is 9 steps
        prove=False,
        simulate=False,
        property_files=[root / props],
        cache=False,
    )
    (r,) = report.results
    m = re.match(r"(violated|found) in (\d+) steps?", answer)
    if m:
        assert (r.verdict, r.length, r.minimal) == (m.group(1), int(m.group(2)), True), answer
        assert r.trace is not None
    else:
        assert answer.startswith("holds") and r.verdict == "holds", (answer, r.verdict)


@pytest.mark.slow
@pytest.mark.parametrize("number", [q for q in ("6", "7", "9")])
def test_the_questions_the_doc_says_are_proved_are_proved(number: str) -> None:
    import duelcheck

    root = Path(__file__).parent.parent
    _, words, answer = next(q for q in _questions() if q[0] == number)
    rules, props, name = _asked(words)
    assert "for all depths" in answer
    report = duelcheck.check(
        rules=None if rules is None else root / rules, properties=[name], property_files=[root / props], cache=False
    )
    (r,) = report.results
    assert r.verdict == "holds" and r.proved


def test_boards_where_names_a_state_property_of_a_file(tmp_path: Path) -> None:
    """`boards --properties FILE --where NAME`: a state property of the file is the board's condition; a
    step property (a board is a state) is refused in one line."""
    root = Path(__file__).parent.parent
    file = str(root / "docs" / "questions" / "q02-three-links.toml")
    args = ["boards", "--properties", file, "--depth", "6", "--bound-only", "--no-proofs"]
    run = CliRunner().invoke(main, [*args, "--where", "a-chain-of-three"])
    assert run.exit_code == 0, run.output
    board = json.loads(run.stdout)
    assert board["actions"][-1]["observed"]["chain_length"] == 3 and board["expect"]["conforms"]
    step_file = str(root / "docs" / "questions" / "q07-direct-attack-turn-1.toml")
    bad = CliRunner().invoke(main, ["boards", "--properties", step_file, "--where", "no-direct-attack-on-turn-1"])
    assert bad.exit_code == 2 and "a board is a state" in bad.stderr


def test_a_trace_with_a_count_is_replayed_and_shown(tmp_path: Path) -> None:
    """A violation of a property with a count: its trace holds the count's history field beside the game's;
    `replay` and `show` read it (the field is the property's history, not the game's)."""
    import duelcheck
    from duelcheck.conformance import replay
    from duelcheck.properties.user import from_command_line

    text = "count(action == pass, this_turn) <= 1"
    (mine,) = from_command_line((text,), (), Rules())
    report = duelcheck.check(None, [mine.name], 4, prove=False, simulate=False, always=[text], out=tmp_path)
    (r,) = report.results
    assert r.verdict == "violated" and r.length == 2 and r.trace_path
    data = json.loads(Path(r.trace_path).read_text(encoding="utf-8"))
    assert any(k.startswith("u_count_") for k in data["states"][-1])
    assert all(s.legal for s in replay(r.trace_path).steps)
    shown = CliRunner().invoke(main, ["show", r.trace_path])
    assert shown.exit_code == 0 and "pass" in shown.stdout


@pytest.mark.parametrize(
    "text, words",
    [
        ("players[0].lpp >= 0", r"unknown field 'players\[0\]\.lpp'; did you mean players\[0\]\.lp\?"),
        ("turnn >= 1", r"unknown field 'turnn'; did you mean turn\?"),
        ("chain[0].plyer == 0", r"did you mean chain\[0\]\.player\?"),
        ("phase == main3", r"'main3' is not a value of phase; did you mean main2\?"),
    ],
)
def test_an_unknown_name_is_refused_with_the_closest_one(text: str, words: str) -> None:
    from duelcheck.engines.boards.where import parse_step

    with pytest.raises(InputError, match=words):
        parse_step(text, Rules())
