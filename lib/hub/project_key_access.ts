/**
 * Which of a partner's active keys may mint for one project, set from the project's settings page
 * (a project created after its keys is otherwise unreachable until each key is edited). Every
 * change goes through `setKeyProjectAllowed` (./sdk_keys.ts): one atomic update per key. The
 * whole request is checked first, so a refused change (removing a key's last project) changes
 * nothing.
 */
import { AppError } from "../http/problem.ts";
import type { ProjectRef } from "../store/projects.ts";
import { listPartnerSdkKeys, type SdkKeyRecord } from "../store/sdk_keys.ts";
import { setKeyProjectAllowed } from "./sdk_keys.ts";

/** One key as the project page lists it. */
export interface ProjectKeyChoice {
  keyId: string;
  label: string;
  /** Whether the key may mint for the project now. */
  allowed: boolean;
}

/** The partner's active keys, each with whether it allows `project`, by label. */
export async function projectKeyChoices(
  kv: Deno.Kv,
  project: ProjectRef,
): Promise<ProjectKeyChoice[]> {
  return (await listPartnerSdkKeys(kv, project.partnerId))
    .filter((k) => k.revokedAt === null)
    .map((k) => ({
      keyId: k.keyId,
      label: k.label,
      allowed: k.allowedProjects.includes(project.slug),
    }))
    .sort((a, b) => a.label.localeCompare(b.label) || a.keyId.localeCompare(b.keyId));
}

/**
 * Makes exactly the active keys in `keyIds` allow `project` (the others stop allowing it) and
 * returns the records that changed. Throws `validation_failed` (nothing is changed) with
 * `reason` `unknown_keys` (an id that is not an active key of the partner) or `last_project` (a
 * key for which this is its only project), and the key ids in `keys`.
 *
 * @example
 * ```ts
 * const changed = await setProjectKeys(kv, { partnerId, slug: "spur-gear" }, [keyId]);
 * for (const r of changed) keyCache.invalidate(r.keyId);
 * ```
 */
export async function setProjectKeys(
  kv: Deno.Kv,
  project: ProjectRef,
  keyIds: readonly string[],
  now = Date.now(),
): Promise<SdkKeyRecord[]> {
  const active = (await listPartnerSdkKeys(kv, project.partnerId))
    .filter((k) => k.revokedAt === null);
  const wanted = new Set(keyIds);
  const unknown = [...wanted].filter((id) => !active.some((k) => k.keyId === id));
  if (unknown.length) {
    throw new AppError("validation_failed", `Not an active key of yours: ${unknown.join(", ")}.`, {
      extensions: { reason: "unknown_keys", keys: unknown },
    });
  }
  const changes = active
    .map((k) => ({ key: k, allowed: wanted.has(k.keyId) }))
    .filter(({ key, allowed }) => key.allowedProjects.includes(project.slug) !== allowed);
  const emptied = changes.filter(({ key, allowed }) =>
    !allowed && key.allowedProjects.length === 1
  );
  if (emptied.length) {
    throw new AppError(
      "validation_failed",
      `${emptied.map(({ key }) => `"${key.label}"`).join(", ")} would have no project left: ` +
        "a key needs at least one allowed project (revoke the key instead).",
      { extensions: { reason: "last_project", keys: emptied.map(({ key }) => key.keyId) } },
    );
  }
  const changed: SdkKeyRecord[] = [];
  for (const { key, allowed } of changes) {
    const record = await setKeyProjectAllowed(kv, {
      partnerId: project.partnerId,
      keyId: key.keyId,
      slug: project.slug,
      allowed,
    }, now);
    if (record) changed.push(record);
  }
  return changed;
}
