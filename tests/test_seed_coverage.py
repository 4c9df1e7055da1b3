"""docs/seed-coverage.md accounts for every line of both seed texts, once, and what it names exists.

Without the seed files (they are not shipped here) the page is checked against itself: every line number
of each seed, from 1 to the count the page states, is a row or a "not rules" entry, never both and never
twice; the counts table is the rows' own; every scenario, property and status it names is real. With the
seed files (`$DUELCHECK_SEEDS`, else `../shared/seeds/` beside the checkout) their digests and line counts
must be the page's, and every bullet (●) of a seed must be a row.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from pathlib import Path

import pytest

from duelcheck.properties.catalog import BY_NAME

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "seed-coverage.md"
SCENARIOS = ROOT / "tests" / "scenarios"
ROW = re.compile(r"^\| (\d{3}):L(\d+) \|(.*)\| ([^|]+) \|\s*$", re.M)
STATUSES = ("modelled", "modelled, no scenario", "partly:", "not modelled:")


def _text() -> str:
    return PAGE.read_text(encoding="utf-8")


def _seeds() -> dict[str, tuple[str, int, str]]:
    """seed -> (file name, lines, sha256), from the page's table."""
    rows = re.findall(r"^\| (\d{3}) \| `([^`]+)` \| (\d+) \| `([0-9a-f]{64})` \|$", _text(), flags=re.M)
    return {seed: (name, int(n), digest) for seed, name, n, digest in rows}


def _rows() -> list[tuple[str, int, str, str]]:
    return [(seed, int(n), middle, status.strip()) for seed, n, middle, status in ROW.findall(_text())]


def _not_rules() -> dict[str, list[int]]:
    text = _text()
    section = text[text.index("## Not rules") :]
    section = section[: section.find("\n## ", 1)] if "\n## " in section[1:] else section
    out: dict[str, list[int]] = {"000": [], "001": []}
    for seed, n in re.findall(r"(\d{3}):L(\d+)", section):
        out[seed].append(int(n))
    return out


def test_every_line_of_each_seed_is_a_row_or_not_a_rule_exactly_once() -> None:
    seeds = _seeds()
    assert set(seeds) == {"000", "001"}
    rows = _rows()
    skipped = _not_rules()
    for seed, (_, lines, _) in seeds.items():
        numbered = [n for s, n, _, _ in rows if s == seed]
        assert len(numbered) == len(set(numbered)), f"seed {seed}: a line with two rows"
        assert not set(numbered) & set(skipped[seed]), f"seed {seed}: a line both a rule and not a rule"
        missing = set(range(1, lines + 1)) - set(numbered) - set(skipped[seed])
        assert not missing, f"seed {seed}: lines not accounted for: {sorted(missing)}"
        beyond = (set(numbered) | set(skipped[seed])) - set(range(1, lines + 1))
        assert not beyond, f"seed {seed}: lines past its end: {sorted(beyond)}"


def test_each_row_has_a_status_and_the_counts_are_the_rows_own() -> None:
    counted: dict[str, Counter[str]] = {"000": Counter(), "001": Counter()}
    for seed, n, _, status in _rows():
        kind = next((s for s in STATUSES if status == s or (s.endswith(":") and status.startswith(s))), None)
        assert kind is not None, f"{seed}:L{n}: status {status!r}"
        counted[seed][kind] += 1
    table = re.search(r"^\| 000 \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", _text(), flags=re.M)
    table_1 = re.search(r"^\| 001 \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", _text(), flags=re.M)
    for seed, got in (("000", table), ("001", table_1)):
        assert got is not None
        c = counted[seed]
        want = [sum(c.values()), c["modelled"], c["modelled, no scenario"], c["partly:"], c["not modelled:"]]
        assert [int(x) for x in got.groups()] == want, seed


def test_what_a_row_names_exists() -> None:
    """Every scenario a row names is a file of tests/scenarios (a shortened name, `turn/12…`, starts one);
    every property is in the suite; a row marked `modelled` names a scenario."""
    files = [p.relative_to(SCENARIOS).as_posix() for p in SCENARIOS.rglob("*.json")]
    for seed, n, middle, status in _rows():
        named = re.findall(r"`((?:turn|battle|chain|engine)/[^`]+)`", middle)
        for name in named:
            stem = name.rstrip("…")
            assert any(f == stem or f.startswith(stem) for f in files), f"{seed}:L{n}: no scenario {name}"
        for group in re.findall(r"props ((?:`[^`]+`(?:, )?)+)", middle):
            for prop in re.findall(r"`([^`\[]+)(?:\[[^`]*\])?`", group):
                assert prop in BY_NAME, f"{seed}:L{n}: no property {prop}"
        if status == "modelled":
            assert named, f"{seed}:L{n}: marked modelled, names no scenario"


def _seed_folder() -> Path | None:
    env = os.environ.get("DUELCHECK_SEEDS")
    folder = Path(env) if env else ROOT.parent / "shared" / "seeds"
    return folder if folder.is_dir() else None


@pytest.mark.skipif(_seed_folder() is None, reason="the seed texts are not here ($DUELCHECK_SEEDS)")
def test_the_page_is_about_these_seed_texts_and_every_bullet_is_a_row() -> None:
    folder = _seed_folder()
    assert folder is not None
    rows = {(seed, n) for seed, n, _, _ in _rows()}
    for seed, (name, lines, digest) in _seeds().items():
        data = (folder / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest, f"{name}: another text than the page's"
        text = data.decode("utf-8").splitlines()
        assert len(text) == lines
        bullets = [i for i, line in enumerate(text, 1) if "●" in line]
        assert all((seed, i) in rows for i in bullets), f"seed {seed}: a bullet with no row"
