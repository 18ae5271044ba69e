/**
 * Project records in Deno KV. A slug is unique within its partner, not globally: two partners may
 * both have `spur-gear`. The record lives at `["partner_projects", partnerId, slug]`; the index
 * `["project_owners", slug, partnerId]` answers "which partners have this slug" for the one read
 * that names a slug alone (the public project read without a key, docs/api.md). Stores written
 * before slugs were scoped are moved here at start (./project_scope_migration.ts).
 */
import { AppError } from "../http/problem.ts";

/** A configurable product a partner sells. */
export interface Project {
  slug: string;
  partnerId: string;
  title: string;
  createdAt: number;
  /** The published version served by default; absent until the first publish. */
  currentVersion?: number;
}

/** What names one project: its partner and its slug (a `Project` is one). */
export interface ProjectRef {
  partnerId: string;
  slug: string;
}

/** Slugs: lowercase letters, digits and single hyphens, 2 to 64 characters. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){1,63}$/;

/** The KV key of a project record. */
export function projectKey(ref: ProjectRef): Deno.KvKey {
  return ["partner_projects", ref.partnerId, ref.slug];
}

/** The KV key of the slug → partner index entry of a project. */
export function projectOwnerKey(ref: ProjectRef): Deno.KvKey {
  return ["project_owners", ref.slug, ref.partnerId];
}

/** Creates a project; refuses a slug the partner already has with `project_exists`. */
export async function createProject(
  kv: Deno.Kv,
  input: { partnerId: string; slug: string; title: string },
  now = Date.now(),
): Promise<Project> {
  if (!SLUG_PATTERN.test(input.slug)) {
    throw new AppError(
      "validation_failed",
      `The slug "${input.slug}" must be 2-64 lowercase letters, digits and single hyphens.`,
    );
  }
  const title = input.title.trim();
  if (!title || title.length > 200) {
    throw new AppError("validation_failed", "A project title must be 1 to 200 characters.");
  }
  const project: Project = { slug: input.slug, partnerId: input.partnerId, title, createdAt: now };
  const res = await kv.atomic()
    .check({ key: projectKey(project), versionstamp: null })
    .set(projectKey(project), project)
    .set(projectOwnerKey(project), project.partnerId)
    .commit();
  if (!res.ok) {
    throw new AppError("project_exists", `You already have a project "${input.slug}".`);
  }
  return project;
}

/** The partner's project `slug`, or null. */
export async function getProject(kv: Deno.Kv, ref: ProjectRef): Promise<Project | null> {
  if (!ref.slug || !ref.partnerId) return null;
  return (await kv.get<Project>(projectKey(ref))).value;
}

/** A partner's projects, in slug order. */
export async function listPartnerProjects(kv: Deno.Kv, partnerId: string): Promise<Project[]> {
  const out: Project[] = [];
  for await (const e of kv.list<Project>({ prefix: ["partner_projects", partnerId] })) {
    out.push(e.value);
  }
  return out;
}

/** The slugs of a partner's projects. */
export async function listPartnerProjectSlugs(kv: Deno.Kv, partnerId: string): Promise<string[]> {
  return (await listPartnerProjects(kv, partnerId)).map((p) => p.slug);
}

/** Every partner's project named `slug` (usually one). */
export async function projectsWithSlug(kv: Deno.Kv, slug: string): Promise<Project[]> {
  const refs: Deno.KvKey[] = [];
  for await (const e of kv.list<string>({ prefix: ["project_owners", slug] })) {
    refs.push(projectKey({ partnerId: e.value, slug }));
  }
  const out: Project[] = [];
  // kv.getMany takes at most 10 keys per call.
  for (let i = 0; i < refs.length; i += 10) {
    for (const e of await kv.getMany<Project[]>(refs.slice(i, i + 10))) {
      if (e.value) out.push(e.value);
    }
  }
  return out;
}

/**
 * The one project named `slug` when the slug alone names it; `null` when none does; throws
 * `project_ambiguous` when several partners' projects match. With `published`, only projects
 * with a published version count (a partner's unpublished draft does not make another's public
 * project ambiguous).
 *
 * @example
 * ```ts
 * const project = await resolveSlug(kv, "spur-gear", { published: true });
 * ```
 */
export async function resolveSlug(
  kv: Deno.Kv,
  slug: string,
  options: { published?: boolean } = {},
): Promise<Project | null> {
  const found = (await projectsWithSlug(kv, slug))
    .filter((p) => !options.published || p.currentVersion !== undefined);
  if (found.length > 1) {
    throw new AppError(
      "project_ambiguous",
      `Several partners have a project "${slug}": name the partner (?key=<keyId> or ?partner=<partnerId>).`,
      { extensions: { slug } },
    );
  }
  return found[0] ?? null;
}
