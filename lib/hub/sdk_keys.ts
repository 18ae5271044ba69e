/**
 * The SDK key lifecycle: create (plaintext returned once), revoke, and the public view that never
 * contains a secret or a digest. Input is validated here so the CLI and the settings pages share
 * one set of rules and messages.
 */
import { AppError } from "../http/problem.ts";
import { normalizeAllowedOrigins, OriginError } from "../http/origin.ts";
import { MAX_TOKEN_LIFETIME_S } from "../token/claims.ts";
import { requirePartner } from "../store/partners.ts";
import { listPartnerProjectSlugs } from "../store/projects.ts";
import {
  getSdkKey,
  insertSdkKey,
  listPartnerSdkKeys,
  type SdkKeyRecord,
  updateSdkKey,
} from "../store/sdk_keys.ts";
import { generatePartnerKey } from "./partner_key.ts";
import { DEFAULT_RATE_LIMIT, RATE_LIMIT_BOUNDS, type RateLimitPolicy } from "./rate_limit.ts";

/** Token lifetime bounds in seconds (spec 8: defaults 30 min and 2 h; hard cap 12 h). */
export const TTL_BOUNDS = {
  min: 60,
  defaultTtl: 30 * 60,
  defaultMaxTtl: 2 * 60 * 60,
  max: MAX_TOKEN_LIFETIME_S,
} as const;

/** What an operator or partner supplies to create a key. */
export interface CreateSdkKeyInput {
  partnerId: string;
  label: string;
  allowedOrigins: string[];
  allowedProjects: string[];
  defaultTtlSeconds?: number;
  maxTtlSeconds?: number;
  budget?: number | null;
  rateLimit?: RateLimitPolicy;
}

/** A key as shown to its owner: everything but secrets and digests. */
export interface SdkKeyView {
  keyId: string;
  partnerId: string;
  label: string;
  allowedOrigins: string[];
  allowedProjects: string[];
  defaultTtlSeconds: number;
  maxTtlSeconds: number;
  budget: number | null;
  rateLimit: RateLimitPolicy;
  createdAt: number;
  updatedAt: number;
  revoked: boolean;
  revokedAt: number | null;
}

/** The owner's view of a key (never a secret or digest). */
export function viewSdkKey(record: SdkKeyRecord): SdkKeyView {
  return {
    keyId: record.keyId,
    partnerId: record.partnerId,
    label: record.label,
    allowedOrigins: record.allowedOrigins,
    allowedProjects: record.allowedProjects,
    defaultTtlSeconds: record.defaultTtlSeconds,
    maxTtlSeconds: record.maxTtlSeconds,
    budget: record.budget,
    rateLimit: record.rateLimit,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    revoked: record.revokedAt !== null,
    revokedAt: record.revokedAt,
  };
}

/**
 * Validates `input` and creates a key; the plaintext `sdk_<keyId>_<secret>` is in the result and
 * nowhere else, ever.
 *
 * @example
 * ```ts
 * const { key, record } = await createSdkKey(kv, {
 *   partnerId, label: "Storefront", allowedOrigins: ["https://shop.example"], allowedProjects: ["vase"],
 * });
 * ```
 */
export async function createSdkKey(
  kv: Deno.Kv,
  input: CreateSdkKeyInput,
  now = Date.now(),
): Promise<{ key: string; record: SdkKeyRecord }> {
  await requirePartner(kv, input.partnerId);
  const label = input.label.trim();
  if (!label || label.length > 200) {
    throw new AppError("validation_failed", "A key label must be 1 to 200 characters.");
  }
  let allowedOrigins: string[];
  try {
    allowedOrigins = normalizeAllowedOrigins(input.allowedOrigins);
  } catch (err) {
    if (err instanceof OriginError) {
      throw new AppError("invalid_origin", err.message, { cause: err });
    }
    throw err;
  }
  const allowedProjects = await checkProjects(kv, input.partnerId, input.allowedProjects);
  const maxTtlSeconds = checkInt(
    "max TTL",
    input.maxTtlSeconds ?? TTL_BOUNDS.defaultMaxTtl,
    TTL_BOUNDS.min,
    TTL_BOUNDS.max,
  );
  const defaultTtlSeconds = checkInt(
    "default TTL",
    input.defaultTtlSeconds ?? Math.min(TTL_BOUNDS.defaultTtl, maxTtlSeconds),
    TTL_BOUNDS.min,
    maxTtlSeconds,
  );
  const budget = input.budget == null ? null : checkInt("budget", input.budget, 0, 1_000_000_000);
  const rateLimit = input.rateLimit ?? DEFAULT_RATE_LIMIT;
  checkInt(
    "rate limit points",
    rateLimit.points,
    RATE_LIMIT_BOUNDS.minPoints,
    RATE_LIMIT_BOUNDS.maxPoints,
  );
  checkInt(
    "rate limit window",
    rateLimit.durationSeconds,
    RATE_LIMIT_BOUNDS.minDuration,
    RATE_LIMIT_BOUNDS.maxDuration,
  );

  const generated = await generatePartnerKey();
  const record: SdkKeyRecord = {
    keyId: generated.keyId,
    partnerId: input.partnerId,
    label,
    secrets: [{ digest: generated.digest, createdAt: now, expiresAt: null }],
    allowedOrigins,
    allowedProjects,
    defaultTtlSeconds,
    maxTtlSeconds,
    budget,
    rateLimit: { points: rateLimit.points, durationSeconds: rateLimit.durationSeconds },
    createdAt: now,
    updatedAt: now,
    revokedAt: null,
  };
  await insertSdkKey(kv, record);
  return { key: generated.plaintext, record };
}

/** Revokes a key: it mints nothing from now on. Idempotent; null when the key does not exist. */
export async function revokeSdkKey(
  kv: Deno.Kv,
  keyId: string,
  now = Date.now(),
): Promise<SdkKeyRecord | null> {
  return await updateSdkKey(
    kv,
    keyId,
    (r) => (r.revokedAt === null ? { ...r, revokedAt: now, updatedAt: now } : r),
  );
}

/** The views of a partner's keys. */
export async function listSdkKeys(kv: Deno.Kv, partnerId: string): Promise<SdkKeyView[]> {
  await requirePartner(kv, partnerId);
  return (await listPartnerSdkKeys(kv, partnerId)).map(viewSdkKey);
}

/** The key record for `keyId`, or null (re-exported for the mint path). */
export { getSdkKey };

async function checkProjects(kv: Deno.Kv, partnerId: string, slugs: string[]): Promise<string[]> {
  const unique = [...new Set(slugs)];
  if (unique.length === 0) {
    throw new AppError("validation_failed", "A key needs at least one allowed project.");
  }
  const own = new Set(await listPartnerProjectSlugs(kv, partnerId));
  const foreign = unique.filter((s) => !own.has(s));
  if (foreign.length > 0) {
    throw new AppError(
      "unknown_project",
      `Not a project of this partner: ${foreign.map((s) => `"${s}"`).join(", ")}.`,
    );
  }
  return unique;
}

function checkInt(name: string, value: number, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new AppError(
      "validation_failed",
      `The ${name} must be an integer from ${min} to ${max}, not ${value}.`,
    );
  }
  return value;
}
