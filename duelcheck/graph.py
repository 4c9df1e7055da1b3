"""The phase and step graph of a turn, derived from the model's transition relation.

Nothing here is drawn by hand. One symbolic step of `TransitionSystem(rules)` is taken from a pre-state
that meets the structural facts of the `well-formed` invariant (true in every reachable state), and Z3
enumerates every combination (phase before, phase after, turn 1 before and after, action) that the
relation allows with the phase changing. The graph keeps what is reachable from the initial state (the
Draw Phase of turn 1): an edge into a new turn leads to the Draw Phase of a later turn.

The well-formed facts hold in every reachable state but not every well-formed state is reachable, so an
edge means "one step of the rules allows it from a well-formed state": a sound over-approximation of the
turn structure, never an omission. Each edge carries the conditions that separate it from the other
edges out of the same phase (for example "if the turn player's next Main Phase 1 is skipped", seed 000),
found by asking the solver which pre-state flags the edge needs.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any

import z3

from duelcheck.model.cards import BATTLE_PHASE, Phase
from duelcheck.model.rules import ACTION_BY_NAME, PHASE_CLAUSE
from duelcheck.rules import Rules

# The rulebook's words for each phase and step (6.3); the clause comes from the model (PHASE_CLAUSE).
PHASE_WORDS: dict[Phase, str] = {
    Phase.DRAW: "Draw Phase",
    Phase.STANDBY: "Standby Phase",
    Phase.MAIN1: "Main Phase 1",
    Phase.BATTLE_START: "Start Step",
    Phase.BATTLE_STEP: "Battle Step",
    Phase.DMG_START: "Damage Step: start",
    Phase.DMG_BEFORE: "Damage Step: before damage calculation",
    Phase.DMG_DURING: "Damage Step: during damage calculation",
    Phase.DMG_AFTER: "Damage Step: after damage calculation",
    Phase.DMG_END: "Damage Step: end",
    Phase.BATTLE_END: "End Step",
    Phase.MAIN2: "Main Phase 2",
    Phase.END: "End Phase",
}
BATTLE_PHASE_CLAUSE = "6.3.4"
# The actions that end a phase or step in the ordinary way (6.3): both players pass with an empty chain.
ORDINARY = frozenset({"pass", "end_step"})
DOT_TIMEOUT = 30.0  # seconds the `dot` program may take


def phase_name(ph: Phase) -> str:
    """A phase or step in the rulebook's words; the steps of the Battle Phase say so."""
    words = PHASE_WORDS[ph]
    if ph in (Phase.BATTLE_START, Phase.BATTLE_STEP, Phase.BATTLE_END):
        return f"Battle Phase: {words}"
    return words


def phase_label(ph: Phase) -> str:
    """A phase or step in the rulebook's words with its clause, e.g. "Battle Step (6.3.4.2)"."""
    return f"{PHASE_WORDS[ph]} ({PHASE_CLAUSE[ph]})"


@dataclass(frozen=True)
class Edge:
    """A change of phase or step the transition relation allows.

    `turn_one`: possible on turn 1; `later`: possible on a later turn; `new_turn`: the step begins the next
    turn; `actions`: the actions that take it; `needs`: conditions on the state before the step that
    separate this edge from the other edges out of the same phase, in the words of the state's fields;
    `all_needs`: every such condition the edge needs (tooltips).
    """

    src: Phase
    dst: Phase
    turn_one: bool
    later: bool
    new_turn: bool
    actions: tuple[str, ...]
    needs: tuple[str, ...] = ()
    all_needs: tuple[str, ...] = ()

    @property
    def when(self) -> str:
        """ "turn 1", "later turns" or "every turn"."""
        if self.turn_one and self.later:
            return "every turn"
        return "turn 1" if self.turn_one else "later turns"


@dataclass
class PhaseGraph:
    """The phases and steps reachable from the initial state under `rules`, and the edges between them."""

    rules: Rules
    start: Phase
    nodes: tuple[Phase, ...]
    edges: tuple[Edge, ...]
    turn_one_nodes: frozenset[Phase] = field(default_factory=frozenset)  # reachable on turn 1
    seconds: float = 0.0  # time taken to derive the graph
    solver_calls: int = 0

    def edge(self, src: Phase, dst: Phase) -> Edge | None:
        """The edge src -> dst, or None."""
        return next((e for e in self.edges if e.src == src and e.dst == dst), None)

    def has_edge(self, src: Phase, dst: Phase, turn_one: bool | None = None) -> bool:
        """Whether the edge exists (on turn 1 when turn_one is True, on a later turn when False)."""
        e = self.edge(src, dst)
        if e is None:
            return False
        if turn_one is None:
            return True
        return e.turn_one if turn_one else e.later


@dataclass(frozen=True)
class _Raw:
    src: int
    dst: int
    pre_one: bool  # turn 1 before the step
    post_one: bool  # turn 1 after it
    new_turn: bool
    act: int


def phase_graph(rules: Rules) -> PhaseGraph:
    """Derive the phase graph under `rules` from one symbolic step of the transition system (a few seconds)."""
    from duelcheck.model.system import TransitionSystem
    from duelcheck.properties import BY_NAME

    t0 = time.perf_counter()
    ts = TransitionSystem(rules)
    pre = ts.sym_state("@graph.pre")
    # the phases' order as the fine steps take it: a composite step (two phase ends in one) is a path here
    step = ts.sym_step(pre, "@graph.post", fine=True)
    post = step.post
    well_formed = [c.eval(None, None, pre) for c in BY_NAME["well-formed"].checks if c.on == "state"]
    solver = z3.SolverFor("QF_BV")  # every term is a bit-vector or a Boolean: much faster than the default
    solver.add(step.relation, *well_formed)
    calls = 0

    # 1. every (phase before, phase after, turn 1?, action) the relation allows with the phase changing
    ph0, ph1 = pre.g("phase"), post.g("phase")
    one0, one1 = pre.g("turn") == 1, post.g("turn") == 1
    new_turn = post.g("turn") != pre.g("turn")
    keys = (ph0, ph1, one0, one1, new_turn, step.act)
    raws: list[_Raw] = []
    solver.push()
    solver.add(ph0 != ph1)
    while True:
        calls += 1
        answer = solver.check()
        if answer == z3.unknown:  # pragma: no cover - quantifier-free bit-vectors: always decided
            raise RuntimeError(f"the solver gave no answer deriving the phase graph: {solver.reason_unknown()}")
        if answer != z3.sat:
            break
        m = solver.model()
        vals = [m.eval(k, model_completion=True) for k in keys]
        raws.append(
            _Raw(
                vals[0].as_long(),
                vals[1].as_long(),
                z3.is_true(vals[2]),
                z3.is_true(vals[3]),
                z3.is_true(vals[4]),
                vals[5].as_long(),
            )
        )
        solver.add(z3.Not(z3.And(*(k == v for k, v in zip(keys, vals, strict=True)))))
    solver.pop()

    # 2. reachability from the initial state, over (phase, turn 1?)
    init = ts.init()
    start = (Phase(init.g("phase")), init.g("turn") == 1)
    seen = {start}
    todo = [start]
    while todo:
        ph, one = todo.pop()
        for r in raws:
            if r.src == ph and r.pre_one == one:
                nxt = (Phase(r.dst), r.post_one)
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
    kept = [r for r in raws if (Phase(r.src), r.pre_one) in seen]

    # 3. per edge: the conditions it needs, kept when they separate it from its siblings
    pairs = sorted({(r.src, r.dst) for r in kept})
    flags = _flags(ts, pre)
    needs: dict[tuple[int, int], list[tuple[str, bool]]] = {}
    for src, dst in pairs:
        ones = {r.pre_one for r in kept if (r.src, r.dst) == (src, dst)}
        turn_cond = z3.Or(*(one0 if o else z3.Not(one0) for o in ones))
        found, n = _needed(solver, flags, z3.And(ph0 == src, ph1 == dst, turn_cond), z3.And(ph0 == src, turn_cond))
        needs[(src, dst)] = found
        calls += n
    edges = []
    for src, dst in pairs:
        mine = [r for r in kept if (r.src, r.dst) == (src, dst)]
        # edges taken by other actions are told apart by their actions: only siblings sharing one count
        acts = {r.act for r in mine}
        siblings = [
            needs[p]
            for p in pairs
            if p[0] == src and p != (src, dst) and acts & {r.act for r in kept if (r.src, r.dst) == p}
        ]
        sep = _separating(needs[(src, dst)], siblings)
        edges.append(
            Edge(
                Phase(src),
                Phase(dst),
                turn_one=any(r.pre_one for r in mine),
                later=any(not r.pre_one for r in mine),
                new_turn=any(r.new_turn for r in mine),
                actions=tuple(sorted({ts.actions[r.act].name for r in mine})),
                needs=tuple(_words(text, holds) for text, holds in sep),
                all_needs=tuple(_words(text, holds) for text, holds in needs[(src, dst)]),
            )
        )
    nodes = tuple(sorted({ph for ph, _ in seen}))
    return PhaseGraph(
        rules=rules,
        start=start[0],
        nodes=nodes,
        edges=tuple(edges),
        turn_one_nodes=frozenset(ph for ph, one in seen if one),
        seconds=time.perf_counter() - t0,
        solver_calls=calls,
    )


def _flags(ts: Any, pre: Any) -> list[tuple[str, Any]]:
    """The Boolean flags of the state before the step, in the words of their fields (the per-player ones
    for the turn player and the opponent)."""
    out: list[tuple[str, Any]] = []
    for spec in ts.game_fields:
        if spec.sort != "bool":
            continue
        if spec.dims == ():
            out.append((_short(spec.doc), pre.g(spec.name)))
        elif spec.dims == (2,):
            doc = _short(spec.doc).removeprefix("this player's ")
            out.append((f"the turn player's {doc}", pre.g(spec.name, pre.tp)))
            out.append((f"the opponent's {doc}", pre.g(spec.name, pre.other(pre.tp))))
    return out


def _short(doc: str) -> str:
    """A field's description up to its first comma or colon, keeping the clause it cites."""
    clause = doc[doc.rfind(" (") :] if doc.endswith(")") else ""
    head = re.split(r", |: ", doc, maxsplit=1)[0]
    return head if head.endswith(clause) else head + clause


def _needed(solver: Any, flags: list[tuple[str, Any]], edge: Any, phase: Any) -> tuple[list[tuple[str, bool]], int]:
    """The flags (with the value they must have) the edge needs that the phase alone does not imply."""
    solver.push()
    solver.add(edge)
    needed, calls = _forced(solver, flags)
    solver.pop()
    solver.push()
    solver.add(phase)  # a condition every well-formed state of this phase meets says nothing
    implied, more = _forced(solver, [f for f in flags if f[0] in dict(needed)])
    solver.pop()
    return [n for n in needed if n not in implied], calls + more


def _forced(solver: Any, flags: list[tuple[str, Any]]) -> tuple[list[tuple[str, bool]], int]:
    """The flags that have one value in every model of the solver's assertions, with that value.

    Each question asks for a model that flips at least one remaining candidate; every candidate it flips
    is dropped, so the loop takes far fewer questions than one per flag."""
    calls = 1
    if solver.check() != z3.sat:  # pragma: no cover - the edge came from a model of this very solver
        return [], calls
    m = solver.model()
    cands = {text: (term, z3.is_true(m.eval(term, model_completion=True))) for text, term in flags}
    while cands:
        calls += 1
        flip = z3.Or(*(z3.Not(term) if holds else term for term, holds in cands.values()))
        if solver.check(_lit(solver, flip)) != z3.sat:
            break
        m = solver.model()
        cands = {
            text: (term, holds)
            for text, (term, holds) in cands.items()
            if z3.is_true(m.eval(term, model_completion=True)) == holds
        }
    return [(text, holds) for text, (term, holds) in cands.items()], calls


def _lit(solver: Any, cond: Any) -> Any:
    """A fresh Boolean that implies `cond`, to assume in one check (check-sat-assuming takes literals)."""
    b = z3.FreshBool("graph_assume")
    solver.add(z3.Implies(b, cond))
    return b


def _separating(mine: list[tuple[str, bool]], siblings: list[list[tuple[str, bool]]]) -> list[tuple[str, bool]]:
    """The conditions worth a label: a flag that must be set, when a sibling edge does not need it; a flag
    that must be clear, when a sibling edge needs it set (the complement of a sibling's label)."""
    out = []
    for text, holds in mine:
        told_apart = any(((text, True) not in s) if holds else ((text, True) in s) for s in siblings)
        if told_apart:
            out.append((text, holds))
    return out


def _words(doc: str, holds: bool) -> str:
    return ("if " if holds else "unless ") + doc


# -- Graphviz DOT -----------------------------------------------------------------------------


def _q(text: str) -> str:
    """A DOT double-quoted string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _wrap(text: str, width: int = 34) -> str:
    words, lines, line = re.findall(r"\([^)]*\)|\S+", text), [], ""  # a clause cited in brackets stays whole
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    if line:
        lines.append(line)
    return "\n".join(lines)


def _edge_label(g: PhaseGraph, e: Edge) -> str:
    parts = []
    if e.new_turn:
        parts.append(f"next turn ({PHASE_CLAUSE[Phase.END]})")
    if e.turn_one and not e.later:
        parts.append("turn 1 only")
    elif e.later and not e.turn_one and e.src in g.turn_one_nodes:
        parts.append("not on turn 1")
    parts += [_wrap(n) for n in e.needs]
    extra = [a for a in e.actions if a not in ORDINARY]
    if extra:
        by = ", ".join(f"{a} ({ACTION_BY_NAME[a].clause})" for a in extra)
        parts.append(("also by " if any(a in ORDINARY for a in e.actions) else "by ") + by)
    return "\n".join(parts)


def _toml(v: Any) -> str:
    """A rule parameter's value as a rule file spells it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v) if isinstance(v, str) else str(v)


def to_dot(graph: PhaseGraph, title: str) -> str:
    """The graph as Graphviz DOT: nodes in the rulebook's words with their clauses, the Battle Phase
    (6.3.4) as a cluster; edges possible only on turn 1 dashed and labelled, phases not reached on
    turn 1 grey."""
    rules_line = ", ".join(graph.rules.words(lambda k, v: f"{k} = {_toml(v)}")) or "official rules"
    legend = "blue: turn 1 and later turns; grey: later turns only; dashed: turn 1 only"
    heading = "\n".join((title, rules_line, legend))
    lines = [
        "digraph phases {",
        f"  graph [label={_q(heading)}, labelloc=t, fontname=Helvetica, "
        'fontsize=13, rankdir=TB, nodesep=0.5, ranksep=0.45, tooltip="phases and steps (6.3)"];',
        '  node [shape=box, style="rounded,filled", fillcolor="#eef4fb", color="#35618f", fontname=Helvetica, '
        "fontsize=11];",
        '  edge [fontname=Helvetica, fontsize=9, color="#35618f", fontcolor="#333333"];',
    ]

    def node(ph: Phase) -> str:
        text = _wrap(PHASE_WORDS[ph], 24) + "\n" + PHASE_CLAUSE[ph]
        attrs = [f"label={_q(text)}"]
        attrs.append(f"tooltip={_q(phase_label(ph))}")
        if ph not in graph.turn_one_nodes:
            attrs.append('fillcolor="#ececec", color="#777777"')
        if ph == graph.start:
            attrs.append("penwidth=2")
        return f"  {ph.name} [{', '.join(attrs)}];"

    battle = [ph for ph in graph.nodes if ph in BATTLE_PHASE]
    for ph in graph.nodes:
        if ph not in BATTLE_PHASE:
            lines.append(node(ph))
    if battle:
        lines.append("  subgraph cluster_battle {")
        lines.append(f"    label={_q(f'Battle Phase ({BATTLE_PHASE_CLAUSE})')};")
        lines.append('    style="rounded,dashed"; color="#999999"; fontname=Helvetica; fontsize=11;')
        lines += ["  " + node(ph) for ph in battle]
        lines.append("  }")
    for e in graph.edges:
        attrs = []
        label = _edge_label(graph, e)
        if label:
            attrs.append(f"label={_q(label)}")
        if e.turn_one and not e.later:
            attrs.append('style=dashed, color="#b5562b", fontcolor="#b5562b"')
        elif not e.turn_one:
            attrs.append('color="#8a8a8a"')
        if e.new_turn:
            attrs.append("constraint=false")  # the way back to the Draw Phase does not rank the nodes
        tip = f"{phase_label(e.src)} -> {phase_label(e.dst)}: {e.when}; by {', '.join(e.actions)}"
        if e.all_needs:
            tip += "; " + "; ".join(e.all_needs)
        attrs.append(f"tooltip={_q(tip)}")
        lines.append(f"  {e.src.name} -> {e.dst.name} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def dot_available() -> bool:
    """Whether Graphviz's `dot` program is on PATH."""
    return shutil.which("dot") is not None


def render_svg(dot_text: str, timeout: float = DOT_TIMEOUT) -> str | None:
    """The SVG `dot -Tsvg` makes of the DOT text, or None when Graphviz is not installed.

    Raises RuntimeError when `dot` fails or takes longer than `timeout` seconds.
    """
    exe = shutil.which("dot")
    if exe is None:
        return None
    try:
        done = subprocess.run(
            [exe, "-Tsvg"], input=dot_text, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"Graphviz dot took longer than {timeout:.0f} s") from None
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["no message"])[0]
        raise RuntimeError(f"Graphviz dot failed (exit {done.returncode}): {first}")
    return done.stdout


def inline_svg(svg_text: str) -> str:
    """An SVG document without its XML declaration and DOCTYPE, to be placed inside an HTML page."""
    at = svg_text.find("<svg")
    return svg_text[at:] if at >= 0 else svg_text


__all__ = [
    "PHASE_WORDS",
    "Edge",
    "PhaseGraph",
    "dot_available",
    "inline_svg",
    "phase_graph",
    "phase_label",
    "phase_name",
    "render_svg",
    "to_dot",
]
