"""Wall shelf bracket: an L of two legs, optional rounded corners and gussets, screw holes.

Emit with: PYTHONPATH=design python3 -m cadparam emit examples/projects/wall-bracket/design.py \
    --out examples/projects/wall-bracket
"""

from cadparam import (
    Bool, Color, Float, Int, box, cylinder, difference, hull, linear_repeat, min, part, polygon, project,
    select, union,
)


@project(
    slug="wall-bracket",
    title="Wall shelf bracket",
    description="An L-shaped shelf bracket with screw holes in both legs.",
    parameters=[
        Float("width", 40, min=20, max=120, step=1, label="Width",
              description="Width of the bracket along the wall.", unit="mm", group="Size"),
        Float("depth", 150, min=60, max=300, step=1, label="Shelf depth",
              description="How far the shelf arm reaches out from the wall.", unit="mm",
              group="Size"),
        Float("height", 150, min=60, max=300, step=1, label="Height",
              description="Length of the leg screwed to the wall.", unit="mm", group="Size"),
        Float("thickness", 5, min=3, max=12, step=0.5, label="Thickness",
              description="Material thickness of both legs.", unit="mm", group="Size"),
        Int("holeCount", 2, min=1, max=6, label="Holes per leg",
            description="Screw holes in each leg, evenly spaced.", group="Screw holes"),
        Float("holeDiameter", 5, min=3, max=10, step=0.5, label="Hole diameter",
              description="Screw hole diameter; narrow brackets and tight spacing reduce it so "
              "holes keep their distance from edges and from each other.", unit="mm",
              group="Screw holes"),
        Bool("countersink", True, label="Countersunk holes",
             description="Cone-shaped holes so flat-head screws sit flush.", group="Screw holes"),
        Bool("rounded", True, label="Rounded corners",
             description="Round the free corners of both legs.", group="Style"),
        Bool("gussets", True, label="Gussets",
             description="Two triangular ribs under the shelf arm for stiffness.", group="Style"),
        Color("color", "#4a6fa5", swatches=["#4a6fa5", "#222222", "#f2f2f2", "#c0392b", "#e67e22"],
              label="Color", description="Filament color.", group="Style"),
    ],
)
def wall_bracket(p):
    w, t = p.width, p.thickness
    corner_r = min(w / 4, 12).named("cornerRadius")
    wall_span = (p.height - t).named("wallSpan")  # also the height of the shelf leg's bottom
    shelf_span = (p.depth - t).named("shelfSpan")
    gaps = p.holeCount + 1
    wall_pitch = (wall_span / gaps).named("wallPitch")
    shelf_pitch = (shelf_span / gaps).named("shelfPitch")
    hole_r = min(p.holeDiameter / 2, w / 10, wall_pitch / 4, shelf_pitch / 4).named("holeRadius")
    sink = min(hole_r, t / 2)

    # The legs, square or with their free corners rounded (a hull of a core and two pins).
    corner_pin = cylinder(t, corner_r, segments=48)
    far_x = w - corner_r
    wall_pin = corner_pin.rotate(-90, 0, 0)
    wall_rounded = hull(
        box([w, t, p.height - corner_r]).translate(0, 0, corner_r),
        wall_pin.translate(corner_r, 0, corner_r),
        wall_pin.translate(far_x, 0, corner_r),
    )
    wall_leg = select(p.rounded, wall_rounded, box([w, t, p.height])).named("wallLeg")
    shelf_straight = p.depth - corner_r
    shelf_rounded = hull(
        box([w, shelf_straight, t]).translate(0, 0, wall_span),
        corner_pin.translate(corner_r, shelf_straight, wall_span),
        corner_pin.translate(far_x, shelf_straight, wall_span),
    )
    shelf_leg = select(
        p.rounded, shelf_rounded, box([w, p.depth, t]).translate(0, 0, wall_span)
    ).named("shelfLeg")

    # Gussets: right triangles under the shelf, at both sides.
    rib_t = min(t, w / 5)
    rib_leg = min(wall_span, shelf_span) * 0.6
    rib = polygon([[0, 0], [0, -rib_leg], [rib_leg, 0]]).extrude(rib_t).rotate(90, 0, 90)
    frame = select(
        p.gussets,
        union(wall_leg, shelf_leg, rib.translate(0, t, wall_span),
              rib.translate(w - rib_t, t, wall_span)),
        union(wall_leg, shelf_leg),
    ).named("frame")

    # Screw holes: a shaft, with a countersink cone at the surface, repeated along each leg.
    shaft = cylinder(t + 2, hole_r, segments=32).translate(0, 0, -1 - t)
    cone = cylinder(sink + 1, hole_r, radius_top=hole_r + sink + 1, segments=32).translate(
        0, 0, -sink
    )
    cutter = select(p.countersink, union(shaft, cone), shaft).named("cutter")
    wall_holes = linear_repeat(cutter.rotate(-90, 0, 0), p.holeCount, [0, 0, wall_pitch])
    shelf_holes = linear_repeat(cutter, p.holeCount, [0, shelf_pitch, 0])
    body = difference(
        frame,
        wall_holes.translate(w / 2, t, wall_pitch),
        shelf_holes.translate(w / 2, t + shelf_pitch, p.height),
    )
    return part("Bracket", body.named("body"), p.color)
