/**
 * Publishing and consuming the hub's public keys as a JWK Set (RFC 7517, OKP keys per RFC 8037).
 *
 * `toJwks` builds `/.well-known/jwks.json` from stored records, copying only public members.
 * `RemoteKeySet` is the render node's side: it only ever holds public keys, so a compromised
 * render node cannot mint. Its cache follows jose's `createRemoteJWKSet` (max age, refetch on an
 * unknown kid at most once per cooldown, one fetch in flight), with one deliberate difference: a
 * failed fetch never throws out of `resolve` and never empties the cache, because a hub hiccup
 * must not turn into every render answering 401.
 */

import { decodeBase64UrlStrict } from "./base64url.ts";
import { isClaimString } from "./claims.ts";
import type { SigningKeyRecord } from "./signing_keys.ts";

/** One published Ed25519 verification key. */
export interface Ed25519PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  use: "sig";
  alg: "EdDSA";
}

/** A JWK Set of Ed25519 verification keys. */
export interface Jwks {
  keys: Ed25519PublicJwk[];
}

/**
 * The JWK Set for `records` (normally `SigningKeyStore#publishable()`); only `x` is copied from
 * each stored JWK, so private members can never leak into the document.
 *
 * @example
 * ```ts
 * return Response.json(toJwks(await store.publishable()));
 * ```
 */
export function toJwks(records: Iterable<Pick<SigningKeyRecord, "kid" | "publicJwk">>): Jwks {
  const keys: Ed25519PublicJwk[] = [];
  for (const { kid, publicJwk } of records) {
    if (publicJwk.kty !== "OKP" || publicJwk.crv !== "Ed25519" || typeof publicJwk.x !== "string") {
      throw new TypeError(`signing key ${kid} is not an Ed25519 public key`);
    }
    keys.push({ kty: "OKP", crv: "Ed25519", x: publicJwk.x, kid, use: "sig", alg: "EdDSA" });
  }
  return { keys };
}

/** Options of `RemoteKeySet`. */
export interface RemoteKeySetOptions {
  /** The fetch to use; tests and proxies pass their own. */
  fetch?: typeof fetch;
  /** How long a fetched set is used before it is refetched; default 10 minutes. */
  maxAgeMs?: number;
  /** Least time between two fetch attempts (unknown kid, stale set or failure); default 30 s. */
  cooldownMs?: number;
  /** Epoch milliseconds; defaults to `Date.now`. */
  clock?: () => number;
  /** Abort a fetch (headers and body) after this long; default 5 s. */
  timeoutMs?: number;
  /** Largest accepted JWKS document in bytes; default 64 KiB. */
  maxBytes?: number;
  /** Told about every failed fetch (the cached set keeps being served); default: console.warn. */
  onError?: (err: unknown) => void;
}

/** Default max age of a fetched key set. */
export const DEFAULT_JWKS_MAX_AGE_MS = 10 * 60_000;
/** Default least time between two fetch attempts. */
export const DEFAULT_JWKS_COOLDOWN_MS = 30_000;
/** Default fetch timeout. */
export const DEFAULT_JWKS_TIMEOUT_MS = 5_000;
/** Default largest accepted JWKS document. */
export const DEFAULT_JWKS_MAX_BYTES = 64 * 1024;

interface CachedKey {
  x: string;
  key: CryptoKey;
}

function duration(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(value >= 0) || !Number.isFinite(value)) {
    throw new TypeError(`${name} must be a non-negative finite number`);
  }
  return value;
}

/**
 * Public keys fetched from the hub's JWKS URL, cached for a render node.
 *
 * @example
 * ```ts
 * const keys = new RemoteKeySet("https://hub.example/.well-known/jwks.json");
 * const claims = await verifyToken(token, (kid) => keys.resolve(kid), { now });
 * ```
 */
export class RemoteKeySet {
  readonly #url: string;
  readonly #fetch: typeof fetch;
  readonly #maxAgeMs: number;
  readonly #cooldownMs: number;
  readonly #clock: () => number;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #onError: (err: unknown) => void;
  #keys: Map<string, CachedKey> | null = null;
  #fetchedAt = -Infinity;
  #attemptedAt = -Infinity;
  #pending: Promise<void> | null = null;

  /** `url` must be an absolute http(s) URL; nothing is fetched until the first `resolve`. */
  constructor(url: string, options: RemoteKeySetOptions = {}) {
    const parsed = new URL(url);
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
      throw new TypeError("the JWKS URL must be http(s)");
    }
    this.#url = parsed.href;
    this.#fetch = options.fetch ?? fetch;
    this.#maxAgeMs = duration(options.maxAgeMs, DEFAULT_JWKS_MAX_AGE_MS, "maxAgeMs");
    this.#cooldownMs = duration(options.cooldownMs, DEFAULT_JWKS_COOLDOWN_MS, "cooldownMs");
    this.#timeoutMs = duration(options.timeoutMs, DEFAULT_JWKS_TIMEOUT_MS, "timeoutMs");
    this.#maxBytes = duration(options.maxBytes, DEFAULT_JWKS_MAX_BYTES, "maxBytes");
    this.#clock = options.clock ?? Date.now;
    this.#onError = options.onError ??
      ((err) => console.warn("JWKS fetch failed; serving the cached keys", err));
  }

  /** Kids of the keys currently cached. */
  kids(): string[] {
    return [...(this.#keys?.keys() ?? [])];
  }

  /**
   * The public key for `kid`, or `undefined`. Fetches when the set is missing or older than
   * `maxAgeMs`, or when `kid` is unknown; at most one attempt per `cooldownMs`, shared by
   * concurrent callers. Never rejects: a failed fetch keeps serving the cached set.
   */
  resolve(kid: string): Promise<CryptoKey | undefined> {
    const fresh = this.#keys !== null && this.#clock() - this.#fetchedAt < this.#maxAgeMs;
    if (fresh) {
      const hit = this.#keys?.get(kid);
      if (hit !== undefined) return Promise.resolve(hit.key);
    }
    return this.#resolveSlow(kid);
  }

  /** Fetches the set now (joining a fetch in flight); rejects if the fetch or document fails. */
  reload(): Promise<void> {
    this.#pending ??= this.#fetchAndApply().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  async #resolveSlow(kid: string): Promise<CryptoKey | undefined> {
    if (this.#pending !== null || this.#clock() - this.#attemptedAt >= this.#cooldownMs) {
      try {
        await this.reload();
      } catch (err) {
        this.#onError(err);
      }
    }
    return this.#keys?.get(kid)?.key;
  }

  async #fetchAndApply(): Promise<void> {
    // Stamped before fetching so a hub that is down is asked at most once per cooldown.
    this.#attemptedAt = this.#clock();
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException("JWKS fetch timed out", "TimeoutError")),
      this.#timeoutMs,
    );
    let document: unknown;
    try {
      const response = await this.#fetch(this.#url, {
        method: "GET",
        // A redirect could point the node at keys the hub does not control.
        redirect: "manual",
        signal: controller.signal,
        headers: { accept: "application/jwk-set+json, application/json" },
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new Error(`JWKS fetch answered HTTP ${response.status}`);
      }
      document = JSON.parse(await readBounded(response, this.#maxBytes));
    } finally {
      clearTimeout(timer);
    }
    this.#keys = await this.#importSet(document);
    this.#fetchedAt = this.#clock();
  }

  async #importSet(document: unknown): Promise<Map<string, CachedKey>> {
    if (typeof document !== "object" || document === null || !("keys" in document)) {
      throw new Error("JWKS document has no keys member");
    }
    const entries = document.keys;
    if (!Array.isArray(entries)) throw new Error("JWKS keys member is not an array");
    const candidates = new Map<string, string | null>();
    for (const entry of entries) {
      const usable = usableKey(entry);
      if (usable === null) continue;
      // Two keys under one kid are ambiguous; trust neither rather than guess.
      candidates.set(usable.kid, candidates.has(usable.kid) ? null : usable.x);
    }
    const next = new Map<string, CachedKey>();
    for (const [kid, x] of candidates) {
      if (x === null) continue;
      const known = this.#keys?.get(kid);
      if (known !== undefined && known.x === x) {
        next.set(kid, known);
        continue;
      }
      try {
        const key = await crypto.subtle.importKey(
          "jwk",
          { kty: "OKP", crv: "Ed25519", x },
          { name: "Ed25519" },
          false,
          ["verify"],
        );
        next.set(kid, { x, key });
      } catch {
        // Not a valid Ed25519 point encoding: ignore this key like any other unusable one.
      }
    }
    return next;
  }
}

/** `{kid, x}` of a JWKS entry that is an Ed25519 verification key, else `null`. */
function usableKey(entry: unknown): { kid: string; x: string } | null {
  if (typeof entry !== "object" || entry === null) return null;
  const jwk = entry as Record<string, unknown>;
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519") return null;
  if (!isClaimString(jwk.kid) || typeof jwk.x !== "string") return null;
  if (jwk.use !== undefined && jwk.use !== "sig") return null;
  if (jwk.alg !== undefined && jwk.alg !== "EdDSA" && jwk.alg !== "Ed25519") return null;
  // A published private key is a hub misconfiguration; do not build on it.
  if (jwk.d !== undefined) return null;
  try {
    if (decodeBase64UrlStrict(jwk.x).length !== 32) return null;
  } catch {
    return null;
  }
  return { kid: jwk.kid, x: jwk.x };
}

async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new Error(`JWKS document is larger than ${maxBytes} bytes`);
  }
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel();
      throw new Error(`JWKS document is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}
