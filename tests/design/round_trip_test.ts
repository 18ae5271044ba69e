/**
 * Round trip: for every template-mode example and several parameter sets, substituting the values
 * into the emitted template (TypeScript, lib/dag/substitute.ts) gives the same canonical DAG
 * hash as running the Python design with those concrete values (`python3 -m cadparam run`).
 */
import assert from "node:assert/strict";
import { dagHash } from "@/lib/dag/canonical_dag.ts";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { validateDag } from "@/lib/kernel/dag_validate.ts";
import { type ParameterSchema, validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { substitute } from "@/lib/dag/substitute.ts";
import { cadparam, exampleSlugs, PROJECTS } from "./_python.ts";

type Values = Record<string, number | boolean | string>;

/** Every number at its minimum (or maximum), the other kinds at their defaults. */
function extreme(schema: ParameterSchema, end: "minimum" | "maximum"): Values {
  return Object.fromEntries(
    schema.parameters.filter((p) => p[end] !== undefined).map((p) => [p.name, p[end]!]),
  );
}

/** Numbers alternate between their ends and a step-valid middle; flags flip; last choice. */
function mixed(schema: ParameterSchema): Values {
  return Object.fromEntries(schema.parameters.map((p, i): [string, number | boolean | string] => {
    switch (p.kind) {
      case "Int":
      case "Float": {
        if (i % 3 === 0) return [p.name, p.minimum!];
        if (i % 3 === 1) return [p.name, p.maximum!];
        const step = p.step ?? (p.kind === "Int" ? 1 : (p.maximum! - p.minimum!) / 7);
        const k = Math.floor((p.maximum! - p.minimum!) / step / 3);
        return [p.name, p.minimum! + k * step];
      }
      case "Bool":
        return [p.name, !p.default];
      case "Enum":
        return [p.name, p.enum![p.enum!.length - 1]];
      case "Color":
        return [p.name, p.swatches?.at(-1) ?? "#123456"];
      case "String":
        return [p.name, [...(p.default as string)].reverse().join("")];
    }
  }));
}

async function pythonRun(slug: string, values: Values): Promise<Dag> {
  const design = new URL(`${slug}/design.py`, PROJECTS).pathname;
  return validateDag(
    JSON.parse(await cadparam(["run", design, "--values", JSON.stringify(values)])),
  );
}

for (const slug of await exampleSlugs()) {
  const folder = new URL(`${slug}/`, PROJECTS);
  const mode = JSON.parse(await cadparam(["mode", new URL("design.py", folder).pathname]));
  if (mode !== "template") continue;

  Deno.test(`design - ${slug}: substituting into the template hashes like running the Python design`, async (t) => {
    const template = validateDag(
      JSON.parse(await Deno.readTextFile(new URL("template.dag.json", folder))),
    );
    const schema = validateParameterSchema(
      JSON.parse(await Deno.readTextFile(new URL("parameters.schema.json", folder))),
    );
    const sets: [string, Values][] = [
      ["defaults", {}],
      ["minimums", extreme(schema, "minimum")],
      ["maximums", extreme(schema, "maximum")],
      ["mixed", mixed(schema)],
    ];
    const hashes = new Set<string>();
    for (const [label, values] of sets) {
      await t.step(label, async () => {
        const substituted = await dagHash(substitute(template, schema, values));
        const ran = await dagHash(await pythonRun(slug, values));
        assert.equal(ran, substituted, `${slug} ${label}: ${JSON.stringify(values)}`);
        hashes.add(ran);
      });
    }
    // The sets differ, so their hashes must too: the comparison is not vacuous.
    assert.equal(hashes.size, sets.length);
  });
}
