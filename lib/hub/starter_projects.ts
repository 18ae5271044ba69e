/**
 * The starter gallery of the settings' projects page: every example in `examples/projects/` can
 * become a project of the partner in one click, created under the example's slug (or the first
 * free variant, `spur-gear-2`, when the partner has that slug already) and published from the
 * example's files exactly as `deno task hub project publish` would (./publish.ts).
 */
import { AppError } from "../http/problem.ts";
import { createProject, type Project } from "../store/projects.ts";
import type { ProjectMode, ProjectVersionMeta } from "../store/project_versions.ts";
import { EXAMPLES_DIR, readExamples } from "./demo_seed.ts";
import { freeSlug } from "./project_slug.ts";
import { publishProject } from "./publish.ts";

/** One example as the gallery shows it. */
export interface Starter {
  /** The example's folder name, which is also the slug it is created under when free. */
  name: string;
  title: string;
  description: string;
  mode: ProjectMode;
  /** How many parameters its schema declares. */
  parameters: number;
}

/** The examples on disk, in folder order. */
export async function listStarters(dir: URL = EXAMPLES_DIR): Promise<Starter[]> {
  return (await readExamples(dir)).map((ex) => {
    const schema = ex.schema as { description?: unknown; properties?: unknown } | null;
    const properties = schema?.properties;
    return {
      name: ex.slug,
      title: ex.title,
      description: typeof schema?.description === "string" ? schema.description : "",
      mode: ex.docs.mode ?? "template",
      parameters: typeof properties === "object" && properties !== null
        ? Object.keys(properties).length
        : 0,
    };
  });
}

/**
 * Creates the partner's project from example `name` and publishes the example as its first
 * version. Throws `validation_failed` for a name that is no example.
 *
 * @example
 * ```ts
 * const { project } = await publishStarter(kv, { partnerId, name: "spur-gear" });
 * project.slug; // "spur-gear", or "spur-gear-2" when the partner had one
 * ```
 */
export async function publishStarter(
  kv: Deno.Kv,
  input: { partnerId: string; name: string },
  options: { now?: number; dir?: URL } = {},
): Promise<{ project: Project; version: ProjectVersionMeta }> {
  // Matched against the folder listing: the name never becomes a path by itself.
  const example = (await readExamples(options.dir ?? EXAMPLES_DIR))
    .find((ex) => ex.slug === input.name);
  if (!example) throw new AppError("validation_failed", `No starter is called "${input.name}".`);
  let project: Project | undefined;
  // Two clicks at once may pick the same free slug; the loser takes the next one.
  for (let attempt = 0; !project; attempt++) {
    const slug = await freeSlug(kv, input.partnerId, example.slug);
    try {
      project = await createProject(
        kv,
        { partnerId: input.partnerId, slug, title: example.title },
        options.now,
      );
    } catch (err) {
      if ((err as AppError).code !== "project_exists" || attempt >= 4) throw err;
    }
  }
  const version = await publishProject(kv, project.slug, example.docs, {
    partnerId: input.partnerId,
    now: options.now,
  });
  return { project: { ...project, currentVersion: version.version }, version };
}
