"""The duel-log layer agrees with the model: boards and actions round-trip, and any play is a log."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from duelcheck.conformance import check_log
from duelcheck.engines.sim import Simulator
from duelcheck.log import board_of, board_state, log_of, parse
from duelcheck.model.state import State
from duelcheck.model.system import TransitionSystem, parts_of
from duelcheck.rules import PRESETS, Rules, load_rules

TS = TransitionSystem(Rules())
STALE = {("atk_zone",), ("atk_tgt",)}  # the last attack's zones, read only while an attack is on


def play(seed: int, length: int) -> list[tuple[str, dict[str, int], State]]:
    """A lively random play (summons, attacks, chains) of up to `length` steps."""
    rng = random.Random(seed)
    sim = Simulator(TS, calm=(0.2, 0.5, 0.8)[seed % 3])
    s = TS.init()
    out: list[tuple[str, dict[str, int], State]] = [("init", {}, s)]
    for _ in range(length):
        step = sim.choose(s, rng)
        if step is None:
            break
        out.append((step.action, step.params, step.state))
        s = step.state
    return out


def same(a: State, b: State) -> list[str]:
    keys = [k for k in TS.keys if not (k in STALE and not a.g("attacking"))]
    return [f"{k}: {a.v[k]} != {b.v[k]}" for k in keys if a.v[k] != b.v[k]]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(0, 100))
@example(5388, 58)  # the End Damage Step after the attacker was destroyed by battle: its zone is empty
def test_every_reachable_state_is_a_board(seed: int, length: int) -> None:
    """board_of then board_state gives the state back: the board format covers the whole model state."""
    for _, _, s in play(seed, length)[-5:]:
        doc = json.loads(json.dumps({"format": "duelcheck-log/1", "board": board_of(s), "actions": []}))
        back = board_state(TS, parse(doc, "<board>").board, "<board>")
        assert same(s, back) == []


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(1, 80))
def test_every_play_is_a_conforming_log(seed: int, length: int) -> None:
    """A play written as a duel log (full observed states) replays as conforming, action for action."""
    steps = play(seed, length)
    start = max(0, len(steps) - 40)
    doc = json.loads(json.dumps(log_of(steps[start:], TS.rules)))
    log = parse(doc, "<play>")
    report = check_log(TS, log, board_state(TS, log.board, "<play>"))
    assert report.conforms, [(s.index, s.reason, s.differences) for s in report.steps if not s.legal or s.differences]
    # action for action: a composite step (two phase ends in one) is written as the actions it takes
    fine = sum(len(parts_of(a, name, params, b)) for (_, _, a), (name, params, b) in itertools.pairwise(steps[start:]))
    assert len(report.steps) == fine == len(doc["actions"])


def test_the_formats_names_are_the_models() -> None:
    """The format's enumerations are written out for the schema; they must stay the model's vocabulary."""
    from typing import get_args

    from duelcheck.log import (
        ACTION_NAMES,
        EFFECTS,
        LINK_KINDS,
        MONSTER_EFFECT_TYPES,
        PHASES,
        SPELL_TRAP_KINDS,
        Action,
        EffectName,
        EffectType,
        KindName,
        LinkKindName,
        PhaseName,
        Resolve,
    )
    from duelcheck.model.cards import ATK_CHANGES, POINTS, SPELLS, TRAPS, Effect, Kind, MonsterEffect, Phase

    assert set(get_args(PhaseName)) == set(PHASES) and set(PHASES.values()) == set(Phase)
    assert set(get_args(KindName)) == set(SPELL_TRAP_KINDS) and set(SPELL_TRAP_KINDS.values()) == {*SPELLS, *TRAPS}
    assert set(get_args(EffectName)) == set(EFFECTS) and set(EFFECTS.values()) == set(Effect)
    union = get_args(get_args(Action)[0])
    tags = {tag for cls in union for tag in get_args(cls.model_fields["action"].annotation)}
    assert tags == set(ACTION_NAMES)
    # any ATK change the model takes is a value the format accepts (a multiple of 100 within the model's range)
    for c in ATK_CHANGES:
        Resolve.model_validate({"action": "resolve", "atk_change": c * POINTS})
    assert set(get_args(LinkKindName)) == set(LINK_KINDS) and set(LINK_KINDS.values()) == set(Kind)
    # a discarded card's 'sent from the hand to the Graveyard' effect: the catalogue's
    from duelcheck.log import Discard
    from duelcheck.model.rules import FROM_HAND_TRIGGERS

    said = get_args(get_args(Discard.model_fields["from_hand_trigger"].annotation)[0])
    assert {EFFECTS[w] for w in said} == set(FROM_HAND_TRIGGERS)
    assert {MONSTER_EFFECT_TYPES[t] for t in get_args(EffectType)} == set(MonsterEffect) - {MonsterEffect.NONE}


def test_the_shipped_schema_is_the_formats_own() -> None:
    """duelcheck/schemas/duel-log.schema.json is what `duelcheck schema` prints from the format's models."""
    import subprocess
    import sys
    from pathlib import Path

    shipped = Path(__file__).resolve().parents[1] / "duelcheck" / "schemas" / "duel-log.schema.json"
    done = subprocess.run([sys.executable, "-m", "duelcheck", "schema"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and json.loads(done.stdout) == json.loads(shipped.read_text(encoding="utf-8"))


def test_a_chain_resolved_in_a_damage_step_timing_is_a_board_field() -> None:
    """Goat format (`damage_step_single_chain`): the mark that a chain has resolved in a timing of the Damage
    Step is part of the board: board_of writes it, board_state reads the same state back, and a board that
    claims it where these rules cannot have it is refused with its place."""
    import pytest

    from duelcheck.conformance import step_entry
    from duelcheck.errors import InputError
    from duelcheck.properties.history import system_for

    path = Path(__file__).parent / "scenarios" / "battle" / "42-goat-one-chain-per-damage-step-timing.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    ts = system_for(Rules(**doc["rules"]))
    log = parse(doc, str(path))
    s = board_state(ts, log.board, str(path))
    for i, entry in enumerate(log.actions[:6], 1):  # to the resolution of the first chain
        s, reason, _ = step_entry(ts, s, entry, i, str(path))
        assert reason is None, (i, reason)
    assert s.g("ds_chained") and s.g("h_ds_chained") == 1
    board = board_of(s)
    assert board["damage_step_chain_resolved"] is True
    back = board_state(ts, parse({"format": "duelcheck-log/1", "board": board, "actions": []}, "<b>").board, "<b>")
    assert [k for k in ts.keys if back.v[k] != s.v[k]] == []
    official = system_for(Rules())
    with pytest.raises(InputError, match=r"board\.damage_step_chain_resolved: expected false"):
        board_state(official, parse({"format": "duelcheck-log/1", "board": board, "actions": []}, "<b>").board, "<b>")


def _in_range(ts: TransitionSystem, s: State, where: str) -> None:
    from duelcheck.counterexamples.itf import field_range

    for spec in ts.fields:
        lo, hi = field_range(spec)
        for key in spec.cells():
            assert lo is None or lo <= s.v[key] <= hi, (where, key, s.v[key], (lo, hi))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 10_000))
def test_every_value_a_play_reaches_is_one_a_trace_can_hold(preset: str, seed: int) -> None:
    """Every field of every state of a play (the game's and the property layer's history alike) lies in the
    range the trace format gives its width, so any trace the engines write can be read back."""
    from duelcheck.properties.history import system_for

    ts = system_for(load_rules(preset))
    rng, s = random.Random(seed), ts.init()
    sim = Simulator(ts, calm=0.3)
    for i in range(60):
        _in_range(ts, s, f"{preset} step {i}")
        step = sim.choose(s, rng)
        if step is None:
            break
        s = step.state


def test_every_value_a_scenario_reaches_is_one_a_trace_can_hold() -> None:
    """The same for every state of every scenario's play, where the rarer history is made on purpose (a
    stored replay, a chain resolved in a Damage Step timing)."""
    from duelcheck.conformance import step_entry
    from duelcheck.log import log_rules
    from duelcheck.properties.history import system_for

    for path in sorted((Path(__file__).parent / "scenarios").glob("*/*.json")):
        log = parse(json.loads(path.read_text(encoding="utf-8")), str(path))
        ts = system_for(log_rules(log, str(path)))
        s = board_state(ts, log.board, str(path)) if log.board is not None else ts.init()
        for i, entry in enumerate(log.actions, 1):
            _in_range(ts, s, f"{path.name} before step {i}")
            s, reason, _ = step_entry(ts, s, entry, i, str(path))
            if reason is not None:
                break
        _in_range(ts, s, f"{path.name} at the end")
