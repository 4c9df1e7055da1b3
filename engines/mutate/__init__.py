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

from duelcheck.engines.mutate.equivalent import (  # noqa: F401
    _differs,
    _one_step,
    _twin_unreachable,
    _unreachable,
    equivalence,
    lemma_checks,
    prove_lemmas,
    same_steps,
)
from duelcheck.engines.mutate.killing import (  # noqa: F401
    HOOKED,
    _outcome,
    _proof_kept,
    _suite,
    _terms,
    kill,
    model_version,
    prepare,
    proof_terms,
    property_files,
    read_by_properties,
    run_mutant,
    still_inductive,
    with_users,
)
from duelcheck.engines.mutate.mutants import (  # noqa: F401
    Mutant,
    _of_action,
    actions_of,
    activated,
    all_mutants,
    mutant_by_id,
    select_mutants,
)
from duelcheck.engines.mutate.report import (  # noqa: F401
    text_lines,
)
from duelcheck.engines.mutate.runs import (  # noqa: F401
    Outcome,
    Progress,
    _finish,
    _held,
    _prepare_on,
    _run_pending,
    _wait,
    preparation_settings,
    run,
    settings_of,
)
from duelcheck.engines.mutate.seeded_stage import (  # noqa: F401
    Seeded,
    SeededKill,
    _agreeing_starts,
    _goal_kill,
    _rerooted,
    _rules_side,
    _seeded_kill,
    _term_like,
    _windows,
    far_walks,
    first_divergence,
    refused_step,
    seeded_setup,
)
from duelcheck.engines.mutate.semantic import (  # noqa: F401
    EFFECT_BUGS,
    RULE_BUGS,
    SEMANTIC,
    SEMANTIC_BY_NAME,
    SemanticMutant,
    compare_swapped,
    first_turn_draws,
    flip_summon_to_defense,
    leave_main1_anywhere,
    mutated,
    negated_link_still_resolves,
    set_card_keeps_hand,
    set_face_down_attack,
    skip_hits_its_player,
    summon_without_limit,
    traps_any_time,
)
from duelcheck.engines.mutate.settings import (  # noqa: F401
    BEYOND,
    DEEP_DEPTH,
    DEEP_SEED,
    DEEP_SHRINK,
    DEEP_WALK_LENGTH,
    DEEP_WALKS,
    DEFAULT_DEPTH,
    DEFAULT_STORE,
    EQUIVALENCE_RLIMIT,
    EXCLUDED_PREFIXES,
    FAR_DEPTH,
    FAR_LAST,
    FAR_SEED,
    FAR_SHORT,
    FAR_WALK_LENGTH,
    FAR_WALKS,
    KINDS,
    PROBE_DEPTH,
    REF_STRIDE,
    REFS,
    SEEDED_BEYOND,
    SEEDED_EARLY,
    SEEDED_TAILS,
    STATUSES,
    WIDE_BATCH,
    WIDE_DEPTH,
    WIDE_STRIDE,
)
from duelcheck.engines.mutate.sites import (  # noqa: F401
    SYMBOL,
    TWIN,
    CompareSite,
    GuardSite,
    GuardTerms,
    WriteSite,
    _callees,
    _compare_sites,
    _comparisons,
    _functions,
    _rule_functions,
    _rules_tree,
    _runners,
    _sites,
    _write_sites,
    compare_mutated,
    compare_sites,
    guard_sites,
    guard_terms,
    hooked,
    reason_text,
    state_witness,
    twin_check,
    write_sites,
)
from duelcheck.engines.mutate.stages import (  # noqa: F401
    _certified,
    _deep_search,
    _deep_stage,
    _Enough,
    _first,
    _lost_beyond,
    _probe,
    _replay_violation,
    _shortened,
    _witness_replays,
    _witness_search,
    _witness_stage,
    _witnesses,
    baseline,
    deep_plays,
)
from duelcheck.engines.mutate.store import (  # noqa: F401
    _COLUMNS,
    PREPARED,
    TABLE,
    Row,
    Store,
)
