"""EDOPro's fork of ygopro-core behind the same adapter: its C API (`OCG_CreateDuel`), its message layouts,
its answers, and its duel flags, which can play the rule sets the reference core cannot (Speed Duel's three
columns, no Standby Phase or Main Phase 2, no hand limit, draw until 5, Normal Summons without a limit, two
0 ATK monsters destroying each other).

    engine = Edopro(rules, library, seed)     the library: --ocgcore PATH, else DUELCHECK_EDOPRO

The decisions and the log's play are the ygopro adapter's (duelcheck/adapters/ygopro.py): this module is the
library under it. Messages are read into the same fields the reference core's are, and the answers are
written in this core's words; with three columns the core blocks its zones 0 and 4 and plays in 1 to 3,
which are the model's zones 0 to 2 (each zone number is moved by one on the way in and out).

Card data and scripts are duelcheck's own (duelcheck/adapters/cards.py): the scripts run unchanged, and
the constants they use are loaded by duelcheck when a duel is created (this core asks for no file but the
card scripts). No file of EDOPro's is read.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Callable, Iterator
from typing import Any

from duelcheck.adapters import cards as catalogue
from duelcheck.adapters import ocgcore as oc
from duelcheck.adapters.ygopro import Unsupported, Ygopro
from duelcheck.errors import InputError
from duelcheck.rules import Rules

__all__ = ["EdoLibrary", "Edopro", "expressible", "library_path"]

# the duel flags (ocgapi_constants.h) for the rules' knobs
DUEL_ATTACK_FIRST_TURN = 0x2
DUEL_PSEUDO_SHUFFLE = 0x10
DUEL_1ST_TURN_DRAW = 0x200
DUEL_NO_STANDBY_PHASE = 0x100000
DUEL_NO_MAIN_PHASE_2 = 0x200000
DUEL_3_COLUMNS_FIELD = 0x400000
DUEL_DRAW_UNTIL_5 = 0x800000
DUEL_NO_HAND_LIMIT = 0x1000000
DUEL_UNLIMITED_SUMMONS = 0x2000000
DUEL_0_ATK_DESTROYED = 0x10000000
DUEL_STORE_ATTACK_REPLAYS = 0x20000000
DUEL_SINGLE_CHAIN_IN_DAMAGE_SUBSTEP = 0x40000000
DUEL_TCG_FAST_EFFECT_IGNITION = 0x400000000
DUEL_INVERTED_QUICK_PRIORITY = 0x4000000
# the present Master Rule's field (Pendulum and Extra Monster Zones): the zones the model uses are the same;
# its fifth flag, a trigger lost when its card moves (Master Rule 2020), is the knob trigger_only_in_location
DUEL_TRIGGER_ONLY_IN_LOCATION = 0x20000
DUEL_MODE_MR5 = 0x800 | 0x2000 | 0x4000 | 0x8000

STATUS_END, STATUS_AWAITING, STATUS_CONTINUE = 0, 1, 2
QUERY_CODE, QUERY_POSITION, QUERY_ATTACK, QUERY_DEFENSE, QUERY_END = 0x1, 0x2, 0x100, 0x200, 0x80000000


def _flag_for(rules: Rules) -> tuple[int, list[str]]:
    """The duel flags for the rules, and the knobs no flag sets (each with its value)."""
    flags = DUEL_PSEUDO_SHUFFLE | DUEL_MODE_MR5
    missing: list[str] = []
    for name, value in sorted(rules.changed().items()):
        if name in ("starting_lp", "starting_hand", "deck_size", "chain_links", "damage_step_activations"):
            continue  # the players' options, the decks dealt, a bound of the model only, the cards' scripts
        flag = {
            ("first_turn_draw", True): DUEL_1ST_TURN_DRAW,
            ("first_turn_battle", True): DUEL_ATTACK_FIRST_TURN,
            ("standby_phase", False): DUEL_NO_STANDBY_PHASE,
            ("main_phase_2", False): DUEL_NO_MAIN_PHASE_2,
            ("draw_until", 5): DUEL_DRAW_UNTIL_5,
            ("hand_limit_enforced", False): DUEL_NO_HAND_LIMIT,
            ("normal_summons_per_turn", 9): DUEL_UNLIMITED_SUMMONS,  # 9: the model's "any number"
            ("zero_atk_battle_destroys", True): DUEL_0_ATK_DESTROYED,
            ("replay_stored", True): DUEL_STORE_ATTACK_REPLAYS,
            ("damage_step_single_chain", True): DUEL_SINGLE_CHAIN_IN_DAMAGE_SUBSTEP,
            ("ignition_priority", True): DUEL_TCG_FAST_EFFECT_IGNITION,
            ("window_first", "opponent"): DUEL_INVERTED_QUICK_PRIORITY,
            ("trigger_only_in_location", True): DUEL_TRIGGER_ONLY_IN_LOCATION,
        }.get((name, value))
        if flag is not None:
            flags |= flag
        elif name in ("monster_zones", "spell_trap_zones") and rules.monster_zones == rules.spell_trap_zones == 3:
            flags |= DUEL_3_COLUMNS_FIELD
        elif name == "changes":
            missing.append(f"the rule changes ({'; '.join(c.words() for c in rules.changes)})")
        else:
            missing.append(f"{name} = {value!r}".replace("'", '"'))
    return flags, missing


def expressible(rules: Rules) -> str | None:
    """Why EDOPro's core cannot play under these rules, or None when it can."""
    _, missing = _flag_for(rules)
    if missing:
        return (
            "EDOPro's core has no duel flag for " + ", ".join(missing) + " (it sets: first_turn_draw, "
            "first_turn_battle, standby_phase, main_phase_2, draw_until = 5, hand_limit_enforced, "
            "normal_summons_per_turn = 9, zero_atk_battle_destroys, replay_stored, ignition_priority, "
            'window_first = "opponent", '
            "damage_step_single_chain, "
            "trigger_only_in_location, "
            "monster_zones = spell_trap_zones = 3, starting_lp, starting_hand, deck_size; "
            "damage_step_activations through the cards' scripts)"
        )
    return None


def library_path(explicit: str | None = None) -> str:
    """The library the user names (--ocgcore, else DUELCHECK_EDOPRO); bad input when neither names a file."""
    return oc.library_path(explicit, "DUELCHECK_EDOPRO", "edopro", "EDOPro's core library")


class CardData(ctypes.Structure):
    _fields_ = (
        ("code", ctypes.c_uint32),
        ("alias", ctypes.c_uint32),
        ("setcodes", ctypes.c_void_p),
        ("type", ctypes.c_uint32),
        ("level", ctypes.c_uint32),
        ("attribute", ctypes.c_uint32),
        ("race", ctypes.c_uint64),
        ("attack", ctypes.c_int32),
        ("defense", ctypes.c_int32),
        ("lscale", ctypes.c_uint32),
        ("rscale", ctypes.c_uint32),
        ("link_marker", ctypes.c_uint32),
    )


class Player(ctypes.Structure):
    _fields_ = (("lp", ctypes.c_uint32), ("start_hand", ctypes.c_uint32), ("draw", ctypes.c_uint32))


CARD_READER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(CardData))
CARD_DONE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(CardData))
SCRIPT_READER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)
LOG_HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int)


class Options(ctypes.Structure):
    _fields_ = (
        ("seed", ctypes.c_uint64 * 4),
        ("flags", ctypes.c_uint64),
        ("team1", Player),
        ("team2", Player),
        ("card_reader", CARD_READER),
        ("payload1", ctypes.c_void_p),
        ("script_reader", SCRIPT_READER),
        ("payload2", ctypes.c_void_p),
        ("log_handler", LOG_HANDLER),
        ("payload3", ctypes.c_void_p),
        ("card_done", CARD_DONE),
        ("payload4", ctypes.c_void_p),
        ("unsafe_libraries", ctypes.c_uint8),
    )


class NewCard(ctypes.Structure):
    _fields_ = (
        ("team", ctypes.c_uint8),
        ("duelist", ctypes.c_uint8),
        ("code", ctypes.c_uint32),
        ("con", ctypes.c_uint8),
        ("loc", ctypes.c_uint32),
        ("seq", ctypes.c_uint32),
        ("pos", ctypes.c_uint32),
    )


class QueryInfo(ctypes.Structure):
    _fields_ = (
        ("flags", ctypes.c_uint32),
        ("con", ctypes.c_uint8),
        ("loc", ctypes.c_uint32),
        ("seq", ctypes.c_uint32),
        ("overlay_seq", ctypes.c_uint32),
    )


_API = (
    "OCG_GetVersion",
    "OCG_CreateDuel",
    "OCG_DestroyDuel",
    "OCG_DuelNewCard",
    "OCG_StartDuel",
    "OCG_DuelProcess",
    "OCG_DuelGetMessage",
    "OCG_DuelSetResponse",
    "OCG_LoadScript",
    "OCG_DuelQueryLocation",
    "OCG_DuelQueryField",
)
CREATION = {
    1: "no duel was returned",
    2: "the duel was not created",
    3: "no card reader",
    4: "no script reader",
    5: "its Lua library cannot unwind C++ (build Lua as C++ with it: docs/engines.md)",
    6: "a seed of zeros",
}


class EdoLibrary:
    """EDOPro's core library, with the same methods as the reference core's (duelcheck/adapters/ocgcore.py
    `Library`), so that the ygopro adapter drives either."""

    def __init__(
        self,
        path: str,
        cards: Callable[[int], oc.Card | None],
        scripts: Callable[[str], bytes | None],
        columns: int = 5,
    ):
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            raise InputError(f"{path}: cannot load it as a shared library ({exc})") from None
        missing = [name for name in _API if not hasattr(lib, name)]
        if missing:
            hint = (
                " (it exports create_duel: the reference core, --engine ygopro)" if hasattr(lib, "create_duel") else ""
            )
            raise InputError(f"{path}: not EDOPro's core C API: it lacks {', '.join(missing)}{hint}")
        major, minor = ctypes.c_int(), ctypes.c_int()
        lib.OCG_GetVersion(ctypes.byref(major), ctypes.byref(minor))
        if major.value != 11:
            raise InputError(f"{path}: EDOPro's core API {major.value}.{minor.value}; this adapter drives 11.x")
        self.lib, self.path = lib, path
        self._cards, self._scripts = cards, scripts
        self.shift = 1 if columns == 3 else 0  # three columns: the core plays in its zones 1 to 3
        self.errors: list[str] = []
        self._duel = ctypes.c_void_p(0)
        self.history = oc.History()
        lib.OCG_CreateDuel.argtypes = (ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(Options))
        lib.OCG_CreateDuel.restype = ctypes.c_int
        lib.OCG_DestroyDuel.argtypes = (ctypes.c_void_p,)
        lib.OCG_DuelNewCard.argtypes = (ctypes.c_void_p, ctypes.POINTER(NewCard))
        lib.OCG_StartDuel.argtypes = (ctypes.c_void_p,)
        lib.OCG_DuelProcess.argtypes = (ctypes.c_void_p,)
        lib.OCG_DuelProcess.restype = ctypes.c_int
        lib.OCG_DuelGetMessage.argtypes = (ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32))
        lib.OCG_DuelGetMessage.restype = ctypes.c_void_p
        lib.OCG_DuelSetResponse.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint32)
        lib.OCG_LoadScript.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_char_p)
        lib.OCG_LoadScript.restype = ctypes.c_int
        lib.OCG_DuelQueryLocation.argtypes = (
            ctypes.c_void_p,
            ctypes.POINTER(ctypes.c_uint32),
            ctypes.POINTER(QueryInfo),
        )
        lib.OCG_DuelQueryLocation.restype = ctypes.c_void_p
        lib.OCG_DuelQueryField.argtypes = (ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32))
        lib.OCG_DuelQueryField.restype = ctypes.c_void_p
        # the callbacks must outlive every call into the library: kept on the instance
        self._card_cb = CARD_READER(self._read_card)
        self._done_cb = CARD_DONE(lambda payload, data: None)
        self._script_cb = SCRIPT_READER(self._read_script)
        self._log_cb = LOG_HANDLER(self._on_log)

    def use_scripts(self, scripts: Callable[[str], bytes | None]) -> None:
        """The script reader for the duels from now on (the cards' scripts follow the rules)."""
        self._scripts = scripts

    # -- callbacks -------------------------------------------------------------------------------------
    def _read_card(self, payload: Any, code: int, data: Any) -> None:
        card = self._cards(code)
        if card is not None:
            d = data.contents
            d.code, d.type, d.level = card.code, card.type, card.level
            d.attribute, d.race = 0x1, 0x1  # EARTH Warrior: the rules the model holds read neither
            d.attack, d.defense = card.attack, card.defense

    def _read_script(self, payload: Any, duel: Any, name: bytes) -> int:
        text = self._scripts(name.decode("utf-8", "replace"))
        if text is None:
            return 0
        return int(self.lib.OCG_LoadScript(ctypes.c_void_p(duel), text, len(text), name))

    def _on_log(self, payload: Any, text: bytes, kind: int) -> None:
        if kind == 0:  # an error: in a script of ours, since every script is ours
            self.errors.append(text.decode("utf-8", "replace"))

    def _check_errors(self) -> None:
        if self.errors:
            raise oc.EngineFailure(f"a card script failed inside the core: {self.errors[0]}")

    # -- a duel ----------------------------------------------------------------------------------------
    def open_duel(self, seed: int, options: int, players: list[tuple[int, int, int]]) -> None:
        self.close()
        self.errors.clear()
        self.history.opened(seed, options, players)
        opts = Options()
        opts.seed[0], opts.seed[1] = seed * 2 + 1, 0x9E3779B97F4A7C15  # never all zeros
        opts.flags = options
        opts.team1, opts.team2 = (Player(*p) for p in players)
        opts.card_reader, opts.script_reader = self._card_cb, self._script_cb
        opts.log_handler, opts.card_done = self._log_cb, self._done_cb
        duel = ctypes.c_void_p(0)
        status = self.lib.OCG_CreateDuel(ctypes.byref(duel), ctypes.byref(opts))
        if status != 0 or not duel.value:
            raise oc.EngineFailure(f"OCG_CreateDuel: {CREATION.get(status, f'status {status}')}")
        self._duel = duel
        constants = self._scripts("constant.lua") or b""
        if not self.lib.OCG_LoadScript(duel, constants, len(constants), b"constant.lua"):
            raise oc.EngineFailure(f"the core would not load duelcheck's constants: {self.errors[:1]}")
        self._check_errors()

    def close(self) -> None:
        if self._duel.value:
            self.lib.OCG_DestroyDuel(self._duel)
            self._duel = ctypes.c_void_p(0)

    def new_card(self, code: int, owner: int, player: int, location: int, sequence: int, position: int) -> None:
        self.history.added.append((code, owner, player, location, sequence, position))
        info = NewCard(owner, 0, code, player, location, sequence, position)
        self.lib.OCG_DuelNewCard(self._duel, ctypes.byref(info))

    def start(self) -> None:
        self.lib.OCG_StartDuel(self._duel)

    def process(self) -> tuple[int, bytes]:
        """One run of the core up to its next messages: (PROCESSOR_END when it has nothing left, the messages)."""
        status = self.lib.OCG_DuelProcess(self._duel)
        self._check_errors()
        length = ctypes.c_uint32(0)
        ptr = self.lib.OCG_DuelGetMessage(self._duel, ctypes.byref(length))
        data = ctypes.string_at(ptr, length.value) if ptr and length.value else b""
        return (oc.PROCESSOR_END if status == STATUS_END else 0), data

    def messages(self, data: bytes) -> Iterator[oc.Message]:
        """The messages of one buffer (each framed by its length), read into the reference core's fields."""
        at = 0
        while at + 4 <= len(data):
            (size,) = struct.unpack_from("<I", data, at)
            body = data[at + 5 : at + 4 + size]
            code = data[at + 4]
            at += 4 + size
            try:
                fields = self._fields(code, body)
            except (struct.error, IndexError):
                raise oc.EngineFailure(f"message {code} from the core is shorter than its layout") from None
            yield oc.Message(code, body, fields)

    def respond_int(self, value: int) -> None:
        self.history.answers.append(("int", value))
        self._respond(struct.pack("<i", value))

    def respond_cards(self, indices: list[int]) -> None:
        self.history.answers.append(("cards", list(indices)))
        self._respond(struct.pack(f"<iI{len(indices)}I", 0, len(indices), *indices))

    def respond_place(self, player: int, location: int, sequence: int) -> None:
        self.history.answers.append(("place", (player, location, sequence)))
        self._respond(bytes([player, location, sequence + self.shift]))

    def branch(self) -> Any:
        """Leave this duel aside and play a second one to the same point (see ocgcore.Library.branch)."""
        saved = (self._duel, self.history)
        self._duel, self.history = ctypes.c_void_p(0), oc.History()
        oc.replay(self, saved[1])
        return saved

    def rejoin(self, saved: Any) -> None:
        self.close()
        self._duel, self.history = saved

    def _respond(self, data: bytes) -> None:
        self.lib.OCG_DuelSetResponse(self._duel, data, len(data))

    # -- queries ---------------------------------------------------------------------------------------
    def _location(self, player: int, location: int, flags: int) -> list[dict[str, int] | None]:
        info = QueryInfo(flags, player, location, 0, 0)
        length = ctypes.c_uint32(0)
        ptr = self.lib.OCG_DuelQueryLocation(self._duel, ctypes.byref(length), ctypes.byref(info))
        raw = ctypes.string_at(ptr, length.value) if ptr and length.value else b""
        out: list[dict[str, int] | None] = []
        at = 4  # the byte count of what follows
        while at + 2 <= len(raw):
            (size,) = struct.unpack_from("<H", raw, at)
            if size == 0:  # an empty slot
                out.append(None)
                at += 2
                continue
            card: dict[str, int] = {}
            while True:
                (size,) = struct.unpack_from("<H", raw, at)
                (flag,) = struct.unpack_from("<I", raw, at + 2)
                value = raw[at + 6 : at + 2 + size]
                at += 2 + size
                if flag == QUERY_END:
                    break
                if flag in (QUERY_CODE, QUERY_POSITION):
                    card["code" if flag == QUERY_CODE else "position"] = struct.unpack("<I", value[:4])[0]
                elif flag in (QUERY_ATTACK, QUERY_DEFENSE):
                    card["atk" if flag == QUERY_ATTACK else "def"] = struct.unpack("<i", value[:4])[0]
            out.append(card)
        return out

    def query_zone(self, player: int, location: int) -> list[dict[str, int] | None]:
        """Each slot of a player's Monster or Spell & Trap Zones: None when empty, else code, position, ATK, DEF."""
        flags = QUERY_CODE | QUERY_POSITION | QUERY_ATTACK | QUERY_DEFENSE
        slots = self._location(player, location, flags)[self.shift : 5 - self.shift]
        for z, slot in enumerate(slots):
            if slot is not None:
                slot["sequence"] = z
        return slots

    def hand_codes(self, player: int) -> list[int]:
        return [c["code"] for c in self._location(player, oc.LOCATION_HAND, QUERY_CODE) if c is not None]

    def field_counts(self) -> list[dict[str, int]]:
        """Each player's LP and the numbers of cards in the deck, hand and Graveyard (OCG_DuelQueryField)."""
        length = ctypes.c_uint32(0)
        ptr = self.lib.OCG_DuelQueryField(self._duel, ctypes.byref(length))
        raw = ctypes.string_at(ptr, length.value)
        at = 4  # the duel's flags
        players = []
        for _ in (0, 1):
            (lp,) = struct.unpack_from("<i", raw, at)
            at += 4
            for _ in range(7 + 8):  # every Monster Zone, then every Spell & Trap Zone (Field, Pendulum)
                at += 6 if raw[at] else 1
            deck, hand, grave, removed = struct.unpack_from("<4I", raw, at)
            at += 24
            players.append({"lp": lp, "deck": deck, "hand": hand, "graveyard": grave, "banished": removed})
        return players

    # -- the messages' fields --------------------------------------------------------------------------
    def _zone(self, location: int, sequence: int) -> int:
        """A zone number in the model's words (three columns: the core's 1 to 3 are the model's 0 to 2)."""
        if self.shift and location in (oc.LOCATION_MZONE, oc.LOCATION_SZONE) and sequence < 5:
            return sequence - self.shift
        return sequence

    def _fields(self, code: int, b: bytes) -> dict[str, Any]:
        """A message's fields in the reference core's names ({} for a message the adapter does not read)."""
        reader = _READERS.get(code)
        return reader(self, b) if reader is not None else {}

    def _entries(self, b: bytes, at: int, layout: str) -> tuple[list[dict[str, int]], int]:
        """A u32 count then entries: 'card' (code, controller, location, u32 sequence), 'repos' (u8 sequence),
        'act' (then a u64 description and a mode), 'attack' (u8 sequence, then whether directly)."""
        (n,) = struct.unpack_from("<I", b, at)
        at += 4
        fmt = {"card": "<IBBI", "repos": "<IBBB", "act": "<IBBIQB", "attack": "<IBBBB"}[layout]
        out = []
        for _ in range(n):
            vals = struct.unpack_from(fmt, b, at)
            at += struct.calcsize(fmt)
            entry = {"code": vals[0], "controller": vals[1], "location": vals[2]}
            entry["sequence"] = self._zone(vals[2], vals[3])
            if layout == "act":
                entry["desc"] = vals[4]
            if layout == "attack":
                entry["direct"] = bool(vals[4])
            out.append(entry)
        return out, at

    def _loc(self, b: bytes, at: int) -> dict[str, int]:
        con, loc, seq, pos = struct.unpack_from("<BBII", b, at)
        return {"controller": con, "location": loc, "sequence": self._zone(loc, seq), "position": pos}


def _idle(lib: EdoLibrary, b: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {"player": b[0]}
    at = 1
    for name, layout in (
        ("summon", "card"),
        ("spsummon", "card"),
        ("reposition", "repos"),
        ("mset", "card"),
        ("sset", "card"),
        ("activate", "act"),
    ):
        out[name], at = lib._entries(b, at, layout)
    out.update(to_bp=bool(b[at]), to_ep=bool(b[at + 1]), shuffle=bool(b[at + 2]))
    return out


def _battle(lib: EdoLibrary, b: bytes) -> dict[str, Any]:
    acts, at = lib._entries(b, 1, "act")
    attack, at = lib._entries(b, at, "attack")
    return {"player": b[0], "activate": acts, "attack": attack, "to_m2": bool(b[at]), "to_ep": bool(b[at + 1])}


def _chain(lib: EdoLibrary, b: bytes) -> dict[str, Any]:
    player, special, forced = b[0], b[1], bool(b[2])
    (n,) = struct.unpack_from("<I", b, 11)
    at, items = 15, []
    for _ in range(n):
        (code,) = struct.unpack_from("<I", b, at)
        loc = lib._loc(b, at + 4)
        (desc,) = struct.unpack_from("<Q", b, at + 14)
        items.append({"code": code, **loc, "forced": forced, "desc": desc})
        at += 23
    return {"player": player, "chains": items, "special": special}


def _select_card(lib: EdoLibrary, b: bytes) -> dict[str, Any]:
    lo, hi, n = struct.unpack_from("<III", b, 2)
    cards = []
    for i in range(n):
        (code,) = struct.unpack_from("<I", b, 14 + 14 * i)
        cards.append({"code": code, **lib._loc(b, 18 + 14 * i)})
    return {"player": b[0], "cancelable": bool(b[1]), "min": lo, "max": hi, "cards": cards}


def _numbers(lib: EdoLibrary, b: bytes) -> dict[str, Any]:
    n = b[1]
    return {"player": b[0], "options": list(struct.unpack_from(f"<{n}Q", b, 2))}


def _place(lib: EdoLibrary, b: bytes) -> dict[str, Any]:
    (flag,) = struct.unpack_from("<I", b, 2)
    if lib.shift:  # three columns: the core's zones 1 to 3 are the model's 0 to 2 (each byte: one zone row)
        flag = sum(((flag >> (8 * k) & 0xFF) >> lib.shift | 0xF8) << (8 * k) for k in range(4))
    return {"player": b[0], "count": b[1], "flag": flag}


_READERS: dict[int, Callable[[EdoLibrary, bytes], dict[str, Any]]] = {
    oc.MSG_WIN: lambda lib, b: {"player": b[0], "reason": b[1]},
    oc.MSG_HINT: lambda lib, b: {"type": b[0], "player": b[1], "data": struct.unpack_from("<Q", b, 2)[0]},
    oc.MSG_SELECT_IDLECMD: _idle,
    oc.MSG_SELECT_BATTLECMD: _battle,
    oc.MSG_SELECT_CHAIN: _chain,
    oc.MSG_SELECT_CARD: _select_card,
    oc.MSG_SELECT_EFFECTYN: lambda lib, b: {
        "player": b[0],
        "code": struct.unpack_from("<I", b, 1)[0],
        # the card's place: controller, location, sequence (in the model's zones: three columns are shifted)
        "sequence": lib._zone(b[6], struct.unpack_from("<I", b, 7)[0]),
        "desc": struct.unpack_from("<Q", b, 15)[0],
    },
    oc.MSG_SELECT_YESNO: lambda lib, b: {"player": b[0], "desc": struct.unpack_from("<Q", b, 1)[0]},
    oc.MSG_SELECT_OPTION: _numbers,
    oc.MSG_ANNOUNCE_NUMBER: _numbers,
    oc.MSG_SELECT_PLACE: _place,
    oc.MSG_SELECT_POSITION: lambda lib, b: {
        "player": b[0],
        "code": struct.unpack_from("<I", b, 1)[0],
        "positions": b[5],
    },
    oc.MSG_SELECT_UNSELECT_CARD: lambda lib, b: {"player": b[0], "finishable": bool(b[1]), "cancelable": bool(b[2])},
    oc.MSG_NEW_TURN: lambda lib, b: {"player": b[0]},
    oc.MSG_NEW_PHASE: lambda lib, b: {"phase": struct.unpack_from("<H", b, 0)[0]},
    oc.MSG_CHAINING: lambda lib, b: {
        "code": struct.unpack_from("<I", b, 0)[0],
        "link": struct.unpack_from("<I", b, 28)[0],
    },
    71: lambda lib, b: {"link": b[0]},  # MSG_CHAINED
    oc.MSG_CHAIN_SOLVING: lambda lib, b: {"link": b[0]},
    oc.MSG_CHAIN_SOLVED: lambda lib, b: {"link": b[0]},
    oc.MSG_CHAIN_NEGATED: lambda lib, b: {"link": b[0]},
    76: lambda lib, b: {"link": b[0]},  # MSG_CHAIN_DISABLED
}


class Edopro(Ygopro):
    """One duel in EDOPro's core: the ygopro adapter's decisions over this library."""

    _edo_library: EdoLibrary | None = None  # shared by every instance in the process

    def _check_rules(self) -> None:
        why = expressible(self.rules)
        if why is not None:
            raise Unsupported(why)

    def _load(self, library: str | None) -> Any:
        path = library_path(library)
        columns = 3 if self.rules.monster_zones == 3 else 5
        lib = Edopro._edo_library
        if lib is None or lib.path != path or lib.shift != (1 if columns == 3 else 0):
            lib = Edopro._edo_library = EdoLibrary(path, catalogue.card_data, catalogue.script, columns)
        lib.use_scripts(catalogue.scripts_for(self.rules))
        return lib

    def _options(self) -> int:
        return _flag_for(self.rules)[0]
