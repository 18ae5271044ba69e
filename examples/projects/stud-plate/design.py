"""Stud baseplate: a plate plus a grid of studs drawn as instances (one stud mesh, N transforms).

Emit with: PYTHONPATH=design python3 -m cadparam emit examples/projects/stud-plate/design.py \
    --out examples/projects/stud-plate
"""

from cadparam import Bool, Color, Float, Int, box, cylinder, grid_repeat, min, part, project, select

BRICK_COLORS = ["#237841", "#a0a5a9", "#f2cd37", "#c91a09", "#f2f3f2"]


@project(
    slug="stud-plate",
    title="Stud baseplate",
    description="A building-brick style baseplate: a plate with a grid of studs drawn as "
    "instances.",
    parameters=[
        Int("columns", 8, min=1, max=32, label="Columns", description="Studs along the width.",
            group="Grid"),
        Int("rows", 4, min=1, max=32, label="Rows", description="Studs along the depth.",
            group="Grid"),
        Float("pitch", 8, min=6, max=16, step=0.1, label="Stud pitch",
              description="Distance between neighbouring studs; one grid cell is pitch × pitch.",
              unit="mm", group="Grid"),
        Float("plateThickness", 3.2, min=1, max=10, step=0.1, label="Plate thickness",
              description="Thickness of the base plate.", unit="mm", group="Grid"),
        Float("studDiameter", 4.8, min=2, max=12, step=0.1, label="Stud diameter",
              description="Stud diameter; at most 80% of the pitch so studs stay apart.",
              unit="mm", group="Studs"),
        Float("studHeight", 1.8, min=0.5, max=5, step=0.1, label="Stud height",
              description="How far the studs stand above the plate.", unit="mm", group="Studs"),
        Bool("hollowStuds", False, label="Hollow studs",
             description="Tubes instead of solid studs (saves material).", group="Studs"),
        Color("plateColor", "#237841", swatches=BRICK_COLORS, label="Plate color",
              description="Color of the plate.", group="Style"),
        Color("studColor", "#237841", swatches=BRICK_COLORS, label="Stud color",
              description="Color of the studs.", group="Style"),
    ],
)
def stud_plate(p):
    plate = box([p.columns * p.pitch, p.rows * p.pitch, p.plateThickness])
    stud_r = min(p.studDiameter / 2, p.pitch * 0.4).named("studRadius")
    solid = cylinder(p.studHeight, stud_r, segments=32)
    bore = cylinder(p.studHeight + 2, stud_r * 0.6, segments=32).translate(0, 0, -1)
    stud = select(p.hollowStuds, solid - bore, solid).named("stud")
    half = p.pitch / 2
    studs = grid_repeat(stud, [p.columns, p.rows], [p.pitch, p.pitch]).translate(
        half, half, p.plateThickness
    )
    return [part("Plate", plate, p.plateColor), part("Studs", studs, p.studColor)]
