/**
 * The public project read (`GET /api/v1/projects/<slug>`): which partner's project a request
 * means. Slugs are unique per partner only, so the request names the partner through the
 * publishable keyId (`?key=`, what the browser flow already holds) or the partner id
 * (`?partner=`, the `partner` claim of a session token, for the server flow). The slug alone
 * still works while exactly one partner has published it; when several have, the answer is
 * `project_ambiguous` (409) rather than a guess.
 */
import { AppError } from "../http/problem.ts";
import { getProject, type Project, resolveSlug } from "../store/projects.ts";
import { getSdkKey, type SdkKeyRecord } from "../store/sdk_keys.ts";
import { isWellFormedKeyId } from "./partner_key.ts";

/** How a request names the partner: at most one of the two. */
export interface ProjectScope {
  /** A publishable keyId of the partner. */
  key?: string;
  /** A partner id (a session token's `partner` claim). */
  partner?: string;
}

/** Where key records come from (the hub's `SdkKeyCache`, or Deno KV directly). */
export interface KeyLookup {
  get(keyId: string): Promise<SdkKeyRecord | null>;
}

/**
 * The project `slug` of the partner the scope names (or the one partner's, by slug alone, among
 * published projects). Its version is the caller's to read: `currentVersion` is absent until the
 * first publish. Throws `AppError`: `validation_failed` (both scopes), `unknown_key`,
 * `key_revoked`, `project_ambiguous`, `unknown_project_version` (no such project).
 *
 * @example
 * ```ts
 * const project = await findScopedProject(kv, "spur-gear", { key: keyId });
 * ```
 */
export async function findScopedProject(
  kv: Deno.Kv,
  slug: string,
  scope: ProjectScope,
  keys?: KeyLookup,
): Promise<Project> {
  if (scope.key !== undefined && scope.partner !== undefined) {
    throw new AppError("validation_failed", "Name the partner by `key` or by `partner`, not both.");
  }
  let project: Project | null;
  if (scope.key !== undefined) {
    const key = await partnerKey(scope.key, keys ?? { get: (id) => getSdkKey(kv, id) });
    project = await getProject(kv, { partnerId: key.partnerId, slug });
  } else if (scope.partner !== undefined) {
    project = await getProject(kv, { partnerId: scope.partner, slug });
  } else {
    project = await resolveSlug(kv, slug, { published: true });
  }
  if (!project) throw new AppError("unknown_project_version", `No published project "${slug}".`);
  return project;
}

async function partnerKey(keyId: string, keys: KeyLookup): Promise<SdkKeyRecord> {
  const key = isWellFormedKeyId(keyId) ? await keys.get(keyId) : null;
  if (!key) throw new AppError("unknown_key", `No partner key has the keyId "${keyId}".`);
  if (key.revokedAt !== null) {
    throw new AppError("key_revoked", "This partner key has been revoked.");
  }
  return key;
}
