"""Name tag: a keychain tag with a name engraved into it or embossed on it, and a key-ring hole.

Emit with: PYTHONPATH=design python3 -m cadparam emit examples/projects/tag-keychain/design.py \
    --out examples/projects/tag-keychain
"""

from cadparam import (
    Color, Enum, Float, String, box, circle, compare, intersection, min, part, project,
    rounded_rectangle, select, text,
)

TAG_COLORS = ["#1d3557", "#e63946", "#2a9d8f", "#f4a261", "#f1faee", "#222222"]
# Letters, digits, space and a little punctuation: every one is drawn by the kernel's font.
NAME_PATTERN = "^[A-Za-z0-9 .,'&!?+\\-]*$"


@project(
    slug="tag-keychain",
    title="Name tag",
    description="A keychain tag with a name engraved into it or embossed on it, a hole for the "
    "key ring, and the lettering in its own color.",
    parameters=[
        String("name", "Ada", max_length=16, min_length=1, pattern=NAME_PATTERN, label="Name",
               description="Letters, digits, spaces and . , ' & ! ? + -; up to 16 characters.",
               group="Text"),
        Enum("style", "embossed", choices=["embossed", "engraved"],
             choice_labels=["Embossed (raised)", "Engraved (cut in)"], label="Style",
             description="Raised letters on the tag, or letters cut into it.", group="Text"),
        Float("textSize", 9, min=4, max=20, step=0.5, label="Letter height",
              description="Height of capital letters; at most 55% of the tag's height.",
              unit="mm", group="Text"),
        Float("depth", 0.8, min=0.4, max=2, step=0.1, label="Relief",
              description="How high embossed letters stand, or how deep engraved ones go (at "
              "most half the thickness).", unit="mm", group="Text"),
        Float("length", 60, min=40, max=120, step=1, label="Length",
              description="Length of the tag; letters past its end are cut off.", unit="mm",
              group="Tag"),
        Float("height", 22, min=15, max=40, step=0.5, label="Height",
              description="Height of the tag.", unit="mm", group="Tag"),
        Float("thickness", 3, min=2, max=6, step=0.1, label="Thickness",
              description="Thickness of the tag.", unit="mm", group="Tag"),
        Float("holeDiameter", 5, min=3, max=8, step=0.5, label="Ring hole",
              description="Diameter of the key-ring hole, 3 mm from the left end.", unit="mm",
              group="Tag"),
        Color("tagColor", "#1d3557", swatches=TAG_COLORS, label="Tag color",
              description="Color of the tag.", group="Style"),
        Color("textColor", "#f1faee", swatches=TAG_COLORS, label="Letter color",
              description="Color of the letters (an inlay when engraved).", group="Style"),
    ],
)
def name_tag(p):
    engraved = compare("eq", p.style, "engraved").named("engraved")
    radius = (p.height * 0.3).named("cornerRadius")
    hole_r = (p.holeDiameter / 2).named("holeRadius")
    plate = rounded_rectangle([p.length, p.height], radius, segments=32).extrude(p.thickness)
    hole = circle(hole_r, segments=32).extrude(p.thickness + 2).translate(
        3 + hole_r, p.height / 2, -1
    )
    tag = plate - hole
    # The lettering area: right of the hole, 3 mm in from the other edges.
    start = (6 + 2 * hole_r).named("textStart")
    size = min(p.textSize, p.height * 0.55).named("letterHeight")
    relief = min(p.depth, p.thickness / 2).named("relief")
    letters = text(p.name, size, halign="center", valign="center")
    top = select(engraved, p.thickness - relief, p.thickness)
    center_x = (start + p.length - 3) / 2
    lettering = letters.extrude(relief).translate(center_x, p.height / 2, top)
    area = box([p.length - 3 - start, p.height - 4, p.thickness + 2 * relief + 2]).translate(
        start, 2, -1
    )
    lettering = intersection(lettering, area).named("lettering")
    # Engraving cuts a little above the top so no face of the cut lies in the tag's top face.
    cut = intersection(
        letters.extrude(relief + 1).translate(center_x, p.height / 2, p.thickness - relief), area
    )
    body = select(engraved, tag - cut, tag).named("tag")
    return [part("Tag", body, p.tagColor), part("Lettering", lettering, p.textColor)]
