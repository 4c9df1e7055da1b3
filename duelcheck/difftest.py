"""`duelcheck difftest`: the model's rules and a real engine, driven side by side through seeded plays.

Each play deals both players concrete decks (seeded), starts the duel on both sides, and then, at every
decision (a state where the player to act can do something other than end the step), compares:

- the actions offered, both ways: an action the engine offers that the rules refuse (with the rules'
  reason and clause), and one the rules allow that the engine does not offer;
- the state, field by field, over the fields the engine shows (LP, the cards in each deck, hand and
  Graveyard, the monsters on the field, the turn, the phase, the winner).

Then it takes one action both sides offer, chosen by the seeded generator, on both sides. A decision with
ending the step as its only action is taken on each side without a comparison (the engine does not stop
where the rules have nothing to choose; the next decision compares what followed).

Every disagreement is kept with the play that shows it, shrunk to the shortest play that still shows it
(delta debugging over the play's choices, the decks kept), and grouped by what it is about (kind, action or
field, clause): a hundred plays showing one difference are one finding with a count. The same command gives
the same report: the plays depend on the seed alone, never on time.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from duelcheck.adapters.model import END_STEP, ModelEngine, key
from duelcheck.conformance import broken_clause
from duelcheck.rules import Rules

__all__ = ["DiffReport", "Finding", "Play", "difftest", "run_play"]


class Engine(Protocol):
    def deal(self, decks: list[list[dict[str, Any]]]) -> None: ...
    def reset(self, board: dict[str, Any], log: dict[str, Any] | None = None) -> None: ...
    def offers(self) -> list[dict[str, Any]]: ...
    def apply(self, action: dict[str, Any]) -> dict[str, Any] | str: ...


# the fields of the state compared (the engine shows only these; the model's other fields are its own)
COMPARED = ("turn", "turn_player", "phase", "priority", "winner", "players")
MONSTER_FIELDS = ("empty", "atk", "def", "position", "face")
SPELL_FIELDS = ("empty", "kind", "effect", "cost", "face")
PLAYER_FIELDS = ("lp", "hand", "deck", "graveyard", "monsters", "spells_traps")


@dataclass
class Disagreement:
    """One difference at one decision of one play."""

    kind: str  # "engine-allows" | "engine-forbids" | "state" | "engine-refuses"
    subject: str  # the action's name, or the field's path
    clause: str
    detail: str
    at: int  # the number of choices made before it (the decision's index)
    action: dict[str, Any] | None = None

    @property
    def group(self) -> tuple[str, str, str]:
        return (self.kind, self.subject, self.clause)


@dataclass
class Play:
    """A play: the decks dealt and the actions chosen at the decisions, in order."""

    seed: int
    decks: list[list[dict[str, Any]]]
    choices: list[dict[str, Any]]
    turns: int
    aim: str | None = None  # a guided play's aim (engines/guided.py), followed while the rules allow
    guide: list[dict[Any, Any]] | None = None  # the game states of the solver's play to the aim, in order


@dataclass
class PlayOutcome:
    play: Play
    disagreements: list[Disagreement]
    decisions: int = 0
    steps: int = 0
    offers_compared: int = 0
    exercised: dict[str, int] = field(default_factory=dict)  # the rules' steps taken, by action (forced ones too)
    won: bool = False
    reached: bool = False  # a guided play: both sides went through the solver's play to its aim
    cut: str | None = None  # why the play stopped before its end with nothing to compare (adapters/model.py)


@dataclass
class Finding:
    """A group of disagreements of one kind, subject and clause, with the shortest play that shows one."""

    kind: str
    subject: str
    clause: str
    detail: str
    count: int
    plays: list[int]
    shortest: Play | None = None
    log: dict[str, Any] | None = None
    action: dict[str, Any] | None = None  # the action offered by one side only (none for a state difference)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "subject": self.subject,
            "clause": self.clause,
            "detail": self.detail,
            "count": self.count,
            "in_plays": len(set(self.plays)),
            "plays": sorted(set(self.plays))[:20],  # the first plays that show it (by index)
            "shortest_play_choices": len(self.shortest.choices) if self.shortest else None,
        }


@dataclass
class DiffReport:
    engine: str
    rules: Rules
    plays: int
    turns: int
    seed: int
    decisions: int = 0
    steps: int = 0
    offers_compared: int = 0
    exercised: dict[str, int] = field(default_factory=dict)
    duels_won: int = 0
    cut: dict[str, int] = field(default_factory=dict)  # plays stopped with nothing left to compare, by why
    findings: list[Finding] = field(default_factory=list)
    aims: list[Any] = field(default_factory=list)  # engines/guided.py `Aim`s: the guided plays' aims
    reached: dict[str, bool] = field(default_factory=dict)  # aim -> its guided play went all the way to it

    @property
    def exit_code(self) -> int:
        """4 when the engine failed, else 1 when a disagreement was found, else 3 when the solver left an aim
        open (`unknown`: the guided plays are not all there), else 0."""
        if any(f.kind == "engine-failure" for f in self.findings):
            return 4
        if self.findings:
            return 1
        return 3 if any(a.status == "unknown" for a in self.aims) else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "command": "duelcheck difftest",
            "engine": self.engine,
            "rules": self.rules.changed(),
            "plays": self.plays,
            "turns": self.turns,
            "seed": self.seed,
            "decisions_compared": self.decisions,
            "actions_taken": self.steps,
            "offers_compared": self.offers_compared,
            "rules_steps": dict(sorted(self.exercised.items())),
            "duels_won": self.duels_won,
            "plays_cut": dict(sorted(self.cut.items())),
            "guided_plays": [{**a.to_json(), "reached": self.reached.get(a.name, False)} for a in self.aims],
            "disagreements": sum(f.count for f in self.findings),
            "findings": [f.to_json() for f in self.findings],
        }

    def text(self) -> str:
        lines = [
            f"difftest against {self.engine}: "
            + (f"{len(self.reached)} guided plays, then " if self.reached else "")
            + f"{self.plays} plays of up to {self.turns} turns, seed {self.seed}",
            f"{self.decisions} decisions compared, {self.offers_compared} offered actions compared, "
            f"{self.steps} actions taken; the rules took "
            + ", ".join(f"{n} {k}" for k, n in sorted(self.exercised.items()))
            + f"; {self.duels_won} duels won",
        ]
        if self.cut:
            lines.append(
                "plays stopped where the rules' side cannot go on: "
                + ", ".join(f"{why} ({n})" for why, n in sorted(self.cut.items()))
            )
        if self.aims:
            found = [a for a in self.aims if a.status == "found"]
            reached = [a.name for a in found if self.reached.get(a.name)]
            missed = [a.name for a in found if not self.reached.get(a.name)]
            others = [f"{a.name} ({a.status})" for a in self.aims if a.status != "found"]
            lines.append(
                f"guided plays: {len(found)} of {len(self.aims)} aims have a play within the bound; "
                f"{len(reached)} reached on both sides"
                + (f"; left the solver's play before its aim: {', '.join(missed)}" if missed else "")
                + (f"; no play: {', '.join(others)}" if others else "")
            )
        if not self.findings:
            lines.append("no disagreement")
        for i, f in enumerate(self.findings, 1):
            length = f" (shortest play: {len(f.shortest.choices)} choices)" if f.shortest else ""
            times = f"{f.count} times in {len(set(f.plays))} plays"
            lines.append(f"{i}. [{f.clause}] {f.kind} {f.subject}: {f.detail} - {times}{length}")
        return "\n".join(lines) + "\n"


def deal_decks(
    seed: int, rules: Rules, dealer: Callable[[random.Random, int], list[dict[str, Any]]]
) -> list[list[dict[str, Any]]]:
    rng = random.Random(f"decks:{seed}")
    return [dealer(rng, rules.deck_size) for _ in (0, 1)]


def _differences(model: Any, engine: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """(path, the rules' value, the engine's value) over the fields the engine gives."""
    if isinstance(engine, dict) and isinstance(model, dict):
        out = []
        for k, v in engine.items():
            if k in model:
                out += _differences(model[k], v, f"{path}.{k}" if path else k)
        return out
    if isinstance(engine, list) and isinstance(model, list):
        if len(engine) != len(model):
            return [(path, len(model), len(engine))]
        return [
            d for i, (m, e) in enumerate(zip(model, engine, strict=True)) for d in _differences(m, e, f"{path}[{i}]")
        ]
    return [] if model == engine else [(path, model, engine)]


def _compared(observed: dict[str, Any]) -> dict[str, Any]:
    out = {k: observed[k] for k in COMPARED if k in observed}
    if "players" in out:
        out["players"] = [
            {
                **{k: p[k] for k in PLAYER_FIELDS if k in p and k not in ("monsters", "spells_traps")},
                **(
                    {"monsters": [{k: m[k] for k in ("zone", *MONSTER_FIELDS) if k in m} for m in p["monsters"]]}
                    if "monsters" in p
                    else {}
                ),
                **(
                    {"spells_traps": [{k: c[k] for k in ("zone", *SPELL_FIELDS) if k in c} for c in p["spells_traps"]]}
                    if "spells_traps" in p
                    else {}
                ),
            }
            for p in out["players"]
        ]
    return out


def _subject(path: str) -> str:
    """A field path with the zone and player numbers taken out, so that one rule's difference is one group."""
    import re

    return re.sub(r"\[\d+\]", "[]", path)


def run_play(
    make_engine: Callable[[], Engine],
    rules: Rules,
    play: Play,
    rng: random.Random | None,
    stop_at_first: bool = True,
    model: ModelEngine | None = None,
) -> PlayOutcome:
    """Play `play` on both sides: its recorded choices, or (with `rng`) choices made as it goes, appended to
    `play.choices`. Stops at the first disagreement (when asked), the end of the duel, or the last turn."""
    model = model if model is not None else ModelEngine(rules)
    engine = make_engine()
    recorded = list(play.choices) if rng is None else None
    taken: list[dict[str, Any]] = []
    if rng is not None:
        play.choices = taken  # filled as the play goes: a play an engine failure ends is kept so far
    model.deal(play.decks)
    engine.deal(play.decks)
    model.resolution_seed = play.seed
    model.reset({})
    engine.reset({}, None)
    observe = getattr(engine, "observe", None)
    engine_view: dict[str, Any] | None = observe() if observe is not None else None
    out = PlayOutcome(play, [])
    since = 0
    last_clause = "6.3"
    at = _guide_at(model, play.guide) if play.guide else 0  # the steps nobody chose at the start
    out.reached = bool(play.guide) and at == len(play.guide or ()) - 1
    for _ in range(100_000):
        mo = {key(a): a for a in model.offers()}
        eo = {key(a): a for a in engine.offers()}
        decision = len(taken)
        if eo and list(eo) == [key(END_STEP)] and mo != eo:  # the engine stops where the rules have nothing to choose
            got = engine.apply(END_STEP)
            if isinstance(got, str):
                out.disagreements.append(Disagreement("engine-refuses", "end_step", "6.3", got, decision, END_STEP))
                break
            engine_view = got
            continue
        out.decisions += 1
        out.offers_compared += len(set(mo) | set(eo))
        found: list[Disagreement] = []
        timing = _engine_stopped_earlier(model, engine_view, eo, since) if engine_view is not None else []
        if not timing and engine_view is not None:
            timing = _engine_ran_on(model, engine_view, mo)
        found += [Disagreement(*t, decision, a) for t, a in timing]
        if engine_view is not None:
            for path, want, got in _differences(_compared(model.observe()), _compared(engine_view)):
                if timing and path in ("turn", "turn_player", "phase", "priority"):
                    continue  # told above: the engine asks where the rules let the duel run on
                detail = f"{path}: rules {want!r}, engine {got!r}"
                found.append(Disagreement("state", _subject(path), last_clause, detail, decision))
        if timing:  # the two sides are at different timings: their offers are not comparable
            out.disagreements += found
            break
        for k in sorted(set(eo) - set(mo)):
            a = eo[k]
            why = model.refusal(a) or "the rules do not offer it at this decision"
            found.append(
                Disagreement("engine-allows", a["action"], broken_clause(why, _clause(model, a)), why, decision, a)
            )
        for k in sorted(set(mo) - set(eo)):
            a = mo[k]
            found.append(
                Disagreement(
                    "engine-forbids",
                    a["action"],
                    _clause(model, a),
                    f"the rules allow {_words(a)}; the engine does not offer it",
                    decision,
                    a,
                )
            )
        if found:
            out.disagreements += found
            if stop_at_first:
                break
        if model.over() or not mo or model.state.g("turn") > play.turns:
            break
        common = sorted(set(mo) & set(eo))
        if recorded is not None:
            if not recorded:
                break
            choice = recorded.pop(0)
            if key(choice) not in mo or key(choice) not in eo:
                break  # the shortened play no longer reaches this action
        else:
            if not common:
                break
            assert rng is not None
            followed = _follow(model, [mo[k] for k in common], play.guide, at) if play.guide else None
            if followed is not None:
                choice, at = followed
                out.reached = at == len(play.guide or ()) - 1
            else:
                play.guide = None  # the rules and the engine left the solver's play: random from here
                choice = mo[rng.choice(common)]
        taken.append(choice)
        since = len(model.steps)
        out.steps += 1
        last_clause = _clause(model, choice)
        resolved = len(model.resolved)
        got_m = model.apply(choice)
        if model.cut is not None:
            out.cut = model.cut
            break
        tell = getattr(engine, "resolutions", None)
        if tell is not None and len(model.resolved) > resolved:  # what the rules' resolutions brought
            tell(model.resolved[resolved:])
        got_e = engine.apply(choice)
        if isinstance(got_e, str):
            out.disagreements.append(
                Disagreement("engine-refuses", choice["action"], last_clause, got_e, decision, choice)
            )
            if stop_at_first:
                break
        else:
            engine_view = got_e
        if isinstance(got_m, str):  # cannot happen: the choice was offered by the rules
            raise AssertionError(f"the rules refused an action they offered: {choice} ({got_m})")
    for name, _, _ in model.steps[1:]:
        out.exercised[name] = out.exercised.get(name, 0) + 1
    out.won = model.over()
    return out


def _guide_at(model: ModelEngine, guide: list[dict[Any, Any]], at: int = 0, since: int = 1) -> int:
    """How far along the solver's play the rules' steps from `since` on go: the index of the last state of the
    play met, in order, from `at` on. The rules' steps and the solver's need not be one for one (a step of
    several phases at once, the steps an engine takes by itself): the solver's states met in order count."""
    for _, _, st in model.steps[since:]:
        now = _game(model, st)
        at = next((j for j in range(at + 1, len(guide)) if guide[j] == now), at)
    return at


def _game(model: ModelEngine, state: Any) -> dict[Any, Any]:
    return {k: state.v[k] for k in model.ts.keys}


CLOCK = ("turn", "phase", "prio", "passed", "window")  # the cells that say where the duel is, not what is there


def _clock(state: dict[Any, Any]) -> tuple[int, int]:
    return int(state[("turn",)]), int(state[("phase",)])


def _on_the_way(now: dict[Any, Any], guide: list[dict[Any, Any]], at: int) -> bool:
    """`now` is between the solver's states `at` and `at + 1`: later in time than the first and not later than
    the second, and every other cell as in one of them: the rules went through a phase the solver's play
    jumped over (a step of several phases at once)."""
    here, there = guide[at], guide[at + 1]
    between = all(now[k] in (v, there[k]) for k, v in here.items() if k[0] not in CLOCK)
    return between and _clock(here) < _clock(now) <= _clock(there)


def _follow(
    model: ModelEngine, offered: list[dict[str, Any]], guide: list[dict[Any, Any]] | None, at: int
) -> tuple[dict[str, Any], int] | None:
    """The offered action that goes furthest along the solver's play, and how far (the first such in the
    offers' order): the furthest state of the play it meets, else the furthest in time it goes towards the
    play's next state with nothing else changed; None when none does (or the play has been gone through)."""
    if guide is None or at + 1 >= len(guide):
        return None
    best: tuple[dict[str, Any], int] | None = None
    best_score = (at, _clock(_game(model, model.state)))
    for action in offered:
        probe = model.fork()
        before = len(probe.steps)
        if isinstance(probe.apply(action), str):
            continue
        j = _guide_at(probe, guide, at, before)
        now = _game(probe, probe.state)
        if j > at:
            score = (j, (0, 0))
        elif _on_the_way(now, guide, at):
            score = (at, _clock(now))
        else:
            continue
        if score > best_score:
            best, best_score = (action, j), score
    return best


def _engine_stopped_earlier(
    model: ModelEngine, view: dict[str, Any], offers: dict[str, dict[str, Any]], since: int
) -> list[tuple[tuple[str, str, str, str], dict[str, Any]]]:
    """When the engine asks a player at a timing the rules ran through (no choice there for the rules), the
    engine's offers there, each with the rules' reason for refusing it at that timing: the rules' state of
    that timing is found among the steps taken since the last choice."""
    now = model.decision()
    where = (view.get("turn"), view.get("phase"), view.get("priority"))
    if None in where or where == (now.g("turn"), describe_phase(now), now.g("prio")):
        return []
    for _, _, state in model.steps[since:]:  # the first such timing: where the engine stopped and the rules did not
        if (state.g("turn"), describe_phase(state), state.g("prio")) != where or state.g("resolving"):
            continue  # (an engine asks nobody while a chain resolves)
        saved = model.state
        model.state = state
        try:
            out = []
            for a in offers.values():
                if a["action"] == "pass":
                    continue
                why = model.refusal(a) or "the rules run on through this timing with nothing to choose"
                clause = broken_clause(why, _clause(model, a))
                out.append((("engine-allows", a["action"], clause, f"{why} (at {where[1]} of turn {where[0]})"), a))
            return out
        finally:
            model.state = saved
    return []


def _engine_ran_on(
    model: ModelEngine, view: dict[str, Any], offers: dict[str, dict[str, Any]]
) -> list[tuple[tuple[str, str, str, str], dict[str, Any]]]:
    """When the rules stop at a decision the engine ran through (the engine asks next at a later timing):
    each action the rules offer there (passing aside), as `engine-forbids` with the timing the engine went on
    to."""
    from duelcheck.log import PHASES

    now = model.state
    turn, phase = view.get("turn"), view.get("phase")
    if turn is None or phase not in PHASES or view.get("winner", "none") != "none":
        return []
    if (now.g("turn"), now.g("phase")) >= (turn, int(PHASES[phase])):
        return []
    here = f"{describe_phase(now)} of turn {now.g('turn')}"
    out = []
    for a in offers.values():
        if a["action"] in ("pass", "end_step"):
            continue
        why = f"the rules allow {_words(a)} at {here}; the engine ran on to {phase} of turn {turn} without asking"
        out.append((("engine-forbids", a["action"], _clause(model, a), why), a))
    return out


def describe_phase(state: Any) -> str:
    from duelcheck.log import PHASE_NAME
    from duelcheck.model.cards import Phase

    return PHASE_NAME[Phase(state.g("phase"))]


def _clause(model: ModelEngine, action: dict[str, Any]) -> str:
    from duelcheck.model.rules import ACTION_BY_NAME

    name = {"end_step": "end_step", "activate_effect": "activate"}.get(action["action"], action["action"])
    name = {"replay": "replay_select"}.get(name, name)
    act = ACTION_BY_NAME.get(name)
    return act.clause if act is not None else "?"


def _words(action: dict[str, Any]) -> str:
    params = ", ".join(f"{k}={v}" for k, v in action.items() if k != "action")
    return f"{action['action']}({params})"


def shrink(
    make_engine: Callable[[], Engine], rules: Rules, play: Play, group: tuple[str, str, str], budget: int = 60
) -> Play:
    """The shortest play found (delta debugging over the choices, at most `budget` replays) that still shows a
    disagreement of the same group."""

    def shows(choices: list[dict[str, Any]]) -> bool:
        candidate = Play(play.seed, play.decks, list(choices), play.turns)
        got = run_play(make_engine, rules, candidate, None)
        return any(d.group == group for d in got.disagreements)

    choices = list(play.choices)
    spent = 0
    n = 2
    while len(choices) >= 1 and spent < budget:
        size = max(1, len(choices) // n)
        removed = False
        for start in range(len(choices) - size, -1, -size):  # the latest choices first: they matter least
            candidate = choices[:start] + choices[start + size :]
            spent += 1
            if shows(candidate):
                choices = candidate
                n = max(n - 1, 2)
                removed = True
                break
            if spent >= budget:
                break
        if not removed:
            if size == 1:
                break
            n = min(len(choices), n * 2)
    return Play(play.seed, play.decks, choices, play.turns)


Spawn = tuple[list[str], dict[str, Any], float | None, str | None]  # argv, rules, timeout, cwd of an engine


class EngineProcess:
    """One engine for a whole run (started once, restarted after it fails): `get()` is the engine to use.
    `spawn`: how another process starts the same engine (the argv and settings of an engine process), for
    plays run by several processes."""

    def __init__(self, start: Callable[[], Engine], spawn: Spawn | None = None):
        self.start = start
        self.spawn = spawn
        self.engine: Engine | None = None

    def get(self) -> Engine:
        if self.engine is None:
            self.engine = self.start()
        return self.engine

    def drop(self) -> None:
        engine, self.engine = self.engine, None
        close = getattr(engine, "close", None)
        if close is not None:
            close()


def open_engine(
    spec: str, rules: Rules, ocgcore: str | None = None, timeout: float | None = None
) -> tuple[EngineProcess, str]:
    """The engine `--engine` names, in a process of its own: `ygopro` (ygopro-core, the library --ocgcore or
    DUELCHECK_OCGCORE names), `edopro` (EDOPro's core: --ocgcore or DUELCHECK_EDOPRO), `model` (duelcheck's
    own rules: a self-check), or `exec:COMMAND ARGS`."""
    import shlex
    import sys

    from duelcheck.adapters.jsonlines import ExecAdapter, builtin_cwd
    from duelcheck.errors import InputError

    cwd: str | None = builtin_cwd()  # duelcheck's own engines; a user's `exec:` runs where they are
    if spec == "ygopro":
        from duelcheck.adapters.ocgcore import library_path

        argv = [sys.executable, "-m", "duelcheck.adapters.serve", "ygopro", "--ocgcore", library_path(ocgcore)]
        name = "ygopro-core"
    elif spec == "edopro":
        from duelcheck.adapters.edopro import library_path as edopro_path

        argv = [sys.executable, "-m", "duelcheck.adapters.serve", "edopro", "--ocgcore", edopro_path(ocgcore)]
        name = "EDOPro's core"
    elif spec == "model":
        argv = [sys.executable, "-m", "duelcheck.adapters.serve", "model"]
        name = "the model (self-check)"
    elif spec.startswith("exec:"):
        argv = shlex.split(spec.removeprefix("exec:"))
        name = spec
        cwd = None
    else:
        raise InputError(f"--engine {spec!r}: expected ygopro, edopro, model or exec:COMMAND ARGS")
    if not argv:
        raise InputError("--engine exec: no command given")
    mapping = rules.changed()
    holder = EngineProcess(lambda: ExecAdapter(mapping, argv, timeout, cwd), (argv, mapping, timeout, cwd))
    return holder, name


def _one_play(
    engines: EngineProcess,
    rules: Rules,
    i: int,
    turns: int,
    seed: int,
    dealer: Callable[[random.Random, int], list[dict[str, Any]]],
    model: ModelEngine,
    guided: list[Play] | None = None,
) -> PlayOutcome:
    """Play number `i` of a run: the guided plays first (`guided`), then the random ones (the decks and choices
    of random play `j` come from the run's seed and `j` alone)."""
    from duelcheck.adapters.jsonlines import EngineError
    from duelcheck.adapters.ocgcore import EngineFailure

    guided = guided or []
    if i < len(guided):
        g = guided[i]
        play = Play(g.seed, g.decks, [], g.turns, g.aim, list(g.guide or ()))
        rng = random.Random(f"guided:{g.aim}")
    else:
        play_seed = seed * 1_000_003 + i - len(guided)
        play = Play(play_seed, deal_decks(play_seed, rules, dealer), [], turns)
        rng = random.Random(f"play:{play_seed}")
    try:
        return run_play(engines.get, rules, play, rng, model=model)
    except (EngineError, EngineFailure) as exc:
        engines.drop()
        return PlayOutcome(play, [Disagreement("engine-failure", "engine", "-", str(exc), len(play.choices))])


def _one_card(dealer: Callable[[random.Random, int], list[dict[str, Any]]], rng: random.Random) -> dict[str, Any]:
    return dealer(rng, 1)[0]


def guided_plays(
    aims: list[Any], rules: Rules, turns: int, dealer: Callable[[random.Random, int], list[dict[str, Any]]]
) -> list[Play]:
    """A play for each aim the solver found a play to (engines/guided.py): the decks stacked so that each
    card the solver's play plays is in the hand in time (the rest dealt by `dealer`, seeded by the aim's
    name), the solver's states to follow, and the run's turns (or the play's own, when longer)."""
    from duelcheck.adapters.cards import stacked_deck

    out = []
    for n, aim in enumerate(a for a in aims if a.log is not None):
        rng = random.Random(f"guided-decks:{aim.name}")
        decks = [stacked_deck(aim.log, p, rules, functools.partial(_one_card, dealer, rng)) for p in (0, 1)]
        last_turn = max(int(st.get(("turn",), 0)) for st in aim.states) if aim.states else 1
        out.append(Play(-1 - n, decks, [], max(turns, last_turn), aim.name, aim.states))
    return out


_WORKER: dict[str, Any] = {}


def _worker_start(spawn: Spawn, rules: Rules, dealer: Any, guided: list[Play]) -> None:
    from duelcheck.adapters.jsonlines import ExecAdapter

    argv, mapping, timeout, cwd = spawn
    _WORKER["engines"] = EngineProcess(lambda: ExecAdapter(mapping, argv, timeout, cwd))
    _WORKER["model"] = ModelEngine(rules)
    _WORKER["rules"] = rules
    _WORKER["dealer"] = dealer
    _WORKER["guided"] = guided


def _worker_play(job: tuple[int, int, int]) -> PlayOutcome:
    i, turns, seed = job
    w = _WORKER
    return _one_play(w["engines"], w["rules"], i, turns, seed, w["dealer"], w["model"], w["guided"])


def _parallel(
    spawn: Spawn,
    rules: Rules,
    plays: int,
    turns: int,
    seed: int,
    dealer: Any,
    workers: int,
    progress: Callable[[int, int, int], None] | None,
    guided: list[Play],
) -> list[PlayOutcome]:
    """The plays, in order, played by `workers` processes (each with an engine process of its own)."""
    from concurrent.futures import ProcessPoolExecutor

    out: list[PlayOutcome] = []
    seen: set[tuple[str, str, str]] = set()
    with ProcessPoolExecutor(workers, initializer=_worker_start, initargs=(spawn, rules, dealer, guided)) as pool:
        jobs = [(i, turns, seed) for i in range(len(guided) + plays)]
        for outcome in pool.map(_worker_play, jobs, chunksize=8):
            out.append(outcome)
            seen.update(d.group for d in outcome.disagreements)
            if progress is not None:
                progress(len(out), len(jobs), len(seen))
    return out


def difftest(
    engines: EngineProcess,
    engine_name: str,
    rules: Rules,
    plays: int,
    turns: int,
    seed: int,
    dealer: Callable[[random.Random, int], list[dict[str, Any]]],
    progress: Callable[[int, int, int], None] | None = None,
    shrink_budget: int = 60,
    workers: int = 1,
    aims: list[Any] | None = None,
) -> DiffReport:
    """Run a guided play for each of the `aims` the solver found a play to (engines/guided.py `find`), then
    `plays` seeded random plays; group, shrink and report the disagreements. An engine that fails (crashes,
    hangs, breaks the protocol) ends its play with an `engine-failure` finding, and is started again. With
    `workers` > 1 (and an engine in a process of its own) the plays are played by that many processes, each
    with its own engine; each play depends on its seed (or its aim) alone, so the report is the same."""
    from duelcheck.adapters.jsonlines import EngineError
    from duelcheck.adapters.ocgcore import EngineFailure

    report = DiffReport(engine_name, rules, plays, turns, seed, aims=list(aims or []))
    guided = guided_plays(report.aims, rules, turns, dealer)
    total = len(guided) + plays
    groups: dict[tuple[str, str, str], Finding] = {}
    first: dict[tuple[str, str, str], Play] = {}
    outcomes: Iterable[PlayOutcome]
    if workers > 1 and total > 1 and engines.spawn is not None:
        outcomes = _parallel(engines.spawn, rules, plays, turns, seed, dealer, workers, progress, guided)
    else:
        model = ModelEngine(rules)
        outcomes = (_one_play(engines, rules, i, turns, seed, dealer, model, guided) for i in range(total))
    for i, outcome in enumerate(outcomes):
        if outcome.play.aim is not None:
            report.reached[outcome.play.aim] = outcome.reached
        play = outcome.play
        report.decisions += outcome.decisions
        report.steps += outcome.steps
        report.offers_compared += outcome.offers_compared
        report.duels_won += int(outcome.won)
        if outcome.cut is not None:
            report.cut[outcome.cut] = report.cut.get(outcome.cut, 0) + 1
        for k, n in outcome.exercised.items():
            report.exercised[k] = report.exercised.get(k, 0) + n
        for d in outcome.disagreements:
            g = d.group
            if g not in groups:
                groups[g] = Finding(d.kind, d.subject, d.clause, d.detail, 0, [], action=d.action)
                first[g] = Play(play.seed, play.decks, play.choices[: d.at], play.turns)
            groups[g].count += 1
            groups[g].plays.append(i)
        if progress is not None and not (workers > 1 and engines.spawn is not None):
            progress(i + 1, total, len(groups))
    for g, finding in groups.items():
        if finding.kind == "engine-failure":
            finding.shortest = first[g]
        else:
            try:
                finding.shortest = shrink(engines.get, rules, first[g], g, shrink_budget)
            except (EngineError, EngineFailure):
                engines.drop()
                finding.shortest = first[g]
        finding.log = play_log(rules, finding.shortest, finding)
    report.findings = sorted(groups.values(), key=lambda f: (-f.count, f.clause, f.kind, f.subject))
    return report


def play_log(rules: Rules, play: Play, finding: Finding) -> dict[str, Any]:
    """A play as a duel log that `duelcheck replay` reads: every step of the rules (the choices and the steps
    between them that nobody chooses), the rules' state observed after each, and the decks dealt; the
    finding in its title. The last choice is the one at whose decision the engine disagreed."""
    from duelcheck.log import log_of

    model = ModelEngine(rules)
    model.deal(play.decks)
    model.reset({})
    for choice in play.choices:
        model.apply(choice)
    doc = log_of(model.steps, rules, f"{finding.kind} {finding.subject} [{finding.clause}]: {finding.detail}")
    doc["clause"] = finding.clause
    doc["decks"] = play.decks
    action = finding.action
    why = model.refusal(action) if action is not None else None
    if finding.kind == "engine-allows" and action is not None and why is not None:  # the rules refuse it
        doc["actions"].append({**action, "note": "the engine offers this action here; the rules refuse it"})
        doc["expect"] = {"conforms": False, "stops_at": len(doc["actions"]), "reason": why}
    elif action is not None and finding.kind != "state":
        says = "does not offer it" if finding.kind == "engine-forbids" else "does not take it"
        doc["actions"].append({**action, "note": f"the rules allow this action here; the engine {says}"})
        doc["expect"] = {"conforms": True}
    else:
        doc["expect"] = {"conforms": True}
    return doc


def write_findings(report: DiffReport, out: Path) -> list[Path]:
    from duelcheck.counterexamples.itf import write_atomic

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for i, f in enumerate(report.findings, 1):
        if f.log is None:
            continue
        name = f"{i:02d}-{f.kind}-{f.subject}".replace("[]", "").replace(".", "-").replace("/", "-")
        path = out / f"{name}.json"
        write_atomic(path, json.dumps(f.log, indent=1, ensure_ascii=False) + "\n")
        written.append(path)
    path = out / "difftest.json"
    write_atomic(path, json.dumps(report.to_json(), indent=1, ensure_ascii=False) + "\n")
    written.append(path)
    return written
