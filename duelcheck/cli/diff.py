"""`duelcheck diff`: two rule sets, the properties whose verdicts differ and the plays that show it."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from duelcheck.cli._core import EXIT_OK, EXIT_UNKNOWN, _guard, _safe, main


@main.command("diff")
@click.argument("rules_a")
@click.argument("rules_b")
@click.option("--depth", type=click.IntRange(0, 200), default=12, show_default=True, help="The bound of both searches.")
@click.option("--property", "names", multiple=True, help="Compare only these properties' verdicts (repeatable).")
@click.option(
    "--properties",
    "property_files",
    multiple=True,
    help="Also compare the [[property]] tables of this TOML file (repeatable; docs/properties.md).",
)
@click.option("--no-verdicts", is_flag=True, help="Only the shortest distinguishing plays, not the verdicts.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@_guard
def diff_cmd(
    rules_a: str,
    rules_b: str,
    depth: int,
    names: tuple[str, ...],
    property_files: tuple[str, ...],
    no_verdicts: bool,
    fmt: str,
) -> None:
    """Two rule sets (files or preset names) side by side: every property's verdict under each, and in each
    direction the shortest play legal under one whose last step the other refuses or ends elsewhere."""
    from duelcheck.api import check, select, user_properties
    from duelcheck.counterexamples.view import render, render_json
    from duelcheck.engines.diff import Difference, diff
    from duelcheck.rules import load_rules

    a, b = load_rules(rules_a), load_rules(rules_b)
    mine = user_properties(a, (), (), property_files)
    props = [p.name for p in select(names, mine)] if names else None
    rows: list[dict[str, Any]] = []
    if not no_verdicts:
        # the bounded search alone beyond the proofs: seeded simulation finds different plays under different
        # rules, and a difference must come from the rules, not from a random walk
        reports = [check(r, props, depth, simulate=False, property_files=property_files) for r in (a, b)]
        for ra, rb in zip(reports[0].results, reports[1].results, strict=True):
            rows.append({"property": ra.label, "a": ra.verdict, "b": rb.verdict, "same": ra.verdict == rb.verdict})
    result = diff(a, b, depth)

    def one(d: Difference | None, first: str, second: str) -> dict[str, Any] | None:
        if d is None:
            return None
        out: dict[str, Any] = {"kind": d.kind, "length": d.length, "reason": d.reason}
        out["fields"] = [{"field": f, first: x, second: y} for f, x, y in d.fields]
        if d.trace is not None:
            out["play"] = render_json(d.trace, f"legal under {first}")
        return out

    if fmt == "json":
        doc = {
            "a": rules_a,
            "b": rules_b,
            "depth": depth,
            "verdict": result.verdict,
            "note": result.note or None,
            "properties": rows,
            "a_to_b": one(result.a_to_b, "a", "b"),
            "b_to_a": one(result.b_to_a, "b", "a"),
        }
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
    else:
        click.echo(_safe(f"duelcheck diff {rules_a} {rules_b}   depth {depth}: {result.verdict}"))
        if result.note:
            click.echo(_safe(f"  ({result.note})"))
        if rows:
            click.echo(_safe(f"property\t{rules_a}\t{rules_b}"))
            for row in rows:
                mark = "" if row["same"] else "\t<- differs"
                click.echo(_safe(f"{row['property']}\t{row['a']}\t{row['b']}{mark}"))
        for d, x, y in ((result.a_to_b, rules_a, rules_b), (result.b_to_a, rules_b, rules_a)):
            if d is None:
                if result.verdict != "equivalent":
                    click.echo(_safe(f"\nno play legal under {x} that {y} refuses or ends elsewhere, up to {depth}"))
                continue
            if d.kind == "start":
                click.echo(_safe(f"\n{x} and {y} start from different states:"))
            else:
                steps = "step" if d.length == 1 else "steps"
                what = "refuses" if d.kind == "refused" else "ends elsewhere at"
                click.echo(
                    _safe(f"\nthe shortest play legal under {x} whose last step {y} {what} ({d.length} {steps}):")
                )
            if d.trace is not None:
                click.echo(_safe(render(d.trace, "", fold=False)))
            if d.kind == "refused":
                click.echo(_safe(f"  under {y}, step {d.length} is illegal: {d.reason}"))
            for f, vx, vy in d.fields:
                click.echo(_safe(f"  {f}: {vx} under {x}, {vy} under {y}"))
    unknown = result.verdict == "unknown" or any(r[k] in ("unknown", "interrupted") for r in rows for k in ("a", "b"))
    sys.exit(EXIT_UNKNOWN if unknown else EXIT_OK)
