"""The entry the in-browser Python runtime calls (lib/client/python_worker.js, under Pyodide).

One JSON string in, one JSON string out, so the JavaScript side never handles Python objects:
`run_source_json(source, values_json)` → `{"ok": true, "dag": {...}}` or
`{"ok": false, "error": {"kind": "...", "message": "..."}}`. Loaded designs are kept by source
text, so changing a slider re-runs the function without re-executing the module.
"""

from __future__ import annotations

import json
import traceback
from typing import Any

from .errors import DesignError, ParameterError, StructureError
from .loader import load_source, with_location
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


def run_source_json(source: str, values_json: str) -> str:
    """Runs a design's source for the values (JSON object) and returns the result as JSON."""
    try:
        values: Any = json.loads(values_json)
        dag = _project(source).run(values)
    except ParameterError as err:
        return _error("invalid_parameters", str(err))
    except StructureError as err:
        return _error("structure", with_location(err, DESIGN_FILE))
    except DesignError as err:
        return _error("design", with_location(err, DESIGN_FILE))
    except Exception as err:  # noqa: BLE001 - a partner's bug must come back as a message
        frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == DESIGN_FILE]
        where = f"{DESIGN_FILE}:{frames[-1].lineno}: " if frames else ""
        return _error("exception", f"{where}{type(err).__name__}: {err}")
    return json.dumps({"ok": True, "dag": dag}, separators=(",", ":"), allow_nan=False)
