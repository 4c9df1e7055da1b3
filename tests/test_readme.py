"""Every example in the README works as shown, in the order shown: its shell lines (each exits 0, or the
code its `# exit N` comment states) and its Python blocks, in one empty folder."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
INSTALL = ("python3 -m venv", "pip install")  # the two commands of the contract: run by CI itself


def examples() -> list[tuple[str, str]]:
    """(language, text) of every sh and python block after the two commands, in order."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```(sh|python)\n(.*?)```", text, flags=re.S)
    return [(lang, body) for lang, body in blocks if not any(body.lstrip().startswith(i) for i in INSTALL)]


def test_the_readme_has_examples_to_run() -> None:
    langs = [lang for lang, _ in examples()]
    assert langs.count("sh") >= 1 and langs.count("python") >= 1


def test_every_readme_example_runs_in_order(tmp_path: Path) -> None:
    bindir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env["DUELCHECK_CACHE"] = str(tmp_path / ".cache")
    ran = 0
    for lang, body in examples():
        if lang == "python":
            proc = subprocess.run(
                [sys.executable, "-c", body], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
            )
            assert proc.returncode == 0, (body, proc.stdout, proc.stderr)
            ran += 1
            continue
        for line in body.splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = re.search(r"#\s*exit (\d+)\s*$", line)
            expected = int(m.group(1)) if m else 0
            proc = subprocess.run(
                ["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
            )
            assert proc.returncode == expected, (line, proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
            assert "Traceback" not in proc.stdout + proc.stderr, line
            ran += 1
    assert ran >= 10


EXAMPLE = (  # a witness: where the package is imported from is the point, not a proof of the whole suite
    "import duelcheck\n"
    "report = duelcheck.check(properties=['reach-main2'], depth=6)\n"
    "import duelcheck.model.rules as rules\n"
    "print(report.results[0].verdict, rules.__file__)\n"
)


def _example(prelude: str, cwd: Path) -> Path:
    """Run the README's library example after `prelude`; the file `duelcheck.model.rules` came from."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    script = prelude + EXAMPLE
    out = subprocess.run([sys.executable, "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    verdict, path = out.stdout.split()
    assert verdict == "found"
    return Path(path).resolve()


def test_the_library_example_runs_from_the_checkout_root() -> None:
    """A script at the root of a checkout imports the `duelcheck` folder there, not the installed copy, and the
    package finds its subpackages kept at the top level (model/, properties/, engines/, counterexamples/:
    each linked into duelcheck/). An editable install's finder is taken away first, so that only the checkout
    answers, as it does beside a non-editable install."""
    root = Path(__file__).resolve().parent.parent
    prelude = "import sys\nsys.meta_path = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]\n"
    assert _example(prelude, root) == root / "model" / "rules.py"


def test_the_library_example_runs_from_an_editable_install(tmp_path: Path) -> None:
    """`pip install -e .` (here into a folder of its own, its finder put first) maps the top-level folders into
    the package: the example runs from elsewhere, its modules read from the checkout."""
    root = Path(__file__).resolve().parent.parent
    prefix = tmp_path / "prefix"
    pip = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "-q",
        "--no-deps",
        "--ignore-installed",
        "--prefix",
        str(prefix),
        "-e",
        str(root),
    ]
    done = subprocess.run(pip, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    site_dir = next(prefix.glob("lib/python3*/site-packages"))
    prelude = (
        "import site, sys\n"
        f"site.addsitedir({str(site_dir)!r})\n"
        "sys.meta_path.sort(key=lambda f: 'editable' not in repr(f).lower())\n"
    )
    assert _example(prelude, tmp_path) == root / "model" / "rules.py"
