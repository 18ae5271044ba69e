import assert from "node:assert/strict";
import {
  checkParameterValue,
  fieldInputsChanged,
  parameterFieldIds,
} from "@/lib/client/parameter_field.ts";
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

const name = {
  name: "name",
  kind: "String",
  label: "Name",
  default: "Ada",
  maxLength: 12,
  minLength: 1,
  pattern: "^[A-Za-z0-9 .'&\\-]*$",
} as unknown as ParameterDescriptor;

Deno.test("parameter field - a String is checked as the kernel would, refusals in a shopper's words", () => {
  assert.deepEqual(checkParameterValue(name, "Jo & Co."), { ok: true, value: "Jo & Co." });
  assert.deepEqual(checkParameterValue(name, "A".repeat(13)), {
    ok: false,
    message: "Use at most 12 characters.",
  });
  assert.deepEqual(checkParameterValue(name, ""), {
    ok: false,
    message: "Use at least 1 character.",
  });
  assert.deepEqual(checkParameterValue(name, "Zoë ✓"), {
    ok: false,
    message: "“ë” cannot be used here. Use only A–Z, a–z, 0–9, space, ., ', & and -.",
  });
  assert.deepEqual(checkParameterValue(name, 7), { ok: false, message: "Enter text." });
});

Deno.test("parameter field - the form draws a String as a text box with its maxlength and message", async () => {
  const { renderToString } = await import("preact-render-to-string");
  const { h } = await import("preact");
  const { default: ParameterForm } = await import("@/islands/ParameterForm.tsx");
  const html = renderToString(
    h(ParameterForm, {
      schema: { parameters: [name] },
      values: { name: "Grace" },
      onChange: () => {},
    }),
  );
  const input = html.match(/<input[^>]*id="cad-p-name"[^>]*>/)?.[0] ?? "";
  assert.match(input, /type="text"/);
  assert.match(input, /maxlength="12"/i);
  assert.match(input, /value="Grace"/);
  assert.match(html, /class="cad-field cad-field--string"/);
  assert.match(html, /<label for="cad-p-name"[^>]*>Name<\/label>/);
});

Deno.test("parameter field - a field is rendered again only when what it shows changed", () => {
  const onChange = () => {};
  const limit = {
    value: "43 mm",
    reason: "limited by Teeth: max 43 mm",
    announcement: "Hub: 43 mm.",
  };
  const shown = { param: width, value: 40, onChange, limit };
  // Another field moved: the form re-renders, this field's inputs say the same (a new limit object
  // with the same words included).
  assert.equal(fieldInputsChanged(shown, { ...shown, limit: { ...limit } }), false);
  assert.equal(
    fieldInputsChanged({ ...shown, limit: undefined }, { ...shown, limit: null }),
    false,
  );
  // What it shows changed.
  assert.equal(fieldInputsChanged(shown, { ...shown, value: 45 }), true);
  assert.equal(fieldInputsChanged(shown, { ...shown, limit: undefined }), true);
  assert.equal(fieldInputsChanged(shown, { ...shown, limit: { ...limit, value: "44 mm" } }), true);
  assert.equal(fieldInputsChanged(shown, { ...shown, disabled: true }), true);
  assert.equal(fieldInputsChanged(shown, { ...shown, param: { ...width } }), true);
  // A partner's inline handler is new on each render: the field takes the new one.
  assert.equal(fieldInputsChanged(shown, { ...shown, onChange: () => {} }), true);
  assert.equal(fieldInputsChanged({ ...shown, value: NaN }, { ...shown, value: NaN }), false);
});
