/**
 * Moving projects stored before slugs were scoped per partner to their partner's keys. The old
 * layout was global: `["projects", slug]` (the record, which names its partner),
 * `["projects_by_partner", partnerId, slug]`, `["project_versions", slug, v]` and
 * `["project_version_chunks", slug, v, i]`. Every process runs this at start, before it serves
 * (lib/app/server.ts), and only the new layout is read afterwards.
 *
 * Idempotent and safe with several processes starting on one store at once: each step either
 * copies identical bytes or is an atomic operation guarded by a check, in an order where a crash
 * or a concurrent migrator at any point leaves something the next run completes:
 *
 * 1. each version: its chunks are copied, then its metadata is set with a check that it is absent
 *    (whoever sets it first wins; the others' chunk copies wrote the same bytes);
 * 2. the old versions and chunks are deleted once their copies exist;
 * 3. one atomic operation sets the new record and its slug index and deletes the old record and
 *    its index, checked against the old record as read and against an absent new record.
 *
 * Nothing is lost: an old record whose partner already has a project of that slug under the new
 * layout (only possible if an old binary wrote after a migration) is left where it is, reported.
 */
import { type Project, projectKey, projectOwnerKey } from "./projects.ts";
import { projectChunkKey, projectVersionKey, type ProjectVersionMeta } from "./project_versions.ts";

/** What one migration run did. */
export interface ProjectScopeMigration {
  /** Old records moved to the new layout by this run. */
  moved: string[];
  /** Old records left in place because the new layout already has that partner's slug. */
  conflicts: string[];
}

/**
 * Moves every project of the old global layout to its partner's keys.
 *
 * @example
 * ```ts
 * const { moved } = await migrateGlobalProjects(kv);
 * ```
 */
export async function migrateGlobalProjects(kv: Deno.Kv): Promise<ProjectScopeMigration> {
  const result: ProjectScopeMigration = { moved: [], conflicts: [] };
  const slugs: string[] = [];
  for await (const e of kv.list<Project>({ prefix: ["projects"] })) {
    if (e.key.length === 2 && typeof e.key[1] === "string") slugs.push(e.key[1]);
  }
  for (const slug of slugs) {
    const outcome = await migrateOne(kv, slug);
    if (outcome === "moved") result.moved.push(slug);
    if (outcome === "conflict") result.conflicts.push(slug);
  }
  return result;
}

async function migrateOne(kv: Deno.Kv, slug: string): Promise<"moved" | "gone" | "conflict"> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const old = await kv.get<Project>(["projects", slug]);
    if (old.value === null) return "gone"; // another process moved it
    const ref = { partnerId: old.value.partnerId, slug };
    // Both records from one snapshot: read apart, another process's move between the two reads
    // would look like a conflict (the old record there and the new one too).
    const [again, current] = await kv.getMany<[Project, Project]>([
      ["projects", slug],
      projectKey(ref),
    ]);
    if (again.versionstamp !== old.versionstamp) continue; // moved or changed meanwhile: look again
    if (current.value !== null) return "conflict";
    await copyVersions(kv, ref);
    const res = await kv.atomic()
      .check(old)
      .check(current)
      .set(projectKey(ref), { ...old.value, slug, partnerId: ref.partnerId })
      .set(projectOwnerKey(ref), ref.partnerId)
      .delete(["projects", slug])
      .delete(["projects_by_partner", ref.partnerId, slug])
      .commit();
    if (res.ok) return "moved";
    // The old record changed (an old binary published) or another process moved it: look again.
  }
  throw new Error(`too much contention migrating project ${slug}`);
}

/** Steps 1 and 2 for every old version of `slug`. */
async function copyVersions(kv: Deno.Kv, ref: { partnerId: string; slug: string }) {
  const old: ProjectVersionMeta[] = [];
  for await (const e of kv.list<ProjectVersionMeta>({ prefix: ["project_versions", ref.slug] })) {
    old.push(e.value);
  }
  for (const meta of old) {
    const target = projectVersionKey(ref, meta.version);
    if ((await kv.get(target)).versionstamp === null) {
      const chunks: string[] = [];
      for await (
        const c of kv.list<string>({ prefix: ["project_version_chunks", ref.slug, meta.version] })
      ) chunks.push(c.value);
      if (chunks.length !== meta.chunks) {
        // Another migrator deleted them while this one read: it copied them first.
        if ((await kv.get(target)).versionstamp !== null) continue;
        throw new Error(
          `project ${ref.slug} version ${meta.version}: ${chunks.length} of ${meta.chunks} chunks`,
        );
      }
      for (let i = 0; i < chunks.length; i++) {
        await kv.set(projectChunkKey(ref, meta.version, i), chunks[i]);
      }
      await kv.atomic()
        .check({ key: target, versionstamp: null })
        .set(target, { ...meta, partnerId: ref.partnerId })
        .commit();
    }
    const del = kv.atomic().delete(["project_versions", ref.slug, meta.version]);
    for (let i = 0; i < meta.chunks; i++) {
      del.delete(["project_version_chunks", ref.slug, meta.version, i]);
    }
    await del.commit();
  }
}
