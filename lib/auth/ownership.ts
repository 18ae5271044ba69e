/**
 * Authorization of settings actions: every key, project and usage record is looked up through
 * the signed-in account's partner, and a record of another partner answers exactly like a missing
 * one (`not_found`), so ids of other partners cannot even be confirmed.
 */
import { AppError } from "../http/problem.ts";
import type { Account } from "../store/accounts.ts";
import { getProject, listPartnerProjects, type Project } from "../store/projects.ts";
import { getSdkKey, type SdkKeyRecord } from "../store/sdk_keys.ts";

/** The key `keyId` when it belongs to the account's partner; else `not_found`. */
export async function ownKey(kv: Deno.Kv, account: Account, keyId: string): Promise<SdkKeyRecord> {
  const key = /^k[a-z2-7]{20}$/.test(keyId) ? await getSdkKey(kv, keyId) : null;
  if (!key || key.partnerId !== account.partnerId) {
    throw new AppError("not_found", "No such key in your account.");
  }
  return key;
}

/** The project `slug` when it belongs to the account's partner; else `not_found`. */
export async function ownProject(kv: Deno.Kv, account: Account, slug: string): Promise<Project> {
  const project = slug.length <= 64
    ? await getProject(kv, { partnerId: account.partnerId, slug })
    : null;
  if (!project || project.partnerId !== account.partnerId) {
    throw new AppError("not_found", "No such project in your account.");
  }
  return project;
}

/** Throws `forbidden` unless the account is an owner (member management). */
export function requireOwner(account: Account): void {
  if (account.role !== "owner") throw new AppError("forbidden", "Only owners can manage members.");
}

/** The account's partner's projects, by slug. */
export async function partnerProjects(kv: Deno.Kv, partnerId: string): Promise<Project[]> {
  return await listPartnerProjects(kv, partnerId);
}
