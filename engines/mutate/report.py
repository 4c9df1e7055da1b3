"""The report of a mutation run: the score, the survivors and the kills by stage and property."""

from __future__ import annotations

from collections.abc import Callable

from duelcheck.engines.mutate.runs import Outcome
from duelcheck.engines.mutate.settings import KINDS, STATUSES
from duelcheck.engines.mutate.store import Row


def text_lines(outcome: Outcome) -> list[str]:
    """The report as text: the score, then the survivors, the unknown, the equivalent mutants (redundant
    guards, and the other kinds' dead code) and the kills, one per line."""
    killed, total = outcome.score
    ratio = f" ({100 * killed / total:.0f}%)" if total else ""
    kinds = {k: sum(1 for m in outcome.mutants if m.kind == k) for k in KINDS}
    lines = [
        f"mutation score: {killed}/{total} killed{ratio} of the non-equivalent mutants (bound {outcome.depth}, "
        f"proofs {'on' if outcome.options.get('prove', True) else 'off'})",
        f"{len(outcome.mutants)} mutants ({', '.join(f'{n} {k}' for k, n in kinds.items())}); "
        + ", ".join(f"{len(outcome.of(s))} {s}" for s in STATUSES)
        + f"; {len(outcome.excluded)} excluded (model range and catalogue guards)",
    ]

    def section(title: str, rows: list[Row], detail: Callable[[Row], str]) -> None:
        lines.append(f"{title} ({len(rows)}):")
        lines.extend(f"  {r.mutant_id}\t{detail(r)}" for r in rows)

    section("survived", outcome.of("survived"), lambda r: f"{r.reason}\t{r.note}")
    section("unknown", outcome.of("unknown"), lambda r: f"{r.reason}\t{r.note}")
    equivalent = outcome.of("equivalent")
    section(
        "equivalent (redundant guards)", [r for r in equivalent if r.kind == "drop"], lambda r: f"{r.reason}\t{r.note}"
    )
    section("equivalent (dead code)", [r for r in equivalent if r.kind != "drop"], lambda r: f"{r.reason}\t{r.note}")
    section("killed", outcome.of("killed"), lambda r: f"{r.text}\t{r.reason}")
    for mid, error in outcome.failures.items():
        lines.append(f"failed: {mid}: {error}")
    lines.append(
        f"{len(outcome.ran)} run now, {outcome.reused} from the store, {outcome.seconds:.1f} s; store: {outcome.store}"
    )
    return lines
