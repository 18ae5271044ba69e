"""Storage box with a drop-in lid: two parts, each with its own color.

Emit with: PYTHONPATH=design python3 -m cadparam emit examples/projects/storage-box/design.py \
    --out examples/projects/storage-box
"""

from cadparam import (
    Bool, Color, Float, cylinder, difference, max, min, part, project, rounded_rectangle,
    select, union,
)

SEGMENTS = 48


@project(
    slug="storage-box",
    title="Storage box with lid",
    description="A rounded storage box with a separate drop-in lid.",
    parameters=[
        Float("width", 120, min=40, max=300, step=1, label="Width",
              description="Outside width of the box.", unit="mm", group="Size"),
        Float("depth", 80, min=40, max=300, step=1, label="Depth",
              description="Outside depth of the box.", unit="mm", group="Size"),
        Float("height", 60, min=20, max=200, step=1, label="Height",
              description="Outside height of the box without its lid.", unit="mm", group="Size"),
        Float("wall", 2, min=1.2, max=10, step=0.1, label="Wall thickness",
              description="Thickness of walls, floor and the lid's lip; limited to a sixth of the "
              "smaller side and a quarter of the height.", unit="mm", group="Size"),
        Float("cornerRadius", 6, min=0, max=20, step=0.5, label="Corner radius",
              description="Outside corner radius seen from above (0 for square corners).",
              unit="mm", group="Style"),
        Float("lidHeight", 12, min=5, max=40, step=0.5, label="Lid height",
              description="Total height of the lid: its top plate plus the lip that drops into "
              "the box (at most the box's inside depth).", unit="mm", group="Lid"),
        Float("lidClearance", 0.3, min=0, max=1, step=0.05, label="Lid clearance",
              description="Gap between the lid's lip and the box walls, for a snug or loose fit.",
              unit="mm", group="Lid"),
        Bool("fingerNotch", True, label="Finger notch",
             description="A half-round cut in the front wall to lift the lid.", group="Lid"),
        Color("boxColor", "#2e86ab", swatches=["#2e86ab", "#f6f5ae", "#222222", "#f2f2f2"],
              label="Box color", description="Color of the box.", group="Style"),
        Color("lidColor", "#f18f01", swatches=["#f18f01", "#2e86ab", "#222222", "#f2f2f2"],
              label="Lid color", description="Color of the lid.", group="Style"),
    ],
)
def storage_box(p):
    min_side = min(p.width, p.depth)
    wall = min(p.wall, min_side / 6, p.height / 4).named("wallUsed")
    radius = min(p.cornerRadius, min_side / 2 - 1).named("radiusUsed")
    inner_w = p.width - wall * 2
    inner_d = p.depth - wall * 2
    inner_r = max(radius - wall, 0).named("innerRadius")
    inside_depth = (p.height - wall).named("insideDepth")

    def outline(w, d, r):
        return rounded_rectangle([w, d], r, segments=SEGMENTS, center=True)

    box_outline = outline(p.width, p.depth, radius)
    block = box_outline.extrude(p.height)
    cavity = outline(inner_w, inner_d, inner_r).extrude(inside_depth + 1).translate(0, 0, wall)
    notch_r = min(p.width / 5, inside_depth / 3, 12)
    notch = (
        cylinder(wall + radius + 2, notch_r, segments=SEGMENTS)
        .rotate(-90, 0, 0)
        .translate(0, p.depth / -2 - 1, p.height)
    )
    box_body = select(p.fingerNotch, difference(block, cavity, notch), difference(block, cavity))

    plate = min(max(wall, 1.6), p.lidHeight / 2).named("lidPlate")
    lip_depth = min(p.lidHeight - plate, inside_depth - 1).named("lipDepth")
    clearance2 = p.lidClearance * 2
    lip_w = inner_w - clearance2
    lip_d = inner_d - clearance2
    lip_r = max(inner_r - p.lidClearance, 0)
    lip_height = lip_depth + plate / 2
    lip_outer = outline(lip_w, lip_d, lip_r).extrude(lip_height)
    lip_inner = (
        outline(lip_w - wall * 2, lip_d - wall * 2, max(lip_r - wall, 0))
        .extrude(lip_height + 2)
        .translate(0, 0, -1)
    )
    lip = (lip_outer - lip_inner).translate(0, 0, p.height - lip_depth)
    lid_body = union(box_outline.extrude(plate).translate(0, 0, p.height), lip)
    return [
        part("Box", box_body.named("boxBody"), p.boxColor),
        part("Lid", lid_body.named("lidBody"), p.lidColor),
    ]
