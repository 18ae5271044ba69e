"""cadparam: author parametric CAD designs in Python and emit DAG v1 templates (docs/design.md).

    from cadparam import project, Int, Float, box, part

    @project(slug="plate", title="Plate", parameters=[Float("width", 80, min=40, max=200)])
    def plate(p):
        return part("Plate", box([p.width, 40, 4]), "#8899aa")

`python3 -m cadparam emit design.py --out DIR` writes template.dag.json and
parameters.schema.json; `python3 -m cadparam run design.py --values '{"width": 120}'` prints the
finished DAG for those values.
"""

from . import geometry as _geometry
from .errors import DesignError, ParameterError, StructureError
from .geometry import *  # noqa: F401,F403 - every geometry call, as listed in geometry.__all__
from .graph import (
    Flag, Num, Text, add, ceil, clamp, compare, div, floor, max, min, mul, round_to, select,
    sub,
)
from .loader import load_design, load_source
from .params import Bool, Color, Enum, Float, Int, Parameter, String
from .project import Params, Project, dumps, project

__version__ = "1.0.0"

__all__ = [
    "DesignError", "ParameterError", "StructureError", *_geometry.__all__, "Flag", "Num", "Text",
    "add", "ceil", "clamp", "compare", "div", "floor", "max", "min", "mul", "round_to", "select",
    "sub",
    "load_design", "load_source", "Bool", "Color", "Enum", "Float", "Int", "Parameter", "Params",
    "String",
    "Project", "dumps", "project",
]
