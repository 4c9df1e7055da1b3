"""The property suite: named predicates over states or transitions, each with its clause.

A predicate is written once with the model's kit and is evaluated concretely (to certify a trace)
or symbolically (bounded model checking). `always` properties are invariants; `sometimes`
properties are witnesses that must be found, so that a vacuous model cannot pass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import z3

from duelcheck.model.cards import (
    ATK_CAP,
    ATK_CHANGES,
    BATTLE_PHASE,
    DAMAGE_STEP,
    DIRECT,
    GRAVEYARD,
    HAND,
    LP_COST,
    MAIN_PHASES,
    MONSTER_KINDS,
    NO_CHOICE,
    POINTS,
    SPELLS,
    STAYS_ON_FIELD,
    STOP,
    TARGETED,
    TO_BATTLE,
    TO_END,
    TO_MAIN2,
    TRAPS,
    Cost,
    Effect,
    Kind,
    MonsterEffect,
    Pending,
    Phase,
)
from duelcheck.model.kit import Val
from duelcheck.model.rules import (
    ACTION_BY_NAME,
    ACTION_CODE,
    ACTIONS,
    MONSTER_EFFECTS,
    Params,
    draw_pending,
    main1_ends,
    open_game_state_phase,
    speed,
    winner_if_loses,
)
from duelcheck.model.state import Rejected, State, action_body

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


PROPERTIES: list[Property] = []


def always(name: str, clause: str, doc: str, *checks: Check, certify: Any = None) -> None:
    PROPERTIES.append(Property(name, "always", clause, doc, tuple(replace(c, kind="always") for c in checks), certify))


def sometimes(name: str, clause: str, doc: str, *checks: Check) -> None:
    PROPERTIES.append(Property(name, "sometimes", clause, doc, tuple(replace(c, kind="sometimes") for c in checks)))


def state(fn: StatePred, label: str = "") -> Check:
    return Check(label, "state", fn)


def step(fn: StepPred, label: str = "") -> Check:
    return Check(label, "step", fn)


# -- helpers ----------------------------------------------------------------------------------


def enabled(s: State, name: str, params: dict[str, int]) -> Val:
    """Whether an action instance is enabled in s (a Z3 term when s is symbolic), by the rules the system runs:
    the body is run as the system runs it (a rule changed for mutation analysis is changed here alike), so
    that no-deadlock judges the model being checked, not the rules as written."""
    n = s.edit()
    try:
        with action_body(name):
            ACTION_BY_NAME[name].body(s, Params(params), n)
    except Rejected:
        return False
    return n.guard() if s.k.symbolic else True


def zones(s: State, name: str) -> list[tuple[int, int]]:
    return [(p, z) for p in (0, 1) for z in range(s.schema[name].dims[1])]


def monster_zone_count(s: State) -> int:
    return s.schema["m_occ"].dims[1]


# -- invariants -------------------------------------------------------------------------------


def _well_formed(s: State) -> Val:
    """Structural facts of every reachable state; they make the other invariants provable by induction."""
    return s.k.and_(*well_formed_facts(s))


def well_formed_facts(s: State, budget: bool = True) -> list[Val]:
    """Structural facts of every reachable state. `budget=False` leaves out the deck-out bound on the
    number of turns, which only states reached from the initial state meet (not every board)."""
    k, r = s.k, s.r
    tp = s.tp
    mz, sz, cl = r.monster_zones, r.spell_trap_zones, r.chain_links
    length = s.g("chain_len")
    ph = s.g("phase")
    out: list[Val] = [
        s.g("turn") >= 1,
        k.one_of(ph, [int(p) for p in Phase]),
        k.one_of(s.g("winner"), (0, 1, 2)),
        length >= 0,
        length <= cl,
        s.g("nsum") >= 0,
        s.g("nsum") <= r.normal_summons_per_turn,
        k.implies(s.g("resolving"), length > 0),
        k.implies(s.g("discarding"), k.and_(ph == Phase.END, s.g("hand", tp) > r.hand_limit, length == 0)),
        k.implies(s.g("discarding"), k.not_(s.g("resolving"))),
        # 6.3.6: the discard to the hand limit is the turn player's act: they hold priority until it is done
        k.implies(s.g("discarding"), s.g("prio") == tp),
        # 6.3: each phase and step begins with the turn player holding priority, and a chain resolved gives it
        # back to them: with no chain open the turn player holds priority unless they have just passed
        k.implies(k.and_(length == 0, k.not_(s.g("discarding"))), (s.g("prio") == tp) == k.not_(s.g("passed"))),
        # 6.3 (response window): open only under the rule, in the turn player's open game state of a Main Phase
        # or of the Battle Step with no attack, no chain open, nothing waiting, the duel going on
        k.implies(
            s.g("window"),
            k.and_(
                r.response_window,
                open_game_state_phase(s),
                length == 0,
                k.not_(s.g("resolving")),
                k.not_(s.g("discarding")),
                s.g("winner") == 0,
            ),
        ),
        k.implies(s.is_phase(*BATTLE_PHASE), s.g("bp_done")),
        k.implies(k.and_(s.g("turn") == 1, k.not_(r.first_turn_battle)), k.not_(s.g("bp_done"))),
        k.implies(s.g("drew"), k.or_(s.g("turn") > 1, r.first_turn_draw)),
        # 6.3: on turn 1 the second player has had no turn: no card of theirs on the field, no link or waiting
        # effect of theirs, so nothing has skipped a phase of the first player's (the path that skips Main Phase 1
        # meets the turn-1 Battle Phase rule only on later turns)
        k.implies(
            s.g("turn") == 1,
            k.and_(
                k.not_(s.g("skip_m1", 0)),
                k.not_(s.g("skip_bp", 0)),
                s.g("trig", 1) == Pending.NONE,
                *(k.not_(s.g("m_occ", 1, z)) for z in range(mz)),
                *(k.not_(s.g("s_occ", 1, z)) for z in range(sz)),
                *(k.implies(j < length, s.g("c_owner", j) == 0) for j in range(cl)),
            ),
        ),
        # 6.3.1: before the normal draw nothing is done: the duel goes on, the turn player holds priority, no one
        # has passed
        k.implies(
            draw_pending(s),
            k.and_(
                s.g("winner") == 0,
                s.g("prio") == tp,
                k.not_(s.g("passed")),
                length == 0,
                s.g("trig", 0) == Pending.NONE,
                s.g("trig", 1) == Pending.NONE,
            ),
        ),
        k.implies(ph != Phase.DRAW, k.or_(s.g("drew"), k.not_(k.or_(s.g("turn") > 1, r.first_turn_draw)))),
        k.implies(s.g("attacking"), s.is_phase(Phase.BATTLE_STEP, *DAMAGE_STEP)),
        k.implies(s.g("at_decl"), k.and_(s.g("attacking"), ph == Phase.BATTLE_STEP)),
        k.implies(s.g("replay"), k.and_(s.g("attacking"), ph == Phase.BATTLE_STEP)),
        k.implies(k.not_(s.is_phase(Phase.BATTLE_STEP, *DAMAGE_STEP)), k.not_(s.g("attacking"))),
        s.g("atk_zone") >= 0,
        s.g("atk_zone") < mz,
        s.g("atk_tgt") >= 0,
        k.or_(s.g("atk_tgt") < mz, s.g("atk_tgt") == DIRECT),  # a Monster Zone of the rules, or a direct attack
        k.implies(
            k.and_(s.g("attacking"), ph != Phase.DMG_END),
            k.and_(s.g("m_occ", tp, s.g("atk_zone")), s.g("m_decl", tp, s.g("atk_zone"))),
        ),
        k.implies(
            k.and_(s.g("attacking"), k.not_(s.g("replay")), ph != Phase.DMG_END, s.g("atk_tgt") != DIRECT),
            k.and_(s.g("atk_tgt") < mz, s.g("m_occ", s.other(tp), s.g("atk_tgt"))),
        ),
        k.implies(k.and_(s.g("attacking"), s.is_phase(*DAMAGE_STEP)), k.not_(s.g("replay"))),
    ]
    # 6.3.2, 6.3.5: a phase the rules leave out (Rush Duel: no Standby Phase; no Main Phase 2) is never entered
    if not r.standby_phase:
        out.append(ph != Phase.STANDBY)
    if not r.main_phase_2:
        out.append(ph != Phase.MAIN2)
    # Deck-out bounds the number of turns: each turn after the first starts with a draw.
    turns = 2 * (r.deck_size - r.starting_hand) + 2
    phi = s.g("deck", 0) + s.g("deck", 1) + s.g("turn")
    phi = phi + k.ite(s.g("drew"), 1, 0, w=9) + k.ite(s.g("turn") == 1, 1, 0, w=9)
    if budget:
        out.append(k.implies(s.g("winner") == 0, phi <= turns))
        out.append(s.g("turn") <= turns + 1)
    for p in (0, 1):
        deck, hand = s.g("deck", p), s.g("hand", p)
        out += [deck >= 0, hand >= 0, deck <= r.deck_size, hand <= r.deck_size, deck + hand <= r.deck_size]
        out += [s.g("lp", p) <= r.starting_lp // POINTS, s.g("lp", p) >= -ATK_CAP]
        for z in range(mz):
            occ = s.g("m_occ", p, z)
            out += [s.g("m_atk", p, z) >= 0, s.g("m_atk", p, z) <= ATK_CAP]
            out += [s.g("m_defv", p, z) >= 0, s.g("m_defv", p, z) <= ATK_CAP]
            flags = ("m_up", "m_def", "m_fresh", "m_moved", "m_decl", "m_doomed", "m_used")
            empty = k.and_(
                *(k.not_(s.g(f, p, z)) for f in flags),
                s.g("m_atk", p, z) == 0,
                s.g("m_defv", p, z) == 0,
                s.g("m_kind", p, z) == 0,
            )
            out.append(k.implies(k.not_(occ), empty))
            out.append(_monster_effect(s, s.g("m_kind", p, z), s.g("m_eff", p, z)))
            used_by = k.one_of(s.g("m_kind", p, z), (MonsterEffect.IGNITION, MonsterEffect.QUICK))
            out.append(k.implies(s.g("m_used", p, z), used_by))
            # 6.3.4.3.5: a monster destroyed by battle is sent to the Graveyard when the Damage Step ends
            out.append(k.implies(s.g("m_doomed", p, z), ph == Phase.DMG_AFTER))
            out.append(k.implies(k.and_(occ, k.not_(s.g("m_up", p, z))), s.g("m_def", p, z)))
            out.append(k.implies(s.g("m_decl", p, z), k.and_(p == tp, s.g("bp_done"))))
        for z in range(sz):
            occ = s.g("s_occ", p, z)
            out.append(k.one_of(s.g("s_kind", p, z), [int(x) for x in (*SPELLS, *TRAPS)]))
            out.append(k.one_of(s.g("s_eff", p, z), [int(e) for e in Effect]))
            out.append(k.one_of(s.g("s_cost", p, z), [int(c) for c in Cost]))
            empty = k.and_(
                k.not_(s.g("s_up", p, z)),
                k.not_(s.g("s_fresh", p, z)),
                s.g("s_kind", p, z) == 0,
                s.g("s_eff", p, z) == 0,
                s.g("s_cost", p, z) == 0,
            )
            out.append(k.implies(k.not_(occ), empty))
            out.append(k.implies(s.g("s_fresh", p, z), k.and_(p == tp, k.not_(s.g("s_up", p, z)))))
        pending, zone = s.g("trig", p), s.g("trig_zone", p)
        out += [
            k.one_of(pending, [int(x) for x in Pending]),
            k.implies(pending == Pending.NONE, k.and_(s.g("trig_eff", p) == 0, zone == 0)),
            k.implies(
                pending != Pending.NONE,
                k.one_of(
                    s.g("trig_eff", p), (*MONSTER_EFFECTS[MonsterEffect.FLIP], *MONSTER_EFFECTS[MonsterEffect.TRIGGER])
                ),
            ),
            k.implies(
                pending == Pending.FLIPPED,
                k.and_(s.is_phase(Phase.DMG_BEFORE, Phase.DMG_DURING), p != tp, zone >= 0, zone < mz),
            ),
            k.implies(pending == Pending.FLIP_DUE, k.and_(zone >= 0, zone < mz)),
            k.implies(pending == Pending.TRIGGER_DUE, k.and_(ph == Phase.DMG_END, zone == GRAVEYARD)),
            k.implies(k.one_of(pending, (Pending.FLIP_DUE, Pending.TRIGGER_DUE)), k.not_(s.g("discarding"))),
            # a waiting effect waits for the chain to resolve, or joins, second, the turn player's effect
            # triggered with it (6.3.4.3.4: they chain by priority, the turn player's first)
            k.implies(
                k.and_(k.one_of(pending, (Pending.FLIP_DUE, Pending.TRIGGER_DUE)), k.not_(s.g("resolving"))),
                k.or_(
                    length == 0,
                    k.and_(
                        length == 1,
                        p != tp,
                        s.g("c_owner", 0) == tp,
                        k.one_of(s.g("c_kind", 0), (Kind.FLIP, Kind.TRIGGER)),
                    ),
                ),
            ),
        ]
    for j in range(cl):
        live_link = j < length
        zone = s.g("c_zone", j)
        owner = s.g("c_owner", j)
        blank = k.and_(
            *(s.g(f, j) == 0 for f in ("c_owner", "c_kind", "c_eff", "c_zone", "c_tp", "c_ta", "c_tz", "c_cost")),
            k.not_(s.g("c_neg", j)),
            k.not_(s.g("c_gone", j)),
        )
        out.append(k.implies(k.not_(live_link), blank))
        card_there = k.and_(
            s.g("s_occ", owner, zone),
            s.g("s_up", owner, zone),
            s.g("s_kind", owner, zone) == s.g("c_kind", j),
            s.g("s_eff", owner, zone) == s.g("c_eff", j),
            s.g("s_cost", owner, zone) == s.g("c_cost", j),
        )
        kind = s.g("c_kind", j)
        is_card = k.one_of(kind, [int(x) for x in (*SPELLS, *TRAPS)])
        monster_link = k.or_(
            k.and_(k.one_of(kind, (Kind.IGNITION, Kind.QUICK_EFFECT, Kind.FLIP)), zone >= 0, zone < mz),
            k.and_(kind == Kind.TRIGGER, zone == GRAVEYARD),
        )
        out.append(
            k.implies(
                live_link,
                k.and_(
                    s.g("c_tz", j) >= 0,
                    s.g("c_tz", j) < max(mz, sz),
                    k.one_of(s.g("c_eff", j), [int(e) for e in Effect]),
                    k.one_of(s.g("c_cost", j), [int(c) for c in Cost]),
                    k.implies(s.g("c_eff", j) == Effect.NEGATE, j > 0),
                    # a link whose effect takes no target records none (its trace names no target)
                    k.implies(
                        k.not_(k.one_of(s.g("c_eff", j), TARGETED)),
                        k.and_(*(s.g(f, j) == 0 for f in ("c_tp", "c_ta", "c_tz"))),
                    ),
                    k.or_(
                        k.and_(is_card, zone >= 0, zone < sz, k.implies(k.not_(s.g("c_gone", j)), card_there)),
                        k.and_(monster_link, k.not_(s.g("c_gone", j)), s.g("c_cost", j) == 0),
                    ),
                ),
            )
        )
        for i in range(j):  # two live links never share a card
            out.append(
                k.implies(
                    k.and_(live_link, is_card, k.not_(s.g("c_gone", j)), k.not_(s.g("c_gone", i))),
                    k.or_(
                        s.g("c_owner", i) != owner, s.g("c_zone", i) != zone, k.one_of(s.g("c_kind", i), MONSTER_KINDS)
                    ),
                )
            )
    return out


def _monster_effect(s: State, mkind: Val, eff: Val) -> Val:
    """A monster's effect type and effect are a pair of the model's monster catalogue."""
    k = s.k
    pairs = [k.and_(mkind == m, k.one_of(eff, effects)) for m, effects in MONSTER_EFFECTS.items()]
    return k.or_(k.and_(mkind == 0, eff == 0), *pairs)


always(
    "well-formed",
    "model",
    "Structural facts of every reachable state (ranges, empty zones blank, links on the chain have their card "
    "face-up on the field, an attack has its attacker); the other invariants are proved relative to it.",
    state(_well_formed),
)


always(
    "main2-only-after-battle",
    "6.3.5",
    "Main Phase 2 is entered only after a Battle Phase in the same turn.",
    # what happened this turn, from the property layer's history (the rules' own flag is `bp_done`)
    state(lambda s: s.k.implies(s.g("phase") == Phase.MAIN2, s.g("h_battled") == 1)),
)


def _chain_speeds(s: State) -> Val:
    k = s.k
    out = []
    triggered = (Kind.FLIP, Kind.TRIGGER)
    for i in range(1, s.r.chain_links):
        here, below = speed(s, s.g("c_kind", i)), speed(s, s.g("c_kind", i - 1))
        # 6.3.4.3.4, 6.3.4.3.5: effects triggered at the same timing form one chain by priority, whatever their speed
        same_timing = k.and_(k.one_of(s.g("c_kind", i), triggered), k.one_of(s.g("c_kind", i - 1), triggered))
        out.append(k.implies(i < s.g("chain_len"), k.or_(k.and_(here >= 2, here >= below), same_timing)))
    return k.and_(*out)


always(
    "chain-speed-legal",
    "seed 000 (spell speeds)",
    "Every chain link 2 or higher is speed 2 or more and at least the speed of the link it answers (effects "
    "triggered at the same timing chain by priority, 6.3.4.3.4).",
    state(_chain_speeds),
)


def _lifo(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    same_below = [
        k.implies(
            j < t.g("chain_len"),
            k.and_(*(s.g(f, j) == t.g(f, j) for f in ("c_owner", "c_kind", "c_eff", "c_zone"))),
        )
        for j in range(s.r.chain_links)
    ]
    resolved = k.implies(a.is_("resolve"), k.and_(t.g("chain_len") == s.g("chain_len") - 1, *same_below))
    grows = k.implies(
        t.g("chain_len") > s.g("chain_len"),
        k.and_(
            k.or_(a.is_("activate"), a.is_("trigger")),
            k.not_(s.g("resolving")),
            t.g("chain_len") == s.g("chain_len") + 1,
        ),
    )
    return k.and_(resolved, grows)


always(
    "chain-resolves-lifo",
    "seed 000 (chain)",
    "A chain resolves from its last link down, one link at a time, and gains no link while it resolves.",
    step(_lifo),
)


def _battle(s: State) -> dict[str, Val]:
    """The battle at damage calculation, read from the state before it (6.3.4.3.3)."""
    tp = s.tp
    opp = s.other(tp)
    z, t = s.g("atk_zone"), s.g("atk_tgt")
    return {
        "tp": tp,
        "opp": opp,
        "a": s.g("m_atk", tp, z),
        "ta": s.g("m_atk", opp, t),
        "td": s.g("m_defv", opp, t),
        "def": s.g("m_def", opp, t),
        "direct": t == DIRECT,
        "z": z,
        "t": t,
    }


def _is_damage_calc(s: State, t: State) -> Val:
    return s.k.and_(s.g("phase") == Phase.DMG_DURING, t.g("phase") == Phase.DMG_AFTER, s.g("attacking"))


def _damage_table(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.3.3 and 6.3.4.3.3.1, restated: expected LP loss and destruction for each row."""
    k = s.k
    b = _battle(s)
    atk, opp_atk, opp_def = b["a"], b["ta"], b["td"]
    vs_atk = k.and_(k.not_(b["direct"]), k.not_(b["def"]))
    vs_def = k.and_(k.not_(b["direct"]), b["def"])
    zero = 0
    loss_opp = k.ite(
        b["direct"],
        atk,
        k.ite(k.and_(vs_atk, atk > opp_atk), atk - opp_atk, zero),
    )
    loss_tp = k.ite(
        k.and_(vs_atk, atk < opp_atk),
        opp_atk - atk,
        k.ite(k.and_(vs_def, atk < opp_def), opp_def - atk, zero),
    )
    tie = k.and_(vs_atk, atk == opp_atk, atk != 0)
    doom_target = k.or_(k.and_(vs_atk, k.or_(atk > opp_atk, tie)), k.and_(vs_def, atk > opp_def))
    doom_attacker = k.and_(vs_atk, k.or_(atk < opp_atk, tie))
    tp, opp = b["tp"], b["opp"]
    row = k.and_(
        t.g("lp", opp) == s.g("lp", opp) - loss_opp,
        t.g("lp", tp) == s.g("lp", tp) - loss_tp,
        k.implies(
            k.not_(b["direct"]), t.g("m_doomed", opp, b["t"]) == k.or_(doom_target, s.g("m_doomed", opp, b["t"]))
        ),
        t.g("m_doomed", tp, b["z"]) == k.or_(doom_attacker, s.g("m_doomed", tp, b["z"])),
    )
    no_battle = k.and_(*(t.g("lp", p) == s.g("lp", p) for p in (0, 1)))
    calc = k.and_(s.g("phase") == Phase.DMG_DURING, t.g("phase") == Phase.DMG_AFTER)
    return k.and_(
        k.implies(_is_damage_calc(s, t), row),
        k.implies(k.and_(calc, k.not_(s.g("attacking"))), no_battle),
    )


always(
    "battle-damage-table",
    "6.3.4.3.3, 6.3.4.3.3.1",
    "Damage calculation follows the table of seed 000 exactly, row by row (0 against 0: nothing).",
    step(_damage_table),
)

always(
    "first-turn-no-draw",
    "6.3.1",
    "The player who goes first makes no normal draw on turn 1.",
    step(lambda s, a, t: s.k.implies(s.g("turn") == 1, s.k.not_(a.is_("normal_draw")))),
)

always(
    "one-normal-draw-per-draw-phase",
    "6.3.1",
    "The turn player makes at most one normal draw in a Draw Phase (counted by the property layer: normal "
    "draws made since the Draw Phase began).",
    state(lambda s: s.g("h_draws") <= 1),
)

always(
    "first-turn-no-battle",
    "6.3.4",
    "The player who goes first conducts no Battle Phase on turn 1.",
    state(lambda s: s.k.implies(s.g("turn") == 1, s.k.not_(s.is_phase(*BATTLE_PHASE)))),
)


def _hand_limit(s: State, a: ActionView, t: State) -> Val:
    k, r = s.k, s.r
    tp = s.tp
    # 6.3.6, read with the knobs: the limit is a parameter, and a rule set may have none at all
    ends = k.implies(k.and_(r.hand_limit_enforced, t.g("turn") != s.g("turn")), t.g("hand", tp) <= r.hand_limit)
    discards = k.implies(
        a.is_("discard"),
        k.and_(s.g("phase") == Phase.END, t.g("hand", tp) >= r.hand_limit, t.g("hand", tp) == s.g("hand", tp) - 1),
    )
    opponent_keeps = k.implies(a.is_("discard"), t.g("hand", s.other(tp)) == s.g("hand", s.other(tp)))
    return k.and_(ends, discards, opponent_keeps)


always(
    "hand-limit-at-turn-end",
    "6.3.6",
    "A turn ends with the turn player holding no more than the hand limit; discards stop at the limit "
    "and only the turn player discards.",
    step(_hand_limit),
)


always(
    "normal-summon-limit",
    "6.3.5",
    "At most the allowed number of Normal Summons or Sets per turn, counted across Main Phase 1 and 2 (counted "
    "by the property layer: Normal Summons and Sets made this turn).",
    state(lambda s: s.g("h_summons") <= s.r.normal_summons_per_turn),
)


def _one_attack(s: State) -> Val:
    # read from the property layer's history (properties/history.py), not from the rule's own flag
    return s.k.and_(*(s.g("h_attacks", p, z) <= 1 for p, z in zones(s, "m_occ")))


always(
    "one-attack-declaration-per-monster",
    "6.3.4.2, 6.3.4.2.1",
    "A monster declares at most one attack per turn; stopping on a replay still counts as declared (counted "
    "by the property layer: attacks declared this turn by the monster in each zone).",
    state(_one_attack),
)


def _positions(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    tp = s.tp
    out = []
    for p, y in zones(s, "m_occ"):
        stays = k.and_(s.g("m_occ", p, y), t.g("m_occ", p, y))
        changed = k.and_(stays, s.g("m_def", p, y) != t.g("m_def", p, y))
        here = k.and_(p == tp, a.p("zone") == y, s.is_phase(*MAIN_PHASES))
        # what happened this turn, from the property layer's history: the position changes its controller made
        # to this monster, and the attacks it declared (not the rules' own flags)
        unmoved = k.and_(s.g("h_moves", p, y) == 0, s.g("h_arrived", p, y) == 0)
        manual = k.and_(a.is_("change_position"), here, unmoved, s.g("h_attacks", p, y) == 0)
        flip = k.and_(a.is_("flip_summon"), here, unmoved)
        top = s.g("chain_len") - 1
        by_effect = k.and_(
            a.is_("resolve"),
            k.one_of(s.g("c_eff", top), (Effect.CHANGE_POSITION, Effect.SET_FACE_DOWN)),
            k.not_(negated_link(s)),
            s.g("c_tp", top) == p,
            s.g("c_ta", top) == 0,
            s.g("c_tz", top) == y,
        )
        out.append(k.implies(changed, k.or_(manual, flip, by_effect)))
    return k.and_(*out)


always(
    "position-change-rules",
    "seed 000 (battle positions), 6.3.3",
    "A battle position changes by the turn player in a Main Phase (once per turn, not on the turn the monster "
    "arrived, not after it declared an attack), or by a resolving effect that targets the monster.",
    step(_positions),
)


def _set_not_same_turn(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    p, z = s.g("prio"), a.p("zone")
    from_set = k.and_(a.is_("activate"), z != HAND, k.not_(k.one_of(a.p("kind"), MONSTER_KINDS)))
    quick_or_trap = k.one_of(s.g("s_kind", p, z), (*TRAPS, Kind.QUICK_SPELL))
    return k.implies(k.and_(from_set, quick_or_trap), s.g("h_set", p, z) == 0)  # Set this turn (history)


always(
    "set-trap-not-same-turn",
    "seed 000 (Spells and Traps)",
    "A Trap, or a Set Quick-Play Spell, is never activated on the turn it was Set.",
    step(_set_not_same_turn),
)


def _damage_step_activations(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    kind, eff = a.p("kind"), a.p("eff")
    before_calc = s.is_phase(Phase.DMG_START, Phase.DMG_BEFORE)
    if s.r.damage_step_activations == "seed-000":  # the older overview's reading
        allowed = k.and_(before_calc, k.or_(kind == Kind.COUNTER_TRAP, eff == Effect.CHANGE_ATK))
    else:
        allowed = k.or_(kind == Kind.COUNTER_TRAP, eff == Effect.NEGATE, k.and_(eff == Effect.CHANGE_ATK, before_calc))
    # triggered effects: a battle-destroyed monster's effect is activated at the end of the Damage Step
    new = s.g("chain_len")
    destroyed = k.and_(a.is_("trigger"), a.p("pos"), t.g("c_kind", new) == Kind.TRIGGER)
    triggered = k.implies(destroyed, s.g("phase") == Phase.DMG_END)
    return k.and_(k.implies(k.and_(a.is_("activate"), s.is_phase(*DAMAGE_STEP)), allowed), triggered)


always(
    "damage-step-activations",
    "6.3.4.3",
    "In the Damage Step only Counter Traps, negating effects and (up to before damage calculation) ATK/DEF "
    "changes are activated (under the seed-000 reading: ATK/DEF changes and Counter Traps, up to before damage "
    "calculation); a battle-destroyed monster's effect only at the end of the Damage Step.",
    step(_damage_step_activations),
)


def _turned_face_up(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.3.2: a face-down monster that battles becomes face-up Defense Position at the timing "before damage
    calculation" (the step from the start of the Damage Step to it); no other monster is turned face-up or
    face-down by that step."""
    k = s.k
    into = k.and_(s.g("phase") == Phase.DMG_START, t.g("phase") == Phase.DMG_BEFORE)
    tgt = s.g("atk_tgt")
    battles = k.and_(s.g("attacking"), tgt != DIRECT)
    out = []
    for p, z in zones(s, "m_occ"):
        target = k.and_(battles, s.other(s.tp) == p, tgt == z, s.g("m_occ", p, z))
        turned = k.and_(t.g("m_up", p, z), k.implies(k.not_(s.g("m_up", p, z)), t.g("m_def", p, z)))
        out += [k.implies(target, turned), k.implies(k.not_(target), t.g("m_up", p, z) == s.g("m_up", p, z))]
    return k.implies(into, k.and_(*out))


always(
    "face-down-battler-turned-face-up",
    "6.3.4.3.2",
    "A face-down monster that is attacked becomes face-up Defense Position before damage calculation, and that "
    "step turns no other monster.",
    step(_turned_face_up),
)


def _replay_place(s: State) -> Val:
    k = s.k
    return k.implies(s.g("replay"), k.and_(s.g("phase") == Phase.BATTLE_STEP, s.g("attacking")))


def _replay_step(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    return k.implies(
        a.is_("replay_select"),
        k.and_(s.g("phase") == Phase.BATTLE_STEP, k.not_(t.g("at_decl"))),
    )


def _trigger_waits(s: State) -> Val:
    """A player's triggered effect waits to be activated (the property layer's `h_triggers` at 2)."""
    return s.k.or_(s.g("h_triggers", 0) == 2, s.g("h_triggers", 1) == 2)


def _replay_seen(s: State) -> Val:
    """6.3.4.2.1: a replay is due (history: the opponent's monsters changed in number during the attack in the
    Battle Step, and the attacker has not chosen again since), once the chain in progress has resolved."""
    k = s.k
    return k.and_(s.g("h_replay") == 1, s.g("attacking"), s.g("chain_len") == 0, s.g("h_resolving") == 0)


def _replay_first(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.2.1: once a replay is due, the attacker's new choice comes before anything else is done (a
    triggered effect that is waiting goes first, 6.3.4.3.4); and a new choice is made only then, once per
    replay."""
    k = s.k
    due = _replay_seen(s)
    return k.and_(
        k.implies(k.and_(due, k.not_(_trigger_waits(s))), a.is_("replay_select")),
        k.implies(a.is_("replay_select"), due),
    )


always(
    "replay-only-in-battle-step",
    "6.3.4.2.1",
    "A replay is pending and taken only in the Battle Step, never in the Damage Step, and the re-selection "
    "is not an attack declaration; once a replay is due, the attacker chooses before anything else is done, "
    "once per replay (what changed on the field is kept by the property layer).",
    state(_replay_place, "pending"),
    step(_replay_step, "re-selection"),
    step(_replay_first, "chosen-first"),
)


def _deck_out(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    tp = s.tp
    # 6.3.1: the normal draw is one card, or (draw_until, Rush Duel) cards up to that many in hand, at least one
    hand, until = s.g("hand", tp), s.r.draw_until
    wanted = 1 if until == 0 else k.ite(hand < until, until - hand, 1, w=s.schema["hand"].width)
    empty_draw = k.and_(a.is_("normal_draw"), s.g("deck", tp) < wanted)
    drawn = k.and_(a.is_("normal_draw"), k.not_(s.g("deck", tp) < wanted))
    return k.and_(
        k.implies(empty_draw, t.g("winner") == winner_if_loses(s, tp)),
        # and only then: a deck that holds the cards to draw gives them, and the duel goes on
        k.implies(drawn, k.and_(t.g("winner") == s.g("winner"), t.g("deck", tp) == s.g("deck", tp) - wanted)),
        t.g("deck", 0) >= 0,
        t.g("deck", 1) >= 0,
    )


always(
    "deck-out-loses",
    "6.3.1",
    "A player who must make the normal draw from an empty deck loses the duel, and only then: a deck that holds "
    "the cards drawn gives them and the duel goes on; a deck never goes below 0.",
    step(_deck_out),
)

_NEXT: dict[Phase, tuple[Phase, ...]] = {
    Phase.DRAW: (Phase.STANDBY,),
    Phase.STANDBY: (Phase.MAIN1, Phase.BATTLE_START, Phase.END),  # seed 000: Main Phase 1 skipped
    Phase.MAIN1: (Phase.BATTLE_START, Phase.END),
    Phase.BATTLE_START: (Phase.BATTLE_STEP,),
    Phase.BATTLE_STEP: (Phase.DMG_START, Phase.BATTLE_END),
    Phase.DMG_START: (Phase.DMG_BEFORE,),
    Phase.DMG_BEFORE: (Phase.DMG_DURING,),
    Phase.DMG_DURING: (Phase.DMG_AFTER,),
    Phase.DMG_AFTER: (Phase.DMG_END,),
    Phase.DMG_END: (Phase.BATTLE_STEP,),
    Phase.BATTLE_END: (Phase.MAIN2,),  # or the End Phase where there is no Main Phase 2 (below)
    Phase.MAIN2: (Phase.END,),
    Phase.END: (Phase.DRAW,),
}


def _phase_order(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    before, after = s.g("phase"), t.g("phase")
    order = dict(_NEXT)
    if not s.r.standby_phase:  # 6.3.2 read with the knob: without a Standby Phase the Draw Phase leads on
        order[Phase.DRAW] = _NEXT[Phase.STANDBY]
        del order[Phase.STANDBY]
    if not s.r.main_phase_2:  # 6.3.5 read with the knob: without Main Phase 2 the Battle Phase leads to the End Phase
        order[Phase.BATTLE_END] = (Phase.END,)
    moves = [k.and_(before == p, k.one_of(after, [int(q) for q in nxt])) for p, nxt in order.items()]
    turn_ok = k.or_(
        t.g("turn") == s.g("turn"),
        k.and_(t.g("turn") == s.g("turn") + 1, before == Phase.END, after == Phase.DRAW),
    )
    changes_by_pass = k.or_(a.is_("pass"), a.is_("end_step"), a.is_("discard"))
    # 6.3.4.4: a resolving effect that ends the Battle Phase goes straight to the End Step
    top = s.g("chain_len") - 1
    ends_bp = k.and_(
        a.is_("resolve"),
        s.g("c_eff", top) == Effect.END_BATTLE_PHASE,
        k.not_(negated_link(s)),
        s.is_phase(Phase.BATTLE_START, Phase.BATTLE_STEP),
        after == Phase.BATTLE_END,
    )
    return k.and_(k.or_(before == after, k.and_(k.or_(*moves), changes_by_pass), ends_bp), turn_ok)


always(
    "phase-order",
    "6.3",
    "Phases and steps follow 6.3 in order (Draw, Standby, Main 1, Battle Phase steps, Main 2, End), and "
    "change only when both players have passed, or by an effect that ends the Battle Phase (6.3.4.4).",
    step(_phase_order),
)


def _conservation(s: State) -> Val:
    k, r = s.k, s.r
    out = []
    for p in (0, 1):
        field = s.count(s.row("m_occ", p)) + s.count(s.row("s_occ", p))
        total = s.g("deck", p) + s.g("hand", p) + s.g("gy", p) + field
        out.append(total == r.deck_size)
    return k.and_(*out)


always(
    "card-conservation",
    "seed 000 (duel set-up)",
    "Deck + hand + field + Graveyard is the deck size, for each player, always.",
    state(_conservation),
)


def _lp(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    calc = k.and_(s.g("phase") == Phase.DMG_DURING, t.g("phase") == Phase.DMG_AFTER)
    out = []
    for p in (0, 1):
        paid = k.and_(a.is_("activate"), a.p("cost") == Cost.PAY_LP, s.g("prio") == p)
        cost = k.and_(paid, t.g("lp", p) == s.g("lp", p) - LP_COST)
        out.append(k.implies(t.g("lp", p) != s.g("lp", p), k.or_(k.and_(calc, t.g("lp", p) < s.g("lp", p)), cost)))
    return k.and_(*out)


always(
    "lp-accounting",
    "6.3.4.3.3, 6.3.4.3.3.2, seed 000 (costs)",
    "Life Points change only downward: by battle damage at damage calculation, or by an LP cost the activating "
    "player pays (1000 LP).",
    step(_lp),
)

always(
    "lp-zero-ends-duel",
    "seed 000 (winning)",
    "A player whose LP are 0 or less has lost: the duel is over.",
    state(lambda s: s.k.implies(s.k.or_(s.g("lp", 0) <= 0, s.g("lp", 1) <= 0), s.g("winner") != 0)),
)


def _face_down_attack(s: State) -> Val:
    k = s.k
    return k.and_(
        *(k.implies(s.g("m_occ", p, z), k.or_(s.g("m_up", p, z), s.g("m_def", p, z))) for p, z in zones(s, "m_occ"))
    )


always(
    "no-face-down-attack",
    "seed 000 (battle positions)",
    "No monster is ever in face-down Attack Position.",
    state(_face_down_attack),
)


def _special_face_up(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    joined = [
        k.implies(k.and_(k.not_(s.g("m_occ", p, z)), t.g("m_occ", p, z)), t.g("m_up", p, z))
        for p, z in zones(s, "m_occ")
    ]
    return k.implies(a.is_("resolve"), k.and_(*joined))


always(
    "special-summon-face-up",
    "seed 000 (battle positions)",
    "A Special Summon is never face-down.",
    step(_special_face_up),
)

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
)


def _no_deadlock(s: State) -> Val:
    k = s.k
    return k.implies(s.g("winner") == 0, k.or_(*(enabled(s, name, params) for name, params in PROGRESS)))


def _really_stuck(system: Any, s: State) -> bool:
    """A reported deadlock is real only if no action at all is enabled (the progress set is a sufficient check)."""
    return next(iter(system.successors(s)), None) is None


always(
    "no-deadlock",
    "6.3",
    "Every state in which the duel goes on has an enabled action.",
    state(_no_deadlock),
    certify=_really_stuck,
)


def _to_graveyard_at_damage_end(s: State, a: ActionView, t: State) -> Val:
    k = s.k
    enters_end = k.and_(s.g("phase") == Phase.DMG_AFTER, t.g("phase") == Phase.DMG_END)
    out = []
    for p in (0, 1):
        doomed = [s.g("m_doomed", p, z) for z in range(monster_zone_count(s))]
        gone = [k.implies(d, k.not_(t.g("m_occ", p, z))) for z, d in enumerate(doomed)]
        out.append(k.implies(enters_end, k.and_(*gone, t.g("gy", p) == s.g("gy", p) + s.count(doomed))))
        kept = [k.implies(s.g("m_doomed", p, z), t.g("m_occ", p, z)) for z in range(monster_zone_count(s))]
        out.append(k.implies(k.not_(enters_end), k.and_(*kept)))
    return k.and_(*out)


always(
    "battle-destroyed-to-graveyard-at-damage-step-end",
    "6.3.4.3.3, 6.3.4.3.5",
    "A monster determined destroyed by battle stays on the field until the end of the Damage Step and is sent "
    "to the Graveyard as that timing begins, before its effects are activated.",
    step(_to_graveyard_at_damage_end),
)


def _no_target_destroyed(s: State, a: ActionView, t: State) -> Val:
    """Read from what happened: a new chain link whose target is a monster."""
    k = s.k
    new = s.g("chain_len")
    added = t.g("chain_len") == new + 1
    chooses = k.and_(added, k.one_of(t.g("c_eff", new), TARGETED), t.g("c_ta", new) == 0)
    return k.implies(chooses, k.not_(s.g("m_doomed", t.g("c_tp", new), t.g("c_tz", new))))


always(
    "no-target-determined-destroyed",
    "6.3.4.3.3",
    "A monster determined destroyed by battle is never chosen as the target of an effect before it is sent "
    "to the Graveyard.",
    step(_no_target_destroyed),
)


# -- witnesses --------------------------------------------------------------------------------

# -- timing and priority, read from what happened: who acted, which action, the chain it opened --------


_MAIN_ACTS = ("normal_summon", "set_monster", "flip_summon", "change_position", "set_spell_trap")


def _main_timing(s: State, a: ActionView, t: State) -> Val:
    """6.3.3: summons, Sets and position changes are the turn player's acts in their own Main Phase, with
    the turn player holding priority, no chain open or resolving, no attack going on, the duel not over."""
    k = s.k
    acted = k.or_(*(a.is_(name) for name in _MAIN_ACTS))
    when = k.and_(
        s.is_phase(*MAIN_PHASES),
        s.g("chain_len") == 0,
        k.not_(s.g("resolving")),
        s.g("prio") == s.tp,
        k.not_(s.g("attacking")),
    )
    return k.implies(acted, when)


def _attack_timing(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.2: an attack is declared in the Battle Step by the turn player holding priority, with no chain
    open and no other attack going on."""
    k = s.k
    when = k.and_(
        s.g("phase") == Phase.BATTLE_STEP,
        s.g("chain_len") == 0,
        k.not_(s.g("resolving")),
        s.g("prio") == s.tp,
        k.not_(s.g("attacking")),
    )
    return k.implies(a.is_("declare_attack"), when)


always(
    "summon-and-attack-timing",
    "6.3.3, 6.3.4.2",
    "Summons, Sets and position changes happen in the turn player's Main Phase, attack declarations in the "
    "Battle Step, one attack at a time; each by the turn player holding priority with no chain open.",
    step(_main_timing, "main-phase"),
    step(_attack_timing, "attack"),
)

SPEED_1 = (Kind.NORMAL_SPELL, Kind.CONT_SPELL, Kind.EQUIP_SPELL, Kind.FIELD_SPELL, Kind.RITUAL_SPELL, Kind.IGNITION)


def new_link(s: State, t: State) -> tuple[Val, Val, Val, Val]:
    """Whether the step added a chain link, and that link's kind, effect and activating player."""
    i = s.g("chain_len")
    added = t.g("chain_len") == i + 1
    return added, t.g("c_kind", i), t.g("c_eff", i), t.g("c_owner", i)


def _speed_1(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 (spell speeds): a Spell Speed 1 activation (a Normal, Continuous, Equip, Field or Ritual Spell,
    an Ignition effect) starts a chain, in its player's own Main Phase."""
    k = s.k
    added, kind, _, owner = new_link(s, t)
    speed1 = k.and_(added, k.one_of(kind, [int(x) for x in SPEED_1]))
    return k.implies(speed1, k.and_(s.g("chain_len") == 0, s.is_phase(*MAIN_PHASES), owner == s.tp))


def _quick_play_from_hand(s: State, a: ActionView, t: State) -> Val:
    """Seed 000: a Quick-Play Spell is activated from the hand only in its player's own turn."""
    k = s.k
    added, kind, _, owner = new_link(s, t)
    from_hand = k.and_(added, a.is_("activate"), a.p("zone") == HAND, kind == Kind.QUICK_SPELL)
    return k.implies(from_hand, owner == s.tp)


def _attack_negation(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.2, 6.3.4.2.1: a card that negates an attack answers its declaration: it is activated while the
    attack is going on, in the chain that answers the declaration (history: from the declaration until that
    chain has resolved or the step moves on), never after a replay's re-selection, which is no declaration."""
    k = s.k
    added, _, eff, _ = new_link(s, t)
    return k.implies(k.and_(added, eff == Effect.NEGATE_ATTACK), k.and_(s.g("attacking"), s.g("h_declared") == 1))


def _monster_effect_once(s: State, a: ActionView, t: State) -> Val:
    """Model catalogue: a monster's Ignition or Quick effect is activated once per turn (history: the monster
    now in that zone has not activated it this turn)."""
    k = s.k
    added, kind, _, owner = new_link(s, t)
    z = a.p("zone")
    act = k.and_(a.is_("activate"), added, k.one_of(kind, (Kind.IGNITION, Kind.QUICK_EFFECT)))
    fresh = k.or_(*(k.and_(owner == p, z == y, s.g("h_used", p, y) == 0) for p, y in zones(s, "m_occ")))
    return k.implies(act, fresh)


always(
    "activation-timing",
    "seed 000 (spell speeds), 6.3.4.2",
    "A Spell Speed 1 activation starts a chain in its player's own Main Phase; a Quick-Play Spell comes from "
    "the hand only in its player's turn; an attack is negated only in the chain answering its declaration; "
    "a monster's effect is activated once per turn.",
    step(_speed_1, "speed-1"),
    step(_quick_play_from_hand, "quick-play-from-hand"),
    step(_attack_negation, "attack-negation"),
    step(_monster_effect_once, "monster-effect-once-per-turn"),
)


def _other_player_responds(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 (chains): after each new chain link, activated or triggered, the other player may respond
    first: they hold priority."""
    k = s.k
    added, _, _, owner = new_link(s, t)
    return k.implies(k.and_(added, k.or_(a.is_("activate"), a.is_("trigger"))), t.g("prio") == s.other(owner))


always(
    "responses-after-each-link",
    "seed 000 (chains)",
    "After each new chain link the other player holds priority: they may respond first.",
    step(_other_player_responds),
)


def _battler_left(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.2: an attack whose attacker leaves the field cannot go on; 6.3.4.3.3: nor one whose target leaves
    the field during the Damage Step (there is no damage calculation). A monster destroyed by battle leaves
    when the Damage Step ends, and the battle is over then: this reads a monster leaving with the phase
    unchanged."""
    k = s.k
    attacker, target = _battlers_gone(s, t)
    left = k.and_(s.g("attacking"), t.g("phase") == s.g("phase"), t.g("turn") == s.g("turn"), k.or_(attacker, target))
    return k.implies(left, k.not_(t.g("attacking")))


def _battlers_gone(s: State, t: State) -> tuple[Val, Val]:
    """The step took the attacker off the field (6.3.4.2), and the target during the Damage Step (6.3.4.3.3)."""
    k, tp = s.k, s.tp
    opp = s.other(tp)
    az, tz = s.g("atk_zone"), s.g("atk_tgt")
    attacker = k.and_(s.g("m_occ", tp, az), k.not_(t.g("m_occ", tp, az)))
    target = k.and_(s.is_phase(*DAMAGE_STEP), tz != DIRECT, s.g("m_occ", opp, tz), k.not_(t.g("m_occ", opp, tz)))
    return attacker, target


def _attacker_to_defense(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.2: an attacker that changes to Defense Position in the Battle Step (by an effect: a position
    change, or Set face-down) cannot go on battling: the attack ends there and no Damage Step follows."""
    k, tp = s.k, s.tp
    az = s.g("atk_zone")
    stays = k.and_(t.g("phase") == s.g("phase"), t.g("turn") == s.g("turn"), s.g("phase") == Phase.BATTLE_STEP)
    there = k.and_(s.g("m_occ", tp, az), t.g("m_occ", tp, az))
    changed = k.and_(s.g("attacking"), stays, there, k.not_(s.g("m_def", tp, az)), t.g("m_def", tp, az))
    return k.implies(changed, k.not_(t.g("attacking")))


def _attacker_stands(s: State) -> Val:
    """6.3.4.2: an attack is declared by a face-up Attack Position monster, and in the Battle Step it goes on
    only while its attacker is there in face-up Attack Position."""
    k, tp = s.k, s.tp
    az = s.g("atk_zone")
    stands = k.and_(s.g("m_occ", tp, az), s.g("m_up", tp, az), k.not_(s.g("m_def", tp, az)))
    return k.implies(k.and_(s.g("attacking"), s.g("phase") == Phase.BATTLE_STEP), stands)


def _attack_end_reason(s: State, a: ActionView, t: State) -> Val:
    """An attack ends only for a reason the rules give: its battle is over when the Damage Step ends
    (6.3.4.3.5); its attacker leaves the field, or changes to Defense Position in the Battle Step, or the
    attack is negated (6.3.4.2); its target leaves the field during the Damage Step (6.3.4.3.3); the attacking
    player stops after a replay (6.3.4.2.1); an effect ends the Battle Phase (6.3.4.4). A monster of another
    zone, or of the other player, changing position ends no attack, nor does the attacker in the Damage Step."""
    k, tp = s.k, s.tp
    az = s.g("atk_zone")
    ended = k.and_(s.g("attacking"), k.not_(t.g("attacking")))
    over = k.and_(s.g("phase") == Phase.DMG_END, t.g("phase") == Phase.BATTLE_STEP)
    attacker_left, target_left = _battlers_gone(s, t)
    to_defense = k.and_(s.g("phase") == Phase.BATTLE_STEP, k.not_(s.g("m_def", tp, az)), t.g("m_def", tp, az))
    live, eff = link_takes_effect(s, a), _top(s, "c_eff")
    negated = k.and_(live, eff == Effect.NEGATE_ATTACK)
    bp_ends = k.and_(live, eff == Effect.END_BATTLE_PHASE, s.is_phase(Phase.BATTLE_START, Phase.BATTLE_STEP))
    stopped = k.and_(a.is_("replay_select"), a.p("tzone") == STOP)
    reasons = (over, attacker_left, to_defense, target_left, negated, bp_ends, stopped)
    return k.implies(ended, k.or_(*reasons))


always(
    "attack-ends",
    "6.3.4.2, 6.3.4.2.1, 6.3.4.3.3, 6.3.4.3.5, 6.3.4.4",
    "An attack ends when its attacker leaves the field (whether one monster is destroyed or all of them) or "
    "its target leaves it during the Damage Step; when its attacker changes to Defense Position in the Battle "
    "Step, so that in the Battle Step an attacker is always in face-up Attack Position; and only for a reason "
    "the rules give: the Damage Step over, the attack negated, a battler gone, the attacker to Defense Position "
    "in the Battle Step, a stop after a replay, the Battle Phase ended.",
    step(_battler_left, "battler-leaves"),
    step(_attacker_to_defense, "attacker-to-defense"),
    state(_attacker_stands, "attacker-in-attack-position"),
    step(_attack_end_reason, "only-for-a-reason"),
)


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
    gone = k.and_(_top(s, "c_gone"), k.one_of(_top(s, "c_kind"), STAYS_ON_FIELD))
    return k.and_(a.is_("resolve"), s.g("chain_len") > 0, k.not_(negated_link(s)), k.not_(gone))


def _target_there(s: State) -> Val:
    """The last link's target is a monster still on the field, not one destroyed by battle already."""
    k = s.k
    p, z = _top(s, "c_tp"), _top(s, "c_tz")
    return k.and_(_top(s, "c_ta") == 0, s.g("m_occ", p, z), k.not_(s.g("m_doomed", p, z)))


def _negated_does_nothing(s: State, a: ActionView, t: State) -> Val:
    """Seed 000: a negated link resolves without effect: no LP, hand, deck, monster or skipped phase changes."""
    k = s.k
    negated = k.and_(a.is_("resolve"), s.g("chain_len") > 0, negated_link(s))
    same = [t.g(name, p) == s.g(name, p) for name in ("lp", "hand", "deck", "skip_bp", "skip_m1") for p in (0, 1)]
    for p in (0, 1):
        for z in range(s.r.monster_zones):
            same += [t.g(name, p, z) == s.g(name, p, z) for name in ("m_occ", "m_atk", "m_up", "m_def")]
    same += [t.g("winner") == s.g("winner"), t.g("phase") == s.g("phase"), t.g("attacking") == s.g("attacking")]
    return k.implies(negated, k.and_(*same))


def _applies_to_named_player(s: State, a: ActionView, t: State) -> Val:
    """Seed 000's catalogue: "the opponent skips their next Battle Phase / Main Phase 1" reaches the link's
    opponent, never its player; "draw a card" draws for the link's player, never the opponent: one card from
    their deck to their hand, the duel going on, or, from an empty deck, their loss."""
    k = s.k
    live = link_takes_effect(s, a)
    eff, owner = _top(s, "c_eff"), _top(s, "c_owner")
    opp = s.other(owner)
    out = []
    for name, effect in (("skip_bp", Effect.SKIP_BP), ("skip_m1", Effect.SKIP_MAIN1)):
        hits = k.and_(t.g(name, opp), t.g(name, owner) == s.g(name, owner))
        out.append(k.implies(k.and_(live, eff == effect), hits))
    # "draw a card": the top card of the link player's deck goes to their hand and the duel goes on; with their
    # deck empty they lose, as for the normal draw (6.3.1)
    deck = s.g("deck", owner)
    given = k.and_(
        t.g("hand", owner) == s.g("hand", owner) + 1, t.g("deck", owner) == deck - 1, t.g("winner") == s.g("winner")
    )
    draws = k.ite(deck > 0, given, t.g("winner") == winner_if_loses(s, owner))
    out.append(k.implies(k.and_(live, eff == Effect.DRAW), k.and_(draws, t.g("hand", opp) == s.g("hand", opp))))
    return k.and_(*out)


def _does_what_it_says(s: State, a: ActionView, t: State) -> Val:
    """Seed 000's catalogue, 6.3.4.4: a link that takes effect does what its text says: a battle position
    change turns its target monster face-up in Attack Position if it was face-down, else to the other position;
    "Set face-down" turns a face-up target face-down in Defense Position; an ATK change moves a face-up target's
    ATK by the amount chosen (never below 0, nor above the model's top ATK); "end the Battle Phase" in its Start
    or Battle Step goes to its End Step."""
    k = s.k
    top = s.g("chain_len") - 1
    live = link_takes_effect(s, a)
    eff, p, z = s.g("c_eff", top), s.g("c_tp", top), s.g("c_tz", top)
    there = _target_there(s)
    up, dfn = s.g("m_up", p, z), s.g("m_def", p, z)
    turned = k.ite(up, t.g("m_def", p, z) == k.not_(dfn), k.and_(t.g("m_up", p, z), k.not_(t.g("m_def", p, z))))
    down = k.and_(k.not_(t.g("m_up", p, z)), t.g("m_def", p, z))
    atk = k.smin(k.smax(s.g("m_atk", p, z) + a.p("amount"), 0), ATK_CAP)
    changed = k.and_(t.g("m_occ", p, z), t.g("m_atk", p, z) == atk)
    ends = k.and_(eff == Effect.END_BATTLE_PHASE, s.is_phase(Phase.BATTLE_START, Phase.BATTLE_STEP))
    return k.implies(
        live,
        k.and_(
            k.implies(k.and_(eff == Effect.CHANGE_POSITION, there), k.and_(t.g("m_occ", p, z), turned)),
            k.implies(k.and_(eff == Effect.SET_FACE_DOWN, there, up), k.and_(t.g("m_occ", p, z), down)),
            k.implies(k.and_(eff == Effect.CHANGE_ATK, there, up), changed),
            k.implies(ends, t.g("phase") == Phase.BATTLE_END),
        ),
    )


def _only_what_it_names(s: State, a: ActionView, t: State) -> Val:
    """Seed 000's catalogue: a resolving link changes only the cards its text names: its target ("destroy one
    card", a position change, Set face-down, an ATK change), every monster ("destroy all monsters"), an empty
    Monster Zone (a Special Summon), and its own card, which leaves the field once it has resolved. Every
    other monster keeps its zone, position and ATK; every other Spell & Trap Zone keeps its card."""
    k = s.k
    resolves = k.and_(a.is_("resolve"), s.g("chain_len") > 0)
    live = link_takes_effect(s, a)
    eff, owner, zone = _top(s, "c_eff"), _top(s, "c_owner"), _top(s, "c_zone")
    tpl, tar, tz = _top(s, "c_tp"), _top(s, "c_ta"), _top(s, "c_tz")
    targeted = k.and_(live, k.one_of(eff, TARGETED))
    own_card = k.not_(k.one_of(_top(s, "c_kind"), MONSTER_KINDS))  # a Spell/Trap's link: its card is in a zone
    out = []
    for p, z in zones(s, "m_occ"):
        named = k.or_(
            k.and_(targeted, tar == 0, tpl == p, tz == z),
            k.and_(live, eff == Effect.DESTROY_ALL_MONSTERS),
            k.and_(live, eff == Effect.SPECIAL_SUMMON, k.not_(s.g("m_occ", p, z))),
        )
        same = k.and_(*(t.g(f, p, z) == s.g(f, p, z) for f in ("m_occ", "m_up", "m_def", "m_atk")))
        out.append(k.or_(named, same))
    for p, z in zones(s, "s_occ"):
        named = k.or_(
            k.and_(live, eff == Effect.DESTROY_CARD, tar == 1, tpl == p, tz == z),
            k.and_(own_card, owner == p, zone == z),
        )
        out.append(k.or_(named, t.g("s_occ", p, z) == s.g("s_occ", p, z)))
    return k.implies(resolves, k.and_(*out))


always(
    "resolution-effects",
    "seed 000 (chain, negation, effect catalogue)",
    "A negated link resolves without effect; an effect applies to the player its text names (the opponent "
    "skips a phase, the controller draws a card from their deck, or loses with it empty); a position change, "
    "a Set face-down, an ATK change and the end of the Battle Phase do what their text says; a resolving link "
    "changes no card its text does not name.",
    step(_negated_does_nothing, "negated"),
    step(_applies_to_named_player, "named-player"),
    step(_does_what_it_says, "as-written"),
    step(_only_what_it_names, "only-what-it-names"),
)


def _one_spelling(s: State, a: ActionView, t: State) -> Val:
    """A duel log spells each play one way: a triggered effect declined (no link added) names no target; a
    resolution names a monster's ATK, DEF and position only when it Special Summons one (a monster comes to an
    empty zone); an ATK change names an amount, never 0, exactly when it takes effect on a face-up monster."""
    k = s.k
    declined = k.and_(a.is_("trigger"), t.g("chain_len") == s.g("chain_len"))
    no_target = k.and_(a.p("tplayer") == 0, a.p("tarea") == 0, a.p("tzone") == 0)
    resolves = k.and_(a.is_("resolve"), s.g("chain_len") > 0)
    arrived = k.or_(*(k.and_(k.not_(s.g("m_occ", p, z)), t.g("m_occ", p, z)) for p, z in zones(s, "m_occ")))
    no_stats = k.and_(a.p("atk") == 0, a.p("defv") == 0, k.not_(a.p("pos")))
    face_up = s.g("m_up", _top(s, "c_tp"), _top(s, "c_tz"))
    changes = k.and_(link_takes_effect(s, a), _top(s, "c_eff") == Effect.CHANGE_ATK, _target_there(s), face_up)
    return k.and_(
        k.implies(declined, no_target),
        k.implies(k.and_(resolves, k.not_(arrived)), no_stats),
        k.implies(resolves, (a.p("amount") != 0) == changes),
    )


always(
    "one-spelling-per-play",
    "model (duel log)",
    "Each play has one spelling in a duel log: a declined triggered effect names no target; a resolution names "
    "monster stats only for the monster it Special Summons, and an ATK amount, never 0, only for the ATK it "
    "changes.",
    step(_one_spelling),
)


def _flipped_face_up(s: State, a: ActionView, t: State) -> Val:
    """The turn player's face-down monster in the action's zone is face-up in Attack Position after the step."""
    k, tp = s.k, s.tp
    z = a.p("zone")
    before = k.and_(s.g("m_occ", tp, z), k.not_(s.g("m_up", tp, z)))
    after = k.and_(t.g("m_occ", tp, z), t.g("m_up", tp, z), k.not_(t.g("m_def", tp, z)))
    return k.and_(before, after)


def _flip_summon(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 (battle positions): a Flip Summon turns the turn player's face-down monster face-up in Attack
    Position."""
    return s.k.implies(a.is_("flip_summon"), _flipped_face_up(s, a, t))


always(
    "flip-summon-face-up-attack",
    "seed 000 (battle positions)",
    "A Flip Summon turns a face-down monster face-up in Attack Position.",
    step(_flip_summon),
)

always(
    "nothing-after-the-duel",
    "seed 000 (winning)",
    "Once a player has won, nothing more happens.",
    step(lambda s, a, t: s.g("winner") == 0),
)


def _bookkeeping(s: State) -> Val:
    k = s.k
    draws = k.implies(s.is_phase(Phase.DRAW), s.g("drew") == (s.g("h_draws") >= 1))
    attacks = [s.g("m_decl", p, z) == (s.g("h_attacks", p, z) >= 1) for p, z in zones(s, "m_occ")]
    counts = [s.g("h_draws") >= 0, *(s.g("h_attacks", p, z) >= 0 for p, z in zones(s, "m_occ"))]
    passes = (s.g("h_passes") == 1) == k.and_(s.g("passed"), s.g("chain_len") > 0, k.not_(s.g("resolving")))
    resolving = (s.g("h_resolving") == 1) == s.g("resolving")
    ghosts = [s.g("h_passes") >= 0, s.g("h_passes") <= 1, s.g("h_resolving") >= 0, s.g("h_resolving") <= 1]
    empty = (s.g("h_empty_passes") == 1) == k.and_(s.g("passed"), s.g("chain_len") == 0, k.not_(s.g("discarding")))
    ghosts += [s.g("h_empty_passes") >= 0, s.g("h_empty_passes") <= 1]
    ghosts += [(s.g("h_window") == 1) == s.g("window"), s.g("h_window") >= 0, s.g("h_window") <= 1]
    triggers = []
    for p in (0, 1):
        h, trig = s.g("h_triggers", p), s.g("trig", p)
        triggers += [
            (h == 2) == k.one_of(trig, (Pending.FLIP_DUE, Pending.TRIGGER_DUE)),
            (h == 1) == (trig == Pending.FLIPPED),
            k.implies(h == 1, s.g("trig_zone", p) == s.g("atk_tgt")),  # the attack's target was flipped
            s.g("trig_zone", p) == s.g("h_trig_zone", p),  # where the waiting effect comes from
            h >= 0,
            h <= 2,
        ]
    moves = [s.g("m_moved", p, z) == (s.g("h_moves", p, z) >= 1) for p, z in zones(s, "m_occ")]
    moves += [s.g("h_moves", p, z) >= 0 for p, z in zones(s, "m_occ")]
    # seed 000: a phase to be skipped, as the rules mark it and as the property layer saw the effect resolve
    skips = [s.g(f, p) == (s.g(f"h_{f}", p) == 1) for f in ("skip_m1", "skip_bp") for p in (0, 1)]
    # a Battle Phase begun this turn; a monster that came to the field, a card Set, this turn
    skips.append(s.g("bp_done") == (s.g("h_battled") == 1))
    skips += [s.g("h_battled") >= 0, *(s.g(f, p) >= 0 for f in ("h_skip_m1", "h_skip_bp") for p in (0, 1))]
    skips += [s.g("h_arrived", p, z) >= 0 for p, z in zones(s, "m_occ")]
    skips += [s.g("h_set", p, z) >= 0 for p, z in zones(s, "s_occ")]
    for p, z in zones(s, "m_occ"):
        arrived = s.g("h_arrived", p, z) == 1
        occupied = s.g("m_occ", p, z)
        skips += [k.implies(occupied, s.g("m_fresh", p, z) == arrived), k.implies(arrived, occupied)]
    for p, z in zones(s, "s_occ"):
        set_ = s.g("h_set", p, z) == 1
        down = k.and_(s.g("s_occ", p, z), k.not_(s.g("s_up", p, z)))
        skips += [k.implies(down, s.g("s_fresh", p, z) == set_), k.implies(set_, down)]
    # seed 000: the two passes that start a chain's resolution are spent: none is pending while it resolves
    spent = k.implies(s.g("resolving"), k.not_(s.g("passed")))
    # 6.3.4.2: the window of an attack declaration; 6.3.4.2.1: a replay due; a monster's effect used this turn
    battle = [s.g("at_decl") == (s.g("h_declared") == 1), s.g("replay") == (s.g("h_replay") == 1)]
    battle += [s.g("h_declared") >= 0, s.g("h_replay") >= 0]
    battle += [s.g("m_used", p, z) == (s.g("h_used", p, z) == 1) for p, z in zones(s, "m_occ")]
    battle += [s.g("h_used", p, z) >= 0 for p, z in zones(s, "m_occ")]
    # seed 000 (negation): a link the rules mark negated is one a negation resolved on
    links = range(s.schema["c_neg"].dims[0])
    battle += [s.g("c_neg", j) == (s.g("h_neg", j) == 1) for j in links]
    battle += [s.g("h_neg", j) >= 0 for j in links]
    return k.and_(
        s.g("nsum") == s.g("h_summons"),
        draws,
        *attacks,
        *counts,
        passes,
        resolving,
        *ghosts,
        empty,
        *triggers,
        *moves,
        *skips,
        spent,
        *battle,
    )


always(
    "bookkeeping-matches-history",
    "6.3.1, 6.3.4.2, 6.3.5",
    "The rules' own bookkeeping agrees with what happened, as the property layer counts it: the Normal Summons "
    "and Sets made this turn, the normal draw in the Draw Phase, each monster's attack declared this turn and "
    "battle position changed this turn, a pass with or without the chain open (none pending while a chain "
    "resolves), a chain resolving, a triggered effect waiting, a phase to be skipped, the window of an attack "
    "declaration, a replay due, a monster's effect used this turn, and a chain link negated.",
    state(_bookkeeping),
)


def _phase_choice(s: State, a: ActionView, t: State) -> Val:
    k, r = s.k, s.r
    choice = a.p("choice")
    leaves = k.or_(t.g("phase") != s.g("phase"), t.g("turn") != s.g("turn"))  # the step ends the phase
    main2_optional = k.and_(r.main_phase_2, k.not_(r.main_phase_2_requires_battle_phase))
    at_main1_end = k.and_(main1_ends(s), leaves, k.implies(choice == TO_MAIN2, main2_optional))
    after_battle = k.and_(choice == TO_MAIN2, s.g("phase") == Phase.BATTLE_END, r.main_phase_2, leaves)
    return k.implies(choice != NO_CHOICE, k.or_(at_main1_end, after_battle))


always(
    "phase-choice-where-offered",
    "6.3.3, 6.3.5",
    "A choice of the next phase is made only by the step that ends Main Phase 1 (the Battle Phase, the End "
    "Phase, or Main Phase 2 where it may follow Main Phase 1), or, for Main Phase 2, by the step that ends a "
    "Battle Phase.",
    step(_phase_choice),
)


always(
    "chain-resolution-uninterrupted",
    "seed 000 (chains)",
    "A chain resolves once both players have passed in succession with it open, link after link with nothing "
    "done in between; and no link resolves otherwise.",
    step(lambda s, a, t: (s.g("h_resolving") == 1) == a.is_("resolve")),
)


def _second_pass(s: State, a: ActionView) -> Val:
    """The step is the second of two passes in succession with no chain open (history), or both at once."""
    k = s.k
    return k.or_(a.is_("end_step"), k.and_(a.is_("pass"), s.g("chain_len") == 0, s.g("h_empty_passes") == 1))


def _phase_moved(s: State, t: State) -> Val:
    return s.k.or_(t.g("phase") != s.g("phase"), t.g("turn") != s.g("turn"))


def _window_passed(s: State, a: ActionView) -> Val:
    """The step is the second of two passes in succession that answered the turn player's summon, Set, change
    of position or resolved chain (history): the response window (6.3, `response_window`)."""
    return s.k.and_(a.is_("pass"), s.g("chain_len") == 0, s.g("h_empty_passes") == 1, s.g("h_window") == 1)


def _both_passed(s: State, a: ActionView, t: State) -> Val:
    """6.3: both players passed in succession with no chain open: the phase or step ends (in the End Phase the
    turn player over the hand limit first discards, 6.3.6); but two passes of a response window close the window
    and the turn player acts on in the same phase, holding priority."""
    k, r = s.k, s.r
    discards = k.and_(s.g("phase") == Phase.END, r.hand_limit_enforced, s.g("hand", s.tp) > r.hand_limit)
    window = _window_passed(s, a)
    ends = k.implies(k.and_(_second_pass(s, a), k.not_(window)), k.or_(_phase_moved(s, t), discards))
    goes_on = k.implies(window, k.and_(k.not_(_phase_moved(s, t)), t.g("prio") == s.tp))
    return k.and_(ends, goes_on)


def _one_pass(s: State, a: ActionView, t: State) -> Val:
    """6.3: a single pass never ends a phase or step: only the second of two in succession does."""
    return s.k.implies(s.k.and_(a.is_("pass"), _phase_moved(s, t)), _second_pass(s, a))


def _new_phase_priority(s: State, a: ActionView, t: State) -> Val:
    """6.3: each phase and step that begins when the last one ended begins with the turn player holding
    priority (a Battle Phase ended by a resolving effect, 6.3.4.4, goes on with the rest of the chain)."""
    k = s.k
    ended = k.or_(a.is_("pass"), a.is_("end_step"), a.is_("discard"))
    return k.implies(k.and_(ended, _phase_moved(s, t)), t.g("prio") == t.tp)


def _opponent_next(s: State, a: ActionView, t: State) -> Val:
    """6.3, seed 000 (chains): the first of two passes (history: no pass just before it, with the chain open or
    not) hands priority to the other player, who may act or pass in turn: the passes in succession are both
    players'."""
    k = s.k
    first = k.and_(
        a.is_("pass"),
        k.ite(s.g("chain_len") == 0, s.g("h_empty_passes") == 0, k.and_(s.g("h_passes") == 0, s.g("h_resolving") == 0)),
    )
    return k.implies(first, t.g("prio") == s.other(s.g("prio")))


always(
    "passes-end-phases",
    "6.3",
    "A phase or step ends when both players pass in succession with no chain open, never on one pass, and "
    "the next begins with the turn player holding priority (in the End Phase, a hand over the limit is first "
    "discarded, 6.3.6); the first of two passes hands priority to the other player; two passes answering the "
    "turn player's summon, Set, change of position or resolved chain leave the phase going on.",
    step(_both_passed, "both-passed"),
    step(_one_pass, "one-pass"),
    step(_new_phase_priority, "turn-player-first"),
    step(_opponent_next, "opponent-next"),
)


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


def _main1_skipped(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 ("the opponent skips their next Main Phase 1"): when the phase before Main Phase 1 ends, Main
    Phase 1 begins unless such an effect resolved against the turn player since their last skip (history), and
    then it is skipped: once per effect."""
    k = s.k
    pending = s.g("h_skip_m1", s.tp) == 1
    return k.implies(main1_would_begin(s, a, t), (t.g("phase") == Phase.MAIN1) == k.not_(pending))


def _battle_skipped(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 ("the opponent skips their next Battle Phase"): the Battle Phase chosen at the end of Main Phase
    1 begins unless such an effect resolved against the turn player since their last skip (history); a skipped
    Battle Phase leads to the End Phase."""
    k = s.k
    pending = s.g("h_skip_bp", s.tp) == 1
    where = k.ite(pending, t.g("phase") == Phase.END, t.g("phase") == Phase.BATTLE_START)
    return k.implies(battle_chosen(s, a, t), where)


always(
    "phase-skips",
    "seed 000 (effect catalogue), 6.3.3",
    "An effect that makes the opponent skip their next Main Phase 1 or Battle Phase skips exactly that one: "
    "the phase begins as usual unless such an effect resolved against its player since their last skip, and "
    "a skipped Battle Phase leads to the End Phase (what resolved is kept by the property layer).",
    step(_main1_skipped, "main-phase-1"),
    step(_battle_skipped, "battle-phase"),
)


def _as_played(s: State, a: ActionView, t: State) -> Val:
    """6.3.5, seed 000: a card played from the hand is the card the action names (its identity is the action's
    parameter): the monster Normal Summoned (face-up Attack Position), Set (face-down Defense Position) or
    Special Summoned (face-up, in the position chosen) has that ATK and DEF, and a summoned monster that effect
    type and effect; the card Set in a Spell & Trap Zone is that face-down card with its effect and cost."""
    k, tp = s.k, s.tp
    out = []
    top = s.g("chain_len") - 1
    special = k.and_(a.is_("resolve"), s.g("chain_len") > 0, s.g("c_eff", top) == Effect.SPECIAL_SUMMON)
    for p, z in zones(s, "m_occ"):
        came = k.and_(k.not_(s.g("m_occ", p, z)), t.g("m_occ", p, z))
        stats = k.and_(t.g("m_atk", p, z) == a.p("atk"), t.g("m_defv", p, z) == a.p("defv"))
        card = k.and_(stats, t.g("m_kind", p, z) == a.p("mkind"), t.g("m_eff", p, z) == a.p("eff"))
        mine = p == tp
        out += [
            k.implies(
                k.and_(came, a.is_("normal_summon")), k.and_(mine, card, t.g("m_up", p, z), k.not_(t.g("m_def", p, z)))
            ),
            k.implies(
                k.and_(came, a.is_("set_monster")), k.and_(mine, card, k.not_(t.g("m_up", p, z)), t.g("m_def", p, z))
            ),
            k.implies(k.and_(came, special), k.and_(stats, t.g("m_up", p, z), t.g("m_def", p, z) == a.p("pos"))),
        ]
    for p, z in zones(s, "s_occ"):
        came = k.and_(a.is_("set_spell_trap"), k.not_(s.g("s_occ", p, z)), t.g("s_occ", p, z))
        card = k.and_(t.g("s_kind", p, z) == a.p("kind"), t.g("s_eff", p, z) == a.p("eff"))
        out.append(
            k.implies(came, k.and_(p == tp, card, t.g("s_cost", p, z) == a.p("cost"), k.not_(t.g("s_up", p, z))))
        )
    return k.and_(*out)


always(
    "cards-as-played",
    "6.3.5, seed 000",
    "A card played from the hand is the card the action names: a monster Normal Summoned, Set or Special "
    "Summoned has the ATK and DEF (and, from the hand, the effect) it was played with, in the position the rule "
    "gives it; a card Set in a Spell & Trap Zone is face-down with its effect and cost.",
    step(_as_played),
)


def _triggers_first(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.3.4, 6.3.4.3.5: a waiting triggered effect (history) is activated or declined before anything
    else is done (an effect triggered while a chain resolves waits for the rest of the chain); and only a
    waiting one is, as the link of the card it came from (history: the Flip monster's zone, or the
    Graveyard)."""
    k = s.k
    waiting = _trigger_waits(s)
    first = k.implies(k.and_(waiting, k.not_(a.is_("resolve"))), a.is_("trigger"))
    added, _, _, owner = new_link(s, t)
    source = k.implies(k.and_(a.is_("trigger"), added), t.g("c_zone", s.g("chain_len")) == s.g("h_trig_zone", owner))
    return k.and_(first, k.implies(a.is_("trigger"), waiting), source)


always(
    "triggers-first",
    "6.3.4.3.4, 6.3.4.3.5",
    "A Flip effect (after damage calculation, or after a flip) and a battle-destroyed monster's effect (at the "
    "end of the Damage Step) are activated, or declined, before either player does anything else, as the link "
    "of the card they came from, and no triggered effect is activated without its event (kept by the property "
    "layer: what was flipped or destroyed by battle, and where).",
    step(_triggers_first),
)


def _activation_source(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 (Spells and Traps, monster effects): where an activated card or effect comes from."""
    k = s.k
    added, kind, eff, owner = new_link(s, t)
    act = k.and_(a.is_("activate"), added)
    z = a.p("zone")
    monster = k.one_of(kind, (Kind.IGNITION, Kind.QUICK_EFFECT))
    from_hand = k.and_(z == HAND, k.not_(monster))
    cost = t.g("c_cost", s.g("chain_len"))
    set_card = k.and_(
        s.g("s_occ", owner, z),
        k.not_(s.g("s_up", owner, z)),
        s.g("s_kind", owner, z) == kind,
        s.g("s_eff", owner, z) == eff,
        s.g("s_cost", owner, z) == cost,
    )
    mkind = k.ite(kind == Kind.IGNITION, int(MonsterEffect.IGNITION), int(MonsterEffect.QUICK), w=3)
    face_up = k.and_(
        s.g("m_occ", owner, z), s.g("m_up", owner, z), s.g("m_kind", owner, z) == mkind, s.g("m_eff", owner, z) == eff
    )
    return k.implies(
        act,
        k.and_(
            k.implies(from_hand, k.one_of(kind, SPELLS)),  # a Trap is Set before it is activated
            k.implies(k.and_(k.not_(monster), k.not_(from_hand)), set_card),  # the Set card, with its cost
            k.implies(monster, face_up),  # a face-up monster's own effect
        ),
    )


def _ends_battle_phase(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.4: an effect that ends the Battle Phase is activated only within it (the Start Step or the Battle
    Step)."""
    k = s.k
    added, _, eff, _ = new_link(s, t)
    return k.implies(k.and_(added, eff == Effect.END_BATTLE_PHASE), s.is_phase(Phase.BATTLE_START, Phase.BATTLE_STEP))


def _cost_paid(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 (costs; the chain example: Magic Jammer discards a card, Seven Tools pays 1000 LP): an activation
    pays the cost its link records, that and nothing else: a Spell from the hand leaves the hand, a discard
    cost sends one more card from the hand to the Graveyard, an LP cost takes 1000 LP; the opponent pays
    nothing."""
    k = s.k
    added, kind, _, owner = new_link(s, t)
    act = k.and_(a.is_("activate"), added)
    opp = s.other(owner)
    cost = t.g("c_cost", s.g("chain_len"))
    from_hand = k.and_(a.p("zone") == HAND, k.not_(k.one_of(kind, (Kind.IGNITION, Kind.QUICK_EFFECT))))
    discard = cost == Cost.DISCARD
    wh, wg = s.schema["hand"].width, s.schema["gy"].width
    hand_out = k.ite(from_hand, 1, 0, w=wh) + k.ite(discard, 1, 0, w=wh)
    paid = k.and_(
        t.g("hand", owner) == s.g("hand", owner) - hand_out,
        t.g("gy", owner) == s.g("gy", owner) + k.ite(discard, 1, 0, w=wg),
        t.g("lp", owner) == s.g("lp", owner) - k.ite(cost == Cost.PAY_LP, LP_COST, 0, w=s.schema["lp"].width),
        *(t.g(name, opp) == s.g(name, opp) for name in ("hand", "gy", "lp")),
    )
    return k.implies(act, paid)


def _target_is_another_card(s: State, a: ActionView, t: State) -> Val:
    """Seed 000 (the chain example: Mystical Space Typhoon targets Royal Decree): a card that targets a Spell or
    Trap targets another card, never itself."""
    k = s.k
    added, _, eff, owner = new_link(s, t)
    i = s.g("chain_len")
    own_card = k.and_(t.g("c_ta", i) == 1, t.g("c_tp", i) == owner, t.g("c_tz", i) == t.g("c_zone", i))
    card = k.not_(k.one_of(t.g("c_kind", i), MONSTER_KINDS))
    return k.implies(k.and_(a.is_("activate"), added, card, k.one_of(eff, TARGETED)), k.not_(own_card))


def _attack_target(s: State, a: ActionView, t: State) -> Val:
    """6.3.4.2 (and seed 000, battle): an attack targets a monster the opponent controls, or the opponent
    directly when they control none; 6.3.4.2.1: so does the new target chosen after a replay (or the attack
    stops)."""
    k = s.k
    opp = s.other(s.tp)
    tz = a.p("tzone")
    chooses = k.or_(a.is_("declare_attack"), k.and_(a.is_("replay_select"), tz != STOP))
    none = s.monsters(opp) == 0
    monster = k.or_(*(k.and_(tz == z, s.g("m_occ", opp, z)) for z in range(s.r.monster_zones)))
    return k.implies(chooses, k.ite(none, tz == DIRECT, monster))


always(
    "costs-paid-on-activation",
    "seed 000 (costs, chain example)",
    "An activation pays the cost it records and nothing else: a discard sends a card from the hand to the "
    "Graveyard, an LP cost takes 1000 LP; a Spell from the hand leaves the hand; the opponent pays nothing.",
    step(_cost_paid),
)

always(
    "target-is-another-card",
    "seed 000 (chain example)",
    "A Spell or Trap that targets a Spell or Trap targets another card, never itself.",
    step(_target_is_another_card),
)

always(
    "attack-targets",
    "6.3.4.2, 6.3.4.2.1",
    "An attack declaration, and the new target chosen after a replay, name a monster the opponent controls, or "
    "the opponent directly when they control none.",
    step(_attack_target),
)


always(
    "activation-sources",
    "seed 000 (Spells and Traps, monster effects), 6.3.4.4",
    "A Spell is activated from the hand or from where it was Set, a Trap only once Set, each with the cost of "
    "the card Set; a monster's effect only from that face-up monster; an effect that ends the Battle Phase "
    "only within it.",
    step(_activation_source, "card"),
    step(_ends_battle_phase, "end-battle-phase"),
)


sometimes("reach-main2", "6.3.5", "A play reaches Main Phase 2.", state(lambda s: s.g("phase") == Phase.MAIN2))
sometimes("reach-turn-3", "6.3.6", "A play reaches turn 3.", state(lambda s: s.g("turn") == 3))


sometimes(
    "reach-replay",
    "6.3.4.2.1",
    "A play where the opponent's monsters change after an attack declaration and a replay is due.",
    state(_replay_seen),
)


def _row(cond: Callable[[State, dict[str, Val]], Val]) -> StepPred:
    def pred(s: State, a: ActionView, t: State) -> Val:
        return s.k.and_(_is_damage_calc(s, t), cond(s, _battle(s)))

    return pred


def _vs_atk(s: State, b: dict[str, Val]) -> Val:
    return s.k.and_(s.k.not_(b["direct"]), s.k.not_(b["def"]))


def _vs_def(s: State, b: dict[str, Val]) -> Val:
    return s.k.and_(s.k.not_(b["direct"]), b["def"])


sometimes(
    "reach-every-damage-outcome",
    "6.3.4.3.3, 6.3.4.3.3.1",
    "Every row of the battle damage table happens in some play.",
    step(_row(lambda s, b: s.k.and_(_vs_atk(s, b), b["a"] > b["ta"])), "atk-higher"),
    step(_row(lambda s, b: s.k.and_(_vs_atk(s, b), b["a"] < b["ta"])), "atk-lower"),
    step(_row(lambda s, b: s.k.and_(_vs_atk(s, b), b["a"] == b["ta"], b["a"] != 0)), "atk-equal"),
    step(_row(lambda s, b: s.k.and_(_vs_atk(s, b), b["a"] == 0, b["ta"] == 0)), "atk-zero"),
    step(_row(lambda s, b: s.k.and_(_vs_def(s, b), b["a"] > b["td"])), "def-higher"),
    step(_row(lambda s, b: s.k.and_(_vs_def(s, b), b["a"] == b["td"])), "def-equal"),
    step(_row(lambda s, b: s.k.and_(_vs_def(s, b), b["a"] < b["td"])), "def-lower"),
    step(_row(lambda s, b: b["direct"]), "direct"),
)


# seed 000's five-link chain, abstracted by speed, effect and cost: Dark Hole, Royal Decree, Mystical Space
# Typhoon (targeting Royal Decree), Magic Jammer (discard a card), Seven Tools of the Bandit (pay 1000 LP);
# players alternate.
SEED_CHAIN = (
    (Kind.NORMAL_SPELL, Effect.DESTROY_ALL_MONSTERS, Cost.NONE),
    (Kind.CONT_TRAP, Effect.NONE, Cost.NONE),
    (Kind.QUICK_SPELL, Effect.DESTROY_CARD, Cost.NONE),
    (Kind.COUNTER_TRAP, Effect.NEGATE, Cost.DISCARD),
    (Kind.COUNTER_TRAP, Effect.NEGATE, Cost.PAY_LP),
)


def _seed_chain(s: State) -> Val:
    k = s.k
    if s.r.chain_links < len(SEED_CHAIN):
        return False
    tp = s.tp
    links = [
        k.and_(
            s.g("c_kind", i) == kind,
            s.g("c_eff", i) == eff,
            s.g("c_cost", i) == cost,
            s.g("c_owner", i) == (tp if i % 2 == 0 else s.other(tp)),
        )
        for i, (kind, eff, cost) in enumerate(SEED_CHAIN)
    ]
    mst_hits_decree = k.and_(
        s.g("c_ta", 2) == 1, s.g("c_tp", 2) == s.g("c_owner", 1), s.g("c_tz", 2) == s.g("c_zone", 1)
    )
    return k.and_(s.g("chain_len") == len(SEED_CHAIN), *links, mst_hits_decree)


sometimes(
    "reach-seed-chain-example",
    "seed 000 (chain example)",
    "The five-link chain of seed 000 (Dark Hole, Royal Decree, Mystical Space Typhoon, Magic Jammer with its "
    "discard, Seven Tools of the Bandit with its 1000 LP) is built in a play.",
    state(_seed_chain),
)


def _negated_kept_cost(s: State) -> Val:
    k = s.k
    links = range(s.r.chain_links)
    return k.or_(*(k.and_(j < s.g("chain_len"), s.g("h_neg", j) == 1, s.g("c_cost", j) != Cost.NONE) for j in links))


sometimes(
    "reach-negated-activation-kept-its-cost",
    "seed 000 (chain example, costs)",
    "An activation whose cost was paid is negated; the cost stays paid.",
    state(_negated_kept_cost),
)


def _triggered(phase: Phase, kind: Kind) -> StepPred:
    def pred(s: State, a: ActionView, t: State) -> Val:
        k = s.k
        new = s.g("chain_len")
        added = k.and_(t.g("chain_len") == new + 1, t.g("c_kind", new) == kind)
        return k.and_(a.is_("trigger"), s.g("phase") == phase, added)

    return pred


sometimes(
    "reach-flip-effect-after-damage-calculation",
    "6.3.4.3.2, 6.3.4.3.4",
    "A face-down monster with a Flip effect is attacked and flipped; its effect is activated after damage calculation.",
    step(_triggered(Phase.DMG_AFTER, Kind.FLIP)),
)

sometimes(
    "reach-battle-destroyed-trigger",
    "6.3.4.3.5",
    "A monster destroyed by battle is sent to the Graveyard and its effect is activated at the end of the Damage Step.",
    step(_triggered(Phase.DMG_END, Kind.TRIGGER)),
)

sometimes(
    "reach-deck-out-loss",
    "6.3.1",
    "A player must make the normal draw from an empty deck and loses.",
    step(lambda s, a, t: s.k.and_(a.is_("normal_draw"), s.g("deck", s.tp) == 0)),
)

sometimes(
    "reach-hand-limit-discard",
    "6.3.6",
    "The turn player ends a turn over the hand limit and discards.",
    step(lambda s, a, t: a.is_("discard")),
)

sometimes(
    "reach-standby-to-end",
    "seed 000 (Main Phase 2 note)",
    "With Main Phase 1 (and the Battle Phase) skipped, the turn goes from the Standby Phase to the End Phase.",
    step(lambda s, a, t: s.k.and_(s.g("phase") == Phase.STANDBY, t.g("phase") == Phase.END)),
)

sometimes(
    "reach-standby-to-battle",
    "seed 000 (Main Phase 2 note), 6.3.4",
    "With Main Phase 1 alone skipped, the turn goes from the Standby Phase to the Battle Phase (the note's other "
    "case: the Battle Phase is not skipped, so the turn player may still conduct it).",
    step(lambda s, a, t: s.k.and_(s.g("phase") == Phase.STANDBY, t.g("phase") == Phase.BATTLE_START)),
)


def _flip_summoned(s: State, a: ActionView, t: State) -> Val:
    """The turn player's Flip Summon turns one of their face-down monsters face-up in Attack Position."""
    return s.k.and_(a.is_("flip_summon"), _flipped_face_up(s, a, t))


def _position_changed(s: State, a: ActionView, t: State) -> Val:
    """The turn player changes a face-up monster's battle position (Attack to Defense or back); it stays."""
    k, tp, z = s.k, s.tp, a.p("zone")
    stays = k.and_(s.g("m_occ", tp, z), s.g("m_up", tp, z), t.g("m_occ", tp, z), t.g("m_up", tp, z))
    return k.and_(a.is_("change_position"), stays, t.g("m_def", tp, z) != s.g("m_def", tp, z))


def _spell_trap_set(s: State, a: ActionView, t: State) -> Val:
    """The turn player Sets a card from the hand face-down in an empty Spell & Trap Zone of theirs."""
    k, tp = s.k, s.tp
    placed = k.or_(*(k.and_(k.not_(s.g("s_occ", tp, z)), t.g("s_occ", tp, z)) for z in range(s.r.spell_trap_zones)))
    return k.and_(a.is_("set_spell_trap"), t.g("hand", tp) == s.g("hand", tp) - 1, placed)


def _speed_is(k: Any, kind: Val, sp: int) -> Val:
    """Seed 000 (spell speeds), read here on its own: speed 1 (Normal, Continuous, Equip, Field and Ritual
    Spells, Ignition effects), 3 (Counter Traps), 2 (the rest: Quick-Play Spells, Normal and Continuous Traps,
    Quick effects)."""
    one = k.one_of(kind, [int(x) for x in SPEED_1])
    three = kind == Kind.COUNTER_TRAP
    return {1: one, 2: k.and_(k.not_(one), k.not_(three)), 3: three}[sp]


def _response(answers: int | None, sp: int) -> StepPred:
    """An activation of speed `sp` as chain link 1 (`answers` None), or answering a link of speed `answers`."""

    def pred(s: State, a: ActionView, t: State) -> Val:
        k = s.k
        added, kind, _, _ = new_link(s, t)
        i = s.g("chain_len")
        base = k.and_(a.is_("activate"), added, _speed_is(k, kind, sp))
        if answers is None:
            return k.and_(base, i == 0)
        return k.and_(base, i > 0, _speed_is(k, s.g("c_kind", i - 1), answers))

    return pred


sometimes(
    "reach-every-chain-response",
    "seed 000 (chains and spell speeds)",
    "A Spell Speed 1 card starts a chain; a Spell Speed 2 card answers a speed-1 and a speed-2 link; a Counter "
    "Trap answers a Counter Trap.",
    step(_response(None, 1), "speed-1-starts-a-chain"),
    step(_response(1, 2), "speed-2-answers-speed-1"),
    step(_response(2, 2), "speed-2-answers-speed-2"),
    step(_response(3, 3), "speed-3-answers-speed-3"),
)


def _damage_step_activation(phases: tuple[Phase, ...], what: Callable[[State, Val, Val], Val]) -> StepPred:
    def pred(s: State, a: ActionView, t: State) -> Val:
        k = s.k
        added, kind, eff, _ = new_link(s, t)
        return k.and_(a.is_("activate"), added, s.is_phase(*phases), what(s, kind, eff))

    return pred


sometimes(
    "reach-damage-step-activations",
    "6.3.4.3",
    "In the Damage Step an ATK change is activated before damage calculation, a negating effect that is not a "
    "Counter Trap is activated, and a Counter Trap is activated after damage calculation.",
    step(
        _damage_step_activation((Phase.DMG_START, Phase.DMG_BEFORE), lambda s, kind, eff: eff == Effect.CHANGE_ATK),
        "atk-change-before-calculation",
    ),
    step(
        _damage_step_activation(
            DAMAGE_STEP, lambda s, kind, eff: s.k.and_(eff == Effect.NEGATE, kind != Kind.COUNTER_TRAP)
        ),
        "negation-not-counter-trap",
    ),
    step(
        _damage_step_activation((Phase.DMG_AFTER, Phase.DMG_END), lambda s, kind, eff: kind == Kind.COUNTER_TRAP),
        "counter-trap-after-calculation",
    ),
)


def _reselects(s: State, a: ActionView, t: State) -> Val:
    return a.is_("replay_select")


sometimes(
    "reach-every-replay-choice",
    "6.3.4.2.1",
    "After a replay the attacker chooses another monster the opponent controls, attacks directly when they "
    "control none, or stops the attack.",
    step(lambda s, a, t: s.k.and_(_reselects(s, a, t), a.p("tzone") < s.r.monster_zones), "new-target"),
    step(lambda s, a, t: s.k.and_(_reselects(s, a, t), a.p("tzone") == DIRECT), "direct"),
    step(lambda s, a, t: s.k.and_(_reselects(s, a, t), a.p("tzone") == STOP), "stop"),
)


sometimes(
    "reach-flip-summon",
    "6.3.3, seed 000 (battle positions)",
    "A monster Set face-down is Flip Summoned on a later turn: face-up in Attack Position.",
    step(_flip_summoned),
)

sometimes(
    "reach-position-change",
    "6.3.3, seed 000 (battle positions)",
    "A face-up monster's battle position is changed in a Main Phase of a later turn than it was summoned.",
    step(_position_changed),
)

sometimes(
    "reach-set-spell-trap",
    "6.3.3, seed 000 (Spells and Traps)",
    "A Spell or Trap is Set from the hand face-down in a Spell & Trap Zone.",
    step(_spell_trap_set),
)


BY_NAME: dict[str, Property] = {p.name: p for p in PROPERTIES}
