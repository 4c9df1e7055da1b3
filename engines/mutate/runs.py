"""A mutation run: the mutants to run, on a local Dask cluster or a scheduler, each settled into the store as it
finishes; Ctrl-C keeps what finished.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from duelcheck.engines.mutate.killing import model_version, prepare, run_mutant
from duelcheck.engines.mutate.mutants import Mutant
from duelcheck.engines.mutate.settings import DEFAULT_DEPTH, DEFAULT_STORE, PROBE_DEPTH, STATUSES
from duelcheck.engines.mutate.store import Row, Store
from duelcheck.errors import InternalError
from duelcheck.rules import Rules


@dataclass
class Outcome:
    """A mutation run's result, read back from the store after the run: a row per mutant that has one."""

    mutants: list[Mutant]
    excluded: list[Mutant]
    store: Path
    model_version: str
    run_id: str
    depth: int
    options: dict[str, Any]
    prepared: dict[str, Any]
    rows: dict[str, Row] = field(default_factory=dict)
    ran: list[str] = field(default_factory=list)
    reused: int = 0
    failures: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False
    seconds: float = 0.0

    def of(self, status: str) -> list[Row]:
        return [r for m in self.mutants if (r := self.rows.get(m.id)) is not None and r.status == status]

    @property
    def score(self) -> tuple[int, int]:
        """Killed, and non-equivalent mutants with a result (killed, survived or unknown)."""
        killed = len(self.of("killed"))
        return killed, killed + len(self.of("survived")) + len(self.of("unknown"))

    @property
    def exit_code(self) -> int:
        """130 interrupted, 4 a mutant failed (no result), 3 some mutant unknown, else 0 (survivors are an
        answer, not a failure)."""
        if self.interrupted:
            return 130
        if self.failures or any(m.id not in self.rows for m in self.mutants):
            return 4
        if self.of("unknown"):
            return 3
        return 0

    def to_json(self) -> dict[str, Any]:
        killed, total = self.score
        ran = set(self.ran)
        mutants = []
        for m in self.mutants:
            r = self.rows.get(m.id)
            mutants.append(
                {
                    **m.to_json(),
                    "status": None if r is None else r.status,
                    "killed_by": None if r is None else r.killed_by,
                    "kill_kind": None if r is None else r.kill_kind,
                    "length": None if r is None else r.length,
                    "note": None if r is None else r.note,
                    "verdicts": None if r is None else json.loads(r.verdicts),
                    "seconds": None if r is None else round(r.seconds, 3),
                    "ran_now": m.id in ran,
                    "error": self.failures.get(m.id),
                }
            )
        return {
            "store": str(self.store),
            "model_version": self.model_version,
            "depth": self.depth,
            "options": self.options,
            "score": {"killed": killed, "non_equivalent": total, "ratio": round(killed / total, 4) if total else None},
            "counts": {s: len(self.of(s)) for s in STATUSES},
            "lemmas": self.prepared.get("lemmas", []),
            "baseline_witnesses": self.prepared.get("witnesses", {}),
            "preparation_seconds": self.prepared.get("seconds"),
            "mutants": mutants,
            "redundant_guards": [
                {"action": r.action, "position": r.position, "reason": r.reason, "why": r.note}
                for r in self.of("equivalent")
                if r.kind == "drop"
            ],
            "dead_code": [
                {"mutant": r.mutant_id, "kind": r.kind, "reason": r.reason, "why": r.note}
                for r in self.of("equivalent")
                if r.kind != "drop"
            ],
            "excluded": [m.id for m in self.excluded],
            "ran": len(self.ran),
            "from_store": self.reused,
            "seconds": round(self.seconds, 3),
            "exit_code": self.exit_code,
        }


def settings_of(rules: Rules, depth: int, options: dict[str, Any]) -> str:
    """What a result depends on besides the mutant and the model: the rules, the bound and the engine options."""
    keys = ("prove", "solver", "timeout", "lemma_suite", "property_files")  # a file's digest: an edit runs again
    kept = {k: options[k] for k in keys if options.get(k) is not None}
    return json.dumps({"rules": rules.model_dump(), "depth": depth, "probe": PROBE_DEPTH, **kept}, sort_keys=True)


def preparation_settings(rules: Rules, depth: int, options: dict[str, Any]) -> str:
    """What the preparation depends on: the settings of the mutants' results but the time each mutant may take
    (it runs no mutant), so that checking the unknown again with a longer --timeout reuses it."""
    return settings_of(rules, depth, {k: v for k, v in options.items() if k != "timeout"})


Progress = Callable[[int, int, Mutant, "Row | None", "str | None"], None]


def run(
    mutants: list[Mutant],
    store: str | Path = DEFAULT_STORE,
    *,
    depth: int = DEFAULT_DEPTH,
    options: dict[str, Any] | None = None,
    excluded: list[Mutant] | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    connect_timeout: float | None = None,
    on_start: Callable[[int, int], None] | None = None,
    on_mutant: Progress | None = None,
    on_stage: Callable[[str], None] | None = None,
) -> Outcome:
    """Run every mutant without a result in the store on a local Dask cluster of `workers` processes (default:
    one per core) or on the scheduler at `scheduler`, each result committed as it finishes.

    `options`: prove (default True: the lemmas and the checker's induction), solver, timeout (seconds per
    mutant), cache (the proof cache folder for the lemmas of the rules as written), lemma_suite (the
    invariants proved as lemmas; default the whole suite). The preparation (lemmas and baseline) runs first,
    as one task, unless the store holds it. Ctrl-C cancels what is running and returns with `.interrupted`."""
    import duelcheck.sweep as sweep
    from duelcheck.engines.checker import default_workers
    from duelcheck.interrupts import interrupted as sigint_seen

    started = time.monotonic()
    options = dict(options or {})
    rules = Rules()
    if scheduler is not None:
        scheduler = sweep.check_address(scheduler)
    n_workers = workers if workers is not None else default_workers()
    timeout = sweep.CONNECT_TIMEOUT if connect_timeout is None else connect_timeout
    db = Store(store)
    try:
        version = model_version()
        settings = settings_of(rules, depth, options)
        prep_settings = preparation_settings(rules, depth, options)
        run_id = f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
        pending = [m for m in mutants if not _held(db.get(m.id, version), m, settings)]
        prepared = db.prepared(version, prep_settings) or {}
        outcome = Outcome(
            mutants,
            excluded or [],
            Path(store),
            version,
            run_id,
            depth,
            options,
            prepared,
            reused=len(mutants) - len(pending),
        )
        if on_start is not None:
            on_start(len(pending), len(mutants))
        if pending:
            try:
                with sweep._client(n_workers, scheduler, timeout) as client:
                    if sigint_seen():
                        raise KeyboardInterrupt
                    if not prepared:
                        if on_stage is not None:
                            on_stage("proving the invariants of the rules as written and searching their witnesses")
                        prepared = _prepare_on(client, rules, depth, options, run_id, sigint_seen)
                        if prepared.pop("model_version") != version:
                            raise InternalError("the workers run another model version")
                        db.put_prepared(version, prep_settings, prepared)
                        outcome.prepared = prepared
                    _run_pending(client, db, rules, depth, options, settings, pending, outcome, on_mutant, sigint_seen)
            except KeyboardInterrupt:
                outcome.interrupted = True
        for m in mutants:
            row = db.get(m.id, version)
            if _held(row, m, settings):
                assert row is not None
                outcome.rows[m.id] = row
        outcome.seconds = time.monotonic() - started
        return outcome
    finally:
        db.close()


def _held(row: Row | None, m: Mutant, settings: str) -> bool:
    """A stored result counts for the same mutant text made with the same settings, whatever time limit it had
    when it is a result (killed, equivalent, survived: a time limit only ever leaves a mutant unknown), and when
    it is unknown only if its limit was no shorter than the one asked for now: checking the unknown again with
    a longer --timeout runs them alone, and a shorter one runs nothing again."""
    if row is None or row.digest != m.digest:
        return False
    if row.settings == settings:
        return True
    had, wanted = json.loads(row.settings), json.loads(settings)
    limit, asked = had.pop("timeout", None), wanted.pop("timeout", None)
    if had != wanted:
        return False
    if row.status != "unknown":
        return True
    return limit is None or (asked is not None and limit >= asked)


def _wait(future: Any, sigint_seen: Callable[[], bool]) -> Any:
    while not future.done():
        if sigint_seen():
            raise KeyboardInterrupt
        time.sleep(0.05)
    if future.status != "finished":
        exc = future.exception()
        raise InternalError(f"the preparation failed: {type(exc).__name__}: {exc}")
    return future.result()


def _prepare_on(
    client: Any, rules: Rules, depth: int, options: dict[str, Any], run_id: str, sigint_seen: Callable[[], bool]
) -> dict[str, Any]:
    future = client.submit(
        prepare, rules.model_dump(), depth, options, key=f"duelcheck-prepare-{run_id}", pure=False, retries=0
    )
    try:
        return dict(_wait(future, sigint_seen))
    except BaseException:
        client.cancel([future])
        raise


def _run_pending(
    client: Any,
    db: Store,
    rules: Rules,
    depth: int,
    options: dict[str, Any],
    settings: str,
    pending: list[Mutant],
    outcome: Outcome,
    on_mutant: Progress | None,
    sigint_seen: Callable[[], bool],
) -> None:

    futures: dict[str, tuple[Mutant, Any]] = {}
    for i, m in enumerate(pending):
        future = client.submit(
            run_mutant,
            m.id,
            rules.model_dump(),
            depth,
            options,
            outcome.prepared,
            key=f"duelcheck-mutant-{outcome.run_id}-{i}",
            pure=False,
            retries=0,
        )
        futures[future.key] = (m, future)
    from duelcheck.sweep import as_they_finish

    finished = as_they_finish(client, [f for _, f in futures.values()], sigint_seen)
    try:
        for done, future in enumerate(finished, 1):
            m, _ = futures[future.key]
            row, error = _finish(db, future, m, settings, outcome)
            if on_mutant is not None:
                on_mutant(done, len(pending), m, row, error)
    finally:
        finished.close()  # an error here cancels what still runs, as one while waiting does


def _finish(db: Store, future: Any, m: Mutant, settings: str, outcome: Outcome) -> tuple[Row | None, str | None]:
    """Store a finished task's result; a task that raised, or a worker of another model, is a failure."""
    from duelcheck.sweep import task_failure

    error = task_failure(future, outcome.model_version)
    if error is not None:
        outcome.failures[m.id] = error
        return None, error
    got = future.result()
    row = Row(
        mutant_id=m.id,
        model_version=outcome.model_version,
        kind=m.kind,
        action=m.action,
        position=None if m.index < 0 else m.index,
        reason=m.reason,
        status=got["status"],
        killed_by=got["killed_by"],
        kill_kind=got["kill_kind"],
        length=got["length"],
        note=got["note"] or "",
        verdicts=json.dumps(got["verdicts"], sort_keys=True),
        seconds=float(got["seconds"]),
        settings=settings,
        digest=m.digest,
        run_id=outcome.run_id,
        finished_at=datetime.now(UTC).isoformat(timespec="milliseconds"),
    )
    db.put(row)
    outcome.ran.append(m.id)
    return row, None
