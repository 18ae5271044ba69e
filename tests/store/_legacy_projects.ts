/**
 * Writing projects in the layout stores had before slugs were scoped per partner (up to commit
 * c034cac, lib/store/projects.ts and project_versions.ts): `["projects", slug]`,
 * `["projects_by_partner", partnerId, slug]`, `["project_versions", slug, v]` (metadata without a
 * partner) and `["project_version_chunks", slug, v, i]` (the documents' JSON in 60,000-character
 * chunks), each version written with its chunks and the record's new `currentVersion` in one
 * atomic operation, as the old `publishProjectVersion` did.
 */
import { canonicalJson, sha256Hex } from "@/lib/dag/canonical_dag.ts";
import { validateDag } from "@/lib/kernel/dag_validate.ts";
import { templateHash, templateShape } from "@/lib/kernel/template_instance.ts";

/** One version's documents, as published. */
export interface LegacyDocs {
  template: unknown;
  schema: unknown;
}

/** Creates the old global record of `slug` for `partnerId`. */
export async function writeLegacyProject(
  kv: Deno.Kv,
  input: { partnerId: string; slug: string; title: string },
  now = Date.now(),
): Promise<void> {
  const project = {
    slug: input.slug,
    partnerId: input.partnerId,
    title: input.title,
    createdAt: now,
  };
  const res = await kv.atomic()
    .check({ key: ["projects", input.slug], versionstamp: null })
    .set(["projects", input.slug], project)
    .set(["projects_by_partner", input.partnerId, input.slug], input.slug)
    .commit();
  if (!res.ok) throw new Error(`legacy slug ${input.slug} taken`);
}

/** Publishes a version of `slug` the old way; returns its number. */
export async function writeLegacyVersion(
  kv: Deno.Kv,
  slug: string,
  docs: LegacyDocs,
  now = Date.now(),
): Promise<number> {
  // The old publish stored the validated template's shape (slots without values), as now.
  const template = templateShape(validateDag(docs.template));
  const body = JSON.stringify({ template, schema: docs.schema });
  const parts: string[] = [];
  for (let i = 0; i < body.length; i += 60_000) parts.push(body.slice(i, i + 60_000));
  const entry = await kv.get<{ currentVersion?: number }>(["projects", slug]);
  if (!entry.value) throw new Error(`no legacy project ${slug}`);
  const version = (entry.value.currentVersion ?? 0) + 1;
  const meta = {
    slug,
    version,
    mode: "template",
    templateHash: await templateHash(template),
    etag: await sha256Hex(canonicalJson({ template, schema: docs.schema })),
    createdAt: now,
    chunks: parts.length,
  };
  const op = kv.atomic()
    .check(entry)
    .set(["projects", slug], { ...entry.value, currentVersion: version })
    .set(["project_versions", slug, version], meta);
  parts.forEach((p, i) => op.set(["project_version_chunks", slug, version, i], p));
  if (!(await op.commit()).ok) throw new Error(`legacy publish of ${slug} raced`);
  return version;
}

/** Every key of the old layout still in `kv`. */
export async function legacyKeys(kv: Deno.Kv): Promise<Deno.KvKey[]> {
  const out: Deno.KvKey[] = [];
  for (
    const prefix of [
      "projects",
      "projects_by_partner",
      "project_versions",
      "project_version_chunks",
    ]
  ) {
    for await (const e of kv.list({ prefix: [prefix] })) out.push(e.key);
  }
  return out;
}
