/**
 * The demo on an empty store: a partner, the example projects (published from
 * `examples/projects/<slug>/`), and a key whose allowed origins are the server's own and the demo
 * storefront's (`examples/storefront/serve.ts`), so `deno task start` shows working mints and
 * renders at once. The demo key's secret is never kept or printed.
 *
 * Later starts bring an older store up to date without undoing what the partner changed: what the
 * seed did is remembered at `["demo"]` (partner, key, the origins and projects it put on the key,
 * the version of each example it published). An origin or project the seed never offered is added;
 * one it offered and the partner removed stays removed; a changed example is published again only
 * while the project's current version is the seed's own (a version the partner published stays
 * current). A revoked demo key stays revoked. Two processes starting at once on one store seed
 * one at a time: a lease at `["demo", "seed_lease"]`, taken with an atomic check, lets one seed
 * while the other waits and then finds everything done.
 */
import { normalizeAllowedOrigin } from "../http/origin.ts";
import { createPartner, getPartner } from "../store/partners.ts";
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
  /** Every example project the demo partner owns (template projects first). */
  projects: string[];
  keyId: string;
  created: boolean;
}

/** What the seed remembers at `["demo"]` (stores seeded before this version hold only the ids). */
export interface DemoRecord {
  partnerId: string;
  /** Absent only while the first seed is under way. */
  keyId?: string;
  /** The origins and projects the seed has put on the demo key. */
  offered?: { origins: string[]; projects: string[] };
  /** Example slug → the etag of the version the seed last published. */
  published?: Record<string, string>;
}

/** Where the example projects live. */
export const EXAMPLES_DIR = new URL("../../examples/projects/", import.meta.url);

/** The demo storefront's default port (`examples/storefront/serve.ts`). */
export const DEMO_STOREFRONT_PORT = 8100;

const RECORD_KEY = ["demo"];
const LEASE_KEY = ["demo", "seed_lease"];
/** How long a seed may hold the lease before another process may take it over (a crashed one). */
const LEASE_MS = 30_000;

/**
 * The origins a local demo is reached from: the public URL, localhost and 127.0.0.1 on `port`,
 * and the demo storefront's default origins.
 */
export function demoOrigins(publicUrl: string, port: number): string[] {
  const origins = new Set<string>();
  for (
    const o of [
      publicUrl,
      `http://localhost:${port}`,
      `http://127.0.0.1:${port}`,
      ...demoStorefrontOrigins(),
    ]
  ) {
    try {
      origins.add(normalizeAllowedOrigin(o));
    } catch {
      // e.g. PUBLIC_URL defaulted from PORT=0 before the real port was known
    }
  }
  return [...origins];
}

/** The demo storefront's origins on its default port (127.0.0.1 is the one it prints). */
export function demoStorefrontOrigins(port = DEMO_STOREFRONT_PORT): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
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
  return await withSeedLease(kv, () => seedUnderLease(kv, origins, dir));
}

async function seedUnderLease(kv: Deno.Kv, origins: string[], dir: URL): Promise<DemoSeed> {
  const before = (await kv.get<DemoRecord>(RECORD_KEY)).value;
  const record: DemoRecord = before && await getPartner(kv, before.partnerId)
    ? { ...before }
    : { partnerId: (await createPartner(kv, "Demo Partner")).id };
  if (record.partnerId !== before?.partnerId) await kv.set(RECORD_KEY, record);
  const { partnerId } = record;
  const examples = await readExamples(dir);
  const published = { ...record.published };
  const projects: string[] = [];
  // The demo page's project renders without the Python runtime: the first template example.
  const templateProjects: string[] = [];
  for (const ex of examples) {
    const ref = { partnerId, slug: ex.slug };
    if (!await getProject(kv, ref)) await createProject(kv, { ...ref, title: ex.title });
    const current = await getProjectVersionMeta(kv, ref);
    const etag = await versionEtag(ex.docs);
    const publish = async () => (await publishProject(kv, ex.slug, ex.docs, { partnerId })).etag;
    if (!current) published[ex.slug] = await publish();
    else if (current.etag === etag) published[ex.slug] = etag;
    else if (published[ex.slug] === current.etag) {
      // The example changed and the current version is still the seed's own: publish the change.
      published[ex.slug] = await publish();
    } // else: the partner published their own version of it; it stays current.
    projects.push(ex.slug);
    if (ex.docs.mode !== "python") templateProjects.push(ex.slug);
  }
  if (projects.length === 0) throw new Error(`no example projects found in ${dir.pathname}`);
  // Template projects first: pages that take the key's first project render without Python.
  projects.sort((a, b) =>
    Number(!templateProjects.includes(a)) - Number(!templateProjects.includes(b))
  );
  const offered = record.offered ?? { origins: [], projects: [] };
  const newOrigins = origins.filter((o) => !offered.origins.includes(o));
  const newProjects = projects.filter((p) => !offered.projects.includes(p));
  const known = record.keyId ? await getSdkKey(kv, record.keyId) : null;
  let keyId: string;
  if (known) {
    keyId = known.keyId;
    await updateSdkKey(kv, keyId, (r) => {
      const o = newOrigins.filter((x) => !r.allowedOrigins.includes(x));
      const p = newProjects.filter((x) => !r.allowedProjects.includes(x));
      return o.length || p.length
        ? {
          ...r,
          allowedOrigins: [...r.allowedOrigins, ...o],
          allowedProjects: [...r.allowedProjects, ...p],
        }
        : r;
    });
  } else {
    keyId = (await createSdkKey(kv, {
      partnerId,
      label: "Demo key",
      allowedOrigins: origins,
      allowedProjects: projects,
      budget: null,
    })).record.keyId;
  }
  await kv.set(
    RECORD_KEY,
    {
      partnerId,
      keyId,
      offered: {
        origins: [...new Set([...offered.origins, ...origins])],
        projects: [...new Set([...offered.projects, ...projects])],
      },
      published,
    } satisfies DemoRecord,
  );
  return {
    partnerId,
    projectSlug: templateProjects[0] ?? projects[0],
    projects,
    keyId,
    created: !known,
  };
}

/**
 * Runs `seed` holding the store's seed lease: one process at a time, the others wait for it. A
 * lease older than `LEASE_MS` (its holder died mid-seed) is taken over.
 */
async function withSeedLease<T>(kv: Deno.Kv, seed: () => Promise<T>): Promise<T> {
  const owner = crypto.randomUUID();
  const giveUp = Date.now() + 3 * LEASE_MS;
  for (;;) {
    const lease = await kv.get<{ owner: string; until: number }>(LEASE_KEY);
    if (!lease.value || lease.value.until < Date.now()) {
      const taken = await kv.atomic().check(lease)
        .set(LEASE_KEY, { owner, until: Date.now() + LEASE_MS }).commit();
      if (taken.ok) break;
    }
    if (Date.now() > giveUp) throw new Error("another process holds the demo seed lease");
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    return await seed();
  } finally {
    const lease = await kv.get<{ owner: string }>(LEASE_KEY);
    if (lease.value?.owner === owner) await kv.atomic().check(lease).delete(LEASE_KEY).commit();
  }
}

/** The remembered demo ids, or null when no demo was seeded. */
export async function getDemo(kv: Deno.Kv): Promise<{ partnerId: string; keyId: string } | null> {
  const record = (await kv.get<DemoRecord>(RECORD_KEY)).value;
  return record?.keyId ? { partnerId: record.partnerId, keyId: record.keyId } : null;
}
