"""`duelcheck rules`: every action of the model under a rule set, with its clause, parameters and guards."""

from __future__ import annotations

import json
from typing import Any

import click

from duelcheck.cli._core import _guard, _safe, main


def rulebook(rules: Any) -> list[dict[str, Any]]:
    """The rules as the model holds them: each action with its clause, what it does, its parameters (a
    composite: the actions it takes), and each guard with its stable name (`action.slug`), the clause it cites,
    the words a judge says when it fails, and whether it is a rule of the game (`rule`) or the model's own
    bound on parameters or shortcut (`model`)."""
    from duelcheck.engines.boards.guards import collect_guards
    from duelcheck.model.rules import ACTIONS
    from duelcheck.model.system import NoHistory, TransitionSystem

    table = {ag.action.name: ag for ag in collect_guards(TransitionSystem(rules, NoHistory()))}
    out: list[dict[str, Any]] = []
    for act in ACTIONS:
        entry: dict[str, Any] = {
            "action": act.name,
            "clause": act.clause,
            "doc": act.doc.split("\n\n")[0].replace("\n", " "),
            "params": list(act.params),
        }
        if act.parts is not None:
            entry["composite"] = True
            entry["guards"] = []
        else:
            ag = table[act.name]
            entry["guards"] = [
                {
                    "name": f"{act.name}.{g.slug}",
                    "clause": g.clause,
                    "reason": _words(g.said),
                    "kind": "rule" if g.tested else ("model" if g.reason.startswith("model") else "part"),
                }
                for g in ag.guards
            ]
        out.append(entry)
    return out


def _words(said: Any) -> str:
    """A guard's words: the text, or for words that depend on the state, the first line of what says them."""
    if callable(said):
        doc = (said.__doc__ or "").strip().split("\n")[0]
        return f"(words that depend on the state: {said.__name__}) {doc}".rstrip()
    return str(said)


@main.command("rules")
@click.option("--rules", "rules_file", help="Rules: a TOML file or a preset (default: the official rules).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@_guard
def rules_cmd(rules_file: str | None, fmt: str) -> None:
    """List every action with its clause and parameters, and every guard with its stable name, clause and
    the judge's words: the rulebook as the model holds it under these rules."""
    from duelcheck.rules import load_rules

    book = rulebook(load_rules(rules_file))
    if fmt == "json":
        click.echo(json.dumps(book, indent=2, ensure_ascii=False))
        return
    for entry in book:
        params = ", ".join(entry["params"]) or "none"
        head = f"{entry['action']}  [{entry['clause']}]  parameters: {params}"
        click.echo(_safe(head + ("  (composite: its parts' guards)" if entry.get("composite") else "")))
        click.echo(_safe(f"  {entry['doc']}"))
        for g in entry["guards"]:
            mark = "" if g["kind"] == "rule" else f" ({g['kind']})"
            click.echo(_safe(f"  - {g['name']}  [{g['clause']}]{mark}: {g['reason']}"))
        click.echo("")
