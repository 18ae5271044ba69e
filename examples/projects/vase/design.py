"""Vase: a smoothstep outline through base, belly, neck and lip, revolved and hollowed.

Emit with: PYTHONPATH=design python3 -m cadparam emit examples/projects/vase/design.py \
    --out examples/projects/vase
"""

from cadparam import Color, Enum, Float, Int, difference, part, polygon, project, select

# (from, to, start of the section, end of the section, samples in the section)
SECTIONS = [
    ("baseRadius", "bellyRadius", 0.0, 0.4, 10),
    ("bellyRadius", "neckRadius", 0.4, 0.85, 10),
    ("neckRadius", "lipRadius", 0.85, 1.0, 4),
]


def smoothstep(u):
    return u * u * (3 - 2 * u)


@project(
    slug="vase",
    title="Vase",
    description="A turned vase: a smooth profile through base, belly, neck and lip, revolved and "
    "hollowed.",
    parameters=[
        Float("height", 180, min=80, max=300, step=1, label="Height",
              description="Overall height.", unit="mm", group="Shape"),
        Float("baseRadius", 35, min=20, max=80, step=0.5, label="Base radius",
              description="Radius at the foot.", unit="mm", group="Shape"),
        Float("bellyRadius", 55, min=20, max=120, step=0.5, label="Belly radius",
              description="Radius at the widest point, 40% up the curve.", unit="mm",
              group="Shape"),
        Float("neckRadius", 22, min=10, max=80, step=0.5, label="Neck radius",
              description="Radius at the neck, 85% up the curve.", unit="mm", group="Shape"),
        Float("lipRadius", 30, min=10, max=90, step=0.5, label="Lip radius",
              description="Radius at the rim.", unit="mm", group="Shape"),
        Float("wall", 2, min=1.2, max=6, step=0.1, label="Wall thickness",
              description="Horizontal wall thickness; the floor is 1.5 times as thick.",
              unit="mm", group="Shape"),
        Enum("style", "round", choices=["round", "faceted", "hexagonal"],
             choice_labels=["Round", "Faceted (12 sides)", "Hexagonal"], label="Style",
             description="Smooth, or cut into flat facets.", group="Style"),
        Int("smoothness", 64, min=24, max=96, step=8, label="Smoothness",
            description="Segments around a round vase (ignored by the faceted styles).",
            group="Style"),
        Color("color", "#7fb7be", swatches=["#7fb7be", "#d3f3ee", "#dacc3e", "#bc2c1a", "#7d1538"],
              label="Color", description="Glaze color.", group="Style"),
    ],
)
def vase(p):
    segments = select(p.style == "round", p.smoothness, select(p.style == "faceted", 12, 6))
    floor = (p.wall * 1.5).named("floor")
    curve = p.height - floor
    outer = [[0, 0], [p.baseRadius, 0], [p.baseRadius, floor]]
    inner = [[0, floor], [p.baseRadius - p.wall, floor]]
    for start, end, s0, s1, steps in SECTIONS:
        for i in range(1, steps + 1):
            s = round(s0 + (s1 - s0) * i / steps, 6)
            if s == 1.0:
                z, r = p.height, p.lipRadius
            else:
                w = round(smoothstep(i / steps), 6)
                r = p[end] if w == 1 else p[start] * round(1 - w, 6) + p[end] * w
                z = floor + curve * s
            outer.append([r, z])
            inner.append([r - p.wall, z])
    rim = p.height + 1
    inner += [[p.lipRadius - p.wall, rim], [0, rim]]
    outer.append([0, p.height])
    shell = difference(
        polygon(outer).revolve(segments=segments), polygon(inner).revolve(segments=segments)
    )
    return part("Vase", shell.named("shell"), p.color)
