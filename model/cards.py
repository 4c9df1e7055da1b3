"""Vocabulary of the model: phases and steps, card kinds, spell speeds, effects.

Every table here cites the clause of the seed texts it comes from.
"""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    """Phases and steps of a turn, in the order of 6.3 (the Damage Step split into its five timings)."""

    DRAW = 0  # 6.3.1
    STANDBY = 1  # 6.3.2
    MAIN1 = 2  # 6.3.3
    BATTLE_START = 3  # 6.3.4.1 Start Step
    BATTLE_STEP = 4  # 6.3.4.2 Battle Step
    DMG_START = 5  # 6.3.4.3.1 start of the Damage Step
    DMG_BEFORE = 6  # 6.3.4.3.2 before damage calculation
    DMG_DURING = 7  # 6.3.4.3.3 during damage calculation
    DMG_AFTER = 8  # 6.3.4.3.4 after damage calculation
    DMG_END = 9  # 6.3.4.3.5 end of the Damage Step
    BATTLE_END = 10  # 6.3.4.4 End Step
    MAIN2 = 11  # 6.3.5
    END = 12  # 6.3.6


BATTLE_PHASE = (
    Phase.BATTLE_START,
    Phase.BATTLE_STEP,
    Phase.DMG_START,
    Phase.DMG_BEFORE,
    Phase.DMG_DURING,
    Phase.DMG_AFTER,
    Phase.DMG_END,
    Phase.BATTLE_END,
)
DAMAGE_STEP = (Phase.DMG_START, Phase.DMG_BEFORE, Phase.DMG_DURING, Phase.DMG_AFTER, Phase.DMG_END)
MAIN_PHASES = (Phase.MAIN1, Phase.MAIN2)


class Kind(IntEnum):
    """What is activated: a Spell or Trap card type, or a monster effect type (seed 000, spell speeds)."""

    NORMAL_SPELL = 0
    QUICK_SPELL = 1
    CONT_SPELL = 2
    EQUIP_SPELL = 3
    FIELD_SPELL = 4
    RITUAL_SPELL = 5
    NORMAL_TRAP = 6
    CONT_TRAP = 7
    COUNTER_TRAP = 8
    IGNITION = 9
    TRIGGER = 10
    FLIP = 11
    QUICK_EFFECT = 12


SPELLS = (Kind.NORMAL_SPELL, Kind.QUICK_SPELL, Kind.CONT_SPELL, Kind.EQUIP_SPELL, Kind.FIELD_SPELL, Kind.RITUAL_SPELL)
TRAPS = (Kind.NORMAL_TRAP, Kind.CONT_TRAP, Kind.COUNTER_TRAP)
# Cards that stay on the field after they resolve (and do nothing if they left it first).
STAYS_ON_FIELD = (Kind.CONT_SPELL, Kind.EQUIP_SPELL, Kind.FIELD_SPELL, Kind.CONT_TRAP)
# the Continuous Spells and Traps, whose effects apply while they are face-up (6.3.4.3, 001:L64)
CONTINUOUS_CARDS = (Kind.CONT_SPELL, Kind.CONT_TRAP)

# seed 000, spell speeds: speed 1 Normal/Equip/Field/Ritual Spells and Ignition/Trigger/Flip effects;
# speed 2 Quick-Play Spells, Normal and Continuous Traps, Quick effects; speed 3 Counter Traps.
SPEED: dict[Kind, int] = {
    Kind.NORMAL_SPELL: 1,
    Kind.QUICK_SPELL: 2,
    Kind.CONT_SPELL: 1,
    Kind.EQUIP_SPELL: 1,
    Kind.FIELD_SPELL: 1,
    Kind.RITUAL_SPELL: 1,
    Kind.NORMAL_TRAP: 2,
    Kind.CONT_TRAP: 2,
    Kind.COUNTER_TRAP: 3,
    Kind.IGNITION: 1,
    Kind.TRIGGER: 1,
    Kind.FLIP: 1,
    Kind.QUICK_EFFECT: 2,
}


class Effect(IntEnum):
    """The abstract effect catalogue: one effect per Spell/Trap card."""

    NONE = 0  # a Continuous card whose effect only applies while it is face-up
    DESTROY_CARD = 1  # destroy one targeted card on the field
    DESTROY_ALL_MONSTERS = 2  # destroy every monster on the field
    SPECIAL_SUMMON = 3  # Special Summon a monster from the hand to its controller's field
    CHANGE_ATK = 4  # change a targeted face-up monster's ATK
    NEGATE = 5  # negate the activation this link answers
    SKIP_BP = 6  # the opponent skips their next Battle Phase
    DRAW = 7  # the controller draws a card
    NEGATE_ATTACK = 8  # only at an attack declaration: negate the attack
    SKIP_MAIN1 = 9  # the opponent skips their next Main Phase 1
    CHANGE_POSITION = 10  # change a targeted monster's battle position (a face-down one to face-up Attack)
    SET_FACE_DOWN = 11  # change a targeted face-up monster to face-down Defense Position
    END_BATTLE_PHASE = 12  # 6.3.4.4: end the Battle Phase: the duel goes straight to the End Step
    # destroy a targeted face-up monster, then each player takes damage equal to its ATK, both at once (a card
    # such as Ring of Destruction): effect damage, so a duel may end in the middle of a chain's resolution, and
    # both players at 0 at once is a drawn duel
    DESTROY_DAMAGE_BOTH = 13
    # a delayed effect (6.3, the counting of turns; 6.3.2, Standby Phase effects): "during the Standby Phase
    # LATER_TURNS turn(s) after this card resolves, its controller may draw 1 card". The text names no player, so
    # every turn counts (001:L11); the draw is a triggered effect activated in that Standby Phase, as a chain link
    DRAW_LATER = 14
    # the same, counted "in your own turns" (001:L12): "during your Standby Phase LATER_TURNS of your turn(s)
    # after this card resolves": only its controller's turns count
    DRAW_LATER_OWN = 15
    # lasting effects: "its controller takes no damage (battle or effect) until the end of ...", each activated
    # only in the period it names and applying until that period is over with all its processing (6.3.4.3.5,
    # 6.3.4.4, 6.3.6): a card "during damage calculation" whose effect lasts until the end of the Damage Step
    # (6.3.4.3.3: effects that say "during damage calculation"), one "during the Battle Phase" lasting until its
    # end, and one lasting until the end of the turn, activated at any time its speed allows
    NO_DAMAGE_DS = 16
    NO_DAMAGE_BP = 17
    NO_DAMAGE_TURN = 18
    # "activate only at the start of your Main Phase 1: draw 1 card" (6.3.3, 001:L26): its turn player's first
    # act in Main Phase 1
    DRAW_MAIN1_START = 19
    # "activate only at the start of the Battle Phase: draw 1 card" (6.3.4.1, 001:L36): in its Start Step
    DRAW_BATTLE_START = 20
    # a continuous effect a monster carries (6.3.4.3, 001:L64, L85): its controller's opponent cannot activate
    # Trap cards while it is face-up on the field and not determined destroyed by battle; a Continuous Spell or
    # Trap may carry it too (001:L64): it applies while the card is face-up, once its activation has resolved
    NO_TRAPS = 21
    # "activate only during the End Step of the Battle Phase: draw 1 card" (6.3.4.4, 001:L105)
    DRAW_BATTLE_END = 22
    # "activate only during the End Phase: draw 1 card" (6.3.6, 001:L115)
    DRAW_END_PHASE = 23
    # a monster's continuous effect (6.3.4.2, 6.3.4.2.1, 001:L55): "while its ATK is DIRECT_ATK_MAX or less, this
    # card can attack directly": it may attack directly while the opponent controls monsters, and loses that once
    # another effect raises its ATK
    ATTACK_DIRECTLY = 24
    # a monster's destruction replacement (6.3.4.3.3, 001:L86): "if this card would be destroyed by battle, you can
    # discard 1 card instead": applied at damage calculation, and then the monster is not destroyed
    DISCARD_INSTEAD = 25
    # a monster's effect applied in place of the normal draw (6.3.1, 001:L16): "during your Draw Phase, instead of
    # conducting your normal draw, you can add 1 card from your Deck to your hand": applied, not activated (no
    # chain), at the moment of the draw; the turn player then draws no card in that Draw Phase
    SEARCH_INSTEAD_OF_DRAW = 26
    # "your opponent discards 1 card" (001:L118, L119): a discard by a card effect, where the hand-limit discard is
    # one by the rules: a monster so discarded whose effect triggers "when this card is discarded to the Graveyard
    # by a card effect" (Grapha, Dragon Lord of Dark World's kind) has it activated
    OPPONENT_DISCARDS = 27


TARGETED = (
    Effect.DESTROY_CARD,
    Effect.CHANGE_ATK,
    Effect.CHANGE_POSITION,
    Effect.SET_FACE_DOWN,
    Effect.DESTROY_DAMAGE_BOTH,
)


class MonsterEffect(IntEnum):
    """The effect type an abstract monster carries (seed 000, spell speeds): what it may activate."""

    NONE = 0  # a monster without an effect
    IGNITION = 1  # speed 1: activated by its controller in their Main Phase, open game state
    QUICK = 2  # speed 2: either player's turn, also as a response
    FLIP = 3  # "FLIP:": flipped face-up by an attack, activated after damage calculation (6.3.4.3.2, 6.3.4.3.4)
    TRIGGER = 4  # "when this card is destroyed by battle and sent to the Graveyard" (6.3.4.3.5)
    # an effect that is never activated: it applies while the monster is face-up on the field (6.3.4.3: it goes on
    # applying in the Damage Step) and stops once the monster is determined destroyed by battle (6.3.4.3.3)
    CONTINUOUS = 5
    # "before your normal draw in your Draw Phase, you can activate this effect" (6.3.1, 001:L16): a trigger effect
    # of a face-up monster, activated by its controller as the turn player before the normal draw, once per turn
    BEFORE_DRAW = 6
    # "during each End Phase: draw 1 card" as a mandatory effect (6.3.6, 001:L116): a trigger effect of a face-up
    # monster that must be activated, once per turn, after both players pass in the End Phase, the turn player's
    # first; the End Phase does not end until it has been
    END_PHASE = 7


# the chain link kind of each monster effect type
MONSTER_KIND = {
    MonsterEffect.IGNITION: Kind.IGNITION,
    MonsterEffect.QUICK: Kind.QUICK_EFFECT,
    MonsterEffect.FLIP: Kind.FLIP,
    MonsterEffect.TRIGGER: Kind.TRIGGER,
    MonsterEffect.BEFORE_DRAW: Kind.TRIGGER,
    MonsterEffect.END_PHASE: Kind.TRIGGER,
}
# the monster effects its controller activates from the field with `activate` (not when an event makes them wait),
# by the kind of their chain link: Ignition and Quick effects at will, a "before the draw" effect before the draw
ACTIVATED_BY_KIND = {
    Kind.IGNITION: MonsterEffect.IGNITION,
    Kind.QUICK_EFFECT: MonsterEffect.QUICK,
    Kind.TRIGGER: MonsterEffect.BEFORE_DRAW,
}
ACTIVATED_KINDS = tuple(ACTIVATED_BY_KIND)  # the link kinds a monster's effect activated with `activate` makes
MONSTER_KINDS = (Kind.IGNITION, Kind.TRIGGER, Kind.FLIP, Kind.QUICK_EFFECT)


class Cost(IntEnum):
    """The cost of an activation, paid on activation and not returned if it is negated (seed 000's chain
    example: Magic Jammer discards a card as its cost)."""

    NONE = 0
    DISCARD = 1  # discard one card from the hand
    PAY_LP = 2  # pay LP_COST Life Points


class Pending(IntEnum):
    """A player's triggered effect waiting to be activated (6.3.4.3.2, 6.3.4.3.4, 6.3.4.3.5)."""

    NONE = 0
    FLIPPED = 1  # a Flip monster was turned face-up by the attack; its effect waits for damage calculation
    FLIP_DUE = 2  # after damage calculation: the Flip effect is activated now (6.3.4.3.4)
    TRIGGER_DUE = 3  # end of the Damage Step: the battle-destroyed monster's effect, from the Graveyard (6.3.4.3.5)


# ATK, DEF and LP are held in units of 100 points (every printed value is a multiple of 100);
# duel logs and the text view of a trace show real points; ITF traces hold the model's values.
POINTS = 100
# A monster's ATK and DEF are any multiple of 100 from 0 to 9000 (ATK_CAP); an ATK change moves by any
# multiple of 100, clamped to that range. Replay, the bounded search and the induction proofs take every
# value; the seeded simulation tries summoned monsters' stats from STAT_VALUES and ATK changes from
# ATK_CHANGES (a choice of the concrete enumerator that keeps each step's candidates few, not a rule).
STAT_VALUES = (0, 5, 10, 15, 20, 25, 30)
ATK_CHANGES = (-10, -5, 5, 10)
ATK_CAP = 90

LP_COST = 10  # an LP cost: 1000 LP, in units of 100

# a delayed effect's count of turns (DRAW_LATER, DRAW_LATER_OWN): "1 turn later", "during the next Standby Phase"
# (every turn counts: the opponent's next turn) or "during your next Standby Phase" (only the controller's turns
# count: their own next turn); any count tells the two readings apart, 1 with the shortest plays
LATER_TURNS = 1
DELAYED = (Effect.DRAW_LATER, Effect.DRAW_LATER_OWN)
# the effects whose resolution draws 1 card for their player
DRAWS = (Effect.DRAW, Effect.DRAW_MAIN1_START, Effect.DRAW_BATTLE_START, Effect.DRAW_BATTLE_END, Effect.DRAW_END_PHASE)
# the cards bound to one phase or step by their text, and that phase or step (6.3.4.1, 6.3.4.4, 6.3.6)
PHASE_BOUND = {
    Effect.DRAW_BATTLE_START: Phase.BATTLE_START,
    Effect.DRAW_BATTLE_END: Phase.BATTLE_END,
    Effect.DRAW_END_PHASE: Phase.END,
}


class Until(IntEnum):
    """How long a player's lasting "no damage" effect applies (`Effect.NO_DAMAGE_*`): the periods nest (a Damage
    Step lies in a Battle Phase, which lies in a turn), so a player holds the longest that applies."""

    NONE = 0
    DAMAGE_STEP = 1  # 6.3.4.3.5: until all processing at the end of the Damage Step is over
    BATTLE_PHASE = 2  # 6.3.4.4: until both players pass in the End Step and all processing there is over
    TURN = 3  # 6.3.6: until both pass in the End Phase, the hand is adjusted and all processing is over


# the period each lasting effect names
LASTING: dict[Effect, Until] = {
    Effect.NO_DAMAGE_DS: Until.DAMAGE_STEP,
    Effect.NO_DAMAGE_BP: Until.BATTLE_PHASE,
    Effect.NO_DAMAGE_TURN: Until.TURN,
}

# the ATK up to which a monster carrying ATTACK_DIRECTLY may attack directly: 1000, in units of 100
DIRECT_ATK_MAX = 10

DIRECT = 5  # attack target: the opponent directly
STOP = 6  # replay choice: stop the attack
HAND = 7  # activation source: from the hand
GRAVEYARD = 6  # chain link source: a monster effect activated from the Graveyard

# Choice made by the turn player when Main Phase 1 ends (6.3.3); every other pass makes none.
NO_CHOICE = 0
TO_BATTLE = 1
TO_MAIN2 = 2
TO_END = 3
