/**
 * A kernel node's view of key render quotas (lib/render/render_quota.ts): the settings come from
 * the hub (`GET /api/v1/keys/<keyId>/render-quota`, lib/hub/key_quota_feed.ts) instead of Deno KV,
 * cached `KEY_CACHE_TTL_MS` as the key cache does on a node with KV, so an edit reaches every
 * node within the same bound plus one request. The counts stay in Redis (shared by every node).
 * While the hub does not answer, the settings last read keep applying; a key never read fails
 * closed (503), as a quota that cannot be read does everywhere. The renders that find a key's
 * settings expired together share one request to the hub (single flight).
 */
import { LRUCache } from "lru-cache";
import { SingleFlight } from "../cache/single_flight.ts";
import { KEY_CACHE_TTL_MS } from "../store/sdk_key_cache.ts";
import type { RenderQuota } from "../store/sdk_keys.ts";
import { isExportFormat, type KeyExportFormats } from "../dag/export_format.ts";
import { type HubLink, HubUnreachableError } from "./hub_link.ts";

/** What the render quota gate and exports read of a key: quotas, export formats. */
export interface KeyQuotaRecord {
  renderQuota?: RenderQuota;
  exportFormats?: KeyExportFormats;
}

interface Cached {
  record: KeyQuotaRecord | null;
  checkedAt: number;
}

/** Key quota settings read from the hub, cached per key. */
export class HubKeyQuotas {
  readonly #hub: HubLink;
  readonly #elapsed: () => number;
  readonly #ttlMs: number;
  readonly #cache = new LRUCache<string, Cached>({ max: 10_000 });
  readonly #reads = new SingleFlight<KeyQuotaRecord | null>();

  /** Reads through `hub`; `elapsed` is a monotonic clock in ms, `ttlMs` the cache bound. */
  constructor(hub: HubLink, options: { elapsed?: () => number; ttlMs?: number } = {}) {
    this.#hub = hub;
    this.#elapsed = options.elapsed ?? (() => performance.now());
    this.#ttlMs = options.ttlMs ?? KEY_CACHE_TTL_MS;
  }

  /** The key's quota settings (null for an unknown key); rejects when unsure and nothing is cached. */
  async get(keyId: string): Promise<KeyQuotaRecord | null> {
    const cached = this.#cache.get(keyId);
    if (cached && this.#elapsed() - cached.checkedAt <= this.#ttlMs) return cached.record;
    try {
      return await this.#reads.run(keyId, () => this.#read(keyId)).promise;
    } catch (err) {
      if (cached) return cached.record;
      throw err;
    }
  }

  /** Asks the hub for the key's settings and caches the answer. */
  async #read(keyId: string): Promise<KeyQuotaRecord | null> {
    const checkedAt = this.#elapsed();
    const answer = await this.#hub.getJson<unknown>(
      `/api/v1/keys/${encodeURIComponent(keyId)}/render-quota`,
    );
    const record = answer.status === 404 ? null : parse(answer.status === 200 ? answer.body : 0);
    this.#cache.set(keyId, { record, checkedAt });
    return record;
  }

  /** Forgets one key (the hub changed it in this process; a kernel node never does). */
  invalidate(keyId: string): void {
    this.#cache.delete(keyId);
  }
}

const isLimit = (v: unknown) => v === null || (Number.isSafeInteger(v) && (v as number) >= 0);

function parse(body: unknown): KeyQuotaRecord {
  const q = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const quota = q.renderQuota as Record<string, unknown> | undefined;
  if (typeof quota !== "object" || quota === null || !isLimit(quota.day) || !isLimit(quota.month)) {
    throw new HubUnreachableError("the hub sent malformed render quota settings");
  }
  const renderQuota = { day: quota.day as number | null, month: quota.month as number | null };
  // A hub older than export formats sends none: the defaults apply.
  if (q.exportFormats === undefined) return { renderQuota };
  const formats = q.exportFormats as Record<string, unknown> | null;
  const list = (v: unknown) => Array.isArray(v) && v.every(isExportFormat);
  if (
    typeof formats !== "object" || formats === null || !list(formats.browser) ||
    !list(formats.server)
  ) {
    throw new HubUnreachableError("the hub sent malformed export format settings");
  }
  return { renderQuota, exportFormats: formats as unknown as KeyExportFormats };
}
