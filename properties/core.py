"""The property layer's core: what a property is (a named predicate of a kind, `always` or `sometimes`, over
states or transitions, with its clause), the registry the suite fills, and the predicates more than one clause
area reads. A predicate is written once with the model's kit and evaluated concretely (to certify a trace) or
symbolically (bounded model checking)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import z3

from duelcheck.model.cards import (
    ATK_CHANGES,
    DIRECT_ATK_MAX,
    NO_CHOICE,
    STAYS_ON_FIELD,
    TO_BATTLE,
    TO_END,
    Effect,
    MonsterEffect,
    Phase,
)
from duelcheck.model.kit import Val
from duelcheck.model.rules import (
    ACTION_CODE,
    ACTIONS,
)
from duelcheck.model.state import State

Kind_ = Literal["always", "sometimes"]


COMPOSITES = tuple(a.name for a in ACTIONS if a.parts is not None)


class ActionView:
    """The action of a transition, as a predicate sees it: concrete (name, params) or symbolic (code, vars)."""

    def __init__(self, name_or_code: Any, params: dict[str, Any], symbolic: bool):
        self._id = name_or_code
        self._params = params
        self._symbolic = symbolic

    def is_(self, name: str) -> Val:
        if self._symbolic:
            return self._id == ACTION_CODE[name]
        return self._id == name

    def composite(self) -> Val:
        """Whether the action is a composite (model/rules.py `composite`): other actions in one step."""
        terms = [self.is_(name) for name in COMPOSITES]
        if all(isinstance(t, bool) for t in terms):
            return any(terms)
        return z3.Or(*terms)

    def p(self, name: str) -> Val:
        return self._params.get(name, 0)


StatePred = Callable[[State], Val]


StepPred = Callable[[State, ActionView, State], Val]


@dataclass(frozen=True)
class Check:
    """One predicate of a property: over a state, or over a transition (pre, action, post)."""

    label: str
    on: Literal["state", "step"]
    fn: Callable[..., Val]
    kind: Kind_ = "always"  # set by the property that holds the check

    def eval(self, pre: State | None, act: ActionView | None, post: State) -> Val:
        """The predicate in `post` (a state check) or on the step pre -> post (a step check).

        A step check reads fine steps: a composite step (several actions in one, model/rules.py) is never
        the step it reads, since each of its parts is also a step of its own from a reachable state, where
        the check reads it. So an invariant's step check holds on a composite step, and a witness's step
        check is not reached by one; a play ends in a witness step only with a fine step."""
        if self.on == "state":
            return self.fn(post)
        assert pre is not None and act is not None
        whole = self.fn(pre, act, post)
        if not COMPOSITES:
            return whole
        k = post.k
        many = act.composite()
        if self.kind == "always":
            return k.or_(many, whole)
        return k.and_(k.not_(many), whole)


@dataclass(frozen=True)
class Property:
    name: str
    kind: Kind_
    clause: str
    doc: str
    checks: tuple[Check, ...] = field(default_factory=tuple)
    certify: Callable[[Any, State], bool] | None = None  # extra concrete confirmation of a violation
    source: str | None = None  # a user's property: its expression (properties/user.py), part of the cache keys
    # a witness: the rule sets under which a case may be unreachable (they remove its behaviour on purpose:
    # `reach-main2` with no Main Phase 2); anywhere else an unreachable witness is lost and fails the run
    vanishes: Callable[[Any, str], bool] | None = None
    # the history its predicate keeps beyond the suite's (a user's count(...): properties/history.py Counter)
    counters: tuple[Any, ...] = ()


PROPERTIES: list[Property] = []

# the turn player's acts of the open game state that place or turn a card (6.3.3): what a timing property and
# the response window's history both read
MAIN_ACTS = ("normal_summon", "set_monster", "flip_summon", "change_position", "set_spell_trap")


def always(name: str, clause: str, doc: str, *checks: Check, certify: Any = None) -> None:
    PROPERTIES.append(Property(name, "always", clause, doc, tuple(replace(c, kind="always") for c in checks), certify))


def sometimes(
    name: str, clause: str, doc: str, *checks: Check, vanishes: Callable[[Any, str], bool] | None = None
) -> None:
    """A witness: some play reaches it. `vanishes(rules, case)`: the rule sets that remove it on purpose."""
    cs = tuple(replace(c, kind="sometimes") for c in checks)
    PROPERTIES.append(Property(name, "sometimes", clause, doc, cs, vanishes=vanishes))


def state(fn: StatePred, label: str = "") -> Check:
    return Check(label, "state", fn)


def step(fn: StepPred, label: str = "") -> Check:
    return Check(label, "step", fn)


def zones(s: State, name: str) -> list[tuple[int, int]]:
    return [(p, z) for p in (0, 1) for z in range(s.schema[name].dims[1])]


def direct_by_its_effect(s: State, p: Val, z: Val) -> Val:
    """The card text "while its ATK is 1000 or less, this card can attack directly" (6.3.4.2, 001:L55) applies to
    the monster in player p's zone z: a monster's continuous effect, applied while it is face-up on the field and
    not determined destroyed by battle."""
    k = s.k
    return k.and_(
        s.g("m_occ", p, z),
        s.g("m_up", p, z),
        s.g("m_kind", p, z) == MonsterEffect.CONTINUOUS,
        s.g("m_eff", p, z) == Effect.ATTACK_DIRECTLY,
        k.not_(s.g("m_doomed", p, z)),
        s.g("m_atk", p, z) <= DIRECT_ATK_MAX,
    )


def replacement_offered(s: State) -> Val:
    """At damage calculation, a monster it determined destroyed by battle carries "if this card would be destroyed
    by battle, you can discard 1 card instead", face-up, and its controller holds a card to discard, the duel going
    on (6.3.4.3.3, 001:L86)."""
    k = s.k
    out = []
    for p in (0, 1):
        for z in range(s.schema["m_occ"].dims[1]):
            carries = k.and_(
                s.g("m_occ", p, z),
                s.g("m_up", p, z),
                s.g("m_doomed", p, z),
                s.g("m_kind", p, z) == MonsterEffect.CONTINUOUS,
                s.g("m_eff", p, z) == Effect.DISCARD_INSTEAD,
            )
            out.append(k.and_(carries, s.g("hand", p) > 0))
    return k.and_(s.g("phase") == Phase.DMG_DURING, s.g("winner") == 0, k.or_(*out))


def damage_calculated(s: State, a: ActionView, t: State) -> Val:
    """The step that makes damage calculation (6.3.4.3.3): the second pass at its timing, after which the Damage
    Step moves on to after damage calculation, or stays while a player decides on a destruction replacement."""
    k = s.k
    moves_on = k.or_(t.g("phase") == Phase.DMG_AFTER, replacement_offered(t))
    return k.and_(s.g("phase") == Phase.DMG_DURING, k.not_(a.is_("replace_destruction")), moves_on)


def _trigger_waits(s: State) -> Val:
    """A player's triggered effect waits to be activated (the property layer's `h_triggers` at 2)."""
    return s.k.or_(s.g("h_triggers", 0) == 2, s.g("h_triggers", 1) == 2)


# The progress actions: in every state where the duel goes on, one of them is enabled.
PROGRESS: tuple[tuple[str, dict[str, int]], ...] = (
    ("pass", {"choice": NO_CHOICE}),
    ("pass", {"choice": TO_END}),
    ("normal_draw", {}),
    ("resolve", {}),
    ("resolve", {"amount": ATK_CHANGES[-1]}),
    ("discard", {}),
    ("replay_select", {"tzone": 6}),
    ("trigger", {"pos": False}),
    ("trigger", {"pos": True}),  # 6.3.6: a mandatory End Phase effect is not declined
    ("replace_destruction", {"pos": False}),
)


def new_link(s: State, t: State) -> tuple[Val, Val, Val, Val]:
    """Whether the step added a chain link, and that link's kind, effect and activating player."""
    i = s.g("chain_len")
    added = t.g("chain_len") == i + 1
    return added, t.g("c_kind", i), t.g("c_eff", i), t.g("c_owner", i)


def _top(s: State, name: str) -> Val:
    return s.g(name, s.g("chain_len") - 1)


def negated_link(s: State) -> Val:
    """Seed 000 (negation): the last link was negated, as the property layer saw it: a negation resolved on it
    (history `h_neg`), not the mark the rules keep."""
    return s.g("h_neg", s.g("chain_len") - 1) == 1


def link_takes_effect(s: State, a: ActionView) -> Val:
    """Seed 000 (chains, the chain example): the step resolves the last link, and it takes effect: it is not
    negated, nor a card that must stay on the field and has left it."""
    k = s.k
    if not k.symbolic and not a.is_("resolve"):  # the same reading, evaluated lazily (every concrete step asks it)
        return False
    gone = k.and_(_top(s, "c_gone"), k.one_of(_top(s, "c_kind"), STAYS_ON_FIELD))
    return k.and_(a.is_("resolve"), s.g("chain_len") > 0, k.not_(negated_link(s)), k.not_(gone))


def _target_there(s: State) -> Val:
    """The last link's target is a monster still on the field, not one destroyed by battle already."""
    k = s.k
    p, z = _top(s, "c_tp"), _top(s, "c_tz")
    return k.and_(_top(s, "c_ta") == 0, s.g("m_occ", p, z), k.not_(s.g("m_doomed", p, z)))


def before_main1(s: State) -> Phase:
    """The phase Main Phase 1 follows: the Standby Phase (6.3.2), or the Draw Phase where there is none."""
    return Phase.STANDBY if s.r.standby_phase else Phase.DRAW


def main1_would_begin(s: State, a: ActionView, t: State) -> Val:
    """6.3.2 -> 6.3.3: the step ends the phase before Main Phase 1 (its next phase is Main Phase 1, or a later
    one when Main Phase 1 is skipped)."""
    k = s.k
    return k.and_(s.g("phase") == before_main1(s), t.g("turn") == s.g("turn"), t.g("phase") != s.g("phase"))


def battle_chosen(s: State, a: ActionView, t: State) -> Val:
    """6.3.3: the step ends Main Phase 1 (or the phase before it, Main Phase 1 skipped) with the turn player's
    choice of the Battle Phase."""
    k = s.k
    ends = k.and_(t.g("turn") == s.g("turn"), t.g("phase") != s.g("phase"))
    where = k.or_(s.g("phase") == Phase.MAIN1, s.g("phase") == before_main1(s))
    return k.and_(ends, where, k.or_(a.is_("pass"), a.is_("end_step")), a.p("choice") == TO_BATTLE)
