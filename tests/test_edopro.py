"""EDOPro's core under duelcheck: the same adapter over the other C API, and the rule sets only it can play.

These tests run when DUELCHECK_EDOPRO names a built library (docs/engines.md says how to build one: its Lua
must be compiled as C++) and are skipped otherwise.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from duelcheck.adapters import cards
from duelcheck.difftest import EngineProcess, difftest
from duelcheck.errors import InputError
from duelcheck.rules import Rules, load_rules

LIBRARY = os.environ.get("DUELCHECK_EDOPRO", "")
pytestmark = pytest.mark.skipif(
    not (LIBRARY and Path(LIBRARY).is_file()),
    reason="DUELCHECK_EDOPRO names no built EDOPro core library (docs/engines.md: how to build one)",
)


def _engine(rules: Rules | None = None) -> object:
    from duelcheck.adapters.edopro import Edopro

    return Edopro(rules or Rules(), LIBRARY, 0)


def _last_answers(rules: Rules, actions: list[dict[str, object]]) -> tuple[object, object]:
    """Play `actions` on the rules' side and on the core, both agreeing at every step but the last (each legal,
    the same state shown); the two sides' answers to the last action (a string: refused, with the reason)."""
    from test_ygopro import _differences

    from duelcheck.adapter import ReferenceAdapter

    model, engine = ReferenceAdapter(rules.model_dump()), _engine(rules)
    engine.reset({}, {"format": "duelcheck-log/1", "actions": actions})  # type: ignore[attr-defined]
    for i, action in enumerate(actions[:-1], 1):
        want, got = model.apply(action), engine.apply(action)  # type: ignore[attr-defined]
        assert not isinstance(want, str) and not isinstance(got, str), (i, action, want, got)
        assert not _differences(want, got), (i, action, _differences(want, got)[:4])
    return model.apply(actions[-1]), engine.apply(actions[-1])  # type: ignore[attr-defined]


def test_the_first_turn_offers_the_opening_hand_and_no_battle_phase() -> None:
    from test_ygopro import first_turn_offers_the_opening_hand  # the same test as on the reference core

    first_turn_offers_the_opening_hand(_engine())


@pytest.mark.parametrize("preset", ["official", "goat", "speed", "rush"])
def test_the_presets_agree_with_the_rules_over_seeded_plays(preset: str) -> None:
    """Each preset under the duel flags that say the same (goat: a first-turn draw, two 0 ATK monsters destroy
    each other, seed 000's Damage Step in the cards' scripts; speed: three columns and no Main Phase 2; rush:
    no Standby Phase or Main Phase 2, draw until 5, no hand limit, Normal Summons without a limit)."""
    rules = load_rules(preset)
    report = difftest(EngineProcess(lambda: _engine(rules)), "edopro", rules, 40, 3, 1, cards.mixed_deck)  # type: ignore[arg-type, return-value]
    assert report.findings == [], report.text()
    assert report.decisions > 300


@pytest.mark.parametrize(
    "title",
    [
        "flip, battle trigger, Main Phase 1 skipped, an ATK change",
        "a drawn duel: effect damage takes both players to 0 LP at once",
        "a duel won by effect damage in the middle of a chain, link 1 left unresolved",
        "a card activated at the start of Main Phase 1, on both players' turns",
        "a card activated at the start of the Battle Phase by each player in turn",
        "a monster's continuous effect stops once it is destroyed by battle: a Trap after damage calculation",
        "cards during the End Phase and during the End Step of the Battle Phase",
        "the opponent's Set Trap during the End Step, the turn player having nothing (adapter bug)",
        "a direct attack by the monster's own effect, lost to an ATK raise: a replay, then a monster attacked",
        "a destruction replacement applied at damage calculation: a card discarded, the monster stays",
        "a destruction replacement declined at damage calculation: the monster destroyed by battle",
        "a Continuous Trap that forbids the opponent's Traps: a Trap answers its activation, before it applies",
    ],
)
def test_a_play_with_effects_of_every_kind_agrees_with_the_rules(title: str) -> None:
    from test_ygopro import PLAYS, _differences  # the same hand-written plays as on the reference core

    from duelcheck.adapter import ReferenceAdapter

    actions = PLAYS[title]
    rules = ReferenceAdapter({})
    engine = _engine()
    engine.reset({}, {"format": "duelcheck-log/1", "actions": actions})  # type: ignore[attr-defined]
    for i, action in enumerate(actions, 1):
        want, got = rules.apply(action), engine.apply(action)  # type: ignore[attr-defined]
        assert not isinstance(want, str) and not isinstance(got, str), (i, action, want, got)
        assert not _differences(want, got), (i, action, _differences(want, got)[:4])


def test_each_core_refuses_the_other_ones_library_and_rules_it_cannot_express(tmp_path: Path) -> None:
    from duelcheck.adapters.edopro import Edopro
    from duelcheck.adapters.ygopro import Unsupported, Ygopro

    with pytest.raises(Unsupported, match="hand_limit"):
        Edopro(Rules(hand_limit=3), LIBRARY)
    with pytest.raises(InputError, match="OCG_CreateDuel: the EDOPro fork"):
        Ygopro(Rules(), LIBRARY)
    reference = os.environ.get("DUELCHECK_OCGCORE", "")
    if reference and Path(reference).is_file():
        with pytest.raises(InputError, match="the reference core"):
            Edopro(Rules(), reference)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "duelcheck",
            "difftest",
            "--engine",
            "edopro",
            "--rules",
            "goat",
            "--plays",
            "3",
            "--no-guided",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
        env={**os.environ, "DUELCHECK_EDOPRO": LIBRARY},
    )
    assert done.returncode == 0, done.stderr
    assert "difftest against EDOPro's core" in done.stdout


def test_a_stored_replay_of_the_goat_format_agrees_with_the_rules() -> None:
    """Goat format's stored replays (`replay_stored`, the core's DUEL_STORE_ATTACK_REPLAYS): the attack target
    destroyed by a chain, the core ends the attack at the replay without asking and without counting it, and the
    same monster attacks again, directly; the rules' stop is that end. Both sides agree at every step, and the
    same play under the official rules is refused at the second attack on both sides."""
    from test_ygopro import PLAYS, _differences

    from duelcheck.adapter import ReferenceAdapter
    from duelcheck.model.cards import Phase

    before = PLAYS["the attack target destroyed by a chain, then a replay (F11)"][:-1]
    again = [{"action": "replay", "target": "stop"}, {"action": "declare_attack", "attacker": 0, "target": "direct"}]
    actions = [{"action": "normal_draw"}, *before, *again, *[{"action": "end_step"}] * 4]  # Goat: a turn-1 draw
    goat = load_rules("goat")
    rules = ReferenceAdapter(goat.model_dump())
    engine = _engine(goat)
    engine.reset({}, {"format": "duelcheck-log/1", "actions": actions})  # type: ignore[attr-defined]
    for i, action in enumerate(actions, 1):
        want, got = rules.apply(action), engine.apply(action)  # type: ignore[attr-defined]
        assert not isinstance(want, str) and not isinstance(got, str), (i, action, want, got)
        assert not _differences(want, got), (i, action, _differences(want, got)[:4])
    assert rules.state.g("phase") == Phase.DMG_AFTER  # the second attack reached damage calculation
    official = [*before, *again]
    rules, engine = ReferenceAdapter({}), _engine()
    engine.reset({}, {"format": "duelcheck-log/1", "actions": official})  # type: ignore[attr-defined]
    for action in official[:-1]:
        assert not isinstance(rules.apply(action), str) and not isinstance(engine.apply(action), str)  # type: ignore[attr-defined]
    assert isinstance(rules.apply(official[-1]), str) and isinstance(engine.apply(official[-1]), str)  # type: ignore[attr-defined]


def test_ignition_priority_of_the_goat_format_agrees_with_the_rules() -> None:
    """Goat format's ignition priority (`ignition_priority`, the core's DUEL_TCG_FAST_EFFECT_IGNITION): right
    after the turn player's Normal Summon, with the opponent holding a Trap they could respond with, the
    summoned monster's Ignition effect is activated first, on both sides; under the official rules both sides
    refuse it there (the opponent may respond first: docs/engine-findings.md F12)."""

    monster = {"atk": 1000, "def": 1000, "effect": {"type": "ignition", "effect": "draw"}}
    turn_1 = [
        {"action": "end_step"},
        {"action": "end_step"},
        {"action": "set_spell_trap", "kind": "normal_trap", "effect": "draw"},
        {"action": "pass"},
        {"action": "pass"},
        {"action": "end_step", "then": "end_phase"},
        {"action": "end_step"},
    ]
    turn_2 = [
        {"action": "normal_draw"},
        {"action": "end_step"},
        {"action": "end_step"},
        {"action": "normal_summon", **monster},
        {"action": "activate_effect", "monster": 0, "type": "ignition", "effect": "draw"},
    ]
    for rules, first_draw, legal in ((load_rules("goat"), True, True), (Rules(), False, False)):
        actions = [*([{"action": "normal_draw"}] if first_draw else []), *turn_1, *turn_2]
        want, got = _last_answers(rules, actions)
        assert isinstance(want, str) != legal and isinstance(got, str) != legal, (legal, want, got)


def test_the_opponent_first_in_the_window_agrees_with_the_rules() -> None:
    """Rush Duel's "the non-turn player decides first" (`window_first = "opponent"`, the core's
    DUEL_INVERTED_QUICK_PRIORITY): right after the turn player's Normal Summon, with the opponent holding a Set
    Trap, the turn player's own Set Quick-Play Spell is refused on both sides, and the opponent's Trap is activated
    at once (what else the flag inverts, and the model does not: docs/engine-findings.md F17)."""
    setting = [
        {"action": "pass"},
        {"action": "pass"},
        {"action": "end_step", "then": "end_phase"},
        {"action": "end_step"},
    ]
    turn_1 = [
        {"action": "end_step"},
        {"action": "end_step"},
        {"action": "set_spell_trap", "kind": "quick_play_spell", "effect": "draw"},
        *setting,
    ]
    turn_2 = [
        {"action": "normal_draw"},
        {"action": "end_step"},
        {"action": "end_step"},
        {"action": "set_spell_trap", "kind": "normal_trap", "effect": "draw"},
        *setting,
    ]
    turn_3 = [{"action": "normal_draw"}, {"action": "end_step"}, {"action": "end_step"}]
    summon = {"action": "normal_summon", "atk": 1000, "def": 1000}
    rules = Rules(window_first="opponent")
    own = {"action": "activate", "from": 0, "kind": "quick_play_spell", "effect": "draw"}
    want, got = _last_answers(rules, [*turn_1, *turn_2, *turn_3, summon, own])
    assert isinstance(want, str) and isinstance(got, str), (want, got)
    theirs = {"action": "activate", "from": 0, "kind": "normal_trap", "effect": "draw"}
    want, got = _last_answers(rules, [*turn_1, *turn_2, *turn_3, summon, theirs])
    assert not isinstance(want, str) and not isinstance(got, str), (want, got)


def test_one_chain_per_damage_step_timing_of_the_goat_format_agrees_with_the_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Goat format's one chain per timing of the Damage Step (`damage_step_single_chain`, the core's
    DUEL_SINGLE_CHAIN_IN_DAMAGE_SUBSTEP): at the start of the Damage Step a Quick-Play Spell changes the
    attacker's ATK and resolves; a second one is then refused there on both sides, and under the official rules
    both sides take it as a second chain. The refusal is the core's own: given the flag while the rules do not
    have the rule, the core asks next in the timing before damage calculation, not at the start."""

    import duelcheck.adapters.edopro as edo

    boost = {
        "action": "activate",
        "from": "hand",
        "kind": "quick_play_spell",
        "effect": "change_atk",
        "target": {"player": 1, "area": "monster", "zone": 0},
    }
    turn_1 = [
        {"action": "end_step"},
        {"action": "end_step"},
        {"action": "set_monster", "atk": 0, "def": 0},
        {"action": "end_step", "then": "end_phase"},
        {"action": "end_step"},
    ]
    turn_2 = [
        {"action": "normal_draw"},
        {"action": "end_step"},
        {"action": "end_step"},
        {"action": "normal_summon", "atk": 1800, "def": 1000},
        {"action": "end_step", "then": "battle_phase"},
        {"action": "end_step"},
        {"action": "declare_attack", "attacker": 0, "target": 0},
        {"action": "end_step"},
        boost,
        {"action": "pass"},
        {"action": "pass"},
        {"action": "resolve", "atk_change": 500},
        boost,
    ]

    def last(rules: Rules, legal: bool) -> str | None:
        """Play to the second activation on both sides (agreeing at every step); the core's refusal of it."""
        actions = [*([{"action": "normal_draw"}] if rules.first_turn_draw else []), *turn_1, *turn_2]
        want, got = _last_answers(rules, actions)
        assert isinstance(want, str) != legal, want
        return got if isinstance(got, str) else None

    goat = load_rules("goat")
    assert last(goat, False) is not None  # both refuse it
    assert last(Rules(), True) is None  # both take it
    without = Rules(**{**goat.model_dump(), "damage_step_single_chain": False})
    assert last(without, True) is None  # the Goat format's other rules, neither side with this one
    flagged = edo._flag_for
    monkeypatch.setattr(edo, "_flag_for", lambda r: (flagged(r)[0] | edo.DUEL_SINGLE_CHAIN_IN_DAMAGE_SUBSTEP, []))
    refused = last(without, True)
    assert refused is not None and "damage_before_calculation" in refused, refused


def test_a_trap_chained_to_a_before_the_draw_effect_is_refused_by_this_core_as_by_the_rules() -> None:
    """docs/engine-findings.md F15: EDOPro's core, unlike ygopro-core, does not offer a Normal Trap as chain link
    2 to a 'before the draw' effect; the rules refuse it (6.3.1)."""
    from test_ygopro import _EFFECT, _TRAP, _TRAP_SET

    want, got = _last_answers(Rules(), [*_TRAP_SET, _EFFECT, _TRAP])
    assert "answers an activation" in str(want)
    assert isinstance(got, str)


def test_the_opponents_card_before_a_mandatory_end_phase_effect_is_refused_by_this_core_too() -> None:
    """docs/engine-findings.md F18: EDOPro's core, as ygopro-core, asks the turn player for their mandatory End
    Phase effect before they may pass; the rules let the opponent act first (6.3.6, 001:L116: after both pass)."""
    from test_ygopro import _MANDATORY_SET, _OPPONENTS_TRAP

    want, got = _last_answers(Rules(), [*_MANDATORY_SET, _OPPONENTS_TRAP])
    assert not isinstance(want, str)
    assert "the core does not ask player 1" in str(got)
