"""Reading input files: every way a file can be wrong ends in one InputError line (exit 2), never a traceback.

Input files (rule files, duel logs, ITF traces) are regular files of at most MAX_INPUT_BYTES, in UTF-8;
JSON documents have no duplicate keys, nest at most MAX_DEPTH levels and hold no number longer than
Python reads. A device, a FIFO or a folder is refused before anything is read from it.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from duelcheck.errors import InputError

MAX_INPUT_BYTES = 16 * 1024 * 1024  # 16 MiB: a log of a whole duel is a few hundred KiB
MAX_DEPTH = 64  # the deepest a duel log or a trace nests is about 8 levels
_TOO_LONG = 10**4300  # the least integer of 4,301 digits


def read_text(path: Path, what: str = "file") -> str:
    """The text of a regular input file, refused with one line when it cannot be one."""
    try:
        info = path.stat()
    except OSError as exc:
        raise InputError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    except ValueError:  # a name with a NUL byte or a lone surrogate
        raise InputError(f"{path!r}: expected the name of a {what}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: expected a {what}, got a folder")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path}: expected a regular {what}, not a device, FIFO or socket")
    if info.st_size > MAX_INPUT_BYTES:
        raise InputError(f"{path}: the {what} is {info.st_size} bytes; the limit is {MAX_INPUT_BYTES} (16 MiB)")
    try:
        with open(path, "rb") as fh:
            fd = fh.fileno()
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped between stat and open
                raise InputError(f"{path}: expected a regular {what}, not a device, FIFO or socket")
            data = fh.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"{path}: the {what} is over {MAX_INPUT_BYTES} bytes (16 MiB), the limit")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: byte {exc.start}: expected UTF-8 text") from None


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(key)
        out[key] = value
    return out


class _Duplicate(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _depth(text: str) -> int:
    """The deepest nesting of brackets outside strings (checked before parsing, so no recursion error)."""
    depth = top = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            top = max(top, depth)
        elif ch in "]}":
            depth -= 1
    return top


def parse_json(text: str, source: str) -> Any:
    """A JSON document, or one InputError line naming the place and what was expected."""
    if _depth(text) > MAX_DEPTH:
        raise InputError(f"{source}: expected JSON nested at most {MAX_DEPTH} levels deep")
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: line {exc.lineno} column {exc.colno}: not valid JSON ({exc.msg})") from None
    except _Duplicate as exc:
        raise InputError(f"{source}: key {exc.key!r} appears twice in one object: expected each key once") from None
    except RecursionError:
        raise InputError(f"{source}: expected JSON nested at most {MAX_DEPTH} levels deep") from None
    except ValueError:  # an integer of thousands of digits
        raise InputError(f"{source}: expected numbers of at most 4300 digits") from None


def load_toml(path: Path, what: str = "file") -> dict[str, Any]:
    """The table of a TOML input file, refused with one line when it is not valid TOML."""
    import tomllib

    text = read_text(path, what)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML ({exc})") from None
    except (RecursionError, ValueError) as exc:
        raise InputError(f"{path}: not a {what}: expected a flat table of parameters ({type(exc).__name__})") from None


def load_json(path: Path, what: str = "file") -> Any:
    return parse_json(read_text(path, what), str(path))


def check_document(value: Any, where: str, path: str = "", depth: int = 0) -> None:
    """A document given as Python values (a dict through the library, not a file) holds only what a JSON file
    could: dicts with string keys, lists, strings, booleans, finite numbers of at most 4300 digits, None,
    nested at most MAX_DEPTH levels. Anything else is one InputError naming the value's path, as the file
    reader's errors do."""
    at = f"{where}: {path or 'the document'}"
    if depth > MAX_DEPTH:
        raise InputError(f"{at}: expected JSON nested at most {MAX_DEPTH} levels deep")
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise InputError(f"{at}: expected string keys, got {type(k).__name__} {k!r}")
            check_document(v, where, f"{path}.{k}" if path else k, depth + 1)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            check_document(v, where, f"{path}[{i}]", depth + 1)
    elif isinstance(value, bool) or value is None or isinstance(value, str):
        return
    elif isinstance(value, int):
        if abs(value) >= _TOO_LONG:  # Python reads and writes integers of at most 4,300 digits as text
            raise InputError(f"{at}: expected numbers of at most 4300 digits")
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InputError(f"{at}: expected a finite number, got {value!r}")
    else:
        raise InputError(f"{at}: expected JSON values, got {type(value).__name__}")
