"""One self-contained HTML page of a check run: the rules, the verdicts, a timeline of every trace, and the
phase graph.

The page loads nothing: its CSS is inline, its pictures are inline SVG, it runs no script, and every link
in it is an anchor within the page. Text from the run (property names, notes, file names) is escaped.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from duelcheck.engines.base import Result, Trace
from duelcheck.graph import inline_svg
from duelcheck.rules import Rules
from duelcheck.version import __version__

if TYPE_CHECKING:
    from duelcheck.engines.checker import Report

CSS = """
body { font-family: Helvetica, Arial, sans-serif; color: #222; margin: 0 auto; max-width: 1280px;
       padding: 0 24px 48px; line-height: 1.4; }
h1 { font-size: 1.6em; margin: 24px 0 4px; }
h2 { font-size: 1.25em; margin-top: 32px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 1.05em; margin: 24px 0 4px; }
p.meta, p.note { color: #555; margin: 4px 0; }
nav a { margin-right: 14px; }
a { color: #1f5fa0; }
table { border-collapse: collapse; margin: 8px 0; font-size: 0.92em; }
th, td { border: 1px solid #d4d4d4; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f0f3f7; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.changed td { background: #fff6d6; font-weight: bold; }
td.note { max-width: 420px; color: #444; }
.verdict { font-weight: bold; padding: 1px 6px; border-radius: 3px; white-space: nowrap; }
.v-holds, .v-found { background: #dff3e0; color: #1d6b2a; }
.v-unreachable { background: #dcf1f5; color: #15606e; }
.v-violated, .v-not-found { background: #fbe0dd; color: #a32016; }
.v-unknown, .v-interrupted { background: #fff1c7; color: #7a5a00; }
.summary { display: inline-block; padding: 6px 10px; border-radius: 4px; background: #f4f4f4; }
.timeline { overflow-x: auto; border: 1px solid #e2e2e2; border-radius: 4px; padding: 4px; background: #fff; }
.graph { overflow-x: auto; }
.graph svg { max-width: 100%; height: auto; }
pre { background: #f6f8fa; border: 1px solid #e2e2e2; padding: 10px; overflow-x: auto; font-size: 0.85em; }
code { font-family: Menlo, Consolas, monospace; font-size: 0.92em; }
"""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "x"


def result_anchor(index: int, r: Result) -> str:
    """The id of a result's row in the results table."""
    return f"result-{index}-{_slug(r.label)}"


def trace_anchor(index: int, r: Result) -> str:
    """The id of a result's timeline."""
    return f"trace-{index}-{_slug(r.label)}"


def _trace_of(ts: Any, r: Result, folder: Path | None) -> tuple[Trace | None, str | None]:
    """The result's trace (in memory, else read from its file) and the file it is in, if any."""
    candidates: list[Path] = []
    if r.trace_path:
        candidates.append(Path(r.trace_path))
    if folder is not None:
        candidates.append(folder / f"{r.label}.itf.json")
        if r.case:
            candidates.append(folder / f"{r.prop}.{r.case}.itf.json")
    path = next((p for p in candidates if p.is_file()), None)
    if r.trace is not None:
        return r.trace, str(path) if path is not None else r.trace_path
    if path is None:
        return None, None
    from duelcheck.counterexamples.itf import itf_to_trace, load_json

    return itf_to_trace(ts, load_json(path), str(path)), str(path)


def _verdict(v: str) -> str:
    return f'<span class="verdict v-{escape(v)}">{escape(v)}</span>'


def _rules_section(rules: Rules) -> str:
    changed = rules.changed()
    official = Rules()
    if changed:
        said = ", ".join(f"<code>{escape(w)}</code>" for w in rules.words(lambda k, v: f"{k} = {_value(v)}"))
        head = f"<p>Changed from the official rules: {said}.</p>"
    else:
        head = "<p>The official rules: no rule parameter changed.</p>"
    rows = []
    for name, spec in Rules.model_fields.items():
        if name == "changes":  # said in words above
            continue
        value, default = getattr(rules, name), getattr(official, name)
        cls = ' class="changed"' if name in changed else ""
        rows.append(
            f"<tr{cls}><td><code>{escape(name)}</code></td><td>{escape(_value(value))}</td>"
            f"<td>{escape(_value(default))}</td><td>{escape(spec.description or '')}</td></tr>"
        )
    return (
        '<section id="rules"><h2>Rules</h2>'
        + head
        + '<table class="rules"><thead><tr><th>parameter</th><th>this run</th><th>official</th>'
        + "<th>meaning</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></section>"
    )


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _graph_section(graph: str | None) -> str:
    if graph is None:
        body = "<p>No phase graph was given.</p>"
    elif graph.lstrip().startswith(("<svg", "<?xml", "<!DOCTYPE svg", "<!--")) and "<svg" in graph:
        body = f'<div class="graph">{inline_svg(graph)}</div>'
    else:
        body = (
            "<p>The graph is given as Graphviz DOT text. To draw it, install Graphviz "
            "(<code>apt-get install graphviz</code>) and run <code>duelcheck graph --format svg</code>, "
            "or paste the text into any Graphviz viewer.</p>"
            f'<pre class="dot">{escape(graph)}</pre>'
        )
    return (
        '<section id="phase-graph"><h2>Phase graph</h2>'
        "<p>The phases and steps of a turn (6.3) as the model allows them under these rules, derived from the "
        "transition relation (<code>duelcheck graph</code>).</p>" + body + "</section>"
    )


def report_html(
    report: Report,
    folder_of_traces: str | Path | None,
    graph_svg_or_dot: str | None,
    title: str = "duelcheck check report",
) -> str:
    """The HTML page of a check run.

    `report` is an engines.checker.Report; traces are taken from the results, or read from
    `folder_of_traces` (the run's folder of .itf.json files) for results that hold only a path;
    `graph_svg_or_dot` is the phase graph as SVG (placed inline) or as DOT text (shown as text).
    """
    from duelcheck.model.system import TransitionSystem
    from duelcheck.timeline import trace_svg

    folder = Path(folder_of_traces) if folder_of_traces is not None else None
    ts = TransitionSystem(report.rules)
    results: list[Result] = list(report.results)
    traces = [_trace_of(ts, r, folder) for r in results]

    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    tally = ", ".join(f"{n} {v}" for v, n in counts.items()) or "no results"
    rules_line = ", ".join(report.rules.words(lambda k, v: f"{k} = {_value(v)}")) or "official rules"

    rows = []
    for i, (r, (trace, _path)) in enumerate(zip(results, traces, strict=True)):
        bound = "all" if r.proved else str(r.bound)
        length = "" if trace is None else str(len(trace))
        minimal = "" if trace is None else ("yes" if r.minimal else "no")
        link = f'<a href="#{trace_anchor(i, r)}">timeline</a>' if trace is not None else ""
        rows.append(
            f'<tr id="{result_anchor(i, r)}" class="result"><td><code>{escape(r.label)}</code></td>'
            f'<td>{escape(r.kind)}</td><td>{_verdict(r.verdict)}</td><td class="num">{escape(bound)}</td>'
            f'<td class="num">{length}</td><td>{minimal}</td><td class="num">{r.seconds:.1f}</td>'
            f'<td>{escape(r.engine)}</td><td class="note">{escape(r.note)}</td><td>{link}</td></tr>'
        )
    results_section = (
        '<section id="results"><h2>Results</h2>'
        f'<p class="summary">{escape(tally)} in {report.seconds:.1f} s; bound {report.depth} steps</p>'
        '<table class="results"><thead><tr><th>property</th><th>kind</th><th>verdict</th><th>bound</th>'
        "<th>length</th><th>minimal</th><th>seconds</th><th>engine</th><th>note</th><th>trace</th></tr></thead>"
        "<tbody>" + "".join(rows) + "</tbody></table></section>"
    )

    pictures = []
    for i, (r, (trace, path)) in enumerate(zip(results, traces, strict=True)):
        if trace is None:
            continue
        mark = "violated here" if r.verdict == "violated" or r.kind == "always" else "reached here"
        what = f"{r.kind} {r.label}: {r.verdict}, {len(trace)} steps"
        svg = trace_svg(ts, trace, what, marked_step=len(trace.steps) - 1, mark_label=mark)
        where = f'<p class="meta">trace file: <code>{escape(path)}</code></p>' if path else ""
        pictures.append(
            f'<article id="{trace_anchor(i, r)}" class="trace"><h3><code>{escape(r.label)}</code> '
            f"{_verdict(r.verdict)}</h3>{where}"
            f'<p class="note">{escape(r.note)}</p>'
            f'<div class="timeline">{svg}</div>'
            f'<p><a href="#{result_anchor(i, r)}">back to the results</a></p></article>'
        )
    traces_section = (
        '<section id="traces"><h2>Traces</h2>'
        + (
            "<p>Each column is a step: the action taken, the player who decided it, and the state it led to "
            "(turn, phase or step, Life Points). The highlighted column is the property's violating step, or "
            "the step that reaches a witness.</p>" + "".join(pictures)
            if pictures
            else "<p>No result of this run has a trace.</p>"
        )
        + "</section>"
    )

    head = (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
    )
    intro = (
        f"<header><h1>{escape(title)}</h1>"
        f'<p class="meta">duelcheck {escape(__version__)}; rules: {escape(rules_line)}; '
        f"bound {report.depth} steps; {len(results)} results in {report.seconds:.1f} s</p>"
        '<nav><a href="#rules">Rules</a><a href="#results">Results</a><a href="#traces">Traces</a>'
        '<a href="#phase-graph">Phase graph</a></nav></header>'
    )
    return "\n".join(
        (
            head,
            intro,
            _rules_section(report.rules),
            results_section,
            traces_section,
            _graph_section(graph_svg_or_dot),
            "</body></html>\n",
        )
    )


__all__ = ["report_html", "result_anchor", "trace_anchor"]


def difftest_html(report: Any, title: str = "duelcheck difftest report") -> str:
    """The HTML page of a difftest run (`report` is a duelcheck.difftest.DiffReport): what was compared, what
    the rules' side of the plays took, and every finding with its shortest play's last steps."""
    data = report.to_json()
    findings = []
    for i, f in enumerate(report.findings, 1):
        steps = ""
        if f.log is not None:
            tail = [
                escape(", ".join(f"{k}={_value(v)}" for k, v in a.items() if k not in ("observed", "note")))
                for a in f.log["actions"][-6:]
            ]
            steps = '<ol class="steps">' + "".join(f"<li><code>{t}</code></li>" for t in tail) + "</ol>"
        length = "" if f.shortest is None else f"shortest play: {len(f.shortest.choices)} choices"
        findings.append(
            f'<section id="finding-{i}"><h3>{i}. [{escape(f.clause)}] {escape(f.kind)} '
            f"<code>{escape(f.subject)}</code></h3><p>{escape(f.detail)}</p>"
            f'<p class="meta">{f.count} times in {len(set(f.plays))} plays; {escape(length)}; '
            f"the log's last steps:</p>{steps}</section>"
        )
    exercised = ", ".join(f"{n} <code>{escape(k)}</code>" for k, n in data["rules_steps"].items())
    aimed = ""
    if data["guided_plays"]:
        rows = "".join(
            f"<tr><td><code>{escape(g['aim'])}</code></td><td>{escape(g['clause'])}</td><td>{escape(g['what'])}</td>"
            f"<td>{escape(g['status'])}</td><td>{'yes' if g['reached'] else 'no'}</td></tr>"
            for g in data["guided_plays"]
        )
        aimed = (
            '<section id="guided"><h2>Guided plays</h2><p>The solver\'s shortest play to each aim, played on both '
            "sides before the random plays.</p><table><tr><th>aim</th><th>clause</th><th>what</th>"
            f"<th>solver</th><th>reached on both sides</th></tr>{rows}</table></section>"
        )
    body = (
        f"<h1>{escape(title)}</h1>"
        f'<p class="meta">duelcheck {escape(__version__)} against {escape(report.engine)}: {report.plays} plays '
        f"of up to {report.turns} turns, seed {report.seed}</p>"
        '<section id="summary"><h2>Compared</h2>'
        f"<p>{report.decisions} decisions compared, {report.offers_compared} offered actions compared, "
        f"{report.steps} actions taken; {data['disagreements']} disagreements in {len(report.findings)} "
        f"findings; {report.duels_won} duels won.</p><p>The rules' steps in these plays: {exercised}.</p>"
        "</section>"
        + aimed
        + '<section id="findings"><h2>Findings</h2>'
        + ("".join(findings) or "<p>No disagreement.</p>")
        + "</section>"
        + _rules_section(report.rules)
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{CSS}</style></head><body>{body}</body></html>\n"
    )
