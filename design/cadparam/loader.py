"""Loading a design file (or its source text, as the in-browser runtime does) into its Project."""

from __future__ import annotations

import os
import traceback
import types
from typing import Any

from .errors import DesignError, pop_design_file, push_design_file, register_source
from .project import Project


def load_source(source: str, filename: str = "design.py") -> Project:
    """Executes a design's source and returns the one Project it declares."""
    register_source(filename, source)
    module = types.ModuleType("cadparam_design")
    module.__file__ = filename
    push_design_file(filename)
    try:
        code = compile(source, filename, "exec")
        exec(code, module.__dict__)  # noqa: S102 - running the partner's design is the point
    except DesignError as err:
        raise DesignError(with_location(err, filename)) from None
    finally:
        pop_design_file()
    found = [v for v in vars(module).values() if isinstance(v, Project)]
    if len(found) != 1:
        raise DesignError(
            f"{filename} must declare exactly one @project function, found {len(found)}"
        )
    found[0].design_file = filename
    return found[0]


def load_design(path: str) -> Project:
    """Reads and loads a design file."""
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    return load_source(source, path)


def with_location(err: BaseException, filename: str) -> str:
    """The error's message, prefixed by the design's line when the message does not name it."""
    message = str(err)
    if message.startswith(f"{filename}:"):
        return message
    frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == filename]
    if not frames:
        return message
    last = frames[-1]
    return f"{filename}:{last.lineno}: {(last.line or '').strip()}\n  {message}"


def describe(err: BaseException, project: Project | None) -> str:
    """A DesignError's message with the design line, for the command line."""
    if project is not None and project.design_file:
        return with_location(err, project.design_file)
    return str(err)


__all__: list[Any] = ["load_source", "load_design", "with_location", "describe"]
