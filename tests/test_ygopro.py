"""ygopro-core under duelcheck: the adapter and difftest against a library built from the public source.

These tests run when DUELCHECK_OCGCORE names a built library (docs/engines.md says how to build one) and
are skipped otherwise. What needs no engine is tested in tests/test_difftest.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from duelcheck.adapters import cards
from duelcheck.difftest import EngineProcess, difftest
from duelcheck.rules import Rules

LIBRARY = os.environ.get("DUELCHECK_OCGCORE", "")
pytestmark = pytest.mark.skipif(
    not (LIBRARY and Path(LIBRARY).is_file()),
    reason="DUELCHECK_OCGCORE names no built ygopro-core library (docs/engines.md: how to build one)",
)

MONSTER = {"atk": 1000, "def": 1000}


def _engine(rules: Rules | None = None) -> object:
    from duelcheck.adapters.ygopro import Ygopro

    return Ygopro(rules or Rules(), LIBRARY, 0)


def test_the_first_turn_offers_the_opening_hand_and_no_battle_phase() -> None:
    first_turn_offers_the_opening_hand(_engine())


def first_turn_offers_the_opening_hand(engine: Any) -> None:
    """The first turn on a core: the opening hand's summons and Sets offered, no Battle Phase (6.3.4), one
    Normal Summon (6.3.5). Shared with tests/test_edopro.py."""
    strong = {"atk": 3000, "def": 2500}
    engine.deal([[strong, *([MONSTER] * 39)], [MONSTER] * 40])
    engine.reset({})
    offers = engine.offers()
    assert {"action": "normal_summon", **strong} in offers and {"action": "set_monster", **MONSTER} in offers
    assert {"action": "end_step", "then": "battle_phase"} not in offers  # 6.3.4: not on turn 1
    seen = engine.apply({"action": "normal_summon", **strong})
    assert isinstance(seen, dict) and seen["players"][0]["monsters"][0]["atk"] == 3000
    assert seen["players"][0]["hand"] == 4 and seen["phase"] == "main1"
    again = engine.apply({"action": "normal_summon", **MONSTER})
    assert isinstance(again, str)  # 6.3.5: one Normal Summon a turn


def test_normal_monsters_agree_with_the_rules_over_seeded_plays() -> None:
    rules = Rules()
    report = difftest(EngineProcess(lambda: _engine(rules)), "ygopro", rules, 30, 6, 7, cards.random_deck)  # type: ignore[arg-type, return-value]
    assert report.findings == [], report.text()
    assert report.decisions > 300


def test_a_cost_equal_to_the_lp_is_paid_and_ends_the_duel_on_both_sides() -> None:
    """docs/engine-findings.md, F2: the engine lets a player with 1000 LP pay a 1000 LP cost, and so do the
    rules since that finding (the duel then ends at once); before, this run found `engine-allows activate`."""
    rules = Rules(starting_lp=1000)
    report = difftest(EngineProcess(lambda: _engine(rules)), "ygopro", rules, 12, 4, 1, cards.mixed_deck)  # type: ignore[arg-type, return-value]
    assert report.findings == [], report.text()
    assert report.duels_won > 0 and report.exercised.get("activate", 0) > 0


def test_the_response_window_and_the_draw_check_agree_with_the_engine() -> None:
    """docs/engine-findings.md, F1 and F4: with Spells and Traps dealt the engine asks the opponent after the
    turn player's summon, Set or resolved chain (the response window, a compared decision now), and offers no
    draw card with an empty deck; before the fixes these plays found `engine-window` and `engine-forbids`."""
    rules = Rules(deck_size=10)
    report = difftest(EngineProcess(lambda: _engine(rules)), "ygopro", rules, 40, 12, 1, cards.mixed_deck)  # type: ignore[arg-type, return-value]
    assert report.findings == [], report.text()
    assert report.duels_won > 0 and report.exercised.get("resolve", 0) > 0


def test_the_same_command_gives_the_same_report(tmp_path: Path) -> None:
    def run() -> str:
        args = ["difftest", "--plays", "15", "--turns", "3", "--seed", "4", "--format", "json", "--quiet"]
        args += ["--aim", "phase == damage_calculation", "--aim-depth", "10"]
        done = subprocess.run(
            [sys.executable, "-m", "duelcheck", *args], capture_output=True, text=True, cwd=tmp_path, timeout=600
        )
        assert done.returncode in (0, 1), done.stderr
        return done.stdout

    first = run()
    assert json.loads(first)["decisions_compared"] > 0
    assert [(g["status"], g["reached"]) for g in json.loads(first)["guided_plays"]] == [("found", True)]
    assert run() == first


def test_a_rule_set_the_core_cannot_express_is_refused(tmp_path: Path) -> None:
    from duelcheck.adapters.ygopro import Unsupported

    with pytest.raises(Unsupported, match="hand_limit"):
        _engine(Rules(hand_limit=3))
    done = subprocess.run(
        [sys.executable, "-m", "duelcheck", "difftest", "--rules", "goat", "--plays", "1"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 2 and "damage_step_activations" in done.stderr


def test_a_log_discarding_a_card_the_adapter_has_no_script_for_is_refused() -> None:
    """A monster whose effect triggers when it is sent from the hand to the Graveyard (the hand-limit discard's
    `from_hand_trigger`, 6.3.6) has no script: a log discarding one is refused with that reason, not played."""
    from duelcheck.adapters.ygopro import Unsupported

    path = Path(__file__).parent / "scenarios" / "turn" / "26-a-card-discarded-for-the-hand-limit-triggers.json"
    log = json.loads(path.read_text(encoding="utf-8"))
    with pytest.raises(Unsupported, match="from_hand_trigger"):
        _engine().reset({}, {"format": "duelcheck-log/1", "actions": log["actions"]})  # type: ignore[attr-defined]


def test_the_first_turn_draw_of_master_rule_2_is_the_cores_rule_2() -> None:
    rules = Rules(first_turn_draw=True)
    report = difftest(EngineProcess(lambda: _engine(rules)), "ygopro", rules, 10, 3, 2, cards.random_deck)  # type: ignore[arg-type, return-value]
    assert report.findings == [], report.text()


PLAYS = json.loads((Path(__file__).parent / "data" / "effect-plays.json").read_text(encoding="utf-8"))


def _differences(expected: object, got: object, path: str = "") -> list[str]:
    """Where the engine's state differs from the rules', over the fields the engine shows."""
    if isinstance(expected, dict) and isinstance(got, dict):
        return [d for k, v in got.items() if k in expected for d in _differences(expected[k], v, f"{path}.{k}")]
    if isinstance(expected, list) and isinstance(got, list):
        if len(expected) != len(got):
            return [f"{path}: {len(expected)} entries, the engine {len(got)}"]
        return [
            d for i, (e, g) in enumerate(zip(expected, got, strict=True)) for d in _differences(e, g, f"{path}[{i}]")
        ]
    return [] if expected == got else [f"{path}: rules {expected!r}, engine {got!r}"]


@pytest.mark.parametrize("title", sorted(PLAYS))
def test_plays_with_every_kind_of_effect_agree_with_the_rules(title: str) -> None:
    """The scripts written here for the rest of the catalogue, played on the core beside the rules: a Flip
    effect answered after damage calculation (6.3.4.3.4) with a target, a Quick-Play Spell that skips the
    opponent's next Main Phase 1 (the core asks the Battle or End Phase in its place, 6.3.3), a Quick effect
    that changes ATK (the core asks the ATK, the log's resolution says it), an Ignition effect's Special Summon
    in Defense Position, a skipped Battle Phase that leads to the End Phase (seed 000), and a Battle Phase
    ended from its Battle Step (6.3.4.4); and three plays the boards found: a chain started after the draw that
    follows an End Phase both players passed, a Main Phase ended while the opponent holds a Quick effect, and
    a replay after a chain destroyed the attack target (docs/engine-findings.md F11). Every action is taken
    on both sides and the states agree wherever the core shows one."""
    from duelcheck.adapter import ReferenceAdapter

    actions = PLAYS[title]
    rules = ReferenceAdapter({})
    engine = _engine()
    engine.reset({}, {"format": "duelcheck-log/1", "actions": actions})  # type: ignore[attr-defined]
    shown = 0
    for i, action in enumerate(actions, 1):
        want = rules.apply(action)
        got = engine.apply(action)  # type: ignore[attr-defined]
        assert not isinstance(want, str), f"action {i} {action}: the rules refuse it: {want}"
        assert not isinstance(got, str), f"action {i} {action}: the core refuses it: {got}"
        assert not _differences(want, got), f"action {i} {action}: {_differences(want, got)[:4]}"
        shown += bool(got)
    assert shown >= len(actions) // 3  # the core showed its state at many of the log's timings


def _refused_on_both_sides(actions: list[dict[str, Any]], reason: str) -> None:
    """Every action but the last is taken by the rules and by the core; the last is refused by both: by the rules
    with `reason` in their words, by the core by not offering it."""
    from duelcheck.adapter import ReferenceAdapter

    rules = ReferenceAdapter({})
    engine = _engine()
    engine.reset({}, {"format": "duelcheck-log/1", "actions": actions})  # type: ignore[attr-defined]
    for action in actions[:-1]:
        assert not isinstance(rules.apply(action), str), action
        assert not isinstance(engine.apply(action), str), action  # type: ignore[attr-defined]
    assert reason in str(rules.apply(actions[-1]))
    assert isinstance(engine.apply(actions[-1]), str)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "first",
    [
        {"action": "set_monster", "atk": 1000, "def": 1000},
        {"action": "set_spell_trap", "kind": "normal_trap", "effect": "draw"},
        {"action": "normal_summon", "atk": 1000, "def": 1000},
    ],
    ids=["set-monster", "set-spell-trap", "normal-summon"],
)
def test_a_card_of_the_start_of_main_phase_1_after_another_act_is_refused_on_both_sides(first: dict[str, Any]) -> None:
    """6.3.3 (001:L26): once the turn player has done something in Main Phase 1 (a monster Set, a card Set, a
    Normal Summon), "only at the start of Main Phase 1" is over: the rules refuse the card, and the core, whose
    script asks its own phase activity, does not offer it."""

    card = {"action": "activate", "from": "hand", "kind": "normal_spell", "effect": "draw_main1_start"}
    actions = [{"action": "end_step"}, {"action": "end_step"}, first, {"action": "pass"}, {"action": "pass"}, card]
    _refused_on_both_sides(actions, "start of Main Phase 1")


@pytest.mark.parametrize(
    ("effect", "words"),
    [("draw_battle_start", "Start Step"), ("draw_battle_end", "End Step"), ("draw_end_phase", "End Phase")],
)
def test_a_phase_bound_card_in_the_battle_step_is_refused_on_both_sides(effect: str, words: str) -> None:
    """6.3.4.1, 6.3.4.4, 6.3.6 (001:L36, L105, L115): in the Battle Step a card bound to the Start Step, the End
    Step or the End Phase is out of its time: the rules refuse it, and the core, whose script asks its phase, does
    not offer it."""

    card = {"action": "activate", "from": "hand", "kind": "quick_play_spell", "effect": effect}
    to_battle = [{"action": "end_step"}, {"action": "end_step"}, {"action": "end_step", "then": "end_phase"}]
    to_battle += [{"action": "end_step"}, {"action": "normal_draw"}, {"action": "end_step"}, {"action": "end_step"}]
    actions = [*to_battle, {"action": "end_step", "then": "battle_phase"}, {"action": "end_step"}, card]
    _refused_on_both_sides(actions, words)


@pytest.mark.parametrize("timing", ["after-the-summon", "before-damage-calculation"])
def test_a_trap_while_a_monster_s_continuous_effect_applies_is_refused_on_both_sides(timing: str) -> None:
    """6.3.4.3 (001:L64): "your opponent cannot activate Trap cards" applies from the summon on, and in the Damage
    Step until the monster is determined destroyed by battle: the rules refuse the Trap there, and the core, whose
    script is a field effect of the monster, does not offer it."""
    title = "a monster's continuous effect stops once it is destroyed by battle: a Trap after damage calculation"
    play = PLAYS[title]
    trap = {"action": "activate", "from": 0, "kind": "counter_trap", "effect": "draw"}
    summoned = next(i for i, a in enumerate(play) if a.get("effect") == {"type": "continuous", "effect": "no_traps"})
    # the turn player passes: the opponent may respond to the summon, or act before damage calculation
    before = play[: summoned + 1] if timing == "after-the-summon" else play[: play.index(trap) - 3]
    before = [*before, {"action": "pass"}]
    actions = [*before, trap]
    _refused_on_both_sides(actions, "cannot activate Traps")


@pytest.mark.parametrize("case", ["declared-above-1000-atk", "chosen-again-after-the-replay"])
def test_a_direct_attack_its_effect_no_longer_allows_is_refused_on_both_sides(case: str) -> None:
    """6.3.4.2, 6.3.4.2.1 (001:L55): "while its ATK is 1000 or less, this card can attack directly": above 1000 ATK
    the monster attacks no player directly while the opponent controls a monster, whether at its declaration or
    at the replay its ATK raise caused: the rules refuse it, and the core, whose script asks the ATK, offers no
    direct attack."""
    title = "a direct attack by the monster's own effect, lost to an ATK raise: a replay, then a monster attacked"
    play = PLAYS[title]
    if case == "declared-above-1000-atk":
        summon = {**play[8], "atk": 1500}
        actions = [*play[:8], summon, *play[9:11], play[11]]
        reason = "a direct attack only when the opponent controls no monster"
    else:
        actions = [*play[:16], {"action": "replay", "target": "direct"}]
        reason = "choose a monster the opponent controls"
    _refused_on_both_sides(actions, reason)


def test_a_trap_once_a_continuous_trap_applies_is_refused_on_both_sides() -> None:
    """6.3.4.3 (001:L64): once the Continuous Trap's activation has resolved, "your opponent cannot activate Trap
    cards" applies: the rules refuse the opponent's second Trap, and the core, whose script is a field effect of
    the card, does not offer it."""
    title = "a Continuous Trap that forbids the opponent's Traps: a Trap answers its activation, before it applies"
    trap = {"action": "activate", "from": 1, "kind": "normal_trap", "effect": "draw"}
    _refused_on_both_sides([*PLAYS[title], {"action": "pass"}, trap], "cannot activate Traps")


def test_a_target_the_core_does_not_list_is_a_refusal_not_a_failure() -> None:
    """6.3.4.3.4 with a target the effect cannot take (a Spell/Trap Zone with no card): refused, as the rules
    refuse it, and the adapter does not fail."""
    actions = PLAYS["flip, battle trigger, Main Phase 1 skipped, an ATK change"][:17]
    bad = {**actions[-1], "target": {"player": 1, "area": "spell_trap", "zone": 3}}
    engine = _engine()
    engine.reset({}, {"format": "duelcheck-log/1", "actions": [*actions[:-1], bad]})  # type: ignore[attr-defined]
    for action in actions[:-1]:
        assert not isinstance(engine.apply(action), str)  # type: ignore[attr-defined]
    got = engine.apply(bad)  # type: ignore[attr-defined]
    assert isinstance(got, str) and "cannot be targeted" in got


def test_the_full_catalogue_agrees_with_the_rules_over_seeded_plays() -> None:
    """Monster effects, targeted Spells and Traps (their targets asked of a second duel played to the same
    point) and every Spell/Trap kind, dealt at random: no difference (before docs/engine-findings.md F6 was
    fixed these plays found `engine-allows activate_effect`). Under the core's own reading of what is chained to a
    'before the draw' effect (F15: `before_draw_chain = "any"`); under the default, play 6 meets F15."""
    rules = Rules(before_draw_chain="any")
    report = difftest(EngineProcess(lambda: _engine(rules)), "ygopro", rules, 50, 3, 1, cards.full_deck)  # type: ignore[arg-type, return-value]
    assert report.findings == [], report.text()
    assert report.exercised.get("trigger", 0) > 0 and report.decisions > 400


# 6.3.1 (001:L16): player 1 holds a Set Normal Trap when player 0 activates a "before the draw" effect on turn 3
_BEFORE_DRAW = PLAYS["a 'before the draw' effect answered by a Counter Trap that negates it, then the draw"]
_TRAP_SET = [
    *_BEFORE_DRAW[:8],
    {"action": "set_spell_trap", "kind": "normal_trap", "effect": "draw"},
    {"action": "end_step", "then": "end_phase"},
    {"action": "end_step"},
]
_TRAP = {"action": "activate", "from": 0, "kind": "normal_trap", "effect": "draw"}
_EFFECT = {"action": "activate_effect", "monster": 0, "type": "before_draw", "effect": "draw"}


def test_a_trap_chained_to_a_before_the_draw_effect_is_offered_by_the_core_alone() -> None:
    """docs/engine-findings.md F15: the rules refuse a Normal Trap as chain link 2 to a 'before the draw' effect
    (6.3.1: only what negates the activation is chained to it before the draw); ygopro-core takes it."""
    from duelcheck.adapter import ReferenceAdapter

    actions = [*_TRAP_SET, _EFFECT, _TRAP]
    rules, engine = ReferenceAdapter({}), _engine()
    engine.reset({}, {"format": "duelcheck-log/1", "actions": actions})  # type: ignore[attr-defined]
    for action in actions[:-1]:
        assert not isinstance(rules.apply(action), str), action
        assert not isinstance(engine.apply(action), str), action  # type: ignore[attr-defined]
    assert "answers an activation" in str(rules.apply(_TRAP))
    assert not isinstance(engine.apply(_TRAP), str)  # type: ignore[attr-defined]


def test_under_the_cores_reading_of_the_chain_before_the_draw_both_sides_agree() -> None:
    """`before_draw_chain = "any"` (ygopro-core's reading, F15): the Trap is chained, both links resolve before
    the draw, and every state agrees."""
    from duelcheck.adapter import ReferenceAdapter

    rules = Rules(before_draw_chain="any")
    actions = [*_TRAP_SET, _EFFECT, _TRAP, *({"action": a} for a in ("pass", "pass", "resolve", "resolve"))]
    actions.append({"action": "normal_draw"})
    model, engine = ReferenceAdapter(rules.model_dump()), _engine(rules)
    engine.reset({}, {"format": "duelcheck-log/1", "actions": actions})  # type: ignore[attr-defined]
    for i, action in enumerate(actions, 1):
        want, got = model.apply(action), engine.apply(action)  # type: ignore[attr-defined]
        assert not isinstance(want, str) and not isinstance(got, str), (i, action, want, got)
        assert not _differences(want, got), (i, action, _differences(want, got)[:4])


def test_a_trap_before_the_draw_with_no_before_the_draw_effect_is_refused_on_both_sides() -> None:
    """6.3.1: before the draw, with no 'before the draw' effect activated, nothing is activated."""
    _refused_on_both_sides([*_TRAP_SET, _TRAP], "nothing is done in the Draw Phase before the normal draw")


# 6.3.6 (001:L116): player 1 holds a Set Normal Trap in player 0's End Phase on turn 3, where player 0's monster
# carries a mandatory End Phase effect
_END_PHASE_EFFECT = {"type": "end_phase", "effect": "draw"}
_MANDATORY_SET = [
    {"action": "end_step"},
    {"action": "end_step"},
    {"action": "end_step", "then": "end_phase"},
    {"action": "end_step"},
    {"action": "normal_draw"},
    {"action": "end_step"},
    {"action": "end_step"},
    {"action": "set_spell_trap", "kind": "normal_trap", "effect": "draw"},
    {"action": "end_step", "then": "end_phase"},
    {"action": "end_step"},
    {"action": "normal_draw"},
    {"action": "end_step"},
    {"action": "end_step"},
    {"action": "normal_summon", "atk": 1000, "def": 1000, "effect": _END_PHASE_EFFECT},
    {"action": "end_step", "then": "end_phase"},
    {"action": "pass"},
]
_OPPONENTS_TRAP = {"action": "activate", "from": 0, "kind": "normal_trap", "effect": "draw"}


def test_the_opponents_card_before_a_mandatory_end_phase_effect_is_refused_by_the_core_alone() -> None:
    """docs/engine-findings.md F18: in the End Phase the rules let the turn player pass and the opponent activate a
    card before the mandatory End Phase effects, which come once both players pass (6.3.6, 001:L116); the core
    asks the turn player to activate their mandatory effect before they may pass, so it never asks the opponent."""
    from duelcheck.adapter import ReferenceAdapter

    actions = [*_MANDATORY_SET, _OPPONENTS_TRAP]
    rules, engine = ReferenceAdapter({}), _engine()
    engine.reset({}, {"format": "duelcheck-log/1", "actions": actions})  # type: ignore[attr-defined]
    for action in actions[:-1]:
        assert not isinstance(rules.apply(action), str), action
        assert not isinstance(engine.apply(action), str), action  # type: ignore[attr-defined]
    assert not isinstance(rules.apply(_OPPONENTS_TRAP), str)
    assert "the core does not ask player 1" in str(engine.apply(_OPPONENTS_TRAP))  # type: ignore[attr-defined]
