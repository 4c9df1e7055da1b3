"""Equivalence, proved: a mutant whose steps are the rules' own in every reachable state (under the invariants proved
for all depths) is equivalent, not a survivor.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import z3

from duelcheck.engines.mutate.mutants import Mutant, actions_of, activated
from duelcheck.engines.mutate.settings import EQUIVALENCE_RLIMIT
from duelcheck.engines.mutate.sites import GuardTerms, guard_terms, state_witness, twin_check
from duelcheck.errors import InternalError, one_line
from duelcheck.model import rules as R
from duelcheck.model import state as S
from duelcheck.model.state import PARAMS
from duelcheck.properties.catalog import Check
from duelcheck.rules import Rules


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
