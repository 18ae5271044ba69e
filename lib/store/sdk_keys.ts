/**
 * SDK key records in Deno KV: `["sdk_keys", keyId]` with a per-partner index
 * `["sdk_keys_by_partner", partnerId, keyId]`. Only digests of secrets are stored.
 */
import type { KeyExportFormats } from "../dag/export_format.ts";

/** A rate-limit policy: `points` mints per `durationSeconds` window (lib/hub/rate_limit.ts). */
export interface RateLimitPolicy {
  points: number;
  durationSeconds: number;
}

/** One accepted secret of a key; several exist while a rolled secret is in its grace period. */
export interface StoredSecret {
  digest: string;
  createdAt: number;
  /** When this secret stops being accepted (ms since epoch); null = until the key is rolled. */
  expiresAt: number | null;
}

/** A partner SDK key as stored (spec 2.1). */
export interface SdkKeyRecord {
  keyId: string;
  partnerId: string;
  label: string;
  secrets: StoredSecret[];
  allowedOrigins: string[];
  allowedProjects: string[];
  defaultTtlSeconds: number;
  maxTtlSeconds: number;
  /** Renders per token; null = unlimited. */
  budget: number | null;
  rateLimit: RateLimitPolicy;
  /**
   * Browser-flow mints per client IP (per key); absent on records made before it existed, which
   * use `DEFAULT_CLIENT_IP_RATE_LIMIT` (lib/hub/client_ip_limit.ts).
   */
  clientIpRateLimit?: RateLimitPolicy;
  /** Renders per UTC day and month of every token of the key; absent = unlimited (older records). */
  renderQuota?: RenderQuota;
  /** Export formats per flow; absent = `DEFAULT_EXPORT_FORMATS` (lib/dag/export_format.ts). */
  exportFormats?: KeyExportFormats;
  createdAt: number;
  updatedAt: number;
  revokedAt: number | null;
}

/** A key's render quotas per UTC day and per UTC month; null = unlimited. */
export interface RenderQuota {
  day: number | null;
  month: number | null;
}

/** No render quota: what a record without the field means. */
export const UNLIMITED_RENDER_QUOTA: RenderQuota = Object.freeze({ day: null, month: null });

/** Stores a new key; fails if the keyId exists. */
export async function insertSdkKey(kv: Deno.Kv, record: SdkKeyRecord): Promise<void> {
  const op = kv.atomic()
    .check({ key: ["sdk_keys", record.keyId], versionstamp: null })
    .set(["sdk_keys", record.keyId], record)
    .set(["sdk_keys_by_partner", record.partnerId, record.keyId], record.keyId);
  syncOriginIndex(op, null, record);
  const res = await op.commit();
  if (!res.ok) throw new Error("keyId collision");
}

/**
 * Whether any active key lists `origin`. CORS preflights carry no body, so they cannot name a
 * key; this index (`["sdk_key_origins", origin, keyId]`, active keys only) answers them.
 */
export async function anyActiveKeyAllowsOrigin(kv: Deno.Kv, origin: string): Promise<boolean> {
  for await (const _ of kv.list({ prefix: ["sdk_key_origins", origin] }, { limit: 1 })) return true;
  return false;
}

/**
 * Whether any key, active or revoked, lists `origin`: the mint endpoint's CORS rule, so a page
 * whose key was revoked can read the `key_revoked` problem instead of seeing a network error.
 * Revoked keys' origins are kept in `["sdk_key_origins_revoked", origin, keyId]` (written when a
 * key is revoked; keys revoked before this index existed are not in it).
 */
export async function anyKeyListsOrigin(kv: Deno.Kv, origin: string): Promise<boolean> {
  if (await anyActiveKeyAllowsOrigin(kv, origin)) return true;
  const revoked = kv.list({ prefix: ["sdk_key_origins_revoked", origin] }, { limit: 1 });
  for await (const _ of revoked) return true;
  return false;
}

function activeOrigins(record: SdkKeyRecord | null): Set<string> {
  return new Set(record && record.revokedAt === null ? record.allowedOrigins : []);
}

function revokedOrigins(record: SdkKeyRecord | null): Set<string> {
  return new Set(record && record.revokedAt !== null ? record.allowedOrigins : []);
}

function syncOriginIndex(
  op: Deno.AtomicOperation,
  before: SdkKeyRecord | null,
  after: SdkKeyRecord,
): void {
  for (
    const [prefix, of] of [["sdk_key_origins", activeOrigins], [
      "sdk_key_origins_revoked",
      revokedOrigins,
    ]] as const
  ) {
    const was = of(before);
    const now = of(after);
    for (const o of was) if (!now.has(o)) op.delete([prefix, o, after.keyId]);
    for (const o of now) if (!was.has(o)) op.set([prefix, o, after.keyId], true);
  }
}

/** The key with `keyId`, or null. */
export async function getSdkKey(kv: Deno.Kv, keyId: string): Promise<SdkKeyRecord | null> {
  return (await kv.get<SdkKeyRecord>(["sdk_keys", keyId])).value;
}

/**
 * Applies `change` to a key with optimistic concurrency (retried on a concurrent write); returns
 * the new record, or null when the key does not exist. `alongside` adds writes (and checks) to the
 * same atomic commit, e.g. the revocation log entry of a revoked key.
 */
export async function updateSdkKey(
  kv: Deno.Kv,
  keyId: string,
  change: (record: SdkKeyRecord) => SdkKeyRecord,
  alongside?: (
    op: Deno.AtomicOperation,
    before: SdkKeyRecord,
    after: SdkKeyRecord,
  ) => Promise<void>,
): Promise<SdkKeyRecord | null> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const entry = await kv.get<SdkKeyRecord>(["sdk_keys", keyId]);
    if (!entry.value) return null;
    const next = change(structuredClone(entry.value));
    const op = kv.atomic().check(entry).set(["sdk_keys", keyId], next);
    syncOriginIndex(op, entry.value, next);
    await alongside?.(op, entry.value, next);
    const res = await op.commit();
    if (res.ok) return next;
  }
  throw new Error(`too much contention updating key ${keyId}`);
}

/** Every key of a partner, including revoked ones. */
export async function listPartnerSdkKeys(kv: Deno.Kv, partnerId: string): Promise<SdkKeyRecord[]> {
  const ids: string[] = [];
  for await (const e of kv.list<string>({ prefix: ["sdk_keys_by_partner", partnerId] })) {
    ids.push(e.value);
  }
  const out: SdkKeyRecord[] = [];
  // kv.getMany takes at most 10 keys per call.
  for (let i = 0; i < ids.length; i += 10) {
    const entries = await kv.getMany<SdkKeyRecord[]>(
      ids.slice(i, i + 10).map((id) => ["sdk_keys", id]),
    );
    for (const e of entries) if (e.value) out.push(e.value);
  }
  return out;
}
