"""A design's mistakes as one line (`cadparam.diagnose.explain`), in the in-browser runtime too."""

import json
import textwrap
import unittest

import cadparam as cp
from cadparam import DesignError, load_source
from cadparam.diagnose import explain
from cadparam.runtime import run_source_json
from cadparam.suggest import ranked, unknown


def failure(source, filename="d.py"):
    """What explain() says about loading and tracing `source`, or the exception it declined."""
    try:
        load_source(textwrap.dedent(source), filename).template()
    except Exception as err:  # noqa: BLE001 - the point is to look at any of them
        return explain(err, filename), err
    raise AssertionError("the design did not fail")


class SuggestTest(unittest.TestCase):
    def test_closest_first_then_the_rest_alphabetically(self):
        close, rest = ranked("Cylindr", ["sphere", "cylinder", "box", "Color", "circle"])
        self.assertEqual(close[0], "cylinder")
        self.assertEqual(close + rest, ["cylinder", *[n for n in close[1:]], *rest])
        self.assertEqual(rest, sorted(rest, key=str.lower))

    def test_another_spelling_of_one_name_is_the_only_guess(self):
        message = unknown("cadparam", "name", "linearRepeat",
                          ["linear_repeat", "polar_repeat", "grid_repeat", "box"])
        self.assertTrue(message.startswith(
            "cadparam has no name 'linearRepeat'; did you mean linear_repeat? known names: "
            "linear_repeat, "))

    def test_no_guess_and_nothing_known(self):
        self.assertEqual(unknown("the project", "parameter", "w", []),
                         "the project has no parameter 'w'; known parameters: none")


class ExplainTest(unittest.TestCase):
    def test_unknown_module_attribute(self):
        line, _ = failure("""\
            import cadparam as cp
            @cp.project(slug="x", title="X")
            def x(p):
                return cp.part("P", cp.boxx([1, 1, 1]), "#112233")
        """)
        self.assertRegex(line, r"^d\.py:4: cadparam has no name 'boxx'; did you mean box\? known")

    def test_params_refuse_unknown_names_as_attribute_errors(self):
        line, err = failure("""\
            import cadparam as cp
            @cp.project(slug="x", title="X", parameters=[cp.Float("width", 5, min=1, max=9)])
            def x(p):
                assert not hasattr(p, "height")
                return cp.part("P", cp.box([p["widht"], 1, 1]), "#112233")
        """)
        self.assertIsInstance(err, AttributeError)
        self.assertEqual(line, "d.py:5: the project has no parameter 'widht'; did you mean width? "
                               "known parameters: width")

    def test_foreign_objects_get_a_guess_but_no_list(self):
        line, _ = failure("""\
            import cadparam as cp
            @cp.project(slug="x", title="X")
            def x(p):
                parts = []
                parts.appendd(cp.part("P", cp.box([1, 1, 1]), "#112233"))
        """)
        self.assertEqual(line, "d.py:5: list has no attribute 'appendd'; did you mean append?")

    def test_an_exception_raised_inside_cadparam_is_a_bug(self):
        original = cp.graph.check_number
        try:
            line, err = failure("""\
                import cadparam as cp, cadparam.graph
                cadparam.graph.check_number = cadparam.graph.symbolic  # a bug in cadparam's code
                @cp.project(slug="x", title="X")
                def x(p):
                    return cp.part("P", cp.box([1, 1, 1]), "#112233")
            """)
        finally:
            cp.graph.check_number = original
        self.assertIsNone(line)
        self.assertIsInstance(err, AttributeError)

    def test_every_message_is_one_line(self):
        line, _ = failure("""\
            import cadparam as cp
            @cp.project(slug="x", title="X")
            def x(p):
                raise ValueError("first\\nsecond")
        """)
        self.assertEqual(line, "d.py:4: ValueError: first second")
        self.assertEqual(str(DesignError("a\n  b", file="d.py", line=3)), "d.py:3: a b")


class RuntimeTest(unittest.TestCase):
    def run_design(self, body):
        source = textwrap.dedent("""\
            import cadparam as cp

            @cp.project(slug="s", title="S", mode="python",
                        parameters=[cp.Int("boards", 3, min=1, max=8)])
            def s(p):
        """) + textwrap.indent(textwrap.dedent(body), "    ")
        return json.loads(run_source_json(source, "{}"))["error"]

    def test_unknown_names_come_back_as_one_line(self):
        error = self.run_design("return cp.part('S', cp.box([1, 1, 1]).extrud(2), '#aa8844')")
        self.assertEqual(error["kind"], "exception")
        self.assertRegex(error["message"],
                         r"^design\.py:6: Shape has no attribute 'extrud'; did you mean extrude\?")
        self.assertNotIn("\n", error["message"])

    def test_declaration_mistakes_are_design_errors_not_bad_values(self):
        source = textwrap.dedent("""\
            import cadparam as cp

            @cp.project(slug="s", title="S", parameters=[cp.Int("n", 9, min=1, max=8)])
            def s(p):
                return cp.part("S", cp.box([1, 1, 1]), "#aa8844")
        """)
        error = json.loads(run_source_json(source, "{}"))["error"]
        self.assertEqual(error["kind"], "design")
        self.assertEqual(error["message"], "design.py:3: default of n is 1–8, got 9")
        bad_json = json.loads(run_source_json(source.replace("9, min", "2, min"), "{"))["error"]
        self.assertEqual(bad_json["kind"], "invalid_parameters")


if __name__ == "__main__":
    unittest.main()
