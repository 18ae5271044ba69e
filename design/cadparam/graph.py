"""The traced graph: nodes interned by content, and the symbolic values designs compute with.

Every operation on a symbolic value creates (or finds) a node in the current `Graph`. Nodes are
interned by their content, so a sub-expression or a solid built twice is one node in the DAG.
Symbolic values refuse to become Python bools, ints, floats or iterables: a design whose structure
depends on a parameter's value cannot be a frozen template (`StructureError`).
"""

from __future__ import annotations

import contextvars
import json
import math
from typing import Any, Iterator

from .errors import DesignError, FALLBACK_HINT, StructureError
from .ops import POSITIVE, check_node, declare, flag, member, num
from .suggest import unknown

_current: contextvars.ContextVar["Graph | None"] = contextvars.ContextVar("graph", default=None)

NUMBER, BOOLEAN, STRING = "number", "boolean", "string"
PROFILE, SOLID, INSTANCES, PART, ASSEMBLY = "profile", "solid", "instances", "part", "assembly"
MAX_ABS = 1e6


class Node:
    """One DAG node: its op, its members in order (values may hold other nodes) and its type."""

    __slots__ = ("index", "op", "members", "type", "name", "variable")

    def __init__(self, index: int, op: str, members: dict[str, Any], type_: str) -> None:
        self.index = index
        self.op = op
        self.members = members
        self.type = type_
        self.name: str | None = None
        # The design function's local variable holding this node (a readable id, if free).
        self.variable: str | None = None

    def children(self) -> Iterator["Node"]:
        """The nodes this node references, in member order."""
        yield from _nodes_in(list(self.members.values()))


def _nodes_in(value: Any) -> Iterator[Node]:
    if isinstance(value, Node):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _nodes_in(item)


def _key_of(value: Any) -> Any:
    if isinstance(value, Node):
        return {"ref": value.index}
    if isinstance(value, list):
        return [_key_of(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


class Graph:
    """The nodes a design created while being traced, interned by content."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self._by_key: dict[str, Node] = {}

    def add(self, op: str, members: dict[str, Any], type_: str) -> Node:
        """The node with this content (checked against the op table), created if new."""
        check_node(op, members, lambda value: not isinstance(value, Node), fail)
        key = json.dumps([op, {k: _key_of(v) for k, v in members.items()}], sort_keys=False)
        found = self._by_key.get(key)
        if found is not None:
            return found
        node = Node(len(self.nodes), op, members, type_)
        self.nodes.append(node)
        self._by_key[key] = node
        return node

    def __enter__(self) -> "Graph":
        self._token = _current.set(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _current.reset(self._token)


def current_graph() -> Graph:
    """The graph being traced; geometry calls outside a trace are a mistake."""
    graph = _current.get()
    if graph is None:
        raise DesignError(
            "geometry can only be built inside a project function while it is emitted or run"
        )
    return graph


def fail(message: str) -> "NoReturn":  # type: ignore[name-defined]  # noqa: F821
    """Raises a DesignError that names the design's line."""
    raise DesignError(message)


# ---------------------------------------------------------------------------------------------
# Values


class Value:
    """A handle on a node: symbolic numbers, flags and texts, and geometry."""

    __slots__ = ("node",)
    type = ""

    def __init__(self, node: Node) -> None:
        self.node = node

    def named(self, name: str) -> "Value":
        """Gives the node a readable id in the emitted DAG (the first name given wins)."""
        if not isinstance(name, str) or not name:
            fail("named() takes a non-empty string")
        if self.node.name is None:
            self.node.name = name
        return self

    __hash__ = object.__hash__


def _structure(what: str) -> "NoReturn":  # type: ignore[name-defined]  # noqa: F821
    raise StructureError(
        f"the design's structure depends on a parameter's value ({what}); {FALLBACK_HINT}"
    )


class Symbolic(Value):
    """A value computed from parameters; it exists only as a node until the kernel evaluates it."""

    __slots__ = ()

    def __bool__(self) -> bool:
        _structure("a branch, `and`/`or`/`not`, or a builtin min/max needs its truth value")

    def __index__(self) -> int:
        _structure("range(), indexing or slicing needs its integer value")

    def __int__(self) -> int:
        _structure("int() needs its value")

    def __float__(self) -> float:
        _structure("float() needs its value")

    def __complex__(self) -> complex:
        _structure("complex() needs its value")

    def __iter__(self) -> Iterator[Any]:
        _structure("iterating needs its value")

    def __len__(self) -> int:
        _structure("len() needs its value")

    def __repr__(self) -> str:
        return f"<{self.type} {self.node.op}#{self.node.index}>"

    def __eq__(self, other: Any) -> "Flag":  # type: ignore[override]
        return compare("eq", self, other)

    def __ne__(self, other: Any) -> "Flag":  # type: ignore[override]
        return compare("ne", self, other)

    __hash__ = object.__hash__


class Num(Symbolic):
    """A symbolic number: arithmetic, comparisons, round/floor/ceil/abs become DAG nodes."""

    __slots__ = ()
    type = NUMBER

    def __add__(self, o: Any) -> Any:
        return add(self, o)

    def __radd__(self, o: Any) -> Any:
        return add(o, self)

    def __sub__(self, o: Any) -> Any:
        return sub(self, o)

    def __rsub__(self, o: Any) -> Any:
        return sub(o, self)

    def __mul__(self, o: Any) -> Any:
        return mul(self, o)

    def __rmul__(self, o: Any) -> Any:
        return mul(o, self)

    def __truediv__(self, o: Any) -> Any:
        return div(self, o)

    def __rtruediv__(self, o: Any) -> Any:
        return div(o, self)

    def __floordiv__(self, o: Any) -> Any:
        return round_to(div(self, o), 1, "floor")

    def __rfloordiv__(self, o: Any) -> Any:
        return round_to(div(o, self), 1, "floor")

    def __mod__(self, o: Any) -> Any:
        return sub(self, mul(round_to(div(self, o), 1, "floor"), o))

    def __rmod__(self, o: Any) -> Any:
        return sub(o, mul(round_to(div(o, self), 1, "floor"), self))

    def __pow__(self, o: Any) -> Any:
        if isinstance(o, int) and not isinstance(o, bool) and 1 <= o <= 8:
            return mul(*([self] * o))
        fail("a parameter can only be raised to a literal integer power 1–8")

    def __neg__(self) -> Any:
        return mul(self, -1)

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return max(self, mul(self, -1))

    def __round__(self, ndigits: int | None = None) -> Any:
        return round_to(self, 1 if ndigits is None else 10.0 ** -ndigits)

    def __floor__(self) -> Any:
        return round_to(self, 1, "floor")

    def __ceil__(self) -> Any:
        return round_to(self, 1, "ceil")

    def __trunc__(self) -> Any:
        return select(compare("lt", self, 0), round_to(self, 1, "ceil"), round_to(self, 1, "floor"))

    def __lt__(self, o: Any) -> "Flag":
        return compare("lt", self, o)

    def __le__(self, o: Any) -> "Flag":
        return compare("le", self, o)

    def __gt__(self, o: Any) -> "Flag":
        return compare("gt", self, o)

    def __ge__(self, o: Any) -> "Flag":
        return compare("ge", self, o)


class Flag(Symbolic):
    """A symbolic boolean; `&`, `|`, `~` combine flags (as `select` nodes)."""

    __slots__ = ()
    type = BOOLEAN

    def __and__(self, o: Any) -> Any:
        return select(self, o, False)

    def __rand__(self, o: Any) -> Any:
        return select(o, self, False)

    def __or__(self, o: Any) -> Any:
        return select(self, True, o)

    def __ror__(self, o: Any) -> Any:
        return select(o, True, self)

    def __invert__(self) -> Any:
        return select(self, False, True)


class Text(Symbolic):
    """A symbolic string (an Enum, Color or String parameter, or a `select` of strings)."""

    __slots__ = ()
    type = STRING


SYMBOLIC_CLASS = {NUMBER: Num, BOOLEAN: Flag, STRING: Text}


def symbolic(node: Node) -> Symbolic:
    """The handle for a value node."""
    return SYMBOLIC_CLASS[node.type](node)


# ---------------------------------------------------------------------------------------------
# Arguments


def literal_type(value: Any) -> str | None:
    """The DAG type of a Python literal, or None when it is not one."""
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, (int, float)):
        return NUMBER
    if isinstance(value, str):
        return STRING
    return None


def type_of(value: Any) -> str | None:
    """The DAG type of a literal or a handle."""
    if isinstance(value, Value):
        return value.node.type
    return literal_type(value)


def check_number(value: Any) -> float:
    """A literal number the DAG can carry (finite, |x| ≤ 1e6)."""
    if not math.isfinite(value) or abs(value) > MAX_ABS:
        fail(f"numbers must be finite with |x| ≤ 1e6, got {value}")
    return value


def arg(value: Any, expected: str, what: str) -> Any:
    """A member value: a literal of `expected` type, or the node of a handle of that type."""
    if isinstance(value, Value):
        if value.node.type != expected:
            fail(f"{what} must be a {expected}, got a {value.node.type}")
        return value.node
    if literal_type(value) != expected:
        fail(f"{what} must be a {expected}, got {type(value).__name__} {value!r}")
    if expected == NUMBER:
        check_number(value)
    if expected == STRING and len(value) > 200:
        fail(f"{what}: strings are at most 200 characters")
    return value


def num_arg(value: Any, what: str) -> Any:
    """A number member."""
    return arg(value, NUMBER, what)


def vector(value: Any, size: int, what: str) -> list[Any]:
    """A vector member of `size` numbers."""
    if isinstance(value, Value) or not isinstance(value, (list, tuple)) or len(value) != size:
        fail(f"{what} must be a list of {size} numbers")
    return [num_arg(item, f"{what}[{i}]") for i, item in enumerate(value)]


def _is_literal(value: Any) -> bool:
    return not isinstance(value, Value)


def _make(op: str, members: dict[str, Any], type_: str) -> Symbolic:
    return symbolic(current_graph().add(op, members, type_))


# ---------------------------------------------------------------------------------------------
# Expressions (literals fold in Python; anything symbolic becomes a node)


def _nary(op: str, args: tuple[Any, ...], fold: Any) -> Any:
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    if not 1 <= len(args) <= 64:
        fail(f"{op} takes 1–64 numbers")
    members = [num_arg(a, f"{op} argument {i}") for i, a in enumerate(args)]
    if all(_is_literal(a) for a in args):
        return fold(args)
    return _make(op, {"args": members}, NUMBER)


_ARGS = member("nums", min=1, max=64)
for _name in ("add", "mul", "min", "max"):
    declare(_name, NUMBER, args=_ARGS)


def add(*args: Any) -> Any:
    """The sum of numbers (an `add` node when any is symbolic)."""
    return _nary("add", args, lambda xs: sum(xs))


def mul(*args: Any) -> Any:
    """The product of numbers (a `mul` node when any is symbolic)."""
    return _nary("mul", args, lambda xs: math.prod(xs))


def min(*args: Any) -> Any:  # noqa: A001 - mirrors the DAG op
    """The smallest number (a `min` node when any is symbolic)."""
    import builtins

    return _nary("min", args, lambda xs: builtins.min(xs))


def max(*args: Any) -> Any:  # noqa: A001 - mirrors the DAG op
    """The largest number (a `max` node when any is symbolic)."""
    import builtins

    return _nary("max", args, lambda xs: builtins.max(xs))


declare("sub", NUMBER, a=num(), b=num())


def sub(a: Any, b: Any) -> Any:
    """a − b."""
    members = {"a": num_arg(a, "sub a"), "b": num_arg(b, "sub b")}
    if _is_literal(a) and _is_literal(b):
        return a - b
    return _make("sub", members, NUMBER)


declare("div", NUMBER, a=num(), b=num({"nonZero": True, "reason": "division_by_zero"}))


def div(a: Any, b: Any) -> Any:
    """a ÷ b (dividing by a literal 0 is refused here, by a computed 0 in the kernel)."""
    members = {"a": num_arg(a, "div a"), "b": num_arg(b, "div b")}
    if _is_literal(b) and b == 0:
        fail("division by zero")
    if _is_literal(a) and _is_literal(b):
        return a / b
    return _make("div", members, NUMBER)


declare("clamp", NUMBER, value=num(), min=num(), max=num())


def clamp(value: Any, low: Any, high: Any) -> Any:
    """`value` limited to [low, high]."""
    members = {
        "value": num_arg(value, "clamp value"),
        "min": num_arg(low, "clamp min"),
        "max": num_arg(high, "clamp max"),
    }
    if all(_is_literal(x) for x in (value, low, high)):
        if low > high:
            fail("clamp with min > max")
        import builtins

        return builtins.min(builtins.max(value, low), high)
    return _make("clamp", members, NUMBER)


declare(
    "round",
    NUMBER,
    value=num(),
    step=num(POSITIVE, required=False),
    mode=member("choice", required=False, choices=["nearest", "floor", "ceil"]),
)


def round_to(value: Any, step: Any = None, mode: str | None = None) -> Any:
    """`value` rounded to a multiple of `step` (default 1); mode nearest | floor | ceil."""
    if mode not in (None, "nearest", "floor", "ceil"):
        fail(unknown("round", "mode", mode, ["nearest", "floor", "ceil"]))
    members: dict[str, Any] = {"value": num_arg(value, "round value")}
    if step is not None:
        members["step"] = num_arg(step, "round step")
    if mode is not None:
        members["mode"] = mode
    if _is_literal(value) and (step is None or _is_literal(step)):
        s = 1 if step is None else step
        if not s > 0:
            fail("round step must be > 0")
        q = value / s
        r = math.floor(q) if mode == "floor" else math.ceil(q) if mode == "ceil" else math.floor(
            q + 0.5
        )
        return r * s
    return _make("round", members, NUMBER)


def floor(value: Any, step: Any = None) -> Any:
    """`value` rounded down (to a multiple of `step`)."""
    return round_to(value, step, "floor")


def ceil(value: Any, step: Any = None) -> Any:
    """`value` rounded up (to a multiple of `step`)."""
    return round_to(value, step, "ceil")


_TESTS = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


declare("compare", BOOLEAN, test=member("choice", choices=list(_TESTS)), a=member("value"),
        b=member("value"))


def compare(test: str, a: Any, b: Any) -> Any:
    """A `compare` node (`lt`, `le`, `gt`, `ge`, `eq`, `ne`); literals fold to a Python bool."""
    if test not in _TESTS:
        fail(unknown("compare", "test", test, _TESTS))
    ta, tb = type_of(a), type_of(b)
    if ta is None or tb is None:
        return NotImplemented
    if test in ("eq", "ne"):
        if ta != tb:
            fail(f"{test} compares two values of one type, got {ta} and {tb}")
    elif ta != NUMBER or tb != NUMBER:
        fail(f"{test} compares numbers, got {ta} and {tb}")
    members = {"test": test, "a": arg(a, ta, "compare a"), "b": arg(b, tb, "compare b")}
    if _is_literal(a) and _is_literal(b):
        return {
            "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b, "eq": a == b, "ne": a != b
        }[test]
    return _make("compare", members, BOOLEAN)


declare("select", "select", cond=flag(required=True), then=member("value"),
        **{"else": member("value")})


def select(cond: Any, then: Any, otherwise: Any) -> Any:
    """`then` when `cond` holds, else `otherwise` (numbers, flags, strings or geometry)."""
    from .geometry import Shape, merge_types

    if isinstance(cond, bool):
        return then if cond else otherwise
    if not isinstance(cond, Value) or cond.node.type != BOOLEAN:
        fail("select's condition must be a boolean")
    tt, te = type_of(then), type_of(otherwise)
    if tt is None or te is None:
        fail("select chooses between numbers, booleans, strings or geometry")
    if isinstance(then, Shape) or isinstance(otherwise, Shape):
        result = merge_types(tt, te)
        if result is None:
            fail(f"select chooses between geometry of one kind, got {tt} and {te}")
    else:
        if tt != te:
            fail(f"select chooses between values of one type, got {tt} and {te}")
        result = tt
    members = {"cond": cond.node, "then": arg(then, tt, "select then"),
               "else": arg(otherwise, te, "select else")}
    node = current_graph().add("select", members, result)
    if result in SYMBOLIC_CLASS:
        return symbolic(node)
    return Shape(node)
