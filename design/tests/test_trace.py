"""Tracing designs into DAGs: expression nodes, sharing, ids, modes and structure errors."""

import contextlib
import io
import json
import os
import tempfile
import textwrap
import unittest

import cadparam as cp
from cadparam import DesignError, StructureError, load_source
from cadparam.__main__ import main
from cadparam.ops import OPS


def design(body, params='[cp.Float("w", 10, min=1, max=100), cp.Int("n", 2, min=1, max=9)]',
           mode="template"):
    source = "import cadparam as cp\n\n" + textwrap.dedent(f"""\
        @cp.project(slug="t", title="T", parameters={params}, mode="{mode}")
        def t(p):
        """) + textwrap.indent(textwrap.dedent(body), "    ")
    return load_source(source, "t_design.py")


class TraceTest(unittest.TestCase):
    def test_arithmetic_becomes_expression_nodes(self):
        dag = design("""\
            x = p.w * 2 + 1
            y = (10 - p.w) / p.n
            return cp.part("P", cp.box([x, y, -p.w + 20]), "#112233")
        """).template()
        nodes = dag["nodes"]
        self.assertEqual(nodes["mul1"], {"op": "mul", "args": [{"ref": "w"}, 2]})
        self.assertEqual(nodes["x"], {"op": "add", "args": [{"ref": "mul1"}, 1]})
        self.assertEqual(nodes["sub1"], {"op": "sub", "a": 10, "b": {"ref": "w"}})
        self.assertEqual(nodes["y"], {"op": "div", "a": {"ref": "sub1"}, "b": {"ref": "n"}})
        self.assertEqual(nodes["add1"], {"op": "add", "args": [{"ref": "mul2"}, 20]})
        self.assertEqual(nodes["w"], {"op": "ParameterInput", "parameter": "w", "fallback": 10})
        self.assertEqual(dag["output"], "out")
        self.assertEqual(nodes["out"], {"op": "assembly", "parts": [{"ref": "part1"}]})

    def test_shared_subexpressions_and_solids_are_one_node(self):
        dag = design("""\
            a = cp.box([p.w * 2, p.w * 2, 1])
            b = cp.box([p.w * 2, p.w * 2, 1])
            return cp.part("P", cp.union(a.translate(1, 0, 0), b.translate(1, 0, 0)), "#112233")
        """).template()
        ops = [n["op"] for n in dag["nodes"].values()]
        self.assertEqual(ops.count("mul"), 1)
        self.assertEqual(ops.count("box"), 1)
        self.assertEqual(ops.count("translate"), 1)

    def test_literals_fold_in_python(self):
        dag = design("""\
            size = cp.max(3, 4) * 2 + cp.min(1, 2)
            return cp.part("P", cp.box([size, 1, 1]), "#112233")
        """).template()
        self.assertEqual(dag["nodes"]["box1"]["size"], [9, 1, 1])

    def test_helpers_become_nodes(self):
        dag = design("""\
            import math
            r = cp.clamp(p.w, 2, 5)
            s = round(p.w) + math.floor(p.w) + math.ceil(p.w) + abs(p.w) + p.w ** 2
            c = cp.select(p.w > 3, r, s)
            return cp.part("P", cp.sphere(c, segments=16), "#112233")
        """).template()
        ops = {n["op"] for n in dag["nodes"].values()}
        self.assertTrue({"clamp", "round", "max", "compare", "select", "sphere"} <= ops)
        modes = sorted(n.get("mode", "nearest") for n in dag["nodes"].values()
                       if n["op"] == "round")
        self.assertEqual(modes, ["ceil", "floor", "nearest"])

    def test_every_node_type_of_the_dag_schema_is_reachable_from_python(self):
        dag = design("""\
            k = cp.clamp(p.w, 2, 5) + cp.round_to(p.w, 0.5) - cp.min(p.w, 3) * cp.max(p.w, 1) / 2
            size = cp.select(p.w > 3, k, 4)
            prof = cp.union(
                cp.rectangle([size, 2], center=True).extrude(3, twist=10, scale_top=[1, 1],
                                                            divisions=2, center=False),
                cp.rounded_rectangle([p.w, 5], 1, segments=16).extrude(1),
                cp.circle(2, segments=12).revolve(segments=12, degrees=180).translate(0, 0, 9),
                cp.polygon([[0, 0], [4, 0], [0, 4]]).extrude(1),
                cp.circle(3).offset(-1, join="square").extrude(1),
                cp.rectangle([6, 4]).fillet(1, segments=16).extrude(1),
                cp.text("Ab", 5, halign="right", valign="bottom").extrude(1),
            )
            solid = cp.hull(cp.box([1, 1, 1], center=True), cp.sphere(1), cp.cylinder(2, 1,
                            radius_top=0, segments=8, center=True))
            cut = cp.intersection(solid.rotate(0, 0, 45), solid.scale(2).mirror(1, 0, 0))
            body = cp.difference(prof, cut)
            reps = cp.union(cp.linear_repeat(solid, p.n, [3, 0, 0]),
                            cp.grid_repeat(solid, [p.n, 2], [3, 3]),
                            cp.polar_repeat(solid.translate(10, 0, 0), p.n, degrees=360))
            return [cp.part("A", body, "#112233"), cp.part("B", reps, "#445566")]
        """).template()
        ops = {n["op"] for n in dag["nodes"].values()}
        schema_path = os.path.join(os.path.dirname(__file__), "..", "..", "lib", "dag",
                                   "dag.schema.json")
        with open(schema_path, encoding="utf-8") as handle:
            definitions = json.load(handle)["$defs"].values()
        schema_ops = {
            d["properties"]["op"]["const"] for d in definitions
            if isinstance(d, dict) and "const" in d.get("properties", {}).get("op", {})
        }
        self.assertEqual(schema_ops, set(OPS))
        self.assertEqual(schema_ops - ops, set())

    def test_structure_on_a_value_names_the_line_and_the_fallback(self):
        cases = {
            "range": "for i in range(p.n):\n    pass\nreturn cp.part('P', cp.box([1,1,1]), '#112233')",
            "if": "if p.w > 3:\n    pass\nreturn cp.part('P', cp.box([1,1,1]), '#112233')",
            "int": "k = int(p.n)\nreturn cp.part('P', cp.box([1,1,1]), '#112233')",
            "bool": "k = bool(p.n)\nreturn cp.part('P', cp.box([1,1,1]), '#112233')",
            "index": "k = [1, 2, 3][p.n]\nreturn cp.part('P', cp.box([1,1,1]), '#112233')",
            "builtin min": "k = min(p.w, 3)\nreturn cp.part('P', cp.box([k,1,1]), '#112233')",
            "iterate": "k = list(p.w)\nreturn cp.part('P', cp.box([1,1,1]), '#112233')",
        }
        for name, body in cases.items():
            with self.subTest(name=name):
                project = design(body)
                with self.assertRaises(StructureError) as caught:
                    project.template()
                message = str(caught.exception)
                self.assertIn("t_design.py:5:", message)
                self.assertIn('mode="python"', message)

    def test_wrong_types_are_refused_with_the_line(self):
        project = design("return cp.part('P', cp.circle(2), '#112233')")
        with self.assertRaisesRegex(DesignError, r"^t_design.py:5: part child must be a solid"):
            project.template()

    def test_bound_run_adds_values_to_the_template(self):
        project = design("return cp.part('P', cp.box([p.w, p.n, 1]), '#112233')")
        template = project.template()
        bound = project.run({"n": 5})
        self.assertEqual(bound["nodes"]["n"]["value"], 5)
        self.assertEqual(bound["nodes"]["w"]["value"], 10)
        for node in bound["nodes"].values():
            node.pop("value", None)
        self.assertEqual(bound, template)

    def test_python_mode_runs_with_concrete_values(self):
        project = design("""\
            boards = [cp.box([p.w, 10, 1]).translate(0, 0, i * 20) for i in range(p.n)]
            if p.n > 2:
                boards.append(cp.box([1, 10, 60]))
            return cp.part("Shelf", cp.union(boards), "#112233")
        """, mode="python")
        dag = project.run({"n": 4})
        self.assertNotIn("ParameterInput", {n["op"] for n in dag["nodes"].values()})
        union = next(n for n in dag["nodes"].values() if n["op"] == "union")
        self.assertEqual(len(union["children"]), 5)
        with self.assertRaisesRegex(DesignError, "no template"):
            project.template()

    def test_local_variables_name_nodes_unless_the_name_is_taken(self):
        dag = design("""\
            w = p.w * 2
            root_disk = cp.cylinder(1, w)
            n = p.n
            _hidden = cp.box([1, 1, 1])
            out = cp.part("P", cp.union(root_disk, _hidden), "#112233")
            return out
        """).template()
        nodes = dag["nodes"]
        self.assertEqual(nodes["w"]["op"], "ParameterInput", "a parameter keeps its name")
        self.assertEqual(nodes["mul1"], {"op": "mul", "args": [{"ref": "w"}, 2]})
        self.assertEqual(nodes["rootDisk"]["op"], "cylinder")
        self.assertIn("box1", nodes)
        self.assertEqual(nodes["out"]["op"], "assembly", "the output keeps its conventional id")
        self.assertEqual(nodes["part1"]["op"], "part")

    def test_named_nodes_and_collisions(self):
        dag = design("""\
            r = (p.w / 2).named("radius")
            return cp.part("P", cp.sphere(r).named("ball"), "#112233").named("thePart")
        """).template()
        self.assertIn("radius", dag["nodes"])
        self.assertIn("ball", dag["nodes"])
        project = design("""\
            r = (p.w / 2).named("w")
            return cp.part("P", cp.sphere(r), "#112233")
        """)
        with self.assertRaisesRegex(DesignError, "two nodes are named 'w'"):
            project.template()

    def test_output_is_deterministic(self):
        project = design("return cp.part('P', cp.box([p.w * 2, p.w * 2, p.n]), '#112233')")
        self.assertEqual(cp.dumps(project.template()), cp.dumps(project.template()))
        self.assertTrue(cp.dumps(project.template()).endswith("}\n"))
        self.assertEqual(cp.dumps({"a": [1, 2.5]}), '{\n  "a": [\n    1,\n    2.5\n  ]\n}\n')


class CommandLineTest(unittest.TestCase):
    def test_emit_check_and_run(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "design.py")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(textwrap.dedent("""\
                    import cadparam as cp

                    @cp.project(slug="x", title="X", parameters=[cp.Int("n", 2, min=1, max=4)])
                    def x(p):
                        return cp.part("P", cp.box([p.n, 1, 1]), "#112233")
                """))
            errors, written = io.StringIO(), io.StringIO()
            with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(written):
                self.assertEqual(main(["check", path]), 1)
                self.assertEqual(main(["emit", path, "--out", folder]), 0)
                self.assertEqual(main(["check", path]), 0)
                self.assertEqual(main(["run", path, "--values", '{"n": 9}']), 2)
                self.assertEqual(main(["emit", path, "--out", folder, "--quiet"]), 0)
            schema_size = os.path.getsize(os.path.join(folder, "parameters.schema.json"))
            self.assertEqual(written.getvalue().splitlines(), [
                f"wrote {folder}/parameters.schema.json ({schema_size} bytes, 1 parameter)",
                f"wrote {folder}/template.dag.json "
                f"({os.path.getsize(os.path.join(folder, 'template.dag.json'))} bytes, 4 nodes)",
            ])
            with open(os.path.join(folder, "template.dag.json"), encoding="utf-8") as handle:
                self.assertEqual(json.load(handle)["nodes"]["n"]["fallback"], 2)
            self.assertIn("stale", errors.getvalue())
            self.assertIn("error: n is 1–4, got 9", errors.getvalue())
            output = io.StringIO()
            with contextlib.redirect_stdout(output):
                self.assertEqual(main(["run", path, "--values", '{"n": 3}']), 0)
            self.assertEqual(json.loads(output.getvalue())["nodes"]["n"]["value"], 3)


if __name__ == "__main__":
    unittest.main()


class RuntimeEntryTest(unittest.TestCase):
    SOURCE = textwrap.dedent("""\
        import cadparam as cp

        @cp.project(slug="s", title="S", mode="python",
                    parameters=[cp.Int("boards", 3, min=1, max=8)])
        def s(p):
            boards = [cp.box([80, 20, 2]).translate(0, 0, 30 * i) for i in range(p.boards)]
            return cp.part("Shelf", cp.union(boards), "#aa8844")
    """)

    def test_runs_a_python_design_from_its_source(self):
        from cadparam.runtime import run_source_json

        out = json.loads(run_source_json(self.SOURCE, '{"boards": 5}'))
        self.assertTrue(out["ok"])
        ops = [n["op"] for n in out["dag"]["nodes"].values()]
        self.assertEqual(ops.count("translate"), 5)

    def test_reports_errors_as_json(self):
        from cadparam.runtime import run_source_json

        bad_value = json.loads(run_source_json(self.SOURCE, '{"boards": 9}'))
        self.assertEqual(bad_value["error"]["kind"], "invalid_parameters")
        broken = self.SOURCE.replace("30 * i", "30 * i / 0")
        crash = json.loads(run_source_json(broken, "{}"))
        self.assertEqual(crash["error"]["kind"], "exception")
        self.assertIn("design.py:6: ZeroDivisionError", crash["error"]["message"])
