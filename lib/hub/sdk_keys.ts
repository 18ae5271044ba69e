/**
 * The SDK key lifecycle: create (plaintext returned once), revoke, and the public view that never
 * contains a secret or a digest. Input is validated here so the CLI and the settings pages share
 * one set of rules and messages.
 */
import { AppError } from "../http/problem.ts";
import { normalizeAllowedOrigins, OriginError } from "../http/origin.ts";
import { MAX_TOKEN_LIFETIME_S } from "../token/claims.ts";
import { appendRevocation, keyRevocation } from "../store/revocations.ts";
import { requirePartner } from "../store/partners.ts";
import { listPartnerProjectSlugs } from "../store/projects.ts";
import {
  getSdkKey,
  insertSdkKey,
  listPartnerSdkKeys,
  type RenderQuota,
  type SdkKeyRecord,
  UNLIMITED_RENDER_QUOTA,
  updateSdkKey,
} from "../store/sdk_keys.ts";
import { generatePartnerKey, secretForKeyId, secretMatches } from "./partner_key.ts";
import { DEFAULT_RATE_LIMIT, RATE_LIMIT_BOUNDS, type RateLimitPolicy } from "./rate_limit.ts";
import { DEFAULT_CLIENT_IP_RATE_LIMIT } from "./client_ip_limit.ts";
import { RENDER_QUOTA_MAX } from "../render/render_quota.ts";
import {
  DEFAULT_EXPORT_FORMATS,
  EXPORT_FORMATS,
  exportFormatsOf,
  isExportFormat,
  type KeyExportFormats,
} from "../dag/export_format.ts";

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
  /** Browser-flow mints per client IP; default `DEFAULT_CLIENT_IP_RATE_LIMIT`. */
  clientIpRateLimit?: RateLimitPolicy;
  /** Renders per UTC day and month; default unlimited. */
  renderQuota?: RenderQuota;
  /** Export formats per flow; default `DEFAULT_EXPORT_FORMATS` (browser GLB, server all). */
  exportFormats?: KeyExportFormats;
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
  clientIpRateLimit: RateLimitPolicy;
  renderQuota: RenderQuota;
  exportFormats: KeyExportFormats;
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
    // Records made before these settings existed read as the defaults.
    clientIpRateLimit: record.clientIpRateLimit ?? DEFAULT_CLIENT_IP_RATE_LIMIT,
    renderQuota: record.renderQuota ?? UNLIMITED_RENDER_QUOTA,
    exportFormats: exportFormatsOf(record),
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
  const settings = await checkKeySettings(kv, input);
  const rateLimit = settings.rateLimit;
  const { label, allowedOrigins, allowedProjects, defaultTtlSeconds, maxTtlSeconds, budget } =
    settings;
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
    clientIpRateLimit: settings.clientIpRateLimit,
    renderQuota: settings.renderQuota,
    exportFormats: settings.exportFormats,
    createdAt: now,
    updatedAt: now,
    revokedAt: null,
  };
  await insertSdkKey(kv, record);
  return { key: generated.plaintext, record };
}

/**
 * Revokes a key: the record is marked revoked and the revocation log gets its entry in the same
 * atomic commit (docs/tokens.md, Revocation), so the key mints nothing from now on (within the
 * mint path's 2 s key cache) and every token it minted is refused by every render node within
 * `REVOCATION_MAX_STALENESS_MS`. Given this process's `replica`, it is brought up to date before
 * returning, so this process refuses them at once. Idempotent; null when the key does not exist.
 *
 * @example
 * ```ts
 * await revokeSdkKey(kv, keyId, { replica: deps.render?.revocations });
 * ```
 */
export async function revokeSdkKey(
  kv: Deno.Kv,
  keyId: string,
  options: { now?: number; replica?: { sync(): Promise<void> } } = {},
): Promise<SdkKeyRecord | null> {
  const now = options.now ?? Date.now();
  const record = await updateSdkKey(
    kv,
    keyId,
    (r) => (r.revokedAt === null ? { ...r, revokedAt: now, updatedAt: now } : r),
    async (op, before, after) => {
      if (before.revokedAt === null && after.revokedAt !== null) {
        await appendRevocation(kv, op, keyRevocation(keyId, after.revokedAt), now);
      }
    },
  );
  // The revocation is committed; a failed local read is covered by the replica's own polling
  // and its fail-closed bound, so it does not fail the revocation.
  if (record) await options.replica?.sync().catch(() => {});
  return record;
}

/** The editable settings of a key, validated and normalized. */
export type SdkKeySettings = Required<Omit<CreateSdkKeyInput, "partnerId">>;

/**
 * Validates and normalizes a key's settings (shared by create and edit, the CLI and the settings
 * pages); throws `AppError` with a message that says what is wrong.
 */
export async function checkKeySettings(
  kv: Deno.Kv,
  input: CreateSdkKeyInput,
): Promise<SdkKeySettings> {
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
  const clientIpRateLimit = input.clientIpRateLimit ?? DEFAULT_CLIENT_IP_RATE_LIMIT;
  checkInt(
    "per-client-IP mint limit",
    clientIpRateLimit.points,
    RATE_LIMIT_BOUNDS.minPoints,
    RATE_LIMIT_BOUNDS.maxPoints,
  );
  checkInt(
    "per-client-IP window",
    clientIpRateLimit.durationSeconds,
    RATE_LIMIT_BOUNDS.minDuration,
    RATE_LIMIT_BOUNDS.maxDuration,
  );
  const renderQuota = checkRenderQuota(input.renderQuota ?? UNLIMITED_RENDER_QUOTA);
  const exportFormats = checkExportFormats(input.exportFormats ?? DEFAULT_EXPORT_FORMATS);

  return {
    label,
    allowedOrigins,
    allowedProjects,
    defaultTtlSeconds,
    maxTtlSeconds,
    budget,
    rateLimit: { points: rateLimit.points, durationSeconds: rateLimit.durationSeconds },
    clientIpRateLimit: {
      points: clientIpRateLimit.points,
      durationSeconds: clientIpRateLimit.durationSeconds,
    },
    renderQuota,
    exportFormats,
  };
}

/**
 * Validates export formats per flow: each flow a list of known formats (empty: none), returned
 * without repeats in the canonical order (glb, stl, 3mf).
 */
export function checkExportFormats(formats: KeyExportFormats): KeyExportFormats {
  const one = (flow: string, list: unknown) => {
    if (!Array.isArray(list) || !list.every(isExportFormat)) {
      throw new AppError(
        "validation_failed",
        `Export formats (${flow}) must be a list of: ${EXPORT_FORMATS.join(", ")}.`,
      );
    }
    return EXPORT_FORMATS.filter((f) => list.includes(f));
  };
  return { browser: one("browser", formats?.browser), server: one("server", formats?.server) };
}

/** Validates a render quota: each period null (unlimited) or 0 to `RENDER_QUOTA_MAX` renders. */
export function checkRenderQuota(quota: RenderQuota): RenderQuota {
  const one = (period: string, v: number | null) =>
    v === null ? null : checkInt(`render quota per ${period}`, v, 0, RENDER_QUOTA_MAX);
  return { day: one("day", quota.day), month: one("month", quota.month) };
}

/**
 * Changes a key's render quotas only (the CLI's `key quota`): the periods named in `change` are
 * set (null = unlimited), the others kept. Null when the key does not exist.
 *
 * @example
 * ```ts
 * await setRenderQuota(kv, keyId, { day: 5000 }); // the monthly quota stays as it was
 * ```
 */
export async function setRenderQuota(
  kv: Deno.Kv,
  keyId: string,
  change: Partial<RenderQuota>,
  now = Date.now(),
): Promise<SdkKeyRecord | null> {
  return await updateSdkKey(kv, keyId, (r) => {
    if (r.revokedAt !== null) {
      throw new AppError("key_revoked", "A revoked key cannot be changed; create a new key.");
    }
    const renderQuota = checkRenderQuota({
      ...(r.renderQuota ?? UNLIMITED_RENDER_QUOTA),
      ...change,
    });
    return { ...r, renderQuota, updatedAt: now };
  });
}

/**
 * Applies new settings to a key (not its secret); null when the key does not exist.
 *
 * @example
 * ```ts
 * await editSdkKey(kv, keyId, { partnerId, label: "Shop", allowedOrigins, allowedProjects });
 * ```
 */
export async function editSdkKey(
  kv: Deno.Kv,
  keyId: string,
  input: CreateSdkKeyInput,
  now = Date.now(),
): Promise<SdkKeyRecord | null> {
  const settings = await checkKeySettings(kv, input);
  return await updateSdkKey(kv, keyId, (r) => {
    if (r.partnerId !== input.partnerId) throw new AppError("not_found", "No such key.");
    if (r.revokedAt !== null) {
      throw new AppError("key_revoked", "A revoked key cannot be changed; create a new key.");
    }
    // A form or command without export formats keeps the key's own.
    const exportFormats = input.exportFormats === undefined
      ? r.exportFormats
      : settings.exportFormats;
    return { ...r, ...settings, exportFormats, updatedAt: now };
  });
}

/**
 * Adds the partner's project `slug` to a key's allowed projects, or removes it, in one atomic
 * update of the fresh record (a concurrent edit of the key's other settings is kept). Null when
 * the key does not exist. Throws `not_found` (another partner's key), `key_revoked`,
 * `unknown_project` (not a project of the partner), `validation_failed` (removing the key's last
 * project).
 *
 * @example
 * ```ts
 * await setKeyProjectAllowed(kv, { partnerId, keyId, slug: "spur-gear", allowed: true });
 * ```
 */
export async function setKeyProjectAllowed(
  kv: Deno.Kv,
  input: { partnerId: string; keyId: string; slug: string; allowed: boolean },
  now = Date.now(),
): Promise<SdkKeyRecord | null> {
  await checkProjects(kv, input.partnerId, [input.slug]);
  return await updateSdkKey(kv, input.keyId, (r) => {
    if (r.partnerId !== input.partnerId) throw new AppError("not_found", "No such key.");
    if (r.revokedAt !== null) {
      throw new AppError("key_revoked", "A revoked key cannot be changed; create a new key.");
    }
    const has = r.allowedProjects.includes(input.slug);
    if (has === input.allowed) return r;
    const allowedProjects = input.allowed
      ? [...r.allowedProjects, input.slug]
      : r.allowedProjects.filter((p) => p !== input.slug);
    if (allowedProjects.length === 0) {
      throw new AppError(
        "validation_failed",
        `"${r.label}" allows only this project; a key needs at least one allowed project.`,
      );
    }
    return { ...r, allowedProjects, updatedAt: now };
  });
}

/** Longest grace period a rolled secret may keep working (7 days). */
export const MAX_ROLL_GRACE_S = 7 * 24 * 60 * 60;

/**
 * Rolls a key's secret, keeping its keyId: a new secret is generated (its plaintext is in the
 * result and nowhere else) and every secret that was live keeps working for `graceSeconds` more
 * (0 = stops at once). Secrets already past their grace are dropped. Null when the key does not
 * exist; refuses a revoked key.
 *
 * @example
 * ```ts
 * const { key } = await rollSdkKeySecret(kv, keyId, { graceSeconds: 3600 });
 * ```
 */
export async function rollSdkKeySecret(
  kv: Deno.Kv,
  keyId: string,
  options: { graceSeconds: number; now?: number; partnerId?: string },
): Promise<{ key: string; record: SdkKeyRecord } | null> {
  const now = options.now ?? Date.now();
  const grace = checkInt("grace period", options.graceSeconds, 0, MAX_ROLL_GRACE_S);
  const random = await generatePartnerKey();
  // Same keyId, new secret: re-derive the checksum and digest for this keyId.
  const fresh = await secretForKeyId(keyId, random.secret);
  const record = await updateSdkKey(kv, keyId, (r) => {
    if (options.partnerId !== undefined && r.partnerId !== options.partnerId) {
      throw new AppError("not_found", "No such key.");
    }
    if (r.revokedAt !== null) {
      throw new AppError("key_revoked", "A revoked key cannot be rolled; create a new key.");
    }
    const until = now + grace * 1000;
    const previous = r.secrets
      .filter((sec) => sec.expiresAt === null || sec.expiresAt > now)
      .map((sec) => ({ ...sec, expiresAt: Math.min(sec.expiresAt ?? until, until) }))
      .filter((sec) => sec.expiresAt > now);
    return {
      ...r,
      secrets: [{ digest: fresh.digest, createdAt: now, expiresAt: null }, ...previous],
      updatedAt: now,
    };
  });
  return record ? { key: fresh.plaintext, record } : null;
}

/**
 * Whether `secret` is a live secret of `record` at `now`: the current one, or a previous one still
 * in its grace period (`expiresAt > now`). Every live digest is compared (constant time each),
 * without stopping at the first match.
 *
 * @example
 * ```ts
 * const { keyId, secret } = parsePartnerKey(presented);
 * if (!(await secretAccepted(record, secret, Date.now()))) throw new Error("invalid_credentials");
 * ```
 */
export async function secretAccepted(
  record: SdkKeyRecord,
  secret: string,
  now: number,
): Promise<boolean> {
  let ok = false;
  for (const s of record.secrets) {
    if (s.expiresAt !== null && s.expiresAt <= now) continue;
    ok = (await secretMatches(record.keyId, secret, s.digest)) || ok;
  }
  return ok;
}

/** When the last previous secret of a rolled key stops working, or null. */
export function graceUntil(record: SdkKeyRecord, now = Date.now()): number | null {
  const ends = record.secrets
    .filter((s) => s.expiresAt !== null && s.expiresAt > now)
    .map((s) => s.expiresAt as number);
  return ends.length ? Math.max(...ends) : null;
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
