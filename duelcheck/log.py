"""The duel-log format: a starting board and a list of actions in the model's vocabulary.

A duel log is what a game engine records of a play, written for duelcheck to judge (JSON, format
`duelcheck-log/1`). The pydantic models below are the format's one definition: the JSON Schema
shipped in the package (`duelcheck/schemas/duel-log.schema.json`) is generated from them, and a
test keeps the two equal. `docs/duel-log.md` documents the format for engine developers.

Values are in the players' units: ATK, DEF and LP in points (multiples of 100), phases and card
kinds by name, zones numbered from 0 (left to right as the controller sees them), players 0 and 1
(player 0 plays the odd turns).
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from duelcheck.errors import InputError
from duelcheck.model.cards import (
    DAMAGE_STEP,
    DIRECT,
    GRAVEYARD,
    HAND,
    MONSTER_KIND,
    NO_CHOICE,
    POINTS,
    SPEED,
    STOP,
    TARGETED,
    TO_BATTLE,
    TO_END,
    TO_MAIN2,
    Cost,
    Effect,
    Kind,
    MonsterEffect,
    Pending,
    Phase,
)
from duelcheck.model.state import Key, State, concrete_state
from duelcheck.model.system import TransitionSystem
from duelcheck.rules import Rules, load_rules, rules_from_mapping

FORMAT = "duelcheck-log/1"
SCHEMA_PATH = Path(__file__).parent / "schemas" / "duel-log.schema.json"

PHASES: dict[str, Phase] = {
    "draw": Phase.DRAW,
    "standby": Phase.STANDBY,
    "main1": Phase.MAIN1,
    "battle_start": Phase.BATTLE_START,
    "battle_step": Phase.BATTLE_STEP,
    "damage_start": Phase.DMG_START,
    "damage_before_calculation": Phase.DMG_BEFORE,
    "damage_calculation": Phase.DMG_DURING,
    "damage_after_calculation": Phase.DMG_AFTER,
    "damage_end": Phase.DMG_END,
    "battle_end": Phase.BATTLE_END,
    "main2": Phase.MAIN2,
    "end": Phase.END,
}
SPELL_TRAP_KINDS: dict[str, Kind] = {
    "normal_spell": Kind.NORMAL_SPELL,
    "quick_play_spell": Kind.QUICK_SPELL,
    "continuous_spell": Kind.CONT_SPELL,
    "equip_spell": Kind.EQUIP_SPELL,
    "field_spell": Kind.FIELD_SPELL,
    "ritual_spell": Kind.RITUAL_SPELL,
    "normal_trap": Kind.NORMAL_TRAP,
    "continuous_trap": Kind.CONT_TRAP,
    "counter_trap": Kind.COUNTER_TRAP,
}
EFFECTS: dict[str, Effect] = {e.name.lower(): e for e in Effect}
MONSTER_EFFECT_TYPES: dict[str, MonsterEffect] = {
    "ignition": MonsterEffect.IGNITION,
    "quick": MonsterEffect.QUICK,
    "flip": MonsterEffect.FLIP,
    "trigger": MonsterEffect.TRIGGER,
}
EFFECT_TYPE_NAME = {m: name for name, m in MONSTER_EFFECT_TYPES.items()}
# chain links of monster effects, by kind
LINK_KINDS: dict[str, Kind] = {
    **SPELL_TRAP_KINDS,
    "ignition_effect": Kind.IGNITION,
    "quick_effect": Kind.QUICK_EFFECT,
    "flip_effect": Kind.FLIP,
    "trigger_effect": Kind.TRIGGER,
}
COSTS: dict[str, Cost] = {"none": Cost.NONE, "discard": Cost.DISCARD, "pay_lp": Cost.PAY_LP}
PENDING: dict[str, Pending] = {
    "flipped": Pending.FLIPPED,
    "flip_due": Pending.FLIP_DUE,
    "trigger_due": Pending.TRIGGER_DUE,
}
NEXT = {"battle_phase": TO_BATTLE, "main2": TO_MAIN2, "end_phase": TO_END}

PhaseName = Literal[
    "draw",
    "standby",
    "main1",
    "battle_start",
    "battle_step",
    "damage_start",
    "damage_before_calculation",
    "damage_calculation",
    "damage_after_calculation",
    "damage_end",
    "battle_end",
    "main2",
    "end",
]
KindName = Literal[
    "normal_spell",
    "quick_play_spell",
    "continuous_spell",
    "equip_spell",
    "field_spell",
    "ritual_spell",
    "normal_trap",
    "continuous_trap",
    "counter_trap",
]
EffectName = Literal[
    "none",
    "destroy_card",
    "destroy_all_monsters",
    "special_summon",
    "change_atk",
    "negate",
    "skip_bp",
    "draw",
    "negate_attack",
    "skip_main1",
    "change_position",
    "set_face_down",
    "end_battle_phase",
]
LinkKindName = Literal[
    KindName,
    "ignition_effect",
    "quick_effect",
    "flip_effect",
    "trigger_effect",
]
EffectType = Literal["ignition", "quick", "flip", "trigger"]
CostName = Literal["none", "discard", "pay_lp"]
Player = Literal[0, 1]
Zone = Annotated[int, Field(ge=0, le=6, description="a zone, numbered from 0")]
Stat = Annotated[int, Field(ge=0, le=9000, multiple_of=POINTS, description="ATK or DEF in points")]
Count = Annotated[int, Field(ge=0, le=255)]
Turn = Annotated[int, Field(ge=1, le=255)]

# Every model in the format rejects unknown fields and never coerces types ("1" is not 1).
_STRICT = ConfigDict(extra="forbid", strict=True, populate_by_name=True)


class Target(BaseModel):
    """The card an effect targets."""

    model_config = _STRICT
    player: Player = Field(description="the target's controller")
    area: Literal["monster", "spell_trap"] = Field(description="Monster Zone or Spell & Trap Zone")
    zone: Zone


class MonsterEffectCard(BaseModel):
    """A monster's effect: its type (seed 000's speed table) and what it does, from the model's catalogue."""

    model_config = _STRICT
    type: EffectType
    effect: EffectName


class Monster(BaseModel):
    model_config = _STRICT
    zone: Zone
    atk: Stat
    def_: Stat = Field(alias="def")
    position: Literal["attack", "defense"] = "attack"
    face: Literal["up", "down"] = "up"
    summoned_turn: Turn | None = Field(None, description="the turn it was summoned or Set (no position change then)")
    position_changed: bool = Field(False, description="its battle position changed this turn")
    attacked: bool = Field(False, description="it declared an attack this turn")
    destroyed_by_battle: bool = Field(
        False, description="destroyed by battle, still on the field until the end of the Damage Step"
    )
    effect: MonsterEffectCard | None = Field(None, description="the monster's effect; none: a monster without one")
    effect_used: bool = Field(False, description="its effect was activated this turn (once per turn)")


class SpellTrap(BaseModel):
    model_config = _STRICT
    zone: Zone
    kind: KindName
    effect: EffectName
    speed: Literal[1, 2, 3] | None = Field(None, description="optional: checked against the kind's spell speed")
    face: Literal["up", "down"] = "down"
    set_turn: Turn | None = Field(None, description="the turn it was Set")
    cost: CostName = Field("none", description="the cost its activation pays")


class PendingTrigger(BaseModel):
    """A triggered effect waiting to be activated (6.3.4.3.2, 6.3.4.3.4, 6.3.4.3.5)."""

    model_config = _STRICT
    state: Literal["flipped", "flip_due", "trigger_due"]
    effect: EffectName
    zone: Zone | Literal["graveyard"] = Field(description="the Flip monster's zone, or the Graveyard")


class PlayerBoard(BaseModel):
    model_config = _STRICT
    lp: int | None = Field(None, ge=-9000, le=25500, multiple_of=POINTS, description="default: the starting LP")
    hand: Count = 0
    deck: Count | None = Field(None, description="default: the deck size minus hand, Graveyard and field")
    graveyard: Count = 0
    monsters: list[Monster] = Field(default_factory=list)
    spells_traps: list[SpellTrap] = Field(default_factory=list)
    skip_battle_phase: bool = Field(False, description="this player's next Battle Phase is skipped")
    skip_main_phase_1: bool = Field(False, description="this player's next Main Phase 1 is skipped")
    pending_trigger: PendingTrigger | None = None


class ChainLink(BaseModel):
    model_config = _STRICT
    player: Player
    kind: LinkKindName
    effect: EffectName
    zone: Zone | Literal["graveyard"] = Field(
        description="the activated card's Spell & Trap Zone; a monster effect's Monster Zone, or the Graveyard"
    )
    target: Target | None = None
    negated: bool = False
    left_field: bool = Field(False, description="the activated card left the field before the link resolved")
    cost: CostName = Field("none", description="the cost paid on activation")


class Attack(BaseModel):
    model_config = _STRICT
    attacker: Zone
    target: Zone | Literal["direct"]
    at_declaration: bool = Field(False, description="the attack declaration timing is open")
    replay_due: bool = Field(False, description="a replay is due (6.3.4.2.1)")


class Board(BaseModel):
    """The state the log starts from. Unknown fields are errors; omitted fields take the defaults shown."""

    model_config = _STRICT
    turn: Turn = 1
    turn_player: Player | None = Field(None, description="checked: player 0 plays the odd turns")
    phase: PhaseName = "draw"
    priority: Player | None = Field(None, description="who may act now; default: the turn player")
    passed: bool = Field(False, description="the other player passed last")
    response_window: bool = Field(
        False,
        description="the opponent may respond to the turn player's last summon, Set, change of position or "
        "resolved chain: two passes close the window, not the phase (6.3, rules: response_window)",
    )
    resolving: bool = Field(False, description="both players passed: the chain is resolving")
    discarding: bool = Field(False, description="the turn player is discarding down to the hand limit")
    winner: Player | None = None
    drew: bool | None = Field(None, description="the normal draw was made; default: true after the Draw Phase")
    normal_summons: Count = 0
    battle_phase_entered: bool | None = Field(None, description="default: true in the Battle Phase and Main Phase 2")
    players: list[PlayerBoard] = Field(
        default_factory=lambda: [PlayerBoard(), PlayerBoard()],
        min_length=2,
        max_length=2,
        description="player 0, player 1",
    )
    chain: list[ChainLink] = Field(default_factory=list)
    attack: Attack | None = None


# -- observed states: the same vocabulary, every field optional ---------------------------------


class ObservedMonster(BaseModel):
    model_config = _STRICT
    zone: Zone
    empty: bool | None = Field(None, description="true: the zone is empty")
    atk: Stat | None = None
    def_: Stat | None = Field(None, alias="def")
    position: Literal["attack", "defense"] | None = None
    face: Literal["up", "down"] | None = None
    position_changed: bool | None = None
    attacked: bool | None = None
    destroyed_by_battle: bool | None = None
    summoned_this_turn: bool | None = None
    effect: MonsterEffectCard | None = None
    effect_used: bool | None = None


class ObservedSpellTrap(BaseModel):
    model_config = _STRICT
    zone: Zone
    empty: bool | None = None
    kind: KindName | None = None
    effect: EffectName | None = None
    face: Literal["up", "down"] | None = None
    set_this_turn: bool | None = None
    cost: CostName | None = None


class ObservedPlayer(BaseModel):
    model_config = _STRICT
    lp: int | None = None
    hand: int | None = None
    deck: int | None = None
    graveyard: int | None = None
    monsters: list[ObservedMonster] = Field(default_factory=list)
    spells_traps: list[ObservedSpellTrap] = Field(default_factory=list)
    skip_battle_phase: bool | None = None
    skip_main_phase_1: bool | None = None
    pending_trigger: PendingTrigger | Literal["none"] | None = None


class ObservedLink(BaseModel):
    model_config = _STRICT
    player: Player | None = None
    kind: LinkKindName | None = None
    effect: EffectName | None = None
    zone: Zone | Literal["graveyard"] | None = None
    target: Target | None = None
    negated: bool | None = None
    left_field: bool | None = None
    cost: CostName | None = None


class ObservedAttack(BaseModel):
    model_config = _STRICT
    attacker: Zone | None = None
    target: Zone | Literal["direct"] | None = None
    at_declaration: bool | None = None
    replay_due: bool | None = None


class Observed(BaseModel):
    """What the engine observed after an action: only the fields given are compared."""

    model_config = _STRICT
    turn: int | None = None
    turn_player: Player | None = None
    phase: PhaseName | None = None
    priority: Player | None = None
    winner: Player | Literal["none"] | None = None
    normal_summons: int | None = None
    battle_phase_entered: bool | None = None
    chain_length: int | None = None
    chain: list[ObservedLink] | None = Field(None, description="the links from link 1, compared field by field")
    attacking: bool | None = None
    attack: ObservedAttack | None = Field(None, description="the attack in progress")
    passed: bool | None = None
    resolving: bool | None = None
    discarding: bool | None = None
    drew: bool | None = None
    players: list[ObservedPlayer] | None = Field(None, min_length=2, max_length=2)


# -- actions ------------------------------------------------------------------------------------


class _Action(BaseModel):
    model_config = _STRICT
    player: Player | None = Field(None, description="optional: who acts; checked")
    observed: Observed | None = None
    note: str | None = None


class NormalDraw(_Action):
    action: Literal["normal_draw"]


class Pass(_Action):
    action: Literal["pass"]
    then: Literal["battle_phase", "main2", "end_phase"] | None = Field(
        None, description="at the end of Main Phase 1: where the turn goes (6.3.3)"
    )


class EndStep(_Action):
    """Both players pass in succession with an empty chain: the phase or step ends (6.3)."""

    action: Literal["end_step"]
    then: Literal["battle_phase", "main2", "end_phase"] | None = None


class NormalSummon(_Action):
    action: Literal["normal_summon", "set_monster"]
    atk: Stat
    def_: Stat = Field(alias="def")
    effect: MonsterEffectCard | None = None


class ZoneAction(_Action):
    action: Literal["flip_summon", "change_position"]
    zone: Zone


class SetSpellTrap(_Action):
    action: Literal["set_spell_trap"]
    kind: KindName
    effect: EffectName
    cost: CostName = "none"


class Activate(_Action):
    """Activate a card as a new chain link; `respond` also requires a chain to respond to."""

    action: Literal["activate", "respond"]
    source: Zone | Literal["hand"] = Field(alias="from", description="a Set card's zone, or the hand (Spells)")
    kind: KindName
    effect: EffectName
    target: Target | None = None
    cost: CostName = Field("none", description="the card's cost, paid on activation (a discard, or 1000 LP)")


class ActivateEffect(_Action):
    """Activate a face-up monster's Ignition or Quick effect as a new chain link."""

    action: Literal["activate_effect"]
    monster: Zone = Field(description="the Monster Zone of the monster")
    type: Literal["ignition", "quick"]
    effect: EffectName
    target: Target | None = None


class Trigger(_Action):
    """A waiting triggered effect goes on the chain (a Flip effect, a battle-destroyed monster's effect), or is
    declined; the turn player's first."""

    action: Literal["trigger"]
    decline: bool = False
    target: Target | None = None


class Summoned(BaseModel):
    model_config = _STRICT
    atk: Stat
    def_: Stat = Field(alias="def")
    position: Literal["attack", "defense"] = "attack"


class Resolve(_Action):
    """The last link resolves; what it brings that the log must say: the monster it summons, the ATK change."""

    action: Literal["resolve"]
    summon: Summoned | None = None
    atk_change: Annotated[int, Field(ge=-9000, le=9000, multiple_of=POINTS)] | None = None


class DeclareAttack(_Action):
    action: Literal["declare_attack"]
    attacker: Zone
    target: Zone | Literal["direct"]


class Replay(_Action):
    action: Literal["replay"]
    target: Zone | Literal["direct", "stop"]


class Discard(_Action):
    action: Literal["discard"]


Action = Annotated[
    NormalDraw
    | Pass
    | EndStep
    | NormalSummon
    | ZoneAction
    | SetSpellTrap
    | Activate
    | ActivateEffect
    | Trigger
    | Resolve
    | DeclareAttack
    | Replay
    | Discard,
    Field(discriminator="action"),
]


class ExpectedDifference(BaseModel):
    """An observation the rules disagree with, expected: the engine's wrong outcome, reported as a difference."""

    model_config = _STRICT
    action: int = Field(ge=1, description="the 1-based index of the action")
    field: str = Field(description="the field as the report names it, e.g. players[1].lp")


class Expect(BaseModel):
    """For scenario files: the verdict the log must get."""

    model_config = _STRICT
    conforms: bool
    stops_at: int | None = Field(None, ge=1, description="the 1-based index of the first illegal action")
    clause: str | list[str] | None = Field(
        None, description="the clause the illegal action breaks, or a list of clauses any of which a ruling accepts"
    )
    reason: str | None = Field(None, description="words the reason must contain")
    differences: list[ExpectedDifference] | None = Field(
        None, description="the observation differences the log must get, and no other"
    )


class DeckMonster(BaseModel):
    """A monster of a dealt deck (the model's hands are counts; an engine's hold cards)."""

    model_config = _STRICT
    atk: Stat
    def_: Stat = Field(alias="def")


class DeckSpellTrap(BaseModel):
    """A Spell or Trap of a dealt deck."""

    model_config = _STRICT
    kind: KindName
    effect: EffectName
    cost: CostName = "none"


DeckCard = DeckMonster | DeckSpellTrap


class DuelLog(BaseModel):
    """A duel log: rules, a starting board, and the actions taken."""

    model_config = _STRICT
    format: Literal["duelcheck-log/1"]
    title: str | None = None
    clause: str | None = Field(None, description="the clause(s) the log exercises")
    rules: dict[str, Any] | None = Field(None, description="rule parameters (see duelcheck check --help)")
    rules_file: str | None = Field(None, description="a TOML rule file, relative to the log")
    board: Board = Board()
    decks: list[list[DeckCard]] | None = Field(
        None,
        min_length=2,
        max_length=2,
        description="optional: each player's cards in draw order, the opening hand first, for an engine that "
        "holds cards (duelcheck difftest writes them); the model itself reads only how many there are",
    )
    actions: list[Action]
    expect: Expect | None = None


def schema() -> dict[str, Any]:
    """The JSON Schema of the duel-log format."""
    out = DuelLog.model_json_schema(by_alias=True)
    out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    out["$id"] = "https://duelcheck.dev/schemas/duel-log.schema.json"
    return out


# -- reading ------------------------------------------------------------------------------------


ACTION_NAMES = (
    "normal_draw",
    "pass",
    "end_step",
    "normal_summon",
    "set_monster",
    "flip_summon",
    "change_position",
    "set_spell_trap",
    "activate",
    "respond",
    "activate_effect",
    "trigger",
    "resolve",
    "declare_attack",
    "replay",
    "discard",
)


# pydantic's names for the branch of a union it tried ("constrained-int", "literal['direct']"): not places
_BRANCH = re.compile(r"^(constrained-\w+|int|str|bool|literal\[.*\]|function-\w+.*|tagged-union\[.*\])$")


def _place(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ACTION_NAMES or _BRANCH.match(str(part)):
            continue  # the discriminated union's branch: the action name is in the file already
        else:
            out += f".{part}" if out else str(part)
    return out or "(document)"


def _first_error(source: str, exc: ValidationError) -> InputError:
    err = exc.errors(include_url=False)[0]
    place = _place(tuple(err["loc"]))
    kind = err["type"]
    if kind == "extra_forbidden":
        return InputError(f"{source}: {place}: unknown field (not in the duel-log format)")
    if kind == "missing":
        return InputError(f"{source}: {place}: missing (the field is required)")
    if kind == "union_tag_invalid":
        tags = err.get("ctx", {}).get("expected_tags", "")
        return InputError(f"{source}: {place}.action: expected an action, one of {tags}")
    if kind == "union_tag_not_found":
        return InputError(f"{source}: {place}: expected an object with an 'action'")
    return InputError(f"{source}: {place}: expected {err['msg'].lower().removeprefix('input should be ')}")


def parse(data: Any, source: str) -> DuelLog:
    """Validate a parsed JSON document as a duel log; bad input raises one InputError line."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: (document): expected a JSON object")
    try:
        return DuelLog.model_validate(data)
    except ValidationError as exc:
        raise _first_error(source, exc) from None


def log_rules(log: DuelLog, source: str) -> Rules:
    if log.rules is not None and log.rules_file is not None:
        raise InputError(f"{source}: rules_file: expected either rules or rules_file, not both")
    if log.rules_file is not None:
        return load_rules(str(Path(source).parent / log.rules_file))
    return rules_from_mapping(log.rules or {}, f"{source}: rules")


def check_zone(r: Rules, at: str, z: Any, area: str) -> Any:
    """A zone number the rules' zone counts allow (the format alone allows 0 to 6); `at` names the place."""
    count = r.monster_zones if area == "monster" else r.spell_trap_zones
    if isinstance(z, int) and z >= count:
        name = "Monster" if area == "monster" else "Spell & Trap"
        raise InputError(f"{at}: expected a {name} Zone from 0 to {count - 1}")
    return z


class _Board:
    """Turns a Board into the model's state, checking what the format cannot (zone counts, totals)."""

    def __init__(self, ts: TransitionSystem, source: str):
        self.ts = ts
        self.r = ts.rules
        self.source = source

    def fail(self, where: str, expected: str) -> InputError:
        return InputError(f"{self.source}: {where}: expected {expected}")

    def zone(self, where: str, z: int, area: str) -> int:
        return check_zone(self.r, f"{self.source}: {where}", z, area)

    def state(self, b: Board) -> State:
        ts, r = self.ts, self.r
        v: dict[Key, Any] = {key: ts.schema[key[0]].zero() for key in ts.keys}
        tp = 0 if b.turn % 2 else 1
        if b.turn_player is not None and b.turn_player != tp:
            raise self.fail("board.turn_player", f"{tp}: player 0 plays the odd turns, player 1 the even turns")
        phase = PHASES[b.phase]
        v[("turn",)] = b.turn
        v[("phase",)] = int(phase)
        v[("prio",)] = tp if b.priority is None else b.priority
        v[("passed",)] = b.passed
        if b.response_window and not r.response_window:
            raise self.fail("board.response_window", "false: these rules have no response window")
        v[("window",)] = b.response_window
        v[("resolving",)] = b.resolving
        v[("discarding",)] = b.discarding
        v[("winner",)] = 0 if b.winner is None else b.winner + 1
        must_draw = b.turn > 1 or r.first_turn_draw
        v[("drew",)] = (phase != Phase.DRAW and must_draw) if b.drew is None else b.drew
        if b.normal_summons > r.normal_summons_per_turn:
            raise self.fail("board.normal_summons", f"at most {r.normal_summons_per_turn} (normal_summons_per_turn)")
        v[("nsum",)] = b.normal_summons
        in_battle = phase in (*DAMAGE_STEP, Phase.BATTLE_START, Phase.BATTLE_STEP, Phase.BATTLE_END, Phase.MAIN2)
        v[("bp_done",)] = in_battle if b.battle_phase_entered is None else b.battle_phase_entered
        for p, pb in enumerate(b.players):
            self.player(v, p, pb, b.turn, f"board.players[{p}]")
            if b.winner is None and v[("lp", p)] <= 0:
                raise self.fail(f"board.players[{p}].lp", "above 0 while the duel goes on (at 0 LP a player has lost)")
        if len(b.chain) > r.chain_links:
            raise self.fail("board.chain", f"at most {r.chain_links} links")
        v[("chain_len",)] = len(b.chain)
        for j, link in enumerate(b.chain):
            where = f"board.chain[{j}]"
            kind = LINK_KINDS[link.kind]
            v[("c_owner", j)] = link.player
            v[("c_kind", j)] = int(kind)
            v[("c_eff", j)] = int(EFFECTS[link.effect])
            v[("c_zone", j)] = self.link_zone(f"{where}.zone", link.zone, kind)
            v[("c_neg", j)] = link.negated
            v[("c_gone", j)] = link.left_field
            v[("c_cost", j)] = int(COSTS[link.cost])
            if link.target is not None:
                t = link.target
                v[("c_tp", j)] = t.player
                v[("c_ta", j)] = 0 if t.area == "monster" else 1
                v[("c_tz", j)] = self.zone(f"{where}.target.zone", t.zone, t.area)
        if b.attack is not None:
            a = b.attack
            v[("attacking",)] = True
            v[("atk_zone",)] = self.zone("board.attack.attacker", a.attacker, "monster")
            v[("atk_tgt",)] = DIRECT if a.target == "direct" else self.zone("board.attack.target", a.target, "monster")
            v[("at_decl",)] = a.at_declaration
            v[("replay",)] = a.replay_due
            self.attack(v, a, tp, phase)
        for j, link in enumerate(b.chain):
            self.link(v, link, f"board.chain[{j}]")
        # the property layer's history (properties/history.py), as the board tells what happened this turn
        v.update(ts.history.told(concrete_state(r, ts.schema, v)))
        state = concrete_state(r, ts.schema, v)
        from duelcheck.properties.catalog import well_formed_facts

        if not all(well_formed_facts(state, budget=False)):
            if phase == Phase.DRAW and not v[("drew",)] and must_draw and v[("prio",)] != tp:
                raise self.fail(
                    "board.priority", f"{tp}: before the normal draw the turn player holds priority (6.3.1)"
                )
            raise self.fail("board", "a state the rules can reach (it breaks the model's well-formed invariant)")
        return state

    def link_zone(self, where: str, zone: int | str, kind: Kind) -> int:
        if kind == Kind.TRIGGER or zone == "graveyard":
            if kind != Kind.TRIGGER or zone != "graveyard":
                raise self.fail(where, '"graveyard" for a trigger_effect link (and only for one)')
            return GRAVEYARD
        assert isinstance(zone, int)
        return self.zone(where, zone, "monster" if kind in MONSTER_KIND.values() else "spell_trap")

    def attack(self, v: dict[Key, Any], a: Attack, tp: int, phase: Phase) -> None:
        if phase not in (Phase.BATTLE_STEP, *DAMAGE_STEP):
            raise self.fail("board.attack", "no attack outside the Battle Step and the Damage Step")
        if phase == Phase.DMG_END:
            return  # 6.3.4.3.5: a battler destroyed by battle has gone to the Graveyard; the attack ends with the step
        if not (v[("m_occ", tp, a.attacker)] and v[("m_decl", tp, a.attacker)]):
            raise self.fail("board.attack.attacker", "a zone holding a turn player's monster with attacked: true")
        if a.target != "direct" and not a.replay_due and not v[("m_occ", 1 - tp, a.target)]:
            raise self.fail("board.attack.target", "a zone holding one of the opponent's monsters")

    def link(self, v: dict[Key, Any], link: ChainLink, where: str) -> None:
        targeted = EFFECTS[link.effect] in TARGETED
        if targeted != (link.target is not None):
            expected = f"a target: a {link.effect} link targets a card" if targeted else "no target"
            raise self.fail(f"{where}.target", expected)
        p, z, kind = link.player, link.zone, LINK_KINDS[link.kind]
        if kind in MONSTER_KIND.values():
            if link.cost != "none" or link.left_field:
                raise self.fail(where, "a monster effect's link: no cost, and not left_field")
            if kind != Kind.TRIGGER:
                mtype = {Kind.IGNITION: MonsterEffect.IGNITION, Kind.QUICK_EFFECT: MonsterEffect.QUICK}.get(
                    kind, MonsterEffect.FLIP
                )
                here = v[("m_occ", p, z)] and v[("m_kind", p, z)] == mtype
                if not (here and v[("m_eff", p, z)] == EFFECTS[link.effect]):
                    raise self.fail(f"{where}.zone", f"the zone of player {p}'s monster with that {link.kind}")
            return
        assert isinstance(z, int)
        there = v[("s_occ", p, z)] and v[("s_up", p, z)]
        same = v[("s_kind", p, z)] == int(SPELL_TRAP_KINDS[link.kind]) and v[("s_eff", p, z)] == int(
            EFFECTS[link.effect]
        )
        if not link.left_field and not (there and same):
            raise self.fail(
                f"{where}.zone",
                f"the zone of player {p}'s face-up {link.kind} with that effect (or left_field: true)",
            )

    def player(self, v: dict[Key, Any], p: int, pb: PlayerBoard, turn: int, where: str) -> None:
        r = self.r
        v[("lp", p)] = (r.starting_lp if pb.lp is None else pb.lp) // POINTS
        v[("hand", p)] = pb.hand
        v[("gy", p)] = pb.graveyard
        v[("skip_bp", p)] = pb.skip_battle_phase
        v[("skip_m1", p)] = pb.skip_main_phase_1
        for i, m in enumerate(pb.monsters):
            at = f"{where}.monsters[{i}]"
            z = self.zone(f"{at}.zone", m.zone, "monster")
            if v[("m_occ", p, z)]:
                raise self.fail(f"{at}.zone", f"one monster per zone (zone {z} is listed twice)")
            if m.face == "down" and m.position == "attack":
                raise self.fail(f"{at}.position", "defense: a face-down monster is in Defense Position")
            v[("m_occ", p, z)] = True
            v[("m_up", p, z)] = m.face == "up"
            v[("m_def", p, z)] = m.position == "defense"
            v[("m_atk", p, z)] = m.atk // POINTS
            v[("m_defv", p, z)] = m.def_ // POINTS
            v[("m_fresh", p, z)] = m.summoned_turn == turn
            v[("m_moved", p, z)] = m.position_changed
            v[("m_decl", p, z)] = m.attacked
            v[("m_doomed", p, z)] = m.destroyed_by_battle
            if m.effect is not None:
                v[("m_kind", p, z)] = int(MONSTER_EFFECT_TYPES[m.effect.type])
                v[("m_eff", p, z)] = int(EFFECTS[m.effect.effect])
            v[("m_used", p, z)] = m.effect_used
        for i, c in enumerate(pb.spells_traps):
            at = f"{where}.spells_traps[{i}]"
            z = self.zone(f"{at}.zone", c.zone, "spell_trap")
            if v[("s_occ", p, z)]:
                raise self.fail(f"{at}.zone", f"one card per zone (zone {z} is listed twice)")
            kind = SPELL_TRAP_KINDS[c.kind]
            if c.speed is not None and c.speed != SPEED[kind]:
                raise self.fail(f"{at}.speed", f"{SPEED[kind]}, the spell speed of a {c.kind} (seed 000)")
            v[("s_occ", p, z)] = True
            v[("s_up", p, z)] = c.face == "up"
            v[("s_kind", p, z)] = int(kind)
            v[("s_eff", p, z)] = int(EFFECTS[c.effect])
            v[("s_fresh", p, z)] = c.set_turn == turn and c.face == "down"
            v[("s_cost", p, z)] = int(COSTS[c.cost])
        if pb.pending_trigger is not None:
            t = pb.pending_trigger
            v[("trig", p)] = int(PENDING[t.state])
            v[("trig_eff", p)] = int(EFFECTS[t.effect])
            if t.zone == "graveyard":
                v[("trig_zone", p)] = GRAVEYARD
            else:
                v[("trig_zone", p)] = self.zone(f"{where}.pending_trigger.zone", t.zone, "monster")
        field = len(pb.monsters) + len(pb.spells_traps)
        deck = r.deck_size - pb.hand - pb.graveyard - field
        if pb.deck is None:
            if deck < 0:
                raise self.fail(where, f"at most {r.deck_size} cards in hand, Graveyard and field (deck_size)")
            v[("deck", p)] = deck
        elif pb.deck != deck:
            raise self.fail(
                f"{where}.deck",
                f"{deck}: deck_size {r.deck_size} minus hand, Graveyard and field (cards are conserved)",
            )
        else:
            v[("deck", p)] = pb.deck


# -- describing a model state in the log's vocabulary -------------------------------------------

PHASE_NAME = {ph: name for name, ph in PHASES.items()}
KIND_NAME = {k: name for name, k in SPELL_TRAP_KINDS.items()}
LINK_KIND_NAME = {k: name for name, k in LINK_KINDS.items()}
COST_NAME = {c: name for name, c in COSTS.items()}
PENDING_NAME = {x: name for name, x in PENDING.items()}


def _monster(s: State, p: int, z: int) -> dict[str, Any]:
    g = s.g
    return {
        "zone": z,
        "atk": g("m_atk", p, z) * POINTS,
        "def": g("m_defv", p, z) * POINTS,
        "position": "defense" if g("m_def", p, z) else "attack",
        "face": "up" if g("m_up", p, z) else "down",
        "position_changed": bool(g("m_moved", p, z)),
        "attacked": bool(g("m_decl", p, z)),
        "destroyed_by_battle": bool(g("m_doomed", p, z)),
        "effect": _effect_card(s, p, z),
        "effect_used": bool(g("m_used", p, z)),
    }


def _effect_card(s: State, p: int, z: int) -> dict[str, str] | None:
    mkind = MonsterEffect(s.g("m_kind", p, z))
    if mkind == MonsterEffect.NONE:
        return None
    return {"type": EFFECT_TYPE_NAME[mkind], "effect": Effect(s.g("m_eff", p, z)).name.lower()}


def _pending(s: State, p: int) -> dict[str, Any] | None:
    g = s.g
    state = Pending(g("trig", p))
    if state == Pending.NONE:
        return None
    zone = g("trig_zone", p)
    return {
        "state": PENDING_NAME[state],
        "effect": Effect(g("trig_eff", p)).name.lower(),
        "zone": "graveyard" if zone == GRAVEYARD else zone,
    }


def _spell_trap(s: State, p: int, z: int) -> dict[str, Any]:
    g = s.g
    return {
        "zone": z,
        "kind": LINK_KIND_NAME.get(Kind(g("s_kind", p, z)), str(g("s_kind", p, z))),
        "effect": Effect(g("s_eff", p, z)).name.lower(),
        "face": "up" if g("s_up", p, z) else "down",
        "cost": COST_NAME[Cost(g("s_cost", p, z))],
    }


def _player(s: State, p: int) -> dict[str, Any]:
    g = s.g
    return {
        "lp": g("lp", p) * POINTS,
        "hand": g("hand", p),
        "deck": g("deck", p),
        "graveyard": g("gy", p),
        "skip_battle_phase": bool(g("skip_bp", p)),
        "skip_main_phase_1": bool(g("skip_m1", p)),
    }


def _link(s: State, j: int) -> dict[str, Any]:
    g = s.g
    kind = Kind(g("c_kind", j))
    out: dict[str, Any] = {
        "player": g("c_owner", j),
        "kind": LINK_KIND_NAME[kind],
        "effect": Effect(g("c_eff", j)).name.lower(),
        "zone": "graveyard" if kind == Kind.TRIGGER else g("c_zone", j),
        "negated": bool(g("c_neg", j)),
        "left_field": bool(g("c_gone", j)),
        "cost": COST_NAME[Cost(g("c_cost", j))],
    }
    if Effect(g("c_eff", j)) in TARGETED:
        area = "spell_trap" if g("c_ta", j) else "monster"
        out["target"] = {"player": g("c_tp", j), "area": area, "zone": g("c_tz", j)}
    return out


def _attack(s: State) -> dict[str, Any] | None:
    g = s.g
    if not g("attacking"):
        return None
    tgt = g("atk_tgt")
    return {
        "attacker": g("atk_zone"),
        "target": "direct" if tgt == DIRECT else tgt,
        "at_declaration": bool(g("at_decl")),
        "replay_due": bool(g("replay")),
    }


def _flags(s: State) -> dict[str, bool]:
    g = s.g
    return {
        "passed": bool(g("passed")),
        "resolving": bool(g("resolving")),
        "discarding": bool(g("discarding")),
        "drew": bool(g("drew")),
    }


def _common(s: State) -> dict[str, Any]:
    g = s.g
    return {
        "turn": g("turn"),
        "turn_player": s.tp,
        "phase": PHASE_NAME[Phase(g("phase"))],
        "priority": g("prio"),
        "normal_summons": g("nsum"),
        "battle_phase_entered": bool(g("bp_done")),
    }


def describe(s: State) -> dict[str, Any]:
    """A model state as an observed state (every field), for comparison and for reports."""
    g, r = s.g, s.r
    players = []
    for p in (0, 1):
        monsters = [
            {**_monster(s, p, z), "empty": False, "summoned_this_turn": bool(g("m_fresh", p, z))}
            if g("m_occ", p, z)
            else {"zone": z, "empty": True}
            for z in range(r.monster_zones)
        ]
        spells = [
            {**_spell_trap(s, p, z), "empty": False, "set_this_turn": bool(g("s_fresh", p, z))}
            if g("s_occ", p, z)
            else {"zone": z, "empty": True}
            for z in range(r.spell_trap_zones)
        ]
        pending = _pending(s, p)
        players.append(
            {**_player(s, p), "monsters": monsters, "spells_traps": spells, "pending_trigger": pending or "none"}
        )
    winner = g("winner")
    return {
        **_common(s),
        "winner": "none" if winner == 0 else winner - 1,
        "chain_length": g("chain_len"),
        "chain": [_link(s, j) for j in range(g("chain_len"))],
        "attacking": bool(g("attacking")),
        "attack": _attack(s),
        **_flags(s),
        "players": players,
    }


def differences(observed: Observed, model: State) -> list[tuple[str, Any, Any]]:
    """(field, the model's value, the observed value) for every observed field that differs."""
    full = describe(model)
    out: list[tuple[str, Any, Any]] = []
    given = observed.model_dump(by_alias=True, exclude_none=True, exclude_defaults=False)

    def compare(obs: Any, mod: Any, path: str) -> None:
        if isinstance(obs, dict):
            for key, value in obs.items():
                compare(value, mod.get(key) if isinstance(mod, dict) else None, f"{path}.{key}" if path else key)
        elif isinstance(obs, list) and path.endswith(("monsters", "spells_traps")):
            for item in obs:
                z = item["zone"]
                slot = mod[z] if isinstance(mod, list) and z < len(mod) else {"empty": True}
                if slot.get("empty") and not item.get("empty", False) and len(item) > 1:
                    out.append((f"{path}[zone {z}]", "empty", "a card"))
                    continue
                compare({k: v for k, v in item.items() if k != "zone"}, slot, f"{path}[zone {z}]")
        elif isinstance(obs, list):
            if not isinstance(mod, list) or len(obs) != len(mod):
                out.append((f"{path} (links)", len(mod) if isinstance(mod, list) else mod, len(obs)))
                return
            for i, (o, m) in enumerate(zip(obs, mod, strict=True)):
                compare(o, m, f"{path}[{i}]")
        elif obs != mod:
            out.append((path, mod, obs))

    compare({k: v for k, v in given.items() if k != "players"}, full, "")
    for p, pl in enumerate(given.get("players") or []):
        compare(pl, full["players"][p], f"players[{p}]")
    return out


# -- actions in the model's vocabulary ----------------------------------------------------------


@dataclass
class Move:
    """One model step a log action asks for."""

    name: str
    params: dict[str, int]


def _stat(v: int) -> int:
    return v // POINTS


def _target_params(t: Target | None) -> dict[str, int]:
    if t is None:
        return {"tplayer": 0, "tarea": 0, "tzone": 0}
    return {"tplayer": t.player, "tarea": 0 if t.area == "monster" else 1, "tzone": t.zone}


def moves(a: Any) -> list[Move]:
    """The model action(s) for one log action."""
    if isinstance(a, NormalDraw):
        return [Move("normal_draw", {})]
    if isinstance(a, Pass):
        return [Move("pass", {"choice": NEXT[a.then] if a.then else NO_CHOICE})]
    if isinstance(a, EndStep):
        return [Move("end_step", {"choice": NEXT[a.then] if a.then else NO_CHOICE})]
    if isinstance(a, NormalSummon):
        mkind = MONSTER_EFFECT_TYPES[a.effect.type] if a.effect else MonsterEffect.NONE
        meff = EFFECTS[a.effect.effect] if a.effect else Effect.NONE
        return [Move(a.action, {"atk": _stat(a.atk), "defv": _stat(a.def_), "mkind": int(mkind), "eff": int(meff)})]
    if isinstance(a, ZoneAction):
        return [Move(a.action, {"zone": a.zone})]
    if isinstance(a, SetSpellTrap):
        params = {"kind": int(SPELL_TRAP_KINDS[a.kind]), "eff": int(EFFECTS[a.effect]), "cost": int(COSTS[a.cost])}
        return [Move("set_spell_trap", params)]
    if isinstance(a, Activate):
        zone = HAND if a.source == "hand" else a.source
        params = {"zone": zone, "kind": int(SPELL_TRAP_KINDS[a.kind]), "eff": int(EFFECTS[a.effect])}
        params["cost"] = int(COSTS[a.cost])
        return [Move("activate", {**params, **_target_params(a.target)})]
    if isinstance(a, ActivateEffect):
        kind = MONSTER_KIND[MONSTER_EFFECT_TYPES[a.type]]
        params = {"zone": a.monster, "kind": int(kind), "eff": int(EFFECTS[a.effect]), "cost": 0}
        return [Move("activate", {**params, **_target_params(a.target)})]
    if isinstance(a, Trigger):
        return [Move("trigger", {"pos": not a.decline, **_target_params(a.target)})]
    if isinstance(a, Resolve):
        params = {"atk": 0, "defv": 0, "pos": 0, "amount": 0}
        if a.summon is not None:
            params.update(atk=_stat(a.summon.atk), defv=_stat(a.summon.def_), pos=int(a.summon.position == "defense"))
        if a.atk_change is not None:
            params["amount"] = _stat(a.atk_change)
        return [Move("resolve", params)]
    if isinstance(a, DeclareAttack):
        return [Move("declare_attack", {"zone": a.attacker, "tzone": DIRECT if a.target == "direct" else a.target})]
    if isinstance(a, Replay):
        tz = {"direct": DIRECT, "stop": STOP}.get(a.target, a.target) if isinstance(a.target, str) else a.target
        return [Move("replay_select", {"tzone": int(tz)})]
    if isinstance(a, Discard):
        return [Move("discard", {})]
    raise AssertionError(f"unhandled action {a!r}")  # pragma: no cover


def is_log(data: Any) -> bool:
    return isinstance(data, dict) and "format" in data and "states" not in data


def dump_schema() -> str:
    return json.dumps(schema(), indent=2, sort_keys=True) + "\n"


def board_state(ts: TransitionSystem, board: Board, source: str) -> State:
    """The model state a board describes (errors name the place in the log)."""
    return _Board(ts, source).state(board)


def board_of(s: State) -> dict[str, Any]:
    """A model state as a log board (JSON), the inverse of board_state: test boards for engines."""
    g, r, turn = s.g, s.r, s.g("turn")
    out: dict[str, Any] = {**_common(s), **_flags(s)}
    if g("window"):
        out["response_window"] = True
    if g("winner"):
        out["winner"] = g("winner") - 1
    players = []
    for p in (0, 1):
        monsters = [
            {**_monster(s, p, z), **({"summoned_turn": turn} if g("m_fresh", p, z) else {})}
            for z in range(r.monster_zones)
            if g("m_occ", p, z)
        ]
        spells = [
            {**_spell_trap(s, p, z), **({"set_turn": turn} if g("s_fresh", p, z) else {})}
            for z in range(r.spell_trap_zones)
            if g("s_occ", p, z)
        ]
        pending = _pending(s, p)
        players.append(
            {
                **_player(s, p),
                "monsters": monsters,
                "spells_traps": spells,
                **({"pending_trigger": pending} if pending else {}),
            }
        )
    out["players"] = players
    out["chain"] = [_link(s, j) for j in range(g("chain_len"))]
    attack = _attack(s)
    if attack is not None:
        out["attack"] = attack
    return out


CHOICE_NAME = {code: name for name, code in NEXT.items()}


def summoned(pre: State, post: State) -> bool:
    """Whether a monster joined the field (a resolving link Special Summoned one)."""

    def monsters(s: State) -> int:
        return sum(1 for key in s.v if key[0] == "m_occ" and s.v[key])

    return monsters(post) > monsters(pre)


def _target_out(p: dict[str, int]) -> dict[str, Any]:
    area = "spell_trap" if p["tarea"] else "monster"
    return {"player": p["tplayer"], "area": area, "zone": p["tzone"]}


def log_action(pre: State, name: str, params: dict[str, int], post: State | None = None) -> dict[str, Any]:
    """A model action taken in `pre` (leading to `post`) as a log action (JSON), the inverse of `moves`."""
    p = params
    if name in ("normal_draw", "discard"):
        return {"action": name}
    if name in ("pass", "end_step", "end_steps"):  # end_steps: only a step the rules refused, shown as it is
        out: dict[str, Any] = {"action": name}
        if p.get("choice", NO_CHOICE) != NO_CHOICE:
            out["then"] = CHOICE_NAME[p["choice"]]
        return out
    if name in ("normal_summon", "set_monster"):
        out = {"action": name, "atk": p["atk"] * POINTS, "def": p["defv"] * POINTS}
        if p.get("mkind"):
            mkind = MonsterEffect(p["mkind"])
            out["effect"] = {"type": EFFECT_TYPE_NAME[mkind], "effect": Effect(p["eff"]).name.lower()}
        return out
    if name in ("flip_summon", "change_position"):
        return {"action": name, "zone": p["zone"]}
    if name == "set_spell_trap":
        out = {"action": name, "kind": KIND_NAME[Kind(p["kind"])], "effect": Effect(p["eff"]).name.lower()}
        if p.get("cost"):
            out["cost"] = COST_NAME[Cost(p["cost"])]
        return out
    if name == "activate":
        kind = Kind(p["kind"])
        if kind in (Kind.IGNITION, Kind.QUICK_EFFECT):
            out = {
                "action": "activate_effect",
                "monster": p["zone"],
                "type": "ignition" if kind == Kind.IGNITION else "quick",
                "effect": Effect(p["eff"]).name.lower(),
            }
        else:
            out = {
                "action": "activate",
                "from": "hand" if p["zone"] == HAND else p["zone"],
                "kind": KIND_NAME[kind],
                "effect": Effect(p["eff"]).name.lower(),
            }
            if p.get("cost"):
                out["cost"] = COST_NAME[Cost(p["cost"])]
        if Effect(p["eff"]) in TARGETED:
            out["target"] = _target_out(p)
        return out
    if name == "trigger":
        out = {"action": "trigger"}
        if not p.get("pos"):
            out["decline"] = True
        elif post is not None and Effect(post.g("c_eff", post.g("chain_len") - 1)) in TARGETED:
            out["target"] = _target_out(p)
        return out
    if name == "resolve":
        out = {"action": "resolve"}
        if p.get("atk") or p.get("defv") or p.get("pos") or (post is not None and summoned(pre, post)):
            out["summon"] = {
                "atk": p.get("atk", 0) * POINTS,
                "def": p.get("defv", 0) * POINTS,
                "position": "defense" if p.get("pos") else "attack",
            }
        if p.get("amount"):
            out["atk_change"] = p["amount"] * POINTS
        return out
    if name == "declare_attack":
        return {"action": name, "attacker": p["zone"], "target": "direct" if p["tzone"] == DIRECT else p["tzone"]}
    if name == "replay_select":
        tz = p["tzone"]
        return {"action": "replay", "target": {DIRECT: "direct", STOP: "stop"}.get(tz, tz)}
    raise AssertionError(f"unhandled action {name}")  # pragma: no cover


def log_of(steps: list[tuple[str, dict[str, int], State]], rules: Rules, title: str = "") -> dict[str, Any]:
    """A play (the first entry's state is the board) as a duel log with full observed states."""
    from duelcheck.model.system import parts_of

    first = steps[0][2]
    actions = []
    for (_, _, before), (whole, whole_params, after) in itertools.pairwise(steps):
        pre = before
        for part in parts_of(before, whole, whole_params, after):  # a composite step as the actions it takes
            entry = log_action(pre, part.action, part.params, part.state)
            entry["observed"] = describe(part.state)
            actions.append(entry)
            pre = part.state
    doc: dict[str, Any] = {"format": FORMAT}
    if title:
        doc["title"] = title
    doc["rules"] = rules.changed()
    doc["board"] = board_of(first)
    doc["actions"] = actions
    return doc
