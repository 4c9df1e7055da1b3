"""ygopro-core behind the engine adapter protocol: a duel in the real engine, driven by duel-log actions.

    engine = Ygopro(rules)                  rules: the log's `rules` mapping (or a Rules)
    engine.deal(decks)                      each player's cards in draw order, the opening hand first
    engine.reset(board, log=None)           start the duel (the core starts every duel at turn 1)
    engine.offers() -> list[dict]           what the core offers now, as duel-log actions
    engine.apply(action) -> dict | str      take one action: the state after it, or the core's refusal

The core asks its players at its own decision points: the turn player's open game state in a Main Phase
(MSG_SELECT_IDLECMD), the Battle Step (MSG_SELECT_BATTLECMD), and a chance to activate (MSG_SELECT_CHAIN).
Those are the decisions `offers` shows. The others are answered here as the model's rules fix them: a
card goes to the lowest free zone (the model's placement), a Set monster is face-down Defense Position, the
hand-limit discard (6.3.6) takes the cards drawn last, and a window in which the player can activate
nothing is passed. A phase or step the core runs through without asking anyone is one the model passes
with both players passing; the two meet again at the next decision.

A log's play (a board's: one step of the rules each action) is played against the rules' own timing of
the log (`_apply_step`); difftest's plays, one decision each, directly.

Card data and scripts come from duelcheck/adapters/cards.py: Normal Monsters of any ATK/DEF (Level 4,
so that no Tribute is needed: the model has no Tribute Summon) and the Spells and Traps whose scripts are
written there.
"""

from __future__ import annotations

from typing import Any

from duelcheck.adapters import cards as catalogue
from duelcheck.adapters import ocgcore as oc
from duelcheck.errors import InputError
from duelcheck.rules import Rules, rules_from_mapping

__all__ = ["Unsupported", "Ygopro", "expressible"]


class Unsupported(NotImplementedError):
    """A board or a rule set the core cannot start from or play under (the reason says which)."""


PHASE_WORD = {
    oc.PHASE_DRAW: "draw",
    oc.PHASE_STANDBY: "standby",
    oc.PHASE_MAIN1: "main1",
    oc.PHASE_BATTLE_START: "battle_start",
    oc.PHASE_BATTLE_STEP: "battle_step",
    oc.PHASE_DAMAGE: "damage_start",
    oc.PHASE_DAMAGE_CAL: "damage_calculation",
    oc.PHASE_BATTLE: "battle_end",
    oc.PHASE_MAIN2: "main2",
    oc.PHASE_END: "end",
}
# the core's options when Main Phase 1 is skipped and both the Battle and the End Phase may follow (its strings
# 80 and 81: "to the Battle Phase", "to the End Phase")
SKIPPED_MAIN1_OPTIONS = [80, 81]
DISCARD_HINT = 501  # the core's string 501: choose the cards to discard
REPLAY_QUESTION = 30  # the core's string 30: go on with the attack? (a replay, 6.3.4.2.1)
# the timings of the Damage Step the core announces (its strings 40 to 44, a HINT_EVENT as each begins: 6.3.4.3.1
# to 6.3.4.3.5), which its phase alone does not tell apart
DAMAGE_TIMING = {
    40: "damage_start",
    41: "damage_before_calculation",
    42: "damage_calculation",
    43: "damage_after_calculation",
    44: "damage_end",
}

# the knobs the core can be set to, and how (anything else changed is refused: never compared under other rules)
_KNOBS = {
    "first_turn_draw": "the master rule: 2 draws on turn 1, 4 and 5 do not (6.3.1)",
    "trigger_only_in_location": "the master rule: 5 (2020) loses a trigger whose card moved, 4 does not",
    "first_turn_battle": "DUEL_ATTACK_FIRST_TURN (6.3.4)",
    "starting_lp": "set_player_info",
    "starting_hand": "set_player_info",
    "deck_size": "the decks dealt",
    "chain_links": "a bound of the model only",
    "damage_step_activations": "the cards' scripts: their Damage Step flags (duelcheck/adapters/cards.py)",
    # 6.3.1: the core lets any card be chained to a "before the draw" effect (docs/engine-findings.md F15): "any"
    # is its own reading; under "answers" (the default) the difference is a finding, "none" it never plays
    "before_draw_chain": "the core's own reading (any); compared under answers too",
}


def expressible(rules: Rules) -> str | None:
    """Why the core cannot play under these rules, or None when it can."""
    changed = sorted(k for k in rules.changed() if k not in _KNOBS)
    if rules.first_turn_draw and rules.trigger_only_in_location:
        return (
            "ygopro-core has no master rule with both first_turn_draw and trigger_only_in_location "
            "(rule 2 draws on turn 1, rule 5 loses a trigger whose card moved)"
        )
    if rules.before_draw_chain == "none":
        return 'ygopro-core has no switch for before_draw_chain = "none" (it lets any card be chained there)'
    if changed:
        return (
            "ygopro-core has no switch for "
            + ", ".join(
                f"the rule changes ({'; '.join(c.words() for c in rules.changes)})"
                if k == "changes"
                else f"{k} = {getattr(rules, k)!r}".replace("'", '"')
                for k in changed
            )
            + " (it can set: "
            + ", ".join(sorted(_KNOBS))
            + ")"
        )
    return None


def _rules(rules: dict[str, Any] | Rules | None) -> Rules:
    if isinstance(rules, Rules):
        return rules
    return rules_from_mapping(dict(rules or {}), "rules")


class Ygopro:
    """One duel in ygopro-core (one per process: the core's readers are process-wide)."""

    exact_reasons = False  # the core refuses by not offering; its words are not the model's

    _library: oc.Library | None = None  # shared by every instance in the process

    def __init__(self, rules: dict[str, Any] | Rules | None = None, library: str | None = None, seed: int = 0):
        self.rules = _rules(rules)
        self._check_rules()
        self.lib: Any = self._load(library)  # the core's library (oc.Library, or another core's alike)
        self.seed = seed
        self.decks: list[list[dict[str, Any]]] | None = None
        self.pending: oc.Message | None = None
        self.phase = oc.PHASE_DRAW
        self.turn = 0
        self.turn_player = 0
        self.winner: int | str | None = None  # a player, or "draw"
        self.log: list[oc.Message] = []
        self.clock: Any = None  # the rules' state of a log's play (which timing the log is at), or None
        self.clock_ts: Any = None
        self.events = 0  # messages that changed the game so far (a draw, a move, a chain link, a phase, ...)
        self.last_pass: dict[
            int, tuple[int, int, str | None, int]
        ] = {}  # player -> (turn, phase, events) of their last pass
        self.repeated_windows = 0  # second chances the core gave with nothing done since (passed here)
        self.step: str | None = None  # "battle_step" or "damage" within the Battle Phase (never announced)
        self.chain = 0  # links on the chain (MSG_CHAINING, MSG_CHAIN_END)
        self.drawn = False  # the turn player has made this turn's normal draw (MSG_DRAW outside a chain)
        self.ending = False  # the turn player asked to end the phase (to the Battle or End Phase)
        self.attack_open = False  # an attack is being declared (MSG_ATTACK until the Damage Step or its negation)
        self.links: dict[int, int] = {}  # the chain's links: link number -> the code of the card activated
        self.acting: dict[str, Any] | None = None  # the action being taken (its target, when the core asks)
        self.targets: dict[int, dict[str, Any]] = {}  # link number -> the target the log chose for it
        self.resolves: list[dict[str, Any]] = []  # a log's resolutions in order (what each summons or changes)
        self.solving = 0  # links resolved so far (MSG_CHAIN_SOLVING): the log's resolution the core is at
        self.summoning: dict[str, Any] | None = None  # the monster a resolution is Special Summoning
        self.solving_link = 0  # the link resolving now
        self.refusal: str | None = None  # why the core would not take the action being taken, found as it ran
        self.target_asked = False  # whether the core asked for the target of the action being taken

    def _check_rules(self) -> None:
        why = expressible(self.rules)
        if why is not None:
            raise Unsupported(why)

    def _load(self, library: str | None) -> Any:
        path = oc.library_path(library)
        if Ygopro._library is None or Ygopro._library.path != path:
            Ygopro._library = oc.Library(path, catalogue.card_data, catalogue.script)
        Ygopro._library.use_scripts(catalogue.scripts_for(self.rules))
        return Ygopro._library

    # -- setting up ------------------------------------------------------------------------------------
    def deal(self, decks: list[list[dict[str, Any]]]) -> None:
        """Each player's deck, in the order the cards are drawn (the opening hand first)."""
        if len(decks) != 2:
            raise InputError("decks: exactly two decks expected")
        for p, deck in enumerate(decks):
            for i, card in enumerate(deck):
                catalogue.code_of(card, f"decks[{p}][{i}]")
        self.decks = [list(d) for d in decks]

    def reset(self, board: dict[str, Any] | None = None, log: dict[str, Any] | None = None) -> None:
        """Start a duel at the board: the start of the duel (turn 1, the Draw Phase) is the board the core can
        start from; any other board raises Unsupported with the reason."""
        why = _unsupported_board(board or {}, self.rules)
        if why is not None:
            raise Unsupported(why)
        if any(a.get("action") == "discard" and a.get("from_hand_trigger") for a in (log or {}).get("actions", [])):
            raise Unsupported(
                "the log discards a monster whose effect triggers when it is sent from the hand to the Graveyard "
                "(from_hand_trigger), a card the adapter deals no script for (docs/engines.md: the cards dealt)"
            )
        if any(a.get("by_effect_trigger") for a in (log or {}).get("actions", [])):
            raise Unsupported(
                "the log discards a monster whose effect triggers when it is discarded by a card effect "
                "(by_effect_trigger), a card the adapter deals no script for (docs/engines.md: the cards dealt)"
            )
        r = self.rules
        decks = self.decks
        if decks is None:
            decks = [catalogue.stacked_deck(log, p, r) for p in (0, 1)]
            for p, deck in enumerate(decks):
                for card in deck:
                    try:
                        catalogue.code_of(card, "deck")
                    except InputError:
                        raise Unsupported(
                            f"the log's player {p} plays {_card_words(card)}, a card the adapter deals no script for "
                            "(docs/engines.md: the cards dealt)"
                        ) from None
        for p, deck in enumerate(decks):
            if len(deck) != r.deck_size:
                raise InputError(f"decks[{p}]: {len(deck)} cards, the rules' deck_size is {r.deck_size}")
        lib = self.lib
        lib.open_duel(self.seed, self._options(), [(r.starting_lp, r.starting_hand, 1)] * 2)
        for p, deck in enumerate(decks):
            for card in reversed(deck):  # the core draws the card added last first
                lib.new_card(catalogue.code_of(card, "deck"), p, p, oc.LOCATION_DECK, 0, oc.POS_FACEDOWN_DEFENSE)
        self.phase, self.turn, self.turn_player, self.winner = oc.PHASE_DRAW, 0, 0, None
        self.pending = None
        self.log = []
        self.events, self.last_pass, self.repeated_windows = 0, {}, 0
        self.clock = None
        if self.decks is None:  # a log's play, one step of the rules an action: the rules' timing kept beside
            from duelcheck.model.system import NoHistory, TransitionSystem

            self.clock_ts = TransitionSystem(r, NoHistory())
            self.clock = self.clock_ts.init()
        self.step, self.chain, self.ending, self.attack_open = None, 0, False, False
        self.timing = 0
        self.links = {}
        self.acting, self.targets, self.summoning, self.solving = None, {}, None, 0
        self.resolves = [a for a in (log or {}).get("actions", []) if a.get("action") == "resolve"]
        lib.start()
        self._run()

    def resolutions(self, entries: list[dict[str, Any]]) -> None:
        """The resolutions the rules made (duel-log `resolve` actions, in order; difftest tells them before the
        action that resolves them): the core's next questions on resolution are answered from them."""
        self.resolves += [dict(e) for e in entries]

    def _options(self) -> int:
        """The core's duel options for the rules: no shuffling (the decks stay in the order dealt), battle on
        turn 1 when the rules allow it, and the master rule in the upper 16 bits: 2 draws on turn 1; 5 (Master
        Rule 2020) loses a triggered effect whose card left where it triggered (`trigger_only_in_location`,
        docs/engine-findings.md F10); 4, the seeds' rules, keeps it."""
        options = oc.DUEL_PSEUDO_SHUFFLE
        if self.rules.first_turn_battle:
            options |= oc.DUEL_ATTACK_FIRST_TURN
        rule = 2 if self.rules.first_turn_draw else 5 if self.rules.trigger_only_in_location else 4
        return options | (rule << 16)

    # -- the core's decisions --------------------------------------------------------------------------
    def _run(self) -> None:
        """Let the core run to its next decision for a player (answering those the model's rules fix)."""
        for _ in range(10_000):
            if self.winner is not None:
                self.pending = None
                return
            flags, data = self.lib.process()
            asked: oc.Message | None = None
            for msg in self.lib.messages(data):
                self.log.append(msg)
                self._note(msg)
                if msg.code in oc.SELECTIONS:
                    asked = msg
                elif msg.code == oc.MSG_RETRY:
                    raise oc.EngineFailure("the core refused an answer duelcheck gave (MSG_RETRY)")
            if flags & oc.PROCESSOR_END or self.winner is not None:
                self.pending = None
                return
            if asked is None:
                continue
            if not self._answer_fixed(asked):
                self.pending = asked
                return
        raise oc.EngineFailure("the core ran 10,000 times without asking anything")

    def _note(self, msg: oc.Message) -> None:
        f = msg.fields
        if msg.code not in oc.SELECTIONS and msg.code not in (oc.MSG_HINT, oc.MSG_RETRY):
            self.events += 1
        if msg.code == oc.MSG_NEW_TURN:
            self.turn += 1
            self.turn_player = f["player"]
            self.drawn = False
        elif msg.code == oc.MSG_DRAW and self.phase == oc.PHASE_DRAW and not self.chain:
            self.drawn = True  # the normal draw (an effect's draw comes while its chain resolves)
        elif msg.code == oc.MSG_NEW_PHASE:
            self.phase = f["phase"]
            self.step = None
            self.ending = False
            self.attack_open = False
        elif msg.code == oc.MSG_SELECT_BATTLECMD:
            self.step = "battle_step"
            self.attack_open = False
        elif msg.code == oc.MSG_ATTACK:
            self.attack_open = True  # the attack declaration's windows (6.3.4.2) are the rules' too
        elif msg.code == oc.MSG_ATTACK_DISABLED:
            self.attack_open = False
        elif msg.code == oc.MSG_DAMAGE_STEP_START:
            self.attack_open = False
            self.step = "damage"
            self.timing = 0  # no timing of this Damage Step announced yet
        elif msg.code == oc.MSG_DAMAGE_STEP_END:
            self.step = "battle_step"
        elif msg.code == 71 and self.acting is not None and "target" in self.acting:  # MSG_CHAINED
            self.targets[f["link"]] = self.acting["target"]
        elif msg.code == oc.MSG_CHAIN_SOLVING:
            self.solving += 1
            self.solving_link = f["link"]
        elif msg.code == oc.MSG_CHAINING:
            self.links[f["link"]] = f["code"]
            self.chain += 1
            self.ending = False  # a chain in answer to the end of the phase: the phase goes on (6.3)
        elif msg.code in (oc.MSG_CHAIN_NEGATED, 76):  # MSG_CHAIN_DISABLED: the link does nothing
            self.links.pop(f["link"], None)
        elif msg.code == oc.MSG_CHAIN_SOLVED:
            code = self.links.pop(f["link"], 0)
            if catalogue.effect_of(code) == "negate_attack":
                self.attack_open = False  # the attack is negated: it is over (the core says so only later)
        elif msg.code == oc.MSG_CHAIN_END:
            self.chain = 0
            self.links, self.targets = {}, {}
        elif msg.code == oc.MSG_HINT and f["type"] == 1 and f["data"] == 25:
            self.step = "battle_end"  # the core's check at the end of the Battle Phase: its End Step (6.3.4.4)
        elif msg.code == oc.MSG_HINT and f["type"] == 1:
            self.timing = f["data"]  # the timing the core announces (in the Damage Step: 6.3.4.3.x)
        elif msg.code == oc.MSG_WIN:  # PLAYER_NONE (2): both players lost at once, a drawn duel
            self.winner = f["player"] if f["player"] in (0, 1) else "draw"

    def _moment(self) -> tuple[Any, ...]:
        """Where the duel is, for telling a repeated chance from a new one: the turn, phase and step, the
        timing of the Damage Step the core last announced (its event hints: the step alone does not tell its
        timings apart), and how many things have happened."""
        return (self.turn, self.phase, self.step, self.timing if self.step == "damage" else None, self.events)

    def _answer_fixed(self, msg: oc.Message) -> bool:
        """Answer a decision the model's rules fix; False for the decisions `offers` shows."""
        f = msg.fields
        lib = self.lib
        if msg.code == oc.MSG_SELECT_PLACE:  # the lowest free zone of the kind asked (the model's placement)
            lib.respond_place(*_lowest_place(f["player"], f["flag"]))
            return True
        if msg.code == oc.MSG_SELECT_POSITION:
            positions = f["positions"]
            want = oc.POS_FACEUP_ATTACK
            if self.summoning is not None:  # a Special Summon's position: the log's resolution says it
                want = oc.POS_FACEUP_DEFENSE if self.summoning.get("position") == "defense" else oc.POS_FACEUP_ATTACK
                self.summoning = None
            lib.respond_int(want if positions & want else positions & -positions)
            return True
        if msg.code == oc.MSG_SELECT_CARD and self._hint() == catalogue.HINT_TARGET:
            lib.respond_cards(self._target_answer(msg))
            return True
        if msg.code == oc.MSG_SELECT_CARD and self._hint() == catalogue.HINT_SUMMON:
            lib.respond_cards(self._summon_answer(msg))
            return True
        if msg.code == oc.MSG_ANNOUNCE_NUMBER:
            lib.respond_int(self._number_answer(msg))
            return True
        if msg.code == oc.MSG_SELECT_CHAIN:
            if not f["chains"]:  # nothing to activate: the player passes
                lib.respond_int(-1)
                return True
            open_state = self.phase in (oc.PHASE_MAIN1, oc.PHASE_MAIN2) or (
                self.step == "battle_step" and not self.attack_open
            )
            if open_state and self.chain == 0 and not self.ending and not any(c["forced"] for c in f["chains"]):
                # the response window the core opens in the turn player's Main Phase or Battle Step with no
                # chain, no attack being declared and no end of the phase asked (after a summon, a Set or a
                # change of position, or after a chain resolved: 6.3, the rules' `response_window`). The
                # opponent's chance is a decision, as in the rules (the turn player passes priority to them);
                # the turn player's own chance comes first in the core and offers nothing their next idle
                # command does not: passed here (but under the Goat format's ignition priority, where it
                # offers the Ignition effects the rules let come before the opponent's chance).
                if f["player"] != self.turn_player:
                    return False
                ignition = [a for i, c in enumerate(f["chains"]) for a in self._activations(c, i)]
                again = self.last_pass.get(f["player"]) == self._moment()  # asked again, nothing done since
                if self.rules.ignition_priority and not again and any(a.get("type") == "ignition" for a in ignition):
                    return False  # Goat's ignition priority: the turn player's Ignition effect may come first
                lib.respond_int(-1)
                return True
            if self.last_pass.get(f["player"]) == self._moment() and not any(c["forced"] for c in f["chains"]):
                # the core asks a player again in the same phase with nothing done since they passed (its
                # window before the phase ends after the one that follows the draw, say): the rules give no
                # such second chance (6.3: two passes in succession end the phase); passed again, and counted
                self.repeated_windows += 1
                lib.respond_int(-1)
                return True
            return False
        if msg.code == oc.MSG_SELECT_CARD and self._hint() == DISCARD_HINT:  # 6.3.6, a cost: the cards drawn last
            lib.respond_cards(_drawn_last(f))
            return True
        if msg.code in (oc.MSG_SELECT_IDLECMD, oc.MSG_SELECT_BATTLECMD, oc.MSG_SELECT_EFFECTYN):
            return False
        if msg.code == oc.MSG_SELECT_YESNO and f["desc"] == REPLAY_QUESTION:
            return False  # 6.3.4.2.1 replay: attack again (a new target, or directly) or stop
        if msg.code == oc.MSG_SELECT_OPTION and f["options"] == SKIPPED_MAIN1_OPTIONS:
            return False  # Main Phase 1 skipped: the Battle Phase or the End Phase (6.3.3), the player's choice
        if (msg.code == oc.MSG_SELECT_CARD and self._hint() == 549) or (
            msg.code == oc.MSG_SELECT_YESNO and f["desc"] == 31
        ):
            return False  # the attack target, or whether to attack directly: the action being taken says
        return self._unexpected(msg)

    def _resolution(self) -> dict[str, Any]:
        """The log's resolution the core is at (its links resolve in the log's order); {} when the log ends
        before it (an illegal board's play stops earlier, and the core resolves a chain within the passes)."""
        if not 0 < self.solving <= len(self.resolves):
            return {}
        return self.resolves[self.solving - 1]

    def _target_answer(self, msg: oc.Message) -> list[int]:
        """The card the action being taken targets, among those the core lists."""
        target = (self.acting or {}).get("target")
        if not isinstance(target, dict):
            raise oc.EngineFailure(f"the core asks for a target and the action names none: {self.acting}")
        location = oc.LOCATION_MZONE if target.get("area") == "monster" else oc.LOCATION_SZONE
        self.target_asked = True
        for i, c in enumerate(msg.fields["cards"]):
            if (c["controller"], c["location"], c["sequence"]) == (target.get("player"), location, target.get("zone")):
                return [i]
        # not a target the core allows: the action is refused (the core cannot take back an activation it has
        # begun, so one it lists is chosen to let it go on; the play is over at a refusal)
        self.refusal = f"the core does not offer {_words(self.acting or {})} here: that card cannot be targeted"
        return [0]

    def _summon_answer(self, msg: oc.Message) -> list[int]:
        """The monster a resolution Special Summons from the hand: the one with the log's ATK and DEF."""
        summon = self._resolution().get("summon")
        if not isinstance(summon, dict):  # the log does not say (it ends before): the first monster listed
            self.summoning = None
            return [0]
        for i, c in enumerate(msg.fields["cards"]):  # a Normal Monster (the rules summon one with no effect)
            if catalogue.card_of(c["code"]) == {"atk": summon.get("atk"), "def": summon.get("def")}:
                self.summoning = summon
                return [i]
        raise oc.EngineFailure(f"no monster in the hand with the ATK and DEF of {summon}")

    def _number_answer(self, msg: oc.Message) -> int:
        """The ATK a change leaves its target with: its ATK now plus the log's change, within 0 and the cap."""
        change = self._resolution().get("atk_change") or 0
        target = self.targets.get(self.solving_link, {})
        slot = self.lib.query_zone(target.get("player", 0), oc.LOCATION_MZONE)[target.get("zone", 0)]
        atk = 0 if slot is None else slot["atk"]
        new = min(max(atk + change, 0), max(msg.fields["options"]))
        return msg.fields["options"].index(new)

    def _unexpected(self, msg: oc.Message) -> bool:
        raise oc.EngineFailure(
            f"the core asked something this adapter does not answer (message {msg.code}, {msg.fields})"
        )

    def _hint(self) -> int | None:
        """The text the core last sent with a selection (MSG_HINT, HINT_SELECTMSG), e.g. 501 for a discard."""
        for msg in reversed(self.log[-8:]):
            if msg.code == oc.MSG_HINT and msg.fields["type"] == 3:
                return int(msg.fields["data"])
        return None

    # -- what the core offers --------------------------------------------------------------------------
    def offers(self) -> list[dict[str, Any]]:
        """The actions the core offers at its present decision, in the duel-log format's words (several hand
        cards of the same card are one offer)."""
        msg = self.pending
        if msg is None:
            return []
        out: list[dict[str, Any]] = []
        f = msg.fields
        if msg.code == oc.MSG_SELECT_IDLECMD:
            for c in f["summon"]:
                out.append({"action": "normal_summon", **catalogue.stats(c["code"])})
            for c in f["mset"]:
                out.append({"action": "set_monster", **catalogue.stats(c["code"])})
            mzone = self.lib.query_zone(f["player"], oc.LOCATION_MZONE)
            for c in f["reposition"]:
                slot = mzone[c["sequence"]]
                down = slot is not None and not slot["position"] & oc.POS_FACEUP
                out.append({"action": "flip_summon" if down else "change_position", "zone": c["sequence"]})
            for c in f["sset"]:
                out.append({"action": "set_spell_trap", **_spec(c["code"])})
            for i, c in enumerate(f["activate"]):
                out += self._activations(c, 5 | (i << 16))
            if f["to_bp"]:
                out.append({"action": "end_step", "then": "battle_phase"})
            if f["to_ep"]:
                out.append(
                    {"action": "end_step", "then": "end_phase"}
                    if self.phase == oc.PHASE_MAIN1
                    else {"action": "end_step"}
                )
        elif msg.code == oc.MSG_SELECT_BATTLECMD:
            opp = 1 - f["player"]
            targets = [z for z, slot in enumerate(self.lib.query_zone(opp, oc.LOCATION_MZONE)[:5]) if slot is not None]
            for c in f["attack"]:
                if targets:
                    out += [{"action": "declare_attack", "attacker": c["sequence"], "target": t} for t in targets]
                if c["direct"]:
                    out.append({"action": "declare_attack", "attacker": c["sequence"], "target": "direct"})
            for i, c in enumerate(f["activate"]):
                out += self._activations(c, 0 | (i << 16))
            if f["to_m2"] or f["to_ep"]:  # to Main Phase 2, or to the End Phase in a turn without one (6.3.5)
                out.append({"action": "end_step"})
        elif msg.code == oc.MSG_SELECT_CHAIN:
            for i, c in enumerate(f["chains"]):
                out += self._activations(c, i)
            if not any(c["forced"] for c in f["chains"]):
                out.append({"action": "pass"})
        elif msg.code == oc.MSG_SELECT_YESNO and f["desc"] == REPLAY_QUESTION:
            out += [{"action": "replay", "target": t} for t in self._probe_replay()]
            out.append({"action": "replay", "target": "stop"})
        elif _replaces(msg):  # 6.3.4.3.3: applied or declined
            out += [{"action": "replace_destruction"}, {"action": "replace_destruction", "decline": True}]
        elif _before_draw(msg):  # 6.3.1: activated, or the draw
            out += [self._activation(f), {"action": "pass"}]
        elif msg.code == oc.MSG_SELECT_EFFECTYN:  # a waiting optional trigger: activated or declined
            out += [*self._activations({"code": f["code"]}, 1), {"action": "trigger", "decline": True}]
        elif msg.code == oc.MSG_SELECT_OPTION and f["options"] == SKIPPED_MAIN1_OPTIONS:
            out += [{"action": "end_step", "then": "battle_phase"}, {"action": "end_step", "then": "end_phase"}]
        return _unique(out)

    def _activations(self, c: dict[str, Any], answer: int) -> list[dict[str, Any]]:
        """The activations the core offers for one card: one per target it would list when the activation is
        chosen (asked of a second duel played to this point), or the activation alone when it takes none."""
        base = self._activation(c)
        card = catalogue.card_of(c["code"])
        word = card["effect"] if "kind" in card else card["effect"]["effect"]
        known = catalogue.SCRIPTS.get(catalogue.EFFECT_NAMES[word])
        if known is None or known.target is None:  # (a continuous card's effect takes no target)
            return [base]
        return [{**base, "target": t} for t in self._probe_targets(answer)]

    def _probe_targets(self, answer: int) -> list[dict[str, Any]]:
        """The targets the core lists once `answer` is given here: a second duel, played to this point, is
        given the answer and the questions before the target (a zone, a discarded cost) as the adapter
        answers them; this duel is left as it was."""
        saved = self.lib.branch()
        try:
            if oc.next_selection(self.lib) is None:  # the question being answered here, in the second duel
                return []
            self.lib.respond_int(answer)
            for _ in range(8):
                got = oc.next_selection(self.lib)
                if got is None:
                    return []
                msg, batch = got
                hints = [m.fields["data"] for m in batch if m.code == oc.MSG_HINT and m.fields["type"] == 3]
                hint = hints[-1] if hints else None
                f = msg.fields
                if msg.code == oc.MSG_SELECT_CARD and hint == catalogue.HINT_TARGET:
                    return [
                        {
                            "player": c["controller"],
                            "area": "monster" if c["location"] == oc.LOCATION_MZONE else "spell_trap",
                            "zone": c["sequence"],
                        }
                        for c in f["cards"]
                    ]
                if msg.code == oc.MSG_SELECT_PLACE:
                    self.lib.respond_place(*_lowest_place(f["player"], f["flag"]))
                elif msg.code == oc.MSG_SELECT_CARD and hint == DISCARD_HINT:
                    self.lib.respond_cards(_drawn_last(f))
                else:
                    return []  # the core asks something else before any target: it lists none
            return []
        finally:
            self.lib.rejoin(saved)

    def _probe_replay(self) -> list[int | str]:
        """The new targets the core offers at a replay (6.3.4.2.1): a second duel, played to this point, is told
        to attack again; it asks whether to attack directly when its effect lets the attacker do so though the
        opponent controls monsters (001:L55), lists the monsters it may attack, or asks nothing when a direct
        attack is all that is left. This duel is left as it was."""
        saved = self.lib.branch()
        try:
            out: list[int | str] = []
            if oc.next_selection(self.lib) is None:  # the replay question, in the second duel
                return out
            self.lib.respond_int(1)
            got = oc.next_selection(self.lib)
            if got is not None and got[0].code == oc.MSG_SELECT_YESNO and got[0].fields["desc"] == 31:
                out.append("direct")
                self.lib.respond_int(0)
                got = oc.next_selection(self.lib)
            if got is not None:
                msg, batch = got
                hints = [m.fields["data"] for m in batch if m.code == oc.MSG_HINT and m.fields["type"] == 3]
                if msg.code == oc.MSG_SELECT_CARD and hints and hints[-1] == 549:
                    return out + [c["sequence"] for c in msg.fields["cards"]]
            return out or ["direct"]
        finally:
            self.lib.rejoin(saved)

    def _activation(self, c: dict[str, Any]) -> dict[str, Any]:
        """A card the core offers to activate, as the log writes an activation (a target is chosen after: the
        core asks for it once the activation is chosen)."""
        card = catalogue.card_of(c["code"])
        monster = card.get("effect") if "kind" not in card else None
        if isinstance(monster, dict):
            if monster["type"] in ("flip", "trigger", "end_phase"):
                return {"action": "trigger"}
            return {"action": "activate_effect", "monster": c["sequence"], **monster}
        where: Any = "hand" if c["location"] == oc.LOCATION_HAND else c["sequence"]
        return {"action": "activate", "from": where, **_spec(c["code"])}

    # -- taking an action ------------------------------------------------------------------------------
    def apply(self, action: dict[str, Any]) -> dict[str, Any] | str:
        """Take one action: the state after it (what the core shows), or why the core refuses it. A log's
        action (a board's play: one step of the rules each) is taken by `_apply_step`; difftest's (one
        decision each, dealt decks) here."""
        if self.clock is not None:
            return self._apply_step(action)
        return self._apply_decision(action)

    def _apply_decision(self, action: dict[str, Any]) -> dict[str, Any] | str:
        msg = self.pending
        if msg is None:
            return "the duel is over" if self.winner is not None else "the core is not asking for an action"
        name = action.get("action")
        asks = msg.code == oc.MSG_SELECT_CHAIN or _before_draw(msg)
        if name in ("normal_draw", "discard", "resolve") or (name == "pass" and not asks):
            return self.observe()  # the core does these itself when the rules say so
        choice = self._choice(msg, action)
        if isinstance(choice, str):
            return choice
        if msg.code == oc.MSG_SELECT_CHAIN and choice == -1:
            self.last_pass[msg.fields["player"]] = self._moment()
        if msg.code in (oc.MSG_SELECT_IDLECMD, oc.MSG_SELECT_BATTLECMD) and action.get("action") == "end_step":
            self.ending = True
        self.acting, self.refusal, self.target_asked = action, None, False
        try:
            self.lib.respond_int(choice)
            self._run_attack(action)
        finally:
            self.acting = None
        effect = action.get("action") in ("activate", "activate_effect", "trigger")
        if self.refusal is None and effect and action.get("target") is not None and not self.target_asked:
            self.refusal = f"the core does not offer {_words(action)} here: it asks for no target"
        if self.refusal is not None:
            return self.refusal
        return self.observe()

    # -- a log's play, one step of the rules an action ------------------------------------------------------
    def _apply_step(self, action: dict[str, Any]) -> dict[str, Any] | str:
        """One step of a log's play. The core asks only at its decisions and runs through the timings where
        nobody can act, and the rules' steps include every pass: the rules' state of the play (the clock)
        says which timing the log is at. An action is sent to the core when the core asks that player at
        that timing; a pass, a draw, a discard or a resolution at a timing the core runs through by itself is
        taken there with nothing shown ({}: no field compared); the core's state is shown whenever the log
        reaches the core's decision. Any other action at a timing the core does not ask is refused."""
        from pydantic import TypeAdapter

        from duelcheck.log import Action, moves

        name = action.get("action")
        pre = self.clock
        post = pre
        for mv in moves(TypeAdapter(Action).validate_python(action)):
            got = self.clock_ts.apply(post, mv.name, mv.params)
            post = got.state if got.ok and got.state is not None else None
            if post is None:
                break
        msg = self.pending
        asking = msg is not None and self._asks_at(pre)
        passing = name in ("pass", "end_step", "normal_draw", "discard", "resolve")
        if not passing:
            if msg is None:
                return "the duel is over" if self.winner is not None else "the core is not asking for an action"
            if name == "replay" and self._before_replay(pre):
                msg = self.pending
                asking = msg is not None and self._asks_at(pre)
            if name == "replay" and self.rules.replay_stored:
                # stored replays (Goat format): the core asks nothing at a replay; it has ended the attack
                # itself, without counting it. The rules' stop is that end: nothing to answer
                if post is None or action.get("target") != "stop":
                    return "the core ends an attack at a replay (stored replays): no new target is chosen"
                self.clock = post
                return self._shown()
            if not asking:
                return self._not_asking(pre)
            got_e = self._apply_decision(action)
            if isinstance(got_e, str):
                return got_e
            if post is not None:
                self.clock = post
            return self._shown()
        if post is None:  # the rules refuse this pass (say, a pass while the chain resolves)
            return "the core does not take this action here" if asking else self._not_asking(pre)
        forward = self._pass_answer(msg, pre, post, action) if msg is not None else None
        self.clock = post
        for _ in range(3):  # an end_step's passes: a response window's first, then the phase's own (6.3)
            if forward is None or msg is None:
                break
            if msg.code == oc.MSG_SELECT_CHAIN and forward == -1:
                self.last_pass[msg.fields["player"]] = self._moment()
            if msg.code in (oc.MSG_SELECT_IDLECMD, oc.MSG_SELECT_BATTLECMD):
                self.ending = True
            # the step too: ending the Battle Step takes the core to the End Step in the same phase, where the
            # opponent's chance is the End Step's, not the Battle Step's second pass (6.3.4.4)
            when = (self.turn, self.phase, self.step)
            self.lib.respond_int(forward)
            self._run()
            if name != "end_step" or (self.turn, self.phase, self.step) != when:
                break  # the pass ended the phase (or the turn): the core asks at the next one's timing
            if msg.code != oc.MSG_SELECT_CHAIN:
                # the turn player ended the phase; the core asks the opponent in it first (the end_step's
                # second pass: both players pass for the phase to end, 6.3)
                self._second_pass(msg.fields["player"])
                break
            self._second_pass(msg.fields["player"])
            msg, forward = self.pending, None
            window = bool(pre.g("window"))  # the rules' end_step folds a response window's passes in (6.3)
            if window and msg is not None and msg.code in (oc.MSG_SELECT_IDLECMD, oc.MSG_SELECT_BATTLECMD):
                forward = self._pass_answer(msg, pre, post, action)  # the window passed: now the phase ends
        return self._shown()

    def _before_replay(self, pre: Any) -> bool:
        """Pass the chances to chain the core gives between a chain's end and the replay (finding F11). 6.3.4.2.1:
        the replay comes when the chain has resolved; the core first asks the turn player, then the opponent,
        whether to start a new chain. The log's replay says nobody did: the passes are given here."""
        if not pre.g("replay") or pre.g("chain_len") or pre.g("resolving"):
            return False
        passed = False
        for _ in range(2):
            msg = self.pending
            if msg is None or msg.code != oc.MSG_SELECT_CHAIN or any(c["forced"] for c in msg.fields["chains"]):
                break
            self.last_pass[msg.fields["player"]] = self._moment()
            self.lib.respond_int(-1)
            self._run()
            passed = True
        return passed

    def _second_pass(self, first: int) -> None:
        """The second of `end_step`'s two passes, when the core asks the other player in the same phase."""
        nxt = self.pending
        if nxt is None or nxt.code != oc.MSG_SELECT_CHAIN or nxt.fields["player"] == first:
            return
        if any(c["forced"] for c in nxt.fields["chains"]):
            return
        self.last_pass[nxt.fields["player"]] = self._moment()
        self.lib.respond_int(-1)
        self._run()

    def _shown(self) -> dict[str, Any]:
        """What the core shows at the log's timing: its state when it asks at that timing or when both duels
        are over; else nothing (the core has run on past the timing the log is at: {} compares no field)."""
        over = self.pending is None and self.winner is not None
        if (over and self.clock is not None and self.clock.g("winner")) or self._asks_at(self.clock):
            return self.observe()
        return {}

    def _pass_answer(self, msg: oc.Message, pre: Any, post: Any, action: dict[str, Any]) -> int | None:
        """The core's answer a pass of the log's stands for, or None when the core is not asking here (or the
        pass is the turn player's first, which the core takes with the end of the phase)."""
        from duelcheck.log import NEXT

        f = msg.fields
        name = action.get("action")
        if msg.code == oc.MSG_SELECT_OPTION and f["options"] == SKIPPED_MAIN1_OPTIONS:
            # the core enters Main Phase 1 and asks there; the rules choose as the phase before it ends (6.3.3)
            from duelcheck.model.rules import main1_ends

            ends = post.g("turn") == pre.g("turn") and post.g("phase") != pre.g("phase") and main1_ends(pre)
            return (0 if action.get("then") == "battle_phase" else 1) if ends else None
        if _before_draw(msg):  # 6.3.1: declined: the normal draw
            return 0 if name == "normal_draw" and self._asks_at(pre) else None
        if msg.code == oc.MSG_SELECT_CHAIN:  # a pass, or the first of the two passes `end_step` stands for
            if _forced(msg):
                # the core asks for a mandatory End Phase effect before the player may pass (F18); the rules'
                # passes come first (6.3.6, 001:L116) and their `trigger` answers it
                return None
            if name == "end_step" and f["player"] != pre.g("prio") and not pre.g("chain_len"):
                # the second of the two: the core passed for the first player, who had nothing to activate
                from duelcheck.log import PHASE_NAME
                from duelcheck.model.cards import Phase

                seen = self._phase_word()
                phase = PHASE_NAME[Phase(pre.g("phase"))]
                same = pre.g("turn") == max(self.turn, 1) and (seen is None or seen == phase)
                return -1 if same else None
            # (a normal draw, where the core asks first whether to start a chain before the draw, 6.3.1)
            return -1 if name in ("pass", "end_step", "normal_draw") and self._asks_at(pre) else None
        if msg.code not in (oc.MSG_SELECT_IDLECMD, oc.MSG_SELECT_BATTLECMD):
            return None
        # the end of a Main Phase or of the Battle Step: the phase ends in the rules' play (both passed)
        from duelcheck.log import PHASE_NAME
        from duelcheck.model.cards import Phase

        if pre.g("turn") != max(self.turn, 1) or PHASE_NAME[Phase(pre.g("phase"))] != self._phase_word():
            return None  # the log is at an earlier timing, which the core ran through
        if post.g("turn") == pre.g("turn") and post.g("phase") == pre.g("phase"):
            return None  # the turn player's first pass, or a pass that ends nothing yet
        if msg.code == oc.MSG_SELECT_BATTLECMD:
            return 2 if f["to_m2"] else (3 if f["to_ep"] else None)
        then = action.get("then")
        choice = NEXT.get(then) if isinstance(then, str) else None
        from duelcheck.model.cards import TO_BATTLE

        if choice == TO_BATTLE and f["to_bp"]:
            return 6
        return 7 if f["to_ep"] else None

    def _asks_at(self, state: Any) -> bool:
        """Whether the core's present decision is at the rules' timing `state`: the same turn, phase or step,
        and player asked (a Main Phase or Battle Step command only in the turn player's open game state)."""
        from duelcheck.log import PHASE_NAME
        from duelcheck.model.cards import Phase

        msg = self.pending
        if msg is None or state is None:
            return False
        from duelcheck.model.rules import must_draw

        before_draw = state.g("phase") == Phase.DRAW and must_draw(state) and not state.g("drew")
        opening = _before_draw(msg)
        if before_draw and (self.drawn or not (opening or msg.code == oc.MSG_SELECT_CHAIN)):
            # the core asks in the Draw Phase before the draw only about a chain a "before the draw" effect
            # starts (6.3.1); everything else after the draw
            return False
        if state.g("resolving"):
            return False  # the core resolves a chain within the pass that starts it: nobody is asked meanwhile
        phase = PHASE_NAME[Phase(state.g("phase"))]
        seen = self._phase_word()
        from duelcheck.model.rules import replacement_decider, trigger_due

        asked = state.g("prio")
        replacement = _replaces(msg)
        if msg.code == oc.MSG_SELECT_EFFECTYN and not opening:  # a waiting trigger: its controller's, tp's first
            tp = state.tp
            asked = tp if trigger_due(state, tp) else 1 - tp
        if replacement:  # 6.3.4.3.3: a destruction replacement, the turn player's first
            asked = replacement_decider(state)
        forced = _forced(msg)
        if forced and state.g("chain_len"):
            return False  # 6.3.6: a mandatory End Phase effect starts a chain of its own (F18)
        if forced and (trigger_due(state, 0) or trigger_due(state, 1)):
            # 6.3.6: the mandatory End Phase effect the rules hold waiting: its player's, the turn player's first
            asked = state.tp if trigger_due(state, state.tp) else 1 - state.tp
        if state.g("turn") != max(self.turn, 1) or msg.fields.get("player") != asked:
            return False
        if seen is not None and seen != phase:
            return False
        if msg.code in (oc.MSG_SELECT_IDLECMD, oc.MSG_SELECT_BATTLECMD):  # the turn player's open game state
            return not (state.g("passed") or state.g("chain_len") or state.g("resolving") or state.g("attacking"))
        if msg.code == oc.MSG_SELECT_YESNO and msg.fields["desc"] == REPLAY_QUESTION:  # 6.3.4.2.1: a replay due
            return bool(state.g("replay")) and not (state.g("chain_len") or state.g("resolving"))
        if replacement:  # 6.3.4.3.3: the rules are at damage calculation, with that player deciding
            return bool(state.g("replacing", asked))
        if opening:  # 6.3.1: the turn player, before the draw, with no chain yet
            return bool(before_draw) and not state.g("chain_len")
        if msg.code == oc.MSG_SELECT_EFFECTYN:  # a waiting trigger (6.3.4.3.4): the rules' trigger is due there
            return bool(trigger_due(state, asked)) and not state.g("resolving")
        return True

    def _not_asking(self, state: Any) -> str:
        from duelcheck.log import PHASE_NAME
        from duelcheck.model.cards import Phase

        msg = self.pending
        asked = f"player {msg.fields.get('player')} in {self._phase_word() or 'the Damage Step'}" if msg else "nobody"
        where = f"player {state.g('prio')} in {PHASE_NAME[Phase(state.g('phase'))]} of turn {state.g('turn')}"
        return f"the core does not ask {where} (it asks {asked})"

    def _choice(self, msg: oc.Message, action: dict[str, Any]) -> int | str:
        f = msg.fields
        name = action.get("action")
        refused = f"the core does not offer {_words(action)} here"
        if msg.code == oc.MSG_SELECT_IDLECMD:
            if name in ("normal_summon", "set_monster"):
                lst, t = (f["summon"], 0) if name == "normal_summon" else (f["mset"], 3)
                card = {k: action[k] for k in ("atk", "def", "effect") if action.get(k) is not None}
                want = catalogue.code_of(card, "action")
                for i, c in enumerate(lst):
                    if c["code"] == want:
                        return t | (i << 16)
                return refused
            if name in ("flip_summon", "change_position"):
                for i, c in enumerate(f["reposition"]):
                    if c["sequence"] == action.get("zone") and {"action": name, "zone": c["sequence"]} in self.offers():
                        return 2 | (i << 16)
                return refused
            if name == "set_spell_trap":
                for i, c in enumerate(f["sset"]):
                    if {"action": name, **_spec(c["code"])} == action:
                        return 4 | (i << 16)
                return refused
            if name in ("activate", "activate_effect"):
                for i, c in enumerate(f["activate"]):
                    if self._activation(c) == _untargeted(action):
                        return 5 | (i << 16)
                return refused
            if name == "end_step":
                then = action.get("then")
                if then == "battle_phase" and f["to_bp"]:
                    return 6
                if (then == "end_phase" or (then is None and self.phase != oc.PHASE_MAIN1)) and f["to_ep"]:
                    return 7
                return refused
            return refused
        if msg.code == oc.MSG_SELECT_BATTLECMD:
            if name == "declare_attack":
                if action in self.offers():
                    for i, c in enumerate(f["attack"]):
                        if c["sequence"] == action.get("attacker"):
                            return 1 | (i << 16)
                return refused
            if name in ("activate", "activate_effect"):
                for i, c in enumerate(f["activate"]):
                    if self._activation(c) == _untargeted(action):
                        return 0 | (i << 16)
                return refused
            if name == "end_step" and action.get("then") is None and (f["to_m2"] or f["to_ep"]):
                return 2 if f["to_m2"] else 3
            return refused
        if msg.code == oc.MSG_SELECT_CHAIN:
            if name == "pass" and not any(c["forced"] for c in f["chains"]):
                return -1
            if name == "trigger" and action.get("decline") and not any(c["forced"] for c in f["chains"]):
                return -1
            if name in ("activate", "activate_effect", "trigger"):
                for i, c in enumerate(f["chains"]):
                    if self._activation(c) == _untargeted(action):
                        return i
            return refused
        if msg.code == oc.MSG_SELECT_YESNO and f["desc"] == REPLAY_QUESTION and name == "replay":
            if {k: v for k, v in action.items() if k in ("action", "target")} not in self.offers():
                return refused
            return 0 if action.get("target") == "stop" else 1
        if _replaces(msg):
            return (0 if action.get("decline") else 1) if name == "replace_destruction" else refused
        if _before_draw(msg):  # 6.3.1: no: the turn player draws
            if name == "pass":
                return 0
            return 1 if name == "activate_effect" and self._activation(f) == _untargeted(action) else refused
        if msg.code == oc.MSG_SELECT_EFFECTYN and name == "trigger":
            return 0 if action.get("decline") else 1
        if msg.code == oc.MSG_SELECT_OPTION and name == "end_step" and f["options"] == SKIPPED_MAIN1_OPTIONS:
            return 0 if action.get("then") == "battle_phase" else 1
        return refused

    def _run_attack(self, action: dict[str, Any]) -> None:
        """After the answer: run on, choosing the attack target the action names when the core asks."""
        target = action.get("target") if action.get("action") in ("declare_attack", "replay") else None
        target = None if target == "stop" else target
        for _ in range(4):
            self._run()
            msg = self.pending
            if target is None or msg is None:
                return
            if msg.code == oc.MSG_SELECT_YESNO and msg.fields["desc"] == 31:  # attack directly?
                self.lib.respond_int(1 if target == "direct" else 0)
                if target == "direct":
                    target = None
                continue
            if msg.code == oc.MSG_SELECT_CARD and self._hint() == 549:  # the attack target
                for i, c in enumerate(msg.fields["cards"]):
                    if c["sequence"] == target:
                        self.lib.respond_cards([i])
                        break
                else:
                    raise oc.EngineFailure(f"the core does not list zone {target} as an attack target")
                target = None
                continue
            return

    # -- what the core shows ---------------------------------------------------------------------------
    def observe(self) -> dict[str, Any]:
        """The state, in the duel-log format's words: the fields the core can be asked for."""
        counts = self.lib.field_counts()
        players = []
        for p in (0, 1):
            monsters: list[dict[str, Any]] = []
            for z, slot in enumerate(self.lib.query_zone(p, oc.LOCATION_MZONE)[: self.rules.monster_zones]):
                if slot is None:
                    monsters.append({"zone": z, "empty": True})
                    continue
                pos = slot["position"]
                monsters.append(
                    {
                        "zone": z,
                        "empty": False,
                        "atk": slot["atk"],
                        "def": slot["def"],
                        "position": "defense" if pos & oc.POS_DEFENSE else "attack",
                        "face": "up" if pos & oc.POS_FACEUP else "down",
                    }
                )
            spells: list[dict[str, Any]] = []
            for z, slot in enumerate(self.lib.query_zone(p, oc.LOCATION_SZONE)[: self.rules.spell_trap_zones]):
                if slot is None:
                    spells.append({"zone": z, "empty": True})
                    continue
                face = "up" if slot["position"] & oc.POS_FACEUP else "down"
                spells.append({"zone": z, "empty": False, **_spec(slot["code"], always_cost=True), "face": face})
            c = counts[p]
            players.append(
                {
                    "lp": c["lp"],
                    "hand": c["hand"],
                    "deck": c["deck"],
                    "graveyard": c["graveyard"],
                    "monsters": monsters,
                    "spells_traps": spells,
                }
            )
        out: dict[str, Any] = {
            "turn": max(self.turn, 1),
            "turn_player": self.turn_player,
            "winner": "none" if self.winner is None else self.winner,
            "players": players,
        }
        if self.pending is not None and "player" in self.pending.fields and not _asks_trigger(self.pending):
            # the player the core asks (a waiting trigger is asked of its controller, who need not hold priority)
            out["priority"] = self.pending.fields["player"]
        phase = self._phase_word()
        if self.winner is None and phase is not None:  # where a duel ended, or which timing, is not shown
            out["phase"] = phase
        return out

    def _phase_word(self) -> str | None:
        """The phase or step the core is in. It announces no Battle Step (its battle command is the Battle
        Step, and the Battle Step is where an attack is declared); a timing of the Damage Step is the one it
        announced last (None before it has announced one: not shown)."""
        if self.step == "damage":
            return DAMAGE_TIMING.get(self.timing)
        if self.step in ("battle_step", "battle_end"):
            return self.step
        return PHASE_WORD.get(self.phase, str(self.phase))

    def hand(self, player: int) -> list[dict[str, Any]]:
        """The cards in a player's hand, in the order the core keeps them (for the plays `difftest` makes)."""
        return [catalogue.card_of(code) for code in self.lib.hand_codes(player)]


def _spec(code: int, always_cost: bool = False) -> dict[str, Any]:
    """A Spell or Trap's kind, effect and cost as the log writes them (the cost only when there is one)."""
    card = catalogue.card_of(code)
    if not always_cost and card.get("cost") == "none":
        card.pop("cost")
    return card


def _effect_asked(msg: oc.Message) -> dict[str, Any] | None:
    """The monster effect, in the log's words, of the card the core's yes/no question (MSG_SELECT_EFFECTYN) is
    about; None for any other decision or card."""
    if msg.code != oc.MSG_SELECT_EFFECTYN:
        return None
    try:
        card = catalogue.card_of(msg.fields["code"])
    except (KeyError, ValueError):
        return None
    effect = card.get("effect")
    return effect if isinstance(effect, dict) else None


def _forced(msg: oc.Message) -> bool:
    """The core asks a player to choose among chain links one of which is mandatory: their mandatory End Phase
    effect (the catalogue's only one), which they must activate before they may pass (F18)."""
    return msg.code == oc.MSG_SELECT_CHAIN and any(c["forced"] for c in msg.fields["chains"])


def _asks_trigger(msg: oc.Message) -> bool:
    """The core asks about a waiting triggered effect (an optional one, or a mandatory End Phase effect): of its
    controller, who need not hold priority."""
    return msg.code == oc.MSG_SELECT_EFFECTYN or _forced(msg)


def _before_draw(msg: oc.Message) -> bool:
    """Whether the core asks whether to activate a monster's effect "before your normal draw" (6.3.1)."""
    effect = _effect_asked(msg)
    return effect is not None and effect.get("type") == "before_draw"


def _replaces(msg: oc.Message) -> bool:
    """Whether the core asks whether to apply a monster's destruction replacement (6.3.4.3.3)."""
    return _effect_asked(msg) == {"type": "continuous", "effect": "discard_instead"}


def _untargeted(action: dict[str, Any]) -> dict[str, Any]:
    """An action as the core's offer lists it: the target is asked after the activation is chosen, and a
    trigger that is not declined is written without `decline`."""
    out = {k: v for k, v in action.items() if k not in ("target", "player", "observed", "note")}
    if out.get("action") == "trigger" and not out.get("decline"):
        out.pop("decline", None)
    return out


def _card_words(card: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in card.items())


def _unique(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def _words(action: dict[str, Any]) -> str:
    params = ", ".join(f"{k}={v}" for k, v in action.items() if k not in ("action", "player", "observed", "note"))
    return f"{action.get('action')}({params})"


def _drawn_last(f: dict[str, Any]) -> list[int]:
    """A discard's answer: the cards drawn last (the hand-limit discard, 6.3.6, and a discard cost)."""
    cards = f["cards"]
    return sorted(sorted(range(len(cards)), key=lambda i: cards[i]["sequence"])[-f["min"] :])


def _lowest_place(player: int, flag: int) -> tuple[int, int, int]:
    """The answer to MSG_SELECT_PLACE: the lowest free zone of the asking player's (the flag marks the zones
    that may not be chosen: bits 0-6 the player's Monster Zones, 8-12 their Spell & Trap Zones, then the
    opponent's from bit 16)."""
    free = ~flag
    for base, location, count in ((0, oc.LOCATION_MZONE, 5), (8, oc.LOCATION_SZONE, 5), (16, oc.LOCATION_MZONE, 5)):
        for seq in range(count):
            if free & (1 << (base + seq)):
                owner = player if base < 16 else 1 - player
                return owner, location, seq
    raise oc.EngineFailure(f"the core asked for a zone with none free (flag {flag:#x})")


def _unsupported_board(board: dict[str, Any], rules: Rules) -> str | None:
    """Why the core cannot start from this board (it starts every duel at turn 1's Draw Phase, with the
    opening hands drawn and nothing on the field), or None."""
    start = {"turn": 1, "phase": "draw"}
    for key, value in board.items():
        if key in start and value != start[key]:
            return f"the core starts every duel at turn 1's Draw Phase; this board has {key} {value!r}"
        if key == "players":
            for p, pl in enumerate(value):
                for k, v in pl.items():
                    default = {"hand": rules.starting_hand, "lp": rules.starting_lp}.get(k)
                    if k in ("hand", "lp") and v == default:
                        continue
                    if k == "deck" and v == rules.deck_size - rules.starting_hand:
                        continue
                    if v in ([], 0, False, None):
                        continue
                    return f"the core starts every duel with nothing on the field; this board sets players[{p}].{k}"
        elif key not in start and value not in ([], 0, False, None) and key not in ("turn_player", "priority"):
            return f"the core starts every duel at turn 1's Draw Phase; this board sets {key}"
    return None
