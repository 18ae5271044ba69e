/**
 * The demo on an empty store: a partner, the example projects (published from
 * `examples/projects/<slug>/`), and a key whose allowed origins are the server's own, so
 * `deno task start` shows working mints and renders at once. Idempotent: the ids are remembered
 * at `["demo"]`; later starts publish examples that are new or changed and widen the key's
 * origins and projects if needed. The demo key's secret is never kept or printed.
 */
import { normalizeAllowedOrigin } from "../http/origin.ts";
import { createPartner } from "../store/partners.ts";
import { createProject, getProject } from "../store/projects.ts";
import { getProjectVersionMeta } from "../store/project_versions.ts";
import { getSdkKey, updateSdkKey } from "../store/sdk_keys.ts";
import { readProjectDir } from "./project_dir.ts";
import { type ProjectDocuments, publishProject, versionEtag } from "./publish.ts";
import { createSdkKey } from "./sdk_keys.ts";

/** What the demo seed created or found. */
export interface DemoSeed {
  partnerId: string;
  /** The first template-mode example project (used by the demo page's curl line). */
  projectSlug: string;
  /** Every example project the demo key may mint for. */
  projects: string[];
  keyId: string;
  created: boolean;
}

/** Where the example projects live. */
export const EXAMPLES_DIR = new URL("../../examples/projects/", import.meta.url);

/** The origins a local demo is reached from. */
export function demoOrigins(publicUrl: string, port: number): string[] {
  const origins = new Set<string>();
  for (const o of [publicUrl, `http://localhost:${port}`, `http://127.0.0.1:${port}`]) {
    try {
      origins.add(normalizeAllowedOrigin(o));
    } catch {
      // e.g. PUBLIC_URL defaulted from PORT=0 before the real port was known
    }
  }
  return [...origins];
}

/** The example projects on disk: slug, title (from the schema) and their documents. */
export async function readExamples(dir: URL = EXAMPLES_DIR) {
  const out: Array<
    { slug: string; title: string; template: unknown; schema: unknown; docs: ProjectDocuments }
  > = [];
  let entries: Deno.DirEntry[] = [];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  for (
    const e of entries.filter((e) => e.isDirectory).sort((a, b) => a.name.localeCompare(b.name))
  ) {
    // Template examples, and python-mode ones (design.py without a template).
    const docs = await readProjectDir(new URL(e.name, dir));
    const schema = docs.schema as { title?: unknown } | null;
    const title = typeof schema?.title === "string" ? schema.title : e.name;
    out.push({ slug: e.name, title, template: docs.template ?? null, schema: docs.schema, docs });
  }
  return out;
}

/** Creates (or brings up to date) the demo partner, example projects and key. */
export async function seedDemo(
  kv: Deno.Kv,
  origins: string[],
  dir: URL = EXAMPLES_DIR,
): Promise<DemoSeed> {
  const remembered = (await kv.get<{ partnerId: string; keyId: string }>(["demo"])).value;
  const known = remembered && await getSdkKey(kv, remembered.keyId) ? remembered : null;
  const partnerId = known?.partnerId ?? (await createPartner(kv, "Demo Partner")).id;
  const examples = await readExamples(dir);
  const projects: string[] = [];
  // The demo page's project renders without the Python runtime: the first template example.
  const templateProjects: string[] = [];
  for (const ex of examples) {
    const existing = await getProject(kv, ex.slug);
    if (existing && existing.partnerId !== partnerId) continue; // someone else's slug
    if (!existing) await createProject(kv, { partnerId, slug: ex.slug, title: ex.title });
    const current = await getProjectVersionMeta(kv, ex.slug);
    const etag = await versionEtag(ex.docs);
    if (!current || current.etag !== etag) await publishProject(kv, ex.slug, ex.docs);
    projects.push(ex.slug);
    if (ex.docs.mode !== "python") templateProjects.push(ex.slug);
  }
  if (projects.length === 0) throw new Error(`no example projects found in ${dir.pathname}`);
  // Template projects first: pages that take the key's first project render without Python.
  projects.sort((a, b) =>
    Number(!templateProjects.includes(a)) - Number(!templateProjects.includes(b))
  );
  if (known) {
    await updateSdkKey(kv, known.keyId, (r) => {
      const o = origins.filter((x) => !r.allowedOrigins.includes(x));
      const p = projects.filter((x) => !r.allowedProjects.includes(x));
      return o.length || p.length
        ? {
          ...r,
          allowedOrigins: [...r.allowedOrigins, ...o],
          allowedProjects: [...r.allowedProjects, ...p],
        }
        : r;
    });
    return {
      partnerId,
      projectSlug: templateProjects[0] ?? projects[0],
      projects,
      keyId: known.keyId,
      created: false,
    };
  }
  const { record } = await createSdkKey(kv, {
    partnerId,
    label: "Demo key",
    allowedOrigins: origins,
    allowedProjects: projects,
    budget: null,
  });
  await kv.set(["demo"], { partnerId, keyId: record.keyId });
  return {
    partnerId,
    projectSlug: templateProjects[0] ?? projects[0],
    projects,
    keyId: record.keyId,
    created: true,
  };
}

/** The remembered demo ids, or null when no demo was seeded. */
export async function getDemo(kv: Deno.Kv): Promise<{ partnerId: string; keyId: string } | null> {
  return (await kv.get<{ partnerId: string; keyId: string }>(["demo"])).value;
}
