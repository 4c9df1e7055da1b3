"""duelcheck's own rules as an engine for `duelcheck difftest`: the concrete interpreter plus the cards.

The model's hands and decks are counts. To meet an engine that holds cards, this side keeps the cards
each player holds (dealt decks, drawn in order) beside the model state, and offers a card from the hand
only when it is in the hand. Like an engine, it runs by itself through the timings where nobody has a
choice (the normal draw, a pass where nothing can be done, the hand-limit discard of the cards drawn
last), and stops at a decision: a state where the player to act can do something other than end the step.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from pydantic import TypeAdapter, ValidationError

from duelcheck.errors import InputError
from duelcheck.log import COST_NAME, EFFECT_TYPE_NAME, KIND_NAME, NEXT, Action, describe, log_action, moves
from duelcheck.model.cards import ATK_CHANGES, HAND, POINTS, TARGETED, Cost, Effect, Kind, MonsterEffect
from duelcheck.model.state import State
from duelcheck.model.system import NoHistory, TransitionSystem
from duelcheck.rules import Rules, rules_from_mapping

_ACTION: TypeAdapter[Any] = TypeAdapter(Action)
FROM_HAND = ("normal_summon", "set_monster")  # the actions that play a card of the hand
SKIPPED = ("pass", "end_steps", "normal_draw", "discard", "resolve", "set_spell_trap", *FROM_HAND)
FORCED_LIMIT = 500  # steps run through without a decision before the rules are taken to be stuck
END_STEP = {"action": "end_step"}
PASS = {"action": "pass"}


def key(action: dict[str, Any]) -> str:
    """An action as a sortable, hashable text (offers are compared as sets of these)."""
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


class ModelEngine:
    """The rules of the model, dealt concrete decks, behind the difftest engine protocol."""

    exact_reasons = True

    def __init__(self, rules: dict[str, Any] | Rules | None = None):
        self.rules = rules if isinstance(rules, Rules) else rules_from_mapping(dict(rules or {}), "rules")
        self.ts = TransitionSystem(self.rules, NoHistory())
        self.state: State = self.ts.init()
        self.decks: list[list[dict[str, Any]]] = [[], []]
        self.hands: list[list[dict[str, Any]]] = [[], []]
        self.dealt: list[list[dict[str, Any]]] | None = None
        self.steps: list[tuple[str, dict[str, int], State]] = []
        self.then: str | None = None  # where the turn goes, kept for the opponent's pass (_defer_end)
        # the opponent has just passed the response window: the end of the phase next gives them no second
        # chance with nothing done since (an engine's granularity, docs/engine-findings.md F3)
        self.declined = False
        # what a resolution brings (a Special Summon's monster, an ATK change) is the resolving player's choice,
        # made by the card, not a decision of the rules: chosen here (`_resolution`), seeded by `resolution_seed`
        # and the resolutions made so far, or taken in order from `expected` (the other side's, `resolutions`)
        self.resolution_seed = 0
        self.expected: list[dict[str, Any]] = []
        self.resolved: list[dict[str, Any]] = []  # each resolution made, as a duel-log `resolve`
        self.cut: str | None = None  # why the play cannot be compared on (the rules' side cannot take it on)

    def fork(self) -> ModelEngine:
        """A copy that can be played on without changing this one (states are values; the lists are copied)."""
        other = copy.copy(self)
        other.decks = [list(d) for d in self.decks]
        other.hands = [list(h) for h in self.hands]
        other.steps = list(self.steps)
        other.expected = list(self.expected)
        other.resolved = list(self.resolved)
        return other

    def deal(self, decks: list[list[dict[str, Any]]]) -> None:
        self.dealt = [list(d) for d in decks]

    def reset(self, board: dict[str, Any] | None = None, log: dict[str, Any] | None = None) -> None:
        if board:
            raise NotImplementedError("the model engine starts at the start of the duel only")
        r = self.rules
        decks = self.dealt or [[{"atk": 0, "def": 0}] * r.deck_size for _ in (0, 1)]
        self.state = self.ts.init()
        self.hands = [list(d[: r.starting_hand]) for d in decks]
        self.decks = [list(d[r.starting_hand :]) for d in decks]
        self.steps = [("init", {}, self.state)]
        self.then = None
        self.declined = False
        self.expected, self.resolved, self.cut = [], [], None
        self._run_forced()

    def resolutions(self, entries: list[dict[str, Any]]) -> None:
        """The resolutions the other side made (duel-log `resolve` actions, in order): this side's next
        resolutions bring the same."""
        self.expected += [dict(e) for e in entries]

    # -- decisions ---------------------------------------------------------------------------------------
    def offers(self) -> list[dict[str, Any]]:
        """What the player to act may do here, as duel-log actions, cards restricted to the hand."""
        s = self.state
        if s.g("winner"):
            return []
        window = self._window(s)
        if window is not None:  # the opponent's response window comes first, as an engine asks it
            self.state = window
            try:
                return self.offers()
            finally:
                self.state = s
        out: dict[str, dict[str, Any]] = {}
        tried_hand: set[str] = set()
        plain_end: Any = None
        for name, params in self._enabled_not_from_hand(s):
            if name == "end_step" and params.get("choice"):
                # a choice that changes nothing (Main Phase 2 named where it follows anyway) is no choice
                if plain_end is None:
                    got = self.ts.apply(s, "end_step", {"choice": 0})
                    plain_end = got.state.v if got.ok and got.state is not None else {}
                got = self.ts.apply(s, name, params)
                if got.ok and got.state is not None and got.state.v == plain_end:
                    continue
            post = None
            if name in ("trigger", "resolve"):  # their words need the state after (a trigger's target, a summon)
                got = self.ts.apply(s, name, params)
                post = got.state if got.ok else None
            entry = log_action(s, name, params, post)
            out[key(entry)] = entry
        p = s.g("prio")
        for card in self.hands[p]:
            for entry in _hand_actions(card):
                k = key(entry)
                if k in tried_hand:
                    continue
                tried_hand.add(k)
                if self._legal(entry):
                    out[k] = entry
        # a chance to act (also the turn player's in a response window: Goat's ignition priority): the choices are
        # the activations and passing
        if not self._open(s) or s.g("window"):
            out = {k: a for k, a in out.items() if a["action"] != "end_step"}
            if out and self._legal({**PASS, **({"then": self.then} if self.then else {})}):
                out[key(PASS)] = dict(PASS)
        return [out[k] for k in sorted(out)]

    @staticmethod
    def _open(s: State) -> bool:
        """The turn player's open game state in a Main Phase or the Battle Step, where an engine asks for the
        next action or the end of the phase or step (elsewhere it asks for an activation or a pass)."""
        from duelcheck.model.rules import open_game_state_phase

        if s.g("prio") != s.tp or s.g("passed") or s.g("chain_len") or s.g("resolving"):
            return False
        return bool(open_game_state_phase(s))

    def decision(self) -> State:
        """The state of the decision the player to act faces: the opponent's in an open response window."""
        return self._window(self.state) or self.state

    def _window(self, s: State) -> State | None:
        """The state where the opponent holds priority in the response window (6.3, `response_window`: the turn
        player passed it to them), when a window is open in the turn player's open game state and the opponent
        can do something there; else None. An engine asks the opponent there before the turn player's next
        action; the rules let the turn player pass or activate at speed 2 there first: the turn player's pass is
        taken here (under Goat's `ignition_priority`, not when they can activate an Ignition effect first)."""
        if not s.g("window") or not self._open(s):
            return None
        if self.rules.ignition_priority and self._ignition_first(s):
            return None  # Goat's ignition priority: the turn player's Ignition effect first, as the engine asks
        return self._other_can_act_after_pass(s)

    def _ignition_first(self, s: State) -> bool:
        """Whether the turn player can activate an Ignition effect in the response window (Goat format)."""
        return any(name == "activate" and params.get("kind") == Kind.IGNITION for name, params in self.ts.enabled(s))

    def _other_can_act_after_pass(self, s: State) -> State | None:
        """The state after the pass of the player holding priority in `s`, when the other player can do
        something there besides passing; else None."""
        got = self.ts.apply(s, "pass", {"choice": 0})
        if not got.ok or got.state is None:
            return None
        saved = self.state
        self.state = got.state
        try:
            acts = [a for a in self.offers() if a["action"] != "pass"]
        finally:
            self.state = saved
        return got.state if acts else None

    def _enabled_not_from_hand(self, s: State) -> Any:
        """The enabled action instances that play no card from the hand and are not passes (a pass, a draw and
        the hand-limit discard are taken by the rules, not chosen), in the interpreter's order; the candidates
        that would play a card from the hand are not tried (cards are tried one by one, as held)."""
        from duelcheck.model.rules import activations

        return self.ts.enabled(s, SKIPPED, {"activate": lambda st: activations(st, from_hand=False)})

    @staticmethod
    def _moves(parsed: Any, state: State) -> list[Any]:
        """The rules' steps an action stands for. A pass before the normal draw, where the turn player may
        start a chain with a "before the draw" effect, is an engine's "no": the turn player declines and draws
        (6.3.1)."""
        from duelcheck.log import Move
        from duelcheck.model.rules import draw_pending

        if parsed.action == "pass" and draw_pending(state) and not state.g("chain_len"):
            return [Move("normal_draw", {})]
        return list(moves(parsed))

    def _legal(self, entry: dict[str, Any]) -> bool:
        state = self.state
        for mv in self._moves(_ACTION.validate_python(entry), state):
            got = self.ts.apply(state, mv.name, mv.params)
            if not got.ok or got.state is None:
                return False
            state = got.state
        return True

    def refusal(self, entry: dict[str, Any]) -> str | None:
        """Why the rules refuse an action here (None: they allow it)."""
        if entry == PASS and self.then is not None:
            entry = {**PASS, "then": self.then}
        try:
            parsed = _ACTION.validate_python(entry)
        except ValidationError as exc:
            return f"not a duel-log action ({exc.errors()[0]['msg']})"
        state = self.decision()
        for mv in self._moves(parsed, state):
            got = self.ts.apply(state, mv.name, mv.params)
            if not got.ok or got.state is None:
                return got.reason or "refused"
            state = got.state
        if not self._held(entry, self.decision()):
            return "the card is not in the hand"
        return None

    def _held(self, entry: dict[str, Any], state: State) -> bool:
        card = _card_of_entry(entry)
        return card is None or card in self.hands[state.g("prio")]

    # -- taking an action ---------------------------------------------------------------------------------
    def apply(self, action: dict[str, Any]) -> dict[str, Any] | str:
        entry = {k: v for k, v in action.items() if k not in ("observed", "note")}
        try:
            parsed = _ACTION.validate_python(entry)
        except ValidationError as exc:
            raise InputError(f"action: not a duel-log action ({exc.errors()[0]['msg']})") from None
        window = self._window(self.state)
        if not self._held(entry, window or self.state):
            return "the card is not in the hand"
        declined = self.declined
        # the opponent passes the response window: shown as theirs (`window`), or after the turn player passed it
        # themselves (Goat's ignition priority asks the turn player first)
        closes = bool(self.state.g("window")) and self.state.g("prio") != self.state.tp
        self.declined = entry.get("action") == "pass" and (window is not None or closes)
        if window is not None:  # the opponent's decision in the response window
            self._step("pass", {"choice": 0})
        elif self.state.g("window") and entry.get("action") == "end_step":
            self._step("pass", {"choice": 0})  # a window the opponent had nothing for: both pass it first
            self._step("pass", {"choice": 0})
        if entry.get("action") == "end_step" and not declined and self._defer_end(entry):
            return self.observe()
        if entry.get("action") == "pass" and self.then is not None:
            parsed = _ACTION.validate_python({**entry, "then": self.then})
        self.then = None
        for mv in self._moves(parsed, self.state):
            why = self._step(mv.name, mv.params)
            if why is not None:
                return why
        self._run_forced()
        return self.observe()

    def _defer_end(self, entry: dict[str, Any]) -> bool:
        """An engine's end of a phase is the turn player's pass, then the opponent's last chance to act: when
        the opponent can act after the first pass, the step stops there (the choice of where the turn goes is
        kept for the opponent's pass, which the rules take as the second pass)."""
        if self.state.g("chain_len") or self._other_can_act_after_pass(self.state) is None:
            return False
        self._step("pass", {"choice": 0})
        self.then = entry.get("then")
        return True

    def _step(self, name: str, params: dict[str, int]) -> str | None:
        pre = self.state
        got = self.ts.apply(pre, name, params)
        if not got.ok or got.state is None:
            return got.reason or "refused"
        post = got.state
        actor = pre.g("prio")
        played = _card_played(name, params)
        if name == "resolve":
            owner = pre.g("c_owner", pre.g("chain_len") - 1)
            self.resolved.append(log_action(pre, name, params, post))
            if post.g("hand", owner) < pre.g("hand", owner):  # a Special Summon: the monster leaves the hand
                actor, played = owner, {"atk": params["atk"] * POINTS, "def": params["defv"] * POINTS}
        if played is not None:
            self.hands[actor].remove(played)
        for p in (0, 1):  # a draw takes the top card of the deck; a discard the card drawn last
            grew = post.g("hand", p) - pre.g("hand", p) + (1 if played is not None and p == actor else 0)
            for _ in range(max(0, grew)):
                if self.decks[p]:
                    self.hands[p].append(self.decks[p].pop(0))
            for _ in range(max(0, -grew)):
                if self.hands[p]:
                    self.hands[p].pop()
        self.state = post
        self.steps.append((name, dict(params), post))
        return None

    def _run_forced(self) -> None:
        """Run through the timings where nobody has a choice, up to the next decision or the end of the duel."""
        for _ in range(FORCED_LIMIT):
            s = self.state
            if s.g("winner"):
                return
            if self._pass_unused_window():
                continue
            offers = self.offers()
            if offers and offers != [END_STEP]:
                return
            if self.declined and self._open(s):  # no second chance just after the window was passed (F3)
                self.declined = False
                if self._step("end_step", {"choice": NEXT[self.then] if self.then else 0}) is None:
                    self.then = None
                    continue
            for name in ("normal_draw", "discard", "resolve", "pass"):
                params = {"choice": 0} if name in ("end_step", "pass") else {}
                if name == "pass" and self.then is not None:
                    params = {"choice": NEXT[self.then]}
                if name == "resolve" and s.g("resolving") and s.g("chain_len"):
                    chosen = self._resolution(s)
                    if chosen is None:
                        return  # cut: `self.cut` says why
                    params = chosen
                if self._step(name, params) is None:
                    if name == "pass":
                        self.then = None
                    break
            else:
                return  # nothing can be done: a deadlock, which the rules' own properties look for
        raise InputError(f"the rules ran {FORCED_LIMIT} steps with no decision")

    def _pass_unused_window(self) -> bool:
        """A response window (6.3) in which the opponent can do nothing but pass is passed by both, as an engine
        asks nobody there and goes on to the turn player's next action (a Quick-Play Spell the turn player
        could activate in the window is activated there as well): the turn player's pass, then the opponent's.
        True when the passes were taken."""
        s = self.state
        if s.g("window") and s.g("passed") and s.g("prio") == s.tp and not s.g("chain_len"):
            # the opponent, who decided first (window_first = "opponent", Rush Duel), passed: an engine goes on to
            # the turn player's next action, where their speed-2 cards are offered too: the turn player's pass
            # closes the window
            return self._step("pass", {"choice": 0}) is None
        if not s.g("window") or not self._open(s) or self._other_can_act_after_pass(s) is not None:
            return False
        if self.rules.ignition_priority and self._ignition_first(s):
            return False  # Goat's ignition priority: the turn player is asked first, for their Ignition effect
        return all(self._step("pass", {"choice": 0}) is None for _ in (0, 1))  # in order; the first refusal stops

    def _resolution(self, s: State) -> dict[str, int] | None:
        """The parameters of the next resolution: the other side's when told (`expected`), else nothing when
        the link brings no choice, else the card's choice: the first Normal Monster of the owner's hand for a
        Special Summon (in Attack Position), a seeded one of the rules' ATK changes. None (and `cut` set) when
        the rules would summon a card the hand holds as no Normal Monster (the model's hand is a count: any
        card held becomes the monster; a card summons only monsters)."""
        if self.expected:
            entry = self.expected.pop(0)
            told = [mv for mv in moves(_ACTION.validate_python(entry)) if mv.name == "resolve"]
            return dict(told[0].params) if told else {}
        i = s.g("chain_len") - 1
        eff, owner = Effect(s.g("c_eff", i)), s.g("c_owner", i)
        got = self.ts.apply(s, "resolve", {})
        if got.ok and got.state is not None and got.state.g("hand", owner) == s.g("hand", owner):
            return {}  # nothing to choose: no monster summoned, no ATK changed
        if eff == Effect.SPECIAL_SUMMON:
            monster = next((c for c in self.hands[owner] if "kind" not in c and not c.get("effect")), None)
            if monster is None:
                self.cut = "a Special Summon from a hand that holds no Normal Monster"
                return None
            return {"atk": monster["atk"] // POINTS, "defv": monster["def"] // POINTS, "pos": 0}
        if eff == Effect.CHANGE_ATK:
            rng = random.Random(f"resolution:{self.resolution_seed}:{len(self.resolved)}")
            return {"amount": rng.choice(ATK_CHANGES)}
        return {}

    def observe(self) -> dict[str, Any]:
        return describe(self.decision())

    def over(self) -> bool:
        return bool(self.state.g("winner"))


# every target an activation from the hand could name (the rules keep the legal ones)
TARGETS = [
    {"player": p, "area": area, "zone": z} for p in (0, 1) for area in ("monster", "spell_trap") for z in range(5)
]


def _hand_actions(card: dict[str, Any]) -> list[dict[str, Any]]:
    """The actions that play a card from the hand, in the duel-log format's words (an activation of a card
    that targets: one per target it could name)."""
    if "kind" not in card:
        return [{"action": name, **card} for name in FROM_HAND]
    spec = {
        "kind": card["kind"],
        "effect": card["effect"],
        **({"cost": card["cost"]} if card["cost"] != "none" else {}),
    }
    out = [{"action": "set_spell_trap", **spec}]
    if card["kind"].endswith("_spell"):
        activate = {"action": "activate", "from": "hand", **spec}
        if Effect[card["effect"].upper()] in TARGETED:
            out += [{**activate, "target": t} for t in TARGETS]
        else:
            out.append(activate)
    return out


def _card_of_entry(entry: dict[str, Any]) -> dict[str, Any] | None:
    """The card of the hand a log action plays (None: it plays none)."""
    name = entry.get("action")
    if name in FROM_HAND:
        card = {"atk": entry.get("atk"), "def": entry.get("def")}
        return {**card, "effect": entry["effect"]} if entry.get("effect") else card
    if name == "set_spell_trap" or (name == "activate" and entry.get("from") == "hand"):
        return {"kind": entry.get("kind"), "effect": entry.get("effect"), "cost": entry.get("cost", "none")}
    return None


def _card_played(name: str, params: dict[str, int]) -> dict[str, Any] | None:
    """The card of the hand a model step plays (None: it plays none)."""
    if name in FROM_HAND:
        card: dict[str, Any] = {"atk": params["atk"] * 100, "def": params["defv"] * 100}
        if params.get("mkind"):
            word = EFFECT_TYPE_NAME[MonsterEffect(params["mkind"])]
            card["effect"] = {"type": word, "effect": Effect(params["eff"]).name.lower()}
        return card
    if name == "set_spell_trap" or (name == "activate" and params.get("zone") == HAND):
        kind = Kind(params["kind"])
        return {
            "kind": KIND_NAME[kind],
            "effect": Effect(params["eff"]).name.lower(),
            "cost": COST_NAME[Cost(params["cost"])],
        }
    return None
