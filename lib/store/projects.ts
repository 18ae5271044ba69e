/**
 * Project records in Deno KV. Slugs are global (they appear in public URLs), so the primary key
 * is `["projects", slug]` with a per-partner index `["projects_by_partner", partnerId, slug]`.
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

/** Slugs: lowercase letters, digits and single hyphens, 2 to 64 characters. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){1,63}$/;

/** Creates a project; refuses a taken slug with `project_exists`. */
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
    .check({ key: ["projects", project.slug], versionstamp: null })
    .set(["projects", project.slug], project)
    .set(["projects_by_partner", project.partnerId, project.slug], project.slug)
    .commit();
  if (!res.ok) throw new AppError("project_exists", `The slug "${input.slug}" is taken.`);
  return project;
}

/** The project with `slug`, or null. */
export async function getProject(kv: Deno.Kv, slug: string): Promise<Project | null> {
  return (await kv.get<Project>(["projects", slug])).value;
}

/** The slugs of a partner's projects. */
export async function listPartnerProjectSlugs(kv: Deno.Kv, partnerId: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of kv.list<string>({ prefix: ["projects_by_partner", partnerId] })) {
    out.push(e.value);
  }
  return out;
}
