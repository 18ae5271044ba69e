/**
 * The String parameter kind: its schema members (maxLength, minLength, pattern as one character
 * class), its values refused with stable reasons, the pattern read exactly as ECMAScript and a
 * JSON Schema validator (ajv) read it, and a String value substituted into a template whose
 * `text` node draws it.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { DagError } from "@/lib/dag/dag_errors.ts";
import type { Dag } from "@/lib/dag/dag_types.ts";
import {
  type ParameterDescriptor,
  validateParameterSchema,
  validateParameterValue,
} from "@/lib/dag/parameter_schema.ts";
import {
  describeCharacters,
  firstDisallowed,
  parseStringPattern,
} from "@/lib/dag/string_pattern.ts";
import { substitute } from "@/lib/dag/substitute.ts";
import { validateDag } from "@/lib/kernel/dag_validate.ts";
import { evaluateDag } from "@/lib/kernel/evaluate.ts";
import { createManifoldRuntime } from "@/lib/kernel/manifold_runtime.ts";

type Json = Record<string, unknown>;

const NAME_PATTERN = "^[A-Za-z0-9 .'&\\-]*$";

function doc(name: Json): Json {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    additionalProperties: false,
    properties: { name },
  };
}

const nameProperty: Json = {
  kind: "String",
  type: "string",
  label: "Name",
  maxLength: 12,
  minLength: 1,
  pattern: NAME_PATTERN,
  default: "Ada",
};

/** The name parameter with some members replaced (`undefined` removes one). */
function nameParam(props: Json = {}): ParameterDescriptor {
  const property: Json = { ...nameProperty, ...props };
  for (const [k, v] of Object.entries(property)) if (v === undefined) delete property[k];
  return validateParameterSchema(doc(property)).parameters[0];
}

function refused(fn: () => unknown, code: string, reason: string, pointer: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof DagError, String(err));
    assert.deepEqual([err.code, err.reason, err.pointer], [code, reason, pointer], err.message);
    return true;
  });
}

Deno.test("string parameter - a String property becomes a descriptor with its lengths and pattern", () => {
  const p = nameParam();
  assert.deepEqual(
    { ...p },
    {
      name: "name",
      kind: "String",
      default: "Ada",
      label: "Name",
      maxLength: 12,
      minLength: 1,
      pattern: NAME_PATTERN,
    },
  );
  const bare = validateParameterSchema(
    doc({ kind: "String", type: "string", maxLength: 200, default: "" }),
  ).parameters[0];
  assert.equal(bare.pattern, undefined);
  assert.equal(validateParameterValue(bare, "anything ✓ at all\n"), "anything ✓ at all\n");
});

Deno.test("string parameter - bad String properties are refused with a reason and a pointer", async (t) => {
  const rows: [string, Json, string, string][] = [
    ["no maxLength", { maxLength: undefined }, "missing_member", "/properties/name/maxLength"],
    ["maxLength 0", { maxLength: 0 }, "out_of_range", "/properties/name/maxLength"],
    ["maxLength over 200", { maxLength: 201 }, "out_of_range", "/properties/name/maxLength"],
    ["maxLength 2.5", { maxLength: 2.5 }, "not_an_integer", "/properties/name/maxLength"],
    ["maxLength text", { maxLength: "12" }, "type_mismatch", "/properties/name/maxLength"],
    ["minLength > maxLength", { minLength: 13 }, "out_of_range", "/properties/name/minLength"],
    ["unanchored pattern", { pattern: "[a-z]*" }, "bad_choice", "/properties/name/pattern"],
    ["not a class", { pattern: "^(a|b)*$" }, "bad_choice", "/properties/name/pattern"],
    ["negated class", { pattern: "^[^x]*$" }, "bad_choice", "/properties/name/pattern"],
    ["class shorthand", { pattern: "^[\\w]*$" }, "bad_choice", "/properties/name/pattern"],
    ["backwards range", { pattern: "^[z-a]*$" }, "bad_choice", "/properties/name/pattern"],
    [
      "default too long",
      { default: "A".repeat(13) },
      "string_too_long",
      "/properties/name/default",
    ],
    ["default empty", { default: "" }, "bad_length", "/properties/name/default"],
    [
      "default off pattern",
      { default: "Zoë" },
      "unsupported_character",
      "/properties/name/default",
    ],
    ["type integer", { type: "integer" }, "type_mismatch", "/properties/name/type"],
    ["Enum members", { enum: ["a"] }, "unknown_member", "/properties/name/enum"],
  ];
  for (const [name, change, reason, pointer] of rows) {
    await t.step(name, () => {
      const property = { ...nameProperty, ...change };
      for (const [k, v] of Object.entries(property)) if (v === undefined) delete property[k];
      refused(
        () => validateParameterSchema(doc(property)),
        "invalid_parameter_schema",
        reason,
        pointer,
      );
    });
  }
});

Deno.test("string parameter - values: length in characters, then each character", () => {
  const p = nameParam();
  assert.equal(validateParameterValue(p, "Jo-Ann O'Neil".slice(0, 12)), "Jo-Ann O'Nei");
  refused(
    () => validateParameterValue(p, "A".repeat(13)),
    "invalid_parameters",
    "string_too_long",
    "/name",
  );
  refused(() => validateParameterValue(p, ""), "invalid_parameters", "bad_length", "/name");
  refused(
    () => validateParameterValue(p, "Zoë"),
    "invalid_parameters",
    "unsupported_character",
    "/name",
  );
  refused(() => validateParameterValue(p, 42), "invalid_parameters", "type_mismatch", "/name");
  // Characters are code points, as JSON Schema counts them: one emoji is one character.
  const any = nameParam({ pattern: undefined, maxLength: 1, minLength: undefined, default: "A" });
  assert.equal(validateParameterValue(any, "😀"), "😀");
  refused(
    () => validateParameterValue(any, "😀😀"),
    "invalid_parameters",
    "string_too_long",
    "/name",
  );
});

Deno.test("string parameter - a pattern means what ECMAScript and ajv make of it", () => {
  const patterns = [
    NAME_PATTERN,
    "^[a-c\\-x]*$",
    "^[-a]*$",
    "^[a-]*$",
    "^[--/]*$",
    "^[\\]\\[\\\\\\^\\/]*$",
    "^[À-ÿ ]*$",
    "^[0-9]*$",
  ];
  const samples = [
    "",
    "abc",
    "a-x",
    "-",
    "x",
    "ABC xyz",
    "Jo-Ann O'Neil & Co.",
    "a/b",
    "[]\\^/",
    "Zoë",
    "Åsa",
    "0123",
    "12a",
    ".",
    ",",
    "--//",
    "😀",
    "\n",
  ];
  const ajv = new Ajv2020({ strict: false });
  for (const pattern of patterns) {
    const parsed = parseStringPattern(pattern);
    assert.ok("ranges" in parsed, `${pattern}: ${JSON.stringify(parsed)}`);
    const regex = new RegExp(pattern, "u");
    const check = ajv.compile({ type: "string", pattern });
    for (const value of samples) {
      const ours: boolean = firstDisallowed(value, parsed.ranges) === undefined;
      assert.equal(ours, regex.test(value), `${pattern} on ${JSON.stringify(value)}: RegExp`);
      assert.equal(ours, check(value), `${pattern} on ${JSON.stringify(value)}: ajv`);
    }
  }
});

Deno.test("string parameter - lengths agree with ajv's maxLength and minLength", () => {
  const schema = doc(nameProperty);
  const ajv = new Ajv2020({ strict: false });
  const check = ajv.compile(schema);
  const p = validateParameterSchema(schema).parameters[0];
  for (const value of ["", "A", "Ada", "A".repeat(12), "A".repeat(13), "Zoë", "Jo & Co."]) {
    let ours = true;
    try {
      validateParameterValue(p, value);
    } catch {
      ours = false;
    }
    assert.equal(ours, check({ name: value }), JSON.stringify(value));
  }
});

Deno.test("string parameter - allowed characters in words", () => {
  const parsed = parseStringPattern(NAME_PATTERN);
  assert.ok("ranges" in parsed);
  assert.equal(describeCharacters(parsed.ranges), "A–Z, a–z, 0–9, space, ., ', & and -");
  assert.equal(describeCharacters([[65, 90]]), "A–Z");
});

Deno.test("string parameter - a String value is substituted into the text node it feeds", async () => {
  const schema = validateParameterSchema(doc(nameProperty));
  const template = {
    dag: 1,
    nodes: {
      name: { op: "ParameterInput", parameter: "name", fallback: "Ada" },
      label: { op: "text", text: { ref: "name" }, size: 6, halign: "center" },
      body: { op: "extrude", profile: { ref: "label" }, height: 1 },
      part: { op: "part", name: "Label", color: "#222222", child: { ref: "body" } },
      out: { op: "assembly", parts: [{ ref: "part" }] },
    },
    output: "out",
  } as unknown as Dag;
  validateDag(template);
  const finished = substitute(template, schema, { name: "Jo & Co." });
  assert.deepEqual(finished.nodes.name, {
    op: "ParameterInput",
    parameter: "name",
    fallback: "Ada",
    value: "Jo & Co.",
  });
  refused(
    () => substitute(template, schema, { name: "Zoë" }),
    "invalid_parameters",
    "unsupported_character",
    "/name",
  );
  const rt = await createManifoldRuntime();
  const short = await evaluateDag(validateDag(substitute(template, schema, {})), rt);
  const long = await evaluateDag(validateDag(finished), rt);
  assert.ok(short.volume > 0 && long.volume > short.volume, `${short.volume} < ${long.volume}`);
  assert.ok(long.bbox.max[0] - long.bbox.min[0] > short.bbox.max[0] - short.bbox.min[0]);
});
