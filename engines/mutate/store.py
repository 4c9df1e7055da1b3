"""The SQLite store of a mutation run: one row per mutant and settings, written as each mutant settles."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Row:
    """One mutant's result as the store holds it."""

    mutant_id: str
    model_version: str
    kind: str
    action: str
    position: int | None
    reason: str
    status: str
    killed_by: str | None
    kill_kind: str | None
    length: int | None
    note: str
    verdicts: str  # JSON: label -> verdict text
    seconds: float
    settings: str
    digest: str
    run_id: str
    finished_at: str

    @property
    def text(self) -> str:
        if self.status == "killed" and self.kill_kind == "violated":
            return f"killed by {self.killed_by} (violated at step {self.length})"
        if self.status == "killed":
            return f"killed by {self.killed_by} ({self.kill_kind}; the rules reach it in {self.length} steps)"
        return self.status


_COLUMNS = (
    ("mutant_id", "TEXT NOT NULL"),
    ("model_version", "TEXT NOT NULL"),
    ("kind", "TEXT NOT NULL"),
    ("action", "TEXT NOT NULL"),
    ("position", "INTEGER"),
    ("reason", "TEXT NOT NULL"),
    ("status", "TEXT NOT NULL"),
    ("killed_by", "TEXT"),
    ("kill_kind", "TEXT"),
    ("length", "INTEGER"),
    ("note", "TEXT NOT NULL"),
    ("verdicts", "TEXT NOT NULL"),
    ("seconds", "REAL NOT NULL"),
    ("settings", "TEXT NOT NULL"),
    ("digest", "TEXT NOT NULL"),
    ("run_id", "TEXT NOT NULL"),
    ("finished_at", "TEXT NOT NULL"),
)


TABLE = "mutants"


PREPARED = "prepared"


class Store:
    """The SQLite file of a mutation run's results (WAL mode, one writer: the process that runs it). Each result
    is committed as soon as it is put, so that a run killed at any moment keeps every mutant that finished."""

    def __init__(self, path: str | Path):
        from duelcheck.sweep import open_store

        self.path = Path(path)
        prepared = (
            f"CREATE TABLE IF NOT EXISTS {PREPARED} (model_version TEXT NOT NULL, settings TEXT NOT NULL, "
            "data TEXT NOT NULL, PRIMARY KEY (model_version, settings))"
        )
        key = ("mutant_id", "model_version")
        self.db = open_store(self.path, f"--store {self.path}", "mutation store", TABLE, _COLUMNS, key, (prepared,))

    def get(self, mutant_id: str, version: str) -> Row | None:
        names = ", ".join(name for name, _ in _COLUMNS)
        found = self.db.execute(
            f"SELECT {names} FROM {TABLE} WHERE mutant_id = ? AND model_version = ?", (mutant_id, version)
        ).fetchone()
        return None if found is None else Row(*found)

    def put(self, row: Row) -> None:
        names = [name for name, _ in _COLUMNS]
        marks = ", ".join("?" for _ in names)
        with self.db:
            self.db.execute(
                f"INSERT OR REPLACE INTO {TABLE} ({', '.join(names)}) VALUES ({marks})",
                [getattr(row, name) for name in names],
            )

    def prepared(self, version: str, settings: str) -> dict[str, Any] | None:
        found = self.db.execute(
            f"SELECT data FROM {PREPARED} WHERE model_version = ? AND settings = ?", (version, settings)
        ).fetchone()
        return None if found is None else dict(json.loads(found[0]))

    def put_prepared(self, version: str, settings: str, data: dict[str, Any]) -> None:
        with self.db:
            self.db.execute(
                f"INSERT OR REPLACE INTO {PREPARED} (model_version, settings, data) VALUES (?, ?, ?)",
                (version, settings, json.dumps(data, sort_keys=True)),
            )

    def close(self) -> None:
        self.db.close()
