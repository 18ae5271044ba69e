"""Loading a design file (or its source text, as the in-browser runtime does) into its Project."""

from __future__ import annotations

import types

from .errors import DesignError, pop_design_file, push_design_file
from .project import Project


def load_source(source: str, filename: str = "design.py") -> Project:
    """Executes a design's source and returns the one Project it declares.

    Whatever the design raises propagates unchanged; `diagnose.explain` turns it into one line.
    """
    module = types.ModuleType("cadparam_design")
    module.__file__ = filename
    push_design_file(filename)
    try:
        code = compile(source, filename, "exec")
        exec(code, module.__dict__)  # noqa: S102 - running the partner's design is the point
    finally:
        pop_design_file()
    found = [v for v in vars(module).values() if isinstance(v, Project)]
    if len(found) != 1:
        raise DesignError(
            f"must declare exactly one @project function, found {len(found)}", file=filename
        )
    found[0].design_file = filename
    return found[0]


def load_design(path: str) -> Project:
    """Reads and loads a design file."""
    try:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
    except OSError as err:
        raise DesignError(f"cannot read the design: {err.strerror or err}", file=path) from None
    except UnicodeDecodeError as err:
        raise DesignError(f"the design is not UTF-8 text ({err.reason})", file=path) from None
    return load_source(source, path)


__all__ = ["load_source", "load_design"]
