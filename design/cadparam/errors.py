"""Errors a design can raise while it is declared, traced or run.

Every `DesignError` is one line. Raised while a design file is loaded or traced, it notes the
innermost line of that file on the stack, so `str(err)` reads `design.py:6: <what is wrong>` —
the partner's line, never cadparam's.
"""

from __future__ import annotations

import re
import sys

# The files of the designs being loaded or traced; set by the loader so errors can name lines.
_design_files: list[str] = []

FALLBACK_HINT = (
    "a template is traced once with symbolic parameters, so use cadparam.select(cond, a, b), "
    "cadparam.min/max/clamp or a repeat with a parameter count instead, or declare the project "
    'with mode="python" so it runs in the in-browser Python runtime (docs/design.md)'
)


def one_line(text: str) -> str:
    """`text` with its line breaks (and the indentation after them) turned into single spaces."""
    return re.sub(r"\s*\n\s*", " ", text).strip()


class DesignError(Exception):
    """A mistake in a design: bad parameter declaration, wrong argument, structure on a value.

    `file` and `line` name the design's line (found on the stack when not given); `message` is
    the mistake without them.
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None) -> None:
        self.message = one_line(str(message))
        super().__init__(self.message)
        if file is None:
            file, line = design_frame()
        self.file = file
        self.line = line

    def at(self, file: str, line: int | None) -> "DesignError":
        """Sets the design line when the error does not have one yet; returns the error."""
        if self.file is None:
            self.file, self.line = file, line
        return self

    def __str__(self) -> str:
        if self.file is None:
            return self.message
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.message}"


class ParameterError(DesignError):
    """A parameter descriptor or a parameter value is invalid."""


class StructureError(DesignError):
    """The design's structure depends on the value of a parameter (a branch, a loop, int(p))."""


class UnknownNameError(DesignError, AttributeError):
    """The design asked cadparam for a name it does not have (a parameter, a member)."""


def push_design_file(path: str) -> None:
    """Marks `path` as the design file whose lines errors should point at."""
    _design_files.append(path)


def pop_design_file() -> None:
    """Undoes `push_design_file`."""
    _design_files.pop()


def design_frame() -> tuple[str | None, int | None]:
    """`(file, line)` of the innermost frame in the design file on the stack, or `(None, None)`."""
    if not _design_files:
        return None, None
    wanted = _design_files[-1]
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == wanted:
            return wanted, frame.f_lineno
        frame = frame.f_back
    return None, None
