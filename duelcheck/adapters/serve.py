"""`python -m duelcheck.adapters.serve ENGINE [--ocgcore PATH] [--seed N]`: an engine behind the JSON-lines
protocol (duelcheck/adapters/jsonlines.py) on standard input and output.

ENGINE is `reference` (duelcheck's own interpreter, one step per action, for boards), `model` (the rules
with cards, running to the next decision, for difftest), `ygopro` (ygopro-core, the library named by --ocgcore
or DUELCHECK_OCGCORE), `edopro` (EDOPro's core, --ocgcore or DUELCHECK_EDOPRO), or `module:Class` (any
adapter class). Exit 2 with one line on stderr for bad
arguments.
"""

from __future__ import annotations

import sys
from typing import Any

from duelcheck.errors import InputError


def _factory(engine: str, ocgcore: str | None, seed: int) -> tuple[Any, str]:
    if engine == "reference":
        from duelcheck.adapters import ReferenceAdapter

        return ReferenceAdapter, "duelcheck reference"
    if engine == "model":
        from duelcheck.adapters.model import ModelEngine

        return ModelEngine, "duelcheck model"
    if engine == "ygopro":
        from duelcheck.adapters.ocgcore import library_path
        from duelcheck.adapters.ygopro import Ygopro

        path = library_path(ocgcore)
        return (lambda rules: Ygopro(rules, path, seed)), "ygopro-core"  # the library is loaded at hello
    if engine == "edopro":
        from duelcheck.adapters import edopro

        edo_path = edopro.library_path(ocgcore)
        return (lambda rules: edopro.Edopro(rules, edo_path, seed)), "EDOPro's core"
    from duelcheck.adapter import load_adapter

    return load_adapter(engine), engine


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    ocgcore: str | None = None
    seed = 0
    engine = None
    try:
        while args:
            arg = args.pop(0)
            if arg == "--ocgcore" and args:
                ocgcore = args.pop(0)
            elif arg == "--seed" and args:
                seed = int(args.pop(0))
            elif engine is None and not arg.startswith("-"):
                engine = arg
            else:
                raise InputError(f"serve: unexpected argument {arg!r}")
        if engine is None:
            raise InputError("serve: name an engine: reference, model, ygopro, edopro, or module:Class")
        make, name = _factory(engine, ocgcore, seed)
    except (InputError, ValueError) as exc:
        print(f"duelcheck: {exc}", file=sys.stderr)
        return 2
    from duelcheck.adapters.jsonlines import serve

    return serve(make, name)


if __name__ == "__main__":
    sys.exit(main())
