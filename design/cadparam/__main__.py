"""Command line: `python3 -m cadparam emit|schema|run|check|mode …` (see `--help`).

Results go to stdout (emit: one line per file written). A mistake in the design or the
arguments is one line on stderr, `error: design.py:6: …`, and exit status 2; `check` exits 1 when
the committed files are stale. A bug inside cadparam still shows its traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from .diagnose import explain
from .errors import DesignError
from .loader import load_design
from .project import Project, dumps

TEMPLATE_FILE = "template.dag.json"
SCHEMA_FILE = "parameters.schema.json"


def _outputs(project: Project) -> dict[str, str]:
    files = {SCHEMA_FILE: dumps(project.schema())}
    if project.mode == "template":
        files[TEMPLATE_FILE] = dumps(project.template())
    return files


def _summary(name: str, text: str) -> str:
    """What a written file holds: its size in bytes and its parameter or node count."""
    document = json.loads(text)
    size = len(text.encode("utf-8"))
    if name == SCHEMA_FILE:
        count = len(document["properties"])
        return f"{size} bytes, {count} parameter{'' if count == 1 else 's'}"
    count = len(document["nodes"])
    return f"{size} bytes, {count} node{'' if count == 1 else 's'}"


def _emit(project: Project, folder: str, quiet: bool) -> None:
    files = _outputs(project)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        raise DesignError(f"cannot create the folder: {err.strerror or err}", file=folder) from None
    for name, text in files.items():
        path = os.path.join(folder, name)
        try:
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
        except OSError as err:
            raise DesignError(f"cannot write: {err.strerror or err}", file=path) from None
        if not quiet:
            print(f"wrote {path} ({_summary(name, text)})")
    if not quiet and project.mode == "python":
        print(f"no {TEMPLATE_FILE}: {project.slug} is a python-mode project (docs/design.md)")


def _values(text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    if text.startswith("@"):
        try:
            with open(text[1:], encoding="utf-8") as handle:
                text = handle.read()
        except OSError as err:
            raise DesignError(f"--values: cannot read {text[1:]}: {err.strerror or err}") from None
    try:
        values = json.loads(text)
    except json.JSONDecodeError as err:
        raise DesignError(f"--values is not JSON: {err}") from None
    if not isinstance(values, dict):
        raise DesignError("--values must be a JSON object")
    return values


def main(argv: list[str] | None = None) -> int:
    """Runs the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python3 -m cadparam", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    emit = commands.add_parser(
        "emit", help="write parameters.schema.json (and template.dag.json for template mode)"
    )
    emit.add_argument("design")
    emit.add_argument("--out", required=True, help="output directory")
    emit.add_argument(
        "--quiet", action="store_true", help="print nothing on success (errors still go to stderr)"
    )
    check = commands.add_parser("check", help="exit 1 when the committed files are stale")
    check.add_argument("design")
    check.add_argument("--dir", help="directory of the committed files (default: the design's)")
    schema = commands.add_parser("schema", help="print parameters.schema.json")
    schema.add_argument("design")
    mode = commands.add_parser("mode", help='print the project\'s mode as JSON ("template" or "python")')
    mode.add_argument("design")
    run = commands.add_parser("run", help="print the finished DAG for some values")
    run.add_argument("design")
    run.add_argument("--values", help='JSON object, or @file (default: all defaults)')
    args = parser.parse_args(argv)

    try:
        project = load_design(args.design)
        if args.command == "emit":
            _emit(project, args.out, args.quiet)
        elif args.command == "check":
            folder = args.dir or os.path.dirname(args.design) or "."
            stale = []
            for name, text in _outputs(project).items():
                path = os.path.join(folder, name)
                try:
                    with open(path, encoding="utf-8", newline="") as f:
                        current = f.read()
                except OSError:
                    current = None
                if current != text:
                    stale.append(path)
            if stale:
                print("stale (re-run emit): " + ", ".join(stale), file=sys.stderr)
                return 1
        elif args.command == "mode":
            print(json.dumps(project.mode))
        elif args.command == "schema":
            sys.stdout.write(dumps(project.schema()))
        else:
            sys.stdout.write(dumps(project.run(_values(args.values))))
    except Exception as err:
        line = explain(err, args.design)
        if line is None:
            raise  # a bug inside cadparam: its traceback is the report
        print(f"error: {line}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
