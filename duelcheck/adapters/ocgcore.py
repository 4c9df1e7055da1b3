"""ygopro-core (the `ocgcore` library) through ctypes: loading, the host callbacks, the message stream.

Nothing of ygopro's code or scripts is here: the library is one the user builds from its public source and
names (`DUELCHECK_OCGCORE` or `--ocgcore`), card data comes through the card reader callback, and every
Lua script the core asks for is written by duelcheck (duelcheck/adapters/scripts.py). The numbers below
(message codes and layouts, locations, positions, phases, query flags) are the core's C API, read from its
public headers; they are facts of an interface, not code.

One library per process: the core's reader callbacks are process-wide, so a process drives one duel at a
time. `duelcheck difftest` and the `exec:` protocol run the engine in a child process, so that a crash or a
hang inside the library ends that process, not duelcheck.
"""

from __future__ import annotations

import ctypes
import os
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duelcheck.errors import InputError


class EngineFailure(Exception):
    """The engine misbehaved (a script error, a message that cannot be read, a crash): exit 4, not a verdict."""


# -- the C API's numbers (ocgapi.h, common.h) --------------------------------------------------------
LOCATION_DECK, LOCATION_HAND, LOCATION_MZONE, LOCATION_SZONE = 0x01, 0x02, 0x04, 0x08
LOCATION_GRAVE, LOCATION_REMOVED, LOCATION_EXTRA = 0x10, 0x20, 0x40
POS_FACEUP_ATTACK, POS_FACEDOWN_ATTACK, POS_FACEUP_DEFENSE, POS_FACEDOWN_DEFENSE = 0x1, 0x2, 0x4, 0x8
POS_FACEUP = POS_FACEUP_ATTACK | POS_FACEUP_DEFENSE
POS_DEFENSE = POS_FACEUP_DEFENSE | POS_FACEDOWN_DEFENSE

PHASE_DRAW, PHASE_STANDBY, PHASE_MAIN1, PHASE_BATTLE_START = 0x01, 0x02, 0x04, 0x08
PHASE_BATTLE_STEP, PHASE_DAMAGE, PHASE_DAMAGE_CAL, PHASE_BATTLE = 0x10, 0x20, 0x40, 0x80
PHASE_MAIN2, PHASE_END = 0x100, 0x200

DUEL_ATTACK_FIRST_TURN = 0x02
DUEL_PSEUDO_SHUFFLE = 0x10

TYPE_MONSTER, TYPE_SPELL, TYPE_TRAP, TYPE_NORMAL, TYPE_EFFECT = 0x1, 0x2, 0x4, 0x10, 0x20
TYPE_FLIP, TYPE_QUICKPLAY, TYPE_CONTINUOUS, TYPE_EQUIP, TYPE_FIELD = 0x200000, 0x10000, 0x20000, 0x40000, 0x80000
TYPE_COUNTER, TYPE_RITUAL = 0x100000, 0x80

QUERY_CODE, QUERY_POSITION, QUERY_ATTACK, QUERY_DEFENSE = 0x1, 0x2, 0x100, 0x200

# process()'s result: the length of the buffer in the low 16 bits, then these flags (ocgapi.cpp, field.h)
PROCESSOR_FLAG = 0xF000_0000
PROCESSOR_WAITING = 0x1000_0000
PROCESSOR_END = 0x2000_0000

# messages (common.h)
MSG_RETRY, MSG_HINT, MSG_WIN = 1, 2, 5
MSG_SELECT_BATTLECMD, MSG_SELECT_IDLECMD, MSG_SELECT_EFFECTYN, MSG_SELECT_YESNO = 10, 11, 12, 13
MSG_SELECT_OPTION, MSG_SELECT_CARD, MSG_SELECT_CHAIN, MSG_SELECT_PLACE, MSG_SELECT_POSITION = 14, 15, 16, 18, 19
MSG_SELECT_TRIBUTE, MSG_SELECT_COUNTER, MSG_SELECT_SUM, MSG_SELECT_DISFIELD = 20, 22, 23, 24
MSG_SORT_CARD, MSG_SELECT_UNSELECT_CARD = 25, 26
MSG_ANNOUNCE_NUMBER = 143
MSG_NEW_TURN, MSG_NEW_PHASE, MSG_DRAW, MSG_DAMAGE, MSG_LPUPDATE = 40, 41, 90, 91, 94
MSG_ATTACK, MSG_BATTLE, MSG_ATTACK_DISABLED, MSG_DAMAGE_STEP_START, MSG_DAMAGE_STEP_END = 110, 111, 112, 113, 114
MSG_CHAINING, MSG_CHAIN_SOLVING, MSG_CHAIN_SOLVED, MSG_CHAIN_END, MSG_CHAIN_NEGATED = 70, 72, 73, 74, 75

SELECTIONS = frozenset(
    (
        MSG_SELECT_BATTLECMD,
        MSG_SELECT_IDLECMD,
        MSG_SELECT_EFFECTYN,
        MSG_SELECT_YESNO,
        MSG_SELECT_OPTION,
        MSG_SELECT_CARD,
        MSG_SELECT_CHAIN,
        MSG_SELECT_PLACE,
        MSG_SELECT_POSITION,
        MSG_SELECT_TRIBUTE,
        MSG_SELECT_COUNTER,
        MSG_SELECT_SUM,
        MSG_SELECT_DISFIELD,
        MSG_ANNOUNCE_NUMBER,
        MSG_SORT_CARD,
        MSG_SELECT_UNSELECT_CARD,
    )
)


class CardData(ctypes.Structure):
    """card_data (card_data.h)."""

    _fields_ = (
        ("code", ctypes.c_uint32),
        ("alias", ctypes.c_uint32),
        ("setcode", ctypes.c_uint16 * 16),
        ("type", ctypes.c_uint32),
        ("level", ctypes.c_uint32),
        ("attribute", ctypes.c_uint32),
        ("race", ctypes.c_uint32),
        ("attack", ctypes.c_int32),
        ("defense", ctypes.c_int32),
        ("lscale", ctypes.c_uint32),
        ("rscale", ctypes.c_uint32),
        ("link_marker", ctypes.c_uint32),
        ("rule_code", ctypes.c_uint32),
    )


SCRIPT_READER = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int))
CARD_READER = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_uint32, ctypes.POINTER(CardData))
MESSAGE_HANDLER = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p, ctypes.c_uint32)

_API = (
    "set_script_reader",
    "set_card_reader",
    "set_message_handler",
    "create_duel",
    "start_duel",
    "end_duel",
    "set_player_info",
    "get_log_message",
    "get_message",
    "process",
    "new_card",
    "query_field_card",
    "query_field_info",
    "set_responsei",
    "set_responseb",
)


@dataclass(frozen=True)
class Card:
    """What the card reader answers for one code: the fields of card_data the rules read."""

    code: int
    type: int
    level: int = 0
    attack: int = 0
    defense: int = 0


@dataclass
class History:
    """How a duel was opened and every answer given in it since: enough to play it again to the same point."""

    opening: tuple[int, int, list[tuple[int, int, int]]] = (0, 0, [])
    added: list[tuple[int, int, int, int, int, int]] = field(default_factory=list)
    answers: list[tuple[str, Any]] = field(default_factory=list)

    def opened(self, seed: int, options: int, players: list[tuple[int, int, int]]) -> None:
        self.opening = (seed, options, list(players))
        self.added, self.answers = [], []


def replay(lib: Any, history: History) -> None:
    """Open a duel in `lib` and play it as `history` says: the same cards, each answer at its question."""
    lib.open_duel(*history.opening)
    for card in history.added:
        lib.new_card(*card)
    lib.start()
    for kind, value in history.answers:
        if next_selection(lib) is None:
            raise EngineFailure("the core ended a duel replayed to the same point earlier than the first time")
        {"int": lib.respond_int, "cards": lib.respond_cards, "place": lambda v: lib.respond_place(*v)}[kind](value)


def next_selection(lib: Any) -> tuple[Message, list[Message]] | None:
    """Run the core to its next question: the question and every message written on the way (None: the duel
    ended)."""
    seen: list[Message] = []
    for _ in range(10_000):
        flags, data = lib.process()
        batch = list(lib.messages(data))
        seen += batch
        asked = [m for m in batch if m.code in SELECTIONS]
        if asked:
            return asked[-1], seen
        if flags & PROCESSOR_END or any(m.code == MSG_WIN for m in batch):
            return None
    raise EngineFailure("the core ran 10,000 times without asking anything")


@dataclass
class Message:
    """One message of the stream: its code, its bytes (after the code), and the fields read from them."""

    code: int
    body: bytes
    fields: dict[str, Any] = field(default_factory=dict)


def library_path(
    explicit: str | None = None,
    env: str = "DUELCHECK_OCGCORE",
    engine: str = "ygopro",
    what: str = "the ygopro-core library",
) -> str:
    """The library the user names (--ocgcore, else the variable `env`); bad input when neither names a file."""
    path = explicit or os.environ.get(env)
    if not path:
        raise InputError(
            f"--engine {engine}: no {what.removeprefix('the ')} named: set {env} or pass --ocgcore PATH "
            "(docs/engines.md says how to build it)"
        )
    if not Path(path).is_file():
        raise InputError(f"{path}: no such file (expected {what}, libocgcore.so)")
    return path


class Library:
    """The loaded library with its callbacks installed. `cards` and `scripts` answer the core's readers."""

    def __init__(self, path: str, cards: Callable[[int], Card | None], scripts: Callable[[str], bytes | None]):
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            raise InputError(f"{path}: cannot load it as a shared library ({exc})") from None
        missing = [name for name in _API if not hasattr(lib, name)]
        if missing:
            hint = ""
            if hasattr(lib, "OCG_CreateDuel"):
                hint = " (it exports OCG_CreateDuel: the EDOPro fork's API, which this adapter does not drive)"
            raise InputError(
                f"{path}: not the ygopro-core C API this adapter drives: it lacks {', '.join(missing)}{hint}"
            )
        self.lib = lib
        self.path = path
        self._cards = cards
        self._scripts = scripts
        self._buffers: dict[str, ctypes.Array[ctypes.c_char]] = {}
        self.errors: list[str] = []
        self._pduel = 0
        self._options = 0
        self.history = History()
        lib.create_duel.restype = ctypes.c_void_p
        lib.create_duel.argtypes = (ctypes.c_uint64,)  # uint_fast32_t: 8 bytes on x86-64 Linux
        lib.start_duel.argtypes = (ctypes.c_void_p, ctypes.c_uint32)
        lib.end_duel.argtypes = (ctypes.c_void_p,)
        lib.set_player_info.argtypes = (ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32)
        lib.get_log_message.argtypes = (ctypes.c_void_p, ctypes.c_char_p)
        lib.get_message.argtypes = (ctypes.c_void_p, ctypes.c_char_p)
        lib.get_message.restype = ctypes.c_int32
        lib.process.argtypes = (ctypes.c_void_p,)
        lib.process.restype = ctypes.c_uint32
        lib.new_card.argtypes = (
            ctypes.c_void_p,
            ctypes.c_uint32,
            ctypes.c_uint8,
            ctypes.c_uint8,
            ctypes.c_uint8,
            ctypes.c_uint8,
            ctypes.c_uint8,
        )
        lib.query_field_card.argtypes = (
            ctypes.c_void_p,
            ctypes.c_uint8,
            ctypes.c_uint8,
            ctypes.c_uint32,
            ctypes.c_char_p,
            ctypes.c_int32,
        )
        lib.query_field_card.restype = ctypes.c_int32
        lib.query_field_info.argtypes = (ctypes.c_void_p, ctypes.c_char_p)
        lib.query_field_info.restype = ctypes.c_int32
        lib.set_responsei.argtypes = (ctypes.c_void_p, ctypes.c_int32)
        lib.set_responseb.argtypes = (ctypes.c_void_p, ctypes.c_char_p)
        # the callbacks must outlive every call into the library: kept on the instance
        self._script_cb = SCRIPT_READER(self._read_script)
        self._card_cb = CARD_READER(self._read_card)
        self._message_cb = MESSAGE_HANDLER(self._on_message)
        lib.set_script_reader(self._script_cb)
        lib.set_card_reader(self._card_cb)
        lib.set_message_handler(self._message_cb)

    def use_scripts(self, scripts: Callable[[str], bytes | None]) -> None:
        """The script reader for the duels from now on (the cards' scripts follow the rules)."""
        if scripts is not self._scripts:
            self._scripts = scripts
            self._buffers.clear()

    # -- callbacks -------------------------------------------------------------------------------------
    def _read_script(self, name: bytes, length: Any) -> int:
        text = self._scripts(name.decode("utf-8", "replace"))
        if text is None:
            return 0
        key = name.decode("utf-8", "replace")
        buf = self._buffers.get(key)
        if buf is None:
            buf = ctypes.create_string_buffer(text, len(text) + 1)
            self._buffers[key] = buf
        length[0] = len(text)
        return ctypes.addressof(buf)

    def _read_card(self, code: int, data: Any) -> int:
        card = self._cards(code)
        ctypes.memset(data, 0, ctypes.sizeof(CardData))
        if card is not None:
            d = data.contents
            d.code, d.type, d.level = card.code, card.type, card.level
            d.attribute, d.race = 0x1, 0x1  # EARTH Warrior: the rules the model holds read neither
            d.attack, d.defense = card.attack, card.defense
        return 0

    def _on_message(self, pduel: int, kind: int) -> int:
        buf = ctypes.create_string_buffer(1024)
        self.lib.get_log_message(ctypes.c_void_p(pduel), buf)
        text = buf.value.decode("utf-8", "replace")
        if kind == 1:  # a script error: ours, since every script is ours
            self.errors.append(text)
        return 0

    # -- a duel ----------------------------------------------------------------------------------------
    def create(self, seed: int) -> None:
        self.close()
        self.errors.clear()
        self._pduel = int(self.lib.create_duel(seed & 0xFFFF_FFFF) or 0)
        if not self._pduel:
            raise EngineFailure("create_duel returned no duel")

    def close(self) -> None:
        if self._pduel:
            self.lib.end_duel(ctypes.c_void_p(self._pduel))
            self._pduel = 0

    @property
    def duel(self) -> ctypes.c_void_p:
        return ctypes.c_void_p(self._pduel)

    def open_duel(self, seed: int, options: int, players: list[tuple[int, int, int]]) -> None:
        """A new duel: its seed, the options `start` passes on, each player's LP, opening hand and draw."""
        self.create(seed)
        self._options = options
        self.history.opened(seed, options, players)
        for p, (lp, hand, draw) in enumerate(players):
            self.player_info(p, lp, hand, draw)

    def player_info(self, player: int, lp: int, start_hand: int, draw_count: int) -> None:
        self.lib.set_player_info(self.duel, player, lp, start_hand, draw_count)

    def new_card(self, code: int, owner: int, player: int, location: int, sequence: int, position: int) -> None:
        self.history.added.append((code, owner, player, location, sequence, position))
        self.lib.new_card(self.duel, code, owner, player, location, sequence, position)

    def start(self) -> None:
        self.lib.start_duel(self.duel, self._options)

    def messages(self, data: bytes) -> Iterator[Message]:
        return split_messages(data)

    def process(self) -> tuple[int, bytes]:
        """One run of the core up to its next message or request: (flags, the messages written)."""
        result = self.lib.process(self.duel)
        self._check_errors()
        length = result & 0xFFFF
        data = b""
        if length:
            buf = ctypes.create_string_buffer(max(length, 1) + 64)
            got = self.lib.get_message(self.duel, buf)
            data = buf.raw[:got]
        return result & PROCESSOR_FLAG, data

    def respond_int(self, value: int) -> None:
        self.history.answers.append(("int", value))
        self.lib.set_responsei(self.duel, ctypes.c_int32(value).value)

    def respond_bytes(self, data: bytes) -> None:
        buf = ctypes.create_string_buffer(bytes(data), max(256, len(data)))  # the core copies 256 bytes
        self.lib.set_responseb(self.duel, buf)

    def respond_cards(self, indices: list[int]) -> None:
        """The answer to a card selection: the indices chosen among the cards listed."""
        self.history.answers.append(("cards", list(indices)))
        self.respond_bytes(bytes([len(indices), *indices]))

    def respond_place(self, player: int, location: int, sequence: int) -> None:
        """The answer to a zone selection."""
        self.history.answers.append(("place", (player, location, sequence)))
        self.respond_bytes(bytes([player, location, sequence]))

    def branch(self) -> Any:
        """Leave this duel aside and play a second one to the same point (the same seed, cards and answers:
        the core is deterministic), to ask it what a choice would bring; `rejoin` returns to the first."""
        saved = (self._pduel, self._options, self.history)
        self._pduel, self.history = 0, History()
        replay(self, saved[2])
        return saved

    def rejoin(self, saved: Any) -> None:
        self.close()
        self._pduel, self._options, self.history = saved

    def query_zone(self, player: int, location: int) -> list[dict[str, int] | None]:
        """Each slot of a player's Monster or Spell & Trap Zones: None when empty, else code, position, ATK, DEF."""
        buf = ctypes.create_string_buffer(0x4000)
        flags = QUERY_CODE | QUERY_POSITION | QUERY_ATTACK | QUERY_DEFENSE
        size = self.lib.query_field_card(self.duel, player, location, flags, buf, 0)
        raw = buf.raw[:size]
        out: list[dict[str, int] | None] = []
        at = 0
        while at < len(raw):
            (length,) = struct.unpack_from("<i", raw, at)
            if length <= 4:
                out.append(None)
                at += 4
                continue
            _, _, code, info, atk, dfn = struct.unpack_from("<iIIIii", raw, at)
            out.append(
                {"code": code, "position": (info >> 24) & 0xFF, "sequence": (info >> 16) & 0xFF, "atk": atk, "def": dfn}
            )
            at += length
        return out

    def hand_codes(self, player: int) -> list[int]:
        """The codes of the cards in a player's hand, in the core's order."""
        buf = ctypes.create_string_buffer(0x4000)
        size = self.lib.query_field_card(self.duel, player, LOCATION_HAND, QUERY_CODE, buf, 0)
        raw = buf.raw[:size]
        codes = []
        at = 0
        while at + 12 <= len(raw):
            length, _, code = struct.unpack_from("<iII", raw, at)
            codes.append(code)
            at += max(length, 4)
        return codes

    def field_counts(self) -> list[dict[str, int]]:
        """Each player's LP and the numbers of cards in the deck, hand and Graveyard (query_field_info)."""
        buf = ctypes.create_string_buffer(0x4000)
        self.lib.query_field_info(self.duel, buf)
        raw = buf.raw
        at = 2  # MSG_RELOAD_FIELD, the master rule
        players = []
        mzones, szones = self.zone_slots()
        for _ in (0, 1):
            (lp,) = struct.unpack_from("<i", raw, at)
            at += 4
            for _ in range(mzones):
                at += 3 if raw[at] else 1
            for _ in range(szones):
                at += 2 if raw[at] else 1
            deck, hand, grave, removed = raw[at : at + 4]  # then the Extra Deck and its face-up Pendulums
            at += 6
            players.append({"lp": lp, "deck": deck, "hand": hand, "graveyard": grave, "banished": removed})
        return players

    def zone_slots(self) -> tuple[int, int]:
        """How many slots query_field_info lists per player: every Monster Zone (Extra Monster Zones too) and
        every Spell & Trap Zone (Field and Pendulum Zones too); the same in every master rule of this core."""
        return 7, 8

    def _check_errors(self) -> None:
        if self.errors:
            raise EngineFailure(f"a card script failed inside the core: {self.errors[0]}")


# -- the message stream ----------------------------------------------------------------------------


def split_messages(data: bytes) -> Iterator[Message]:
    """The messages of one buffer, each read by its layout (the core writes no lengths)."""
    at = 0
    while at < len(data):
        code = data[at]
        at += 1
        reader = LAYOUTS.get(code)
        if reader is None:
            raise EngineFailure(f"message {code} from the core has no known layout (at byte {at - 1})")
        size, fields = reader(data, at)
        yield Message(code, data[at : at + size], fields)
        at += size


Reader = Callable[[bytes, int], tuple[int, dict[str, Any]]]


def _fixed(size: int, names: str = "") -> Reader:
    """A message of a fixed size; `names` reads leading fields: a struct format per name, as 'name:B,...'."""
    spec = [item.split(":") for item in names.split(",") if item]

    def read(b: bytes, at: int) -> tuple[int, dict[str, Any]]:
        out: dict[str, Any] = {}
        pos = at
        for name, fmt in spec:
            (out[name],) = struct.unpack_from("<" + fmt, b, pos)
            pos += struct.calcsize(fmt)
        return size, out

    return read


def _activatable(b: bytes, pos: int) -> tuple[list[dict[str, int]], int]:
    """The list of effects a command message offers to activate (a count, then code, controller, location,
    sequence and description each; the code's top bit marks a field-only effect), and where it ends."""
    n = b[pos]
    pos += 1
    acts = []
    for _ in range(n):
        code, con, loc, seq, desc = struct.unpack_from("<IBBBI", b, pos)
        acts.append({"code": code & 0x7FFF_FFFF, "controller": con, "location": loc, "sequence": seq, "desc": desc})
        pos += 11
    return acts, pos


def _idle(b: bytes, at: int) -> tuple[int, dict[str, Any]]:
    player = b[at]
    pos = at + 1
    lists: dict[str, list[dict[str, int]]] = {}
    for name in ("summon", "spsummon", "reposition", "mset", "sset"):
        n = b[pos]
        pos += 1
        items = []
        for _ in range(n):
            code, con, loc, seq = struct.unpack_from("<IBBB", b, pos)
            items.append({"code": code, "controller": con, "location": loc, "sequence": seq})
            pos += 7
        lists[name] = items
    acts, pos = _activatable(b, pos)
    lists["activate"] = acts
    to_bp, to_ep, shuffle = b[pos], b[pos + 1], b[pos + 2]
    pos += 3
    return pos - at, {"player": player, **lists, "to_bp": bool(to_bp), "to_ep": bool(to_ep), "shuffle": bool(shuffle)}


def _battle(b: bytes, at: int) -> tuple[int, dict[str, Any]]:
    player = b[at]
    pos = at + 1
    acts, pos = _activatable(b, pos)
    n = b[pos]
    pos += 1
    attackers = []
    for _ in range(n):
        code, con, loc, seq, direct = struct.unpack_from("<IBBBB", b, pos)
        attackers.append({"code": code, "controller": con, "location": loc, "sequence": seq, "direct": bool(direct)})
        pos += 8
    to_m2, to_ep = b[pos], b[pos + 1]
    pos += 2
    return pos - at, {
        "player": player,
        "activate": acts,
        "attack": attackers,
        "to_m2": bool(to_m2),
        "to_ep": bool(to_ep),
    }


def _chain(b: bytes, at: int) -> tuple[int, dict[str, Any]]:
    player, n, spe = b[at], b[at + 1], b[at + 2]
    pos = at + 3 + 8
    items = []
    for _ in range(n):
        kind, forced, code, info, desc = struct.unpack_from("<BBIII", b, pos)
        items.append(
            {
                "code": code,
                "controller": info & 0xFF,
                "location": (info >> 8) & 0xFF,
                "sequence": (info >> 16) & 0xFF,
                "forced": bool(forced),
                "desc": desc,
                "edesc": kind,
            }
        )
        pos += 14
    return pos - at, {"player": player, "chains": items, "special": spe}


def _select_card(b: bytes, at: int) -> tuple[int, dict[str, Any]]:
    player, cancelable, lo, hi, n = b[at : at + 5]
    pos = at + 5
    items = []
    for _ in range(n):
        code, info = struct.unpack_from("<II", b, pos)
        items.append(
            {"code": code, "controller": info & 0xFF, "location": (info >> 8) & 0xFF, "sequence": (info >> 16) & 0xFF}
        )
        pos += 8
    return pos - at, {"player": player, "cancelable": bool(cancelable), "min": lo, "max": hi, "cards": items}


def _draw(b: bytes, at: int) -> tuple[int, dict[str, Any]]:
    player, n = b[at], b[at + 1]
    codes = list(struct.unpack_from(f"<{n}I", b, at + 2))
    return 2 + 4 * n, {"player": player, "codes": codes}


def _shuffle_hand(b: bytes, at: int) -> tuple[int, dict[str, Any]]:
    n = b[at + 1]
    return 2 + 4 * n, {"player": b[at]}


LAYOUTS: dict[int, Reader] = {}


def _select_option(b: bytes, at: int) -> tuple[int, dict[str, Any]]:
    n = b[at + 1]
    return 2 + 4 * n, {"player": b[at], "options": list(struct.unpack_from(f"<{n}I", b, at + 2))}


def _select_unselect(b: bytes, at: int) -> tuple[int, dict[str, Any]]:
    player, finishable, cancelable, n = b[at], b[at + 1], b[at + 2], b[at + 5]  # then min, max
    pos = at + 6 + 8 * n
    m = b[pos]
    return 6 + 8 * n + 1 + 8 * m, {"player": player, "finishable": bool(finishable), "cancelable": bool(cancelable)}


def _confirm(b: bytes, at: int) -> tuple[int, dict[str, Any]]:
    n = b[at + 1]
    return 2 + 7 * n, {"player": b[at]}


def _random_selected(b: bytes, at: int) -> tuple[int, dict[str, Any]]:
    n = b[at + 1]
    return 2 + 4 * n, {}


def _become_target(b: bytes, at: int) -> tuple[int, dict[str, Any]]:
    n = b[at]
    return 1 + 4 * n, {}


LAYOUTS.update(
    {
        MSG_RETRY: _fixed(0),
        MSG_HINT: _fixed(6, "type:B,player:B,data:I"),
        MSG_WIN: _fixed(2, "player:B,reason:B"),
        MSG_SELECT_BATTLECMD: _battle,
        MSG_SELECT_IDLECMD: _idle,
        # the card's place (info): controller, location, sequence and position, a byte each
        MSG_SELECT_EFFECTYN: _fixed(13, "player:B,code:I,controller:B,location:B,sequence:B,position:B,desc:I"),
        MSG_SELECT_YESNO: _fixed(5, "player:B,desc:I"),
        MSG_SELECT_OPTION: _select_option,
        MSG_SELECT_CARD: _select_card,
        MSG_SELECT_CHAIN: _chain,
        MSG_SELECT_PLACE: _fixed(6, "player:B,count:B,flag:I"),
        MSG_SELECT_POSITION: _fixed(6, "player:B,code:I,positions:B"),
        MSG_SELECT_UNSELECT_CARD: _select_unselect,
        MSG_ANNOUNCE_NUMBER: _select_option,  # player, count, the numbers offered (u32 each)
        31: _confirm,  # MSG_CONFIRM_CARDS: player, count, (code u32, controller, location, sequence) each
        32: _fixed(1, "player:B"),  # MSG_SHUFFLE_DECK
        33: _shuffle_hand,  # MSG_SHUFFLE_HAND
        MSG_NEW_TURN: _fixed(1, "player:B"),
        MSG_NEW_PHASE: _fixed(2, "phase:H"),
        50: _fixed(16, "code:I,old:I,new:I,reason:I"),  # MSG_MOVE
        53: _fixed(9, "code:I,controller:B,location:B,sequence:B,old:B,new:B"),  # MSG_POS_CHANGE
        54: _fixed(8, "code:I,info:I"),  # MSG_SET
        56: _fixed(4, "flag:I"),  # MSG_FIELD_DISABLED
        60: _fixed(8, "code:I,info:I"),  # MSG_SUMMONING
        61: _fixed(0),  # MSG_SUMMONED
        62: _fixed(8, "code:I,info:I"),  # MSG_SPSUMMONING
        63: _fixed(0),  # MSG_SPSUMMONED
        64: _fixed(8, "code:I,info:I"),  # MSG_FLIPSUMMONING
        65: _fixed(0),  # MSG_FLIPSUMMONED
        MSG_CHAINING: _fixed(16, "code:I,info:I,controller:B,location:B,sequence:B,desc:I,link:B"),
        71: _fixed(1, "link:B"),  # MSG_CHAINED
        MSG_CHAIN_SOLVING: _fixed(1, "link:B"),
        MSG_CHAIN_SOLVED: _fixed(1, "link:B"),
        MSG_CHAIN_END: _fixed(0),
        MSG_CHAIN_NEGATED: _fixed(1, "link:B"),
        76: _fixed(1, "link:B"),  # MSG_CHAIN_DISABLED
        81: _random_selected,  # MSG_RANDOM_SELECTED: player, count, info u32 each
        83: _become_target,  # MSG_BECOME_TARGET: count, info u32 each
        MSG_DRAW: _draw,
        MSG_DAMAGE: _fixed(5, "player:B,amount:I"),
        92: _fixed(5, "player:B,amount:I"),  # MSG_RECOVER
        MSG_LPUPDATE: _fixed(5, "player:B,lp:I"),
        96: _fixed(8, "info:I,target:I"),  # MSG_CARD_TARGET
        97: _fixed(8, "info:I,target:I"),  # MSG_CANCEL_TARGET
        100: _fixed(5, "player:B,amount:I"),  # MSG_PAY_LPCOST
        MSG_ATTACK: _fixed(8, "attacker:I,target:I"),
        MSG_BATTLE: _fixed(26),
        MSG_ATTACK_DISABLED: _fixed(0),
        MSG_DAMAGE_STEP_START: _fixed(0),
        MSG_DAMAGE_STEP_END: _fixed(0),
        120: _fixed(8, "info:I,code:I"),  # MSG_MISSED_EFFECT
        160: _fixed(9, "info:I,type:B,value:I"),  # MSG_CARD_HINT
        165: _fixed(6, "player:B,type:B,value:I"),  # MSG_PLAYER_HINT
    }
)
