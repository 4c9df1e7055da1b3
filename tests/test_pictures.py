"""The pictures: the phase graph derived from the transition relation, trace timelines, the HTML report,
and the `graph` command."""

from __future__ import annotations

import dataclasses
import os
import random
import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from duelcheck.cli import main
from duelcheck.engines.base import Result, Trace
from duelcheck.engines.checker import Checker, Report
from duelcheck.graph import Edge, PhaseGraph, phase_graph, render_svg, to_dot
from duelcheck.htmlreport import report_html, result_anchor, trace_anchor
from duelcheck.model.cards import POINTS, Phase
from duelcheck.model.state import State
from duelcheck.model.system import Step, TransitionSystem, parts_of
from duelcheck.properties import BY_NAME
from duelcheck.rules import Rules, rules_from_mapping
from duelcheck.timeline import trace_svg

HAS_DOT = shutil.which("dot") is not None
SVG = "{http://www.w3.org/2000/svg}"


# -- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def official() -> PhaseGraph:
    return phase_graph(Rules())


@pytest.fixture(scope="module")
def turn_one_battle() -> PhaseGraph:
    return phase_graph(Rules(first_turn_battle=True))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Path]:
    """A real check run: reach-main2 by bounded search (a witness of 11 steps), its trace written to a folder."""
    out = tmp_path_factory.mktemp("run")
    checker = Checker(Rules(), depth=11, out=out, prove=False, simulate=False, cache=None)
    report = checker.run([BY_NAME["reach-main2"]])
    checker.write(report)
    return report, out


def traced(report: Report) -> list[Result]:
    return [r for r in report.results if r.trace is not None]


def phase_changes(trace: Trace) -> list[tuple[Phase, Phase, bool]]:
    """Every change of phase in a concrete play, step by fine step (a composite step as its parts):
    (before, after, on turn 1)."""
    out = []
    for whole_pre, whole in zip(trace.steps, trace.steps[1:], strict=False):
        a = whole_pre
        for b in parts_of(whole_pre.state, whole.action, whole.params, whole.state):
            before, after = Phase(a.state.g("phase")), Phase(b.state.g("phase"))
            if before != after:
                out.append((before, after, a.state.g("turn") == 1))
            a = b
    return out


# -- the phase graph --------------------------------------------------------------------------


def test_official_graph_has_main2_and_no_battle_on_turn_one(official: PhaseGraph) -> None:
    assert official.start == Phase.DRAW
    assert Phase.MAIN2 in official.nodes
    assert official.has_edge(Phase.BATTLE_END, Phase.MAIN2)
    # 6.3.4: the player who goes first cannot conduct a Battle Phase on turn 1 ...
    assert official.has_edge(Phase.MAIN1, Phase.BATTLE_START)
    assert not official.has_edge(Phase.MAIN1, Phase.BATTLE_START, turn_one=True)
    assert official.has_edge(Phase.MAIN1, Phase.BATTLE_START, turn_one=False)
    assert Phase.BATTLE_START not in official.turn_one_nodes
    assert Phase.MAIN2 not in official.turn_one_nodes
    # ... so turn 1 goes from Main Phase 1 to the End Phase, then to the next turn's Draw Phase
    assert official.has_edge(Phase.MAIN1, Phase.END, turn_one=True)
    back = official.edge(Phase.END, Phase.DRAW)
    assert back is not None and back.new_turn
    # the five timings of the Damage Step in order (6.3.4.3.1 to 6.3.4.3.5)
    for a, b in zip(
        (Phase.DMG_START, Phase.DMG_BEFORE, Phase.DMG_DURING, Phase.DMG_AFTER),
        (Phase.DMG_BEFORE, Phase.DMG_DURING, Phase.DMG_AFTER, Phase.DMG_END),
        strict=True,
    ):
        assert official.has_edge(a, b)
    assert not official.has_edge(Phase.DMG_START, Phase.DMG_END)  # no timing skipped


def test_every_node_is_reached_from_the_draw_phase(official: PhaseGraph) -> None:
    seen, todo = {official.start}, [official.start]
    while todo:
        ph = todo.pop()
        for e in official.edges:
            if e.src == ph and e.dst not in seen:
                seen.add(e.dst)
                todo.append(e.dst)
    assert seen == set(official.nodes)
    assert all(e.src in official.nodes and e.dst in official.nodes for e in official.edges)
    assert all(e.src != e.dst for e in official.edges)


@pytest.mark.parametrize("rules", [{"main_phase_2": False}, {"preset": "speed"}], ids=["main_phase_2=false", "speed"])
def test_no_main_phase_2_node_without_it(rules: dict[str, Any]) -> None:
    g = phase_graph(rules_from_mapping(rules))
    assert Phase.MAIN2 not in g.nodes
    assert all(Phase.MAIN2 not in (e.src, e.dst) for e in g.edges)
    assert g.has_edge(Phase.BATTLE_END, Phase.END)  # 6.3.5 read with the knob: the Battle Phase leads to the End Phase


def test_first_turn_battle_gains_the_turn_one_edge(turn_one_battle: PhaseGraph) -> None:
    assert turn_one_battle.has_edge(Phase.MAIN1, Phase.BATTLE_START, turn_one=True)
    assert Phase.BATTLE_START in turn_one_battle.turn_one_nodes
    assert Phase.MAIN2 in turn_one_battle.turn_one_nodes


def test_a_real_play_only_takes_edges_of_the_graph(run: tuple[Report, Path], official: PhaseGraph) -> None:
    """The graph over-approximates: every change of phase in a certified trace is an edge, on the right turn."""
    report, _ = run
    (result,) = traced(report)
    assert result.trace is not None
    changes = phase_changes(result.trace)
    assert changes and (Phase.BATTLE_END, Phase.MAIN2, False) in changes
    for before, after, on_turn_one in changes:
        assert official.has_edge(before, after, turn_one=on_turn_one), (before, after, on_turn_one)


def test_a_random_play_only_takes_edges_of_the_graph(turn_one_battle: PhaseGraph) -> None:
    ts = TransitionSystem(turn_one_battle.rules)
    rng = random.Random(7)
    s = ts.init()
    steps = [Step("init", {}, s)]
    for _ in range(70):
        succ = list(ts.successors(s))
        if not succ:
            break
        ends = [st for st in succ if st.action == "end_step"]  # lean towards ending steps: more phases seen
        st = rng.choice(ends if ends and rng.random() < 0.6 else succ)
        steps.append(st)
        s = st.state
    changes = phase_changes(Trace(steps))
    assert len(changes) >= 10
    for before, after, on_turn_one in changes:
        assert turn_one_battle.has_edge(before, after, turn_one=on_turn_one), (before, after, on_turn_one)


def test_graph_is_derived_in_a_few_seconds(official: PhaseGraph) -> None:
    assert 0 < official.seconds < 30  # measured about 3 s on two busy cores
    assert official.solver_calls > len(official.edges)


# -- DOT and SVG ------------------------------------------------------------------------------


def dot_line(dot: str, src: Phase, dst: Phase) -> str:
    lines = [ln for ln in dot.splitlines() if ln.strip().startswith(f"{src.name} -> {dst.name} ")]
    assert len(lines) == 1, (src, dst)
    return lines[0]


def test_dot_speaks_the_rulebook(official: PhaseGraph) -> None:
    dot = to_dot(official, "a <title> & more")
    assert dot.startswith("digraph")
    for words in ("Draw Phase", "Battle Step", "Damage Step: before", "damage calculation", "Main Phase 2"):
        assert words in dot
    for clause in ("6.3.1", "6.3.4.2", "6.3.4.3.2", "6.3.5", "6.3.6", "Battle Phase (6.3.4)"):
        assert clause in dot
    assert "not on turn 1" in dot_line(dot, Phase.MAIN1, Phase.BATTLE_START)
    assert "next turn" in dot_line(dot, Phase.END, Phase.DRAW)
    assert "dashed" not in dot_line(dot, Phase.MAIN1, Phase.END)


def test_dot_dashes_and_labels_turn_one_only_edges() -> None:
    g = PhaseGraph(
        rules=Rules(first_turn_battle=True),
        start=Phase.DRAW,
        nodes=(Phase.DRAW, Phase.STANDBY),
        edges=(
            Edge(Phase.DRAW, Phase.STANDBY, turn_one=True, later=False, new_turn=False, actions=("pass",)),
            Edge(Phase.STANDBY, Phase.DRAW, turn_one=True, later=True, new_turn=True, actions=("pass",)),
        ),
        turn_one_nodes=frozenset({Phase.DRAW, Phase.STANDBY}),
    )
    dot = to_dot(g, 'say "hi"')
    line = dot_line(dot, Phase.DRAW, Phase.STANDBY)
    assert "dashed" in line and "turn 1 only" in line
    assert "dashed" not in dot_line(dot, Phase.STANDBY, Phase.DRAW)
    assert "first_turn_battle = true" in dot
    assert 'say \\"hi\\"' in dot


def test_render_svg_without_graphviz_gives_none(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert render_svg("digraph { a -> b }") is None


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz (dot) is not installed")
def test_render_svg_with_graphviz(official: PhaseGraph) -> None:
    svg = render_svg(to_dot(official, "phases"))
    assert svg is not None
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    texts = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "Main Phase 2" in texts and "6.3.4.2" in texts


# -- timelines --------------------------------------------------------------------------------


def with_lp(s: State, player: int, lp: int) -> State:
    v = dict(s.v)
    v[("lp", player)] = lp
    return State(s.k, s.r, s.schema, v)


def test_timeline_svg(run: tuple[Report, Path]) -> None:
    report, _ = run
    (result,) = traced(report)
    assert result.trace is not None
    ts = TransitionSystem(report.rules)
    steps = list(result.trace.steps)
    last = steps[-1]
    lowered = with_lp(last.state, 1, last.state.g("lp", 1) - 45)  # a change the picture must show in points
    trace = Trace([*steps[:-1], Step(last.action, last.params, lowered)])
    marked = len(trace)
    svg = trace_svg(ts, trace, "reach-main2 <found> & marked", marked_step=marked, mark_label="reached here")
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    columns = [g for g in root.iter(f"{SVG}g") if "step" in (g.get("class") or "").split()]
    assert [int(g.get("data-step", "-1")) for g in columns] == list(range(len(trace.steps)))
    assert [g.get("data-action") for g in columns[1:]] == [st.action for st in trace.steps[1:]]
    marked_cols = [g for g in columns if "marked" in (g.get("class") or "").split()]
    assert [g.get("data-step") for g in marked_cols] == [str(marked)]
    assert [r.get("data-step") for r in root.iter(f"{SVG}rect") if r.get("class") == "marked-step"] == [str(marked)]
    values = {
        (t.get("data-player"), t.get("data-step")): t.text
        for t in root.iter(f"{SVG}text")
        if t.get("class") == "lp-value"
    }
    start = str(report.rules.starting_lp)
    assert start == "8000"
    assert values[("0", "0")] == start and values[("1", "0")] == start
    assert values[("1", str(marked))] == str((trace.steps[-1].state.g("lp", 1)) * POINTS) == "3500"
    for p in ("0", "1"):
        (line,) = [g for g in root.iter(f"{SVG}g") if g.get("class") == "lp-line" and g.get("data-player") == p]
        (poly,) = line.iter(f"{SVG}polyline")
        assert len((poly.get("points") or "").split()) == len(trace.steps)
    phases = [g.get("data-phase") for g in root.iter(f"{SVG}g") if g.get("class") == "phase-band"]
    assert phases[0] == "DRAW" and phases[-1] == "MAIN2"
    all_text = "".join(root.itertext())
    assert "reach-main2 <found> & marked" in all_text and "reached here: step" in all_text


def test_timeline_without_a_mark_and_with_a_bad_mark(run: tuple[Report, Path]) -> None:
    report, _ = run
    (result,) = traced(report)
    assert result.trace is not None
    ts = TransitionSystem(report.rules)
    root = ET.fromstring(trace_svg(ts, result.trace, "plain"))
    assert not [g for g in root.iter(f"{SVG}g") if "marked" in (g.get("class") or "").split()]
    with pytest.raises(ValueError):
        trace_svg(ts, result.trace, "x", marked_step=len(result.trace.steps))


# -- the HTML report --------------------------------------------------------------------------


class Page(HTMLParser):
    """What the tests look at in a page: ids, links, table rows, and where the SVG and <pre> are."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: dict[str, str] = {}
        self.hrefs: list[str] = []
        self.tags: list[str] = []
        self.attrs: list[dict[str, str | None]] = []
        self.result_rows: list[str] = []
        self.changed_rows = 0
        self.stack: list[tuple[str, str | None]] = []
        self.svg_in: dict[str, int] = {}  # the id of the enclosing section or article -> SVG count
        self.pre_text = ""
        self._in_pre = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append(tag)
        self.attrs.append(a)
        if a.get("id"):
            self.ids[str(a["id"])] = tag
        if tag == "a" and a.get("href") is not None:
            self.hrefs.append(str(a["href"]))
        if tag == "tr" and a.get("class") == "result":
            self.result_rows.append(str(a.get("id")))
        if tag == "tr" and a.get("class") == "changed":
            self.changed_rows += 1
        if tag == "svg":
            for _, ident in self.stack:
                if ident:
                    self.svg_in[ident] = self.svg_in.get(ident, 0) + 1
        if tag == "pre":
            self._in_pre = True
        if tag in ("section", "article"):
            self.stack.append((tag, a.get("id")))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("section", "article") and self.stack:
            self.stack.pop()
        if tag == "pre":
            self._in_pre = False

    def handle_data(self, data: str) -> None:
        if self._in_pre:
            self.pre_text += data


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


def check_page(page: Page, report: Report) -> None:
    assert page.tags[0] == "html"
    assert len(page.result_rows) == len(report.results)
    for i, r in enumerate(report.results):
        assert result_anchor(i, r) in page.ids
        if r.verdict in ("found", "violated"):
            anchor = trace_anchor(i, r)
            assert f"#{anchor}" in page.hrefs and page.ids.get(anchor) == "article"
            assert page.svg_in.get(anchor) == 1  # its timeline, inline
            assert f"#{result_anchor(i, r)}" in page.hrefs  # and the way back
    # self-contained: nothing loaded, nothing run, every link within the page
    assert not {"script", "link", "img", "iframe", "object"} & set(page.tags)
    assert all("src" not in a for a in page.attrs)
    assert page.hrefs and all(h.startswith("#") and h[1:] in page.ids for h in page.hrefs)


def test_html_report_with_dot_text(run: tuple[Report, Path], official: PhaseGraph) -> None:
    report, folder = run
    assert traced(report)
    html = report_html(report, folder, to_dot(official, "phases <of> a turn"))
    page = parse(html)
    check_page(page, report)
    assert page.svg_in.get("phase-graph", 0) == 0
    assert page.pre_text.startswith("digraph") and "phases <of> a turn" in page.pre_text
    assert "apt-get install graphviz" in html


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz (dot) is not installed")
def test_html_report_with_svg_graph(run: tuple[Report, Path], official: PhaseGraph) -> None:
    report, folder = run
    svg = render_svg(to_dot(official, "phases"))
    assert svg is not None
    page = parse(report_html(report, folder, svg))
    check_page(page, report)
    assert page.svg_in.get("phase-graph") == 1
    assert page.pre_text == ""


def test_html_report_reads_traces_from_the_folder(run: tuple[Report, Path]) -> None:
    report, folder = run
    assert list(folder.glob("*.itf.json"))
    bare = [dataclasses.replace(r, trace=None, trace_path=None) for r in report.results]
    changed = Rules(hand_limit=7)
    again = Report(changed, report.depth, bare, report.seconds)
    html = report_html(again, folder, None)
    page = parse(html)
    check_page(page, again)  # the timelines, read from the .itf.json files
    assert page.changed_rows == 1 and "hand_limit = 7" in html
    empty = Report(Rules(), report.depth, bare, report.seconds)
    none = parse(report_html(empty, None, None))  # no folder: no trace to show, no link to one
    assert len(none.result_rows) == len(report.results)
    assert not [h for h in none.hrefs if h.startswith("#trace-")]


def chromium() -> str | None:
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


@pytest.mark.skipif(os.environ.get("DUELCHECK_BROWSER") != "1", reason="opt-in: DUELCHECK_BROWSER=1")
def test_html_report_in_a_real_browser(run: tuple[Report, Path], official: PhaseGraph, tmp_path: Path) -> None:
    exe = chromium()
    if exe is None:
        pytest.skip("no Chromium on PATH (apt-get install -y chromium)")
    report, folder = run
    svg = render_svg(to_dot(official, "phases")) or to_dot(official, "phases")
    page_file = tmp_path / "report.html"
    page_file.write_text(report_html(report, folder, svg), encoding="utf-8")
    base = [exe, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [*base, "--dump-dom", page_file.as_uri()], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    page = parse(dom)
    check_page(page, report)
    shot = tmp_path / "report.png"
    subprocess.run(
        [*base, "--window-size=1300,1800", f"--screenshot={shot}", page_file.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- the `graph` command ----------------------------------------------------------------------


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def test_graph_command_dot(tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text("main_phase_2 = false\n", encoding="utf-8")
    out = tmp_path / "g" / "phases.dot"
    result = invoke("graph", "--rules", str(rules), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    text = out.read_text(encoding="utf-8")
    assert text.startswith("digraph") and "main_phase_2 = false" in text
    assert "Battle Step" in text and "MAIN2" not in text


def test_graph_command_prints_dot() -> None:
    result = invoke("graph", "--format", "dot")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("digraph") and "Main Phase 2" in result.stdout


def test_graph_command_bad_rules(tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text("main_phase_3 = true\n", encoding="utf-8")
    result = invoke("graph", "--rules", str(rules))
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "main_phase_3" in result.stderr


def test_graph_command_svg_without_graphviz(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    out = tmp_path / "phases.svg"
    result = invoke("graph", "--format", "svg", "--out", str(out))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "apt-get install graphviz" in lines[0]
    assert not out.exists()


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz (dot) is not installed")
def test_graph_command_svg() -> None:
    result = invoke("graph", "--format", "svg")
    assert result.exit_code == 0, result.output
    root = ET.fromstring(result.stdout)
    assert root.tag == f"{SVG}svg"
    assert "Main Phase 2" in " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
