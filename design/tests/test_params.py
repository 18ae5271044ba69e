"""Parameter descriptors and the schema document they emit."""

import unittest

from cadparam import Bool, Color, Enum, Float, Int, ParameterError
from cadparam.params import is_on_step, resolve_values, schema_document


class DescriptorTest(unittest.TestCase):
    def test_int_schema_member_order_and_values(self):
        p = Int("teeth", 24, min=10, max=80, label="Teeth", description="Number.", group="Gear")
        self.assertEqual(
            list(p.schema().items()),
            [("kind", "Int"), ("type", "integer"), ("label", "Teeth"),
             ("description", "Number."), ("group", "Gear"), ("minimum", 10), ("maximum", 80),
             ("default", 24)],
        )

    def test_float_with_step_and_unit(self):
        p = Float("w", 2, min=1, max=4, step=0.25, unit="mm")
        self.assertEqual(p.schema()["step"], 0.25)
        self.assertEqual(p.schema()["unit"], "mm")
        self.assertEqual(p.check(3.75), 3.75)
        with self.assertRaisesRegex(ParameterError, "steps of 0.25"):
            p.check(3.3)
        with self.assertRaisesRegex(ParameterError, "1–4"):
            p.check(5)

    def test_enum_and_color_members(self):
        e = Enum("style", "round", choices=["round", "flat"], choice_labels=["Round", "Flat"])
        self.assertEqual(e.schema()["enum"], ["round", "flat"])
        self.assertEqual(e.schema()["enumLabels"], ["Round", "Flat"])
        c = Color("c", "#aabbcc", swatches=["#000000"])
        self.assertEqual(c.schema()["pattern"], "^#[0-9a-f]{6}$")
        self.assertEqual(c.schema()["swatches"], ["#000000"])
        self.assertEqual(Bool("b", True).schema(), {"kind": "Bool", "type": "boolean",
                                                     "default": True})

    def test_bad_declarations_are_refused(self):
        cases = [
            lambda: Int("n", 2.5, min=1, max=5),
            lambda: Int("n", 2, min=1.5, max=5),
            lambda: Float("w", 10, min=20, max=30),
            lambda: Float("w", 10, min=30, max=20),
            lambda: Float("w", 10, min=0, max=20, step=0),
            lambda: Float("w", 10),
            lambda: Float("w", 1e7, min=0, max=2e7),
            lambda: Bool("b", 1),
            lambda: Enum("e", "x", choices=["a", "b"]),
            lambda: Enum("e", "a", choices=["a", "a"]),
            lambda: Enum("e", "a", choices=[]),
            lambda: Enum("e", "a", choices=["a"], choice_labels=["A", "B"]),
            lambda: Color("c", "#ABCDEF"),
            lambda: Color("c", "#abcdef", swatches=["red"]),
            lambda: Int("bad name", 1, min=0, max=2),
            lambda: Int("__proto__", 1, min=0, max=2),
            lambda: Int("n", 1, min=0, max=2, label=""),
        ]
        for i, make in enumerate(cases):
            with self.subTest(case=i), self.assertRaises(ParameterError):
                make()

    def test_step_tolerance_matches_the_kernel(self):
        self.assertTrue(is_on_step(0.1 + 0.2, 0, 0.1))
        self.assertTrue(is_on_step(1.2 + 0.1 * 7, 1.2, 0.1))
        self.assertFalse(is_on_step(0.15, 0, 0.1))

    def test_schema_document_top_level(self):
        doc = schema_document("T", "D", [Int("a", 1, min=0, max=2), Bool("b", False)])
        self.assertEqual(
            list(doc), ["$schema", "title", "description", "type", "additionalProperties",
                        "x-order", "properties"],
        )
        self.assertEqual(doc["x-order"], ["a", "b"])
        self.assertIs(doc["additionalProperties"], False)

    def test_resolve_values(self):
        params = [Int("a", 1, min=0, max=2), Bool("b", False)]
        self.assertEqual(resolve_values(params, {"a": 2}), {"a": 2, "b": False})
        with self.assertRaisesRegex(ParameterError, "no parameter 'c'"):
            resolve_values(params, {"c": 1})
        with self.assertRaisesRegex(ParameterError, "Bool"):
            resolve_values(params, {"b": 1})
        with self.assertRaisesRegex(ParameterError, "Int, got NoneType"):
            resolve_values(params, {"a": None})  # as substitute(): null is not "absent"


if __name__ == "__main__":
    unittest.main()
