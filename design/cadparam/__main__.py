"""Command line: `python3 -m cadparam emit|schema|run|check …` (see `--help`)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from .errors import DesignError
from .loader import describe, load_design
from .project import Project, dumps

TEMPLATE_FILE = "template.dag.json"
SCHEMA_FILE = "parameters.schema.json"


def _outputs(project: Project) -> dict[str, str]:
    files = {SCHEMA_FILE: dumps(project.schema())}
    if project.mode == "template":
        files[TEMPLATE_FILE] = dumps(project.template())
    return files


def _values(text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    if text.startswith("@"):
        with open(text[1:], encoding="utf-8") as handle:
            text = handle.read()
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

    project: Project | None = None
    try:
        project = load_design(args.design)
        if args.command == "emit":
            os.makedirs(args.out, exist_ok=True)
            for name, text in _outputs(project).items():
                with open(os.path.join(args.out, name), "w", encoding="utf-8", newline="\n") as f:
                    f.write(text)
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
    except DesignError as err:
        print(f"error: {describe(err, project)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
