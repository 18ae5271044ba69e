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
from .ops import (
    DEGREES, NON_NEGATIVE, POSITIVE, REPEAT_COUNT, SEGMENTS, declare, flag, member, num, ref, refs,
    vec,
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

    def offset(self, delta: Any, **options: Any) -> "Shape":
        """This profile grown (delta > 0) or shrunk (delta < 0) (see `offset`)."""
        return offset(self, delta, **options)

    def fillet(self, radius: Any, segments: Any = None) -> "Shape":
        """This profile with its convex corners rounded (see `fillet2d`)."""
        return fillet2d(self, radius, segments)

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


# --- 2D profiles ------------------------------------------------------------------------------


declare("rectangle", PROFILE, size=vec(2, POSITIVE), center=flag())


def rectangle(size: Sequence[Any], center: Any = None) -> Shape:
    """A rectangle [x, y]; corner at the origin unless `center`."""
    members: dict[str, Any] = {"size": vector(size, 2, "rectangle size")}
    _optional(members, "center", center, _flag("rectangle center"))
    return _node("rectangle", members, PROFILE)


declare(
    "roundedRectangle",
    PROFILE,
    size=vec(2, POSITIVE),
    radius=num(NON_NEGATIVE),
    segments=num(SEGMENTS, required=False),
    center=flag(),
)


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


declare("circle", PROFILE, radius=num(POSITIVE), segments=num(SEGMENTS, required=False))


def circle(radius: Any, segments: Any = None) -> Shape:
    """A circle about the origin."""
    members: dict[str, Any] = {"radius": num_arg(radius, "circle radius")}
    _optional(members, "segments", segments, _num("circle segments"))
    return _node("circle", members, PROFILE)


declare("polygon", PROFILE, points=member("points"))


def polygon(points: Sequence[Sequence[Any]]) -> Shape:
    """A simple polygon, points counter-clockwise."""
    if not isinstance(points, (list, tuple)) or not 3 <= len(points) <= 1000:
        fail("polygon takes 3–1000 points")
    members = {"points": [vector(p, 2, f"polygon point {i}") for i, p in enumerate(points)]}
    return _node("polygon", members, PROFILE)

declare(
    "offset",
    PROFILE,
    profile=ref(PROFILE),
    delta=num(),
    join=member("choice", required=False, choices=["round", "miter", "square"]),
    miterLimit=num({"ge": 2}, required=False),
    segments=num(SEGMENTS, required=False),
)


def offset(
    profile: Shape, delta: Any, join: str | None = None, miter_limit: Any = None,
    segments: Any = None,
) -> Shape:
    """A profile grown (delta > 0) or shrunk (delta < 0); corners joined round (default), miter
    or square."""
    members: dict[str, Any] = {
        "profile": _shape(profile, (PROFILE,), "offset profile"),
        "delta": num_arg(delta, "offset delta"),
    }
    _optional(members, "join", join, lambda value: value)
    _optional(members, "miterLimit", miter_limit, _num("offset miter_limit"))
    _optional(members, "segments", segments, _num("offset segments"))
    return _node("offset", members, PROFILE)

declare(
    "fillet2d",
    PROFILE,
    profile=ref(PROFILE),
    radius=num(POSITIVE),
    segments=num(SEGMENTS, required=False),
)


def fillet2d(profile: Shape, radius: Any, segments: Any = None) -> Shape:
    """A profile with every convex corner rounded to `radius` (parts thinner than 2·radius
    vanish)."""
    members: dict[str, Any] = {
        "profile": _shape(profile, (PROFILE,), "fillet2d profile"),
        "radius": num_arg(radius, "fillet2d radius"),
    }
    _optional(members, "segments", segments, _num("fillet2d segments"))
    return _node("fillet2d", members, PROFILE)


declare(
    "text",
    PROFILE,
    text=member("str"),
    size=num(POSITIVE),
    halign=member("choice", required=False, choices=["left", "center", "right"]),
    valign=member("choice", required=False, choices=["baseline", "bottom", "center", "top"]),
    spacing=num(required=False),
    tolerance=num({"ge": 0.001, "le": 1}, required=False),
    kerning=flag(),
)

# Most characters of one text (the kernel's maxTextCharacters, docs/dag.md "Limits").
MAX_TEXT_CHARACTERS = 64


def text(
    string: Any, size: Any, halign: str | None = None, valign: str | None = None,
    spacing: Any = None, tolerance: Any = None, kerning: Any = None,
) -> Shape:
    """The outlines of `string` in the kernel's font (Roboto Bold) as a profile; `size` is the
    cap height in mm. `halign` (left, center, right) and `valign` (baseline, bottom, center, top)
    put the origin; `spacing` adds mm between letters; `tolerance` (mm, default 0.01) bounds how
    far flattened curves stray. Extrude it, then subtract (engrave) or add (emboss)."""
    members: dict[str, Any] = {"text": arg(string, STRING, "text string")}
    if isinstance(string, str) and len(string) > MAX_TEXT_CHARACTERS:
        fail(f"text string: at most {MAX_TEXT_CHARACTERS} characters, got {len(string)}")
    members["size"] = num_arg(size, "text size")
    _optional(members, "halign", halign, lambda value: value)
    _optional(members, "valign", valign, lambda value: value)
    _optional(members, "spacing", spacing, _num("text spacing"))
    _optional(members, "tolerance", tolerance, _num("text tolerance"))
    _optional(members, "kerning", kerning, _flag("text kerning"))
    return _node("text", members, PROFILE)


# --- 3D solids --------------------------------------------------------------------------------


declare("box", SOLID, size=vec(3, POSITIVE), center=flag())


def box(size: Sequence[Any], center: Any = None) -> Shape:
    """A box [x, y, z]; corner at the origin unless `center`."""
    members: dict[str, Any] = {"size": vector(size, 3, "box size")}
    _optional(members, "center", center, _flag("box center"))
    return _node("box", members, SOLID)


declare(
    "cylinder",
    SOLID,
    height=num(POSITIVE),
    radius=num(POSITIVE),
    radiusTop=num(NON_NEGATIVE, required=False),
    segments=num(SEGMENTS, required=False),
    center=flag(),
)


def cylinder(
    height: Any, radius: Any, radius_top: Any = None, segments: Any = None, center: Any = None
) -> Shape:
    """A cylinder (a cone when `radius_top` is 0); base on z = 0 unless `center`."""
    members: dict[str, Any] = {
        "height": num_arg(height, "cylinder height"),
        "radius": num_arg(radius, "cylinder radius"),
    }
    _optional(members, "radiusTop", radius_top, _num("cylinder radius_top"))
    _optional(members, "segments", segments, _num("cylinder segments"))
    _optional(members, "center", center, _flag("cylinder center"))
    return _node("cylinder", members, SOLID)


declare("sphere", SOLID, radius=num(POSITIVE), segments=num(SEGMENTS, required=False))


def sphere(radius: Any, segments: Any = None) -> Shape:
    """A sphere about the origin."""
    members: dict[str, Any] = {"radius": num_arg(radius, "sphere radius")}
    _optional(members, "segments", segments, _num("sphere segments"))
    return _node("sphere", members, SOLID)


declare(
    "extrude",
    SOLID,
    profile=ref(PROFILE),
    height=num(POSITIVE),
    twist=num(required=False),
    scaleTop=vec(2, NON_NEGATIVE, required=False),
    divisions=num({"int": True, "ge": 0, "le": 256}, required=False),
    center=flag(),
)


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


declare(
    "revolve",
    SOLID,
    profile=ref(PROFILE),
    segments=num(SEGMENTS, required=False),
    degrees=num(DEGREES, required=False),
)


def revolve(profile: Shape, segments: Any = None, degrees: Any = None) -> Shape:
    """A profile (x = radius, y = height) revolved about Z."""
    members: dict[str, Any] = {"profile": _shape(profile, (PROFILE,), "revolve profile")}
    _optional(members, "segments", segments, _num("revolve segments"))
    _optional(members, "degrees", degrees, _num("revolve degrees"))
    return _node("revolve", members, SOLID)


declare("union", SOLID, children=refs(256, *SOLIDS))


def union(*children: Any) -> Shape:
    """The union of solids."""
    return _node("union", {"children": _shapes(children, SOLIDS, "union", 1, 256)}, SOLID)


declare("intersection", SOLID, children=refs(256, *SOLIDS))


def intersection(*children: Any) -> Shape:
    """The intersection of solids."""
    members = {"children": _shapes(children, SOLIDS, "intersection", 1, 256)}
    return _node("intersection", members, SOLID)


declare("difference", SOLID, base=ref(*SOLIDS), subtract=refs(256, *SOLIDS))


def difference(base: Shape, *subtract: Any) -> Shape:
    """`base` minus every solid in `subtract`."""
    members = {
        "base": _shape(base, SOLIDS, "difference base"),
        "subtract": _shapes(subtract, SOLIDS, "difference subtract", 1, 256),
    }
    return _node("difference", members, SOLID)


declare("hull", SOLID, children=refs(256, *SOLIDS))


def hull(*children: Any) -> Shape:
    """The convex hull of solids."""
    return _node("hull", {"children": _shapes(children, SOLIDS, "hull", 1, 256)}, SOLID)


def _transform(op: str, key: str, child: Shape, vec: Sequence[Any]) -> Shape:
    node = _shape(child, SOLIDS, f"{op} child")
    return _node(op, {"child": node, key: vector(vec, 3, f"{op} {key}")}, child.kind)


declare("translate", "child", child=ref(*SOLIDS), offset=vec(3))


def translate(child: Shape, offset: Sequence[Any]) -> Shape:
    """`child` moved by `offset` [x, y, z]."""
    return _transform("translate", "offset", child, offset)


declare("rotate", "child", child=ref(*SOLIDS), degrees=vec(3))


def rotate(child: Shape, degrees: Sequence[Any]) -> Shape:
    """`child` rotated by `degrees` [x, y, z] about X, then Y, then Z."""
    return _transform("rotate", "degrees", child, degrees)


declare("scale", "child", child=ref(*SOLIDS), factor=vec(3, {"nonZero": True}))


def scale(child: Shape, factor: Sequence[Any]) -> Shape:
    """`child` scaled by `factor` [x, y, z]."""
    return _transform("scale", "factor", child, factor)


declare("mirror", "child", child=ref(*SOLIDS), normal=vec(3))


def mirror(child: Shape, normal: Sequence[Any]) -> Shape:
    """`child` mirrored across the plane through the origin with this normal."""
    return _transform("mirror", "normal", child, normal)


# --- Repeats ----------------------------------------------------------------------------------


declare("linearRepeat", INSTANCES, child=ref(*SOLIDS), count=num(REPEAT_COUNT), step=vec(3))


def linear_repeat(child: Shape, count: Any, step: Sequence[Any]) -> Shape:
    """`count` instances of `child`, instance i at i·step."""
    members = {
        "child": _shape(child, SOLIDS, "linearRepeat child"),
        "count": num_arg(count, "linearRepeat count"),
        "step": vector(step, 3, "linearRepeat step"),
    }
    return _node("linearRepeat", members, INSTANCES)


declare(
    "gridRepeat",
    INSTANCES,
    child=ref(*SOLIDS),
    count=vec(2, {"int": True, "ge": 1, "le": "maxGridCount"}),
    step=vec(2),
)


def grid_repeat(child: Shape, count: Sequence[Any], step: Sequence[Any]) -> Shape:
    """nx × ny instances of `child` on an XY grid."""
    members = {
        "child": _shape(child, SOLIDS, "gridRepeat child"),
        "count": vector(count, 2, "gridRepeat count"),
        "step": vector(step, 2, "gridRepeat step"),
    }
    return _node("gridRepeat", members, INSTANCES)


declare(
    "polarRepeat",
    INSTANCES,
    child=ref(*SOLIDS),
    count=num(REPEAT_COUNT),
    degrees=num(DEGREES, required=False),
)


def polar_repeat(child: Shape, count: Any, degrees: Any = None) -> Shape:
    """`count` instances of `child` around Z over `degrees` (default 360)."""
    members: dict[str, Any] = {
        "child": _shape(child, SOLIDS, "polarRepeat child"),
        "count": num_arg(count, "polarRepeat count"),
    }
    _optional(members, "degrees", degrees, _num("polarRepeat degrees"))
    return _node("polarRepeat", members, INSTANCES)


# --- Output -----------------------------------------------------------------------------------


declare("part", PART, child=ref(*SOLIDS), name=member("str"), color=member("str", color=True))


def part(name: Any, child: Shape, color: Any) -> Shape:
    """A named, colored part of the output."""
    members = {
        "child": _shape(child, SOLIDS, "part child"),
        "name": arg(name, STRING, "part name"),
        "color": arg(color, STRING, "part color"),
    }
    return _node("part", members, PART)


declare("assembly", ASSEMBLY, parts=refs(64, PART))


def assembly(*parts: Any) -> Shape:
    """The output: a list of parts with unique names."""
    nodes = _shapes(parts, (PART,), "assembly", 1, 64)
    names = [n.members["name"] for n in nodes if isinstance(n.members["name"], str)]
    if len(set(names)) != len(names):
        fail("part names in an assembly must be unique")
    return _node("assembly", {"parts": nodes}, ASSEMBLY)


__all__ = [
    "Shape", "rectangle", "rounded_rectangle", "circle", "polygon", "offset", "fillet2d", "text",
    "box",
    "cylinder", "sphere", "extrude", "revolve", "union", "intersection", "difference", "hull",
    "translate", "rotate", "scale", "mirror", "linear_repeat", "grid_repeat", "polar_repeat",
    "part", "assembly",
]
