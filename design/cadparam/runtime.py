"""The entry the in-browser Python runtime calls (lib/client/python_worker.js, under Pyodide).

One JSON string in, one JSON string out, so the JavaScript side never handles Python objects:
`run_source_json(source, values_json)` → `{"ok": true, "dag": {...}}` or
`{"ok": false, "error": {"kind": "...", "message": "..."}}`. Loaded designs are kept by source
text, so changing a slider re-runs the function without re-executing the module.
"""

from __future__ import annotations

import json
from typing import Any

from .diagnose import explain
from .errors import DesignError, ParameterError, StructureError
from .loader import load_source
from .project import Project

DESIGN_FILE = "design.py"
_MAX_KEPT = 4
_loaded: dict[str, Project] = {}


def _project(source: str) -> Project:
    project = _loaded.get(source)
    if project is None:
        project = load_source(source, DESIGN_FILE)
        if len(_loaded) >= _MAX_KEPT:
            _loaded.pop(next(iter(_loaded)))
        _loaded[source] = project
    return project


def _error(kind: str, message: str) -> str:
    return json.dumps({"ok": False, "error": {"kind": kind, "message": message}})


def _failure(err: Exception) -> str:
    """A design's mistake as one line with its design.py line (`diagnose.explain`)."""
    line = explain(err, DESIGN_FILE)
    if isinstance(err, StructureError):
        return _error("structure", line or str(err))
    if isinstance(err, DesignError):
        return _error("design", line or str(err))
    if line is None:  # raised inside cadparam: say so rather than blame the design
        return _error("exception", f"cadparam bug: {type(err).__name__}: {err}")
    return _error("exception", line)


def run_source_json(source: str, values_json: str) -> str:
    """Runs a design's source for the values (JSON object) and returns the result as JSON."""
    try:
        project = _project(source)
    except Exception as err:  # noqa: BLE001 - a partner's bug must come back as a message
        return _failure(err)
    try:
        values: Any = json.loads(values_json)
    except ValueError as err:
        return _error("invalid_parameters", f"the values are not JSON: {err}")
    try:
        dag = project.run(values)
    except ParameterError as err:
        return _error("invalid_parameters", str(err))
    except Exception as err:  # noqa: BLE001 - a partner's bug must come back as a message
        return _failure(err)
    return json.dumps({"ok": True, "dag": dag}, separators=(",", ":"), allow_nan=False)
