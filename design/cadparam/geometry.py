"""Geometry: one Python call per DAG node type (docs/dag.md), returning `Shape` handles.

Optional members are written only when the design passes them, so the DAG says exactly what the
author said. Arguments may be literals or symbolic values of the right type.
"""

from __future__ import annotations

from typing import Any, Sequence

from .graph import (
    ASSEMBLY, BOOLEAN, INSTANCES, PART, PROFILE, SOLID, STRING, Value, arg,
    current_graph, fail, num_arg, vector,
)

SOLIDS = (SOLID, INSTANCES)


def merge_types(a: str | None, b: str | None) -> str | None:
    """The type of `select` between geometry of types a and b, or None when they do not mix."""
    if a == b:
        return a
    if a in SOLIDS and b in SOLIDS:
        return SOLID
    return None


class Shape(Value):
    """A geometry node: a profile, a solid, instances, a part or an assembly."""

    __slots__ = ()

    @property
    def kind(self) -> str:
        """profile, solid, instances, part or assembly."""
        return self.node.type

    def __repr__(self) -> str:
        return f"<{self.kind} {self.node.op}#{self.node.index}>"

    # Booleans as operators: a + b (union), a - b (difference), a & b (intersection).
    def __add__(self, other: Any) -> "Shape":
        return union(self, other)

    def __sub__(self, other: Any) -> "Shape":
        return difference(self, other)

    def __and__(self, other: Any) -> "Shape":
        return intersection(self, other)

    def translate(self, x: Any = 0, y: Any = 0, z: Any = 0) -> "Shape":
        """Moved by (x, y, z)."""
        return translate(self, [x, y, z])

    def rotate(self, x: Any = 0, y: Any = 0, z: Any = 0) -> "Shape":
        """Rotated by degrees about X, then Y, then Z."""
        return rotate(self, [x, y, z])

    def scale(self, x: Any, y: Any = None, z: Any = None) -> "Shape":
        """Scaled by (x, y, z); one factor scales uniformly."""
        return scale(self, [x, x if y is None else y, x if z is None else z])

    def mirror(self, x: Any = 0, y: Any = 0, z: Any = 0) -> "Shape":
        """Mirrored across the plane through the origin with normal (x, y, z)."""
        return mirror(self, [x, y, z])

    def extrude(self, height: Any, **options: Any) -> "Shape":
        """This profile extruded along +Z (see `extrude`)."""
        return extrude(self, height, **options)

    def revolve(self, **options: Any) -> "Shape":
        """This profile revolved about Z (see `revolve`)."""
        return revolve(self, **options)


def _node(op: str, members: dict[str, Any], type_: str) -> Shape:
    return Shape(current_graph().add(op, members, type_))


def _optional(members: dict[str, Any], key: str, value: Any, convert: Any) -> None:
    if value is not None:
        members[key] = convert(value)


def _flag(what: str) -> Any:
    return lambda value: arg(value, BOOLEAN, what)


def _num(what: str) -> Any:
    return lambda value: num_arg(value, what)


def _shape(value: Any, kinds: Sequence[str], what: str) -> Any:
    if not isinstance(value, Shape) or value.kind not in kinds:
        got = value.kind if isinstance(value, Shape) else type(value).__name__
        fail(f"{what} must be a {' or '.join(kinds)}, got {got}")
    return value.node


def _shapes(values: Sequence[Any], kinds: Sequence[str], what: str, low: int, high: int) -> list:
    if len(values) == 1 and isinstance(values[0], (list, tuple)):
        values = values[0]
    if not low <= len(values) <= high:
        fail(f"{what} takes {low}–{high} shapes, got {len(values)}")
    return [_shape(v, kinds, f"{what} {i}") for i, v in enumerate(values)]


def _positive_literal(value: Any, what: str) -> None:
    if not isinstance(value, Value) and not value > 0:
        fail(f"{what} must be > 0, got {value}")


# --- 2D profiles ------------------------------------------------------------------------------


def rectangle(size: Sequence[Any], center: Any = None) -> Shape:
    """A rectangle [x, y]; corner at the origin unless `center`."""
    members: dict[str, Any] = {"size": vector(size, 2, "rectangle size")}
    _optional(members, "center", center, _flag("rectangle center"))
    return _node("rectangle", members, PROFILE)


def rounded_rectangle(
    size: Sequence[Any], radius: Any, segments: Any = None, center: Any = None
) -> Shape:
    """A rectangle with rounded corners (`segments` per full circle)."""
    members: dict[str, Any] = {
        "size": vector(size, 2, "roundedRectangle size"),
        "radius": num_arg(radius, "roundedRectangle radius"),
    }
    _optional(members, "segments", segments, _num("roundedRectangle segments"))
    _optional(members, "center", center, _flag("roundedRectangle center"))
    return _node("roundedRectangle", members, PROFILE)


def circle(radius: Any, segments: Any = None) -> Shape:
    """A circle about the origin."""
    _positive_literal(radius, "circle radius")
    members: dict[str, Any] = {"radius": num_arg(radius, "circle radius")}
    _optional(members, "segments", segments, _num("circle segments"))
    return _node("circle", members, PROFILE)


def polygon(points: Sequence[Sequence[Any]]) -> Shape:
    """A simple polygon, points counter-clockwise."""
    if not isinstance(points, (list, tuple)) or not 3 <= len(points) <= 1000:
        fail("polygon takes 3–1000 points")
    members = {"points": [vector(p, 2, f"polygon point {i}") for i, p in enumerate(points)]}
    return _node("polygon", members, PROFILE)


# --- 3D solids --------------------------------------------------------------------------------


def box(size: Sequence[Any], center: Any = None) -> Shape:
    """A box [x, y, z]; corner at the origin unless `center`."""
    members: dict[str, Any] = {"size": vector(size, 3, "box size")}
    _optional(members, "center", center, _flag("box center"))
    return _node("box", members, SOLID)


def cylinder(
    height: Any, radius: Any, radius_top: Any = None, segments: Any = None, center: Any = None
) -> Shape:
    """A cylinder (a cone when `radius_top` is 0); base on z = 0 unless `center`."""
    _positive_literal(height, "cylinder height")
    members: dict[str, Any] = {
        "height": num_arg(height, "cylinder height"),
        "radius": num_arg(radius, "cylinder radius"),
    }
    _optional(members, "radiusTop", radius_top, _num("cylinder radius_top"))
    _optional(members, "segments", segments, _num("cylinder segments"))
    _optional(members, "center", center, _flag("cylinder center"))
    return _node("cylinder", members, SOLID)


def sphere(radius: Any, segments: Any = None) -> Shape:
    """A sphere about the origin."""
    members: dict[str, Any] = {"radius": num_arg(radius, "sphere radius")}
    _optional(members, "segments", segments, _num("sphere segments"))
    return _node("sphere", members, SOLID)


def extrude(
    profile: Shape,
    height: Any,
    twist: Any = None,
    scale_top: Sequence[Any] | None = None,
    divisions: Any = None,
    center: Any = None,
) -> Shape:
    """A profile extruded along +Z."""
    members: dict[str, Any] = {
        "profile": _shape(profile, (PROFILE,), "extrude profile"),
        "height": num_arg(height, "extrude height"),
    }
    _optional(members, "twist", twist, _num("extrude twist"))
    _optional(members, "scaleTop", scale_top, lambda v: vector(v, 2, "extrude scale_top"))
    _optional(members, "divisions", divisions, _num("extrude divisions"))
    _optional(members, "center", center, _flag("extrude center"))
    return _node("extrude", members, SOLID)


def revolve(profile: Shape, segments: Any = None, degrees: Any = None) -> Shape:
    """A profile (x = radius, y = height) revolved about Z."""
    members: dict[str, Any] = {"profile": _shape(profile, (PROFILE,), "revolve profile")}
    _optional(members, "segments", segments, _num("revolve segments"))
    _optional(members, "degrees", degrees, _num("revolve degrees"))
    return _node("revolve", members, SOLID)


def union(*children: Any) -> Shape:
    """The union of solids."""
    return _node("union", {"children": _shapes(children, SOLIDS, "union", 1, 256)}, SOLID)


def intersection(*children: Any) -> Shape:
    """The intersection of solids."""
    members = {"children": _shapes(children, SOLIDS, "intersection", 1, 256)}
    return _node("intersection", members, SOLID)


def difference(base: Shape, *subtract: Any) -> Shape:
    """`base` minus every solid in `subtract`."""
    members = {
        "base": _shape(base, SOLIDS, "difference base"),
        "subtract": _shapes(subtract, SOLIDS, "difference subtract", 1, 256),
    }
    return _node("difference", members, SOLID)


def hull(*children: Any) -> Shape:
    """The convex hull of solids."""
    return _node("hull", {"children": _shapes(children, SOLIDS, "hull", 1, 256)}, SOLID)


def _transform(op: str, key: str, child: Shape, vec: Sequence[Any]) -> Shape:
    node = _shape(child, SOLIDS, f"{op} child")
    return _node(op, {"child": node, key: vector(vec, 3, f"{op} {key}")}, child.kind)


def translate(child: Shape, offset: Sequence[Any]) -> Shape:
    """`child` moved by `offset` [x, y, z]."""
    return _transform("translate", "offset", child, offset)


def rotate(child: Shape, degrees: Sequence[Any]) -> Shape:
    """`child` rotated by `degrees` [x, y, z] about X, then Y, then Z."""
    return _transform("rotate", "degrees", child, degrees)


def scale(child: Shape, factor: Sequence[Any]) -> Shape:
    """`child` scaled by `factor` [x, y, z]."""
    return _transform("scale", "factor", child, factor)


def mirror(child: Shape, normal: Sequence[Any]) -> Shape:
    """`child` mirrored across the plane through the origin with this normal."""
    return _transform("mirror", "normal", child, normal)


# --- Repeats ----------------------------------------------------------------------------------


def linear_repeat(child: Shape, count: Any, step: Sequence[Any]) -> Shape:
    """`count` instances of `child`, instance i at i·step."""
    members = {
        "child": _shape(child, SOLIDS, "linearRepeat child"),
        "count": num_arg(count, "linearRepeat count"),
        "step": vector(step, 3, "linearRepeat step"),
    }
    return _node("linearRepeat", members, INSTANCES)


def grid_repeat(child: Shape, count: Sequence[Any], step: Sequence[Any]) -> Shape:
    """nx × ny instances of `child` on an XY grid."""
    members = {
        "child": _shape(child, SOLIDS, "gridRepeat child"),
        "count": vector(count, 2, "gridRepeat count"),
        "step": vector(step, 2, "gridRepeat step"),
    }
    return _node("gridRepeat", members, INSTANCES)


def polar_repeat(child: Shape, count: Any, degrees: Any = None) -> Shape:
    """`count` instances of `child` around Z over `degrees` (default 360)."""
    members: dict[str, Any] = {
        "child": _shape(child, SOLIDS, "polarRepeat child"),
        "count": num_arg(count, "polarRepeat count"),
    }
    _optional(members, "degrees", degrees, _num("polarRepeat degrees"))
    return _node("polarRepeat", members, INSTANCES)


# --- Output -----------------------------------------------------------------------------------


def part(name: Any, child: Shape, color: Any) -> Shape:
    """A named, colored part of the output."""
    members = {
        "child": _shape(child, SOLIDS, "part child"),
        "name": arg(name, STRING, "part name"),
        "color": arg(color, STRING, "part color"),
    }
    return _node("part", members, PART)


def assembly(*parts: Any) -> Shape:
    """The output: a list of parts with unique names."""
    nodes = _shapes(parts, (PART,), "assembly", 1, 64)
    names = [n.members["name"] for n in nodes if isinstance(n.members["name"], str)]
    if len(set(names)) != len(names):
        fail("part names in an assembly must be unique")
    return _node("assembly", {"parts": nodes}, ASSEMBLY)


__all__ = [
    "Shape", "rectangle", "rounded_rectangle", "circle", "polygon", "box", "cylinder", "sphere",
    "extrude", "revolve", "union", "intersection", "difference", "hull", "translate", "rotate",
    "scale", "mirror", "linear_repeat", "grid_repeat", "polar_repeat", "part", "assembly",
]
