"""`duelcheck difftest` and the engine protocols, with the rules as an engine and deliberately broken engines.

The engine itself (ygopro-core) is tested in tests/test_ygopro.py when DUELCHECK_OCGCORE names a built
library; everything that does not need it is tested here: the comparison both ways, the state comparison,
the grouping, the shrinking, the logs written, the JSON-lines protocol in a real child process, a crashing,
a hanging and a garbling engine, and the command line.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, ClassVar

import pytest

import duelcheck
from duelcheck.adapters import cards
from duelcheck.adapters.jsonlines import EngineError, ExecAdapter, builtin_cwd
from duelcheck.adapters.model import ModelEngine
from duelcheck.difftest import EngineProcess, difftest, play_log
from duelcheck.errors import InputError
from duelcheck.rules import Rules

SERVE = [sys.executable, "-m", "duelcheck.adapters.serve"]


class TwoNormalSummons(ModelEngine):
    """An engine bug: a second Normal Summon in the same turn (6.3.5)."""

    def __init__(self, rules: Any = None) -> None:
        super().__init__(Rules(normal_summons_per_turn=2))


class DirectDamageOff(ModelEngine):
    """An engine bug: it shows 100 LP more for the player who took battle damage than the rules leave."""

    def observe(self) -> dict[str, Any]:
        out = super().observe()
        for p in out["players"]:
            if p["lp"] < self.rules.starting_lp:
                p["lp"] += 100
        return out


class NoBattlePhase(ModelEngine):
    """An engine bug: Main Phase 1 never offers the Battle Phase."""

    def offers(self) -> list[dict[str, Any]]:
        return [a for a in super().offers() if a.get("then") != "battle_phase"]


def _run(engine: type[ModelEngine], plays: int = 6, turns: int = 3, seed: int = 1) -> Any:
    rules = Rules()
    holder = EngineProcess(lambda: engine(rules))
    return difftest(holder, engine.__name__, rules, plays, turns, seed, cards.random_deck, shrink_budget=30)


def test_the_rules_against_themselves_agree_and_the_report_is_the_same_twice() -> None:
    first = _run(ModelEngine)
    assert first.findings == [] and first.exit_code == 0
    assert first.decisions > 20 and first.offers_compared > first.decisions and first.steps > 0
    assert _run(ModelEngine).to_json() == first.to_json()
    assert _run(ModelEngine, seed=2).to_json() != first.to_json()  # the seed chooses the plays


def test_an_engine_that_allows_a_second_normal_summon_is_caught_shrunk_and_written_as_a_log() -> None:
    report = _run(TwoNormalSummons)
    assert report.exit_code == 1
    top = {(f.kind, f.subject, f.clause) for f in report.findings}
    assert ("engine-allows", "normal_summon", "6.3.5") in top
    finding = next(f for f in report.findings if (f.kind, f.subject) == ("engine-allows", "normal_summon"))
    assert finding.count >= 2 and len(set(finding.plays)) >= 2  # one finding, many occurrences
    assert finding.shortest is not None and len(finding.shortest.choices) <= 2  # a summon, then the second
    log = finding.log
    assert log is not None and log["actions"][-1]["action"] == "normal_summon"
    replayed = duelcheck.replay(log)  # the model refuses the engine's move, with the clause's words
    assert not replayed.conforms and replayed.stopped_at == len(log["actions"])
    assert replayed.steps[-1].clause == "6.3.5"


def test_a_state_the_engine_shows_wrong_is_a_state_finding_grouped_by_field() -> None:
    report = _run(DirectDamageOff, plays=20, turns=4)
    lp = [f for f in report.findings if f.kind == "state" and f.subject == "players[].lp"]
    assert lp, report.text()
    assert "rules" in lp[0].detail and "engine" in lp[0].detail


def test_an_action_the_engine_does_not_offer_is_an_engine_forbids_finding() -> None:
    report = _run(NoBattlePhase, plays=4, turns=3)
    forbids = [f for f in report.findings if f.kind == "engine-forbids" and f.subject == "end_step"]
    assert forbids and "battle_phase" in forbids[0].detail
    assert forbids[0].log is not None and forbids[0].log["actions"][-1].get("then") == "battle_phase"
    assert duelcheck.replay(forbids[0].log).conforms  # the rules allow it: the log plays


def test_the_shortest_play_still_shows_the_finding_and_the_log_keeps_the_decks() -> None:
    report = _run(TwoNormalSummons, plays=3)
    finding = report.findings[0]
    assert finding.shortest is not None and finding.log is not None
    assert finding.log["decks"] == finding.shortest.decks and len(finding.log["decks"][0]) == 40
    again = play_log(Rules(), finding.shortest, finding)
    assert again == finding.log


BROKEN = textwrap.dedent(
    """
    import json, sys, time
    mode = sys.argv[1]
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "hello":
            print(json.dumps({"protocol": "duelcheck-engine/1", "engine": "broken"}), flush=True)
        elif mode == "crash":
            sys.exit(3)
        elif mode == "hang":
            time.sleep(60)
        elif mode == "garble":
            print("this is not JSON", flush=True)
    """
)


@pytest.mark.parametrize(
    ("mode", "words"),
    [("crash", "exit status 3"), ("hang", "no answer to deal in 1 s"), ("garble", "not JSON")],
)
def test_a_crashing_hanging_or_garbling_engine_process_is_an_engine_error(
    tmp_path: Path, mode: str, words: str
) -> None:
    script = tmp_path / "broken.py"
    script.write_text(BROKEN)
    adapter = ExecAdapter({}, [sys.executable, str(script), mode], timeout=1.0)
    with pytest.raises(EngineError, match=words):
        adapter.deal([[], []])
    adapter.close()


def test_an_engine_failure_ends_its_play_in_the_report_and_the_run_goes_on(tmp_path: Path) -> None:
    script = tmp_path / "broken.py"
    script.write_text(BROKEN)
    rules = Rules()
    holder = EngineProcess(lambda: ExecAdapter({}, [sys.executable, str(script), "crash"], timeout=5.0))
    report = difftest(holder, "broken", rules, 2, 2, 1, cards.random_deck)
    assert report.exit_code == 4
    failure = report.findings[0]
    assert failure.kind == "engine-failure" and failure.count == 2 and "exit status 3" in failure.detail


def test_the_reference_adapter_behind_the_json_lines_protocol_answers_as_it_does_in_process() -> None:
    scenario = json.loads((Path(__file__).parent / "scenarios/battle/01-atk-vs-atk-higher.json").read_text())
    from duelcheck.adapter import ReferenceAdapter

    local = ReferenceAdapter(scenario.get("rules") or {})
    remote = ExecAdapter(scenario.get("rules") or {}, [*SERVE, "reference"], cwd=builtin_cwd())
    local.reset(scenario["board"])
    remote.reset(scenario["board"])
    for entry in scenario["actions"]:
        action = {k: v for k, v in entry.items() if k not in ("observed", "note")}
        assert remote.apply(action) == local.apply(action)
    assert isinstance(remote.apply({"action": "discard"}), str)  # a refusal comes back as its reason
    remote.close()


def test_the_model_engine_in_a_child_process_agrees_with_itself() -> None:
    rules = Rules()
    holder = EngineProcess(lambda: ExecAdapter({}, [*SERVE, "model"], cwd=builtin_cwd()))
    report = difftest(holder, "model", rules, 3, 2, 5, cards.random_deck)
    holder.drop()
    assert report.findings == [] and report.decisions > 0


class NoDirectAttack(ModelEngine):
    """An engine bug a play must go into a Battle Step with a monster to show: no direct attack is offered."""

    def offers(self) -> list[dict[str, Any]]:
        return [a for a in super().offers() if not (a["action"] == "declare_attack" and a["target"] == "direct")]


DAMAGE_START = "phase == damage_start"


def test_a_guided_play_follows_the_solvers_play_to_its_aim_and_shows_a_bug_on_its_way(tmp_path: Path) -> None:
    from duelcheck.engines import guided

    rules = Rules()
    aims = guided.find(rules, cards.dealable, (DAMAGE_START,), depth=9, cache=tmp_path)
    assert [a.status for a in aims] == ["found"] and aims[0].log is not None
    assert duelcheck.replay(aims[0].log).conforms  # the solver's play, certified, as a log that replays
    assert guided.find(rules, cards.dealable, (DAMAGE_START,), depth=9, cache=tmp_path)[0].moves == aims[0].moves
    assert guided.find(rules, cards.dealable, (DAMAGE_START,), depth=7)[0].status == "not-found"

    def run(engine: type[ModelEngine]) -> Any:
        holder = EngineProcess(lambda: engine(rules))
        return difftest(holder, engine.__name__, rules, 0, 2, 1, cards.random_deck, shrink_budget=10, aims=aims)

    same = run(ModelEngine)
    assert same.findings == [] and same.reached == {aims[0].name: True} and same.exit_code == 0
    assert same.to_json()["guided_plays"][0]["reached"] is True
    broken = run(NoDirectAttack)  # the guided play alone (no random play) takes the monster to the Battle Step
    assert ("engine-forbids", "declare_attack", "6.3.4.2") in [(f.kind, f.subject, f.clause) for f in broken.findings]
    assert broken.reached == {aims[0].name: False}  # the engine does not offer the solver's next action
    assert broken.to_json() == run(NoDirectAttack).to_json()


def test_guided_plays_deal_only_cards_an_engine_is_given() -> None:
    from duelcheck.engines import guided

    rules = Rules()
    aims = guided.find(rules, cards.dealable, ("chain_length == 2",), depth=12)
    assert aims[0].status == "found" and aims[0].log is not None
    for p in (0, 1):
        for card in cards.stacked_deck(aims[0].log, p, rules):
            cards.code_of(card, "deck")  # raises for a card the adapter cannot deal
    played = [m for m, params in aims[0].moves if m == "activate" or m == "set_spell_trap"]
    assert played, "a chain of two needs two activations"


def test_guided_plays_for_full_decks_may_play_what_full_decks_deal_and_no_skipped_main_phase_1() -> None:
    """The step constraint of `--decks full` admits an ATK change, which the default one refuses, and never a
    skip of Main Phase 1 (its next phase cannot be compared)."""
    from duelcheck.engines import guided

    rules = Rules()
    aim = ("chain[0].effect == change_atk",)
    full = guided.find(rules, cards.dealable_full, aim, depth=6)
    assert full[0].status == "found", full[0].status
    assert guided.find(rules, cards.dealable, aim, depth=6)[0].status == "not-found"
    skip = guided.find(rules, cards.dealable_full, ("chain[0].effect == skip_main1",), depth=6)
    assert skip[0].status == "not-found"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "duelcheck", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def test_the_command_writes_findings_as_logs_that_replay_and_a_json_report(tmp_path: Path) -> None:
    engine = tmp_path / "engine.py"
    engine.write_text(
        "from duelcheck.adapters.model import ModelEngine\n"
        "from duelcheck.rules import Rules\n"
        "class Twice(ModelEngine):\n"
        "    def __init__(self, rules=None):\n"
        "        super().__init__(Rules(normal_summons_per_turn=2))\n"
    )
    spec = f"exec:{sys.executable} -m duelcheck.adapters.serve engine:Twice"
    args = ("--plays", "3", "--turns", "2", "--out", "found", "--format", "json", "--report", "found/r.html")
    args += ("--aim", DAMAGE_START, "--aim-depth", "9")
    run = _cli("difftest", "--engine", spec, *args, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout)
    assert report["findings"][0]["clause"] == "6.3.5" and report["disagreements"] >= 1
    logs = sorted((tmp_path / "found").glob("0*.json"))
    assert logs and json.loads((tmp_path / "found" / "difftest.json").read_text()) == report
    replayed = _cli("replay", str(logs[0]), cwd=tmp_path)
    assert replayed.returncode == 1 and "6.3.5" in replayed.stdout
    page = (tmp_path / "found" / "r.html").read_text()
    assert "engine-allows" in page and "<code>normal_summon</code>" in page and "<script" not in page
    assert [g["status"] for g in report["guided_plays"]] == ["found"] and 'id="guided"' in page


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--engine", "ygopro", "--ocgcore", "missing.so"), "missing.so: no such file"),
        (("--engine", "nonsense"), "expected ygopro, edopro, model or exec:"),
        (("--engine", "model", "--rules", "no-such-preset"), "no-such-preset"),
        (("--engine", "model", "--aim", "phase == nowhere"), "--aim 'phase == nowhere'"),
        (("--engine", "model", "--aim", "turn == 1", "--no-guided"), "drop --no-guided"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: tuple[str, ...], words: str) -> None:
    run = _cli("difftest", *args, "--plays", "1", cwd=tmp_path)
    assert run.returncode == 2 and words in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_a_library_that_is_not_ygopro_core_is_bad_input(tmp_path: Path) -> None:
    fake = tmp_path / "libfake.so"
    fake.write_bytes(b"not a library")
    run = _cli("difftest", "--ocgcore", str(fake), "--plays", "1", cwd=tmp_path)
    assert run.returncode == 2 and "cannot load it as a shared library" in run.stderr


def test_every_card_of_the_catalogue_has_a_code_and_a_script_of_its_kind() -> None:
    """The ygopro adapter's cards (duelcheck/adapters/cards.py): every Spell/Trap kind with every effect and
    cost, and every monster effect type with each effect the model lets it carry, has a code that names it
    back and a script of its kind (no library needed: the scripts are text until the core reads them)."""
    from duelcheck.model.cards import DELAYED, Effect
    from duelcheck.model.rules import MONSTER_EFFECTS

    seen: set[int] = set()
    # the delayed effects have no script yet, and a continuous effect is a monster's (never activated): a Spell or
    # Trap carrying one is refused with its reason, not played wrong
    unscripted = set(cards.UNSCRIPTED_MONSTER_EFFECTS)
    assert {e for e in Effect if e not in cards.SCRIPTS} == set(DELAYED) | set(cards.CONTINUOUS) | unscripted
    for effect in (*DELAYED, *cards.CONTINUOUS, *unscripted):
        with pytest.raises(InputError, match=f"no script for the effect {effect.name.lower()}"):
            cards.code_of({"kind": "normal_spell", "effect": effect.name.lower(), "cost": "none"}, "card")
    for effect in unscripted:  # a monster carrying it is refused too: the cores read it otherwise (F16)
        monster = {"atk": 0, "def": 0, "effect": {"type": "continuous", "effect": effect.name.lower()}}
        with pytest.raises(InputError, match=f"no script for the effect {effect.name.lower()}"):
            cards.code_of(monster, "card")
    # a Continuous Spell or Trap may carry "your opponent cannot activate Trap cards": activated, then applied from
    # its Spell & Trap Zone
    for kind in ("continuous_spell", "continuous_trap"):
        card = {"kind": kind, "effect": "no_traps", "cost": "none"}
        code = cards.code_of(card, "card")
        assert cards.card_of(code) == card
        text = (cards.script(f"c{code}.lua") or b"").decode()
        assert "EFFECT_TYPE_ACTIVATE" in text and "EFFECT_CANNOT_ACTIVATE" in text and "LOCATION_SZONE" in text
    for kind in cards.KIND_WORD.values():
        for effect in (e for e in Effect if e in cards.SCRIPTS):
            for cost in cards.WORD_COST:
                card = {"kind": kind, "effect": effect.name.lower(), "cost": cost}
                code = cards.code_of(card, "card")
                assert cards.card_of(code) == card and code not in seen
                seen.add(code)
                text = (cards.script(f"script/c{code}.lua") or b"").decode()
                assert "EFFECT_TYPE_ACTIVATE" in text and ("SetCost" in text) == (cost != "none")
                assert ("EFFECT_FLAG_CARD_TARGET" in text) == (
                    effect in cards.SCRIPTS and bool(cards.SCRIPTS[effect].target)
                )
    for mtype, effects in MONSTER_EFFECTS.items():
        for effect in (e for e in effects if e not in unscripted):
            word = cards.TYPE_WORD[mtype]
            card = {"atk": 1200, "def": 800, "effect": {"type": word, "effect": effect.name.lower()}}
            code = cards.code_of(card, "card")
            assert cards.card_of(code) == card and code not in seen
            seen.add(code)
            text = (cards.script(f"c{code}.lua") or b"").decode()
            continuous = {
                Effect.NO_TRAPS: "EFFECT_CANNOT_ACTIVATE",
                Effect.ATTACK_DIRECTLY: "EFFECT_DIRECT_ATTACK",
                Effect.DISCARD_INSTEAD: "EFFECT_DESTROY_REPLACE",
            }
            assert {
                "ignition": "IGNITION",
                "quick": "QUICK_O",
                "flip": "EFFECT_TYPE_FLIP",
                "trigger": "BATTLE_DESTROYED",
                "continuous": continuous.get(effect, "a continuous effect of its own"),
                "before_draw": "EVENT_PREDRAW",
                "end_phase": "EFFECT_TYPE_TRIGGER_F",
            }[word] in text
    assert cards.script(f"c{cards.code_of({'atk': 1200, 'def': 800}, 'card')}.lua") is None  # a Normal Monster
    with pytest.raises(InputError, match="optional 'effect'"):
        cards.code_of(
            {"atk": 0, "def": 0, "effect": {"type": "flip", "effect": "negate"}}, "card"
        )  # not in the catalogue


def test_a_monster_an_effect_special_summons_is_stacked_in_its_owners_deck() -> None:
    """The log says only what a resolution summons; the deck must hold it, drawn before the resolution."""
    actions = [
        {"action": "end_step"},
        {"action": "end_step"},
        {
            "action": "normal_summon",
            "atk": 1000,
            "def": 1000,
            "effect": {"type": "ignition", "effect": "special_summon"},
        },
        {"action": "pass"},  # 6.3: the summon's response window, passed by both
        {"action": "pass"},
        {"action": "activate_effect", "monster": 0, "type": "ignition", "effect": "special_summon"},
        {"action": "pass"},
        {"action": "pass"},
        {"action": "resolve", "summon": {"atk": 1500, "def": 1200, "position": "defense"}},
    ]
    deck = cards.stacked_deck({"format": "duelcheck-log/1", "actions": actions}, 0, Rules())
    assert {"atk": 1500, "def": 1200} in deck[:5] and deck[0]["effect"]["type"] == "ignition"


def test_edopros_duel_flags_say_what_each_preset_says() -> None:
    """The rule sets the EDOPro adapter plays, and the flags it sets for them (no library needed); a knob no
    flag says is refused with its name, never played under other rules."""
    from duelcheck.adapters import edopro
    from duelcheck.rules import load_rules

    want = {
        "official": 0,
        "master-rule-2": edopro.DUEL_1ST_TURN_DRAW,
        "goat": edopro.DUEL_1ST_TURN_DRAW
        | edopro.DUEL_0_ATK_DESTROYED
        | edopro.DUEL_STORE_ATTACK_REPLAYS
        | edopro.DUEL_TCG_FAST_EFFECT_IGNITION
        | edopro.DUEL_SINGLE_CHAIN_IN_DAMAGE_SUBSTEP,
        "speed": edopro.DUEL_3_COLUMNS_FIELD | edopro.DUEL_NO_MAIN_PHASE_2 | edopro.DUEL_TRIGGER_ONLY_IN_LOCATION,
        "speed-ocg": edopro.DUEL_3_COLUMNS_FIELD,
        "rush": edopro.DUEL_3_COLUMNS_FIELD
        | edopro.DUEL_NO_MAIN_PHASE_2
        | edopro.DUEL_NO_STANDBY_PHASE
        | edopro.DUEL_1ST_TURN_DRAW
        | edopro.DUEL_DRAW_UNTIL_5
        | edopro.DUEL_NO_HAND_LIMIT
        | edopro.DUEL_UNLIMITED_SUMMONS
        | edopro.DUEL_TRIGGER_ONLY_IN_LOCATION,
    }
    base = edopro.DUEL_PSEUDO_SHUFFLE | edopro.DUEL_MODE_MR5
    for preset, flags in want.items():
        rules = load_rules(preset)
        assert edopro.expressible(rules) is None, preset
        assert edopro._flag_for(rules) == (base | flags, []), preset
    why = edopro.expressible(Rules(hand_limit=3, monster_zones=4))
    assert why is not None and "hand_limit = 3" in why and "monster_zones = 4" in why
    assert edopro.expressible(Rules(draw_until=4)) is not None  # only "until 5" has a flag


def _choosing_deck(rng: Any, size: int) -> list[dict[str, Any]]:
    """Normal Monsters, and Spells whose resolution brings a choice: an ATK change, a Special Summon."""
    spells = [
        {"kind": "quick_play_spell", "effect": "change_atk", "cost": "none"},
        {"kind": "normal_spell", "effect": "special_summon", "cost": "none"},
    ]
    return [
        rng.choice(spells) if rng.random() < 0.5 else {"atk": rng.choice((500, 1500, 2500)), "def": 1000}
        for _ in range(size)
    ]


class Told(ModelEngine):
    """The rules as the engine, keeping what it is told the rules' resolutions brought."""

    told: ClassVar[list[dict[str, Any]]] = []

    def resolutions(self, entries: list[dict[str, Any]]) -> None:
        Told.told += entries
        super().resolutions(entries)


class ChoosesItsOwn(ModelEngine):
    """An engine that makes its own choices on resolution (it is not told the rules')."""

    def resolutions(self, entries: list[dict[str, Any]]) -> None:
        self.resolution_seed = 7


def test_what_a_resolution_brings_is_the_rules_choice_told_to_the_engine() -> None:
    rules = Rules()
    Told.told = []
    report = difftest(EngineProcess(lambda: Told(rules)), "told", rules, 12, 3, 1, _choosing_deck, shrink_budget=10)
    assert report.findings == [], report.text()
    assert any("atk_change" in e for e in Told.told) and any("summon" in e for e in Told.told)
    assert report.to_json()["plays_cut"] == report.cut
    # an engine that chooses for itself shows another ATK (or another monster) than the rules chose
    wrong = difftest(
        EngineProcess(lambda: ChoosesItsOwn(rules)), "own", rules, 12, 3, 1, _choosing_deck, shrink_budget=10
    )
    assert any(f.kind == "state" and "monsters" in f.subject for f in wrong.findings), wrong.text()


def test_a_special_summon_from_a_hand_of_no_monster_cuts_the_play_and_says_why() -> None:
    rules = Rules()
    engine = ModelEngine(rules)
    only_spells = [{"kind": "normal_spell", "effect": "special_summon", "cost": "none"}] * rules.deck_size
    engine.deal([only_spells, only_spells])
    engine.reset({})
    while engine.cut is None and not engine.over():
        offers = engine.offers()
        activate = [a for a in offers if a["action"] == "activate"]
        engine.apply(activate[0] if activate else ({"action": "pass"} if {"action": "pass"} in offers else offers[0]))
    assert engine.cut == "a Special Summon from a hand that holds no Normal Monster"
