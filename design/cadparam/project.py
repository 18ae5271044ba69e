"""The `project` decorator, and tracing a project into a DAG (template, bound or concrete)."""

from __future__ import annotations

import contextlib
import json
import re
import sys
from typing import Any, Callable, Iterator, Sequence

from .errors import DesignError, UnknownNameError, pop_design_file, push_design_file
from .geometry import Shape, assembly
from .graph import ASSEMBLY, PART, Graph, Node, Value, literal_type, symbolic
from .ops import declare, member
from .params import NAME_PATTERN, Parameter, ParameterError, resolve_values, schema_document
from .suggest import unknown

MODES = ("template", "python")
SLUG_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
OUTPUT_ID = "out"

declare(
    "ParameterInput",
    "param",
    parameter=member("name"),
    fallback=member("literal"),
    value=member("literal", required=False),
)


class Params:
    """The parameters a design function receives: `p.width` or `p["width"]`."""

    def __init__(self, values: dict[str, Any]) -> None:
        object.__setattr__(self, "_values", values)

    def __getattr__(self, name: str) -> Any:
        if name == "_values" or name.startswith("__") and name not in self._values:
            raise AttributeError(name)  # Python's own probes (copy, pickle)
        return self[name]

    def __getitem__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            message = unknown("the project", "parameter", name, self._values)
            raise UnknownNameError(message) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise DesignError("parameters are read-only")


class Project:
    """A parametric design: its metadata, its parameters and the function that builds it."""

    def __init__(
        self,
        function: Callable[[Params], Any],
        slug: str,
        title: str,
        description: str | None,
        parameters: Sequence[Parameter],
        mode: str,
    ) -> None:
        if not isinstance(slug, str) or not SLUG_PATTERN.match(slug):
            raise DesignError(f"slug {slug!r}: lowercase letters, digits and '-', 1–63 characters")
        if not isinstance(title, str) or not 1 <= len(title) <= 200:
            raise DesignError("title is a string of 1–200 characters")
        if mode not in MODES:
            raise DesignError(f"mode is one of {', '.join(MODES)}, got {mode!r}")
        names = [p.name for p in parameters]
        for param in parameters:
            if not isinstance(param, Parameter):
                raise ParameterError(
                    f"parameters are Int, Float, Bool, Enum, Color or String: {param!r}"
                )
        if len(set(names)) != len(names):
            raise ParameterError("a parameter name repeats")
        if len(names) > 256:
            raise ParameterError("at most 256 parameters")
        self.function = function
        self.slug = slug
        self.title = title
        self.description = description
        self.parameters = list(parameters)
        self.mode = mode
        self.design_file: str | None = None

    def schema(self) -> dict[str, Any]:
        """The parameters.schema.json document."""
        return schema_document(self.title, self.description, self.parameters)

    def template(self) -> dict[str, Any]:
        """The template DAG: every parameter a `ParameterInput` whose fallback is its default."""
        if self.mode != "template":
            raise DesignError(
                f"{self.slug} is a python-mode project: it has no template, only a schema"
            )
        return self._trace(None)

    def run(self, values: dict[str, Any] | None = None) -> dict[str, Any]:
        """The finished DAG for these values (defaults for the rest).

        A template-mode project gives exactly what substituting the values into its template
        gives (its `ParameterInput` nodes carry a `value`); a python-mode project runs the
        function with plain Python values, so the DAG has only literals.
        """
        resolved = resolve_values(self.parameters, values or {})
        if self.mode == "template":
            return self._trace(resolved)
        with self._design_file(), Graph() as graph, self._at_definition():
            out = self._output(self._call(Params(dict(resolved))))
            return serialize(graph, [], out)

    def _trace(self, bound: dict[str, Any] | None) -> dict[str, Any]:
        with self._design_file(), Graph() as graph, self._at_definition():
            inputs: list[Node] = []
            values: dict[str, Any] = {}
            for param in self.parameters:
                members: dict[str, Any] = {"parameter": param.name, "fallback": param.default}
                if bound is not None:
                    members["value"] = bound[param.name]
                node = graph.add("ParameterInput", members, literal_type(param.default) or "")
                node.name = param.name
                inputs.append(node)
                values[param.name] = symbolic(node)
            out = self._output(self._call(Params(values)))
            return serialize(graph, inputs, out)

    def _call(self, params: Params) -> Any:
        """Calls the design function, noting which local variable holds which node.

        The variable names become the nodes' ids when no explicit name or parameter takes them,
        so a template reads like its design (`root_disk`, `teeth`, `body`).
        """
        code = getattr(self.function, "__code__", None)
        seen: dict[str, Any] = {}

        def profile(frame: Any, event: str, arg: Any) -> None:
            if event == "return" and frame.f_code is code:
                seen.update(frame.f_locals)

        previous = sys.getprofile()
        sys.setprofile(profile)
        try:
            result = self.function(params)
        finally:
            sys.setprofile(previous)
        for variable, value in seen.items():
            if isinstance(value, Value) and not variable.startswith("_"):
                name = _camel(variable)
                if value.node.variable is None and NAME_PATTERN.match(name):
                    value.node.variable = name
        return result

    def _output(self, result: Any) -> Node:
        if isinstance(result, (list, tuple)):
            result = assembly(*result)
        if isinstance(result, Shape) and result.kind == PART:
            result = assembly(result)
        if not isinstance(result, Shape) or result.kind != ASSEMBLY:
            raise DesignError(
                f"the project function of {self.slug} must return an assembly, a part or a list "
                f"of parts, got {_what(result)}"
            )
        return result.node

    @contextlib.contextmanager
    def _at_definition(self) -> Iterator[None]:
        """Mistakes found after the function returned (its result, node ids) name its `def`."""
        try:
            yield
        except DesignError as err:
            code = getattr(self.function, "__code__", None)
            if self.design_file and code is not None and code.co_filename == self.design_file:
                err.at(self.design_file, code.co_firstlineno)
            raise

    def _design_file(self) -> Any:
        project = self

        class _Scope:
            def __enter__(self) -> None:
                if project.design_file:
                    push_design_file(project.design_file)

            def __exit__(self, *exc: Any) -> None:
                if project.design_file:
                    pop_design_file()

        return _Scope()


def project(
    slug: str,
    title: str,
    description: str | None = None,
    parameters: Sequence[Parameter] = (),
    mode: str = "template",
) -> Callable[[Callable[[Params], Any]], Project]:
    """Declares a design: `@project(slug=…, title=…, parameters=[…])` over `def design(p): …`.

    mode "template" (default) traces the function once into a frozen template; mode "python"
    runs it for each set of values in the in-browser Python runtime (docs/design.md).
    """

    def wrap(function: Callable[[Params], Any]) -> Project:
        return Project(function, slug, title, description, parameters, mode)

    return wrap


def _what(value: Any) -> str:
    """What a design function returned, in the design's words ("a solid (box)", "a float")."""
    if isinstance(value, Value):
        return f"a {value.node.type} ({value.node.op})"
    return "None" if value is None else f"a {type(value).__name__}"


def _camel(variable: str) -> str:
    """`root_disk` → `rootDisk`: DAG ids read like the hand-written ones."""
    head, *rest = variable.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


# ---------------------------------------------------------------------------------------------
# Serialization: stable ids, stable order


def _post_order(roots: list[Node]) -> list[Node]:
    order: list[Node] = []
    seen: set[int] = set()
    for root in roots:
        if root.index in seen:
            continue
        seen.add(root.index)
        stack: list[tuple[Node, Iterator[Node]]] = [(root, root.children())]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                order.append(node)
            elif child.index not in seen:
                seen.add(child.index)
                stack.append((child, child.children()))
    return order


def _assign_ids(order: list[Node], output: Node) -> dict[int, str]:
    ids: dict[int, str] = {}
    taken: set[str] = set()
    for node in order:
        if node.name is None:
            continue
        if not NAME_PATTERN.match(node.name):
            raise DesignError(f"node name {node.name!r}: ids are 1–64 characters of [A-Za-z0-9_.-]")
        if node.name in taken:
            raise DesignError(f"two nodes are named {node.name!r}")
        taken.add(node.name)
        ids[node.index] = node.name
    if output.index not in ids and OUTPUT_ID not in taken:
        ids[output.index] = OUTPUT_ID
        taken.add(OUTPUT_ID)
    # Variable names are weaker than explicit names: a taken one is simply not used.
    for node in order:
        if node.index not in ids and node.variable is not None and node.variable not in taken:
            taken.add(node.variable)
            ids[node.index] = node.variable
    counters: dict[str, int] = {}
    for node in order:
        if node.index in ids:
            continue
        while True:
            counters[node.op] = counters.get(node.op, 0) + 1
            candidate = f"{node.op}{counters[node.op]}"
            if candidate not in taken:
                break
        taken.add(candidate)
        ids[node.index] = candidate
    return ids


def _json_value(value: Any, ids: dict[int, str]) -> Any:
    if isinstance(value, Node):
        return {"ref": ids[value.index]}
    if isinstance(value, list):
        return [_json_value(item, ids) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)  # as JavaScript writes it; also turns -0.0 into 0
    return value


def serialize(graph: Graph, inputs: list[Node], output: Node) -> dict[str, Any]:
    """The DAG document: inputs first, then every node the output reaches, children first."""
    order = _post_order(inputs + [output])
    ids = _assign_ids(order, output)
    nodes = {
        ids[node.index]: {"op": node.op, **{k: _json_value(v, ids) for k, v in node.members.items()}}
        for node in order
    }
    del graph  # the order comes from the output, not from creation
    return {"dag": 1, "nodes": nodes, "output": ids[output.index]}


def dumps(document: Any) -> str:
    """The committed JSON form: 2-space indent, UTF-8 text, trailing newline."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
