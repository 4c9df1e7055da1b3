"""Seed 000's five-link chain: built in a real play from the start of the duel, resolved as the rulebook says."""

from __future__ import annotations

from typing import Any

from conftest import play

from duelcheck.model.cards import HAND, TO_END, Cost, Effect, Kind, Phase
from duelcheck.model.state import State
from duelcheck.model.system import TransitionSystem
from duelcheck.properties import BY_NAME

P = {"choice": 0}


def both_pass(choice: int = 0) -> list[tuple[str, dict[str, Any]]]:
    return [("pass", P), ("pass", {"choice": choice})]


def spell_trap(kind: Kind, eff: Effect, cost: Cost = Cost.NONE) -> tuple[str, dict[str, Any]]:
    return ("set_spell_trap", {"kind": int(kind), "eff": int(eff), "cost": int(cost)})


def act(zone: int, kind: Kind, eff: Effect, cost: Cost = Cost.NONE, **target: int) -> tuple[str, dict[str, Any]]:
    return ("activate", {"zone": zone, "kind": int(kind), "eff": int(eff), "cost": int(cost), **target})


def build_chain(ts: TransitionSystem) -> State:
    s = ts.init()
    summon = ("normal_summon", {"atk": 15, "defv": 10})
    # turn 1, player 0: a monster, and Seven Tools of the Bandit Set (its cost: 1000 LP)
    seven_tools = spell_trap(Kind.COUNTER_TRAP, Effect.NEGATE, Cost.PAY_LP)
    # each summon or Set opens a response window (6.3) that both pass before the turn player's next act
    s = play(ts, s, *both_pass(), *both_pass(), summon, *both_pass(), seven_tools)
    s = play(ts, s, *both_pass(), *both_pass(TO_END), *both_pass())  # the Set's response window first
    assert s.g("turn") == 2
    # turn 2, player 1: a monster, Royal Decree and Magic Jammer Set (its cost: a discard)
    s = play(ts, s, "normal_draw", *both_pass(), *both_pass(), summon, *both_pass())
    magic_jammer = spell_trap(Kind.COUNTER_TRAP, Effect.NEGATE, Cost.DISCARD)
    s = play(ts, s, spell_trap(Kind.CONT_TRAP, Effect.NONE), *both_pass(), magic_jammer)
    s = play(ts, s, *both_pass(), *both_pass(TO_END), *both_pass())
    # turn 3, player 0 opens with Dark Hole; the players alternate
    s = play(ts, s, "normal_draw", *both_pass(), *both_pass())
    assert s.g("phase") == Phase.MAIN1
    return play(
        ts,
        s,
        act(HAND, Kind.NORMAL_SPELL, Effect.DESTROY_ALL_MONSTERS),  # link 1: Dark Hole
        act(0, Kind.CONT_TRAP, Effect.NONE),  # link 2: Royal Decree
        act(HAND, Kind.QUICK_SPELL, Effect.DESTROY_CARD, tplayer=1, tarea=1, tzone=0),  # link 3: MST on Decree
        act(1, Kind.COUNTER_TRAP, Effect.NEGATE, Cost.DISCARD),  # link 4: Magic Jammer, discarding a card
        act(0, Kind.COUNTER_TRAP, Effect.NEGATE, Cost.PAY_LP),  # link 5: Seven Tools of the Bandit, 1000 LP
    )


def test_the_seed_chain_is_a_reachable_play(ts: TransitionSystem) -> None:
    s = build_chain(ts)
    assert s.g("chain_len") == 5
    assert BY_NAME["reach-seed-chain-example"].checks[0].eval(None, None, s)
    assert BY_NAME["chain-speed-legal"].checks[0].eval(None, None, s)


def test_the_seed_chain_resolves_as_the_rulebook_says(ts: TransitionSystem) -> None:
    s = play(ts, build_chain(ts), *both_pass())
    assert s.g("resolving")
    s = play(ts, s, "resolve")  # link 5 negates link 4
    assert s.g("c_neg", 3) and not s.g("c_neg", 2)
    s = play(ts, s, "resolve")  # link 4 does nothing: MST is not negated
    assert not s.g("c_neg", 2)
    s = play(ts, s, "resolve")  # link 3 destroys link 2's card
    assert s.g("c_gone", 1) and not s.g("s_occ", 1, 0)
    monsters_before = s.monsters(0) + s.monsters(1)
    s = play(ts, s, "resolve")  # link 2: its card left the field, so no effect
    assert s.monsters(0) + s.monsters(1) == monsters_before == 2
    s = play(ts, s, "resolve")  # link 1: Dark Hole destroys every monster
    assert s.monsters(0) + s.monsters(1) == 0
    assert s.g("chain_len") == 0 and not s.g("resolving") and s.g("prio") == 0
    # Graveyards: player 0 monster, Dark Hole, MST, Seven Tools; player 1 monster, Royal Decree, Magic Jammer
    # and the card discarded for Magic Jammer: its cost stays paid though it was negated
    assert (s.g("gy", 0), s.g("gy", 1)) == (4, 4)
    assert s.g("lp", 0) * 100 == 7000  # Seven Tools' 1000 LP
    assert BY_NAME["card-conservation"].checks[0].eval(None, None, s)


def test_illegal_variants_of_the_chain(ts: TransitionSystem) -> None:
    s = build_chain(ts)
    # a speed-2 card answering a Counter Trap (link 4): refused by the speed rule
    four = s
    v = dict(four.v)
    for f in ("c_owner", "c_kind", "c_eff", "c_zone", "c_tp", "c_ta", "c_tz", "c_neg", "c_gone", "c_cost"):
        v[(f, 4)] = four.schema[f].zero()
    v[("chain_len",)] = 4
    v[("prio",)] = 0
    v[("s_up", 0, 0)] = False
    four = State(s.k, s.r, s.schema, v)
    out = ts.apply(four, "activate", {"zone": HAND, "kind": int(Kind.QUICK_SPELL), "eff": int(Effect.DRAW)})
    assert not out.ok and "speed" in (out.reason or "")
    one = play(ts, ts.init(), *both_pass(), *both_pass(), act(HAND, Kind.QUICK_SPELL, Effect.DRAW), ("pass", P))
    out = ts.apply(one, "activate", {"zone": HAND, "kind": int(Kind.NORMAL_SPELL), "eff": int(Effect.DRAW)})
    assert not out.ok and "speed-1" in (out.reason or "")


def test_library_replay_of_a_play(ts: TransitionSystem) -> None:
    """duelcheck.replay(log) -> Report, from a test suite."""
    import duelcheck
    from duelcheck.counterexamples.itf import trace_to_itf
    from duelcheck.engines.base import Trace
    from duelcheck.model.system import Step

    steps = [Step("init", {}, ts.init())]
    for name, params in [("pass", P), ("pass", P), ("pass", P), ("pass", P)]:
        out = ts.apply(steps[-1].state, name, params)
        assert out.state is not None
        steps.append(Step(name, params, out.state))
    doc = trace_to_itf(ts, Trace(steps), {})
    assert duelcheck.replay(doc).conforms
    doc["states"][3]["hand"] = [9, 5]  # an engine that observed something else
    report = duelcheck.replay(doc)
    assert not report.conforms and report.steps[2].differences == [("hand[0]", 5, 9)]
