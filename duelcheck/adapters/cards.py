"""The cards the ygopro adapter deals, written here: codes, the card reader's data and the Lua scripts.

The model's hands and decks are counts; an engine's hold cards. A card of the model's catalogue is written
in the duel-log format's words: a Normal Monster as `{"atk": 1500, "def": 1200}`. Each has a code of its
own, so that the card reader and a message from the core name it:

    Normal Monster   10,000,000 + ATK/100 * 1000 + DEF/100     (Level 4: no Tribute Summon, the model has none)

No script of ygopro's is used: a Normal Monster needs none, and the three files the core asks for when a
duel is created (constant.lua, utility.lua, procedure.lua) are answered with nothing, which the core accepts.
"""

from __future__ import annotations

import random
from typing import Any

from duelcheck.adapters.ocgcore import TYPE_MONSTER, TYPE_NORMAL, Card
from duelcheck.errors import InputError
from duelcheck.model.cards import ATK_CAP, POINTS, STAT_VALUES
from duelcheck.rules import Rules

MONSTER_BASE = 10_000_000
LEVEL = 4


def code_of(card: dict[str, Any], where: str) -> int:
    """The code of a card written in the duel-log format's words."""
    atk, dfn = card.get("atk"), card.get("def")
    ok = all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= ATK_CAP * POINTS and v % POINTS == 0
        for v in (atk, dfn)
    )
    if set(card) != {"atk", "def"} or not ok:
        raise InputError(f"{where}: a card is {{'atk': N, 'def': N}}, multiples of 100 from 0 to 9000; got {card!r}")
    return MONSTER_BASE + int(atk) // POINTS * 1000 + int(dfn) // POINTS  # type: ignore[arg-type]


def card_of(code: int) -> dict[str, Any]:
    """The card a code names (the inverse of code_of)."""
    if MONSTER_BASE <= code < MONSTER_BASE + 1_000_000:
        rest = code - MONSTER_BASE
        return {"atk": rest // 1000 * POINTS, "def": rest % 1000 * POINTS}
    raise KeyError(code)


def stats(code: int) -> dict[str, int]:
    card = card_of(code)
    return {"atk": card["atk"], "def": card["def"]}


def card_data(code: int) -> Card | None:
    """The card reader's answer for a code (None: no such card of ours)."""
    try:
        card = card_of(code)
    except KeyError:
        return None
    return Card(code, TYPE_MONSTER | TYPE_NORMAL, LEVEL, card["atk"], card["def"])


def script(name: str) -> bytes | None:
    """The script reader's answer: no script (Normal Monsters need none; the core accepts none)."""
    return None


def random_deck(rng: random.Random, size: int) -> list[dict[str, Any]]:
    """A deck of Normal Monsters with the ATK and DEF the model's simulation tries (0 to 3000)."""
    return [{"atk": rng.choice(STAT_VALUES) * POINTS, "def": rng.choice(STAT_VALUES) * POINTS} for _ in range(size)]


def stacked_deck(log: dict[str, Any] | None, player: int, rules: Rules) -> list[dict[str, Any]]:
    """A deck for one player that lets a log's play happen: every monster the player summons or Sets is
    drawn before it is played (the log gives only ATK/DEF; the hand is a count in the model). The log's own
    `decks`, when it has them, are used as they are; the cards a play never names are filler (0 ATK, 0 DEF)."""
    if log is not None and log.get("decks"):
        return [dict(c) for c in log["decks"][player]]
    filler = {"atk": 0, "def": 0}
    deck: list[dict[str, Any] | None] = [None] * rules.deck_size
    for drawn, card in played_cards(log, player, rules):
        free = next((i for i in range(min(drawn, len(deck))) if deck[i] is None), None)
        if free is None:
            raise InputError(f"the log plays a card player {player} has not drawn")
        deck[free] = card
    return [c if c is not None else dict(filler) for c in deck]


def played_cards(log: dict[str, Any] | None, player: int, rules: Rules) -> list[tuple[int, dict[str, Any]]]:
    """Each card a player plays from the hand in a log, with how many cards they had drawn by then (the
    opening hand included), by the rules' own replay of the log."""
    from duelcheck.log import NormalSummon, moves, parse
    from duelcheck.model.system import TransitionSystem

    if log is None:
        return []
    doc = parse(log, "<log>")
    ts = TransitionSystem(rules)
    state = ts.init()
    out = []
    for entry in doc.actions:
        if isinstance(entry, NormalSummon) and state.tp == player:
            out.append((rules.deck_size - state.g("deck", player), {"atk": entry.atk, "def": entry.def_}))
        for mv in moves(entry):
            got = ts.apply(state, mv.name, mv.params)
            if not got.ok or got.state is None:
                return out  # the rest of the log is not played (its illegal action is the engine's to refuse)
            state = got.state
    return out
