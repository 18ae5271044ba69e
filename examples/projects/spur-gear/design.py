"""Spur gear: straight-flank teeth on a root disk, an optional hub, a round or D-shaped bore.

Emit with: PYTHONPATH=design python3 -m cadparam emit examples/projects/spur-gear/design.py \
    --out examples/projects/spur-gear
"""

from cadparam import (
    Bool, Color, Float, Int, box, cylinder, intersection, min, max, part, polar_repeat,
    polygon, project, select, union,
)


@project(
    slug="spur-gear",
    title="Spur gear",
    description="A spur gear with a hub and a round or D-shaped bore.",
    parameters=[
        Int("teeth", 24, min=10, max=80, label="Teeth", description="Number of teeth.",
            group="Gear"),
        Float("module", 2, min=1, max=4, step=0.25, label="Module",
              description="Tooth size (pitch diameter ÷ teeth). Gears mesh when they share a module.",
              unit="mm", group="Gear"),
        Float("thickness", 8, min=2, max=30, step=0.5, label="Face width",
              description="Thickness of the toothed rim.", unit="mm", group="Gear"),
        Float("hubDiameter", 20, min=8, max=60, step=0.5, label="Hub diameter",
              description="Diameter of the hub; at most the gear's root diameter.", unit="mm",
              group="Hub and bore"),
        Float("hubHeight", 6, min=0, max=30, step=0.5, label="Hub height",
              description="How far the hub stands above the gear face (0 for a flat gear).",
              unit="mm", group="Hub and bore"),
        Float("boreDiameter", 6, min=2, max=30, step=0.5, label="Bore diameter",
              description="Shaft hole diameter; at most 70% of the hub so a rim remains.",
              unit="mm", group="Hub and bore"),
        Bool("dFlat", False, label="D-shaft bore",
             description="Give the bore a flat side for a D-shaft.", group="Hub and bore"),
        Color("color", "#c9a227", swatches=["#c9a227", "#222222", "#f2f2f2", "#3a7d44"],
              label="Color", description="Filament color.", group="Style"),
    ],
)
def spur_gear(p):
    m, z, t = p.module, p.teeth, p.thickness
    pitch_r = (m * z * 0.5).named("pitchRadius")
    tip_r = (pitch_r + m).named("tipRadius")
    root_r = (pitch_r - m * 1.25).named("rootRadius")
    foot_r = root_r - m * 0.5
    # Neighbouring teeth never touch: the root half-width is at most 0.45 of the root pitch.
    root_half = min(m * 1.24, root_r * 2.8274 / z).named("rootHalfWidth")
    tip_half = root_half * 0.34
    tooth_profile = polygon([
        [foot_r, -root_half], [root_r, -root_half], [tip_r, -tip_half],
        [tip_r, tip_half], [root_r, root_half], [foot_r, root_half],
    ])
    teeth = polar_repeat(tooth_profile.extrude(t), z).named("teethRing")
    root_disk = cylinder(t, root_r, segments=96)
    hub_r = min(p.hubDiameter / 2, root_r).named("hubRadius")
    hub = cylinder(t + max(p.hubHeight, 0.5), hub_r, segments=64)
    body = select(p.hubHeight > 0, union(root_disk, teeth, hub), union(root_disk, teeth))

    bore_r = min(p.boreDiameter / 2, hub_r * 0.7).named("boreRadius")
    total_h = t + p.hubHeight
    bore = cylinder(total_h + 2, bore_r, segments=48).translate(0, 0, -1)
    # The D flat keeps the bore up to 0.7 × radius on the +X side.
    keep_from = -bore_r - 1
    keep = box([bore_r * 1.7 + 1, bore_r * 2 + 2, total_h + 4]).translate(keep_from, keep_from, -2)
    bore_cut = select(p.dFlat, intersection(bore, keep), bore)
    return part("Gear", (body - bore_cut).named("body"), p.color)
