"""The duel-log format's vocabulary and shape: the words of phases, kinds, effects and costs, and the pydantic models
of a board, an observed state, each action, `expect` and the dealt decks (the JSON Schema is generated from them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from duelcheck.model.cards import (
    LATER_TURNS,
    POINTS,
    TO_BATTLE,
    TO_END,
    TO_MAIN2,
    Cost,
    Effect,
    Kind,
    MonsterEffect,
    Pending,
    Phase,
    Until,
)

FORMAT = "duelcheck-log/1"


SCHEMA_PATH = Path(__file__).parent.parent / "schemas" / "duel-log.schema.json"


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
    "continuous": MonsterEffect.CONTINUOUS,
    "before_draw": MonsterEffect.BEFORE_DRAW,  # 6.3.1: "before your normal draw in your Draw Phase"
    "end_phase": MonsterEffect.END_PHASE,  # 6.3.6: "during each End Phase", mandatory
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
    "destroy_damage_both",
    "draw_later",
    "draw_later_own",
    "no_damage_ds",
    "no_damage_bp",
    "no_damage_turn",
    "draw_main1_start",
    "draw_battle_start",
    "no_traps",
    "draw_battle_end",
    "draw_end_phase",
    "attack_directly",
    "discard_instead",
    "search_instead_of_draw",
    "opponent_discards",
]

# how long a player's lasting "no damage" effect applies (model/cards.py `Until`)
UntilName = Literal["none", "damage_step", "battle_phase", "turn"]
UNTIL: dict[str, Until] = {u.name.lower(): u for u in Until}


LinkKindName = Literal[
    KindName,
    "ignition_effect",
    "quick_effect",
    "flip_effect",
    "trigger_effect",
]


EffectType = Literal["ignition", "quick", "flip", "trigger", "continuous", "before_draw", "end_phase"]


CostName = Literal["none", "discard", "pay_lp"]


Player = Literal[0, 1]
# who won: a player, or "draw" when both players' LP reached 0 at once (rulebook, winning)
Winner = Player | Literal["draw"]


def winner_code(winner: Player | Literal["draw", "none"] | None) -> int:
    """The model's `winner` value of a log's winner: 0 while the duel goes on, 1 + the winning player, 3 a draw."""
    if winner is None or winner == "none":
        return 0
    return 3 if winner == "draw" else int(winner) + 1


def winner_word(code: int) -> Player | Literal["draw", "none"]:
    """A log's winner of the model's `winner` value (the inverse of `winner_code`)."""
    if code == 0:
        return "none"
    return "draw" if code == 3 else (0 if code == 1 else 1)


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
    original_atk: Stat | None = Field(
        None, description="its ATK before effects changed it (what turning it face-down leaves); none: its ATK"
    )
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
    zone: Zone | Literal["graveyard"] = Field(
        description="the Flip monster's zone, the Graveyard, or the zone of the monster whose mandatory End Phase "
        "effect waits (6.3.6)"
    )
    discarded_by_effect: bool | None = Field(
        None,
        description="the effect is that of a monster a card effect discarded, triggered by that discard "
        "(001:L119): it waits in whatever phase the chain resolved",
    )


class DelayedEffect(BaseModel):
    """A delayed effect waiting for a later Standby Phase (6.3: counting turns; 6.3.2)."""

    model_config = _STRICT
    effect: Literal["draw_later", "draw_later_own"]
    turns_left: int = Field(
        ge=0,
        le=LATER_TURNS,
        description="turns still to count as its text counts them (0: its Standby Phase is this turn's)",
    )


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
    delayed_effect: DelayedEffect | None = None
    replacing: bool = Field(
        False,
        description="damage calculation determined this player's monster destroyed by battle, and they decide "
        "whether to apply its destruction replacement (6.3.4.3.3); only at damage calculation",
    )
    no_damage_until: UntilName = Field(
        "none",
        description="this player's lasting 'no damage' effect applies until the end of the Damage Step, the Battle "
        "Phase or the turn (6.3.4.3.5, 6.3.4.4, 6.3.6)",
    )


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
    main_phase_1_start: bool = Field(
        False,
        description="Main Phase 1 has begun and nothing has been done in it yet: a card that says 'only at the "
        "start of Main Phase 1' may be activated (6.3.3); only in Main Phase 1",
    )
    damage_step_chain_resolved: bool = Field(
        False,
        description="a chain has resolved in this timing of the Damage Step: under the Goat format's one chain per "
        "timing no card starts another there (6.3.4.3, rules: damage_step_single_chain)",
    )
    winner: Winner | None = None
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


class ObservedMonster(BaseModel):
    model_config = _STRICT
    zone: Zone
    empty: bool | None = Field(None, description="true: the zone is empty")
    atk: Stat | None = None
    original_atk: Stat | None = None
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
    delayed_effect: DelayedEffect | Literal["none"] | None = None
    replacing: bool | None = None
    no_damage_until: UntilName | None = None


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
    winner: Winner | Literal["none"] | None = None
    normal_summons: int | None = None
    battle_phase_entered: bool | None = None
    chain_length: int | None = None
    chain: list[ObservedLink] | None = Field(None, description="the links from link 1, compared field by field")
    attacking: bool | None = None
    attack: ObservedAttack | None = Field(None, description="the attack in progress")
    passed: bool | None = None
    resolving: bool | None = None
    discarding: bool | None = None
    main_phase_1_start: bool | None = None
    drew: bool | None = None
    players: list[ObservedPlayer] | None = Field(None, min_length=2, max_length=2)


class _Action(BaseModel):
    model_config = _STRICT
    player: Player | None = Field(None, description="optional: who acts; checked")
    observed: Observed | None = None
    note: str | None = None


class NormalDraw(_Action):
    action: Literal["normal_draw"]


class DrawInstead(_Action):
    """Instead of the normal draw, the turn player applies the effect of their face-up monster "during your Draw
    Phase, instead of conducting your normal draw, you can add 1 card from your Deck to your hand" (6.3.1):
    applied, not activated (nothing is chained), and no card is drawn."""

    action: Literal["draw_instead"]
    monster: Zone = Field(description="the Monster Zone of the monster whose effect is applied")


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
    """Activate a face-up monster's Ignition or Quick effect, or its effect "before your normal draw" (6.3.1), as a
    new chain link."""

    action: Literal["activate_effect"]
    monster: Zone = Field(description="the Monster Zone of the monster")
    type: Literal["ignition", "quick", "before_draw"]
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
    by_effect_trigger: Literal["draw"] | None = Field(
        None,
        description='the card "your opponent discards 1 card" discards is a monster whose effect triggers when it '
        "is discarded to the Graveyard by a card effect (seed 001's example: Grapha, Dragon Lord of Dark World): its "
        "effect, activated (or declined) with `trigger` once the chain has resolved (001:L119)",
    )


class DeclareAttack(_Action):
    action: Literal["declare_attack"]
    attacker: Zone
    target: Zone | Literal["direct"]


class Replay(_Action):
    action: Literal["replay"]
    target: Zone | Literal["direct", "stop"]


class ReplaceDestruction(_Action):
    """At damage calculation, the controller of a monster determined destroyed by battle whose effect says "if this
    card would be destroyed by battle, you can discard 1 card instead" applies it (the monster is not destroyed) or
    declines; the turn player's first (6.3.4.3.3)."""

    action: Literal["replace_destruction"]
    decline: bool = False


class Discard(_Action):
    """The turn player discards a card down to the hand limit (6.3.6)."""

    action: Literal["discard"]
    from_hand_trigger: Literal["destroy_card", "draw", "special_summon"] | None = Field(
        None,
        description="the card discarded is a monster whose effect triggers when it is sent from the hand to the "
        "Graveyard (seed 001's example: Lightpulsar Dragon), counted as the last card discarded: its effect, "
        "activated (or declined) with `trigger` before the turn ends (6.3.6)",
    )
    by_effect_trigger: Literal["draw"] | None = Field(
        None,
        description="a card discarded is a monster whose effect triggers when it is discarded to the Graveyard by a "
        "card effect (seed 001's example: Grapha, Dragon Lord of Dark World): the hand-limit discard is one by the "
        "rules, so that effect is not activated (001:L119)",
    )


Action = Annotated[
    NormalDraw
    | DrawInstead
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
    | ReplaceDestruction
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
    """A monster of a dealt deck (the model's hands are counts; an engine's hold cards), with its effect when
    it has one."""

    model_config = _STRICT
    atk: Stat
    def_: Stat = Field(alias="def")
    effect: MonsterEffectCard | None = None


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
