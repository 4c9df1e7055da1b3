"""The turn rules as guarded actions, each written once and citing its clause.

An action body reads the pre-state `s`, its parameters `a`, and writes the successor `n`:
`n.require(cond, reason)` adds a guard conjunct (the reason is what a judge would say when it
fails), `n.set(...)` writes a field, and `with n.when(cond):` makes the writes and requirements
inside it conditional. The same body runs on concrete values (replay, simulation) and on Z3 terms
(bounded model checking, proofs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from duelcheck.model.cards import (
    ACTIVATED_BY_KIND,
    ACTIVATED_KINDS,
    ATK_CAP,
    ATK_CHANGES,
    BATTLE_PHASE,
    CONTINUOUS_CARDS,
    DAMAGE_STEP,
    DELAYED,
    DIRECT,
    DIRECT_ATK_MAX,
    DRAWS,
    GRAVEYARD,
    HAND,
    LASTING,
    LATER_TURNS,
    LP_COST,
    MAIN_PHASES,
    MONSTER_KIND,
    MONSTER_KINDS,
    NO_CHOICE,
    SPEED,
    SPELLS,
    STAT_VALUES,
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
    Until,
)
from duelcheck.model.changes import with_changes
from duelcheck.model.kit import Val
from duelcheck.model.state import PARAMS, Builder, State, action_body


class Params:
    """An action's parameters: attribute access to concrete values or Z3 terms."""

    def __init__(self, values: dict[str, Val]):
        self.__dict__.update(values)

    def __getattr__(self, name: str) -> Val:  # parameters an action does not use read as 0 (False)
        spec = PARAMS.get(name)
        if spec is None:
            raise AttributeError(name)
        return False if spec.sort == "bool" else 0


Body = Callable[[State, Params, Builder], None]
Candidates = Callable[[State], Iterable[dict[str, int]]]
# a composite action's parts: the actions it takes in succession, with their parameters, read from the
# state before the whole step and the composite's own parameters
Parts = Callable[[State, Params], list[tuple[str, Params]]]


@dataclass(frozen=True)
class Action:
    name: str
    clause: str
    doc: str
    params: tuple[str, ...]
    body: Body
    candidates: Candidates = field(compare=False)
    parts: Parts | None = field(default=None, compare=False)  # a composite: other actions in succession


ACTIONS: list[Action] = []


def action(name: str, clause: str, params: tuple[str, ...], candidates: Candidates) -> Callable[[Body], Body]:
    def register(fn: Body) -> Body:
        body = with_changes(name, fn)  # a rule file's [[change]] tables apply to it (model/changes.py)
        ACTIONS.append(Action(name, clause, (fn.__doc__ or "").strip(), params, body, candidates))
        return body

    return register


def composite(name: str, clause: str, params: tuple[str, ...], candidates: Candidates) -> Callable[[Parts], Parts]:
    """An action that is other actions taken in succession within one step: each part's body runs on the
    state the previous part made, as the part itself (a rule changed in a part changes the composite
    alike). The parts stay actions, so a composite adds no play and removes none; it only lets a search
    take a common run of actions as one step. A composite step is never the step a property reads: its
    parts are, each as the fine step it is (properties/core.py `Check.eval`)."""

    def register(fn: Parts) -> Parts:
        def body(s: State, a: Params, n: Builder) -> None:
            for i, (part, pa) in enumerate(fn(s, a)):
                with action_body(part):
                    if i == 0:
                        ACTION_BY_NAME[part].body(s, pa, n)
                    else:
                        in_succession(n, ACTION_BY_NAME[part].body, pa)

        ACTIONS.append(Action(name, clause, (fn.__doc__ or "").strip(), params, body, candidates, fn))
        return fn

    return register


# -- shared conditions ------------------------------------------------------------------------


def live(s: State) -> Val:
    return s.g("winner") == 0


def duel_over(s: State) -> str:
    """The rule that ended the duel, for a judge refusing any later action."""
    if s.g("winner") == DRAWN:
        return "rulebook (winning): the duel is over: both players' LP fell to 0 at once, a drawn duel"
    loser = 1 if s.g("winner") == 1 else 0
    if s.g("lp", loser) <= 0:
        return f"seed 000 (winning): the duel is over: player {loser}'s LP fell to 0"
    return f"6.3.1: the duel is over: player {loser} had to draw from an empty deck"


def require_live(s: State, n: Builder) -> None:
    n.require(live(s), duel_over)


# the clause of each phase or step that says activation there starts with the turn player
PHASE_CLAUSE = {
    Phase.DRAW: "6.3.1",
    Phase.STANDBY: "6.3.2",
    Phase.MAIN1: "6.3.3",
    Phase.BATTLE_START: "6.3.4.1",
    Phase.BATTLE_STEP: "6.3.4.2",
    Phase.DMG_START: "6.3.4.3.1",
    Phase.DMG_BEFORE: "6.3.4.3.2",
    Phase.DMG_DURING: "6.3.4.3.3",
    Phase.DMG_AFTER: "6.3.4.3.4",
    Phase.DMG_END: "6.3.4.3.5",
    Phase.BATTLE_END: "6.3.4.4",
    Phase.MAIN2: "6.3.5",
    Phase.END: "6.3.6",
}


def not_holding_priority(s: State) -> str:
    """Why a player who does not hold priority may not act now, citing the clause that gives it to another."""
    ph = Phase(s.g("phase"))
    if s.g("window") and s.g("chain_len") == 0 and not s.g("passed"):  # 6.3 (response window), first to act
        first = "the turn player" if s.g("prio") == s.tp else "the opponent (window_first)"
        return f"6.3 (response window): {first} holds priority first after the turn player's act"
    if s.g("chain_len") == 0 and not s.g("passed") and s.g("prio") == s.tp:
        if ph == Phase.DRAW and not s.g("drew"):
            return "6.3.1: before the normal draw only the turn player, who holds priority, may start a chain"
        after = "after the draw, " if ph == Phase.DRAW else ""
        return f"{PHASE_CLAUSE[ph]}: {after}activation starts with the turn player, who holds priority"
    if s.g("chain_len") > 0 and not s.g("passed"):
        return "seed 000: after a new chain link the other player may respond first"
    return "6.3: the player does not hold priority"


def trigger_due(s: State, p: Val) -> Val:
    return s.k.one_of(s.g("trig", p), (Pending.FLIP_DUE, Pending.TRIGGER_DUE))


def any_trigger_due(s: State) -> Val:
    return s.k.or_(trigger_due(s, 0), trigger_due(s, 1))


def _trigger_clause(s: State) -> str:
    """The clause of the timing a triggered effect is activated at, in this phase or step."""
    ph = s.g("phase")
    return {Phase.DMG_END: "6.3.4.3.5", Phase.STANDBY: "6.3.2", Phase.END: "6.3.6"}.get(ph, "6.3.4.3.4")


def waiting_trigger(s: State) -> str:
    """Why nothing else is done while a triggered effect waits to be activated or declined."""
    clause = _trigger_clause(s)
    return f"{clause}: a triggered effect is waiting: it is activated (or declined) first, the turn player's first"


def nothing_waiting(s: State) -> str:
    """Why no triggered effect can be activated now, citing the timing of this phase or step."""
    return f"{_trigger_clause(s)}: no triggered effect is waiting to be activated"


def must_draw(s: State) -> Val:
    """6.3.1: the turn player draws at the start of the Draw Phase, except the first player on turn 1."""
    return s.k.or_(s.g("turn") > 1, s.r.first_turn_draw)


def draw_count(s: State) -> Val:
    """6.3.1: the normal draw is one card; with `draw_until` (Rush Duel: 5) the turn player draws until that
    many cards are in hand, and one card when they hold that many or more."""
    until = s.r.draw_until
    if until == 0:
        return 1
    hand = s.g("hand", s.tp)
    return s.k.ite(hand < until, until - hand, 1, w=s.schema["hand"].width)


def draw_pending(s: State) -> Val:
    """6.3.1: the turn player's normal draw is still to be made in this Draw Phase."""
    return s.k.and_(s.g("phase") == Phase.DRAW, s.k.not_(s.g("drew")), must_draw(s))


def replay_due(s: State) -> Val:
    """6.3.4.2.1: once the chain in progress has resolved, the attacker must choose a new target or stop."""
    k = s.k
    return k.and_(s.g("replay"), s.g("attacking"), s.g("chain_len") == 0, k.not_(s.g("resolving")))


def require_can_act(s: State, n: Builder, p: Val, before_draw: Val = False) -> None:
    """Player p holds priority in a state where players act (6.3). `before_draw`: the act is one 6.3.1 allows
    before the normal draw (a "before the draw" effect, and the passes and answers of its chain)."""
    k = s.k
    require_live(s, n)
    n.require(s.g("prio") == p, not_holding_priority)
    n.require(
        k.not_(s.g("resolving")), "seed 000: the chain is resolving, last link first; nobody acts until it has resolved"
    )
    n.require(k.not_(any_trigger_due(s)), waiting_trigger)
    n.require(k.not_(s.g("discarding")), "6.3.6: the turn player is discarding to the hand limit")
    n.require(
        k.or_(k.not_(draw_pending(s)), before_draw), "6.3.1: nothing is done in the Draw Phase before the normal draw"
    )
    n.require(k.not_(replay_due(s)), "6.3.4.2.1: the attacking player must first choose a new target or stop")
    n.require(
        k.not_(k.or_(s.g("replacing", 0), s.g("replacing", 1))),
        "6.3.4.3.3: a destruction replacement is being decided at damage calculation",
    )


def require_open_main(s: State, n: Builder) -> None:
    """6.3.3: the turn player, holding priority with an empty chain in a Main Phase."""
    k = s.k
    require_can_act(s, n, s.tp)
    n.require(s.is_phase(*MAIN_PHASES), "6.3.3: this is done only in the turn player's Main Phase")
    n.require(s.g("chain_len") == 0, "6.3.3: this is done only while no chain is open")
    n.require(k.not_(s.g("attacking")), "6.3.3: no attack is in progress in a Main Phase")


# 6.3 (response window), seed 000 (000:L31: after an act that can be answered the opponent is asked first): what
# the turn player may do before the opponent has had the chance to respond (docs/engine-findings.md F12)
WINDOW_OPEN = (
    "6.3 (response window): the opponent may first respond to the turn player's last act; until both pass, the "
    "turn player may only activate a card of speed 2 or more, or pass"
)


def require_window_closed(s: State, n: Builder) -> None:
    """6.3 (response window): the turn player's next act waits until both players have passed the window. Kept
    the last guard of each action that reads it, so that the other guards keep their places (mutation sites)."""
    n.require(s.k.not_(s.g("window")), WINDOW_OPEN)


def open_game_state_phase(s: State) -> Val:
    """A Main Phase, or the Battle Step with no attack going on: where the turn player acts at will (6.3.3,
    6.3.4.2), and where a response window can open."""
    k = s.k
    return k.or_(s.is_phase(*MAIN_PHASES), k.and_(s.g("phase") == Phase.BATTLE_STEP, k.not_(s.g("attacking"))))


def open_window(n: Builder) -> None:
    """6.3 (the response window, `response_window`): after the turn player's summon, Set or change of battle
    position, or once a chain has resolved, in their Main Phase or Battle Step, the turn player holds priority
    and may pass it to the opponent, who may respond; two passes there close the window and the phase goes on.
    The seeds' 6.3 says only that two passes end a phase; the window is the official rulebook's and the engines'
    (found by duelcheck difftest against ygopro-core: docs/engine-findings.md, F1)."""
    if n.r.response_window:
        n.set("window", True)
        if n.r.window_first == "opponent":  # Rush Duel: the non-turn player decides first (window_first)
            n.set("prio", n.other(n.tp))
    n.set("m1_start", False)  # 6.3.3: something was done: Main Phase 1 is no longer at its start


def activated_type(s: State, kind: Val) -> Val:
    """The monster effect type a link of this kind comes from when a monster's effect is activated from the
    field with `activate` (model/cards.py ACTIVATED_BY_KIND); 0 for other kinds."""
    return s.k.sel(_ACTIVATED_TYPE, kind, w=3)


def speed(s: State, kind: Val) -> Val:
    """seed 000, spell speeds."""
    return s.k.sel(_SPEED, kind, w=4)


# the two tables above by a link kind's code, built once (the rules read them at every activation)
_ACTIVATED_TYPE = tuple(int(ACTIVATED_BY_KIND.get(Kind(i), 0)) for i in range(len(Kind)))
_SPEED = tuple(SPEED[Kind(i)] for i in range(len(Kind)))
_EFFECTS = tuple(Effect)
_COSTS = tuple(Cost)


def first_due(s: State, flags: list[Val]) -> tuple[Val, Val]:
    """Whether any flag holds, and the lowest zone whose flag holds (the last zone when none does)."""
    k = s.k
    idx: Val = len(flags) - 1
    for z in range(len(flags) - 2, -1, -1):
        idx = k.ite(flags[z], z, idx, w=4)
    return k.or_(*flags), idx


def first_free(s: State, flags: list[Val]) -> tuple[Val, Val]:
    """Whether a zone is free, and the lowest free zone (the zone a card goes to is immaterial here)."""
    return first_due(s, [s.k.not_(f) for f in flags])


def end_phase_due(s: State, p: Val, z: int) -> Val:
    """6.3.6 (001:L116): the face-up monster in player p's zone z carries a mandatory End Phase effect not yet
    activated this turn."""
    k = s.k
    return k.and_(
        s.g("m_occ", p, z),
        s.g("m_up", p, z),
        s.g("m_kind", p, z) == MonsterEffect.END_PHASE,
        k.not_(s.g("m_used", p, z)),
    )


def mandatory(s: State, p: Val) -> Val:
    """6.3.6 (001:L116): player p's waiting triggered effect is a mandatory End Phase effect of a monster on the
    field (the model's other waiting effects come from the Graveyard or are Flip effects)."""
    return s.k.and_(s.g("trig", p) == Pending.TRIGGER_DUE, s.g("trig_zone", p) < s.r.monster_zones)


def winner_if_loses(s: State, p: Val) -> Val:
    """The value of `winner` when player p loses."""
    return s.k.ite(p == 0, 2, 1, w=4)


DRAWN = 3  # the value of `winner` for a drawn duel: both players' LP reached 0 at once


def lp_decide(n: Builder) -> None:
    """seed 000 (winning): a player whose LP are 0 or less has lost, at once, whatever is happening (damage
    calculation, a chain's resolution, a cost); both players at 0 at once is a drawn duel (rulebook, winning).
    Read after every change of LP."""
    k = n.k
    out = [n.g("lp", p) <= 0 for p in (0, 1)]
    with n.when(k.and_(n.g("winner") == 0, k.or_(*out))):
        loser = k.ite(out[0], winner_if_loses(n, 0), winner_if_loses(n, 1), w=4)
        n.set("winner", k.ite(k.and_(*out), DRAWN, loser, w=4))


def take_damage(n: Builder, p: Val, amount: Val) -> None:
    """Player p takes damage (battle or effect), unless a lasting effect of theirs says they take none: it applies
    until its period is over with all its processing (6.3.4.3.5, 6.3.4.4, 6.3.6; `end_lasting`)."""
    with n.when(n.g("no_damage", p) == Until.NONE):
        n.add("lp", p, -amount)


def end_lasting(n: Builder, period: Until) -> None:
    """The period ends: the lasting effects that apply until its end stop applying (the periods nest, so those
    of a shorter one stop too)."""
    for p in (0, 1):
        with n.when(n.g("no_damage", p) <= period):
            n.set("no_damage", p, Until.NONE)


# -- field changes shared by several rules -----------------------------------------------------

MONSTER_FIELDS = (
    "m_occ",
    "m_up",
    "m_def",
    "m_atk",
    "m_batk",
    "m_defv",
    "m_fresh",
    "m_moved",
    "m_decl",
    "m_doomed",
    "m_kind",
    "m_eff",
    "m_used",
)
SPELL_FIELDS = ("s_occ", "s_up", "s_kind", "s_eff", "s_fresh", "s_cost")
LINK_FIELDS = ("c_owner", "c_kind", "c_eff", "c_zone", "c_tp", "c_ta", "c_tz", "c_neg", "c_gone", "c_cost")


def clear(n: Builder, fields: Iterable[str], *idx: Val) -> None:
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    for f in fields:
        n.set(f, *idx, n.schema[f].zero())


TRIGGER_FIELDS = ("trig", "trig_eff", "trig_zone")


def end_attack(n: Builder) -> None:
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    n.set("attacking", False)
    n.set("replay", False)
    n.set("at_decl", False)


def monster_count_changed(n: Builder, p: Val) -> None:
    """6.3.4.2.1 replay: a monster left or joined the opponent's field in the Battle Step after a declaration."""
    k = n.k
    in_battle_step = k.and_(n.g("phase") == Phase.BATTLE_STEP, n.g("attacking"))
    with n.when(k.and_(in_battle_step, p != n.tp)):
        n.set("replay", True)


def to_graveyard(n: Builder, p: Val, z: Val) -> None:
    """The monster in zone z of player p goes to its owner's Graveyard."""
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    clear(n, MONSTER_FIELDS, p, z)
    n.add("gy", p, 1)


def monster_left(n: Builder, p: Val, z: Val) -> None:
    """What a monster leaving the field means for an attack in progress."""
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    k = n.k
    monster_count_changed(n, p)
    attacking = n.g("attacking")
    # 6.3.4.2: the attacker left the field: the attack cannot go on and no Damage Step follows.
    with n.when(k.and_(attacking, p == n.tp, z == n.g("atk_zone"))):
        end_attack(n)
    # 6.3.4.3.3: the battle target left during the Damage Step: no damage calculation.
    with n.when(k.and_(attacking, n.is_phase(*DAMAGE_STEP), p != n.tp, z == n.g("atk_tgt"))):
        end_attack(n)
    if n.r.trigger_only_in_location:
        # Master Rule 2020 (`trigger_only_in_location`): a Flip effect that triggered on the field and waits is
        # lost once its monster has left the field (docs/engine-findings.md F10)
        waiting = k.one_of(n.g("trig", p), (Pending.FLIPPED, Pending.FLIP_DUE))
        with n.when(k.and_(waiting, n.g("trig_zone", p) == z)):
            clear(n, TRIGGER_FIELDS, p)


def destroy_monster(n: Builder, p: Val, z: Val) -> None:
    """A monster is destroyed by an effect."""
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    with n.when(n.g("m_occ", p, z)):
        monster_left(n, p, z)
        to_graveyard(n, p, z)


def destroy_all_monsters(n: Builder) -> None:
    """Every monster on the field is destroyed at once; each leaving means for an attack what one destroyed
    alone means (6.3.4.2, 6.3.4.3.3, 6.3.4.2.1 replay)."""
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    k = n.k
    for p in (0, 1):
        for z in range(n.r.monster_zones):
            # a monster destroyed by battle is destroyed already: it goes at the end of the Damage Step
            with n.when(k.and_(n.g("m_occ", p, z), k.not_(n.g("m_doomed", p, z)))):
                monster_left(n, p, z)
                to_graveyard(n, p, z)


def destroy_spell(n: Builder, p: Val, z: Val) -> None:
    """A Spell/Trap leaves the field; a chain link of that card now resolves without its card."""
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    k = n.k
    with n.when(n.g("s_occ", p, z)):
        clear(n, SPELL_FIELDS, p, z)
        n.add("gy", p, 1)
        for j in range(n.r.chain_links):
            card = k.not_(k.one_of(n.g("c_kind", j), MONSTER_KINDS))  # a Spell/Trap's link, not a monster's
            on_chain = k.and_(j < n.g("chain_len"), card, n.g("c_owner", j) == p, n.g("c_zone", j) == z)
            with n.when(on_chain):
                n.set("c_gone", j, True)


def place_monster(
    n: Builder, p: Val, atk: Val, defv: Val, defense: Val, up: Val, mkind: Val = 0, meff: Val = 0
) -> None:
    """A monster enters player p's field (a Normal Summon, a Set or a Special Summon)."""
    free, z = first_free(n, n.row("m_occ", p))
    n.require(free, "the player has no free Monster Zone")
    n.set("m_occ", p, z, True)
    n.set("m_up", p, z, up)
    n.set("m_def", p, z, defense)
    n.set("m_atk", p, z, atk)
    n.set("m_batk", p, z, atk)
    n.set("m_defv", p, z, defv)
    n.set("m_fresh", p, z, True)
    n.set("m_kind", p, z, mkind)
    n.set("m_eff", p, z, meff)
    monster_count_changed(n, p)


def enter_phase(n: Builder, phase: Val) -> None:
    """6.3: each phase and step begins with the turn player holding priority."""
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    n.set("phase", phase)
    n.set("prio", n.tp)
    n.set("passed", False)
    n.set("window", False)
    n.set("ds_chained", False)  # a new timing: no chain has resolved in it
    n.set("m1_start", phase == Phase.MAIN1)  # 6.3.3: the start of Main Phase 1, until something is done there


def next_turn(n: Builder) -> None:
    """6.3.6: after the End Phase the other player's turn begins with their Draw Phase."""
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    k, r = n.k, n.r
    n.set("turn", n.g("turn") + 1)
    n.set("phase", Phase.DRAW)
    n.set("prio", n.tp)  # tp is derived from the turn number just written
    n.set("passed", False)
    n.set("window", False)
    n.set("ds_chained", False)
    n.set("drew", False)
    n.set("nsum", 0)
    n.set("bp_done", False)
    n.set("discarding", False)
    for p in (0, 1):
        for z in range(r.monster_zones):
            for f in ("m_fresh", "m_moved", "m_decl", "m_used"):
                n.set(f, p, z, False)
        for z in range(r.spell_trap_zones):
            n.set("s_fresh", p, z, False)
        # 6.3 (counting turns): a delayed effect whose Standby Phase did not come (none in this duel's turn) is
        # over; otherwise the new turn counts, every turn for a text that names no player (001:L11), only its
        # controller's own turns for a text counted in them (001:L12)
        left, own = n.g("later", p), n.g("later_own", p)
        counts = k.or_(k.not_(own), n.tp == p)
        now = k.ite(left == 1, 0, k.ite(k.and_(left >= 2, counts), left - 1, left, w=3), w=3)
        n.set("later", p, now)
        n.set("later_own", p, k.and_(own, now != 0))
        # 6.3.6: "until the end of the turn" ended with the End Phase, the hand adjusted (001:L120)
        n.set("no_damage", p, Until.NONE)


def leave_main1(n: Builder, choice: Val) -> None:
    """6.3.3: when Main Phase 1 ends the turn player chooses the Battle Phase or the End Phase."""
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    k, r, tp = n.k, n.r, n.tp
    n.require(
        k.one_of(choice, (TO_BATTLE, TO_MAIN2, TO_END)),
        "6.3.3: when Main Phase 1 ends the turn player chooses the Battle Phase or the End Phase",
    )
    with n.when(choice == TO_BATTLE):
        n.require(
            k.or_(n.g("turn") > 1, r.first_turn_battle),
            "6.3.4: the player who goes first cannot conduct a Battle Phase on turn 1",
        )
        skipped = n.g("skip_bp", tp)
        with n.when(skipped):  # seed 000: a skipped Battle Phase leads to the End Phase, never to Main Phase 2
            n.set("skip_bp", tp, False)
            enter_phase(n, Phase.END)
        with n.when(k.not_(skipped)):
            n.set("bp_done", True)
            enter_phase(n, Phase.BATTLE_START)  # 6.3.4: the Battle Phase starts with the Start Step
    with n.when(choice == TO_MAIN2):
        n.require(
            k.and_(r.main_phase_2, k.not_(r.main_phase_2_requires_battle_phase)),
            "6.3.5: Main Phase 2 only follows a Battle Phase",
        )
        enter_phase(n, Phase.MAIN2)
    with n.when(choice == TO_END):
        enter_phase(n, Phase.END)


def damage_calculation(n: Builder) -> None:
    """6.3.4.3.3 the battle damage table; 6.3.4.3.3.1 battles of 0 ATK."""
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    k, r, tp = n.k, n.r, n.tp
    opp = n.other(tp)
    a = n.g("m_atk", tp, n.g("atk_zone"))
    tz = n.g("atk_tgt")
    direct = tz == DIRECT
    t_atk, t_def, t_is_def = n.g("m_atk", opp, tz), n.g("m_defv", opp, tz), n.g("m_def", opp, tz)
    with n.when(n.g("attacking")):
        with n.when(direct):  # a direct attack deals damage equal to the attacker's ATK
            take_damage(n, opp, a)
        with n.when(k.and_(k.not_(direct), k.not_(t_is_def))):  # ATK against ATK
            with n.when(a > t_atk):  # the higher destroys the lower; its controller takes the difference
                n.set("m_doomed", opp, tz, True)
                take_damage(n, opp, a - t_atk)
            with n.when(a < t_atk):
                n.set("m_doomed", tp, n.g("atk_zone"), True)
                take_damage(n, tp, t_atk - a)
            # equal and not 0: both destroyed, no damage; 0 against 0: nothing (6.3.4.3.3.1)
            with n.when(k.and_(a == t_atk, k.or_(a != 0, r.zero_atk_battle_destroys))):
                n.set("m_doomed", opp, tz, True)
                n.set("m_doomed", tp, n.g("atk_zone"), True)
        with n.when(k.and_(k.not_(direct), t_is_def)):  # ATK against DEF
            with n.when(a > t_def):  # higher ATK destroys, no damage
                n.set("m_doomed", opp, tz, True)
            with n.when(a < t_def):  # lower ATK: the attacker's controller takes the difference
                take_damage(n, tp, t_def - a)
        lp_decide(n)  # LP at 0 or less ends the duel


def replaces_destruction(s: State, p: Val, z: Val) -> Val:
    """The monster in player p's zone z is determined destroyed by battle and carries "if this card would be
    destroyed by battle, you can discard 1 card instead", face-up (6.3.4.3.3, 001:L86)."""
    k = s.k
    return k.and_(
        s.g("m_occ", p, z),
        s.g("m_up", p, z),
        s.g("m_doomed", p, z),
        s.g("m_kind", p, z) == MonsterEffect.CONTINUOUS,
        s.g("m_eff", p, z) == Effect.DISCARD_INSTEAD,
    )


def after_damage_calculation(n: Builder) -> None:
    """6.3.4.3.3 -> 6.3.4.3.4: damage calculation is over."""
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    k = n.k
    enter_phase(n, Phase.DMG_AFTER)
    for p in (0, 1):  # 6.3.4.3.4: a Flip effect of a monster flipped by this attack is activated now
        with n.when(n.g("trig", p) == Pending.FLIPPED):
            with n.when(n.g("m_occ", p, n.g("trig_zone", p))):
                n.set("trig", p, Pending.FLIP_DUE)
            with n.when(k.not_(n.g("m_occ", p, n.g("trig_zone", p)))):
                clear(n, TRIGGER_FIELDS, p)


def main1_ends(s: State) -> Val:
    """6.3.3: whether the phase ending now is the one after which the turn player chooses the next phase
    (Main Phase 1, or the phase before it when Main Phase 1 is skipped)."""
    k, ph = s.k, s.g("phase")
    before_main1 = Phase.STANDBY if s.r.standby_phase else Phase.DRAW
    return k.or_(ph == Phase.MAIN1, k.and_(ph == before_main1, s.g("skip_m1", s.tp)))


def advance(n: Builder, choice: Val) -> None:
    """6.3: both players passed in succession with an empty chain: the phase or step ends."""
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    k, r, tp = n.k, n.r, n.tp
    ph = n.g("phase")
    # the phase Main Phase 1 would follow: the Standby Phase (6.3.2), or the Draw Phase where there is none
    before_main1 = Phase.STANDBY if r.standby_phase else Phase.DRAW
    decides = main1_ends(n)
    with n.when(k.not_(decides)):
        # 6.3.5: Main Phase 2 follows the end of a Battle Phase (saying so there is no choice, but not wrong)
        n.require(
            k.or_(choice != TO_MAIN2, k.and_(ph == Phase.BATTLE_END, r.main_phase_2)),
            "6.3.5: Main Phase 2 comes only when a Battle Phase ends",
        )
        n.require(k.or_(choice == NO_CHOICE, choice == TO_MAIN2), "6.3.3: only the end of Main Phase 1 offers a choice")
    if r.standby_phase:
        with n.when(ph == Phase.DRAW):  # 6.3.1 -> 6.3.2
            enter_phase(n, Phase.STANDBY)
    with n.when(ph == before_main1):  # 6.3.2 (or 6.3.1 without a Standby Phase); seed 000: Main Phase 1 skipped
        skipped = n.g("skip_m1", tp)
        with n.when(skipped):
            n.set("skip_m1", tp, False)
            leave_main1(n, choice)
        with n.when(k.not_(skipped)):
            enter_phase(n, Phase.MAIN1)
    with n.when(ph == Phase.MAIN1):
        leave_main1(n, choice)
    with n.when(ph == Phase.BATTLE_START):  # 6.3.4.1
        enter_phase(n, Phase.BATTLE_STEP)
    with n.when(ph == Phase.BATTLE_STEP):  # 6.3.4.2: to the Damage Step if an attack goes on, else the End Step
        n.set("at_decl", False)
        enter_phase(n, k.ite(n.g("attacking"), int(Phase.DMG_START), int(Phase.BATTLE_END), w=4))
    with n.when(ph == Phase.DMG_START):  # 6.3.4.3.1 -> 6.3.4.3.2: a face-down target is turned face-up
        enter_phase(n, Phase.DMG_BEFORE)
        tz, opp = n.g("atk_tgt"), n.other(tp)
        with n.when(k.and_(n.g("attacking"), tz != DIRECT)):
            # 6.3.4.3.2: a Flip effect is not activated now; it waits for damage calculation (6.3.4.3.4)
            with n.when(k.and_(k.not_(n.g("m_up", opp, tz)), n.g("m_kind", opp, tz) == MonsterEffect.FLIP)):
                n.set("trig", opp, Pending.FLIPPED)
                n.set("trig_eff", opp, n.g("m_eff", opp, tz))
                n.set("trig_zone", opp, tz)
            n.set("m_up", opp, tz, True)
    with n.when(ph == Phase.DMG_BEFORE):  # 6.3.4.3.2 -> 6.3.4.3.3
        enter_phase(n, Phase.DMG_DURING)
    with n.when(ph == Phase.DMG_DURING):  # 6.3.4.3.3 -> 6.3.4.3.4
        damage_calculation(n)
        # 6.3.4.3.3 (001:L86): a destruction replacement is applied at this timing: its player decides first
        for p in (0, 1):
            carries = k.or_(*(replaces_destruction(n, p, z) for z in range(r.monster_zones)))
            with n.when(k.and_(carries, n.g("hand", p) > 0, n.g("winner") == 0)):
                n.set("replacing", p, True)
                n.set("prio", tp)
                n.set("passed", False)
        with n.when(k.not_(k.or_(n.g("replacing", 0), n.g("replacing", 1)))):
            after_damage_calculation(n)
    with n.when(ph == Phase.DMG_AFTER):  # 6.3.4.3.4 -> 6.3.4.3.5
        enter_phase(n, Phase.DMG_END)
        # 6.3.4.3.5: the timing where monsters destroyed by battle are sent to the Graveyard; effects
        # "when this card is destroyed by battle and sent to the Graveyard" are activated after it
        for p in (0, 1):
            for z in range(r.monster_zones):
                with n.when(n.g("m_doomed", p, z)):
                    with n.when(n.g("m_kind", p, z) == MonsterEffect.TRIGGER):
                        n.set("trig", p, Pending.TRIGGER_DUE)
                        n.set("trig_eff", p, n.g("m_eff", p, z))
                        n.set("trig_zone", p, GRAVEYARD)
                    to_graveyard(n, p, z)
    with n.when(ph == Phase.DMG_END):  # 6.3.4.3.5: the battle is over; back to the Battle Step
        end_attack(n)
        enter_phase(n, Phase.BATTLE_STEP)
        end_lasting(n, Until.DAMAGE_STEP)  # 6.3.4.3.5: "until the end of the Damage Step" ends now (001:L99)
    with n.when(ph == Phase.BATTLE_END):  # 6.3.4.4 -> 6.3.5
        enter_phase(n, Phase.MAIN2 if r.main_phase_2 else Phase.END)
        end_lasting(n, Until.BATTLE_PHASE)  # 6.3.4.4: "until the end of the Battle Phase" ends now (001:L106)
    with n.when(ph == Phase.MAIN2):  # 6.3.5 -> 6.3.6
        enter_phase(n, Phase.END)
    with n.when(ph == Phase.END):  # 6.3.6: mandatory effects, the hand limit, then the next turn
        # 6.3.6 (001:L116): after both players pass, the mandatory End Phase effects are activated and handled,
        # the turn player's first: one waits as a triggered effect and starts a chain of its own; once it has
        # resolved and both pass again, the next (the opponent's once the turn player has none left)
        opp = n.other(tp)
        mine, theirs = (first_due(n, [end_phase_due(n, p, z) for z in range(r.monster_zones)]) for p in (tp, opp))
        handled = k.not_(k.or_(mine[0], theirs[0]))
        # 6.3.6 (Rush Duel: no hand limit, when hand_limit_enforced is off)
        over = k.and_(handled, r.hand_limit_enforced, n.g("hand", tp) > r.hand_limit)
        with n.when(over):  # the discard is the turn player's act: they hold the game until it is done
            n.set("discarding", True)
            n.set("prio", tp)
        with n.when(k.and_(handled, k.not_(over))):
            next_turn(n)
        for p, (due, zone), first in ((tp, mine, True), (opp, theirs, k.not_(mine[0]))):
            with n.when(k.and_(due, first)):
                n.set("trig", p, Pending.TRIGGER_DUE)
                n.set("trig_eff", p, n.g("m_eff", p, zone))
                n.set("trig_zone", p, zone)
        with n.when(k.not_(handled)):
            n.set("prio", tp)
            n.set("passed", False)


# -- candidates: the parameter choices the concrete interpreter tries (the guard decides) -------


def _none(s: State) -> Iterable[dict[str, int]]:
    return ({},)


def _stats(s: State) -> Iterator[dict[str, int]]:
    for atk in STAT_VALUES:
        for defv in STAT_VALUES:
            yield {"atk": atk, "defv": defv}


def _monsters(s: State) -> Iterator[dict[str, int]]:
    """Monsters to summon or Set: every stat pair the search tries, with each effect of the catalogue."""
    if s.g("hand", s.tp) == 0 or s.g("phase") not in MAIN_PHASES or s.g("chain_len") > 0:
        return  # no summon is possible (a shortcut; the guard decides, and a test checks nothing is missed)
    kinds = [(0, 0)] + [(int(m), int(e)) for m, effects in MONSTER_EFFECTS.items() for e in effects]
    for st in _stats(s):
        for mkind, eff in kinds:
            yield {**st, "mkind": mkind, "eff": eff}


def _my_monster_zones(s: State) -> Iterator[dict[str, int]]:
    for z in range(s.r.monster_zones):
        yield {"zone": z}


def _choices(s: State) -> Iterator[dict[str, int]]:
    for c in (NO_CHOICE, TO_BATTLE, TO_MAIN2, TO_END):
        yield {"choice": c}


def _spell_trap(s: State) -> Iterator[dict[str, int]]:
    for kind in (*SPELLS, *TRAPS):
        for eff in Effect:
            for cost in Cost:
                yield {"kind": int(kind), "eff": int(eff), "cost": int(cost)}


def _targets(s: State, eff: int) -> Iterator[dict[str, int]]:
    if eff not in TARGETED:
        yield {}
        return
    for tp in (0, 1):
        for z in range(s.r.monster_zones):
            if s.g("m_occ", tp, z):  # a shortcut: only a card on the field is a target
                yield {"tplayer": tp, "tarea": 0, "tzone": z}
        if eff == Effect.DESTROY_CARD:
            for z in range(s.r.spell_trap_zones):
                if s.g("s_occ", tp, z):
                    yield {"tplayer": tp, "tarea": 1, "tzone": z}


def _activations(s: State) -> Iterator[dict[str, int]]:
    return activations(s, from_hand=True)


def activations(s: State, from_hand: bool) -> Iterator[dict[str, int]]:
    """The activation candidates of the player to act: every Spell of the catalogue from the hand (when
    `from_hand`), each Set Spell or Trap, and each face-up monster's Ignition or Quick effect."""
    p = s.g("prio")
    sources: list[tuple[int, int, int, int]] = []
    if s.g("resolving") or s.g("winner"):
        return  # a shortcut: nothing is activated now
    if from_hand and s.g("hand", p) > 0:
        sources += [(HAND, int(kind), int(eff), int(cost)) for kind in SPELLS for eff in Effect for cost in Cost]
    for z in range(s.r.spell_trap_zones):
        if s.g("s_occ", p, z) and not s.g("s_up", p, z):
            sources.append((z, s.g("s_kind", p, z), s.g("s_eff", p, z), s.g("s_cost", p, z)))
    for z in range(s.r.monster_zones):
        mkind = s.g("m_kind", p, z)
        if s.g("m_occ", p, z) and mkind in ACTIVATED_BY_KIND.values():
            sources.append((z, int(MONSTER_KIND[MonsterEffect(mkind)]), s.g("m_eff", p, z), 0))
    for zone, kind, eff, cost in sources:
        for t in _targets(s, eff):
            yield {"zone": zone, "kind": kind, "eff": eff, "cost": cost, **t}


def _resolutions(s: State) -> Iterator[dict[str, int]]:
    i = s.g("chain_len") - 1
    eff = s.g("c_eff", i)
    if eff == Effect.SPECIAL_SUMMON:
        yield {}
        for st in _stats(s):
            for pos in (False, True):
                yield {**st, "pos": pos}
    elif eff == Effect.CHANGE_ATK:
        yield {}
        for amount in ATK_CHANGES:
            yield {"amount": amount}
    elif eff == Effect.OPPONENT_DISCARDS:
        yield {}
        for trig in BY_EFFECT_TRIGGERS:
            yield {"eff": int(trig)}
    else:
        yield {}


def _attacks(s: State) -> Iterator[dict[str, int]]:
    for z in range(s.r.monster_zones):
        for t in (*range(s.r.monster_zones), DIRECT):
            yield {"zone": z, "tzone": t}


def _reselections(s: State) -> Iterator[dict[str, int]]:
    for t in (*range(s.r.monster_zones), DIRECT, STOP):
        yield {"tzone": t}


# -- the actions ------------------------------------------------------------------------------


def require_draw_due(s: State, n: Builder) -> None:
    """6.3.1: the turn player's normal draw is due: the duel goes on, in the Draw Phase, no normal draw made yet
    (or replaced), on a turn whose player draws."""
    require_live(s, n)
    n.require(s.g("phase") == Phase.DRAW, "6.3.1: the normal draw is made in the Draw Phase")
    n.require(s.k.not_(s.g("drew")), "6.3.1: the turn player draws only one card in the Draw Phase")
    n.require(must_draw(s), "6.3.1: the player who goes first does not draw on turn 1")


def require_draw_last(s: State, n: Builder) -> None:
    """6.3.1 (001:L16): a chain a "before the draw" effect started resolves before the draw, and what its
    resolution triggered is activated or declined first (the last guards of the draw, so that no other moves)."""
    k = s.k
    n.require(
        k.and_(s.g("chain_len") == 0, k.not_(s.g("resolving"))), "6.3.1: the chain before the draw resolves first"
    )
    # (a Flip effect, where any card may be chained to it: before_draw_chain; 6.3.4.3.4: a triggered effect comes
    # before anything else)
    n.require(
        k.not_(any_trigger_due(s)),
        "6.3.1: a triggered effect waiting before the draw is activated, or declined, before the draw is made",
    )


@action("normal_draw", "6.3.1", (), _none)
def normal_draw(s: State, a: Params, n: Builder) -> None:
    """The turn player draws one card at the start of the Draw Phase; with an empty deck, they lose."""
    k, tp = s.k, s.tp
    require_draw_due(s, n)
    n.set("drew", True)
    count = draw_count(s)
    empty = s.g("deck", tp) < count
    with n.when(empty):  # 6.3.1: a player who must draw from an empty deck (or one too thin) loses the duel
        n.set("winner", winner_if_loses(s, tp))
    with n.when(k.not_(empty)):
        n.add("deck", tp, -count)
        n.add("hand", tp, count)
    require_draw_last(s, n)


def replaces_draw(s: State, p: Val, z: Val) -> Val:
    """The monster in player p's zone z applies "during your Draw Phase, instead of conducting your normal draw,
    you can add 1 card from your Deck to your hand" (6.3.1, 001:L16): face-up on the field, carrying that effect."""
    k = s.k
    return k.and_(
        s.g("m_occ", p, z),
        s.g("m_up", p, z),
        s.g("m_kind", p, z) == MonsterEffect.CONTINUOUS,
        s.g("m_eff", p, z) == Effect.SEARCH_INSTEAD_OF_DRAW,
    )


@action("draw_instead", "6.3.1", ("zone",), _my_monster_zones)
def draw_instead(s: State, a: Params, n: Builder) -> None:
    """6.3.1 (001:L16): instead of the normal draw, the turn player applies the effect of their face-up monster in
    `zone` "instead of conducting your normal draw, you can add 1 card from your Deck to your hand": applied, not
    activated (nothing is chained), at the moment of the draw; no card is drawn (one card is added, however many
    the draw would have given), and the Draw Phase goes on as after the draw."""
    r, tp = s.r, s.tp
    require_draw_due(s, n)
    n.require(a.zone < r.monster_zones, "model range: no such Monster Zone")
    n.require(
        replaces_draw(s, tp, a.zone),
        "6.3.1: no face-up monster of the turn player in zone {zone} applies an effect instead of the normal draw",
    )
    # with an empty deck there is nothing to add: the draw is not replaced, and the player loses at the draw
    n.require(
        s.g("deck", tp) > 0,
        "6.3.1: the effect instead of the normal draw cannot be applied: no card in the deck to add to the hand",
    )
    n.set("drew", True)
    n.add("deck", tp, -1)
    n.add("hand", tp, 1)
    require_draw_last(s, n)


@action("pass", "6.3", ("choice",), _choices)
def pass_(s: State, a: Params, n: Builder) -> None:
    """The player holding priority passes; after two passes in succession the chain resolves or the step ends."""
    k = s.k
    p = s.g("prio")
    require_can_act(s, n, p, before_draw=s.g("chain_len") > 0)  # 6.3.1: a chain before the draw resolves
    second = s.g("passed")
    with n.when(k.not_(second)):
        n.require(a.choice != TO_MAIN2, "6.3.5: Main Phase 2 comes only when a Battle Phase ends")
        n.require(a.choice == NO_CHOICE, "6.3.3: only the end of Main Phase 1 offers a choice")
        n.set("passed", True)
        n.set("prio", s.other(p))
    with n.when(second):
        chain = s.g("chain_len") > 0
        window = k.and_(k.not_(chain), s.g("window"))
        with n.when(chain):  # seed 000: both passed: the chain resolves, last link first
            n.require(a.choice == NO_CHOICE, "6.3.3: only the end of Main Phase 1 offers a choice")
            n.set("resolving", True)
            n.set("passed", False)
        with n.when(window):  # 6.3 (response window): both passed it; the turn player acts on in the phase
            n.require(a.choice == NO_CHOICE, "6.3: passing the response window closes it; the phase goes on")
            n.set("window", False)
            n.set("prio", s.tp)
            n.set("passed", False)
        with n.when(k.and_(k.not_(chain), k.not_(window))):
            advance(n, a.choice)


@action("end_step", "6.3", ("choice",), _choices)
def end_step(s: State, a: Params, n: Builder) -> None:
    """Both players pass in succession with an empty chain: the phase or step ends (6.3).

    Exactly two `pass` actions, the first by the player holding priority with no choice, the second by
    the other player with the choice (if any) at the end of Main Phase 1. It adds no play the rules do
    not allow and removes none (a single pass stays an action); a play needs one step for the pair. The
    passes are `pass` itself, run as that action (a rule of `pass` changed, for mutation analysis too,
    changes them alike); its own two guards only keep the pair to the end of a phase or step, a shortcut
    of the model (without them it would be two passes still), not a rule of the game.
    """
    n.require(s.g("chain_len") == 0, "model shortcut: end_step ends a phase or step, so no chain is open (6.3)")
    n.require(s.k.not_(s.g("passed")), "model shortcut: end_step is both passes, and one player has passed (6.3)")
    # a response window open first takes two passes of its own, which change nothing else: they are folded in
    n.set("window", False)
    with action_body("pass"):
        in_succession(n, pass_, Params({"choice": NO_CHOICE}))
    with action_body("pass"):
        in_succession(n, pass_, a)


@composite("end_steps", "6.3", ("choice",), _choices)
def end_steps(s: State, a: Params) -> list[tuple[str, Params]]:
    """Two phases or steps end in succession, each when both players pass with an empty chain (6.3): two
    `end_step` actions. The choice at the end of Main Phase 1 (6.3.3) goes to whichever of the two ends it."""
    first = main1_ends(s)
    return [
        ("end_step", Params({"choice": s.k.ite(first, a.choice, NO_CHOICE, w=4)})),
        ("end_step", Params({"choice": s.k.ite(first, NO_CHOICE, a.choice, w=4)})),
    ]


def in_succession(n: Builder, body: Body, a: Params) -> None:
    """Run a rule body on the state `n` has built so far, as the next action of the same step."""
    mid = State(n.k, n.r, n.schema, dict(n.v))
    then = mid.edit()
    body(mid, a, then)
    n.v.update(then.v)
    n.guards.extend(then.guards)


@action("normal_summon", "6.3.5", ("atk", "defv", "mkind", "eff"), _monsters)
def normal_summon(s: State, a: Params, n: Builder) -> None:
    """Normal Summon a monster from the hand in face-up Attack Position."""
    summon_or_set(s, a, n, defense=False, up=True)


@action("set_monster", "6.3.5", ("atk", "defv", "mkind", "eff"), _monsters)
def set_monster(s: State, a: Params, n: Builder) -> None:
    """Set a monster from the hand in face-down Defense Position."""
    summon_or_set(s, a, n, defense=True, up=False)


def summon_or_set(s: State, a: Params, n: Builder, defense: bool, up: bool) -> None:
    r, tp = s.r, s.tp
    require_open_main(s, n)
    n.require(
        s.g("nsum") < r.normal_summons_per_turn,
        f"6.3.5: only {r.normal_summons_per_turn} Normal Summon or Set per turn, across Main Phase 1 and 2",
    )
    n.require(s.g("hand", tp) > 0, "the turn player has no card in hand")
    require_stats(n, a.atk, a.defv)
    require_monster_effect(n, a.mkind, a.eff)
    require_window_closed(s, n)
    n.add("hand", tp, -1)
    n.add("nsum", 1)
    n.set("passed", False)
    open_window(n)
    place_monster(n, tp, a.atk, a.defv, defense, up, a.mkind, a.eff)


def require_stats(n: Builder, atk: Val, defv: Val) -> None:
    k = n.k
    n.require(
        k.and_(atk >= 0, atk <= ATK_CAP, defv >= 0, defv <= ATK_CAP),
        "model range: a monster's ATK and DEF are multiples of 100 from 0 to 9000",
    )


# the model's monster catalogue: the effects each effect type may carry
MONSTER_EFFECTS: dict[MonsterEffect, tuple[Effect, ...]] = {
    MonsterEffect.IGNITION: (Effect.DESTROY_CARD, Effect.DRAW, Effect.SPECIAL_SUMMON),
    MonsterEffect.QUICK: (Effect.NEGATE, Effect.CHANGE_ATK, Effect.CHANGE_POSITION),
    MonsterEffect.FLIP: (Effect.DESTROY_CARD, Effect.DRAW),
    MonsterEffect.TRIGGER: (Effect.DESTROY_CARD, Effect.DRAW, Effect.SPECIAL_SUMMON),
    MonsterEffect.CONTINUOUS: (
        Effect.NO_TRAPS,
        Effect.ATTACK_DIRECTLY,
        Effect.DISCARD_INSTEAD,
        Effect.SEARCH_INSTEAD_OF_DRAW,  # 6.3.1: applied instead of the normal draw
    ),
    MonsterEffect.BEFORE_DRAW: (Effect.DRAW,),  # 6.3.1: "before your normal draw: you can draw 1 card"
    MonsterEffect.END_PHASE: (Effect.DRAW,),  # 6.3.6: "during each End Phase: draw 1 card", mandatory
}


def require_monster_effect(n: Builder, mkind: Val, eff: Val) -> None:
    k = n.k
    options = [k.and_(mkind == 0, eff == 0)]
    options += [k.and_(mkind == m, k.one_of(eff, effects)) for m, effects in MONSTER_EFFECTS.items()]
    n.require(k.or_(*options), "model catalogue: a monster's effect type and effect")


@action("flip_summon", "6.3.3", ("zone",), _my_monster_zones)
def flip_summon(s: State, a: Params, n: Builder) -> None:
    """Flip Summon a face-down monster to face-up Attack Position; not on the turn it was Set."""
    k, tp, z = s.k, s.tp, a.zone
    require_open_main(s, n)
    n.require(z < s.r.monster_zones, "model range: no such Monster Zone")
    n.require(s.g("m_occ", tp, z), "6.3.3: there is no monster in that zone")
    n.require(k.not_(s.g("m_up", tp, z)), "6.3.3: only a face-down monster is Flip Summoned")
    n.require(k.not_(s.g("m_fresh", tp, z)), "6.3.3: a monster cannot be Flip Summoned on the turn it was Set")
    n.require(k.not_(s.g("m_moved", tp, z)), "seed 000: its battle position already changed this turn")
    # 000:L57: a monster that declared an attack cannot change its battle position that turn; a Flip Summon is
    # a change of battle position (000:L71), even when an effect turned it face-down after the attack (F9)
    n.require(
        k.not_(s.g("m_decl", tp, z)),
        "seed 000: the monster in zone {zone} declared an attack this turn and cannot change its battle position",
    )
    require_window_closed(s, n)
    n.set("m_up", tp, z, True)
    n.set("m_def", tp, z, False)
    n.set("m_moved", tp, z, True)
    n.set("passed", False)
    open_window(n)
    flipped(n, tp, z)


def flipped(n: Builder, p: Val, z: Val) -> None:
    """A face-down monster was turned face-up (not by an attack): its Flip effect is activated next."""
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    with n.when(n.g("m_kind", p, z) == MonsterEffect.FLIP):
        n.set("trig", p, Pending.FLIP_DUE)
        n.set("trig_eff", p, n.g("m_eff", p, z))
        n.set("trig_zone", p, z)


@action("change_position", "6.3.3", ("zone",), _my_monster_zones)
def change_position(s: State, a: Params, n: Builder) -> None:
    """Change a face-up monster's battle position: once per turn, not the turn it arrived, not after it attacked."""
    k, tp, z = s.k, s.tp, a.zone
    require_open_main(s, n)
    n.require(z < s.r.monster_zones, "model range: no such Monster Zone")
    n.require(s.g("m_occ", tp, z), "6.3.3: there is no monster in that zone")
    n.require(s.g("m_up", tp, z), "seed 000: a face-down monster changes position only by a Flip Summon")
    n.require(
        k.not_(s.g("m_fresh", tp, z)),
        "seed 000: the monster in zone {zone} was summoned or Set this turn and cannot change its battle position",
    )
    n.require(k.not_(s.g("m_moved", tp, z)), "seed 000: a monster changes its battle position once per turn")
    n.require(
        k.not_(s.g("m_decl", tp, z)),
        "seed 000: the monster in zone {zone} declared an attack this turn and cannot change its battle position",
    )
    require_window_closed(s, n)
    n.set("m_def", tp, z, k.not_(s.g("m_def", tp, z)))
    n.set("m_moved", tp, z, True)
    n.set("passed", False)
    open_window(n)


@action("set_spell_trap", "seed 000", ("kind", "eff", "cost"), _spell_trap)
def set_spell_trap(s: State, a: Params, n: Builder) -> None:
    """Set a Spell or Trap from the hand face-down; as many as free zones allow."""
    k, tp = s.k, s.tp
    require_open_main(s, n)
    n.require(s.g("hand", tp) > 0, "the turn player has no card in hand")
    n.require(k.one_of(a.kind, (*SPELLS, *TRAPS)), "only a Spell or a Trap is Set in a Spell & Trap Zone")
    n.require(k.one_of(a.eff, _EFFECTS), "model catalogue: an effect from the catalogue")
    n.require(k.one_of(a.cost, _COSTS), "model catalogue: a cost from the catalogue")
    free, z = first_free(s, s.row("s_occ", tp))
    n.require(free, "seed 000: no free Spell & Trap Zone")
    require_window_closed(s, n)
    n.add("hand", tp, -1)
    n.set("s_occ", tp, z, True)
    n.set("s_kind", tp, z, a.kind)
    n.set("s_eff", tp, z, a.eff)
    n.set("s_fresh", tp, z, True)
    n.set("s_cost", tp, z, a.cost)
    n.set("passed", False)
    open_window(n)


@action("activate", "seed 000", ("zone", "kind", "eff", "tplayer", "tarea", "tzone", "cost"), _activations)
def activate(s: State, a: Params, n: Builder) -> None:
    """Activate a Spell from the hand, a Set Spell/Trap, or a face-up monster's Ignition or Quick effect, as a
    new chain link, paying its cost."""
    k, r, tp = s.k, s.r, s.tp
    p = s.g("prio")
    length = s.g("chain_len")
    before = draw_pending(s)
    # 6.3.1 (001:L16): before the normal draw, a "before the draw" effect starts a chain (its checks come last)
    require_can_act(s, n, p, before_draw=k.or_(length > 0, a.kind == Kind.TRIGGER))
    n.require(length < r.chain_links, f"model bound: the chain holds at most {r.chain_links} links")
    kind, eff = a.kind, a.eff
    n.require(k.one_of(eff, _EFFECTS), "model catalogue: an effect from the catalogue")
    n.require(k.one_of(a.cost, _COSTS), "model catalogue: a cost from the catalogue")
    n.require(  # (a Trigger effect here is a monster's "before the draw" effect: its own checks come last, 6.3.1)
        kind != Kind.FLIP,
        "6.3.4.3.4: a Flip effect is activated when its event happens (trigger), not at will",
    )
    monster = k.one_of(kind, ACTIVATED_KINDS)
    from_hand = k.and_(a.zone == HAND, k.not_(monster))
    card = k.not_(monster)  # a Spell or Trap card, from the hand or Set
    with n.when(from_hand):
        n.require(k.one_of(kind, SPELLS), "a Trap must be Set before it is activated; only Spells from the hand")
        n.require(s.g("hand", p) > 0, "the player has no card in hand")
        n.require(
            k.or_(kind != Kind.QUICK_SPELL, p == tp),
            "a Quick-Play Spell is activated from the hand only in its controller's own turn",
        )
    free, hand_zone = first_free(s, s.row("s_occ", p))
    with n.when(k.and_(card, k.not_(from_hand))):
        n.require(a.zone < r.spell_trap_zones, "model range: no such Spell & Trap Zone")
        n.require(k.and_(s.g("s_occ", p, a.zone), k.not_(s.g("s_up", p, a.zone))), "no Set card in that zone")
        n.require(k.and_(kind == s.g("s_kind", p, a.zone), eff == s.g("s_eff", p, a.zone)), "the Set card's kind")
        n.require(a.cost == s.g("s_cost", p, a.zone), "the Set card's cost")
        n.require(
            k.not_(k.and_(s.g("s_fresh", p, a.zone), k.one_of(kind, (*TRAPS, Kind.QUICK_SPELL)))),
            "a Trap or a Set Quick-Play Spell cannot be activated on the turn it was Set (zone {zone})",
        )
    with n.when(from_hand):
        n.require(free, "no free Spell & Trap Zone for the Spell")
    with n.when(monster):  # seed 000: a monster's Ignition (speed 1) or Quick effect (speed 2)
        n.require(a.zone < r.monster_zones, "model range: no such Monster Zone")
        n.require(k.and_(s.g("m_occ", p, a.zone), s.g("m_up", p, a.zone)), "no face-up monster in that zone")
        n.require(
            k.and_(s.g("m_kind", p, a.zone) == activated_type(s, kind), s.g("m_eff", p, a.zone) == eff),
            "the monster in zone {zone} has no such effect",
        )
        n.require(k.not_(s.g("m_used", p, a.zone)), "model catalogue: a monster's effect is used once per turn")
        n.require(a.cost == Cost.NONE, "model catalogue: a monster's effect has no cost")
    sp = speed(s, kind)
    # 6.3.3: speed 1 only by the turn player in their Main Phase (a "before the draw" effect: in the Draw Phase)
    with n.when(k.and_(sp == 1, kind != Kind.TRIGGER)):
        n.require(
            k.and_(p == tp, s.is_phase(*MAIN_PHASES)), "a speed-1 card is activated only in its owner's Main Phase"
        )
        n.require(k.not_(s.g("attacking")), "a speed-1 card is activated only in an open Main Phase")
    top_kind = s.g("c_kind", length - 1)
    if r.chain_speed_check:  # seed 000: a response is speed 2 or more and at least the speed of the link it answers
        with n.when(length > 0):
            n.require(sp >= 2, "seed 000: a speed-1 card cannot be activated as a chain link 2 or higher")
            n.require(
                sp >= speed(s, top_kind), "seed 000: a response must be at least the speed of the link it answers"
            )
    with n.when(s.is_phase(*DAMAGE_STEP)):
        if r.damage_step_activations == "seed-000":  # the older overview's reading
            n.require(
                k.and_(
                    s.is_phase(Phase.DMG_START, Phase.DMG_BEFORE),
                    k.or_(kind == Kind.COUNTER_TRAP, eff == Effect.CHANGE_ATK),
                ),
                "seed 000: in the Damage Step only ATK/DEF changes and Counter Traps, up to before damage calculation",
            )
        else:  # 6.3.4.3: Damage Step activations
            n.require(
                k.or_(
                    kind == Kind.COUNTER_TRAP,
                    eff == Effect.NEGATE,
                    k.and_(eff == Effect.CHANGE_ATK, s.is_phase(Phase.DMG_START, Phase.DMG_BEFORE)),
                    k.and_(eff == Effect.NO_DAMAGE_DS, s.g("phase") == Phase.DMG_DURING),
                ),
                "6.3.4.3: in the Damage Step only Counter Traps, negating effects, ATK/DEF changes up to before "
                "damage calculation, and cards that say 'during damage calculation' then, can be activated",
            )
    if r.damage_step_single_chain:  # Goat format: one chain per timing of the Damage Step (6.3.4.3)
        n.require(
            k.or_(length > 0, k.not_(s.g("ds_chained"))),
            "Goat format: a chain has resolved in this timing of the Damage Step, so no card starts another there "
            "(damage_step_single_chain)",
        )
    with n.when(eff == Effect.NEGATE):
        n.require(length > 0, "seed 000: a negating effect answers an activation on the chain")
    if r.draw_needs_deck:  # an effect that cannot be carried out is not activated (engine-findings F4)
        with n.when(k.one_of(eff, DRAWS)):
            n.require(s.g("deck", p) > 0, "a card that draws cannot be activated with no card in the deck")
    with n.when(k.one_of(eff, DELAYED)):
        links = range(r.chain_links)
        waiting = [k.and_(j < length, s.g("c_owner", j) == p, k.one_of(s.g("c_eff", j), DELAYED)) for j in links]
        n.require(
            k.and_(s.g("later", p) == 0, k.not_(k.or_(*waiting))),
            "model bound: a player has at most one delayed effect waiting",
        )
    with n.when(eff == Effect.NEGATE_ATTACK):
        n.require(
            k.and_(s.g("at_decl"), s.g("attacking")),
            "6.3.4.2: a card that can only be activated at an attack declaration (not on a replay re-selection)",
        )
    with n.when(eff == Effect.END_BATTLE_PHASE):
        n.require(
            s.is_phase(Phase.BATTLE_START, Phase.BATTLE_STEP), "6.3.4.4: the Battle Phase is ended from within it"
        )
    zone = k.ite(from_hand, hand_zone, a.zone, w=4)
    choose_targets(s, n, p, eff, a.tplayer, a.tarea, a.tzone, k.ite(monster, 8, zone, w=4))
    pay_cost(s, n, p, a.cost, from_hand)
    with n.when(from_hand):
        n.add("hand", p, -1)
        n.set("s_occ", p, zone, True)
        n.set("s_kind", p, zone, kind)
        n.set("s_eff", p, zone, eff)
        n.set("s_cost", p, zone, a.cost)
    with n.when(card):
        n.set("s_up", p, zone, True)
        n.set("s_fresh", p, zone, False)
    with n.when(monster):
        n.set("m_used", p, a.zone, True)
    add_link(n, p, kind, eff, zone, a, a.cost)
    with n.when(sp == 1):  # 6.3 (response window): no speed-1 start before the opponent's chance; the last guard
        # Goat format (`ignition_priority`): the turn player's Ignition effect may come before the opponent's chance
        first = kind == Kind.IGNITION if r.ignition_priority else False
        n.require(k.or_(first, k.not_(s.g("window"))), WINDOW_OPEN)
    # card text, each card activated only in the period it names (placed last, so that no other guard moves)
    with n.when(eff == Effect.NO_DAMAGE_DS):
        n.require(
            s.g("phase") == Phase.DMG_DURING,
            "6.3.4.3.3: a card that says 'during damage calculation' is activated only at that timing",
        )
    with n.when(eff == Effect.NO_DAMAGE_BP):
        n.require(s.is_phase(*BATTLE_PHASE), "6.3.4.4: a card that says 'during the Battle Phase' is activated in it")
    with n.when(eff == Effect.DRAW_MAIN1_START):
        n.require(
            k.and_(p == tp, s.g("phase") == Phase.MAIN1, s.g("m1_start")),
            "6.3.3: a card that says 'only at the start of Main Phase 1' is activated by the turn player as their "
            "first act there",
        )
    with n.when(eff == Effect.DRAW_BATTLE_START):
        n.require(
            s.g("phase") == Phase.BATTLE_START,
            "6.3.4.1: a card that says 'at the start of the Battle Phase' is activated in its Start Step",
        )
    with n.when(eff == Effect.DRAW_BATTLE_END):
        n.require(
            s.g("phase") == Phase.BATTLE_END,
            "6.3.4.4: a card that says 'during the End Step of the Battle Phase' is activated in that step",
        )
    with n.when(eff == Effect.DRAW_END_PHASE):
        n.require(s.g("phase") == Phase.END, "6.3.6: a card that says 'during the End Phase' is activated in it")
    n.require(
        k.or_(
            k.not_(k.one_of(eff, MONSTER_EFFECTS[MonsterEffect.CONTINUOUS])),
            k.and_(eff == Effect.NO_TRAPS, k.one_of(kind, CONTINUOUS_CARDS)),
        ),
        "model catalogue: a continuous effect is a monster's, applied, never activated (of a Spell or Trap, only a "
        "Continuous one's 'your opponent cannot activate Trap cards')",
    )
    with n.when(k.one_of(kind, TRAPS)):
        n.require(
            k.not_(applies_no_traps(s, n.other(p))),
            "6.3.4.3: a continuous effect applies (a face-up monster's, or a resolved Continuous Spell's or Trap's): "
            "its controller's opponent cannot activate Traps",
        )
    # 6.3.1 (001:L16): before the normal draw nothing is activated but a "before the draw" effect, which starts a
    # chain in its controller's own Draw Phase; chained to it, only what answers the activation itself (a card or
    # effect that negates it): the other cards, freely timed ones too, wait for the draw
    with n.when(kind == Kind.TRIGGER):
        n.require(
            k.and_(before, p == tp, length == 0),
            "6.3.1: a 'before the draw' effect starts a chain in its controller's Draw Phase, before their normal draw",
        )
    if r.before_draw_chain == "answers":
        with n.when(k.and_(before, length > 0)):
            n.require(
                eff == Effect.NEGATE,
                "6.3.1: before the normal draw only what answers an activation (a card or effect that negates it) "
                "is chained to a 'before the draw' effect",
            )
    elif r.before_draw_chain == "none":  # the clause's letter
        with n.when(before):
            n.require(length == 0, "6.3.1: before the normal draw nothing is chained to a 'before the draw' effect")


def may_attack_directly(s: State, p: Val, z: Val) -> Val:
    """The monster in player p's zone z applies the continuous effect "while its ATK is 1000 or less, this card can
    attack directly" (6.3.4.2, 001:L55): face-up on the field, not determined destroyed by battle, ATK low enough."""
    k = s.k
    return k.and_(
        s.g("m_occ", p, z),
        s.g("m_up", p, z),
        s.g("m_kind", p, z) == MonsterEffect.CONTINUOUS,
        s.g("m_eff", p, z) == Effect.ATTACK_DIRECTLY,
        k.not_(s.g("m_doomed", p, z)),
        s.g("m_atk", p, z) <= DIRECT_ATK_MAX,
    )


def direct_attack_lost(s: State, n: Builder) -> None:
    """6.3.4.2.1 replay (001:L55): a monster that declared a direct attack by its own effect while the opponent
    controls monsters has lost that ability in the Battle Step through another effect: a replay is due."""
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    k, z = n.k, s.g("atk_zone")
    direct = k.and_(n.g("phase") == Phase.BATTLE_STEP, n.g("attacking"), n.g("atk_tgt") == DIRECT)
    lost = k.and_(may_attack_directly(s, s.tp, z), k.not_(may_attack_directly(n, n.tp, n.g("atk_zone"))))
    with n.when(k.and_(direct, n.monsters(n.other(n.tp)) > 0, lost)):
        n.set("replay", True)


def applies_no_traps(s: State, q: Val) -> Val:
    """Player q controls a monster applying the continuous effect "your opponent cannot activate Trap cards":
    face-up on the field, it goes on applying in the Damage Step (6.3.4.3, 001:L64), and stops once the monster is
    determined destroyed by battle, though it stays on the field until the end of the Damage Step (6.3.4.3.3,
    001:L85); or a Continuous Spell or Trap with that effect, face-up once its activation has resolved, which goes
    on applying in the Damage Step too (001:L64)."""
    k = s.k
    cards = [
        k.and_(
            s.g("s_occ", q, z),
            s.g("s_up", q, z),
            k.one_of(s.g("s_kind", q, z), CONTINUOUS_CARDS),
            s.g("s_eff", q, z) == Effect.NO_TRAPS,
            k.not_(on_chain(s, q, z)),
        )
        for z in range(s.r.spell_trap_zones)
    ]
    return k.or_(
        *cards,
        *(
            k.and_(
                s.g("m_occ", q, z),
                s.g("m_up", q, z),
                s.g("m_kind", q, z) == MonsterEffect.CONTINUOUS,
                s.g("m_eff", q, z) == Effect.NO_TRAPS,
                k.not_(s.g("m_doomed", q, z)),
            )
            for z in range(s.r.monster_zones)
        ),
    )


def on_chain(s: State, p: Val, z: Val) -> Val:
    """Player p's card in Spell & Trap Zone z is activated and its link has not resolved yet."""
    k = s.k
    return k.or_(
        *(
            k.and_(
                j < s.g("chain_len"),
                s.g("c_owner", j) == p,
                s.g("c_zone", j) == z,
                k.not_(k.one_of(s.g("c_kind", j), MONSTER_KINDS)),
                k.not_(s.g("c_gone", j)),
            )
            for j in range(s.r.chain_links)
        )
    )


def choose_targets(s: State, n: Builder, p: Val, eff: Val, tpl: Val, tar: Val, tz: Val, own: Val) -> None:
    """Targets are chosen on activation; `own` is the activated card's Spell & Trap Zone (8: none)."""
    k, r = s.k, s.r
    monster = k.and_(tar == 0, tz < r.monster_zones, s.g("m_occ", tpl, tz))
    with n.when(eff == Effect.DESTROY_CARD):
        with n.when(tar == 0):
            n.require(monster, "the target is a monster on the field")
        with n.when(tar == 1):
            n.require(
                k.and_(tz < r.spell_trap_zones, s.g("s_occ", tpl, tz), k.not_(k.and_(tpl == p, tz == own))),
                "the target is another Spell/Trap on the field",
            )
    with n.when(k.one_of(eff, (Effect.CHANGE_ATK, Effect.SET_FACE_DOWN, Effect.DESTROY_DAMAGE_BOTH))):
        n.require(k.and_(monster, s.g("m_up", tpl, tz)), "the target is a face-up monster")
    with n.when(eff == Effect.CHANGE_POSITION):
        n.require(monster, "the target is a monster on the field")
    with n.when(k.and_(k.one_of(eff, TARGETED), tar == 0)):
        n.require(
            k.not_(s.g("m_doomed", tpl, tz)),
            "6.3.4.3.3: a monster determined destroyed by battle cannot be targeted until it is sent to the Graveyard",
        )
    with n.when(k.not_(k.one_of(eff, TARGETED))):
        n.require(k.and_(tpl == 0, tar == 0, tz == 0), "this effect takes no target")


def pay_cost(s: State, n: Builder, p: Val, cost: Val, from_hand: Val) -> None:
    """seed 000 (chain example: Magic Jammer discards a card as its cost): a cost is paid on activation and is
    not returned if the activation is negated; a cost that cannot be paid makes the activation illegal."""
    k = s.k
    with n.when(cost == Cost.DISCARD):
        left = s.g("hand", p) - k.ite(from_hand, 1, 0, w=9)
        n.require(left > 0, "seed 000 (costs): the cost cannot be paid: no other card in hand to discard")
        n.add("hand", p, -1)
        n.add("gy", p, 1)
    with n.when(cost == Cost.PAY_LP):
        # a cost equal to the LP can be paid (the engines' ruling, found by duelcheck difftest against
        # ygopro-core: docs/engine-findings.md); the LP then reach 0 and the duel ends at once, mid-chain
        n.require(s.g("lp", p) >= LP_COST, "seed 000 (costs): the cost cannot be paid: 1000 LP is more than they have")
        n.add("lp", p, -LP_COST)
        lp_decide(n)


def add_link(n: Builder, p: Val, kind: Val, eff: Val, zone: Val, a: Params, cost: Val) -> None:
    """A new link on top of the chain; after each new link the other player may respond (seed 000)."""
    length = n.g("chain_len")
    values = (p, kind, eff, zone, a.tplayer, a.tarea, a.tzone, False, False, cost)
    for name, value in zip(LINK_FIELDS, values, strict=True):
        n.set(name, length, value)
    n.set("chain_len", length + 1)
    n.set("prio", n.other(p))
    n.set("passed", False)
    n.set("window", False)  # a chain is open: the window closes (it opens again once the chain has resolved)
    n.set("m1_start", False)  # 6.3.3: something was done: Main Phase 1 is no longer at its start


def _triggers(s: State) -> Iterator[dict[str, int]]:
    yield {"pos": False}
    due = [p for p in (s.tp, 1 - s.tp) if s.g("trig", p) in (Pending.FLIP_DUE, Pending.TRIGGER_DUE)]
    if due:
        for t in _targets(s, s.g("trig_eff", due[0])):
            yield {"pos": True, **t}
    elif delayed_due(s, s.g("prio")):
        yield {"pos": True}


def delayed_due(s: State, p: Val) -> Val:
    """6.3, 6.3.2: player p's delayed effect has counted its turns: its draw may be activated in this turn's
    Standby Phase."""
    return s.k.and_(s.is_phase(Phase.STANDBY), s.g("later", p) == 1)


@action("trigger", "6.3.4.3.4", ("pos", "tplayer", "tarea", "tzone"), _triggers)
def trigger(s: State, a: Params, n: Builder) -> None:
    """A waiting triggered effect goes on the chain, the turn player's first (6.3.4.3.4, 6.3.4.3.5): a Flip
    effect after damage calculation or after a flip, a battle-destroyed monster's effect from the Graveyard at
    the end of the Damage Step. The model's triggered effects are optional: `pos` false declines it. In the
    Standby Phase a delayed effect whose turns are counted is activated by its player when they hold priority
    with no chain open, in the order the players choose among the phase's other activations (6.3.2)."""
    k, tp = s.k, s.tp
    require_live(s, n)
    n.require(
        k.not_(s.g("resolving")), "seed 000: the chain is resolving, last link first; nobody acts until it has resolved"
    )
    mine = trigger_due(s, tp)
    waiting = k.or_(mine, trigger_due(s, s.other(tp)))
    holder = s.g("prio")
    n.require(k.or_(waiting, delayed_due(s, holder)), nothing_waiting)
    with n.when(waiting):
        triggered(s, a, n, mine)
    with n.when(k.not_(waiting)):  # 6.3.2: the delayed effect's draw, at its player's will
        require_can_act(s, n, holder)
        n.require(s.g("chain_len") == 0, "6.3.2: a delayed effect's draw starts a new chain")
        n.require(a.pos, "6.3.2: a delayed effect's draw is not declined: its player passes instead")
        n.require(k.and_(a.tplayer == 0, a.tarea == 0, a.tzone == 0), "this effect takes no target")
        n.set("later", holder, 0)
        n.set("later_own", holder, False)
        add_link(n, holder, Kind.TRIGGER, Effect.DRAW, GRAVEYARD, a, 0)  # its card is in the Graveyard


def triggered(s: State, a: Params, n: Builder, mine: Val) -> None:
    """6.3.4.3.4, 6.3.4.3.5: the waiting triggered effect, the turn player's first, activated or declined."""
    k, r, tp = s.k, s.r, s.tp
    length = s.g("chain_len")
    n.require(  # effects triggered at one timing start a new chain together (6.3.4.3.4)
        k.or_(length == 0, k.and_(length == 1, k.one_of(s.g("c_kind", 0), (Kind.FLIP, Kind.TRIGGER)))),
        "6.3.4.3.4: triggered effects start a new chain once the last one has resolved",
    )
    p = k.ite(mine, tp, s.other(tp), w=1)
    eff, zone, pending = s.g("trig_eff", p), s.g("trig_zone", p), s.g("trig", p)
    clear(n, TRIGGER_FIELDS, p)
    with n.when(a.pos):
        n.require(s.g("chain_len") < r.chain_links, f"model bound: the chain holds at most {r.chain_links} links")
        choose_targets(s, n, p, eff, a.tplayer, a.tarea, a.tzone, 8)
        kind = k.ite(pending == Pending.FLIP_DUE, int(Kind.FLIP), int(Kind.TRIGGER), w=5)
        add_link(n, p, kind, eff, zone, a, 0)
    with n.when(k.not_(a.pos)):
        n.require(k.and_(a.tplayer == 0, a.tarea == 0, a.tzone == 0), "a declined effect takes no target")
    with n.when(mandatory(s, p)):  # 6.3.6 (001:L116): a mandatory End Phase effect, once per turn
        n.require(a.pos, "6.3.6: a mandatory End Phase effect is activated: it cannot be declined")
        n.set("m_used", p, zone, True)


def attacker_changed(n: Builder, p: Val, z: Val) -> None:
    """6.3.4.2: an attacker that changes to Defense Position in the Battle Step does not battle; nor one that
    changes in the Damage Step before damage calculation (6.3.4.3.3: a monster that cannot battle is not
    calculated, as when its target leaves the field; docs/engine-findings.md F19)."""
    if n.dead:  # concrete, behind a false condition: nothing here would take effect
        return
    k = n.k
    attacker = k.and_(n.g("attacking"), p == n.tp, z == n.g("atk_zone"))
    # the Battle Step, or the Damage Step up to damage calculation
    before_calc = k.or_(
        n.g("phase") == Phase.BATTLE_STEP, n.is_phase(Phase.DMG_START, Phase.DMG_BEFORE, Phase.DMG_DURING)
    )
    attacker = k.and_(attacker, before_calc)
    with n.when(k.and_(attacker, n.g("m_def", p, z))):
        end_attack(n)


# the effects of the catalogue's monsters that trigger "when this card is discarded to the Graveyard by a card
# effect" (001:L119: Grapha, Dragon Lord of Dark World's kind): draw 1 card
BY_EFFECT_TRIGGERS: tuple[Effect, ...] = (Effect.DRAW,)


def discarded_by_effect(s: State, a: Params, n: Builder, applies: Val, eff: Val, owner: Val) -> None:
    """001:L118, L119: "your opponent discards 1 card" is a discard by a card effect: one card of the opponent's
    hand goes to their Graveyard; `eff` is the effect of the card discarded when it is a monster whose effect
    triggers "when this card is discarded to the Graveyard by a card effect" (NONE: another card). That effect
    waits, activated (or declined) once the chain has resolved (6.3.4.3.4: effects triggered while a chain
    resolves wait for it)."""
    k = s.k
    victim = s.other(owner)
    discards = k.and_(applies, eff == Effect.OPPONENT_DISCARDS, s.g("hand", victim) > 0)
    with n.when(discards):
        n.add("hand", victim, -1)
        n.add("gy", victim, 1)
    with n.when(a.eff != Effect.NONE):
        n.require(discards, "001:L119: no card is discarded by a card effect here")
        n.require(
            k.one_of(a.eff, BY_EFFECT_TRIGGERS),
            "model catalogue: a monster's effect triggered when it is discarded by a card effect draws a card",
        )
        n.set("trig", victim, Pending.TRIGGER_DUE)
        n.set("trig_eff", victim, a.eff)
        n.set("trig_zone", victim, GRAVEYARD)


@action("resolve", "seed 000", ("atk", "defv", "pos", "amount", "eff"), _resolutions)
def resolve(s: State, a: Params, n: Builder) -> None:
    """Resolve the last link of the chain (last in, first out)."""
    k, r = s.k, s.r
    require_live(s, n)
    n.require(s.g("resolving"), "seed 000: a chain resolves only after both players pass")
    length = s.g("chain_len")
    n.require(length > 0, "no chain to resolve")
    i = length - 1
    owner, kind, eff, zone = s.g("c_owner", i), s.g("c_kind", i), s.g("c_eff", i), s.g("c_zone", i)
    tpl, tar, tz = s.g("c_tp", i), s.g("c_ta", i), s.g("c_tz", i)
    negated, gone = s.g("c_neg", i), s.g("c_gone", i)
    # seed 000 example: a card that must stay on the field does nothing once it has left it.
    applies = k.and_(k.not_(negated), k.not_(k.and_(gone, k.one_of(kind, STAYS_ON_FIELD))))
    free, _ = first_free(s, s.row("m_occ", owner))
    summons = k.and_(applies, eff == Effect.SPECIAL_SUMMON, s.g("hand", owner) > 0, free)
    with n.when(summons):
        require_stats(n, a.atk, a.defv)
    with n.when(k.not_(summons)):
        n.require(k.and_(a.atk == 0, a.defv == 0, k.not_(a.pos)), "no monster is Special Summoned")
    target = k.and_(tar == 0, s.g("m_occ", tpl, tz), k.not_(s.g("m_doomed", tpl, tz)))  # a monster still there
    changes = k.and_(applies, eff == Effect.CHANGE_ATK, target, s.g("m_up", tpl, tz))
    with n.when(changes):
        n.require(a.amount != 0, "an ATK change moves ATK by a multiple of 100 other than 0")
    with n.when(k.not_(changes)):
        n.require(a.amount == 0, "no ATK changes")
    with n.when(applies):
        with n.when(eff == Effect.DESTROY_CARD):
            with n.when(k.and_(tar == 0, k.not_(s.g("m_doomed", tpl, tz)))):  # not a monster destroyed already
                destroy_monster(n, tpl, tz)
            with n.when(tar == 1):
                destroy_spell(n, tpl, tz)
        with n.when(eff == Effect.DESTROY_ALL_MONSTERS):
            destroy_all_monsters(n)
        with n.when(summons):  # seed 000: a Special Summon is never face-down
            n.add("hand", owner, -1)
            place_monster(n, owner, a.atk, a.defv, a.pos, True)
        with n.when(changes):
            new = k.smin(k.smax(s.g("m_atk", tpl, tz) + a.amount, 0), ATK_CAP)
            n.set("m_atk", tpl, tz, new)
        with n.when(eff == Effect.NEGATE):  # seed 000: the negating link negates the activation it answers
            n.set("c_neg", i - 1, True)
        with n.when(eff == Effect.SKIP_BP):
            n.set("skip_bp", s.other(owner), True)
        with n.when(eff == Effect.SKIP_MAIN1):
            n.set("skip_m1", s.other(owner), True)
        with n.when(k.one_of(eff, tuple(LASTING))):  # a lasting effect: the longest period a player holds applies
            level: Val = int(Until.NONE)
            for effect, period in LASTING.items():  # the period its text names
                level = k.ite(eff == effect, int(period), level, w=3)
            held = s.g("no_damage", owner)
            n.set("no_damage", owner, k.ite(held >= level, held, level, w=3))
        with n.when(k.one_of(eff, DELAYED)):  # 6.3: the count of turns starts with the next turn
            n.set("later", owner, LATER_TURNS + 1)
            n.set("later_own", owner, eff == Effect.DRAW_LATER_OWN)
        with n.when(k.one_of(eff, DRAWS)):
            empty = s.g("deck", owner) == 0
            with n.when(empty):
                n.set("winner", winner_if_loses(s, owner))
            with n.when(k.not_(empty)):
                n.add("deck", owner, -1)
                n.add("hand", owner, 1)
        with n.when(eff == Effect.NEGATE_ATTACK):  # 6.3.4.2: a negated attack does not reach the Damage Step
            end_attack(n)
        with n.when(k.and_(eff == Effect.CHANGE_POSITION, target)):
            was_down = k.not_(s.g("m_up", tpl, tz))
            with n.when(was_down):  # seed 000: a flip not by battle is to face-up Attack Position
                n.set("m_up", tpl, tz, True)
                n.set("m_def", tpl, tz, False)
                flipped(n, tpl, tz)
            with n.when(k.not_(was_down)):
                n.set("m_def", tpl, tz, k.not_(s.g("m_def", tpl, tz)))
                attacker_changed(n, tpl, tz)
        with n.when(k.and_(eff == Effect.SET_FACE_DOWN, target, s.g("m_up", tpl, tz))):
            n.set("m_up", tpl, tz, False)
            n.set("m_def", tpl, tz, True)
            # model catalogue: a monster turned face-down is a new card; its once-per-turn effect may be used
            # again once it is face-up (the engines' ruling, found by difftest: docs/engine-findings.md F6), and
            # the effects applied to it no longer apply: its ATK is its original ATK again (F8)
            n.set("m_used", tpl, tz, False)
            n.set("m_atk", tpl, tz, s.g("m_batk", tpl, tz))
            attacker_changed(n, tpl, tz)
        with n.when(k.and_(eff == Effect.END_BATTLE_PHASE, s.is_phase(Phase.BATTLE_START, Phase.BATTLE_STEP))):
            end_attack(n)  # 6.3.4.4: processing "end the Battle Phase" goes straight to the End Step
            n.set("phase", Phase.BATTLE_END)
        with n.when(k.and_(eff == Effect.DESTROY_DAMAGE_BOTH, target, s.g("m_up", tpl, tz))):
            damage = s.g("m_atk", tpl, tz)  # its ATK as it left the field
            destroy_monster(n, tpl, tz)
            for p in (0, 1):  # effect damage to both players at once
                take_damage(n, p, damage)
            lp_decide(n)  # the duel may end here, with links left on the chain unresolved
    direct_attack_lost(s, n)  # 6.3.4.2.1 replay: an ATK change may take the attacker's direct attack away
    # the card goes to the Graveyard, unless it is a card that stays on the field and was not negated, or the
    # resolution ended the duel: nothing happens after that, the card stays where it is (as on ygopro-core)
    card = k.not_(k.one_of(kind, MONSTER_KINDS))  # a monster's effect moves no card
    still_there = k.and_(card, k.not_(gone), n.g("s_occ", owner, zone), n.g("winner") == 0)
    with n.when(k.and_(still_there, k.or_(negated, k.not_(k.one_of(kind, STAYS_ON_FIELD))))):
        clear(n, SPELL_FIELDS, owner, zone)
        n.add("gy", owner, 1)
    clear(n, LINK_FIELDS, i)
    n.set("chain_len", i)
    with n.when(i == 0):  # the chain has resolved: the turn player gets priority
        if r.damage_step_single_chain:  # Goat format: one chain per timing of the Damage Step (6.3.4.3)
            n.set("ds_chained", k.and_(s.is_phase(*DAMAGE_STEP), n.g("phase") == s.g("phase")))
        n.set("resolving", False)
        n.set("at_decl", False)
        n.set("prio", s.tp)
        n.set("passed", False)
        with n.when(k.and_(open_game_state_phase(n), n.g("winner") == 0)):
            open_window(n)
    discarded_by_effect(s, a, n, applies, eff, owner)  # (last, so that no other guard or write moves)


@action("declare_attack", "6.3.4.2", ("zone", "tzone"), _attacks)
def declare_attack(s: State, a: Params, n: Builder) -> None:
    """A face-up Attack Position monster that has not attacked this turn declares an attack."""
    k, r, tp = s.k, s.r, s.tp
    opp = s.other(tp)
    z, t = a.zone, a.tzone
    require_can_act(s, n, tp)
    n.require(s.g("phase") == Phase.BATTLE_STEP, "6.3.4.2: attacks are declared in the Battle Step")
    n.require(s.g("chain_len") == 0, "6.3.4.2: an attack is declared while no chain is open")
    n.require(k.not_(s.g("attacking")), "6.3.4.2: another attack is in progress")
    n.require(z < r.monster_zones, "model range: no such Monster Zone")
    n.require(
        k.and_(s.g("m_occ", tp, z), s.g("m_up", tp, z), k.not_(s.g("m_def", tp, z))),
        "6.3.4.2: only a face-up Attack Position monster can attack; zone {zone} holds none",
    )
    n.require(
        k.not_(s.g("m_decl", tp, z)), "6.3.4.2: the monster in zone {zone} has already declared an attack this turn"
    )
    has = s.monsters(opp) > 0
    with n.when(has):
        n.require(
            k.or_(t != DIRECT, may_attack_directly(s, tp, z)),
            "6.3.4.2: a direct attack only when the opponent controls no monster, or by the attacker's own effect",
        )
        n.require(
            k.or_(k.and_(t < r.monster_zones, s.g("m_occ", opp, t)), t == DIRECT),
            "6.3.4.2: the target must be a monster the opponent controls; zone {tzone} holds none",
        )
    with n.when(k.not_(has)):
        n.require(t == DIRECT, "6.3.4.2: the opponent controls no monster: the attack is a direct attack")
    require_window_closed(s, n)
    n.set("m_decl", tp, z, True)
    n.set("attacking", True)
    n.set("atk_zone", z)
    n.set("atk_tgt", t)
    n.set("at_decl", True)
    n.set("replay", False)
    n.set("passed", False)
    n.set("window", False)  # the attack declaration's own windows follow (6.3.4.2), not the response window
    # the target is a Monster Zone of the rule set or a direct attack, whatever a rule change makes of the
    # guards above (last, so that no other guard's place moves)
    n.require(k.or_(t < r.monster_zones, t == DIRECT), "model range: no such Monster Zone to attack")


@action("replay_select", "6.3.4.2.1", ("tzone",), _reselections)
def replay_select(s: State, a: Params, n: Builder) -> None:
    """After a replay the attacker chooses a new target or stops; this is not an attack declaration."""
    k, r, tp = s.k, s.r, s.tp
    opp = s.other(tp)
    t = a.tzone
    require_live(s, n)
    # 6.3.4.3.4: an effect triggered during the chain is activated first, as the next chain
    n.require(k.not_(any_trigger_due(s)), waiting_trigger)
    n.require(s.g("phase") == Phase.BATTLE_STEP, "6.3.4.2.1: a replay happens only in the Battle Step")
    n.require(replay_due(s), "6.3.4.2.1: no replay is due")
    has = s.monsters(opp) > 0
    legal_target = k.or_(
        t == STOP,
        k.and_(has, t < r.monster_zones, s.g("m_occ", opp, t)),
        k.and_(k.or_(k.not_(has), may_attack_directly(s, tp, s.g("atk_zone"))), t == DIRECT),
    )
    n.require(
        legal_target,
        "6.3.4.2.1: choose a monster the opponent controls, a direct attack if none (or by the attacker's own "
        "effect), or stop",
    )
    if r.replay_stored:  # Goat format (`replay_stored`): a replay ends the attack, which is stored, not made
        n.require(t == STOP, "Goat format (stored replays): a replay ends the attack; no new target is chosen")
    n.set("replay", False)
    n.set("at_decl", False)  # 6.3.4.2.1: the re-selection is not an attack declaration
    with n.when(t == STOP):  # 6.3.4.2.1: stopping still counts as having declared an attack
        if r.replay_stored:  # Goat format: the stored attack is not counted; the monster may attack again
            n.set("m_decl", tp, s.g("atk_zone"), False)
        end_attack(n)
    with n.when(t != STOP):
        n.set("atk_tgt", t)
    n.set("prio", tp)
    n.set("passed", False)
    # a Monster Zone of the rule set, a direct attack or a stop, whatever a rule change makes of the guard above
    n.require(k.or_(t < r.monster_zones, t == DIRECT, t == STOP), "model range: no such Monster Zone to attack")


def replacement_decider(s: State) -> Val:
    """6.3.4.3.3: the player who decides on a destruction replacement now: the turn player first."""
    return s.k.ite(s.g("replacing", s.tp), s.tp, s.other(s.tp), w=1)


def _replacements(s: State) -> Iterable[dict[str, int]]:
    return ({"pos": False}, {"pos": True})


@action("replace_destruction", "6.3.4.3.3", ("pos",), _replacements)
def replace_destruction(s: State, a: Params, n: Builder) -> None:
    """At damage calculation (6.3.4.3.3, 001:L86) a monster determined destroyed by battle whose effect says "if
    this card would be destroyed by battle, you can discard 1 card instead": its controller applies it (`pos`),
    discarding a card, and the monster counts as not destroyed; or declines, and it is destroyed. The turn
    player decides first; once no one is left to decide, damage calculation is over."""
    k, r, tp = s.k, s.r, s.tp
    require_live(s, n)
    n.require(
        k.or_(s.g("replacing", tp), s.g("replacing", s.other(tp))),
        "6.3.4.3.3: no destruction replacement is being decided",
    )
    p = replacement_decider(s)
    n.set("replacing", p, False)
    with n.when(a.pos):
        n.require(s.g("hand", p) > 0, "6.3.4.3.3: the replacement cannot be applied: no card in hand to discard")
        n.add("hand", p, -1)
        n.add("gy", p, 1)
        for z in range(r.monster_zones):
            with n.when(replaces_destruction(s, p, z)):
                n.set("m_doomed", p, z, False)
    with n.when(k.not_(k.or_(n.g("replacing", 0), n.g("replacing", 1)))):
        after_damage_calculation(n)


# the model's catalogue of a monster whose effect triggers "if this card is sent from the hand to the Graveyard"
# (seed 001's example, 001:L119: Lightpulsar Dragon): the effects it may carry, those of a monster's other
# triggered effect (a card discarded "by a card effect", the example's other card, triggers on no discard the
# model makes: a cost and the hand limit are not card effects)
FROM_HAND_TRIGGERS: tuple[Effect, ...] = MONSTER_EFFECTS[MonsterEffect.TRIGGER]


def _discards(s: State) -> Iterator[dict[str, int]]:
    for pos in (False, True):
        yield {"eff": int(Effect.NONE), "pos": pos}
        for eff in FROM_HAND_TRIGGERS:
            yield {"eff": int(eff), "pos": pos}


@action("discard", "6.3.6", ("eff", "pos"), _discards)
def discard(s: State, a: Params, n: Builder) -> None:
    """The turn player discards a card down to the hand limit; then the turn ends. The cards discarded go to
    the Graveyard together; `eff` is the effect of a monster among them whose effect triggers when it is sent
    from the hand to the Graveyard (NONE: no such card), counted last. Its effect is then activated (or
    declined) before the turn ends: the discard is one by the rules, not by a card effect (001:L118, L119), so
    `pos`, a monster among them whose effect triggers when it is discarded by a card effect (Grapha, Dragon Lord
    of Dark World's kind), has its effect not activated: nothing here reads it."""
    k, r, tp = s.k, s.r, s.tp
    require_live(s, n)
    n.require(s.g("discarding"), "6.3.6: cards are discarded to the hand limit at the end of the End Phase")
    last = s.g("hand", tp) - 1 <= r.hand_limit
    carries = a.eff != Effect.NONE
    with n.when(carries):
        n.require(
            k.one_of(a.eff, FROM_HAND_TRIGGERS),
            "model catalogue: a monster's effect triggered when it is sent from the hand to the Graveyard destroys "
            "a card, draws a card or Special Summons",
        )
        n.require(
            last,
            "model: the cards discarded to the hand limit go to the Graveyard together; the one whose effect "
            "triggers is counted last",
        )
    n.add("hand", tp, -1)
    n.add("gy", tp, 1)
    with n.when(k.and_(last, carries)):  # 6.3.6: sent from the hand to the Graveyard, so its effect triggers
        n.set("discarding", False)
        n.set("passed", False)
        n.set("trig", tp, Pending.TRIGGER_DUE)
        n.set("trig_eff", tp, a.eff)
        n.set("trig_zone", tp, GRAVEYARD)
    with n.when(k.and_(last, k.not_(carries))):
        next_turn(n)


ACTION_BY_NAME: dict[str, Action] = {act.name: act for act in ACTIONS}
ACTION_CODE: dict[str, int] = {act.name: i for i, act in enumerate(ACTIONS)}


def describe(name: str, params: dict[str, Any]) -> str:
    inner = ", ".join(f"{k}={v}" for k, v in params.items())
    return f"{name}({inner})"
