"""Mutation analysis: does the property suite notice when a rule of the model is changed?

A mutant is the model with one rule changed; the suite kills it when some property tells it apart from the
rules as written. The kinds of mutant:

- `drop` (guard mutants): one `n.require(...)` call site of one action, named by the action, the site's
  position among the `require` calls of one run of that action's body (from 0, in call order; the helpers it
  calls, such as `require_can_act`, count as its own) and its reason text, is skipped. It models a rule
  missing from the model: the action is allowed where that clause forbids it.
- `negate`: the same call site with its condition negated (`require not cond`). It models a rule stated
  backwards: the action is allowed exactly where the clause forbids it, among the states the other guards let
  through.
- `write`: the writes (`n.set`, `n.add`) one line of the rules' source makes in one action's body, named by
  the action and the line's place among the distinct writing lines of one run of that body (from 0, in the
  order first reached), are skipped: an effect the rule forgets (the Normal Summon count not raised, the
  deck not reduced by the draw).
- `swap`: the writes of such a line to a field kept per player (LP, hand, deck, a zone's cells) made to the
  other player's cell: an effect that reaches the wrong player (damage to the attacker, a card drawn by the
  opponent).
- `compare`: one comparison (`<`, `<=`, `>`, `>=`, `==`, `!=`) in a function of model/rules.py an action's body
  runs, named by the function and its place among the function's comparisons (from 0, in source order), given
  its boundary twin: `<` for `<=` and back, `>` for `>=`, `!=` for `==` (an off-by-one, a test inverted). The
  function is compiled again from the module's source with that one operator changed and put in place of the
  original for the mutant's run (concrete and symbolic alike: both run the same function). The functions
  that only word a refusal for the judge (a reason passed to `require`) and the candidate enumerations are
  the model's, not rules, and have no sites.
- `semantic`: the hand-made rule bugs of `SEMANTIC` (a rule body or a helper swapped for a wrong one: the
  first player draws on turn 1, no Normal Summon limit, ...), the catalogue tests/test_mutants.py checks.

Guard mutants use the mutation hook of model/state.py: model/system.py opens a run of the hook before each
action body, concrete and symbolic alike, so the concrete interpreter and the transition relation drop the
same conjunct (tests/test_mutate.py checks that they agree). Guards whose reason starts "model range" or
"model catalogue" bound the model's own encoding (ATK from 0 to 9000, the effects of the card catalogue), not a
rule of the game: their mutants are listed as excluded and never run or scored.

Equivalent mutants are proved, not guessed. Dropping guard g of action X changes nothing when, in every state
meeting the invariants proved for all depths (engines/kind.py, the suite under the rules as written), the other
guards of X imply g: one solver question, unsat of lemmas(s) and the other guards of X(s, params) and not g.
Such a guard is redundant: a rule stated twice (implied by the other guards alone) or a dead rule (implied
only given the invariants: no reachable state needs it). Where that question finds a state, induction is asked
whether a play makes one (`_twin_unreachable`: the guard's twin, the boards' question, its absence proved for
all depths): a proof is a dead rule too (a discard with the duel won: nothing is done while discarding, and the
discard begins only from a step that needs the duel going on). Every other mutant is asked the general question
(`same_steps`): for each action it changes, in every state meeting those invariants and for every parameter,
does the mutant allow the step exactly when the rules do, making the same game state? Unsat for each action
is a proof that the mutant and the rules are one transition system on the reachable states: dead code (a
write of the value the field already holds, a comparison whose boundary no reachable state meets with a
different result, a branch for another rule set). Where it finds a state, and the engines' stages 1 to 4
below kill nothing, induction is asked whether a play reaches a state where the step differs (`run_mutant`,
through `kill`'s `first`, before stages 5 to 8, which cost the most): a proof is dead code too. A dropped
guard's twin is asked sooner, once the replays and the short seeded search of stage 2 killed nothing (most
dropped guards are killed there, in a few steps, and a kill needs no proof).

Each other mutant is checked with the engines, with the mutant active in the process that checks it:
1. the witnesses the rules as written reach within the bound (the baseline, computed once with their plays):
   each baseline play is replayed under the mutant (milliseconds), and a witness its play still reaches is
   reached; along the same plays, and the plays of the witnesses beyond the bound, every invariant is checked
   concretely after every step, and the first violation kills the mutant (its trace the play up to there,
   certified and shortened by delta debugging, not proved minimal): a mutant that changes what the rules' own
   plays do is caught where it does, without a search (measured: `a > t_atk` read as `>=` in the damage
   table, unknown after 120 s of searching, killed on the play to a 0-ATK battle at step 11);
2. the seeded search (below) from the start of the duel a short way, to `SEEDED_EARLY` steps: most kills are
   this short (of the 67 such kills in the first 118 mutants of a whole run, 57 at 10 steps or fewer), and
   settled here they pay for no induction question (measured: a dropped guard killed at step 3 in 6.0 s, where
   the twin's induction and the proof asked again first took 32.6 s); then, when every invariant was proved
   for the rules as written, that proof asked again of the mutant's own steps
   (`still_inductive`, stage 3 below) before any further search for a violation: where it still holds no invariant is
   violated at any depth, so neither search below is made and only a lost witness can kill (measured: a
   dropped write of `pass` whose seeded search gave no answer in 595 s, settled by the proof in 45 s); where it
   does not, when invariants are proved for the rules (the lemmas), the seeded search (engines/seeded.py) from
   the start of the duel on to `SEEDED_BEYOND` steps past the bound (the depths refuted before not asked again):
   plays whose steps the mutant takes as the rules do,
   pruned by the rules' proved invariants, then one step the mutant takes otherwise, where an invariant
   breaks; the shortest such play (measured, with the suite's lemmas: a pass that ends a step with a trigger
   waiting, killed at step 7 in 8 s; a Set with five monsters on the field at 7; a position change at 9 in
   15 s, where the search without lemmas gave no answer in 240 s; `turn > 1` read as `turn >= 1` in the
   drawing rule at step 1, where the lost witness `reach-battle-destroyed-trigger` took 124 s to refute);
   then the witnesses whose play broke, searched by bounded model checking, one property at a time, shortest
   first, the first one lost ending the check (a rule made stricter loses a play and breaks no invariant:
   measured, a negated guard of `end_step`, where the shallow search below only added time); then, when no
   witness is lost, the bounded search for a violation of any invariant, from the initial state, without
   lemmas (nothing proved for the rules as written holds for the mutant until proved again), deepening to
   the smaller of the bound and `PROBE_DEPTH` and stopping after the first depth where an invariant is
   violated (without lemmas each depth costs more: all invariants to depth 4 in 4 s, 5 in 7 s, 6 in 13 s, 8
   in 55 s under a mutant that violates none; in the first 210 mutants of a full run it killed none the
   seeded search had not);
3. the proof asked again (`still_inductive`: the mutant changes one action's body, every other step is as the
   proof saw it; asked before stage 2's searches): if it still holds and no witness is lost, every invariant
   is proved for all depths under the mutant, which survives (measured:
   10 s for a `change_position` guard, 1 to 3 min for a `resolve` one, whose cases the proofs split finest);
4. when the proof was not kept, the seeded search again: from the states of the rules' own plays and of
   `FAR_WALKS` seeded random plays under the rules (to the end of the duel: a deck drawn out), `FAR_DEPTH`
   steps on with the last the first the mutant takes otherwise (measured: a Normal Summon after the duel is
   won, killed from step 278 of a deck-out play, in 32 s with the shortening), then from the start with a
   tail of `SEEDED_TAILS` steps after the first divergence;
5. when nothing above settled the mutant, the goal-directed search (engines/goal.py): the
   solver names a few cells of a state meeting the lemmas from which a step of an action the mutant changes
   breaks an invariant (the opponent's fifth Monster Zone filled and a replay due), a concrete search walks
   the mutant's plays from the start of the duel towards those cells, and the seeded search runs again from
   the states it came nearest: a setting-up hundreds of steps long that no play above makes. Its budgets are
   counted in solver resources and steps, not time; when the time limit stops it the mutant is unknown;
6. then the wide search: the seeded search `WIDE_DEPTH` steps on from every `WIDE_STRIDE`-th state of each of
   the rules' own plays (a search from one state follows that play's own steps too, so it covers the states
   between at a smaller depth), `WIDE_BATCH` states in one search, a play's last states first (measured: a
   replay's choice after the duel was won, 13 steps from a state of the deck-out play, found in 24 s from 18
   states; the opponent's fifth Monster Zone filled, then a replay to a direct attack, 9 steps from a state of a
   random play, in 9 s);
7. then the seeded search from the states of the rules' own plays again, `FAR_LAST` steps on, one more than
   `FAR_DEPTH` (measured: a chain link resolving after a draw from an empty deck has ended the duel mid-chain,
   the dropped "the duel is over" guard of `resolve`, needs 7 steps from a state of the deck-out play, the
   Main Phase of the player whose deck is empty: a Spell, a pass, a Quick-Play Spell that draws, two passes,
   two resolutions; killed in about 70 s on a shared machine, where 6 steps left it a survivor);
8. last, when no violation was found, the checker (engines/checker.py) on the invariants with the mutant
   active: proved by induction with nothing cached for the mutant, then bounded model checking, with the
   first layer's lemmas, of what is not proved; no simulation for witnesses (its walks differ from rules to
   rules, so a witness it misses says nothing). Then, for the invariants that hold to the bound without a
   proof, a short bounded search (`DEEP_DEPTH` steps) from any state of the rules' own plays (the baseline's,
   and the witnesses beyond the bound that seeded simulation reaches, such as a deck running out), replayed
   under the mutant, then also from the states of `DEEP_WALKS` seeded random plays under the mutant: a
   violation that needs a deep setting-up and then a short divergence, its trace the play to that state and
   the search's steps, certified from the initial state and shortened by delta debugging, not proved minimal.
   The checker comes last because it kills least and may cost most: of the 684 kills of the whole run on
   model `f638f75a` it made one (`compare:trigger:1`, at step 12, minimal), the search beyond it none, while
   for a mutant whose kill needs a deep setting-up it cost the most (measured, the machine shared by three
   runs: `write:discard:11`, a card Set this turn still marked so after a discard to the hand limit, spent 88
   min in the checker and 28 more in the search beyond it, unkilled after 2 h; with the checker last it is
   killed by the wide search at step 44 in 2,755 s; `write:discard:7` 1,890 s -> 530 s,
   `compare:replay_select:3` 1,745 s -> 1,091 s).
A mutant is killed when some invariant is `violated` with a certified trace (the trace replayed through the
concrete interpreter under the mutant), or when a witness the rules as written reach within the bound is
`not-found` (refuted at every depth up to the bound) or `unreachable` (proved) under the mutant: the kill
records which property, which way and the trace's length. A mutant none of this kills survived (up to the
bound; the invariants the checker proved for all depths are listed). A deeper bound (`--depth`) kills more
mutants (witnesses further away, violations that need more setting up) and costs more: the last depths of
the bounded search cost the most. A solver that gives no answer, a time limit, or a trace the concrete
interpreter refuses (the two semantics disagree under the mutant: an index out of range reads as a blank
zone concretely and as the last zone symbolically, which a dropped "no such zone" guard exposes) make the
mutant `unknown`, never killed or survived.

The mutants run as tasks on Dask like `duelcheck sweep` (duelcheck/sweep.py: a local cluster on the loopback
address or a given scheduler); every result is committed at once to a SQLite store keyed by the mutant's id and
the model version, so that a run killed halfway is finished by the same command, running only what is missing.
The properties' `enabled` helper (no-deadlock) runs rule bodies as the system does, mutation hook included:
no-deadlock judges a mutant's own enabledness (a guard negated so that a replay's re-selection is never legal
leaves the attacker with no step, a deadlock), and the proof kept is asked again of every fact a mutant of a
progress action changes.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import inspect
import json
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import z3

from duelcheck.engines.sim import Play
from duelcheck.errors import InputError, InternalError, one_line
from duelcheck.model import rules as R
from duelcheck.model import state as S
from duelcheck.model.state import PARAMS, GuardMutant, MutationHook, WriteMutant
from duelcheck.properties.catalog import Check
from duelcheck.rules import Rules

DEFAULT_DEPTH = 12  # the bound of the kill stage; deeper bounds kill more and cost more
PROBE_DEPTH = 5  # the first stage's bounded search for a violation stops here (or at the bound, if smaller)
DEEP_DEPTH = 4  # the last stage's search from the states of the rules' own plays goes this many steps on
DEEP_WALKS, DEEP_WALK_LENGTH, DEEP_SEED = 3, 300, 7  # and from the states of these random plays under the mutant
BEYOND = 4  # the baseline's search goes this many steps past the bound for the witnesses it has not reached
# the seeded search (engines/seeded.py): plays that follow the rules until their last steps, the rules' proved
# invariants pruning the prefix; from the start of the duel this many steps past the bound, with a tail of one
# step (the violation at the first step the mutant takes otherwise), then of SEEDED_TAILS steps to the bound
SEEDED_BEYOND = 4
SEEDED_TAILS = (2,)
# before the proofs, a short seeded search from the start: to this depth (the shortest kills are most: of the 67
# seeded kills from the start in the first 118 mutants of a whole run, 57 at 10 steps or fewer), which settles a
# mutant before the induction questions it would otherwise pay for (measured: the module's docstring, stage 2)
SEEDED_EARLY = 10
# and from the states of the rules' own plays and of FAR_WALKS seeded random plays under the rules (up to
# FAR_WALK_LENGTH steps, or the end of the duel), this many steps on, a tail of one step
FAR_DEPTH = 6
FAR_LAST = 7  # and, for the mutants nothing else settled, this many
# and before that, far deeper from fewer states: every WIDE_STRIDE-th state of each play (a search from one
# state follows the play's own steps too), at most WIDE_BATCH in one search (measured: 18 states 15 steps on,
# 24 to 32 s, where the far search from a whole play's 285 states took minutes at 7)
WIDE_DEPTH, WIDE_STRIDE, WIDE_BATCH = 15, 4, 18
# the goal-directed search asks its goals near every REF_STRIDE-th state of the rules' plays (at most REFS)
REF_STRIDE, REFS = 60, 40
FAR_WALKS, FAR_WALK_LENGTH, FAR_SEED = 3, 700, 11
FAR_SHORT = 50  # plays of at most this many steps are searched from together, longer ones each on its own
DEEP_SHRINK = 1500  # the candidates delta debugging may try on a violation found there
DEFAULT_STORE = Path("duelcheck-mutate.sqlite")
KINDS = ("drop", "negate", "write", "swap", "compare", "semantic")
EXCLUDED_PREFIXES = ("model range", "model catalogue", "model shortcut")
EQUIVALENCE_RLIMIT = 50_000_000  # the solver's resource limit for one equivalence question (deterministic)
STATUSES = ("killed", "survived", "equivalent", "unknown")


# ------------------------------------------------------------------------------------ the semantic catalogue


@contextmanager
def mutated(name: str, replacement: Callable[..., Any]) -> Iterator[None]:
    """Swap one rule (a module function of model/rules.py, or an action body) for a wrong one."""
    action = R.ACTION_BY_NAME.get(name)
    if action is not None:
        index = R.ACTIONS.index(action)
        R.ACTIONS[index] = dataclasses.replace(action, body=replacement)
        R.ACTION_BY_NAME[name] = R.ACTIONS[index]
        try:
            yield
        finally:
            R.ACTIONS[index] = action
            R.ACTION_BY_NAME[name] = action
        return
    original = getattr(R, name)
    setattr(R, name, replacement)
    try:
        yield
    finally:
        setattr(R, name, original)


@contextmanager
def compare_swapped(function: str, replacement: Callable[..., Any]) -> Iterator[None]:
    """Swap a function of model/rules.py for `replacement` everywhere the rules reach it: the module's name
    (the other functions call it by that name) and the actions whose body it is."""
    original = getattr(R, function)
    saved = list(R.ACTIONS)
    setattr(R, function, replacement)
    for i, action in enumerate(R.ACTIONS):
        if action.body is original:
            R.ACTIONS[i] = dataclasses.replace(action, body=replacement)
            R.ACTION_BY_NAME[action.name] = R.ACTIONS[i]
    try:
        yield
    finally:
        setattr(R, function, original)
        R.ACTIONS[:] = saved
        for action in saved:
            R.ACTION_BY_NAME[action.name] = action


def first_turn_draws(s: Any) -> Any:
    """6.3.1 without "the player who goes first does not draw on turn 1": every turn has a draw."""
    return True


def summon_without_limit(s: Any, a: Any, n: Any) -> None:
    """6.3.5 without the limit of one Normal Summon or Set per turn: the rule as written, with a limit no turn
    reaches (everything else about a Normal Summon unchanged)."""
    lifted = type(s)(s.k, s.r.model_copy(update={"normal_summons_per_turn": 127}), s.schema, s.v)
    R.summon_or_set(lifted, a, n, defense=False, up=True)


def set_face_down_attack(s: Any, a: Any, n: Any) -> None:
    """A Set monster placed face-down in Attack Position (seed 000: a Set monster is in Defense Position)."""
    R.summon_or_set(s, a, n, defense=False, up=False)


def set_card_keeps_hand(s: Any, a: Any, n: Any) -> None:
    """A Spell/Trap is Set but never leaves the hand: a card appears from nowhere."""
    hand = s.g("hand", s.tp)
    R.set_spell_trap(s, a, n)
    n.set("hand", s.tp, hand)


def leave_main1_anywhere(n: Any, choice: Any) -> None:
    """6.3.3 and 6.3.5 without their conditions: Main Phase 2 without a Battle Phase, a Battle Phase on turn 1."""
    k = n.k
    with n.when(choice == R.TO_BATTLE):
        n.set("bp_done", True)
        R.enter_phase(n, R.Phase.BATTLE_START)
    with n.when(choice == R.TO_MAIN2):  # Main Phase 2 without a Battle Phase
        R.enter_phase(n, R.Phase.MAIN2)
    with n.when(choice == R.TO_END):
        R.enter_phase(n, R.Phase.END)
    n.require(k.one_of(choice, (R.TO_BATTLE, R.TO_MAIN2, R.TO_END)), "choice")


def traps_any_time(s: Any, a: Any, n: Any) -> None:
    """Activation without the rule "not on the turn it was Set" (seed 000, Spells and Traps)."""
    v = dict(s.v)
    for p in (0, 1):
        for z in range(s.r.spell_trap_zones):
            v[("s_fresh", p, z)] = False
    relaxed = type(s)(s.k, s.r, s.schema, v)
    R.activate(relaxed, a, n)


def negated_link_still_resolves(s: Any, a: Any, n: Any) -> None:
    """A negated link resolves as if it were not negated (seed 000: a negated activation has no effect)."""
    top = s.g("chain_len") - 1
    v = dict(s.v)
    for i in range(s.r.chain_links):
        v[("c_neg", i)] = s.k.and_(s.g("c_neg", i), top != i)
    R.resolve(type(s)(s.k, s.r, s.schema, v), a, n)


def skip_hits_its_player(s: Any, a: Any, n: Any) -> None:
    """'The opponent skips their next Battle Phase' applied to the link's own player."""
    R.resolve(s, a, n)
    top = s.g("chain_len") - 1
    owner = s.g("c_owner", top)
    live = s.k.and_(s.g("c_eff", top) == R.Effect.SKIP_BP, s.k.not_(s.g("c_neg", top)))
    with n.when(live):
        n.set("skip_bp", s.other(owner), s.g("skip_bp", s.other(owner)))
        n.set("skip_bp", owner, True)


def flip_summon_to_defense(s: Any, a: Any, n: Any) -> None:
    """A Flip Summon leaves the monster in Defense Position (6.3.3: it is flipped to face-up Attack Position)."""
    R.flip_summon(s, a, n)
    n.set("m_def", s.tp, a.zone, True)


@dataclass(frozen=True)
class SemanticMutant:
    """A hand-made rule bug: `rule` (a function of model/rules.py or an action) replaced by `replacement`.
    `action` is the action whose behaviour it changes (for `--only`); `catches` (and `case`) the property
    tests/test_mutants.py sees catch it, at the bound `depth` (the Flip Summon bug from a turn-3 board there:
    from the initial state a monster Set on turn 1 is Flip Summoned on turn 3, 13 steps in)."""

    rule: str
    replacement: Callable[..., Any]
    action: str
    catches: str
    depth: int
    case: str = ""

    @property
    def name(self) -> str:
        return str(self.replacement.__name__)

    @property
    def models(self) -> str:
        return (inspect.getdoc(self.replacement) or self.rule).splitlines()[0]


# the rule bugs caught from the initial state, and the effects misapplied (each caught on one case)
RULE_BUGS: tuple[SemanticMutant, ...] = (
    SemanticMutant("must_draw", first_turn_draws, "normal_draw", "first-turn-no-draw", 2),
    SemanticMutant("normal_summon", summon_without_limit, "normal_summon", "normal-summon-limit", 7),
    SemanticMutant("set_monster", set_face_down_attack, "set_monster", "no-face-down-attack", 5),
    SemanticMutant("set_spell_trap", set_card_keeps_hand, "set_spell_trap", "card-conservation", 5),
    SemanticMutant("leave_main1", leave_main1_anywhere, "pass", "main2-only-after-battle", 7),
    SemanticMutant("activate", traps_any_time, "activate", "set-trap-not-same-turn", 7),
)
EFFECT_BUGS: tuple[SemanticMutant, ...] = (
    SemanticMutant("resolve", negated_link_still_resolves, "resolve", "resolution-effects", 7, "negated"),
    SemanticMutant("resolve", skip_hits_its_player, "resolve", "resolution-effects", 5, "named-player"),
    SemanticMutant("flip_summon", flip_summon_to_defense, "flip_summon", "flip-summon-face-up-attack", 2),
)
SEMANTIC = RULE_BUGS + EFFECT_BUGS
SEMANTIC_BY_NAME = {m.name: m for m in SEMANTIC}


# ------------------------------------------------------------------------------------------ the guard sites


def reason_text(reason: str | Callable[..., str]) -> str:
    """A guard's reason as text: the words themselves, or, for a reason computed from the state, the helper's
    name and the first line of its docstring."""
    if isinstance(reason, str):
        return reason
    doc = (inspect.getdoc(reason) or "").splitlines()
    name = getattr(reason, "__name__", "reason")
    return f"<{name}> {doc[0]}" if doc else f"<{name}>"


@dataclass(frozen=True)
class GuardSite:
    """One `require` call site reached while building an action: the action, its position, its reason."""

    action: str
    index: int
    reason: str

    @property
    def scored(self) -> bool:
        """False for the model's range and catalogue bounds: not rules of the game, never scored."""
        return not self.reason.startswith(EXCLUDED_PREFIXES)


@contextmanager
def hooked(hook: MutationHook | None) -> Iterator[None]:
    """Install a mutation hook in model/state.py for the duration (the previous one is put back)."""
    old = S.MUTATION
    S.MUTATION = hook
    try:
        yield
    finally:
        S.MUTATION = old


@dataclass
class GuardTerms:
    """An action's guard conjuncts over a symbolic state and parameters, one per call site, in call order."""

    sites: list[GuardSite]
    terms: list[Any]
    pre: Any
    params: dict[str, Any]


def guard_terms(ts: Any, action: str, tag: str = "@g") -> GuardTerms:
    """Run an action body symbolically under a recording hook: its call sites and their guard conjuncts."""
    act = R.ACTION_BY_NAME[action]
    pre = ts.sym_state(tag)
    pvars = {name: PARAMS[name].z3var(tag) for name in act.params}
    hook = MutationHook(record=True)
    with hooked(hook):
        n = pre.edit()
        with S.action_body(action):
            act.body(pre, R.Params(pvars), n)
    assert hook.sites is not None
    sites = [GuardSite(name, i, reason_text(reason)) for name, i, reason in hook.sites]
    if len(sites) != len(n.guards):
        raise InternalError(f"{action}: {len(sites)} require calls but {len(n.guards)} guard conjuncts")
    terms = [z3.BoolVal(g) if isinstance(g, bool) else g for g, _ in n.guards]
    return GuardTerms(sites, terms, pre, pvars)


def state_witness(ts: Any, pre: Any, params: dict[str, Any], term: Any, name: str) -> Check:
    """A term over the template state `pre` and the parameters `params` as a witness over any state: some
    parameters (in their domains) that make it true there."""
    fresh = {p: PARAMS[p].z3var(f"@witness@{name}") for p in params}
    domain = [PARAMS[p].domain(fresh[p]) for p in fresh]

    def value(template: Any, v: Any) -> Any:  # a concrete state's value as a term of the template's sort
        if isinstance(v, z3.ExprRef):
            return v
        return z3.BoolVal(bool(v)) if z3.is_bool(template) else z3.BitVecVal(int(v), template.size())

    def holds(s: Any) -> Any:
        pairs = [(pre.v[k], value(pre.v[k], s.v[k])) for k in ts.keys]
        pairs += [(params[p], fresh[p]) for p in params]
        mine = z3.And(*domain, z3.substitute(term, *pairs))
        if s.k.symbolic:
            return mine
        solver = z3.Solver()  # a concrete state: whether some parameters make it true there
        solver.add(mine)
        return solver.check() == z3.sat

    return Check(name, "state", holds, "sometimes")


def twin_check(ts: Any, pre: Any, params: dict[str, Any], terms: list[Any], at: int, name: str) -> Check:
    """The twin of guard conjunct `at` of an action (`terms`, over the template state `pre` and parameters
    `params`) as a witness over any state: some parameters in their domains with which every other conjunct
    holds and this one fails. Where no reachable state has it, dropping the guard changes no step: the boards'
    illegal twin is unreachable, and the mutant that drops it is equivalent."""
    term = z3.And(*(t for j, t in enumerate(terms) if j != at), z3.Not(terms[at]))
    return state_witness(ts, pre, params, term, name)


@functools.lru_cache(maxsize=4)
def _sites(rules_json: str) -> tuple[GuardSite, ...]:
    from duelcheck.model.system import TransitionSystem

    ts = TransitionSystem(Rules(**json.loads(rules_json)))
    out: list[GuardSite] = []
    for act in R.ACTIONS:
        if act.parts is None:  # a composite's guards are its parts' own sites
            # an action another's body runs as part of itself (end_step's passes) is that action's run, not its own
            out += [g for g in guard_terms(ts, act.name, "@sites").sites if g.action == act.name]
    return tuple(out)


@functools.lru_cache(maxsize=4)
def _runners(rules_json: str) -> dict[str, tuple[str, ...]]:
    """For each action, the other actions whose bodies run it as part of themselves (end_step runs pass twice):
    a mutant of its body changes their steps too."""
    from duelcheck.model.system import TransitionSystem

    ts = TransitionSystem(Rules(**json.loads(rules_json)))
    out: dict[str, list[str]] = {}
    for act in R.ACTIONS:
        if act.parts is None:
            for inner in dict.fromkeys(g.action for g in guard_terms(ts, act.name, "@runs").sites):
                if inner != act.name:
                    out.setdefault(inner, []).append(act.name)
    return {name: tuple(runs) for name, runs in out.items()}


def guard_sites(rules: Rules | None = None) -> list[GuardSite]:
    """Every `require` call site of every action, in the order of the actions and of the calls."""
    rules = rules or Rules()
    return list(_sites(json.dumps(rules.model_dump(), sort_keys=True)))


@dataclass(frozen=True)
class WriteSite:
    """A line of the rules' source that writes a field in an action's body: its place among that body's writing
    lines (in the order first reached), the line (file:line), the field, and whether the field is per player."""

    action: str
    index: int
    line: str
    field: str
    player: bool

    @property
    def words(self) -> str:
        return f"{self.field} ({self.line})"


@functools.lru_cache(maxsize=4)
def _write_sites(rules_json: str) -> tuple[WriteSite, ...]:
    from duelcheck.model.system import TransitionSystem

    ts = TransitionSystem(Rules(**json.loads(rules_json)))
    out: list[WriteSite] = []
    for act in R.ACTIONS:
        if act.parts is not None:
            continue
        pre = ts.sym_state("@writes")
        hook = MutationHook(record=True)
        with hooked(hook):
            n = pre.edit()
            with S.action_body(act.name):
                act.body(pre, R.Params({name: PARAMS[name].z3var("@writes") for name in act.params}), n)
        assert hook.writes is not None
        first: dict[str, tuple[str, bool]] = {}
        for action, line, name, player in hook.writes:
            if action == act.name:  # the writes of an action its body runs (end_step's passes) are that one's
                first.setdefault(line, (name, player))
        out += [WriteSite(act.name, i, line, f, p) for i, (line, (f, p)) in enumerate(first.items())]
    return tuple(out)


def write_sites(rules: Rules | None = None) -> list[WriteSite]:
    """Every line that writes in every action's body, in the order of the actions and of first reaching."""
    rules = rules or Rules()
    return list(_write_sites(json.dumps(rules.model_dump(), sort_keys=True)))


# ------------------------------------------------------------------------------------ the comparison sites

# a comparison's boundary twin: the off-by-one and the inverted test a rule's author could write instead
TWIN: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
}
SYMBOL = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


@dataclass(frozen=True)
class CompareSite:
    """A comparison in a function of model/rules.py that an action's body runs: the function, its place among
    the function's comparisons (from 0, in source order; each operator of a chained comparison its own), the
    line (file:line), the comparison's source, and its operator."""

    function: str
    index: int
    line: str
    text: str
    op: str
    scored: bool = True  # False inside a guard that bounds the model's encoding (model range, model catalogue)

    @property
    def twin(self) -> str:
        return SYMBOL[TWIN[next(k for k, v in SYMBOL.items() if v == self.op)]]

    @property
    def words(self) -> str:
        return f"`{self.text}` with {self.op} read as {self.twin} ({self.line})"


def _rules_tree() -> ast.Module:
    return ast.parse(inspect.getsource(R), R.__file__)


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}


def _comparisons(fn: ast.FunctionDef) -> list[tuple[ast.Compare, int]]:
    """The comparison operators of a function with a boundary twin, in source order (and, within a chained
    comparison, left to right)."""
    nodes = sorted((n for n in ast.walk(fn) if isinstance(n, ast.Compare)), key=lambda n: (n.lineno, n.col_offset))
    return [(n, j) for n in nodes for j, op in enumerate(n.ops) if type(op) in TWIN]


def _callees(fn: ast.FunctionDef, functions: dict[str, ast.FunctionDef]) -> set[str]:
    body = ast.Module(body=fn.body, type_ignores=[])  # not the decorator (the action's registration)
    names = [n for n in ast.walk(body) if isinstance(n, ast.Name) and n.id in functions and n.id != fn.name]
    # a guard's reason computed for the judge (`n.require(cond, duel_over)`) words a refusal; it is no rule
    reasons = {
        id(call.args[1])
        for call in ast.walk(body)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "require"
        if len(call.args) > 1
    }
    return {n.id for n in names if id(n) not in reasons}


@functools.lru_cache(maxsize=1)
def _rule_functions() -> dict[str, tuple[str, ...]]:
    """The functions of model/rules.py each action's body runs (the body and what it calls, by name): the rules.
    The actions' candidate enumerations (which parameters the concrete interpreter tries) are the model's
    encoding, not a rule, and are left out unless a body calls them too."""
    functions = _functions(_rules_tree())
    out: dict[str, tuple[str, ...]] = {}
    for act in R.ACTIONS:
        if act.parts is not None or act.body.__name__ not in functions:
            continue
        seen: list[str] = []
        todo = [act.body.__name__]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.append(name)
            todo += sorted(_callees(functions[name], functions) - set(seen), reverse=True)
        out[act.name] = tuple(seen)
    return out


@functools.lru_cache(maxsize=1)
def _compare_sites() -> tuple[CompareSite, ...]:
    lines = inspect.getsource(R).encode().splitlines()  # ast's offsets are in bytes, its lines 1-based
    functions = _functions(_rules_tree())
    reached = {name for names in _rule_functions().values() for name in names}
    path = Path(R.__file__).name
    out: list[CompareSite] = []
    for name, fn in functions.items():
        if name not in reached:
            continue
        bounds = {  # the comparisons of a guard whose reason says it bounds the model's encoding
            id(n)
            for call in ast.walk(fn)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "require"
            if len(call.args) > 1 and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str)
            if call.args[1].value.startswith(EXCLUDED_PREFIXES)
            for n in ast.walk(call.args[0])
        }
        for i, (node, j) in enumerate(_comparisons(fn)):
            first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
            chunk = [lines[first][node.col_offset :], *lines[first + 1 : last + 1]]
            if last > first:
                chunk[-1] = chunk[-1][: node.end_col_offset]
            else:
                chunk[0] = lines[first][node.col_offset : node.end_col_offset]
            words = " ".join(b" ".join(chunk).decode().split())
            out.append(
                CompareSite(name, i, f"{path}:{node.lineno}", words, SYMBOL[type(node.ops[j])], id(node) not in bounds)
            )
    return tuple(out)


def compare_sites() -> list[CompareSite]:
    """Every comparison with a boundary twin in the functions the actions' bodies run, function by function in
    the order of the source."""
    return list(_compare_sites())


def compare_mutated(function: str, index: int) -> Callable[..., Any]:
    """The function of model/rules.py with its `index`-th comparison's operator replaced by its twin: compiled
    from the module's source with the module's globals, so that it calls the rules as they stand."""
    import __future__

    tree = _rules_tree()
    fn = _functions(tree)[function]
    sites = _comparisons(fn)
    if not 0 <= index < len(sites):
        raise InternalError(f"{function}: no comparison {index} (it has {len(sites)})")
    node, j = sites[index]
    node.ops[j] = TWIN[type(node.ops[j])]()
    fn.decorator_list = []  # an action's registration is not run again: `compare_swapped` puts it in place
    code = compile(
        ast.Module(body=[fn], type_ignores=[]), R.__file__, "exec", __future__.annotations.compiler_flag, True
    )
    space: dict[str, Any] = {}
    exec(code, vars(R), space)  # defines the function (globals: the module's own), nothing else
    return space[function]


# ------------------------------------------------------------------------------------------------ mutants


@dataclass(frozen=True)
class Mutant:
    """One mutant: `drop:ACTION:POSITION`, `negate:ACTION:POSITION`, `write:ACTION:POSITION`,
    `swap:ACTION:POSITION` or `semantic:NAME` (the replacement's)."""

    id: str
    kind: str
    action: str
    index: int  # the call site's position; -1 for a semantic mutant
    reason: str  # the guard's reason (a write: the field and the line; a semantic mutant: what it models)
    scored: bool
    line: str = ""  # a write mutant's line of the rules' source (file:line)

    @property
    def models(self) -> str:
        """What the mutant models, in words."""
        if self.kind == "drop":
            return f"{self.action} without the rule: {self.reason}"
        if self.kind == "negate":
            return f"{self.action} with the rule stated backwards: {self.reason}"
        if self.kind == "write":
            return f"{self.action} without its write to {self.reason}"
        if self.kind == "swap":
            return f"{self.action} writing {self.reason} for the other player"
        if self.kind == "compare":
            return f"{self.action} with {self.reason}"
        return self.reason

    @property
    def digest(self) -> str:
        """What a stored result depends on besides the model version: the site's reason, or the semantic
        mutant's source (a result stored for another text is run again)."""
        text = self.id + "\n" + self.reason
        if self.kind == "semantic":
            text += "\n" + inspect.getsource(SEMANTIC_BY_NAME[self.id.split(":", 1)[1]].replacement)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "action": self.action,
            "position": None if self.index < 0 else self.index,
            "reason": self.reason,
            "scored": self.scored,
            "models": self.models,
            **({"line": self.line} if self.line else {}),
        }


def all_mutants(rules: Rules | None = None) -> list[Mutant]:
    """Every mutant, in a fixed order: the drop mutants action by action, then the negated ones, the dropped
    writes, the swapped ones, then the semantic catalogue."""
    sites = guard_sites(rules)
    out = [Mutant(f"drop:{g.action}:{g.index}", "drop", g.action, g.index, g.reason, g.scored) for g in sites]
    out += [Mutant(f"negate:{g.action}:{g.index}", "negate", g.action, g.index, g.reason, g.scored) for g in sites]
    writes = write_sites(rules)
    out += [Mutant(f"write:{w.action}:{w.index}", "write", w.action, w.index, w.words, True, w.line) for w in writes]
    out += [
        Mutant(f"swap:{w.action}:{w.index}", "swap", w.action, w.index, w.words, True, w.line)
        for w in writes
        if w.player
    ]
    out += [
        Mutant(f"compare:{c.function}:{c.index}", "compare", c.function, c.index, c.words, c.scored, c.line)
        for c in compare_sites()
    ]
    out += [Mutant(f"semantic:{m.name}", "semantic", m.action, -1, m.models, True) for m in SEMANTIC]
    return out


def select_mutants(
    only: str | None = None,
    kinds: tuple[str, ...] = KINDS,
    limit: int | None = None,
    rules: Rules | None = None,
    ids: tuple[str, ...] = (),
) -> tuple[list[Mutant], list[Mutant]]:
    """The mutants to run (scored, of the given kinds and action, the first `limit`; or those named by `ids`)
    and those excluded from scoring (model range and catalogue guards) among the same selection."""
    import difflib

    if ids:
        known = {m.id: m for m in all_mutants(rules)}
        for mid in ids:
            if mid not in known:
                close = difflib.get_close_matches(mid, list(known), n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]}?" if close else ""
                raise InputError(f"--mutant {mid}: no such mutant (ids as `duelcheck mutate` prints them){hint}")
        named = [known[mid] for mid in dict.fromkeys(ids)]
        return [m for m in named if m.scored], [m for m in named if not m.scored]

    if only is not None and only not in R.ACTION_BY_NAME:
        close = difflib.get_close_matches(only, list(R.ACTION_BY_NAME), n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}? " if close else ""
        raise InputError(f"--only {only}: no such action; {hint}expected one of {', '.join(R.ACTION_BY_NAME)}")
    for kind in kinds:
        if kind not in KINDS:
            raise InputError(f"--kind {kind}: expected one of {', '.join(KINDS)}")
    chosen = [m for m in all_mutants(rules) if m.kind in kinds and (only is None or _of_action(m, only))]
    scored = [m for m in chosen if m.scored]
    excluded = [m for m in chosen if not m.scored]
    return (scored if limit is None else scored[:limit]), excluded


def _of_action(m: Mutant, action: str) -> bool:
    """Whether a mutant changes the action (a comparison: in a function that action's body runs)."""
    return action in actions_of(m)


def actions_of(m: Mutant) -> list[str]:
    """The actions a mutant changes: its own and those whose bodies run it as part of themselves (end_step's
    passes), or, for a comparison, those whose body runs its function."""
    if m.kind == "compare":
        return [name for name, functions in _rule_functions().items() if m.action in functions]
    return [m.action, *_runners(json.dumps(Rules().model_dump(), sort_keys=True)).get(m.action, ())]


def mutant_by_id(mutant_id: str, rules: Rules | None = None) -> Mutant:
    for m in all_mutants(rules):
        if m.id == mutant_id:
            return m
    raise InputError(f"{mutant_id}: no such mutant")


@contextmanager
def activated(mutant: Mutant) -> Iterator[None]:
    """The mutant is the model while inside (in this process): a hook that changes one guard, or a rule
    swapped. Build transition systems inside: a system builds its relation once, when first asked."""
    if mutant.kind == "semantic":
        sem = SEMANTIC_BY_NAME[mutant.id.split(":", 1)[1]]
        with mutated(sem.rule, sem.replacement):
            yield
        return
    if mutant.kind == "compare":
        with compare_swapped(mutant.action, compare_mutated(mutant.action, mutant.index)):
            yield
        return
    if mutant.kind in ("write", "swap"):
        with hooked(MutationHook(WriteMutant(mutant.action, mutant.line, swap=mutant.kind == "swap"))):
            yield
        return
    with hooked(MutationHook(GuardMutant(mutant.action, mutant.index, negate=mutant.kind == "negate"))):
        yield


# ------------------------------------------------------------------------------------ equivalence (proved)


def lemma_checks(lemmas: Sequence[str | Check]) -> list[Check]:
    """The state checks of the named invariants (or the checks given), proved for all depths by the caller:
    facts of every reachable state."""
    from duelcheck.properties import BY_NAME

    out: list[Check] = []
    for lemma in lemmas:
        if isinstance(lemma, str):
            out += [c for c in BY_NAME[lemma].checks if c.on == "state"]
        elif lemma.on == "state":
            out.append(lemma)
    return out


def prove_lemmas(rules: Rules, cache: Path | None = None, suite: list[str] | None = None) -> list[str]:
    """The invariants proved for all depths under the rules as written (the whole suite, or `suite`: any
    subset is sound, it is proved assuming only its own members), from the proof cache when there."""
    from duelcheck.engines.kind import Induction
    from duelcheck.model.system import TransitionSystem
    from duelcheck.properties import BY_NAME, PROPERTIES

    if S.MUTATION is not None:
        raise InternalError("the lemmas are proved for the rules as written, with no mutant active")
    props = list(PROPERTIES) if suite is None else [BY_NAME[n] for n in suite]
    return sorted(Induction(TransitionSystem(rules), cache=cache).prove_suite(props))


def equivalence(
    rules: Rules, mutant: Mutant, lemmas: Sequence[str | Check], induction: bool = False
) -> tuple[str, str]:
    """Whether dropping the mutant's guard changes nothing: ("equivalent", why) when the other guards of its
    action imply it in every state meeting the lemmas (one solver question, unsat), ("not-equivalent", "") when
    the solver finds a state and parameters where they do not, ("unknown", why) when it gives no answer.

    The lemmas are invariants proved for all depths under the rules as written (names of the suite's, or
    state checks): then the mutant and the rules allow the same steps from every reachable state, so they
    reach the same states and are one transition system. Sound for any set of proved lemmas; fewer lemmas
    find fewer equivalences. With `induction`, a state the one-state question finds is not the last word: the
    dropped guard's twin (`_twin_unreachable`), or for any other mutant the state where its step differs
    (`same_steps`), is asked of induction; `run_mutant` asks that after the shortest kills were looked for."""
    from duelcheck.model.system import TransitionSystem

    if mutant.kind != "drop":
        return same_steps(rules, mutant, lemmas, induction)
    ts = TransitionSystem(rules)
    g = guard_terms(ts, mutant.action, "@eq")
    at = next((i for i, site in enumerate(g.sites) if (site.action, site.index) == (mutant.action, mutant.index)), -1)
    if at < 0 or g.sites[at].reason != mutant.reason:
        raise InternalError(f"{mutant.id}: the call site is not where it was enumerated")
    # implied by the other guards of its own run, from every state meeting the lemmas: so in every run of that
    # action, also one another action's body makes from a reachable state (end_step's passes)
    others = [t for i, t in enumerate(g.terms) if i != at]
    domains = [PARAMS[name].domain(var) for name, var in g.params.items()]
    facts = [f for c in lemma_checks(lemmas) for f in [c.eval(None, None, g.pre)] if not isinstance(f, bool)]

    def implied(assume: list[Any]) -> Any:
        solver = z3.SolverFor("QF_BV")
        solver.set("rlimit", EQUIVALENCE_RLIMIT)
        solver.add(*assume, *domains, *others, z3.Not(g.terms[at]))
        return solver.check()

    answer = implied(facts)
    if answer == z3.sat:
        # a state meeting the lemmas where it matters: whether a reachable one has it, asked of induction
        if induction and _twin_unreachable(ts, g, at, mutant.id, lemmas):
            return "equivalent", (
                f"a dead rule: no reachable state has the other guards of {mutant.action} holding and this one "
                "failing (proved for all depths by induction)"
            )
        return "not-equivalent", ""
    if answer != z3.unsat:
        return "unknown", "the equivalence question was not settled within the solver's resource limit"
    if not facts or implied([]) == z3.unsat:
        return "equivalent", f"a rule stated twice: the other guards of {mutant.action} imply it on their own"
    return "equivalent", (
        f"a dead rule: the other guards of {mutant.action} imply it in every state meeting the {len(lemmas)} "
        "invariants proved for all depths"
    )


def _twin_unreachable(ts: Any, g: GuardTerms, at: int, name: str, lemmas: Sequence[str | Check]) -> bool:
    """Whether no reachable state has guard `at`'s twin (the other guards holding, this one failing), proved for
    all depths by induction (engines/kind.py `prove_negation`: on its own, with the lemmas, then k-induction):
    where the one-state question finds a state meeting the lemmas, induction may still show that no play makes
    it (a discard with the duel won: the discard needs the End Phase, reached only while the duel goes on).
    The lemmas are the suite's invariants named (proved under the rules as written by the caller); with checks
    given instead, no induction is asked. Fixed resource limits, no clock."""
    return _unreachable(ts, twin_check(ts, g.pre, g.params, g.terms, at, name), lemmas)


def _unreachable(ts: Any, check: Check, lemmas: Sequence[str | Check]) -> bool:
    """Whether no reachable state meets the state witness `check`, proved for all depths by induction
    (engines/kind.py `prove_negation`), the lemmas (the suite's invariants named, proved under the rules as
    written by the caller) taken as proved; with checks given instead, no induction is asked."""
    from duelcheck.engines.kind import Induction
    from duelcheck.properties import BY_NAME

    names = [x for x in lemmas if isinstance(x, str)]
    if not names or len(names) != len(lemmas):
        return False
    suite = [BY_NAME[x] for x in names if BY_NAME[x].kind == "always"]
    induction = Induction(ts)
    induction._suite, induction.proved = suite, set(names)  # proved already: not proved again
    return bool(induction.prove_negation(check, suite))


def _one_step(ts: Any, name: str, pre: Any, pvars: dict[str, Any]) -> tuple[Any, dict[Any, Any]]:
    """An action's guard and the game state it makes from `pre`, symbolically, as the transition relation
    builds them (the same run of the mutation hook)."""
    act = R.ACTION_BY_NAME[name]
    n = pre.edit()
    with S.action_body(name):
        act.body(pre, R.Params({p: pvars[p] for p in act.params}), n)
    return n.guard(), {key: n.v[key] for key in ts.game_keys}


def _differs(a: Any, b: Any) -> Any:
    if a is b:
        return False
    d = a != b
    return z3.BoolVal(d) if isinstance(d, bool) else d


def same_steps(rules: Rules, mutant: Mutant, lemmas: Sequence[str | Check], induction: bool = False) -> tuple[str, str]:
    """Whether any mutant changes nothing reachable: for each action it changes, in every state meeting the
    lemmas and for every parameter, the mutant allows the step exactly when the rules do and makes the same game
    state (one solver question per action; unsat for all is `equivalent`). Then the mutant and the rules are
    one transition system from every reachable state (the property layer's history follows the action and the
    state made), so no property can tell them apart: the mutated place is dead code where the rules reach it (a
    write of the value the field already holds, a comparison whose boundary no reachable state meets).
    ("not-equivalent", "") when the solver finds a state where they differ, ("unknown", why) without an answer.
    With `induction`, a state the solver finds is not the last word: where induction proves that no reachable
    state has the step differ (engines/kind.py `prove_negation`, fixed resource limits), that action is the same
    too (measured: a dead write of `trigger` proved in 7 s; 6 to 9 s to give up on a mutant that is not
    equivalent, hence asked only of the mutants the engines did not kill, `run_mutant`)."""
    from duelcheck.model.system import TransitionSystem

    ts = TransitionSystem(rules)
    pre = ts.sym_state("@same")
    pvars = {name: spec.z3var("@same") for name, spec in PARAMS.items()}
    facts = [f for c in lemma_checks(lemmas) for f in [c.eval(None, None, pre)] if not isinstance(f, bool)]
    domains = [spec.domain(pvars[name]) for name, spec in PARAMS.items()]
    names = [a.name for a in R.ACTIONS if a.parts is None]
    if mutant.kind != "semantic":
        names = [name for name in names if name in actions_of(mutant)]
    by_induction: list[str] = []  # the actions whose difference only unreachable states have
    for name in names:
        try:
            g, post = _one_step(ts, name, pre, pvars)
            with activated(mutant):
                gm, postm = _one_step(ts, name, pre, pvars)
        except (InternalError, IndexError, KeyError) as exc:
            return "unknown", one_line(f"{name} could not be built under the mutant: {exc}")
        changed = z3.Or(*(_differs(post[key], postm[key]) for key in ts.game_keys))
        solver = z3.SolverFor("QF_BV")
        solver.set("rlimit", EQUIVALENCE_RLIMIT)
        differs = z3.Or(_differs(g, gm), z3.And(g, changed))
        solver.add(*facts, *domains, differs)
        answer = solver.check()
        if answer == z3.sat:
            # a state meeting the lemmas where the step differs: whether a reachable one has it, asked of
            # induction (as for a dropped guard, `_twin_unreachable`)
            if induction and _unreachable(ts, state_witness(ts, pre, pvars, differs, f"{mutant.id} differs"), lemmas):
                by_induction.append(name)
                continue
            return "not-equivalent", ""
        if answer != z3.unsat:
            return "unknown", f"the equivalence question of {name} was not settled within the solver's resource limit"
    where = f"every state meeting the {len(lemmas)} invariants proved for all depths" if facts else "every state"
    if by_induction:
        return "equivalent", (
            f"dead code: no reachable state has {', '.join(by_induction)} step otherwise under the mutant (proved "
            "for all depths by induction)"
            + (
                f"; in {where}, {', '.join(n for n in names if n not in by_induction)} the same"
                if len(names) > len(by_induction)
                else ""
            )
        )
    return "equivalent", (
        f"dead code: in {where}, {', '.join(names)} allow the same steps with the same result under the mutant"
    )


# ------------------------------------------------------------------------------------------------- killing


def baseline(
    rules: Rules, depth: int, lemmas: list[str], solver: str = "auto", beyond: int = 0
) -> tuple[dict[str, int], dict[str, Play], dict[str, Play]]:
    """The witnesses the rules as written reach within the bound, each with its minimal length, and the play
    that reaches it (bounded model checking with the proved invariants as lemmas); and the plays of the
    witnesses the same search reaches in up to `beyond` steps more (the last stage's starting points and the
    deep witnesses a mutant may provably lose, never witnesses a mutant must reach within the bound)."""
    from duelcheck.engines.bmc import BMC
    from duelcheck.model.system import TransitionSystem
    from duelcheck.properties import PROPERTIES

    if S.MUTATION is not None:
        raise InternalError("the baseline is the rules as written, with no mutant active")
    witnesses = [p for p in PROPERTIES if p.kind == "sometimes"]
    bmc = BMC(TransitionSystem(rules), solver, None, lemma_checks(lemmas), None, 1, together=True)
    results = [r for r in bmc.run(witnesses, depth + beyond) if r.verdict == "found" and r.length is not None]
    plays = {r.label: [(st.action, dict(st.params)) for st in r.trace.steps[1:]] for r in results if r.trace}
    within = {r.label: r.length for r in results if r.length is not None and r.length <= depth}
    return (
        within,
        {label: play for label, play in plays.items() if label in within},
        {label: play for label, play in plays.items() if label not in within},
    )


def deep_plays(rules: Rules, found: dict[str, int]) -> dict[str, Play]:
    """The witnesses beyond the bound, each by a play of the rules as written: seeded simulation, the play
    shortened by delta debugging (as `duelcheck check` finds them). Starting points of the last stage's search,
    never witnesses a mutant must reach (that needs the bounded search's verdict)."""
    from duelcheck.engines.shrink import shrink
    from duelcheck.engines.sim import Simulator
    from duelcheck.model.system import TransitionSystem
    from duelcheck.properties import PROPERTIES

    if S.MUTATION is not None:
        raise InternalError("the deep plays are the rules as written, with no mutant active")
    ts = TransitionSystem(rules)
    missing = [
        (label, c)
        for p in PROPERTIES
        if p.kind == "sometimes"
        for c in p.checks
        for label in [f"{p.name}[{c.label}]" if c.label else p.name]
        if label not in found
    ]
    # one simulation for all of them (its walks do not depend on what is looked for)
    traces = Simulator(ts).search([c for _, c in missing]) if missing else {}
    out: dict[str, Play] = {}
    for i, trace in sorted(traces.items()):
        label, c = missing[i]
        out[label] = [(st.action, dict(st.params)) for st in shrink(ts, c, trace).steps[1:]]
    return out


class _Enough(Exception):
    """The first depth with a violation has been searched: the probe stops."""


def _probe(ts: Any, invariants: list[Any], bound: int, solver: str, deadline: float | None) -> list[Any]:
    """Stage 1: the violations of the invariants at the first depth (up to `bound`) that has any; when there is
    none, every invariant's result (holds up to the bound, or unknown where the solver gave no answer)."""
    from duelcheck.engines.bmc import BMC

    kills: list[Any] = []

    def heard(r: Any) -> None:
        if r.verdict == "violated":
            kills.append(r)

    def events(kind: str, data: Any) -> None:
        if kind == "depth" and kills:  # the next depth begins: every violation at the last one is in
            raise _Enough

    try:
        results = BMC(ts, solver, None, [], deadline, 1, together=True).run(invariants, bound, events, heard)
    except _Enough:
        return kills
    return results


def _first(r: Any) -> tuple[int, bool, str]:
    """The kill to name: the shortest trace, a property of the rules before the model's structural facts."""
    return (r.length or 0, r.prop == "well-formed", r.label)


def _certified(ts: Any, r: Any) -> bool:
    """A violation's trace replays under the mutant and violates its check there (as the checker certifies)."""
    from duelcheck.counterexamples.certify import certify
    from duelcheck.properties import BY_NAME

    prop = BY_NAME[r.prop]
    check = next(c for c in prop.checks if c.label == r.case)
    certify(ts, check, r.trace, False)
    return prop.certify is None or bool(prop.certify(ts, r.trace.steps[-1].state))


def _witnesses(found: dict[str, int]) -> list[Any]:
    """The witness properties, each cut down to the cases the baseline reached."""
    from duelcheck.properties import PROPERTIES

    out = []
    for p in PROPERTIES:
        if p.kind != "sometimes":
            continue
        checks = tuple(c for c in p.checks if (f"{p.name}[{c.label}]" if c.label else p.name) in found)
        if checks:
            out.append(dataclasses.replace(p, checks=checks))
    return out


def _witness_stage(
    ts: Any, found: dict[str, int], plays: dict[str, Play], depth: int, solver: str, deadline: float | None
) -> list[Any]:
    """Stage 2's witnesses under the mutant. Each is first replayed from the baseline's play: one that play
    still reaches within the bound is reached (a play exists, so no search could lose it). The others are
    searched, one property at a time (its cases the play no longer reaches), the shortest in the baseline
    first, each on a solver of its own; the first witness lost (refuted at every depth, or unreachable) ends
    the stage: the mutant is killed."""
    out, todo = _witness_replays(ts, found, plays, depth)
    return out + _witness_search(ts, todo, found, depth, solver, deadline)


def _witness_replays(ts: Any, found: dict[str, int], plays: dict[str, Play], depth: int) -> tuple[list[Any], list[Any]]:
    """The witnesses the baseline's plays still reach under the mutant (found), and the properties cut down to
    the cases whose play breaks (to search)."""
    from duelcheck.engines.base import Result, Trace
    from duelcheck.engines.shrink import reaches
    from duelcheck.model.system import Step

    out: list[Any] = []
    todo = []
    for p in _witnesses(found):
        left = []
        for c in p.checks:
            label = f"{p.name}[{c.label}]" if c.label else p.name
            steps = reaches(ts, c, ts.init(), plays[label]) if label in plays else None
            if steps is None:
                left.append(c)
                continue
            trace = Trace([Step("init", {}, ts.init()), *steps])  # the interpreter's own states, replayed above
            note = "the baseline's play still reaches it under the mutant"
            out.append(Result(p.name, c.label, "sometimes", "found", depth, 0.0, "replay", trace, note))
        if left:
            todo.append(dataclasses.replace(p, checks=tuple(left)))
    return out, todo


def _witness_search(
    ts: Any, todo: list[Any], found: dict[str, int], depth: int, solver: str, deadline: float | None
) -> list[Any]:
    """The witnesses whose play broke, searched one property at a time, the shortest in the baseline first; the
    first one lost ends the search."""
    from duelcheck.engines.bmc import BMC

    out: list[Any] = []
    labels = {p.name: [f"{p.name}[{c.label}]" if c.label else p.name for c in p.checks] for p in todo}
    for p in sorted(todo, key=lambda p: (min(found[label] for label in labels[p.name]), p.name)):
        results = BMC(ts, solver, None, [], deadline, 1).run([p], depth)
        out += results
        if any(r.verdict in ("not-found", "unreachable") for r in results):
            break
    return out


def _lost_beyond(ts: Any, found: dict[str, int], deep: dict[str, Play], deadline: float | None) -> list[Any]:
    """The witnesses the rules reach only beyond the bound (by the plays of `deep`) that the mutant provably
    loses: the play breaks under the mutant, and induction under the mutant proves the witness's negation for
    all depths on its own (it holds at the start and after every first step, and no step from a state where
    it holds reaches the witness: the question `duelcheck check` asks of a witness before its search; no
    invariant of the rules is assumed, since the mutant may break them). Each is an `unreachable` result; the
    time limit striking first ends the list with an `unknown` one."""
    from duelcheck.engines.base import Result
    from duelcheck.engines.kind import Induction
    from duelcheck.engines.shrink import reaches
    from duelcheck.engines.smt import Stopped
    from duelcheck.properties import PROPERTIES

    broken = [
        (p, c, label)
        for p in PROPERTIES
        if p.kind == "sometimes"
        for c in p.checks
        for label in [f"{p.name}[{c.label}]" if c.label else p.name]
        if label not in found and label in deep and reaches(ts, c, ts.init(), deep[label]) is None
    ]
    induction = Induction(ts, deadline=deadline)
    out = []
    for p, c, label in broken:
        try:
            gone = induction.unreachable_at_once(c)
        except Stopped:  # the time limit: this witness (and the rest) undecided, never lost nor kept
            note = "the time limit struck while its negation was asked of induction under the mutant"
            bound = len(deep[label])
            out.append(Result(p.name, c.label, "sometimes", "unknown", bound, 0.0, "k-induction", None, note))
            break
        if gone:
            note = "its negation is proved for all depths under the mutant (induction)"
            lost = Result(p.name, c.label, "sometimes", "unreachable", len(deep[label]), 0.0, "k-induction", None, note)
            out.append(dataclasses.replace(lost, proved=True))
    return out


def _deep_stage(ts: Any, props: list[Any], plays: dict[str, Play], solver: str, deadline: float | None) -> Any:
    """Stage 4: bounded model checking of the invariants, `DEEP_DEPTH` steps from any state of the rules' own
    plays (the baseline's witnesses, also those found beyond the bound by simulation) replayed under the
    mutant: a violation that needs a deep setting-up (a duel won, an attack declared) and then a short
    divergence; first from the states of the rules' plays alone, then also from those of seeded random plays
    under the mutant (engines/sim.py's players: diverse deep states, a monster that attacks on a later turn than
    it arrived, a duel won). The first violation found, its trace the play to that state and the search's
    steps, replayed from the initial state, certified and shortened by delta debugging; not proved minimal.
    None when there is none (or no answer)."""
    for walks in (0, DEEP_WALKS):  # the short plays first: their violations have short traces
        found = _deep_search(ts, props, plays, walks, solver, deadline)
        if found is not None:
            return found
    return None


def _shortened(ts: Any, r: Any) -> Any:
    """A certified violation's trace shortened by delta debugging (engines/shrink.py), the violation read as a
    witness to reach; the shorter trace only if it is certified too."""
    from duelcheck.engines.kind import negation
    from duelcheck.engines.shrink import shrink
    from duelcheck.properties import BY_NAME

    check = next(c for c in BY_NAME[r.prop].checks if c.label == r.case)
    short = shrink(ts, dataclasses.replace(negation(check), kind="sometimes"), r.trace, DEEP_SHRINK)
    if len(short) < len(r.trace) and _certified(ts, dataclasses.replace(r, trace=short)):
        return short
    return r.trace


def _replay_violation(ts: Any, invariants: list[Any], plays: dict[str, Play]) -> Any:
    """The rules' own plays (the baseline's witnesses, and those beyond the bound) replayed under the mutant, each
    invariant checked concretely after every step (milliseconds): the first violation, certified, its trace the
    play up to there shortened by delta debugging; None when every step of every play keeps every invariant.
    A mutant that changes what a play the rules make does (an equal-ATK battle won by the attacker) is caught
    on the step where it does, without a search."""
    from duelcheck.engines.base import Result, Trace
    from duelcheck.model.system import Step
    from duelcheck.properties.catalog import ActionView

    checks = [(p, c) for p in invariants for c in p.checks]
    for label in sorted(plays):
        state = ts.init()
        steps = [Step("init", {}, state)]
        # each step as the fine steps it takes (a composite's parts, which a step check reads one by one)
        fine: list[Step | None] = [None]
        for move, given in plays[label]:
            parts = ts.expand(state, move, given)
            if not isinstance(parts, list):
                break  # refused under the mutant: the replay stops there
            fine += parts
            state = parts[-1].state
        state = steps[0].state
        for st in fine:
            pre = state
            act = None
            if st is not None:
                act, state = ActionView(st.action, st.params, symbolic=False), st.state
                steps.append(st)
            for p, c in checks:
                if c.on == "step" and act is None:
                    continue
                if c.eval(pre, act, state) if c.on == "step" else c.eval(None, None, state):
                    continue
                r = Result(p.name, c.label, "always", "violated", len(steps) - 1, 0.0, "replay", Trace(list(steps)))
                if not _certified(ts, r):
                    continue
                trace = _shortened(ts, r)
                note = (
                    f"found on the play reaching {label} replayed under the mutant, step {len(steps) - 1}; "
                    f"shortened to {len(trace)} by delta debugging; not proved minimal"
                )
                return dataclasses.replace(r, trace=trace, note=note)
    return None


def _deep_search(
    ts: Any, props: list[Any], plays: dict[str, Play], walks: int, solver: str, deadline: float | None
) -> Any:
    """`_deep_stage` from the states of the plays and of `walks` random plays."""
    from duelcheck.engines.base import Trace
    from duelcheck.engines.bmc import BMC
    from duelcheck.engines.sim import play_states

    starts, how = play_states(ts, plays, walks, DEEP_WALK_LENGTH, DEEP_SEED)
    if not starts or not props:
        return None
    results = BMC(ts, solver, None, [], deadline, 1, together=True).run(props, DEEP_DEPTH, start=starts)
    for r in sorted((r for r in results if r.verdict == "violated" and r.trace is not None), key=_first):
        tail = r.trace
        assert tail is not None
        label, before = next(
            (lab, steps) for st, (lab, steps) in zip(starts, how, strict=True) if st.v == tail.steps[0].state.v
        )
        trace = Trace([*before, *tail.steps[1:]])
        if not _certified(ts, dataclasses.replace(r, trace=trace)):
            continue
        found = len(trace)
        trace = _shortened(ts, dataclasses.replace(r, trace=trace))
        note = (
            f"found from step {len(before) - 1} of {label} under the mutant, {len(tail)} step(s) on, {found} steps "
            "in all; "
            f"shortened to {len(trace)} by delta debugging; not proved minimal"
        )
        return dataclasses.replace(r, trace=trace, minimal=False, note=note)
    return None


# ------------------------------------------------------------------------------ the seeded search (engines/seeded.py)


@dataclass
class Seeded:
    """What the seeded search needs of the rules as written: their system, where the mutant disagrees with it
    (made with the mutant in force for its side only), their proved lemmas, and the plays the rules make
    (label -> the steps under the rules, from the start), whose states the far search may start from."""

    rules_ts: Any
    dis: Any
    lemmas: list[Check]
    proved: set[str]
    plays: dict[str, list[Any]]
    facts: Callable[[Any], Any] | None = None  # the lemmas in any symbolic state, made with no mutant in force


def far_walks(rules: Rules) -> dict[str, Play]:
    """FAR_WALKS seeded random plays under the rules as written (engines/sim.py's lively players), each up to
    FAR_WALK_LENGTH steps or the end of the duel: deep and varied states (a duel far on, a deck nearly drawn, a
    duel won) for the far seeded search to start from. The same rules give the same plays: made once, in the
    preparation."""
    import random

    from duelcheck.engines.sim import CALM_LEVELS, Simulator
    from duelcheck.model.system import TransitionSystem

    if S.MUTATION is not None:
        raise InternalError("the far walks are the rules as written, with no mutant active")
    ts = TransitionSystem(rules)
    out: dict[str, Play] = {}
    for w in range(FAR_WALKS):
        sim = Simulator(ts, seed=w)
        sim.calm = CALM_LEVELS[w % len(CALM_LEVELS)]
        rng = random.Random(FAR_SEED + w)
        state = ts.init()
        moves: Play = []
        for _ in range(FAR_WALK_LENGTH):
            step = sim.choose(state, rng)
            if step is None:
                break
            moves.append((step.action, dict(step.params)))
            state = step.state
            if state.g("winner") != 0:
                break
        out[f"a seeded random play (seed {FAR_SEED + w})"] = moves
    return out


def seeded_setup(rules: Rules, ts: Any, mutant: Mutant, lemmas: Sequence[str], plays: dict[str, Play]) -> Seeded:
    """The rules' side of the seeded search, made before the mutant is put in force for the search (its own
    side of the disagreement is made with it in force here): the rules' system, the disagreement, the lemmas,
    and the plays (label -> moves: the baseline's, those beyond the bound, the far walks) replayed under the
    rules, each up to a step they refuse."""
    from duelcheck.engines.seeded import disagreement

    if S.MUTATION is not None:
        raise InternalError("the rules' side of the seeded search is made with no mutant active")
    from duelcheck.engines.goal import lemma_facts

    a, a_side, steps_of = _rules_side(rules.model_dump_json(), json.dumps(plays, sort_keys=True))
    dis = disagreement(a, ts, lambda: activated(mutant), a_side)
    checks = lemma_checks(lemmas)
    facts = lemma_facts(a, checks)
    facts(a.sym_state("@lemmas-made"))  # made now, with no mutant in force (a property may run rule bodies)
    return Seeded(a, dis, checks, set(lemmas), dict(steps_of), facts)


@functools.lru_cache(maxsize=2)
def _rules_side(rules_json: str, plays_json: str) -> tuple[Any, Any, dict[str, list[Any]]]:
    """What `seeded_setup` makes of the rules alone, the same for every mutant: made once per process (a worker
    runs many mutants) and only with no mutant in force (the caller checks): the rules' system, its side of the
    disagreement, and the plays replayed under the rules, each up to a step they refuse."""
    from duelcheck.engines.seeded import template_effects
    from duelcheck.engines.sim import replay_prefix
    from duelcheck.model.system import TransitionSystem

    a = TransitionSystem(Rules.model_validate_json(rules_json))
    plays: dict[str, Play] = json.loads(plays_json)
    steps_of: dict[str, list[Any]] = {}
    for label in sorted(plays):
        steps = replay_prefix(a, [(name, params) for name, params in plays[label]])
        steps_of[label if label.startswith("a seeded") else f"the play reaching {label}"] = steps
    return a, template_effects(a), steps_of


def _agreeing_starts(ts: Any, seeded: Seeded, labels: list[str]) -> tuple[list[Any], list[list[Any]]]:
    """The states of these plays of the rules that the mutant reaches alike (each play replayed under the
    mutant up to its first step taken otherwise), each state once, with the play that reaches it."""
    starts: list[Any] = []
    how: list[list[Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for label in labels:
        steps = seeded.plays[label]
        state = ts.init()
        if state.v != steps[0].state.v:
            continue
        for i, st in enumerate(steps[1:], start=1):
            out = ts.apply(state, st.action, dict(st.params))
            if not out.ok or out.state is None or out.state.v != st.state.v:
                break
            state = out.state
            key = tuple(state.v[k] for k in ts.keys)
            if key not in seen:
                seen.add(key)
                starts.append(state)
                how.append(steps[: i + 1])
    return starts, how


def _rerooted(starts: list[Any], how: list[list[Any]], trace: Any) -> Any:
    """A trace of a search from one of `starts` as the play from the start of the duel: the play to its start
    (`how`, one per start), then its steps."""
    from duelcheck.engines.base import Trace

    i = next(i for i, st in enumerate(starts) if st.v == trace.steps[0].state.v)
    return Trace([*how[i], *trace.steps[1:]])


def _windows(
    starts: list[Any], how: list[list[Any]], stride: int, batch: int
) -> Iterator[tuple[list[Any], list[list[Any]]]]:
    """A play's states (and the plays to them) for the far search: every `stride`-th and the last, in searches
    of at most `batch` states (0: one search), the last states first."""
    keep = [i for i in range(len(starts)) if i % stride == 0 or i == len(starts) - 1]
    size = batch or len(keep) or 1
    for end in range(len(keep), 0, -size):
        part = keep[max(0, end - size) : end]
        yield [starts[i] for i in part], [how[i] for i in part]


class SeededKill(NamedTuple):
    """What `_seeded_kill` says: the certified violation found, or None; what the search said (unreached up to
    a depth, or why it gave no answer); and, from the start of the duel, the depth up to which every depth was
    refuted (0 when the search gave no such answer: a far search, a play found, no answer, a time limit)."""

    hit: Any
    note: str
    refuted: int = 0


def _seeded_kill(
    ts: Any,
    seeded: Seeded,
    invariants: list[Any],
    depth: int,
    after: int,
    solver: str,
    deadline: float | None,
    far: bool = False,
    stride: int = 1,
    batch: int = 0,
    confirm: Callable[[Any], bool] | None = None,
    refuted: int = 0,
) -> SeededKill:
    """The seeded search for a violation under the mutant (engines/seeded.py), from the start of the duel or
    (`far`) from the states of the rules' plays the mutant reaches alike: a certified `violated` result, or
    None; what the search said; and the depths it refuted from the start (`SeededKill`). `stride`: of each
    play's states only every stride-th (and its last); `batch`: at most this many states in one search, a
    play's last states first. `confirm`: the concrete word on a play found (the result, its trace from the
    start of the duel) in place of the violation's certificate; a far search's play is then not shortened.
    `refuted`: from the start, the depths up to this one were refuted by this search asked before (not asked
    again)."""
    from duelcheck.engines.base import Result
    from duelcheck.engines.seeded import seeded_search

    group: list[tuple[list[Any], list[list[Any]]]] = []  # the far search's starts and their plays, if any

    def whole(trace: Any) -> Any:
        """The play from the start of the duel: a far search's trace after the rules' play to its start."""
        return _rerooted(*group[-1], trace) if group else trace

    def certified(r: Any) -> bool:
        return confirm(r) if confirm is not None else _certified(ts, r)

    def accept(goal: Any, trace: Any) -> bool:
        r = Result(goal.prop.name, goal.check.label, "always", "violated", depth, 0.0, "seeded", whole(trace))
        try:
            return certified(r)
        except InternalError:
            return False

    search = functools.partial(
        seeded_search, seeded.rules_ts, ts, seeded.dis, seeded.lemmas, invariants, depth, after, solver, deadline,
        accept, seeded.proved,
    )  # fmt: skip
    if not far:
        got = search(refuted=refuted)
        if got.status == "unreached":
            return SeededKill(None, f"unreached up to {got.depth}", got.depth)
        if got.status != "reached" or got.goal is None or got.trace is None:
            return SeededKill(None, got.note or f"{got.status} up to {got.depth}")
        trace = got.trace
    else:
        # the short plays' states in one search, each long play's on its own (measured: one search from 1,800
        # states took minutes at depth 5, where one play's 285 took a second or two)
        short = [label for label in sorted(seeded.plays) if len(seeded.plays[label]) <= FAR_SHORT]
        long_ = sorted(
            (label for label in seeded.plays if len(seeded.plays[label]) > FAR_SHORT),
            key=lambda x: (len(seeded.plays[x]), x),
        )
        groups = [_agreeing_starts(ts, seeded, labels) for labels in ([short] if short else []) + [[x] for x in long_]]
        for starts, how in (chunk for play in groups for chunk in _windows(*play, stride, batch)):
            if not starts:
                continue
            group.append((starts, how))
            got = search(starts)
            if got.status == "unknown":
                return SeededKill(None, got.note)
            if got.status == "reached" and got.goal is not None and got.trace is not None:
                break
        else:
            return SeededKill(None, f"unreached up to {depth} steps from the states of the rules' plays")
        trace = whole(got.trace)
        where = f"from step {len(trace) - got.depth} of a play the rules make"
    tail = "its last step" if after == 0 else f"one of its last {after + 1} steps"
    r = Result(got.goal.prop.name, got.goal.check.label, "always", "violated", depth, 0.0, "seeded", trace)
    if not certified(r):
        return SeededKill(None, "the play found is not confirmed by the concrete interpreter")
    if far and confirm is not None:
        note = f"{where}, {got.depth} step(s) on"
        return SeededKill(dataclasses.replace(r, note=note, minimal=False), "")
    if not far:
        note = (
            f"seeded search from the start of the duel: steps of the rules, which the mutant takes alike, and "
            f"at {tail} the first step the mutant takes otherwise; the shortest such play (every shorter one "
            "refuted)"
        )
    else:
        found = len(trace)
        trace = _shortened(ts, dataclasses.replace(r, trace=trace))
        note = (
            f"seeded search {where} (its steps taken alike by the mutant), {got.depth} step(s) on, the last the "
            f"first the mutant takes otherwise; {found} steps in all, shortened to {len(trace)} by delta "
            "debugging; not proved minimal"
        )
    return SeededKill(dataclasses.replace(r, trace=trace, note=note, minimal=False), "")


def _term_like(value: Any, like: Any) -> Any:
    """A value as a solver term of the sort of `like` (a state cell or parameter may be a plain number)."""
    if isinstance(value, z3.ExprRef):
        return value
    return z3.BoolVal(bool(value)) if z3.is_bool(like) else z3.BitVecVal(int(value), like.sort())


def refused_step(rules: Rules, action: str, index: int) -> Any:
    """An invariant of the rules as written: no step of `action` is taken with its conjunct `index` failing (the
    rules refuse it). Under that conjunct's dropped-guard mutant, a step that violates it is the first the mutant
    takes otherwise: the action allowed with the guard gone and refused by the rules, every other conjunct
    holding and that one failing: the guard's twin. Symbolic only (the seeded search's goal)."""
    from duelcheck.model.system import TransitionSystem
    from duelcheck.properties.catalog import Property

    a_ts = TransitionSystem(rules)
    g = guard_terms(a_ts, action, "@refused")
    term = g.terms[index]

    def fn(s: Any, a: Any, t: Any) -> Any:
        pairs = [(g.pre.v[key], _term_like(s.v[key], g.pre.v[key])) for key in a_ts.keys]
        pairs += [(g.params[name], _term_like(a.p(name), g.params[name])) for name in g.params]
        pairs = [(x, y) for x, y in pairs if z3.is_const(x) and not x.eq(y)]
        fails = z3.Not(z3.substitute(term, *pairs) if pairs else term)
        return s.k.not_(s.k.and_(a.is_(action), fails))

    check = Check("", "step", fn, "always")
    return Property(f"{action} refused for its conjunct {index}", "always", "", "", (check,))


def first_divergence(
    rules: Rules,
    mutant: Mutant,
    lemmas: Sequence[str],
    plays: dict[str, Play],
    confirm: Callable[[Any], bool],
    depth: int,
    solver: str = "auto",
    deadline: float | None = None,
) -> tuple[Any, str]:
    """A play of the rules as written, then the first step a dropped guard's mutant takes otherwise (its action
    with that guard failing: `refused_step`), found by the seeded search: from the start of the duel up to
    `depth` steps (the shortest such play: every shorter one refuted), else the wide search (`WIDE_DEPTH` steps
    on from every `WIDE_STRIDE`-th state of `plays`, the rules' plays, label -> moves). `confirm` is the
    caller's concrete word on a play found (the result, its trace from the start of the duel). Returns the
    result (its `minimal` True from the start) and "", or None and what the searches said. The boards' twins
    still missing are found so (engines/boards.py)."""
    from duelcheck.model.system import TransitionSystem

    if mutant.kind != "drop":
        raise InternalError(f"{mutant.id}: the first divergence is asked of a dropped guard's mutant")
    ts = TransitionSystem(rules)  # its relation is made with the mutant in force, when first asked for
    goal = refused_step(rules, mutant.action, mutant.index)
    seeded = seeded_setup(rules, ts, mutant, lemmas, plays)
    # an invariant of the rules: the search asks its violation at a step where the mutant and the rules disagree
    seeded = dataclasses.replace(seeded, proved=seeded.proved | {goal.name})
    with activated(mutant):
        r, why, _ = _seeded_kill(ts, seeded, [goal], depth, 0, solver, deadline, confirm=confirm)
        if r is not None:
            return dataclasses.replace(r, minimal=True), ""
        r, wide, _ = _seeded_kill(
            ts, seeded, [goal], WIDE_DEPTH, 0, solver, deadline, True, WIDE_STRIDE, WIDE_BATCH, confirm=confirm
        )
    return (r, "") if r is not None else (None, f"from the start: {why}; the wide search: {wide}")


def _goal_kill(ts: Any, seeded: Seeded, invariants: list[Any], solver: str, deadline: float | None) -> Any:
    """The goal-directed search (engines/goal.py) for a violation under the mutant that needs a deep setting-up:
    goals asked of the solver (a state meeting the lemmas from which a step of an action the mutant changes
    breaks an invariant, cut down to the few cells that matter), each searched concretely from the start of the
    duel, then by the seeded search `FAR_DEPTH` steps on from the states nearest it (the last steps of a
    setting-up). A certified `violated` result, shortened by delta debugging, None, or "stopped" (the time
    limit struck first)."""
    from duelcheck.engines.base import Result
    from duelcheck.engines.goal import GoalQuestions, goal_search
    from duelcheck.engines.seeded import seeded_search

    if seeded.facts is None or not seeded.dis.actions:
        return None

    def accept(prop: str, case: str, trace: Any) -> bool:
        try:
            return _certified(ts, Result(prop, case, "always", "violated", len(trace), 0.0, "goal", trace))
        except InternalError:
            return False

    def onward(plays: list[list[Any]]) -> tuple[str, str, Any] | None:
        starts: list[Any] = []
        how: list[list[Any]] = []
        for play in plays:
            if all(play[-1].state.v != st.v for st in starts):
                starts.append(play[-1].state)
                how.append(play)

        def whole(trace: Any) -> Any:
            return _rerooted(starts, how, trace)

        got = seeded_search(
            seeded.rules_ts, ts, seeded.dis, seeded.lemmas, invariants, FAR_DEPTH, 0, solver, deadline,
            lambda g, t: accept(g.prop.name, g.check.label, whole(t)), seeded.proved, starts,
        )  # fmt: skip
        if got.status != "reached" or got.goal is None or got.trace is None:
            return None
        return got.goal.prop.name, got.goal.check.label, whole(got.trace)

    # the reference states: every REF_STRIDE-th state of the rules' plays the mutant takes alike, and their last
    refs: list[list[Any]] = []
    for label in sorted(seeded.plays):
        _, how = _agreeing_starts(ts, seeded, [label])
        refs += [how[i] for i in range(len(how)) if i % REF_STRIDE == REF_STRIDE - 1 or i == len(how) - 1]
    questions = GoalQuestions(ts, seeded.facts, invariants)
    got = goal_search(ts, questions, accept, seeded.dis.actions, deadline, onward, refs[:REFS])
    if got.status == "unknown":
        return "stopped"
    if got.status != "reached" or got.trace is None:
        return None
    r = Result(got.prop, got.case, "always", "violated", len(got.trace), 0.0, "goal", got.trace)
    found = len(got.trace)
    trace = _shortened(ts, r)
    onward_note = f"; {got.note}" if got.note else ""
    note = (
        f"goal-directed search: the solver's goal {got.goals[-1].text()}, searched from the start of the duel"
        f"{onward_note}: {found} steps, shortened to {len(trace)} by delta debugging; not proved minimal"
    )
    return dataclasses.replace(r, trace=trace, note=note, minimal=False)


HOOKED = ("drop", "negate", "write", "swap")  # mutants that change only their own action's body


def _suite(proved: Sequence[str | Any]) -> list[Any]:
    from duelcheck.properties import BY_NAME

    return [p for p in (BY_NAME[x] if isinstance(x, str) else x for x in proved) if p.kind == "always"]


def _terms(xs: list[Any]) -> list[Any]:
    return [z3.BoolVal(x) if isinstance(x, bool) else x for x in xs]


def proof_terms(rules: Rules, proved: Sequence[str | Any]) -> tuple[list[Any], list[Any]]:
    """The facts the rules' proof of `proved` assumes in a state and asks after a step, as the rules as written
    build them (no mutant active): what `still_inductive` compares a comparison mutant's with."""
    from duelcheck.engines.kind import Induction
    from duelcheck.model.system import TransitionSystem

    if S.MUTATION is not None:
        raise InternalError("the proof's terms are the rules as written, with no mutant active")
    props = _suite(proved)
    ind = Induction(TransitionSystem(rules))
    assume = ind._state_facts(props, {p.name for p in props})
    return _terms(assume), _terms([fact for p in props for fact in ind._goals(p)])


def read_by_properties(mutant: Mutant) -> bool:
    """Whether a property reads the enabledness of an action the mutant changes (no-deadlock runs the bodies of
    its progress actions as the system runs them, mutation hook included): then its facts change too."""
    from duelcheck.properties.catalog import PROGRESS

    return bool(set(actions_of(mutant)) & {name for name, _ in PROGRESS})


def still_inductive(
    ts: Any,
    mutant: Mutant,
    proved: Sequence[str | Any],
    deadline: float | None = None,
    original: tuple[list[Any], list[Any]] | None = None,
) -> str | None:
    """None when the invariants proved for the rules as written (`proved`) stay inductive under the mutant, so that
    each is proved for all depths under it; else the first reason they may not (a fact not settled, or a step
    that breaks one from a state meeting them all: perhaps unreachable, so no violation either).

    The rules' proof assumed the whole set in a state and showed every step keeps it. A mutant that changes one
    action's body (a guard or a write: the mutation hook acts inside that body alone, and in a property that
    reads that action's enabledness, as no-deadlock reads its progress actions') leaves every other action's
    steps as they were, so only its own steps are asked again, unless a property's facts changed with it (then
    as a comparison below): the initial state and first steps (the base case), then, for each turn player, every
    fact of the set after a step of that action from a state meeting the set, all at once on a fresh solver per
    case (split finer where it gives no answer, as engines/kind.py certifies its first layer). A comparison
    changes the actions whose bodies run its function, and whatever property reads that function (no-deadlock
    reads the actions' enabledness): with `original` (`proof_terms` of the rules), the other actions are asked
    again only the facts the mutant changed, and every action all of them if it changed an assumed fact. The
    actions a hooked mutant changes include those whose bodies run its action (end_step's passes). A hand-made
    bug: every action, every fact."""
    from duelcheck.engines.kind import Induction
    from duelcheck.engines.smt import SAT, UNSAT, solve_cases

    props = _suite(proved)
    ind = Induction(ts, deadline=deadline)
    for p in props:
        if not ind._base(p):
            return f"{p.name} fails in the initial state or the first step under the mutant"
    st = ind._st
    assume = _terms(ind._state_facts(props, {p.name for p in props}))
    goals = _terms([fact for p in props for fact in ind._goals(p)])
    everything = [a.name for a in ts.actions]
    changed, again = everything, []  # the actions asked every fact, and the facts every other action is asked
    if mutant.kind in HOOKED and not read_by_properties(mutant):
        changed = actions_of(mutant)
    elif mutant.kind in (*HOOKED, "compare") and original is not None:
        before, after = original
        if len(before) == len(assume) and all(map(z3.eq, before, assume)) and len(after) == len(goals):
            changed = actions_of(mutant)
            again = [g for g, o in zip(goals, after, strict=True) if not z3.eq(g, o)]

    def settled(code: int, case: list[Any], bad: Any, answer: Any) -> bool:
        if answer == z3.unknown:  # split finer and asked again, as the proofs do
            verdict = solve_cases(
                [st.relation, *assume, bad], list(ind._finer(st, case, code)), ind.case_limit, deadline=deadline
            )
            answer = {UNSAT: z3.unsat, SAT: z3.sat}.get(verdict, z3.unknown)
        return bool(answer == z3.unsat)

    for code, a in enumerate(ts.actions):
        facts = goals if a.name in changed else again
        if a.parts is not None or not facts:
            continue
        bad = z3.Not(z3.And(*facts))
        for player in (0, 1):
            case = [st.act == code, st.pre.tp == player]
            if not settled(code, case, bad, ind._fresh([st.relation, *assume, *case, bad])):
                return f"the invariants are not shown kept by {a.name} under the mutant"
    return None


def _proof_kept(
    ts: Any,
    mutant: Mutant,
    invariants: list[Any],
    lemmas: Sequence[str],
    deadline: float | None,
    original: tuple[list[Any], list[Any]] | None = None,
) -> dict[str, Any] | None:
    """The survival of a mutant under which the rules' proof of every invariant still holds (`still_inductive`):
    every invariant proved for all depths, so no search can violate one; None when that is not shown."""
    from duelcheck.engines.smt import Stopped

    if not lemmas or not {p.name for p in invariants} <= set(lemmas):
        return None
    try:
        why = still_inductive(ts, mutant, lemmas, deadline, original)
    except Stopped:
        return None
    if why is not None:
        return None
    labels = [f"{p.name}[{c.label}]" if c.label else p.name for p in invariants for c in p.checks]
    return _outcome(
        "survived",
        f"every invariant ({len(invariants)}) proved for all depths under the mutant: the proof of the rules as "
        "written still holds (the mutant's steps keep every invariant from any state meeting them all); every "
        "witness the rules reach within the bound is reached",
        dict.fromkeys(labels, "proved"),
    )


def _outcome(
    status: str,
    note: str,
    verdicts: dict[str, str],
    killed_by: str | None = None,
    kill_kind: str | None = None,
    length: int | None = None,
) -> dict[str, Any]:
    """What `kill` says of a mutant (the store's columns)."""
    return {
        "status": status,
        "killed_by": killed_by,
        "kill_kind": kill_kind,
        "length": length,
        "note": note,
        "verdicts": verdicts,
    }


def kill(
    rules: Rules,
    mutant: Mutant,
    depth: int,
    found: dict[str, int],
    prove: bool = True,
    solver: str = "auto",
    timeout: float | None = None,
    plays: dict[str, Play] | None = None,
    deep: dict[str, Play] | None = None,
    lemmas: Sequence[str] = (),
    far: dict[str, Play] | None = None,
    first: Callable[[], dict[str, Any] | None] | None = None,
    first_early: bool = False,
) -> dict[str, Any]:
    """Check one mutant with the engines (see the module's docstring); `found` is the baseline's witnesses,
    `plays` the plays that reach them under the rules as written, `deep` those that reach witnesses beyond
    the bound (the last stage starts from the states of both), `lemmas` the invariants proved for the rules as
    written (when they are the whole suite and stay inductive under the mutant, it survives at once), `far` the
    random plays under the rules the far seeded search also starts from (`far_walks`, made in the preparation),
    `first` a question asked with no mutant in force before the goal-directed and wide searches (the caller's:
    whether the mutant is dead code), whose outcome, if any, is the answer; with `first_early`, asked sooner:
    once the replays and the short seeded search from the start killed nothing, before the proof is asked
    again and the longer searches.
    Returns status (killed, survived or unknown), killed_by, kill_kind (violated, not-found or unreachable),
    length, note and the verdict of every label checked."""
    from duelcheck.engines.checker import Checker
    from duelcheck.model.system import TransitionSystem
    from duelcheck.properties import PROPERTIES

    deadline = None if timeout is None else time.monotonic() + timeout
    invariants = [p for p in PROPERTIES if p.kind == "always"]
    verdicts: dict[str, str] = {}
    whole = bool(lemmas) and {p.name for p in invariants} <= set(lemmas)
    # the rules' proof terms, to tell which facts a mutant changes: a comparison's, or a hooked mutant's of an
    # action whose enabledness a property reads
    asks = mutant.kind == "compare" or (mutant.kind in HOOKED and read_by_properties(mutant))
    original = proof_terms(rules, lemmas) if prove and whole and asks else None
    ts = TransitionSystem(rules)  # its relation is made with the mutant in force, when first asked for
    walks = far or {}  # the preparation's random plays under the rules (`far_walks`), if given
    # the seeded search prunes by the lemmas: with none proved it is not run, and not set up
    seeded = seeded_setup(rules, ts, mutant, lemmas, {**(plays or {}), **(deep or {}), **walks}) if lemmas else None

    def violation_kill(r: Any) -> dict[str, Any]:
        """A certified violation found before the checker (a replayed play, the seeded search): the kill."""
        return _outcome(
            "killed",
            f"violated at step {r.length}; {r.note}",
            {r.label: f"violated ({r.length})"},
            killed_by=r.label,
            kill_kind="violated",
            length=r.length,
        )

    late = False  # whether the searches that cost the most are made (below, once the others settled nothing)
    checking = False  # whether the checker is run (last)
    seeded_depth = depth + SEEDED_BEYOND
    early = min(seeded_depth, SEEDED_EARLY)
    with activated(mutant):
        try:
            # the witnesses first: the baseline's plays replayed (milliseconds), every invariant checked along
            # them; then the seeded search for a violation, the witnesses whose play broke, the shallow search
            results, todo = _witness_replays(ts, found, plays or {}, depth)
            # the rules' own plays replayed under the mutant, every invariant checked along them (milliseconds)
            seen = _replay_violation(ts, invariants, {**(plays or {}), **(deep or {})})
            if seen is not None:
                return violation_kill(seen)
            # the seeded search: the rules' plays, pruned by their proved invariants, up to the first step the
            # mutant takes otherwise, where an invariant breaks (most kills: a missing guard lets one step through)
            # (with no invariant proved for the rules it would be the shallow search below made deeper, unpruned);
            # a short way first, before any induction question: most kills are short, and a kill needs no proof
            hit, refuted = None, 0  # refuted: every depth up to it refuted from the start, not asked again
            if seeded is not None:
                hit, _, refuted = _seeded_kill(ts, seeded, invariants, early, 0, solver, deadline)
            if hit is not None:
                return violation_kill(hit)
        except InternalError as exc:
            return _outcome("unknown", one_line(f"the two semantics disagree under this mutant: {exc}"), verdicts)
    if first_early and first is not None:
        settled = first()  # asked with no mutant in force (the caller's: a dead rule)
        if settled is not None:
            return settled
    with activated(mutant):
        try:
            # the rules' proof asked again of the mutant's steps: where it still holds, no invariant is violated
            # at any depth, so no search for a violation is made and only a lost witness can kill (measured: a
            # dropped write of `pass` whose seeded search gave no answer in 595 s, the proof kept in 45 s)
            proof = _proof_kept(ts, mutant, invariants, lemmas, deadline, original) if prove else None
            # then the seeded search the rest of the way (the depths refuted above are not asked again)
            if seeded is not None and proof is None and seeded_depth > early:
                hit, _, _ = _seeded_kill(ts, seeded, invariants, seeded_depth, 0, solver, deadline, refuted=refuted)
            if hit is not None:
                return violation_kill(hit)
            # a witness whose play broke under the mutant, searched before the shallow search: a rule made
            # stricter (a guard negated) loses a play without breaking an invariant, and the shallow search
            # after the seeded one found no violation in the first 210 mutants of a full run (of 121 kills by a
            # violation, the seeded search found every one)
            results += _witness_search(ts, todo, found, depth, solver, deadline)
            witness_lost = any(r.verdict in ("not-found", "unreachable") for r in results)
            probe = min(depth, PROBE_DEPTH)
            probed = [] if witness_lost or proof is not None else _probe(ts, invariants, probe, solver, deadline)
            kills = [r for r in probed if r.verdict == "violated" and _certified(ts, r)]
            # what the probe left open: no answer, or a violation the concrete interpreter does not confirm
            unsure = [r.label for r in probed if r.verdict != "holds" and r not in kills]
            if kills:
                best = min(kills, key=_first)
                return _outcome(
                    "killed",
                    f"violated at step {best.length} (minimal)"
                    + "".join(f"; also {r.label}" for r in sorted(kills, key=_first) if r is not best),
                    {r.label: f"violated ({r.length})" for r in kills},
                    killed_by=best.label,
                    kill_kind="violated",
                    length=best.length,
                )
            if not witness_lost:
                # a witness the rules reach only beyond the bound, that no step under the mutant takes
                results += _lost_beyond(ts, found, deep or {}, deadline)
            if not any(r.verdict in ("not-found", "unreachable") for r in results):
                if proof is not None:
                    proof["verdicts"].update({r.label: f"{r.verdict} ({r.length})" for r in results})
                    open_ = [r.label for r in results if r.verdict in ("unknown", "interrupted")]
                    if open_:  # a witness the search left open: never a survivor (nor a kill)
                        note = "every invariant proved for all depths under the mutant; no verdict for "
                        return _outcome("unknown", note + ", ".join(open_), proof["verdicts"])
                    return proof
                # the seeded search again: from the states of the rules' own plays (a duel won, a deck nearly
                # drawn), and from the start with a longer tail after the first step taken otherwise
                hit = None
                if seeded is not None:
                    hit, _, _ = _seeded_kill(ts, seeded, invariants, FAR_DEPTH, 0, solver, deadline, far=True)
                    for after in SEEDED_TAILS if hit is None else ():
                        hit, _, _ = _seeded_kill(ts, seeded, invariants, depth, after, solver, deadline)
                        if hit is not None:
                            break
                if hit is not None:
                    hit_out = violation_kill(hit)
                    hit_out["verdicts"].update({r.label: f"{r.verdict} ({r.length})" for r in results})
                    return hit_out
                searched = prove or depth > probe  # the invariants are checked again below, fully
                if unsure and not searched:
                    return _outcome(
                        "unknown",
                        f"no verdict for {', '.join(unsure)} up to {probe} steps",
                        {label: "unknown" for label in unsure},
                    )
                # the searches for a deep setting-up next (below), and the checker last: of the 684 kills of the
                # whole run on model f638f75a it made one (`compare:trigger:1`, at step 12), while for a mutant whose
                # kill needs a deep setting-up it came first and cost the most (`write:discard:11`: the checker 88
                # min, the search beyond it 28 min and more; with the checker last, killed in 46 min in all)
                settled_or_open = ("violated", "not-found", "unreachable", "unknown", "interrupted")
                late = seeded is not None and not any(r.verdict in settled_or_open for r in results)
                checking = searched
        except InternalError as exc:
            return _outcome("unknown", one_line(f"the two semantics disagree under this mutant: {exc}"), verdicts)
    if late and first is not None and not first_early:
        # asked with no mutant in force, before the searches that cost the most (the caller's: dead code)
        settled = first()
        if settled is not None:
            return settled
    if late:
        assert seeded is not None
        with activated(mutant):
            try:
                deep_hit = _goal_kill(ts, seeded, invariants, solver, deadline)
                if deep_hit == "stopped":  # the time limit only ever leaves a mutant unknown
                    done = {r.label: f"{r.verdict} ({r.length})" for r in results}
                    return _outcome("unknown", "the goal-directed search was stopped by the time limit", done)
                results += [deep_hit] if deep_hit is not None else []
                if deep_hit is None:  # then the far search much deeper, from fewer states at a time
                    far_hit, _, _ = _seeded_kill(
                        ts, seeded, invariants, WIDE_DEPTH, 0, solver, deadline, True, WIDE_STRIDE, WIDE_BATCH
                    )
                    if far_hit is None and deadline is not None and time.monotonic() > deadline:
                        done = {r.label: f"{r.verdict} ({r.length})" for r in results}
                        note = f"the seeded search {WIDE_DEPTH} steps on was stopped by the time limit"
                        return _outcome("unknown", note, done)
                    results += [far_hit] if far_hit is not None else []
                if deep_hit is None and not any(r.verdict == "violated" for r in results):
                    # then the far search one step deeper than before, from every state (the checker comes after)
                    far_hit, _, _ = _seeded_kill(ts, seeded, invariants, FAR_LAST, 0, solver, deadline, far=True)
                    if far_hit is None and deadline is not None and time.monotonic() > deadline:
                        done = {r.label: f"{r.verdict} ({r.length})" for r in results}
                        note = f"the seeded search {FAR_LAST} steps on was stopped by the time limit"
                        return _outcome("unknown", note, done)
                    results += [far_hit] if far_hit is not None else []
            except InternalError as exc:
                note = one_line(f"the two semantics disagree under this mutant: {exc}")
                return _outcome("unknown", note, verdicts)
    if checking and not any(r.verdict == "violated" for r in results):
        # last: the checker (induction, then bounded model checking to the bound), and the search beyond it
        with activated(mutant):
            try:
                checker = Checker(
                    rules, depth, solver=solver, simulate=False, prove=prove, cache=None, deadline=deadline, workers=1
                )
                results += checker.run(invariants).results
                # beyond the bound: a short search from the states of the rules' own plays (replayed under the
                # mutant), for the invariants that hold to the bound and are not proved
                bounded = {r.prop for r in results if r.kind == "always" and r.verdict == "holds" and not r.proved}
                decided = any(r.verdict in ("violated", "not-found", "unreachable") for r in results)
                if bounded and not decided:
                    props = [p for p in invariants if p.name in bounded]
                    beyond = _deep_stage(ts, props, {**(plays or {}), **(deep or {})}, solver, deadline)
                    results = [r for r in results if beyond is None or r.label != beyond.label]
                    results += [beyond] if beyond is not None else []
            except InternalError as exc:
                return _outcome("unknown", one_line(f"the two semantics disagree under this mutant: {exc}"), verdicts)
    for r in results:
        verdicts[r.label] = f"{r.verdict} ({r.length})" if r.length is not None else r.verdict
        if r.proved and r.kind == "always":
            verdicts[r.label] = "proved"
    violated = [r for r in results if r.verdict == "violated"]
    lost = [r for r in results if r.kind == "sometimes" and r.verdict in ("not-found", "unreachable")]
    if violated:
        best = min(violated, key=_first)
        return _outcome(
            "killed",
            f"violated at step {best.length}; {best.note}",
            verdicts,
            killed_by=best.label,
            kill_kind="violated",
            length=best.length,
        )
    if lost:
        reach = {**{label: len(play) for label, play in (deep or {}).items()}, **found}
        best = min(lost, key=lambda r: (reach[r.label], r.label))
        return _outcome(
            "killed",
            f"the rules as written reach it in {reach[best.label]} steps; under the mutant: {best.note}",
            verdicts,
            killed_by=best.label,
            kill_kind=best.verdict,
            length=reach[best.label],
        )
    unsettled = [r.label for r in results if r.verdict in ("unknown", "interrupted")]
    if unsettled:
        return _outcome("unknown", f"no verdict for {', '.join(unsettled)}", verdicts)
    proved = len({r.prop for r in results if r.kind == "always" and r.proved})
    note = f"no invariant violated up to {depth} steps"
    if prove:
        note += f" ({proved} of {len(invariants)} invariants proved for all depths under the mutant)"
    if found:
        note += f"; every witness the rules reach within the bound is reached ({len(found)})"
    return _outcome("survived", note, verdicts)


def model_version() -> str:
    """The model version the store keys results by (the proof cache's digest of the model's source)."""
    from duelcheck.sweep import model_version as version

    return version()


def run_mutant(
    mutant_id: str, rules: dict[str, Any], depth: int, options: dict[str, Any], prepared: dict[str, Any]
) -> dict[str, Any]:
    """The task a worker runs: one mutant, from its equivalence question to its kill (or not)."""
    started = time.monotonic()
    r = Rules(**rules)
    mutant = mutant_by_id(mutant_id, r)
    status, note = equivalence(r, mutant, prepared["lemmas"])
    if status == "equivalent":
        out: dict[str, Any] = {
            "status": "equivalent",
            "killed_by": None,
            "kill_kind": None,
            "length": None,
            "note": note,
            "verdicts": {},
        }
    else:
        asked: list[dict[str, Any] | None] = []

        def dead_code() -> dict[str, Any] | None:
            """Whether the step differs only in states no play reaches, asked of induction (a proof with fixed
            resource limits: the same answer however long the engines ran before); once."""
            if not asked:
                again, why = equivalence(r, mutant, prepared["lemmas"], induction=True)
                done = {"status": "equivalent", "killed_by": None, "kill_kind": None, "length": None}
                asked.append(done | {"note": why, "verdicts": {}} if again == "equivalent" else None)
            return asked[0]

        ask = bool(prepared["lemmas"])
        out = kill(
            r,
            mutant,
            depth,
            prepared["witnesses"],
            prove=options.get("prove", True),
            solver=options.get("solver", "auto"),
            timeout=options.get("timeout"),
            plays=prepared.get("plays"),
            deep=prepared.get("deep_plays"),
            lemmas=prepared["lemmas"],
            far=prepared.get("far_plays"),
            first=dead_code if ask else None,  # before the goal-directed and wide searches, which cost the most
            first_early=mutant.kind == "drop",  # a dropped guard's twin: before the proof and the longer searches
        )
        if status == "unknown" and out["status"] != "equivalent":
            out["note"] = f"{out['note']}; {note}"
        if out["status"] in ("survived", "unknown") and ask:
            # no kill by an earlier stage either (a proof kept, a time limit): asked now, if not yet
            out = dead_code() or out
    out["seconds"] = time.monotonic() - started
    out["model_version"] = model_version()
    return out


def prepare(rules: dict[str, Any], depth: int, options: dict[str, Any]) -> dict[str, Any]:
    """The task run once before the mutants: the invariants proved for the rules as written (the lemmas of the
    equivalence questions; none with proofs off) and the witnesses they reach within the bound."""
    started = time.monotonic()
    r = Rules(**rules)
    lemmas: list[str] = []
    if options.get("prove", True):
        cache = options.get("cache")
        lemmas = prove_lemmas(r, Path(cache) if cache else None, options.get("lemma_suite"))
    deep = options.get("prove", True) or depth > PROBE_DEPTH  # the last stage of `kill` runs (after the checker)
    found, plays, further = baseline(r, depth, lemmas, options.get("solver", "auto"), BEYOND if deep else 0)
    reached = {**found, **{label: len(play) for label, play in further.items()}}
    return {
        "lemmas": lemmas,
        "witnesses": found,
        "plays": plays,
        # the witnesses beyond the bound: by the search a few steps on, then by simulation
        "deep_plays": {**further, **deep_plays(r, reached)} if deep else {},
        "far_plays": far_walks(r) if lemmas else {},  # the seeded search's starts: it runs only with lemmas
        "seconds": time.monotonic() - started,
        "model_version": model_version(),
    }


# ------------------------------------------------------------------------------------------------ the store


@dataclass(frozen=True)
class Row:
    """One mutant's result as the store holds it."""

    mutant_id: str
    model_version: str
    kind: str
    action: str
    position: int | None
    reason: str
    status: str
    killed_by: str | None
    kill_kind: str | None
    length: int | None
    note: str
    verdicts: str  # JSON: label -> verdict text
    seconds: float
    settings: str
    digest: str
    run_id: str
    finished_at: str

    @property
    def text(self) -> str:
        if self.status == "killed" and self.kill_kind == "violated":
            return f"killed by {self.killed_by} (violated at step {self.length})"
        if self.status == "killed":
            return f"killed by {self.killed_by} ({self.kill_kind}; the rules reach it in {self.length} steps)"
        return self.status


_COLUMNS = (
    ("mutant_id", "TEXT NOT NULL"),
    ("model_version", "TEXT NOT NULL"),
    ("kind", "TEXT NOT NULL"),
    ("action", "TEXT NOT NULL"),
    ("position", "INTEGER"),
    ("reason", "TEXT NOT NULL"),
    ("status", "TEXT NOT NULL"),
    ("killed_by", "TEXT"),
    ("kill_kind", "TEXT"),
    ("length", "INTEGER"),
    ("note", "TEXT NOT NULL"),
    ("verdicts", "TEXT NOT NULL"),
    ("seconds", "REAL NOT NULL"),
    ("settings", "TEXT NOT NULL"),
    ("digest", "TEXT NOT NULL"),
    ("run_id", "TEXT NOT NULL"),
    ("finished_at", "TEXT NOT NULL"),
)
TABLE = "mutants"
PREPARED = "prepared"


class Store:
    """The SQLite file of a mutation run's results (WAL mode, one writer: the process that runs it). Each result
    is committed as soon as it is put, so that a run killed at any moment keeps every mutant that finished."""

    def __init__(self, path: str | Path):
        from duelcheck.sweep import open_store

        self.path = Path(path)
        prepared = (
            f"CREATE TABLE IF NOT EXISTS {PREPARED} (model_version TEXT NOT NULL, settings TEXT NOT NULL, "
            "data TEXT NOT NULL, PRIMARY KEY (model_version, settings))"
        )
        key = ("mutant_id", "model_version")
        self.db = open_store(self.path, f"--store {self.path}", "mutation store", TABLE, _COLUMNS, key, (prepared,))

    def get(self, mutant_id: str, version: str) -> Row | None:
        names = ", ".join(name for name, _ in _COLUMNS)
        found = self.db.execute(
            f"SELECT {names} FROM {TABLE} WHERE mutant_id = ? AND model_version = ?", (mutant_id, version)
        ).fetchone()
        return None if found is None else Row(*found)

    def put(self, row: Row) -> None:
        names = [name for name, _ in _COLUMNS]
        marks = ", ".join("?" for _ in names)
        with self.db:
            self.db.execute(
                f"INSERT OR REPLACE INTO {TABLE} ({', '.join(names)}) VALUES ({marks})",
                [getattr(row, name) for name in names],
            )

    def prepared(self, version: str, settings: str) -> dict[str, Any] | None:
        found = self.db.execute(
            f"SELECT data FROM {PREPARED} WHERE model_version = ? AND settings = ?", (version, settings)
        ).fetchone()
        return None if found is None else dict(json.loads(found[0]))

    def put_prepared(self, version: str, settings: str, data: dict[str, Any]) -> None:
        with self.db:
            self.db.execute(
                f"INSERT OR REPLACE INTO {PREPARED} (model_version, settings, data) VALUES (?, ?, ?)",
                (version, settings, json.dumps(data, sort_keys=True)),
            )

    def close(self) -> None:
        self.db.close()


# -------------------------------------------------------------------------------------------------- the run


@dataclass
class Outcome:
    """A mutation run's result, read back from the store after the run: a row per mutant that has one."""

    mutants: list[Mutant]
    excluded: list[Mutant]
    store: Path
    model_version: str
    run_id: str
    depth: int
    options: dict[str, Any]
    prepared: dict[str, Any]
    rows: dict[str, Row] = field(default_factory=dict)
    ran: list[str] = field(default_factory=list)
    reused: int = 0
    failures: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False
    seconds: float = 0.0

    def of(self, status: str) -> list[Row]:
        return [r for m in self.mutants if (r := self.rows.get(m.id)) is not None and r.status == status]

    @property
    def score(self) -> tuple[int, int]:
        """Killed, and non-equivalent mutants with a result (killed, survived or unknown)."""
        killed = len(self.of("killed"))
        return killed, killed + len(self.of("survived")) + len(self.of("unknown"))

    @property
    def exit_code(self) -> int:
        """130 interrupted, 4 a mutant failed (no result), 3 some mutant unknown, else 0 (survivors are an
        answer, not a failure)."""
        if self.interrupted:
            return 130
        if self.failures or any(m.id not in self.rows for m in self.mutants):
            return 4
        if self.of("unknown"):
            return 3
        return 0

    def to_json(self) -> dict[str, Any]:
        killed, total = self.score
        ran = set(self.ran)
        mutants = []
        for m in self.mutants:
            r = self.rows.get(m.id)
            mutants.append(
                {
                    **m.to_json(),
                    "status": None if r is None else r.status,
                    "killed_by": None if r is None else r.killed_by,
                    "kill_kind": None if r is None else r.kill_kind,
                    "length": None if r is None else r.length,
                    "note": None if r is None else r.note,
                    "verdicts": None if r is None else json.loads(r.verdicts),
                    "seconds": None if r is None else round(r.seconds, 3),
                    "ran_now": m.id in ran,
                    "error": self.failures.get(m.id),
                }
            )
        return {
            "store": str(self.store),
            "model_version": self.model_version,
            "depth": self.depth,
            "options": self.options,
            "score": {"killed": killed, "non_equivalent": total, "ratio": round(killed / total, 4) if total else None},
            "counts": {s: len(self.of(s)) for s in STATUSES},
            "lemmas": self.prepared.get("lemmas", []),
            "baseline_witnesses": self.prepared.get("witnesses", {}),
            "preparation_seconds": self.prepared.get("seconds"),
            "mutants": mutants,
            "redundant_guards": [
                {"action": r.action, "position": r.position, "reason": r.reason, "why": r.note}
                for r in self.of("equivalent")
                if r.kind == "drop"
            ],
            "dead_code": [
                {"mutant": r.mutant_id, "kind": r.kind, "reason": r.reason, "why": r.note}
                for r in self.of("equivalent")
                if r.kind != "drop"
            ],
            "excluded": [m.id for m in self.excluded],
            "ran": len(self.ran),
            "from_store": self.reused,
            "seconds": round(self.seconds, 3),
            "exit_code": self.exit_code,
        }


def settings_of(rules: Rules, depth: int, options: dict[str, Any]) -> str:
    """What a result depends on besides the mutant and the model: the rules, the bound and the engine options."""
    kept = {k: options[k] for k in ("prove", "solver", "timeout", "lemma_suite") if options.get(k) is not None}
    return json.dumps({"rules": rules.model_dump(), "depth": depth, "probe": PROBE_DEPTH, **kept}, sort_keys=True)


def preparation_settings(rules: Rules, depth: int, options: dict[str, Any]) -> str:
    """What the preparation depends on: the settings of the mutants' results but the time each mutant may take
    (it runs no mutant), so that checking the unknown again with a longer --timeout reuses it."""
    return settings_of(rules, depth, {k: v for k, v in options.items() if k != "timeout"})


Progress = Callable[[int, int, Mutant, "Row | None", "str | None"], None]


def run(
    mutants: list[Mutant],
    store: str | Path = DEFAULT_STORE,
    *,
    depth: int = DEFAULT_DEPTH,
    options: dict[str, Any] | None = None,
    excluded: list[Mutant] | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    connect_timeout: float | None = None,
    on_start: Callable[[int, int], None] | None = None,
    on_mutant: Progress | None = None,
    on_stage: Callable[[str], None] | None = None,
) -> Outcome:
    """Run every mutant without a result in the store on a local Dask cluster of `workers` processes (default:
    one per core) or on the scheduler at `scheduler`, each result committed as it finishes.

    `options`: prove (default True: the lemmas and the checker's induction), solver, timeout (seconds per
    mutant), cache (the proof cache folder for the lemmas of the rules as written), lemma_suite (the
    invariants proved as lemmas; default the whole suite). The preparation (lemmas and baseline) runs first,
    as one task, unless the store holds it. Ctrl-C cancels what is running and returns with `.interrupted`."""
    from duelcheck import sweep
    from duelcheck.engines.checker import default_workers
    from duelcheck.interrupts import interrupted as sigint_seen

    started = time.monotonic()
    options = dict(options or {})
    rules = Rules()
    if scheduler is not None:
        scheduler = sweep.check_address(scheduler)
    n_workers = workers if workers is not None else default_workers()
    timeout = sweep.CONNECT_TIMEOUT if connect_timeout is None else connect_timeout
    db = Store(store)
    try:
        version = model_version()
        settings = settings_of(rules, depth, options)
        prep_settings = preparation_settings(rules, depth, options)
        run_id = f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
        pending = [m for m in mutants if not _held(db.get(m.id, version), m, settings)]
        prepared = db.prepared(version, prep_settings) or {}
        outcome = Outcome(
            mutants,
            excluded or [],
            Path(store),
            version,
            run_id,
            depth,
            options,
            prepared,
            reused=len(mutants) - len(pending),
        )
        if on_start is not None:
            on_start(len(pending), len(mutants))
        if pending:
            try:
                with sweep._client(n_workers, scheduler, timeout) as client:
                    if sigint_seen():
                        raise KeyboardInterrupt
                    if not prepared:
                        if on_stage is not None:
                            on_stage("proving the invariants of the rules as written and searching their witnesses")
                        prepared = _prepare_on(client, rules, depth, options, run_id, sigint_seen)
                        if prepared.pop("model_version") != version:
                            raise InternalError("the workers run another model version")
                        db.put_prepared(version, prep_settings, prepared)
                        outcome.prepared = prepared
                    _run_pending(client, db, rules, depth, options, settings, pending, outcome, on_mutant, sigint_seen)
            except KeyboardInterrupt:
                outcome.interrupted = True
        for m in mutants:
            row = db.get(m.id, version)
            if _held(row, m, settings):
                assert row is not None
                outcome.rows[m.id] = row
        outcome.seconds = time.monotonic() - started
        return outcome
    finally:
        db.close()


def _held(row: Row | None, m: Mutant, settings: str) -> bool:
    """A stored result counts for the same mutant text made with the same settings, whatever time limit it had
    when it is a result (killed, equivalent, survived: a time limit only ever leaves a mutant unknown), and when
    it is unknown only if its limit was no shorter than the one asked for now: checking the unknown again with
    a longer --timeout runs them alone, and a shorter one runs nothing again."""
    if row is None or row.digest != m.digest:
        return False
    if row.settings == settings:
        return True
    had, wanted = json.loads(row.settings), json.loads(settings)
    limit, asked = had.pop("timeout", None), wanted.pop("timeout", None)
    if had != wanted:
        return False
    if row.status != "unknown":
        return True
    return limit is None or (asked is not None and limit >= asked)


def _wait(future: Any, sigint_seen: Callable[[], bool]) -> Any:
    while not future.done():
        if sigint_seen():
            raise KeyboardInterrupt
        time.sleep(0.05)
    if future.status != "finished":
        exc = future.exception()
        raise InternalError(f"the preparation failed: {type(exc).__name__}: {exc}")
    return future.result()


def _prepare_on(
    client: Any, rules: Rules, depth: int, options: dict[str, Any], run_id: str, sigint_seen: Callable[[], bool]
) -> dict[str, Any]:
    future = client.submit(
        prepare, rules.model_dump(), depth, options, key=f"duelcheck-prepare-{run_id}", pure=False, retries=0
    )
    try:
        return dict(_wait(future, sigint_seen))
    except BaseException:
        client.cancel([future])
        raise


def _run_pending(
    client: Any,
    db: Store,
    rules: Rules,
    depth: int,
    options: dict[str, Any],
    settings: str,
    pending: list[Mutant],
    outcome: Outcome,
    on_mutant: Progress | None,
    sigint_seen: Callable[[], bool],
) -> None:
    from distributed import as_completed

    futures: dict[str, tuple[Mutant, Any]] = {}
    for i, m in enumerate(pending):
        future = client.submit(
            run_mutant,
            m.id,
            rules.model_dump(),
            depth,
            options,
            outcome.prepared,
            key=f"duelcheck-mutant-{outcome.run_id}-{i}",
            pure=False,
            retries=0,
        )
        futures[future.key] = (m, future)
    done = 0
    queue = as_completed([f for _, f in futures.values()], loop=client.loop)
    try:
        while not queue.is_empty():
            if sigint_seen():
                raise KeyboardInterrupt
            if not queue.has_ready():
                time.sleep(0.05)
                continue
            for future in queue.next_batch(block=False):
                m, _ = futures[future.key]
                row, error = _finish(db, future, m, settings, outcome)
                done += 1
                if on_mutant is not None:
                    on_mutant(done, len(pending), m, row, error)
    except BaseException:
        client.cancel([f for _, f in futures.values()])
        raise


def _finish(db: Store, future: Any, m: Mutant, settings: str, outcome: Outcome) -> tuple[Row | None, str | None]:
    """Store a finished task's result; a task that raised, or a worker of another model, is a failure."""
    if future.status != "finished":
        error = f"the task was {future.status}"
        if future.status == "error":
            exc = future.exception()
            error = one_line(f"{type(exc).__name__}: {exc}")
        outcome.failures[m.id] = error
        return None, error
    got = future.result()
    if got["model_version"] != outcome.model_version:
        error = f"the worker runs another model version ({got['model_version'][:12]})"
        outcome.failures[m.id] = error
        return None, error
    row = Row(
        mutant_id=m.id,
        model_version=outcome.model_version,
        kind=m.kind,
        action=m.action,
        position=None if m.index < 0 else m.index,
        reason=m.reason,
        status=got["status"],
        killed_by=got["killed_by"],
        kill_kind=got["kill_kind"],
        length=got["length"],
        note=got["note"] or "",
        verdicts=json.dumps(got["verdicts"], sort_keys=True),
        seconds=float(got["seconds"]),
        settings=settings,
        digest=m.digest,
        run_id=outcome.run_id,
        finished_at=datetime.now(UTC).isoformat(timespec="milliseconds"),
    )
    db.put(row)
    outcome.ran.append(m.id)
    return row, None


# ------------------------------------------------------------------------------------------------ the report


def text_lines(outcome: Outcome) -> list[str]:
    """The report as text: the score, then the survivors, the unknown, the equivalent mutants (redundant
    guards, and the other kinds' dead code) and the kills, one per line."""
    killed, total = outcome.score
    ratio = f" ({100 * killed / total:.0f}%)" if total else ""
    kinds = {k: sum(1 for m in outcome.mutants if m.kind == k) for k in KINDS}
    lines = [
        f"mutation score: {killed}/{total} killed{ratio} of the non-equivalent mutants (bound {outcome.depth}, "
        f"proofs {'on' if outcome.options.get('prove', True) else 'off'})",
        f"{len(outcome.mutants)} mutants ({', '.join(f'{n} {k}' for k, n in kinds.items())}); "
        + ", ".join(f"{len(outcome.of(s))} {s}" for s in STATUSES)
        + f"; {len(outcome.excluded)} excluded (model range and catalogue guards)",
    ]

    def section(title: str, rows: list[Row], detail: Callable[[Row], str]) -> None:
        lines.append(f"{title} ({len(rows)}):")
        lines.extend(f"  {r.mutant_id}\t{detail(r)}" for r in rows)

    section("survived", outcome.of("survived"), lambda r: f"{r.reason}\t{r.note}")
    section("unknown", outcome.of("unknown"), lambda r: f"{r.reason}\t{r.note}")
    equivalent = outcome.of("equivalent")
    section(
        "equivalent (redundant guards)", [r for r in equivalent if r.kind == "drop"], lambda r: f"{r.reason}\t{r.note}"
    )
    section("equivalent (dead code)", [r for r in equivalent if r.kind != "drop"], lambda r: f"{r.reason}\t{r.note}")
    section("killed", outcome.of("killed"), lambda r: f"{r.text}\t{r.reason}")
    for mid, error in outcome.failures.items():
        lines.append(f"failed: {mid}: {error}")
    lines.append(
        f"{len(outcome.ran)} run now, {outcome.reused} from the store, {outcome.seconds:.1f} s; store: {outcome.store}"
    )
    return lines
