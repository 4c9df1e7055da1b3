"""`duelcheck graph`: the phase and step graph as a picture."""

from __future__ import annotations

import click

from duelcheck.cli._core import _emit, _guard, main
from duelcheck.errors import InputError, InternalError

GRAPHVIZ_HINT = "install Graphviz (apt-get install graphviz; brew install graphviz) or use --format dot"


@main.command("graph")
@click.option(
    "--rules",
    "rules_file",
    type=click.Path(),
    help="A TOML file of rule parameters, or a preset's name (duelcheck presets lists them).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["dot", "svg"]),
    default="dot",
    show_default=True,
    help="Graphviz DOT text, or an SVG picture drawn by Graphviz's dot program.",
)
@click.option("--out", "out_file", type=click.Path(dir_okay=False), help="Write here (default: stdout).")
@_guard
def graph_cmd(rules_file: str | None, fmt: str, out_file: str | None) -> None:
    """Draw the phases and steps of a turn (6.3) as the rules allow them, derived from the transition relation:
    edges possible only on turn 1 dashed, phases not reached on turn 1 grey."""
    from duelcheck.graph import dot_available, phase_graph, render_svg, to_dot
    from duelcheck.rules import load_rules

    rules = load_rules(rules_file)
    if fmt == "svg" and not dot_available():  # said before the derivation, not after it
        raise InputError(f"--format svg: Graphviz's dot program is not installed: {GRAPHVIZ_HINT}")
    graph = phase_graph(rules)
    text = to_dot(graph, "duelcheck: the phases and steps of a turn (6.3)")
    if fmt == "svg":
        try:
            svg = render_svg(text)
        except RuntimeError as exc:
            raise InternalError(str(exc)) from None
        if svg is None:
            raise InputError(f"--format svg: Graphviz's dot program is not installed: {GRAPHVIZ_HINT}")
        text = svg
    _emit(text, out_file)
