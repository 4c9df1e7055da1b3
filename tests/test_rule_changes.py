"""Rule changes in files (a rule file's [[change]] tables, model/changes.py): a guard added, dropped or
negated is checked, replayed and diffed against the official rules, in both semantics, with the new words."""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from duelcheck.cli import main
from duelcheck.errors import InputError
from duelcheck.model.cards import Effect
from duelcheck.rules import Rules, load_rules

ADD = """
[[change]]
require = "turn >= 3"
action = "declare_attack"
reason = "house rule: no attacks before turn 3"
"""
DROP = """
[[change]]
drop = "normal_summon.only-1-normal-summon-or-set-per-turn-across-main-phase"
"""
NEGATE = """
[[change]]
negate = "declare_attack.the-opponent-controls-no-monster-the-attack-is-a-direct"
"""
# turn 2: player 1 Normal Summons a monster and attacks directly (the rules' steps, the duel-log format)
ATTACK_ON_TURN_2 = [
    {"action": "end_step"},
    {"action": "end_step"},
    {"action": "end_step", "then": "end_phase"},
    {"action": "end_step"},
    {"action": "normal_draw"},
    {"action": "end_step"},
    {"action": "end_step"},
    {"action": "normal_summon", "atk": 1000, "def": 1000},
    {"action": "end_step", "then": "battle_phase"},
    {"action": "end_step"},
    {"action": "declare_attack", "attacker": 0, "target": "direct"},
]


SMALL_FIELD = "monster_zones = 1\nspell_trap_zones = 1\nchain_links = 2\n"
SMALL = Rules(monster_zones=1, spell_trap_zones=1, chain_links=2)
# as small, with a second Monster Zone: room for a second summon
TWO_ZONES_FIELD = "monster_zones = 2\nspell_trap_zones = 1\nchain_links = 2\n"
TWO_ZONES = Rules(monster_zones=2, spell_trap_zones=1, chain_links=2)


def _log(rules: Rules) -> dict[str, object]:
    """The play as a duel log recorded under `rules` (its changes as the log's JSON holds them)."""
    return {"format": "duelcheck-log/1", "rules": json.loads(json.dumps(rules.changed())), "actions": ATTACK_ON_TURN_2}


def _rules(tmp_path: Path, text: str, name: str = "changed.toml") -> Rules:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_rules(path)


def test_a_guard_added_from_a_file_is_replayed_and_diffed_with_its_reason(tmp_path: Path) -> None:
    from duelcheck.conformance import replay
    from duelcheck.engines.diff import diff

    rules = _rules(tmp_path, SMALL_FIELD + ADD)  # a small field: the same refusal, a faster search
    play = _log(rules)
    report = replay(play)
    refused = [s for s in report.steps if not s.legal]
    assert [s.index for s in refused] == [len(ATTACK_ON_TURN_2)]
    assert refused[0].reason == "house rule: no attacks before turn 3"
    assert all(s.legal for s in replay({**play, "rules": SMALL.changed()}).steps)  # without the guard it is taken
    got = diff(SMALL, rules, 10)
    assert got.a_to_b is not None and got.a_to_b.kind == "refused" and got.a_to_b.trace is not None
    assert "house rule: no attacks before turn 3" in got.a_to_b.reason
    assert got.a_to_b.trace.steps[-1].action == "declare_attack"
    assert got.b_to_a is None  # a guard added only removes plays


def test_a_dropped_guard_breaks_its_property_with_a_certified_trace(tmp_path: Path) -> None:
    import duelcheck

    rules = _rules(tmp_path, TWO_ZONES_FIELD + DROP)  # a small field: the same violation, a faster search
    report = duelcheck.check(rules=rules, properties=["normal-summon-limit"], depth=8, prove=False, simulate=False)
    broken = [r for r in report.results if r.verdict == "violated"]
    assert broken and broken[0].trace is not None
    actions = [s.action for s in broken[0].trace.steps]
    assert actions.count("normal_summon") + actions.count("set_monster") >= 2
    from duelcheck.engines.diff import diff

    got = diff(rules, TWO_ZONES, 8)  # the play the change allows: the official rules refuse its last step
    assert got.a_to_b is not None and got.a_to_b.kind == "refused"
    assert "Normal Summon or Set per turn" in got.a_to_b.reason


def test_a_negated_guard_is_refused_with_its_new_words_in_both_semantics(tmp_path: Path) -> None:
    from duelcheck.conformance import replay
    from duelcheck.engines.diff import diff

    rules = _rules(tmp_path, SMALL_FIELD + NEGATE)  # a small field: the same refusal, a faster search
    play = _log(rules)
    refused = [s for s in replay(play).steps if not s.legal]
    assert [s.index for s in refused] == [len(ATTACK_ON_TURN_2)]
    assert "negated" in (refused[0].reason or "") and "the attack is a direct attack" in (refused[0].reason or "")
    got = diff(SMALL, rules, 11)
    assert got.a_to_b is not None and got.a_to_b.kind == "refused" and "negated" in got.a_to_b.reason
    import duelcheck
    from duelcheck.properties.user import from_command_line

    direct = "action == declare_attack and action.target == direct"  # checked: only the effect's direct attack
    (mine,) = from_command_line((), (direct,), SMALL)
    attackers = []
    for under in (SMALL, rules):
        report = duelcheck.check(under, [mine.name], 8, prove=False, simulate=False, sometimes=[direct], cache=False)
        (r,) = report.results
        assert r.verdict == "found" and r.trace is not None, (under.words(), r.verdict)
        last = r.trace.steps[-1]
        attackers.append(Effect(last.state.g("m_eff", last.state.tp, last.params["zone"])))
    # the rules attack an empty field directly with any monster; the negated rule lets only a monster whose own
    # effect says it can attack directly (001:L55) do so: the direct attack of 6.3.4.2 is gone
    assert attackers[0] != Effect.ATTACK_DIRECTLY and attackers[1] == Effect.ATTACK_DIRECTLY, attackers


def test_the_rulebook_lists_the_changed_rules_and_the_names_changes_use() -> None:
    """`duelcheck rules --rules FILE` shows the rules with the changes applied; every guard `duelcheck rules`
    names (an action's own) is a name a change can use."""
    from duelcheck.model.changes import guard_names

    book = json.loads(CliRunner().invoke(main, ["rules", "--format", "json"]).stdout)
    listed = {g["name"] for e in book for g in e["guards"] if g["kind"] != "part"}
    assert listed <= set(guard_names(Rules())), sorted(listed - set(guard_names(Rules())))[:3]


def test_a_guards_name_within_a_run_survives_renaming_or_moving_another() -> None:
    from duelcheck.model import changes

    reasons = ["6.3.4.2: attacks are declared in the Battle Step", "seed 000: x", "model range: y", "6.3.1: w", "z"]
    rng = random.Random(7)

    def names(said: list[str]) -> dict[str, str]:
        changes.RUNNING.append(("act", {}))
        try:
            return {r: changes._name(r) for r in said}
        finally:
            changes.RUNNING.pop()

    before = names(reasons)
    for _ in range(10):
        moved = rng.sample(reasons, len(reasons))
        renamed = [r if r != moved[0] else r + " (renamed)" for r in moved]
        after = names(renamed)
        assert all(after[r] == before[r] for r in reasons if r != moved[0])


@pytest.mark.parametrize(
    "text, words",
    [
        ('[[change]]\ndrop = "declare_attack.no-such-guard"\n', "change[0].drop: no guard 'declare_attack.no-such"),
        ('[[change]]\nnegate = "pass.x"\ndrop = "pass.y"\n', "change[0]: a change holds one of drop, negate"),
        ('[[change]]\nrequire = "turn >= 3"\naction = "declare_atack"\nreason = "r"\n', "did you mean declare_attack"),
        ('[[change]]\nrequire = "turn >= "\naction = "pass"\nreason = "r"\n', "change[0].require: column 9"),
        ('[[change]]\nrequire = "next.turn == 1"\naction = "pass"\nreason = "r"\n', "'next' is not in a guard"),
        ('[[change]]\nrequire = "turn >= 3"\naction = "pass"\n', "require needs action = NAME and reason"),
        ('[[change]]\ndrop = "pass.x"\nwhy = "r"\n', "change[0].why: unknown key"),
    ],
)
def test_a_malformed_change_is_one_line_naming_the_table(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=words.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")):
        load_rules(path)
    run = CliRunner().invoke(main, ["rules", "--rules", str(path)])
    assert run.exit_code == 2 and len(run.stderr.strip().splitlines()) == 1 and str(path) in run.stderr


@pytest.mark.slow  # about a minute: both verdicts are proved for all depths first
def test_diff_compares_a_users_properties_under_a_changed_rule_set(tmp_path: Path) -> None:
    (tmp_path / "house.toml").write_text(ADD, encoding="utf-8")
    (tmp_path / "q.toml").write_text(
        '[[property]]\nname = "attacks-from-turn-3"\nkind = "always"\n'
        'step = "action == declare_attack implies turn >= 3"\n',
        encoding="utf-8",
    )
    args = ["diff", "official", str(tmp_path / "house.toml"), "--depth", "8", "--format", "json"]
    mine = ["--properties", str(tmp_path / "q.toml"), "--property", "attacks-from-turn-3"]
    run = CliRunner().invoke(main, [*args, *mine])
    assert run.exit_code in (0, 1), run.output
    rows = json.loads(run.stdout)["properties"]
    assert rows == [{"property": "attacks-from-turn-3", "a": "violated", "b": "holds", "same": False}]


MIXED = """
hand_limit = 5

[[change]]
require = "action.atk <= 2000 or turn >= 4"
action = "normal_summon"
reason = "house rule: no monster above 2000 ATK before turn 4"

[[change]]
drop = "activate.a-quick-play-spell-is-activated-from-the-hand-only-in"

[[change]]
negate = "declare_attack.the-opponent-controls-no-monster-the-attack-is-a-direct"
"""


@functools.cache
def _mixed_system() -> tuple[Any, Any, Any]:
    import tempfile

    from duelcheck.model.system import TransitionSystem

    with tempfile.TemporaryDirectory() as folder:
        ts = TransitionSystem(_rules(Path(folder), MIXED))
    pre = ts.sym_state("@chg")
    return ts, pre, ts.sym_step(pre, "@chg1")


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), length=st.integers(0, 60), pick=st.integers(0, 10_000))
@example(seed=35, length=49, pick=0)  # the negated direct-attack guard let an attack on zone 7 through
def test_the_two_semantics_agree_under_changed_rules(seed: int, length: int, pick: int) -> None:
    """A guard added (reading an action's parameter), one dropped and one negated, with a knob: the concrete
    successor is the symbolic relation's only one, and every action the symbolic guard allows is one the
    concrete enumerator takes."""
    import z3
    from conftest import walk

    from duelcheck.model.rules import ACTION_CODE
    from duelcheck.model.state import PARAMS

    ts, pre, sym = _mixed_system()
    s = walk(ts, seed, length)
    pinned = [pre.v[k] == s.v[k] for k in ts.keys]

    def is_(step: Any) -> list[Any]:
        out = [sym.act == ACTION_CODE[step.action]]
        for name, spec in PARAMS.items():
            out.append(sym.params[name] == step.params.get(name, False if spec.sort == "bool" else 0))
        return out

    options = list(ts.successors(s))
    search = [spec.search_domain(sym.params[name]) for name, spec in PARAMS.items()]
    solver = z3.SolverFor("QF_BV")
    solver.add(sym.relation, *search, *pinned, z3.Not(z3.Or(*(z3.And(*is_(o)) for o in options))) if options else True)
    assert solver.check() == z3.unsat, "enabled symbolically but not enumerated"
    if options:
        step = options[pick % len(options)]
        solver = z3.SolverFor("QF_BV")
        solver.add(sym.relation, *pinned, *is_(step))
        same = z3.And(*(sym.post.v[k] == step.state.v[k] for k in ts.keys))
        assert solver.check(same) == z3.sat and solver.check(z3.Not(same)) == z3.unsat


def test_an_added_guard_reads_the_actions_parameter_in_both_semantics() -> None:
    """Main Phase 1 of turn 1 under MIXED: a Normal Summon of 2500 ATK is refused with the house rule's words,
    concretely and symbolically; one of 2000 ATK is taken in both."""
    import z3

    from duelcheck.model.cards import POINTS
    from duelcheck.model.rules import ACTION_CODE

    ts, pre, sym = _mixed_system()
    s = ts.init()
    for _ in range(2):  # Draw Phase, Standby Phase: to Main Phase 1
        got = ts.apply(s, "end_step", {"choice": 0})
        assert got.ok and got.state is not None
        s = got.state
    pinned = [pre.v[k] == s.v[k] for k in ts.keys]
    for atk, legal in ((2500, False), (2000, True)):
        params = {"atk": atk // POINTS, "defv": 0, "mkind": 0, "eff": 0}
        got = ts.apply(s, "normal_summon", params)
        assert got.ok is legal and (legal or got.reason == "house rule: no monster above 2000 ATK before turn 4")
        solver = z3.SolverFor("QF_BV")
        solver.add(sym.relation, *pinned, sym.act == ACTION_CODE["normal_summon"])
        solver.add(*(sym.params[k] == v for k, v in params.items()))
        assert solver.check() == (z3.sat if legal else z3.unsat), atk
