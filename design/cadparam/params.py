"""Parameter descriptors (Int, Float, Bool, Enum, Color, String) and the parameters.schema.json
they emit.

The emitted document is exactly the dialect lib/dag/parameter_schema.ts validates
(docs/dag.md, "Parameter schema"); descriptors check the same rules when they are declared, so a
design with a bad parameter fails on the author's machine, not at publish time.
"""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

from . import suggest
from .errors import ParameterError

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
COLOR_PATTERN = re.compile(r"^#[0-9a-f]{6}$")
COLOR_PATTERN_SOURCE = "^#[0-9a-f]{6}$"
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
MAX_ABS = 1e6
# Names JavaScript objects already have; the kernel refuses them as parameter names.
RESERVED_NAMES = {
    "__proto__", "constructor", "toString", "valueOf", "hasOwnProperty", "isPrototypeOf",
    "propertyIsEnumerable", "toLocaleString", "__defineGetter__", "__defineSetter__",
    "__lookupGetter__", "__lookupSetter__",
}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_on_step(value: float, minimum: float, step: float) -> bool:
    """Whether `value` is `minimum + k·step` within 1e-9 relative (as parameter_schema.ts)."""
    snapped = minimum + _js_round((value - minimum) / step) * step
    return abs(value - snapped) <= 1e-9 * max(abs(value), abs(snapped), step)


def _js_round(x: float) -> float:
    # JavaScript's Math.round: halves go up (Python's round() goes to even).
    return math.floor(x + 0.5)


class Parameter:
    """Common part of every descriptor: name, default and display text."""

    kind = ""
    json_type = ""

    def __init__(
        self,
        name: str,
        default: Any,
        *,
        label: str | None = None,
        description: str | None = None,
        unit: str | None = None,
        group: str | None = None,
    ) -> None:
        if not isinstance(name, str) or not NAME_PATTERN.match(name) or name in RESERVED_NAMES:
            raise ParameterError(
                f"parameter name {name!r}: names are 1–64 characters of [A-Za-z0-9_.-]"
            )
        self.name = name
        self.label = _text(name, "label", label, 1, 200)
        self.description = _text(name, "description", description, 0, 2000)
        self.unit = _text(name, "unit", unit, 0, 200)
        self.group = _text(name, "group", group, 1, 200)
        self.default = default

    def check(self, value: Any) -> Any:
        """Returns `value` when it is valid for this parameter, else raises ParameterError."""
        raise NotImplementedError

    def _check_default(self) -> None:
        try:
            self.default = self.check(self.default)
        except ParameterError as err:
            raise ParameterError(f"default of {err.message}") from None

    def _extra(self) -> list[tuple[str, Any]]:
        return []

    def schema(self) -> dict[str, Any]:
        """This parameter's property in parameters.schema.json (stable member order)."""
        out: dict[str, Any] = {"kind": self.kind, "type": self.json_type}
        for key in ("label", "description", "unit", "group"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        for key, value in self._extra():
            out[key] = value
        out["default"] = self.default
        return out


class _Numeric(Parameter):
    integer = False

    def __init__(
        self,
        name: str,
        default: Any,
        min: Any = None,  # noqa: A002 - the descriptor vocabulary of the issue
        max: Any = None,  # noqa: A002
        step: Any = None,
        **display: Any,
    ) -> None:
        super().__init__(name, default, **display)
        if min is None or max is None:
            raise ParameterError(f"{name}: an {self.kind} needs min and max")
        self.minimum = self._bound("min", min)
        self.maximum = self._bound("max", max)
        if self.minimum > self.maximum:
            raise ParameterError(f"{name}: max ({max}) is below min ({min})")
        self.step = None if step is None else self._bound("step", step)
        if self.step is not None and not self.step > 0:
            raise ParameterError(f"{name}: step must be > 0")
        self._check_default()

    def _bound(self, what: str, value: Any) -> float:
        if not _is_number(value) or not math.isfinite(value) or abs(value) > MAX_ABS:
            raise ParameterError(f"{self.name}: {what} must be a finite number with |x| ≤ 1e6")
        if self.integer and value != int(value):
            raise ParameterError(f"{self.name}: an Int's {what} is an integer")
        return int(value) if self.integer else value

    def check(self, value: Any) -> Any:
        name = self.name
        if not _is_number(value):
            raise ParameterError(f"{name} is {self.kind}, got {type(value).__name__}")
        if not math.isfinite(value):
            raise ParameterError(f"{name} must be finite")
        if self.integer and value != int(value):
            raise ParameterError(f"{name} must be an integer")
        if value < self.minimum or value > self.maximum:
            raise ParameterError(f"{name} is {self.minimum}–{self.maximum}, got {value}")
        if self.step is not None and not is_on_step(value, self.minimum, self.step):
            raise ParameterError(f"{name} moves in steps of {self.step}, got {value}")
        return int(value) if self.integer else value

    def _extra(self) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = [("minimum", self.minimum), ("maximum", self.maximum)]
        if self.step is not None:
            out.append(("step", self.step))
        return out


class Int(_Numeric):
    """An integer parameter: `Int("teeth", 24, min=10, max=80, label="Teeth")`."""

    kind = "Int"
    json_type = "integer"
    integer = True


class Float(_Numeric):
    """A number parameter: `Float("width", 80, min=40, max=200, step=0.5, unit="mm")`."""

    kind = "Float"
    json_type = "number"


class Bool(Parameter):
    """A yes/no parameter: `Bool("rounded", True, label="Rounded corners")`."""

    kind = "Bool"
    json_type = "boolean"

    def __init__(self, name: str, default: Any, **display: Any) -> None:
        super().__init__(name, default, **display)
        self._check_default()

    def check(self, value: Any) -> Any:
        if not isinstance(value, bool):
            raise ParameterError(f"{self.name} is Bool, got {type(value).__name__}")
        return value


class Enum(Parameter):
    """One of a list of strings: `Enum("style", "round", choices=["round", "faceted"])`."""

    kind = "Enum"
    json_type = "string"

    def __init__(
        self,
        name: str,
        default: Any,
        choices: Sequence[str] | None = None,
        choice_labels: Sequence[str] | None = None,
        **display: Any,
    ) -> None:
        super().__init__(name, default, **display)
        if not choices or isinstance(choices, str):
            raise ParameterError(f"{name}: an Enum needs a list of choices")
        self.choices = list(choices)
        if len(self.choices) > 256:
            raise ParameterError(f"{name}: at most 256 choices")
        for choice in self.choices:
            if not isinstance(choice, str) or not 1 <= len(choice) <= 200:
                raise ParameterError(f"{name}: choices are strings of 1–200 characters")
        if len(set(self.choices)) != len(self.choices):
            raise ParameterError(f"{name}: a choice repeats")
        self.choice_labels = None if choice_labels is None else list(choice_labels)
        if self.choice_labels is not None and (
            len(self.choice_labels) != len(self.choices)
            or not all(isinstance(x, str) and len(x) <= 200 for x in self.choice_labels)
        ):
            raise ParameterError(f"{name}: one label (string) per choice")
        self._check_default()

    def check(self, value: Any) -> Any:
        if not isinstance(value, str):
            raise ParameterError(f"{self.name} is Enum, got {type(value).__name__}")
        if value not in self.choices:
            raise ParameterError(f"{self.name} is one of {', '.join(self.choices)}, got {value!r}")
        return value

    def _extra(self) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = [("enum", self.choices)]
        if self.choice_labels is not None:
            out.append(("enumLabels", self.choice_labels))
        return out


class Color(Parameter):
    """A lowercase #rrggbb color: `Color("color", "#4a6fa5", swatches=["#222222"])`."""

    kind = "Color"
    json_type = "string"

    def __init__(
        self, name: str, default: Any, swatches: Sequence[str] | None = None, **display: Any
    ) -> None:
        super().__init__(name, default, **display)
        self.swatches = None if swatches is None else list(swatches)
        if self.swatches is not None:
            if len(self.swatches) > 64:
                raise ParameterError(f"{name}: at most 64 swatches")
            for color in self.swatches:
                if not isinstance(color, str) or not COLOR_PATTERN.match(color):
                    raise ParameterError(f"{name}: swatch {color!r} is not a lowercase #rrggbb")
        self._check_default()

    def check(self, value: Any) -> Any:
        if not isinstance(value, str):
            raise ParameterError(f"{self.name} is Color, got {type(value).__name__}")
        if not COLOR_PATTERN.match(value):
            raise ParameterError(f"{self.name} is a lowercase #rrggbb color, got {value!r}")
        return value

    def _extra(self) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = [("pattern", COLOR_PATTERN_SOURCE)]
        if self.swatches is not None:
            out.append(("swatches", self.swatches))
        return out


MAX_STRING_LENGTH = 200
_ESCAPABLE = set("\\][-^/")


def parse_string_pattern(pattern: str) -> list[tuple[int, int]]:
    """The code point ranges of a String pattern `^[…]*$` (lib/dag/string_pattern.ts's rules:
    literals, ranges a-z, escapes \\ \] \[ \- \^ \/; no [^…]); ValueError otherwise."""
    if not (pattern.startswith("^[") and pattern.endswith("]*$") and len(pattern) >= 6):
        raise ValueError("a String pattern is one character class: ^[…]*$")
    chars = list(pattern[2:-3])
    if chars[0] == "^":
        raise ValueError("a String pattern lists allowed characters (no [^…])")
    items: list[tuple[int, bool]] = []
    k = 0
    while k < len(chars):
        c = chars[k]
        if c == "\\":
            k += 1
            if k >= len(chars) or chars[k] not in _ESCAPABLE:
                raise ValueError("in a String pattern, \\ escapes only \\ ] [ - ^ /")
            items.append((ord(chars[k]), True))
        elif c in "[]":
            raise ValueError(f"in a String pattern, {c} is written \\{c}")
        else:
            items.append((ord(c), False))
        k += 1
    ranges: list[tuple[int, int]] = []
    k = 0
    while k < len(items):
        cp = items[k][0]
        dash = k + 1 < len(items) - 1 and items[k + 1] == (ord("-"), False)
        if not dash:
            ranges.append((cp, cp))
            k += 1
            continue
        high = items[k + 2][0]
        if high < cp:
            raise ValueError("a range in a String pattern runs from low to high")
        ranges.append((cp, high))
        k += 3
    return ranges


class String(Parameter):
    """Free text of at most `max_length` characters, optionally only those of `pattern` (one
    character class, `^[…]*$`): `String("name", "Ada", max_length=16,
    pattern="^[A-Za-z0-9 .'&\\-]*$")`. Feed it to `text()` to engrave or emboss it."""

    kind = "String"
    json_type = "string"

    def __init__(
        self,
        name: str,
        default: Any,
        max_length: Any = None,
        min_length: Any = None,
        pattern: str | None = None,
        **display: Any,
    ) -> None:
        super().__init__(name, default, **display)
        self.max_length = self._count("max_length", max_length, 1, MAX_STRING_LENGTH)
        self.min_length = None if min_length is None else self._count(
            "min_length", min_length, 0, self.max_length
        )
        self.pattern = pattern
        self.ranges: list[tuple[int, int]] | None = None
        if pattern is not None:
            if not isinstance(pattern, str) or not 1 <= len(pattern) <= 1000:
                raise ParameterError(f"{name}: pattern is a string of 1–1000 characters")
            try:
                self.ranges = parse_string_pattern(pattern)
            except ValueError as err:
                raise ParameterError(f"{name}: {err}") from None
        self._check_default()

    def _count(self, what: str, value: Any, low: int, high: int) -> int:
        if value is None:
            raise ParameterError(f"{self.name}: a String needs {what}")
        if not _is_number(value) or value != int(value) or not low <= value <= high:
            raise ParameterError(f"{self.name}: {what} is an integer from {low} to {high}")
        return int(value)

    def check(self, value: Any) -> Any:
        name = self.name
        if not isinstance(value, str):
            raise ParameterError(f"{name} is String, got {type(value).__name__}")
        # Characters are code points (as JSON Schema counts them); the DAG's limit is UTF-16.
        if len(value) > self.max_length or len(value.encode("utf-16-le")) // 2 > MAX_STRING_LENGTH:
            raise ParameterError(f"{name} is at most {self.max_length} characters, got {value!r}")
        if len(value) < (self.min_length or 0):
            raise ParameterError(f"{name} is at least {self.min_length} characters, got {value!r}")
        if self.ranges is not None:
            for char in value:
                if not any(low <= ord(char) <= high for low, high in self.ranges):
                    raise ParameterError(
                        f"{name} may not contain {char!r} (allowed: {self.pattern}), got {value!r}"
                    )
        return value

    def _extra(self) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = [("maxLength", self.max_length)]
        if self.min_length is not None:
            out.append(("minLength", self.min_length))
        if self.pattern is not None:
            out.append(("pattern", self.pattern))
        return out


def _text(name: str, what: str, value: Any, low: int, high: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not low <= len(value) <= high:
        raise ParameterError(f"{name}: {what} is a string of {low}–{high} characters")
    return value


def schema_document(
    title: str, description: str | None, parameters: Sequence[Parameter]
) -> dict[str, Any]:
    """The whole parameters.schema.json document for a project's parameters."""
    out: dict[str, Any] = {"$schema": SCHEMA_DIALECT, "title": title}
    if description is not None:
        out["description"] = description
    out["type"] = "object"
    out["additionalProperties"] = False
    out["x-order"] = [p.name for p in parameters]
    out["properties"] = {p.name: p.schema() for p in parameters}
    return out


def resolve_values(parameters: Sequence[Parameter], values: dict[str, Any]) -> dict[str, Any]:
    """Each parameter's value (given and valid, else its default); unknown names are refused."""
    if not isinstance(values, dict):
        raise ParameterError("values must be an object")
    known = {p.name for p in parameters}
    unknown = sorted(name for name in values if name not in known)
    if unknown:
        raise ParameterError(suggest.unknown("the project", "parameter", unknown[0], known))
    return {
        p.name: p.check(values[p.name]) if p.name in values else p.default
        for p in parameters
    }
