"""The property suite: every property of every clause area, in the order `duelcheck check` lists them and deals
them to its solver sessions.

What a property is lives in properties/core.py; the properties themselves, by clause area, in
properties/turn.py (phases, draw, Normal Summon, hand limit), chain.py (chains and spell speeds), battle.py
(attacks and replays), damage_step.py (the Damage Step), effects.py (costs and effects) and bookkeeping.py
(well-formed states, conservation, the end of the duel). A new property goes in its area's module; it is
listed after those of ORDER unless named there.
"""

from __future__ import annotations

import duelcheck.properties.battle
import duelcheck.properties.bookkeeping
import duelcheck.properties.chain
import duelcheck.properties.damage_step
import duelcheck.properties.effects
import duelcheck.properties.turn  # noqa: F401  (the area modules register their properties on import)
from duelcheck.properties.bookkeeping import well_formed_facts
from duelcheck.properties.core import (
    COMPOSITES,
    PROGRESS,
    PROPERTIES,
    ActionView,
    Check,
    Kind_,
    Property,
    StatePred,
    StepPred,
    always,
    battle_chosen,
    link_takes_effect,
    main1_would_begin,
    new_link,
    sometimes,
    state,
    step,
)

__all__ = [
    "BY_NAME",
    "COMPOSITES",
    "ORDER",
    "PROGRESS",
    "PROPERTIES",
    "ActionView",
    "Check",
    "Kind_",
    "Property",
    "StatePred",
    "StepPred",
    "always",
    "battle_chosen",
    "link_takes_effect",
    "main1_would_begin",
    "new_link",
    "sometimes",
    "state",
    "step",
    "well_formed_facts",
]

# the order of the suite (the order of the table, and of the properties dealt to the solver sessions: a change
# here changes which session asks which question, so the traces a run finds)
ORDER: tuple[str, ...] = (
    "well-formed",
    "main2-only-after-battle",
    "chain-speed-legal",
    "chain-resolves-lifo",
    "battle-damage-table",
    "first-turn-no-draw",
    "one-normal-draw-per-draw-phase",
    "first-turn-no-battle",
    "hand-limit-at-turn-end",
    "normal-summon-limit",
    "one-attack-declaration-per-monster",
    "position-change-rules",
    "set-trap-not-same-turn",
    "damage-step-activations",
    "face-down-battler-turned-face-up",
    "replay-only-in-battle-step",
    "deck-out-loses",
    "phase-order",
    "card-conservation",
    "lp-accounting",
    "lp-zero-ends-duel",
    "no-face-down-attack",
    "special-summon-face-up",
    "no-deadlock",
    "battle-destroyed-to-graveyard-at-damage-step-end",
    "no-target-determined-destroyed",
    "summon-and-attack-timing",
    "activation-timing",
    "responses-after-each-link",
    "attack-ends",
    "resolution-effects",
    "one-spelling-per-play",
    "flip-summon-face-up-attack",
    "nothing-after-the-duel",
    "bookkeeping-matches-history",
    "phase-choice-where-offered",
    "chain-resolution-uninterrupted",
    "passes-end-phases",
    "phase-skips",
    "cards-as-played",
    "triggers-first",
    "costs-paid-on-activation",
    "target-is-another-card",
    "attack-targets",
    "activation-sources",
    "reach-main2",
    "reach-turn-3",
    "reach-replay",
    "reach-every-damage-outcome",
    "reach-seed-chain-example",
    "reach-negated-activation-kept-its-cost",
    "reach-flip-effect-after-damage-calculation",
    "reach-battle-destroyed-trigger",
    "reach-deck-out-loss",
    "reach-hand-limit-discard",
    "reach-standby-to-end",
    "reach-standby-to-battle",
    "reach-every-chain-response",
    "reach-damage-step-activations",
    "reach-every-replay-choice",
    "reach-flip-summon",
    "reach-position-change",
    "reach-set-spell-trap",
)

PROPERTIES.sort(key=lambda p: ORDER.index(p.name) if p.name in ORDER else len(ORDER))
BY_NAME: dict[str, Property] = {p.name: p for p in PROPERTIES}
