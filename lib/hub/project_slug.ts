/**
 * Slugs made for a partner: from a project's title (the settings' "new project" form when the
 * slug field is left empty) and free variants of a wanted slug (`spur-gear`, `spur-gear-2`, …) for
 * a starter project whose slug the partner already has. Slugs are unique per partner only
 * (lib/store/projects.ts), so "free" means free in this partner's projects.
 */
import { AppError } from "../http/problem.ts";
import { getProject, SLUG_PATTERN } from "../store/projects.ts";

/** The longest slug (lib/store/projects.ts). */
const MAX_SLUG = 64;

/**
 * The slug a title suggests: ASCII letters and digits, lowercased, accents dropped, every other
 * run of characters one hyphen, cut to 64 characters; "" when nothing usable is left (the same
 * rule as the settings page's script, so what the field shows is what the server would choose).
 *
 * @example
 * ```ts
 * slugFromTitle("Spur gear — 20 teeth"); // "spur-gear-20-teeth"
 * slugFromTitle("Crème brûlée"); // "creme-brulee"
 * ```
 */
export function slugFromTitle(title: string): string {
  const slug = title.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, MAX_SLUG)
    .replace(/-+$/, "");
  return SLUG_PATTERN.test(slug) ? slug : "";
}

/**
 * `wanted`, or the first of `wanted-2`, `wanted-3`, … that `partnerId` has no project under.
 * Throws `validation_failed` when `wanted` is not a slug.
 *
 * @example
 * ```ts
 * await freeSlug(kv, partnerId, "spur-gear"); // "spur-gear-2" when "spur-gear" is taken
 * ```
 */
export async function freeSlug(kv: Deno.Kv, partnerId: string, wanted: string): Promise<string> {
  if (!SLUG_PATTERN.test(wanted)) {
    throw new AppError("validation_failed", `"${wanted}" is not a slug.`);
  }
  for (let n = 1; n <= 1000; n++) {
    const suffix = n === 1 ? "" : `-${n}`;
    const slug = wanted.slice(0, MAX_SLUG - suffix.length).replace(/-+$/, "") + suffix;
    if (!await getProject(kv, { partnerId, slug })) return slug;
  }
  throw new AppError("project_exists", `Every variant of "${wanted}" up to -1000 is taken.`);
}
