import assert from "node:assert/strict";
import { checkParameterValue, parameterFieldIds } from "@/lib/client/parameter_field.ts";
import type { ParameterDescriptor } from "@/lib/dag/parameter_schema.ts";

const width = {
  name: "width",
  kind: "Float",
  label: "Width",
  unit: "mm",
  default: 40,
  minimum: 20,
  maximum: 80,
  step: 5,
  description: "Width along the wall.",
} as unknown as ParameterDescriptor;

Deno.test("parameter field - a value is checked as the kernel would, refusals in a shopper's words", () => {
  assert.deepEqual(checkParameterValue(width, 45), { ok: true, value: 45 });
  assert.deepEqual(checkParameterValue(width, 90), {
    ok: false,
    message: "Enter a value from 20 to 80 mm.",
  });
  assert.deepEqual(checkParameterValue(width, 42), {
    ok: false,
    message: "Use steps of 5 mm (from 20).",
  });
  assert.deepEqual(checkParameterValue(width, "wide"), { ok: false, message: "Enter a number." });
});

Deno.test("parameter field - ids, and aria-describedby naming the help and the message while shown", () => {
  assert.deepEqual(parameterFieldIds(width, false), {
    id: "cad-p-width",
    helpId: "cad-help-width",
    errorId: "cad-error-width",
    describedBy: "cad-help-width",
  });
  assert.equal(parameterFieldIds(width, true).describedBy, "cad-help-width cad-error-width");
  const bare = { ...width, description: undefined } as ParameterDescriptor;
  assert.equal(parameterFieldIds(bare, false).describedBy, undefined);
});
