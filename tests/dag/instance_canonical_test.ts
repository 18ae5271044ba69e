import assert from "node:assert/strict";
import { canonicalDagJson, dagHash } from "../../lib/dag/canonical_dag.ts";
import { DagError } from "../../lib/dag/dag_errors.ts";
import type { Dag } from "../../lib/dag/dag_types.ts";
import { validateDag } from "../../lib/kernel/dag_validate.ts";
import { instanceCanonicalJson } from "../../lib/dag/instance_canonical.ts";
import {
  type ParameterDescriptor,
  type ParameterSchema,
  validateParameterSchema,
} from "../../lib/dag/parameter_schema.ts";
import { substitute } from "../../lib/dag/substitute.ts";
import { checkInstance, templateHash } from "../../lib/kernel/template_instance.ts";

type Json = Record<string, unknown>;

interface Project {
  name: string;
  template: Dag;
  schema: ParameterSchema;
  hash: string;
}

const examples = new URL("../../examples/projects/", import.meta.url);
const fixtures = new URL("../fixtures/dags/", import.meta.url);
const readJson = async (url: URL) => JSON.parse(await Deno.readTextFile(url));

async function project(name: string, template: URL, schema: URL): Promise<Project> {
  const dag = validateDag(await readJson(template));
  return {
    name,
    template: dag,
    schema: validateParameterSchema(await readJson(schema)),
    hash: await templateHash(dag),
  };
}

const projects: Project[] = [];
for await (const entry of Deno.readDir(examples)) {
  if (!entry.isDirectory) continue;
  const dir = new URL(`${entry.name}/`, examples);
  // A python-mode project (the shelf) has no template.
  const files = await Array.fromAsync(Deno.readDir(dir), (file) => file.name);
  if (!files.includes("template.dag.json")) continue;
  projects.push(
    await project(
      entry.name,
      new URL("template.dag.json", dir),
      new URL("parameters.schema.json", dir),
    ),
  );
}
for (const name of ["bracket", "box_with_lid", "flange", "docs_example"]) {
  projects.push(
    await project(
      name,
      new URL(`${name}.dag.json`, fixtures),
      new URL(`${name}.parameters.json`, fixtures),
    ),
  );
}

/** A deterministic pseudo-random source, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function randomValue(param: ParameterDescriptor, next: () => number): unknown {
  switch (param.kind) {
    case "Bool":
      return next() < 0.5;
    case "Enum":
      return param.enum![Math.floor(next() * param.enum!.length)];
    case "Color":
      return "#" + Math.floor(next() * 0xffffff).toString(16).padStart(6, "0");
    case "String": {
      const chars = [...(param.default as string)];
      const length = 1 + Math.floor(next() * Math.min(param.maxLength!, 8));
      return Array.from({ length }, () => chars[Math.floor(next() * chars.length)]).join("");
    }
    default: {
      const min = param.minimum ?? -1000;
      const max = param.maximum ?? 1000;
      const step = param.step ?? (param.kind === "Int" ? 1 : 0);
      if (step === 0) return min + next() * (max - min);
      return min + Math.floor(next() * (Math.floor((max - min) / step) + 1)) * step;
    }
  }
}

function randomInstance(p: Project, next: () => number): Dag {
  const values = Object.fromEntries(
    p.schema.parameters.map((param) => [param.name, randomValue(param, next)]),
  );
  return substitute(p.template, p.schema, values);
}

/** The same JSON with nodes and every node's members in reverse order. */
function reversed(dag: Dag): Dag {
  const nodes = Object.fromEntries(
    Object.entries(dag.nodes).reverse().map((
      [id, node],
    ) => [id, Object.fromEntries(Object.entries(node).reverse())]),
  );
  return { output: dag.output, nodes, dag: dag.dag } as Dag;
}

Deno.test("kernel - an instance's canonical JSON from the template skeleton is canonicalDagJson's", async () => {
  assert.ok(projects.length >= 9, `projects: ${projects.map((p) => p.name)}`);
  const next = random(20261123);
  for (const p of projects) {
    for (let i = 0; i < 25; i++) {
      const dag = randomInstance(p, next);
      const expected = canonicalDagJson(dag);
      assert.equal(instanceCanonicalJson(p.template, dag), expected, p.name);
      const shuffled = reversed(dag);
      assert.equal(instanceCanonicalJson(p.template, shuffled), expected, `${p.name} reversed`);
      const checked = await checkInstance(shuffled, p.template, p.hash, p.schema);
      assert.equal(checked.dag, shuffled);
      assert.equal(checked.dagHash, await dagHash(dag), p.name);
    }
  }
});

Deno.test("kernel - a template that carries values has the same skeleton as its shape", () => {
  const p = projects.find((x) => x.name === "spur-gear")!;
  const withValues = substitute(p.template, p.schema, {});
  const dag = randomInstance(p, random(7));
  assert.equal(instanceCanonicalJson(withValues, dag), canonicalDagJson(dag));
});

/** What `validateDag` refuses `dag` with, or undefined. */
function validateDagRefusal(dag: unknown): DagError | undefined {
  try {
    validateDag(structuredClone(dag));
    return undefined;
  } catch (err) {
    assert.ok(err instanceof DagError);
    return err;
  }
}

Deno.test("kernel - an instance with bad values is refused exactly as validateDag refuses it", async () => {
  const bad: unknown[] = [
    1e7,
    -1e7,
    "x".repeat(100_000),
    null,
    [],
    [1],
    {},
    { ref: "out" },
    true,
    "1",
    12,
  ];
  let compared = 0;
  for (const p of projects) {
    const slots = Object.entries(p.template.nodes)
      .filter(([, node]) => node.op === "ParameterInput")
      .map(([id]) => id);
    for (const value of bad) {
      for (const [first, second] of [[0, slots.length - 1], [slots.length - 1, 0]]) {
        // Two slots with bad values: the first in document order is the one reported.
        const dag = substitute(p.template, p.schema, {}) as unknown as {
          nodes: Record<string, Json>;
        };
        dag.nodes[slots[first]].value = value;
        dag.nodes[slots[second]].value = typeof value === "number" ? "wrong type" : 1e9;
        const expected = validateDagRefusal(dag);
        if (!expected) continue;
        await assert.rejects(() => checkInstance(dag, p.template, p.hash, p.schema), (err) => {
          assert.ok(err instanceof DagError);
          assert.deepEqual(
            [err.code, err.reason, err.pointer, err.message],
            [expected.code, expected.reason, expected.pointer, expected.message],
            `${p.name}: ${JSON.stringify(value)?.slice(0, 40)}`,
          );
          return true;
        });
        compared++;
      }
    }
  }
  assert.ok(compared >= projects.length * 8, `compared ${compared}`);
});

Deno.test("kernel - a DAG that is not the template's shape is still validated whole first", async () => {
  const p = projects.find((x) => x.name === "spur-gear")!;
  const dag = JSON.parse(JSON.stringify(substitute(p.template, p.schema, {})));
  // A cycle in an extra node: validateDag's reason, not not_an_instance.
  dag.nodes.loop = { op: "translate", child: { ref: "loop" }, offset: [0, 0, 0] };
  const expected = validateDagRefusal(dag)!;
  assert.equal(expected.reason, "cycle");
  await assert.rejects(() => checkInstance(dag, p.template, p.hash, p.schema), {
    reason: "cycle",
  });
});
