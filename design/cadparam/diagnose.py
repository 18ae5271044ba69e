"""What went wrong while a design was loaded, traced or run, as one line for its author.

`explain(err, design_file)` gives `design.py:6: <what is wrong>` for the design's own mistakes:
every `DesignError`, a syntax error, a name cadparam does not have (`from cadparam import
Cylindr`, `cp.boxx`, `shape.extrud`, `p.wdth`, `cylinder(radus=2)`) with the names it does have,
closest first, and any other exception the design's own code raised. An exception raised inside
cadparam's code is cadparam's bug: `explain` returns None and the caller lets the traceback show.
"""

from __future__ import annotations

import builtins
import os
import re
import sys
import types
from typing import Any

from .errors import DesignError, one_line
from .suggest import guesses, ranked, unknown

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_IMPORT_NAME = re.compile(r"^cannot import name '([^']+)'")
# Python 3.14 (Pyodide) appends its own ". Did you mean 'radius'?" to this message.
_UNEXPECTED_KEYWORD = re.compile(r"^([\w.<>]+)\(\) got an unexpected keyword argument '(\w+)'")


def explain(err: BaseException, design_file: str) -> str | None:
    """One line `file:line: message` for a mistake of the design, or None for a cadparam bug."""
    if isinstance(err, DesignError):
        if err.file is None:
            frames = _frames(err)
            mine = [i for i, (frame, _) in enumerate(frames) if _is(frame, design_file)]
            if mine:
                err.at(design_file, frames[mine[-1]][1])
        return str(err)
    if isinstance(err, SyntaxError) and err.filename == design_file:
        return f"{design_file}:{err.lineno}: {type(err).__name__}: {one_line(str(err.msg))}"
    frames = _frames(err)
    mine = [i for i, (frame, _) in enumerate(frames) if _is(frame, design_file)]
    if not mine:
        return None
    frame, line = frames[mine[-1]]
    deeper = frames[mine[-1] + 1:]
    message = _unknown_keyword(err, frame, deeper)
    if message is None:
        if any(_in_package(f) for f, _ in deeper):
            return None
        message = _unknown_name(err, frame) or f"{type(err).__name__}: {err}"
        if deeper:
            inner, inner_line = deeper[-1]
            message += f" (raised in {inner.f_code.co_filename}:{inner_line})"
    return f"{design_file}:{line}: {one_line(message)}"


def _frames(err: BaseException) -> list[tuple[types.FrameType, int]]:
    out = []
    tb = err.__traceback__
    while tb is not None:
        out.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return out


def _is(frame: types.FrameType, design_file: str) -> bool:
    return frame.f_code.co_filename == design_file


def _in_package(frame: types.FrameType) -> bool:
    return os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == PACKAGE_DIR


def _public(names: Any) -> list[str]:
    return [n for n in names if isinstance(n, str) and not n.startswith("_")]


def _module_names(module: types.ModuleType) -> list[str]:
    return _public(getattr(module, "__all__", None) or dir(module))


def _is_cadparam(obj: Any) -> bool:
    module = obj.__name__ if isinstance(obj, types.ModuleType) else type(obj).__module__
    return module == "cadparam" or module.startswith("cadparam.")


def _unknown_name(err: BaseException, frame: types.FrameType) -> str | None:
    """The message for a name the design asked for and nobody has, or None."""
    if isinstance(err, ModuleNotFoundError) and err.name:
        close, _ = ranked(err.name.split(".")[0], ["cadparam"])
        return f"there is no module {err.name!r}; did you mean cadparam?" if close else None
    if isinstance(err, ImportError) and err.name in sys.modules:
        found = _IMPORT_NAME.match(str(err))
        module = sys.modules[err.name]  # type: ignore[index]
        if found and _is_cadparam(module):
            return unknown(module.__name__, "name", found.group(1), _module_names(module))
        return None
    if isinstance(err, AttributeError) and err.name and hasattr(err, "obj"):
        obj = err.obj
        if isinstance(obj, types.ModuleType):
            mine = _is_cadparam(obj)
            return unknown(obj.__name__, "name", err.name, _module_names(obj), listed=mine)
        subject = type(obj).__name__
        return unknown(subject, "attribute", err.name, _public(dir(obj)), listed=_is_cadparam(obj))
    if isinstance(err, NameError) and err.name:
        return _undefined(err.name, frame)
    return None


def _undefined(asked: str, frame: types.FrameType) -> str:
    """A name the design uses but never defined: the names it has, and cadparam's lookalikes."""
    import cadparam

    here = set(_public(frame.f_locals)) | set(_public(frame.f_globals))
    alias = next((n for n in sorted(here) if frame.f_globals.get(n) is cadparam), None)
    close, rest = ranked(asked, here | set(_public(dir(builtins))) | set(cadparam.__all__))
    offered = [
        n if n in here or hasattr(builtins, n)
        else f"{alias}.{n}" if alias else f"{n} (from cadparam import {n})"
        for n in guesses(asked, close)
    ]
    text = f"name {asked!r} is not defined"
    if offered:
        text += f"; did you mean {' or '.join(offered)}?"
    known = [n for n in close if n in here] + [n for n in rest if n in here]
    return text + f"{' ' if offered else '; '}names defined here: {', '.join(known) or 'none'}"


def _unknown_keyword(
    err: BaseException, frame: types.FrameType, deeper: list[tuple[types.FrameType, int]]
) -> str | None:
    """`Float("w", 1, mn=0)`, `cylinder(1, radus=2)`, `shape.extrude(3, twst=9)`: the keyword
    the design passed to a cadparam call that has no such argument, or None."""
    found = _UNEXPECTED_KEYWORD.match(str(err)) if type(err) is TypeError else None
    if found is None:
        return None
    callee_name, asked = found.groups()
    callee = _resolve(callee_name, frame)
    if callee is None:
        return None
    known = _arguments(callee)
    subject = f"{callee_name.removesuffix('.__init__')}()"
    if deeper:
        # Raised where cadparam passed the design's **keywords on: only the design's own keyword.
        entry = deeper[0][0]
        code = entry.f_code
        if not _in_package(entry) or not code.co_flags & 0x08:  # CO_VARKEYWORDS
            return None
        keywords = entry.f_locals.get(code.co_varnames[code.co_argcount + code.co_kwonlyargcount])
        if not isinstance(keywords, dict) or asked not in keywords:
            return None
        known = _arguments(code) + known
        this = entry.f_locals.get("self")
        subject = (
            f"{type(this).__name__}()" if code.co_name == "__init__" and this is not None
            else f"{getattr(code, 'co_qualname', code.co_name)}()"
        )
    return unknown(subject, "argument", asked, dict.fromkeys(known))


def _resolve(qualname: str, frame: types.FrameType) -> types.CodeType | None:
    """The code of the cadparam function `qualname` names, as the design sees it (or None)."""
    import cadparam

    head, *rest = qualname.split(".")
    for scope in (frame.f_locals, frame.f_globals, vars(cadparam)):
        if head not in scope:
            continue
        obj: Any = scope[head]
        for part in rest:
            obj = getattr(obj, part, None)
        module = getattr(obj, "__module__", None) or ""
        code = getattr(obj, "__code__", None)
        if isinstance(code, types.CodeType) and module.startswith("cadparam"):
            return code
        return None
    return None


def _arguments(code: types.CodeType) -> list[str]:
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    return [n for n in names if n != "self"]
