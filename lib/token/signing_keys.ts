/**
 * The hub's Ed25519 signing keys, stored in Deno KV.
 *
 * Layout: `["signing_keys", kid]` → `SigningKeyRecord`, `["signing_keys_current"]` → kid. Records
 * are never deleted by this module, so a reader that saw a kid can always find its record.
 *
 * `kid` is the RFC 7638 JWK thumbprint of the public key (SHA-256, base64url). It is derived from
 * the key itself, so two processes can never disagree about which key a kid names, a cached
 * `CryptoKey` is valid for as long as its kid is, and no uniqueness bookkeeping is needed.
 */

import { encodeBase64Url } from "./base64url.ts";
import { CLOCK_LEEWAY_S, MAX_TOKEN_LIFETIME_S } from "./claims.ts";

/** One signing key as stored in KV. */
export interface SigningKeyRecord {
  /** RFC 7638 thumbprint of `publicJwk`. */
  kid: string;
  /** Private key as exported JWK (OKP, Ed25519, with `d`); never leaves the hub. */
  privateJwk: JsonWebKey;
  /** Public key as exported JWK (OKP, Ed25519). */
  publicJwk: JsonWebKey;
  /** When the key was created, epoch milliseconds. */
  createdAt: number;
  /** When the key stopped being current, epoch milliseconds; `null` while current. */
  retiredAt: number | null;
}

/**
 * How long a retired key stays published, in milliseconds: the longest possible token lifetime plus
 * the clock leeway, so every token it signed has expired everywhere before it disappears.
 */
export const PUBLISH_WINDOW_MS = (MAX_TOKEN_LIFETIME_S + CLOCK_LEEWAY_S) * 1000;

const CURRENT_KEY: Deno.KvKey = ["signing_keys_current"];
const RECORD_PREFIX: Deno.KvKey = ["signing_keys"];
/** Retries of an optimistic KV transaction before giving up; contention here is rare. */
const MAX_ATTEMPTS = 8;

function recordKey(kid: string): Deno.KvKey {
  return ["signing_keys", kid];
}

/**
 * The RFC 7638 thumbprint of an Ed25519 public JWK: SHA-256 over `{"crv","kty","x"}` in that order.
 *
 * @example
 * ```ts
 * await jwkThumbprint({ kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" });
 * // "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k" (RFC 8037 appendix A.3)
 * ```
 */
export async function jwkThumbprint(jwk: JsonWebKey): Promise<string> {
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string") {
    throw new TypeError("expected an Ed25519 public JWK");
  }
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical));
  return encodeBase64Url(new Uint8Array(digest));
}

/** Generates a fresh Ed25519 key pair as a (not yet stored) current record. */
export async function generateSigningKey(createdAt: number): Promise<SigningKeyRecord> {
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const privateJwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
  const publicJwk = await crypto.subtle.exportKey("jwk", pair.publicKey);
  return { kid: await jwkThumbprint(publicJwk), privateJwk, publicJwk, createdAt, retiredAt: null };
}

/**
 * Signing keys in Deno KV. Safe to use from several processes at once (server and CLI): every
 * change is one atomic transaction guarded by versionstamp checks.
 *
 * @example
 * ```ts
 * const store = new SigningKeyStore(kv, Date.now);
 * const current = await store.ensureCurrent();
 * const jwks = toJwks(await store.publishable());
 * ```
 */
export class SigningKeyStore {
  readonly #kv: Deno.Kv;
  readonly #clock: () => number;

  /** `clock` returns epoch milliseconds; pass a fixed one in tests. */
  constructor(kv: Deno.Kv, clock: () => number) {
    this.#kv = kv;
    this.#clock = clock;
  }

  /** The current key, or `null` if none was ever created. */
  async current(): Promise<SigningKeyRecord | null> {
    const pointer = await this.#kv.get<string>(CURRENT_KEY);
    if (pointer.value === null) return null;
    return await this.#record(pointer.value);
  }

  /** Returns the current key, creating the first one if there is none (race-safe). */
  async ensureCurrent(): Promise<SigningKeyRecord> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const existing = await this.current();
      if (existing !== null) return existing;
      const record = await generateSigningKey(this.#clock());
      const result = await this.#kv.atomic()
        .check({ key: CURRENT_KEY, versionstamp: null })
        .check({ key: recordKey(record.kid), versionstamp: null })
        .set(recordKey(record.kid), record)
        .set(CURRENT_KEY, record.kid)
        .commit();
      // Losing the race means another process created the first key: loop and return theirs.
      if (result.ok) return record;
    }
    throw new Error("could not create the first signing key: too much contention");
  }

  /** Makes a new key current and retires the previous one (`retiredAt = now`) in one transaction. */
  async rotate(): Promise<SigningKeyRecord> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const pointer = await this.#kv.get<string>(CURRENT_KEY);
      const now = this.#clock();
      const next = await generateSigningKey(now);
      const op = this.#kv.atomic()
        .check(pointer)
        .check({ key: recordKey(next.kid), versionstamp: null });
      if (pointer.value !== null) {
        const previous = await this.#kv.get<SigningKeyRecord>(recordKey(pointer.value));
        if (previous.value !== null) {
          op.check(previous).set(recordKey(previous.value.kid), {
            ...previous.value,
            retiredAt: now,
          });
        }
      }
      op.set(recordKey(next.kid), next).set(CURRENT_KEY, next.kid);
      // A failed check means someone else rotated meanwhile; retrying retires their key, which
      // stays published like any other, so tokens it signed keep verifying.
      if ((await op.commit()).ok) return next;
    }
    throw new Error("could not rotate the signing key: too much contention");
  }

  /** Every stored key, oldest first. */
  async list(): Promise<SigningKeyRecord[]> {
    const out: SigningKeyRecord[] = [];
    for await (const entry of this.#kv.list<SigningKeyRecord>({ prefix: RECORD_PREFIX })) {
      out.push(entry.value);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt || (a.kid < b.kid ? -1 : 1));
  }

  /**
   * The keys a verifier must know: the current one and every retired one whose
   * `retiredAt + PUBLISH_WINDOW_MS` is still in the future.
   */
  async publishable(): Promise<SigningKeyRecord[]> {
    const [pointer, all] = await Promise.all([this.#kv.get<string>(CURRENT_KEY), this.list()]);
    const now = this.#clock();
    return all.filter((r) =>
      r.kid === pointer.value || (r.retiredAt !== null && r.retiredAt + PUBLISH_WINDOW_MS > now)
    );
  }

  async #record(kid: string): Promise<SigningKeyRecord> {
    const entry = await this.#kv.get<SigningKeyRecord>(recordKey(kid));
    // Records are never deleted, so a dangling pointer means the store was damaged by hand.
    if (entry.value === null) throw new Error(`signing key ${kid} is current but has no record`);
    return entry.value;
  }
}
