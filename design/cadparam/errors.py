"""Errors a design can raise while it is declared, traced or run."""

from __future__ import annotations

import sys

# The file of the design being loaded; set by the loader so messages can name its lines.
_design_files: list[str] = []

FALLBACK_HINT = (
    "A template is traced once with symbolic parameters, so its structure cannot depend on a "
    "parameter's value. Use cadparam.select(cond, a, b), cadparam.min/max/clamp and the repeat "
    "nodes (linear_repeat, grid_repeat, polar_repeat take a parameter as count) instead; or, "
    "when the topology really changes with a parameter, declare the project with "
    'mode="python" so it runs in the in-browser Python runtime (docs/design.md).'
)


class DesignError(Exception):
    """A mistake in a design: bad parameter declaration, wrong argument, structure on a value."""


class ParameterError(DesignError):
    """A parameter descriptor or a parameter value is invalid."""


class StructureError(DesignError):
    """The design's structure depends on the value of a parameter (a branch, a loop, int(p))."""


def push_design_file(path: str) -> None:
    """Marks `path` as the design file whose lines errors should point at."""
    _design_files.append(path)


def pop_design_file() -> None:
    """Undoes `push_design_file`."""
    _design_files.pop()


def design_location() -> str:
    """`file:line: source` of the innermost frame in the design file, or "" when there is none."""
    if not _design_files:
        return ""
    wanted = _design_files[-1]
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == wanted:
            line = frame.f_lineno
            text = _source_line(wanted, line)
            return f"{wanted}:{line}: {text}" if text else f"{wanted}:{line}"
        frame = frame.f_back
    return ""


_sources: dict[str, str] = {}


def register_source(path: str, source: str) -> None:
    """Keeps a design's source so messages can quote the offending line (also in Pyodide)."""
    _sources[path] = source


def _source_line(path: str, line: int) -> str:
    source = _sources.get(path)
    if source is None:
        try:
            with open(path, encoding="utf-8") as handle:
                source = handle.read()
        except OSError:
            return ""
    lines = source.splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def located(message: str) -> str:
    """`message`, prefixed with the design file's line when the call came from the design."""
    where = design_location()
    return f"{where}\n  {message}" if where else message
