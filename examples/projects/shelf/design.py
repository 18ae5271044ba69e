"""Bookshelf: a python-mode project — the number of boards is a parameter, so the design's
topology (how many boards, which compartments get a divider) changes with its values. It cannot
be a frozen template; the in-browser Python runtime runs it for each set of values.

Schema: PYTHONPATH=design python3 -m cadparam emit examples/projects/shelf/design.py \
    --out examples/projects/shelf
One DAG: PYTHONPATH=design python3 -m cadparam run examples/projects/shelf/design.py \
    --values '{"boards": 6}'
"""

from cadparam import Bool, Color, Float, Int, box, part, project, union


@project(
    slug="shelf",
    title="Bookshelf",
    description="A bookshelf whose number of boards is a parameter; every other compartment "
    "gets a divider.",
    mode="python",
    parameters=[
        Int("boards", 4, min=2, max=8, label="Boards",
            description="Horizontal boards, bottom and top included.", group="Size"),
        Float("width", 800, min=400, max=1200, step=10, label="Width",
              description="Outside width.", unit="mm", group="Size"),
        Float("depth", 250, min=150, max=400, step=10, label="Depth",
              description="Outside depth.", unit="mm", group="Size"),
        Float("spacing", 300, min=200, max=400, step=10, label="Compartment height",
              description="Clear height between two boards.", unit="mm", group="Size"),
        Float("thickness", 18, min=12, max=30, step=1, label="Board thickness",
              description="Thickness of boards, sides and dividers.", unit="mm", group="Size"),
        Bool("dividers", True, label="Dividers",
             description="A vertical divider in every other compartment.", group="Style"),
        Bool("back", False, label="Back panel",
             description="A thin panel closing the back.", group="Style"),
        Color("color", "#c8a27a", swatches=["#c8a27a", "#f2f2f2", "#222222", "#7d5a3c"],
              label="Color", description="Wood or paint color.", group="Style"),
    ],
)
def shelf(p):
    t = p.thickness
    inner_w = p.width - 2 * t
    height = p.boards * t + (p.boards - 1) * p.spacing
    pieces = [box([t, p.depth, height]), box([t, p.depth, height]).translate(p.width - t, 0, 0)]
    for i in range(p.boards):
        z = i * (t + p.spacing)
        pieces.append(box([inner_w, p.depth, t]).translate(t, 0, z))
        # Compartments alternate: odd ones are split in two.
        if p.dividers and i < p.boards - 1 and i % 2 == 1:
            pieces.append(box([t, p.depth, p.spacing]).translate((p.width - t) / 2, 0, z + t))
    if p.back:
        pieces.append(box([inner_w, 4, height]).translate(t, p.depth - 4, 0))
    return part("Shelf", union(pieces), p.color)
