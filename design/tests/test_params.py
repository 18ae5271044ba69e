"""Parameter descriptors and the schema document they emit."""

import unittest

from cadparam import Bool, Color, Enum, Float, Int, ParameterError, String
from cadparam.params import is_on_step, parse_string_pattern, resolve_values, schema_document


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

    def test_string_members_and_checks(self):
        s = String("name", "Ada", max_length=12, min_length=1,
                   pattern="^[A-Za-z0-9 .'&\\-]*$", label="Name")
        self.assertEqual(
            list(s.schema().items()),
            [("kind", "String"), ("type", "string"), ("label", "Name"), ("maxLength", 12),
             ("minLength", 1), ("pattern", "^[A-Za-z0-9 .'&\\-]*$"), ("default", "Ada")],
        )
        self.assertEqual(s.check("Jo-Ann O'Neil"[:12]), "Jo-Ann O'Nei")
        with self.assertRaisesRegex(ParameterError, "at most 12 characters"):
            s.check("A" * 13)
        with self.assertRaisesRegex(ParameterError, "at least 1"):
            s.check("")
        with self.assertRaisesRegex(ParameterError, "may not contain 'ë'"):
            s.check("Zoë")
        with self.assertRaisesRegex(ParameterError, "is String"):
            s.check(3)
        # Characters are code points, as in JSON Schema: one emoji is one character.
        self.assertEqual(String("t", "", max_length=1).check("😀"), "😀")
        self.assertEqual(String("t", "x", max_length=200).schema(),
                         {"kind": "String", "type": "string", "maxLength": 200, "default": "x"})

    def test_string_patterns_are_one_character_class(self):
        self.assertEqual(parse_string_pattern("^[a-c\\-x]*$"), [(97, 99), (45, 45), (120, 120)])
        self.assertEqual(parse_string_pattern("^[-a]*$"), [(45, 45), (97, 97)])
        self.assertEqual(parse_string_pattern("^[a-]*$"), [(97, 97), (45, 45)])
        for bad in ["[a-z]", "^[a-z]+$", "^[^a]*$", "^[z-a]*$", "^[a\\d]*$", "^[a[]*$", "^[]*$"]:
            with self.subTest(pattern=bad), self.assertRaises(ValueError):
                parse_string_pattern(bad)

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
            lambda: String("s", "x"),
            lambda: String("s", "x", max_length=0),
            lambda: String("s", "x", max_length=201),
            lambda: String("s", "x", max_length=4, min_length=5),
            lambda: String("s", "toolong", max_length=4),
            lambda: String("s", "x!", max_length=4, pattern="^[a-z]*$"),
            lambda: String("s", "x", max_length=4, pattern="^[a-z]+$"),
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
