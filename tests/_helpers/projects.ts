/** Publishing test projects and building finished DAGs for render tests. */
import { publishProject } from "@/lib/hub/publish.ts";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { substitute } from "@/lib/dag/substitute.ts";
import { createProject } from "@/lib/store/projects.ts";

const FIXTURES = new URL("../fixtures/projects/", import.meta.url);

/** The template and schema of a fixture project folder. */
export async function readProjectFixture(
  name: string,
): Promise<{ template: Dag; schema: unknown }> {
  const dir = new URL(`${name}/`, FIXTURES);
  return {
    template: JSON.parse(await Deno.readTextFile(new URL("template.dag.json", dir))),
    schema: JSON.parse(await Deno.readTextFile(new URL("parameters.schema.json", dir))),
  };
}

/** Creates project `slug` for `partnerId` and publishes fixture `name` as its first version. */
export async function publishFixture(kv: Deno.Kv, partnerId: string, slug: string, name = "plate") {
  const docs = await readProjectFixture(name);
  await createProject(kv, { partnerId, slug, title: `Fixture ${name}` }).catch((err) => {
    if (err?.code !== "project_exists") throw err;
  });
  return await publishProject(kv, slug, docs, { partnerId });
}

/** The fixture's template with `values` substituted (defaults for the rest). */
export async function finishedDag(
  name: string,
  values: Record<string, unknown> = {},
): Promise<Dag> {
  const { template, schema } = await readProjectFixture(name);
  return substitute(template, validateParameterSchema(schema), values);
}
