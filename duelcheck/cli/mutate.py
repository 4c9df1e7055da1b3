"""`duelcheck mutate`: rule mutants and the properties that kill them."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from duelcheck.cli._core import EXIT_INTERNAL, _dask_options, _dask_workers, _die, _guard, _safe, main
from duelcheck.errors import InputError, InternalError

MUTATE_EXIT_CODES = """\b
Exit codes of a mutation run:
  0    every mutant has a result and none is unknown (a survivor is an answer, not a failure)
  2    bad input: --only, --mutant, --store or --scheduler (one line on stderr)
  3    some mutant is unknown (no solver answer, a time limit, or the two semantics disagree under it)
  4    a mutant failed (internal error, not a result; the others are kept)
  130  interrupted (Ctrl-C): every mutant that finished is in the store; the same command runs the rest"""


@main.command("mutate", epilog=MUTATE_EXIT_CODES)
@click.option(
    "--only",
    "only",
    default=None,
    help="Only the mutants of this action (its guards, its writes, the comparisons of what its body runs, its "
    "semantic bugs).",
)
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice(["drop", "negate", "write", "swap", "compare", "semantic"]),
    help="Only mutants of this kind (repeatable; default all): a guard dropped or negated, a write dropped or "
    "made to the other player, a comparison given its boundary twin (< for <=, != for ==), or a hand-made "
    "rule bug.",
)
@click.option("--limit", type=click.IntRange(1, None), default=None, help="Only the first N mutants (quick runs).")
@click.option(
    "--mutant",
    "ids",
    multiple=True,
    metavar="ID",
    help="Only this mutant, by the id the report prints (repeatable; e.g. drop:pass:12): survivors checked again.",
)
@click.option(
    "--depth",
    type=click.IntRange(0, 200),
    default=12,
    show_default=True,
    help="The bound of the kill searches: deeper bounds kill more mutants and cost more.",
)
@click.option(
    "--no-proofs",
    is_flag=True,
    help="No induction: equivalence questions assume no invariant, and mutants are checked by BMC alone.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Seconds each mutant may be searched (then it is unknown).",
)
@click.option(
    "--properties",
    "property_files",
    multiple=True,
    help="Add the [[property]] tables of this TOML file to the suite that kills mutants (repeatable).",
)
@_dask_options("duelcheck-mutate.sqlite", "mutant")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@_guard
def mutate_cmd(
    only: str | None,
    kinds: tuple[str, ...],
    limit: int | None,
    ids: tuple[str, ...],
    depth: int,
    no_proofs: bool,
    timeout: float | None,
    property_files: tuple[str, ...],
    workers: int | None,
    scheduler: str | None,
    store: str,
    fmt: str,
) -> None:
    """Mutation analysis of the rules against the property suite: each guard of each action dropped or negated,
    each write of a rule dropped or made to the other player, each comparison given its boundary twin, and the
    hand-made rule bugs; equivalent mutants (redundant guards, dead code) proved, the others checked by the
    engines on Dask, each result kept in a SQLite store; print the score, the survivors and the equivalent."""
    import time

    from duelcheck.engines import mutate as mu

    n_workers = _dask_workers(workers, scheduler)
    if ids and (only or kinds or limit):
        raise InputError("--mutant names the mutants itself: it takes no --only, --kind or --limit")
    mutants, excluded = mu.select_mutants(only, kinds or mu.KINDS, limit, ids=ids)
    where = f"the scheduler {scheduler}" if scheduler else f"a local cluster of {n_workers} worker(s)"
    started = time.monotonic()

    def echo(line: str) -> None:
        click.echo(_safe(f"[{time.monotonic() - started:7.1f} s] {line}"), err=True)

    def on_start(to_run: int, total: int) -> None:
        echo(f"{total} mutants: {total - to_run} from the store, {to_run} to run on {where}")

    def on_mutant(done: int, to_run: int, m: Any, row: Any, error: str | None) -> None:
        what = f"failed: {error}" if row is None else f"{row.text} ({row.seconds:.1f} s)"
        echo(f"{done}/{to_run} {m.id}: {what}")

    options: dict[str, Any] = {"prove": not no_proofs, "timeout": timeout}
    if property_files:  # each parsed here (bad input is one line now), then in every worker that runs mutants
        options["property_files"] = mu.property_files(property_files)
        from duelcheck.rules import Rules

        mu.with_users(Rules(), options)  # the report names a property a user's file holds
    if not no_proofs:
        from duelcheck.engines.cache import default_cache_dir

        options["cache"] = str(default_cache_dir())
    outcome = mu.run(
        mutants,
        store,
        depth=depth,
        options=options,
        excluded=excluded,
        workers=n_workers,
        scheduler=scheduler,
        on_start=on_start,
        on_mutant=on_mutant,
        on_stage=echo,
    )
    if outcome.interrupted:
        held = sum(1 for m in mutants if m.id in outcome.rows)
        _die(
            f"duelcheck: interrupted: {held} of {len(mutants)} mutants are in {store}; the same command runs the rest",
            130,
        )
    if fmt == "json":
        click.echo(json.dumps(outcome.to_json(), indent=2))
    else:
        for line in mu.text_lines(outcome):
            click.echo(_safe(line))
    if outcome.exit_code == EXIT_INTERNAL:
        failed = next(iter(outcome.failures.values()), "no result")
        raise InternalError(f"{len(outcome.failures) or 1} mutant(s) failed, kept out of the store: {failed}")
    sys.exit(outcome.exit_code)
