"""A trace as a timeline picture: a self-contained SVG, built as a string (no external program).

Columns from left to right are the steps of the trace: column 0 is the initial state, column i the i-th
action and the state it led to. Along the top run two bands, the turns and the phases or steps of those
states; each column shows the step number, the action with its parameters and the player who decided it
(counterexamples/view.py `actor`); below, the Life Points of both players after each step as two lines,
in real points (the model holds them in units of 100). A marked step, a property's violating step or the
step that reaches a witness, is highlighted across the whole height.

Only presentation attributes are used, no <style> element and no id, so that several timelines can be
placed inline in one HTML page without one's styles or names reaching another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from duelcheck.engines.base import Trace
from duelcheck.graph import PHASE_WORDS, phase_label
from duelcheck.model.cards import BATTLE_PHASE, DAMAGE_STEP, MAIN_PHASES, Phase
from duelcheck.model.rules import ACTION_BY_NAME, PHASE_CLAUSE

FONT = "Helvetica, Arial, sans-serif"
PLAYER_COLOR = ("#1f6fb2", "#c0392b")  # player 0, player 1
MARK_FILL = "#ffd54f"

# Shorter names of the phases and steps, for bands too narrow for the rulebook's words (display only; the
# tooltip of every band gives the full name and clause). TINY are the players' usual abbreviations.
SHORT: dict[Phase, str] = {
    Phase.DRAW: "Draw",
    Phase.STANDBY: "Standby",
    Phase.MAIN1: "Main 1",
    Phase.BATTLE_START: "Start Step",
    Phase.BATTLE_STEP: "Battle Step",
    Phase.DMG_START: "DS start",
    Phase.DMG_BEFORE: "DS before",
    Phase.DMG_DURING: "DS during",
    Phase.DMG_AFTER: "DS after",
    Phase.DMG_END: "DS end",
    Phase.BATTLE_END: "End Step",
    Phase.MAIN2: "Main 2",
    Phase.END: "End",
}
TINY: dict[Phase, str] = {
    Phase.DRAW: "DP",
    Phase.STANDBY: "SP",
    Phase.MAIN1: "M1",
    Phase.BATTLE_START: "Start",
    Phase.BATTLE_STEP: "Battle",
    Phase.DMG_START: "DS 1",
    Phase.DMG_BEFORE: "DS 2",
    Phase.DMG_DURING: "DS 3",
    Phase.DMG_AFTER: "DS 4",
    Phase.DMG_END: "DS 5",
    Phase.BATTLE_END: "BP end",
    Phase.MAIN2: "M2",
    Phase.END: "EP",
}


@dataclass(frozen=True)
class Layout:
    """Sizes in pixels."""

    left: int = 118  # row captions
    col: int = 44  # one column per step
    right: int = 24
    title_h: int = 30
    band_h: int = 22
    index_h: int = 18
    action_h: int = 196
    player_h: int = 24
    chart_h: int = 132
    chart_pad: int = 16  # room above and below the LP lines for their labels
    legend_h: int = 34


def _t(text: object) -> str:
    return escape(str(text))


def _a(text: object) -> str:
    return quoteattr(str(text))


def _phase_fill(ph: Phase) -> str:
    if ph in DAMAGE_STEP:
        return "#f7c6b5"
    if ph in BATTLE_PHASE:
        return "#fbe0c4"
    if ph in MAIN_PHASES:
        return "#d5ecd4"
    if ph == Phase.END:
        return "#e4e0f0"
    return "#d8e6f5"


def _fit(options: list[str], width: float, size: float = 11) -> str:
    """The first text that fits the width (about 0.56 em a character), else the empty string."""
    for text in options:
        if len(text) * size * 0.56 + 6 <= width:
            return text
    return ""


def _runs(values: list[Any]) -> list[tuple[int, int, Any]]:
    """Runs of equal values: (first index, last index, value)."""
    runs: list[tuple[int, int, Any]] = []
    for i, v in enumerate(values):
        if runs and runs[-1][2] == v:
            runs[-1] = (runs[-1][0], i, v)
        else:
            runs.append((i, i, v))
    return runs


def trace_svg(
    ts: Any,
    trace: Trace,
    title: str,
    marked_step: int | None = None,
    mark_label: str = "marked step",
    layout: Layout | None = None,
) -> str:
    """A self-contained SVG timeline of `trace` (a Trace of `ts`, a TransitionSystem).

    `marked_step` is an index into trace.steps (0 is the initial state, len(trace) the last step) to
    highlight, with `mark_label` said under it; None marks nothing.
    """
    from duelcheck.counterexamples.view import actor, show_action

    L = layout or Layout()
    steps = trace.steps
    n = len(steps)
    if marked_step is not None and not 0 <= marked_step < n:
        raise ValueError(f"marked_step {marked_step} is not a step of this trace (0 to {n - 1})")
    scale = ts.schema["lp"].scale
    lps = [[int(st.state.g("lp", p)) * scale for st in steps] for p in (0, 1)]
    turns = [int(st.state.g("turn")) for st in steps]
    phases = [Phase(st.state.g("phase")) for st in steps]
    turn_player = [int(st.state.tp) for st in steps]
    deciders: list[int | None] = [None] + [actor(steps[i - 1].state, steps[i].action) for i in range(1, n)]

    width = L.left + n * L.col + L.right
    y_turn = L.title_h
    y_phase = y_turn + L.band_h
    y_index = y_phase + L.band_h
    y_action = y_index + L.index_h
    y_player = y_action + L.action_h
    y_chart = y_player + L.player_h + 8
    y_legend = y_chart + L.chart_h + 10
    height = y_legend + L.legend_h

    def x_of(i: int) -> float:
        return L.left + i * L.col

    def cx(i: int) -> float:
        return x_of(i) + L.col / 2

    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label={_a(title)} '
        f'font-family={_a(FONT)} font-size="11" class="duelcheck-timeline" data-steps="{n}">',
        f"<title>{_t(title)}</title>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="8" y="20" font-size="14" font-weight="bold" fill="#222222">{_t(title)}</text>',
    ]

    # the marked step: a band across the whole height, drawn first so that everything lies on it
    if marked_step is not None:
        x = x_of(marked_step)
        out.append(
            f'<rect class="marked-step" data-step="{marked_step}" x="{x + 1}" y="{y_turn}" width="{L.col - 2}" '
            f'height="{y_legend - y_turn}" fill="{MARK_FILL}" fill-opacity="0.55" stroke="#e0a800" '
            f'stroke-width="2" rx="3"><title>{_t(f"{mark_label}: step {marked_step}")}</title></rect>'
        )

    # row captions
    captions = [
        (y_turn, L.band_h, "turn"),
        (y_phase, L.band_h, "phase / step"),
        (y_index, L.index_h, "step"),
        (y_action, L.action_h, "action"),
        (y_player, L.player_h, "decided by"),
        (y_chart, 22, "Life Points"),
    ]
    for row_y, h, text in captions:
        out.append(f'<text x="8" y="{row_y + h / 2 + 4}" fill="#555555" font-size="11">{_t(text)}</text>')

    # bands: turns, then phases (runs of equal values)
    for first, last, turn in _runs(turns):
        x, w = x_of(first), (last - first + 1) * L.col
        tp = turn_player[first]
        text = _fit([f"Turn {turn}: player {tp}", f"Turn {turn}", f"T{turn}"], w, 11)
        out.append(
            f'<g class="turn-band" data-turn="{turn}"><title>{_t(f"Turn {turn}, player {tp} (6.3)")}</title>'
            f'<rect x="{x + 1}" y="{y_turn + 1}" width="{w - 2}" height="{L.band_h - 2}" rx="3" '
            f'fill="{PLAYER_COLOR[tp]}" fill-opacity="0.16" stroke="{PLAYER_COLOR[tp]}" stroke-opacity="0.5"/>'
            f'<text x="{x + w / 2}" y="{y_turn + 15}" text-anchor="middle" font-weight="bold" '
            f'fill="#222222">{_t(text)}</text></g>'
        )
    for first, last, ph in _runs(list(zip(turns, phases, strict=True))):
        phase = ph[1]
        x, w = x_of(first), (last - first + 1) * L.col
        words = [f"{PHASE_WORDS[phase]} {PHASE_CLAUSE[phase]}", PHASE_WORDS[phase], SHORT[phase], TINY[phase]]
        text = _fit(words, w, 10)
        out.append(
            f'<g class="phase-band" data-phase={_a(phase.name)}><title>{_t(phase_label(phase))}</title>'
            f'<rect x="{x + 1}" y="{y_phase + 1}" width="{w - 2}" height="{L.band_h - 2}" rx="3" '
            f'fill="{_phase_fill(phase)}" stroke="#9a9a9a" stroke-opacity="0.6"/>'
            f'<text x="{x + w / 2}" y="{y_phase + 15}" text-anchor="middle" font-size="10" '
            f'fill="#222222">{_t(text)}</text></g>'
        )

    # one column per step: its number, the action, who decided it
    for i, st in enumerate(steps):
        x = x_of(i)
        is_marked = i == marked_step
        if i == 0:
            shown, clause, who = "start of the duel", "", None
        else:
            shown = show_action(st.action, dict(st.params))
            act = ACTION_BY_NAME.get(st.action)
            clause = act.clause if act else ""
            who = deciders[i]
        tip = f"step {i}: " + (f"player {who}: " if who is not None else "") + shown
        tip += f" [{clause}]" if clause else ""
        tip += f"; then {phase_label(phases[i])}, turn {turns[i]}, LP {lps[0][i]} / {lps[1][i]}"
        room = int((L.action_h - 12) / 6.4)  # characters of 10.5 px monospace the row holds
        label = shown if len(shown) <= room else shown[: room - 1] + "\u2026"
        cls = "step marked" if is_marked else "step"
        ax, ay = cx(i) + 4, y_action + L.action_h - 6
        parts = [
            f'<g class="{cls}" data-step="{i}" data-action={_a(st.action)}>',
            f"<title>{_t(tip)}</title>",
            f'<rect x="{x}" y="{y_index}" width="{L.col}" height="{y_chart - y_index - 4}" '
            f'fill="{"#000000" if i % 2 else "#ffffff"}" fill-opacity="{0.035 if i % 2 else 0}"/>',
            f'<text x="{cx(i)}" y="{y_index + 13}" text-anchor="middle" fill="#444444" '
            f'font-weight="{"bold" if is_marked else "normal"}">{i}</text>',
            f'<text x="{ax}" y="{ay}" transform="rotate(-90 {ax} {ay})" fill="#222222" '
            f'font-family="Menlo, Consolas, monospace" font-size="10.5">{_t(label)}</text>',
        ]
        if who is not None:
            py = y_player + L.player_h / 2
            parts.append(
                f'<circle cx="{cx(i)}" cy="{py}" r="9" fill="{PLAYER_COLOR[who]}"/>'
                f'<text x="{cx(i)}" y="{py + 4}" text-anchor="middle" fill="#ffffff" font-size="10" '
                f'font-weight="bold">P{who}</text>'
            )
        parts.append("</g>")
        out.append("".join(parts))

    # Life Points: both players after each step, in real points
    top = max(max(lps[0]), max(lps[1]), ts.rules.starting_lp, 1)
    bottom = min(0, min(lps[0]), min(lps[1]))
    inner_top, inner_h = y_chart + L.chart_pad, L.chart_h - 2 * L.chart_pad

    def y_of(v: int) -> float:
        return inner_top + (top - v) / (top - bottom) * inner_h

    for v in sorted({bottom, 0, top // 2, top}):
        y = y_of(v)
        out.append(
            f'<line x1="{L.left}" y1="{y:.1f}" x2="{x_of(n)}" y2="{y:.1f}" stroke="#cccccc" '
            f'stroke-dasharray="3 3"/><text x="{L.left - 8}" y="{y + 4:.1f}" text-anchor="end" '
            f'font-size="10" fill="#777777">{v}</text>'
        )
    for p in (0, 1):
        pts = " ".join(f"{cx(i):.1f},{y_of(v):.1f}" for i, v in enumerate(lps[p]))
        color = PLAYER_COLOR[p]
        out.append(f'<g class="lp-line" data-player="{p}">')
        out.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="2.2"/>')
        for i, v in enumerate(lps[p]):
            y = y_of(v)
            tip = _t(f"step {i}: player {p} has {v} LP")
            out.append(f'<circle cx="{cx(i):.1f}" cy="{y:.1f}" r="2.8" fill="{color}"><title>{tip}</title></circle>')
            if i == 0 or v != lps[p][i - 1] or i == n - 1:
                dy = -7 if p == 0 else 15  # player 0's value above its line, player 1's below
                out.append(
                    f'<text class="lp-value" data-player="{p}" data-step="{i}" x="{cx(i):.1f}" y="{y + dy:.1f}" '
                    f'text-anchor="middle" font-size="10" font-weight="bold" fill="{color}">{v}</text>'
                )
        out.append("</g>")

    # legend
    ly = y_legend + 20
    legend = [
        f'<line x1="{L.left}" y1="{ly - 4}" x2="{L.left + 22}" y2="{ly - 4}" stroke="{PLAYER_COLOR[0]}" '
        f'stroke-width="2.2"/><text x="{L.left + 28}" y="{ly}" fill="#333333">player 0 LP</text>',
        f'<line x1="{L.left + 110}" y1="{ly - 4}" x2="{L.left + 132}" y2="{ly - 4}" stroke="{PLAYER_COLOR[1]}" '
        f'stroke-width="2.2"/><text x="{L.left + 138}" y="{ly}" fill="#333333">player 1 LP</text>',
    ]
    if marked_step is not None:
        legend.append(
            f'<rect x="{L.left + 230}" y="{ly - 11}" width="14" height="14" fill="{MARK_FILL}" stroke="#e0a800"/>'
            f'<text class="mark-label" x="{L.left + 250}" y="{ly}" fill="#333333">'
            f"{_t(f'{mark_label}: step {marked_step}')}</text>"
        )
    out.append(f'<g class="legend">{"".join(legend)}</g>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


__all__ = ["Layout", "trace_svg"]
