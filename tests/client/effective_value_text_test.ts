/** What the form says about a limited parameter (lib/client/effective_value_text.ts). */
import assert from "node:assert/strict";
import {
  effectiveValueText,
  keptEffective,
  sameEffective,
} from "@/lib/client/effective_value_text.ts";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";

const schema = validateParameterSchema(
  JSON.parse(
    await Deno.readTextFile(
      new URL("../../examples/projects/spur-gear/parameters.schema.json", import.meta.url),
    ),
  ),
);
const hub = { value: 43, requested: 60, bound: "max" as const, by: ["module", "teeth"] };

Deno.test("effective value text - value, reason with labels in schema order, announcement", () => {
  const text = effectiveValueText(schema, "hubDiameter", 60, { hubDiameter: hub });
  assert.deepEqual(text, {
    value: "43 mm",
    reason: "limited by Teeth and Module: max 43 mm",
    announcement: "Hub diameter: the model uses 43 mm, limited by Teeth and Module: max 43 mm.",
  });
});

Deno.test("effective value text - nothing for another value, another parameter or no report", () => {
  // The form already holds 50 while the scene on screen was rendered for 60: say nothing yet.
  assert.equal(effectiveValueText(schema, "hubDiameter", 50, { hubDiameter: hub }), null);
  assert.equal(effectiveValueText(schema, "boreDiameter", 6, { hubDiameter: hub }), null);
  assert.equal(effectiveValueText(schema, "hubDiameter", 60, undefined), null);
  assert.equal(effectiveValueText(schema, "hubDiameter", 60, {}), null);
});

Deno.test("effective value text - a constant bound, a lower bound and three names", () => {
  const up = { value: 0.5, requested: 0, bound: "min" as const, by: [] };
  assert.equal(
    effectiveValueText(schema, "hubHeight", 0, { hubHeight: up })?.reason,
    "limited by the design: min 0.5 mm",
  );
  const bore = {
    value: 10.5,
    requested: 30,
    bound: "max" as const,
    by: ["hubDiameter", "module", "teeth"],
  };
  assert.equal(
    effectiveValueText(schema, "boreDiameter", 30, { boreDiameter: bore })?.reason,
    "limited by Teeth, Module and Hub diameter: max 10.5 mm",
  );
});

Deno.test("effective value text - two renders' reports compared by what they say", () => {
  assert.equal(sameEffective({}, {}), true);
  assert.equal(sameEffective(undefined, undefined), true);
  assert.equal(sameEffective(undefined, {}), false);
  assert.equal(
    sameEffective({ hubDiameter: hub }, { hubDiameter: { ...hub, by: [...hub.by] } }),
    true,
  );
  assert.equal(sameEffective({ hubDiameter: hub }, {}), false);
  assert.equal(sameEffective({}, { hubDiameter: hub }), false);
  assert.equal(
    sameEffective({ hubDiameter: hub }, { hubDiameter: { ...hub, requested: 61 } }),
    false,
  );
  assert.equal(sameEffective({ hubDiameter: hub }, { hubDiameter: { ...hub, value: 44 } }), false);
  assert.equal(
    sameEffective({ hubDiameter: hub }, { hubDiameter: { ...hub, bound: "min" } }),
    false,
  );
  assert.equal(
    sameEffective({ hubDiameter: hub }, { hubDiameter: { ...hub, by: ["teeth"] } }),
    false,
  );
  assert.equal(sameEffective({ hubDiameter: hub }, { boreDiameter: hub }), false);
});

Deno.test("effective value text - keptEffective keeps the report a form has while the next one says the same", () => {
  const kept = {};
  assert.equal(keptEffective(kept, {}), kept);
  assert.equal(keptEffective(undefined, undefined), undefined);
  const next = { hubDiameter: { requested: 60, value: 45, bound: "max" as const, by: ["teeth"] } };
  assert.equal(keptEffective(kept, next), next);
  assert.equal(keptEffective(next, undefined), undefined);
});
