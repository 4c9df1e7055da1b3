"""Rule parameters: the knobs researchers turn. Defaults are today's official rules."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_serializer, model_validator

from duelcheck.errors import InputError, InternalError


class Change(BaseModel):
    """One edit of the rules beyond the knobs (a rule file's `[[change]]` table, docs/rule-changes.md): a guard
    dropped (`drop = "ACTION.GUARD"`), negated (`negate = "ACTION.GUARD"`), or a new guard required of an
    action (`require = "EXPR"`, `action = "NAME"`, `reason = "..."`: a predicate of the state before the action
    and its parameters, in the language of a user's properties). Guards are named as `duelcheck rules` lists
    them."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    drop: str | None = None
    negate: str | None = None
    require: str | None = None
    action: str | None = None
    reason: str | None = None

    def model_post_init(self, __context: Any) -> None:
        given = [k for k in ("drop", "negate", "require") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("a change holds one of drop, negate or require")
        if self.require is not None and (not self.action or not self.reason):
            raise ValueError("require needs action = NAME and reason = the words a judge says when it fails")
        if self.require is None and (self.action is not None or self.reason is not None):
            raise ValueError("drop and negate name their guard alone (ACTION.GUARD): no action or reason")

    def words(self) -> str:
        if self.drop is not None:
            return f"drop {self.drop}"
        if self.negate is not None:
            return f"negate {self.negate}"
        return f"require {self.require} of {self.action} ({self.reason})"


class Rules(BaseModel):
    """One set of rule parameters. Unknown keys and wrong types are errors."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    first_turn_draw: bool = Field(False, description="6.3.1: the first player draws on turn 1")
    first_turn_battle: bool = Field(False, description="6.3.4: the first player may conduct a Battle Phase on turn 1")
    main_phase_2: bool = Field(True, description="6.3.5: Main Phase 2 exists")
    main_phase_2_requires_battle_phase: bool = Field(
        True, description="6.3.5: Main Phase 2 only follows a Battle Phase"
    )
    chain_speed_check: bool = Field(
        True, description="seed 000: a response must be speed 2+ and >= the link it answers"
    )
    standby_phase: bool = Field(True, description="6.3.2: the Standby Phase exists (Rush Duel has none)")
    draw_until: int = Field(
        0,
        ge=0,
        le=20,
        description="6.3.1: 0: the normal draw is one card; n: the turn player draws until n cards are in hand, "
        "one card when they hold n or more (Rush Duel: 5); a deck too thin for the draw loses the duel",
    )
    hand_limit: int = Field(6, ge=0, le=60, description="6.3.6: hand size at the end of the End Phase")
    hand_limit_enforced: bool = Field(
        True, description="6.3.6: the turn player discards down to the hand limit (Rush Duel: no hand limit)"
    )
    normal_summons_per_turn: int = Field(1, ge=0, le=9, description="6.3.5: Normal Summons or Sets per turn")
    zero_atk_battle_destroys: bool = Field(False, description="6.3.4.3.3.1: two 0-ATK monsters destroy each other")
    ignition_priority: bool = Field(
        False,
        description="6.3 (response window): false: after the turn player's summon, Set, change of position or a "
        "resolved chain, the turn player may only activate a card of speed 2 or more, or pass, until the opponent "
        "has passed too; true (Goat format, ignition priority): the turn player may also activate a monster's "
        "Ignition effect first, before the opponent can respond",
    )
    replay_stored: bool = Field(
        False,
        description="6.3.4.2.1: false: after a replay the attacker chooses a new target or stops, and a stop still "
        "counts as its attack; true (Goat format, the engines' stored replays): a replay ends the attack and the "
        "attack is not counted: the monster may declare an attack again later in that Battle Phase",
    )
    damage_step_single_chain: bool = Field(
        False,
        description="6.3.4.3 (the Damage Step's timings): false: in each timing the players may start chains until "
        "both pass with none open; true (Goat format, one chain per timing; the engines' single chain in a Damage "
        "Step timing): once a chain has resolved in a timing, no card is activated there to start another (a "
        "triggered effect still starts one)",
    )
    monster_zones: int = Field(5, ge=1, le=5, description="Main Monster Zones per player")
    spell_trap_zones: int = Field(5, ge=1, le=5, description="Spell & Trap Zones per player")
    starting_lp: int = Field(
        8000, ge=100, le=20000, multiple_of=100, description="Life Points at the start of the duel"
    )
    starting_hand: int = Field(5, ge=0, le=20, description="cards each player draws before the duel")
    deck_size: int = Field(40, ge=0, le=100, description="cards in each main deck")
    chain_links: int = Field(5, ge=1, le=7, description="model bound: the longest chain the model holds")
    draw_needs_deck: bool = Field(
        True,
        description="a card whose effect draws is activated only with a card in its controller's deck (the "
        "engines' activation check); false: it may be activated, and its controller loses when it resolves",
    )
    response_window: bool = Field(
        True,
        description="6.3: after the turn player's summon, Set or change of battle position, or a chain resolved, in "
        "their Main Phase or Battle Step, the opponent may respond before the phase goes on (two passes there "
        "close the window, not the phase); false: the seeds' bare reading, where two passes always end it",
    )
    window_first: Literal["turn_player", "opponent"] = Field(
        "turn_player",
        description="6.3 (response window): who holds priority first once the window opens: the turn player (the "
        "official rules: they may respond at speed 2, or pass it to the opponent) or the opponent (Rush Duel as "
        "EDOPro's core plays it: the non-turn player decides first, then the turn player)",
    )
    trigger_only_in_location: bool = Field(
        False,
        description="Master Rule 2020: a triggered effect is activated only while its card is still where it was "
        "when it triggered (a Flip monster that left the field before its Flip effect was activated loses it); "
        "false: the seeds' rules (6.3.4.3.4), where it waits to be activated wherever its card has gone",
    )
    damage_step_activations: Literal["6.3.4.3", "seed-000"] = Field(
        "6.3.4.3",
        description="what may be activated in the Damage Step: 6.3.4.3 (Counter Traps, negating effects, ATK/DEF "
        "changes up to before damage calculation, and the triggered effects it lists) or seed-000 (the older "
        "overview: only ATK/DEF changes and Counter Traps, up to before damage calculation)",
    )
    before_draw_chain: Literal["answers", "none", "any"] = Field(
        "answers",
        description="6.3.1: what may be chained to a 'before the draw' effect before the normal draw: answers (only "
        "what negates an activation, as EDOPro's core plays it), none (nothing: the clause's letter, no card is "
        "activated before the draw but the exception itself) or any (any card its speed allows, as ygopro-core "
        "plays it)",
    )

    changes: tuple[Change, ...] = Field(
        (),
        description="edits of the rules beyond the knobs: guards dropped, negated or added (a rule file's [[change]] "
        "tables, docs/rule-changes.md)",
    )

    @field_serializer("changes")
    def _changes_as_list(self, changes: tuple[Change, ...]) -> list[dict[str, Any]]:
        """Dumped as JSON holds them (a list), so that a dump read back from JSON is equal to it."""
        return [c.model_dump() for c in changes]

    @model_validator(mode="before")
    @classmethod
    def _changes_as_tuple(cls, data: Any) -> Any:
        """Changes read from JSON or TOML come as a list."""
        if isinstance(data, dict) and isinstance(data.get("changes"), list):
            return {**data, "changes": tuple(data["changes"])}
        return data

    def model_post_init(self, __context: Any) -> None:
        if self.starting_hand > self.deck_size:
            raise ValueError("starting_hand must not exceed deck_size")

    def changed(self) -> dict[str, Any]:
        """The parameters that differ from the official defaults."""
        base = Rules().model_dump()
        return {k: v for k, v in self.model_dump().items() if base[k] != v}

    def words(self, form: Callable[[str, Any], str] = lambda k, v: f"{k}={v}") -> list[str]:
        """What differs from the official rules, for a person: each knob changed (in `form`), then each change
        in words ("drop ACTION.GUARD", ...)."""
        knobs = [form(k, v) for k, v in self.changed().items() if k != "changes"]
        return knobs + [c.words() for c in self.changes]


@dataclass(frozen=True)
class Preset:
    """A named rule set shipped with the package (duelcheck/presets/NAME.toml, each setting citing its source)."""

    name: str
    description: str
    rules: dict[str, Any]
    aliases: tuple[str, ...]
    path: Path


def _load_presets() -> dict[str, Preset]:
    out: dict[str, Preset] = {}
    for path in sorted((Path(__file__).parent / "presets").glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        unknown = set(data.get("rules", {})) - set(Rules.model_fields)
        if unknown:  # pragma: no cover - a shipped preset is checked by the tests
            raise InternalError(f"{path}: unknown knob {sorted(unknown)[0]}")
        out[path.stem] = Preset(path.stem, data["description"], dict(data["rules"]), tuple(data["aliases"]), path)
    return out


PRESET_FILES = _load_presets()
# name (or alias) -> the knobs the preset sets; today's rules are `current`, also called `official`
PRESETS: dict[str, dict[str, Any]] = {name: p.rules for p in PRESET_FILES.values() for name in (p.name, *p.aliases)}


def _fail(path: str, key: str, msg: str) -> InputError:
    return InputError(f"{path}: {key}: {msg}")


PRESET_KEYS = ("description", "aliases", "rules")  # the top level of a preset's file (duelcheck/presets/)


def _unwrap_preset(data: dict[str, Any], path: str) -> tuple[dict[str, Any], str]:
    """A file in a preset's own shape (`description`, `aliases`, its knobs in a `[rules]` table) gives the knobs
    of that table, and the prefix that names them in an error; any other mapping is the knobs themselves."""
    if not isinstance(data.get("rules"), dict):
        return data, ""
    for key, value in data.items():
        if key not in PRESET_KEYS:
            raise _fail(path, key, "unknown key beside a [rules] table; expected one of " + ", ".join(PRESET_KEYS))
        if key == "description" and not isinstance(value, str):
            raise _fail(path, key, "expected a string")
        if key == "aliases" and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise _fail(path, key, "expected a list of strings")
    return dict(data["rules"]), "rules."


def rules_from_mapping(data: dict[str, Any], path: str = "<rules>") -> Rules:
    """Validate a mapping of rule parameters; an optional `preset` key starts from a named preset. A preset's
    own file (its knobs in a `[rules]` table) is read as the knobs of that table."""
    data, prefix = _unwrap_preset(dict(data), path)
    if "change" in data:  # a rule file's [[change]] tables
        if "changes" in data:
            raise _fail(path, prefix + "change", "expected [[change]] tables or a changes list, not both")
        data["changes"] = data.pop("change")
    if "changes" in data and not (
        isinstance(data["changes"], (list, tuple)) and all(isinstance(c, dict) for c in data["changes"])
    ):
        raise _fail(path, prefix + "change", "expected [[change]] tables")
    preset = data.pop("preset", "official")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise _fail(path, prefix + "preset", f"expected one of {', '.join(sorted(PRESETS))}")
    merged = {**PRESETS[preset], **data}
    try:
        rules = Rules(**merged)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = list(err["loc"])
        if loc[:1] == ["changes"] and len(loc) >= 2:  # a [[change]] table: change[i].key
            key = f"change[{loc[1]}]" + "".join(f".{part}" for part in loc[2:])
            if err["type"] == "extra_forbidden":
                expected = "unknown key; expected drop, negate, or require with action and reason"
                raise _fail(path, prefix + key, expected) from None
            msg = str(err.get("ctx", {}).get("error") or err["msg"]).removeprefix("Value error, ")
            raise _fail(path, prefix + key, msg) from None
        key = ".".join(str(p) for p in loc) or "(file)"
        if err["type"] == "extra_forbidden":
            msg = f"unknown key; expected one of {', '.join(Rules.model_fields)}"
        else:
            field = Rules.model_fields.get(key)
            annotation = field.annotation if field is not None else None
            want = getattr(annotation, "__name__", None)
            if getattr(annotation, "__origin__", None) is Literal:
                want = "one of " + ", ".join(repr(v) for v in getattr(annotation, "__args__", ()))
            want = want or "a valid value"
            msg = f"{err['msg']} (expected {want})"
        raise _fail(path, prefix + key, msg) from None
    except ValueError as exc:  # cross-field checks
        raise _fail(path, "(file)", str(exc)) from None
    if rules.changes:
        from duelcheck.model.changes import check_changes

        check_changes(rules, path, prefix)
    return rules


def load_rules(path: str | Path | None) -> Rules:
    """Load rule parameters from a TOML file, or a preset by name (`goat`, `speed`, ...: a file of that name
    wins); None gives the official rules."""
    if path is None:
        return Rules()
    from duelcheck.inputs import load_toml

    p = Path(path)
    if isinstance(path, str) and path in PRESETS and not p.is_file():
        return rules_from_mapping({"preset": path}, f"preset {path}")
    if not p.exists() and p.suffix != ".toml" and len(p.parts) == 1:
        import difflib

        close = difflib.get_close_matches(str(path), list(PRESETS), n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise InputError(f"{p}: no such rule file, nor a preset (one of {', '.join(PRESETS)}){hint}")
    return rules_from_mapping(load_toml(p, "rule file"), str(p))
