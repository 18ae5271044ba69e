/**
 * The server's in-process view of the signing keys: the current private key for minting and the
 * publishable public keys for verifying, imported into `CryptoKey`s once and reused.
 *
 * Another process (the CLI) may rotate keys in the same KV. Two mechanisms pick that up: an unknown
 * kid triggers a reload (so a token signed by a key this process has not seen yet verifies at
 * once), rate-limited by a cooldown so a flood of forged kids cannot turn into a flood of KV reads;
 * and a periodic refresh so the new key is also used for signing within a bounded time.
 */

import type { TokenSigningKey } from "./sign.ts";
import type { SigningKeyRecord, SigningKeyStore } from "./signing_keys.ts";

/** Options of `Keyring.load`. */
export interface KeyringOptions {
  /** Epoch milliseconds; defaults to `Date.now`. */
  clock?: () => number;
  /** Least time between two reloads triggered by unknown kids; default 1000 ms. */
  reloadCooldownMs?: number;
}

/** Default least time between two reloads triggered by unknown kids. */
export const DEFAULT_RELOAD_COOLDOWN_MS = 1000;

function importPublic(jwk: JsonWebKey): Promise<CryptoKey> {
  return crypto.subtle.importKey("jwk", jwk, { name: "Ed25519" }, false, ["verify"]);
}

function importPrivate(jwk: JsonWebKey): Promise<CryptoKey> {
  return crypto.subtle.importKey("jwk", jwk, { name: "Ed25519" }, false, ["sign"]);
}

/**
 * Signing and verification keys for one server process.
 *
 * @example
 * ```ts
 * const keyring = await Keyring.load(new SigningKeyStore(kv, Date.now));
 * const stop = keyring.startAutoRefresh(60_000);
 * const token = signToken(claims, keyring.signingKey());
 * const verified = await verifyToken(token, (kid) => keyring.resolve(kid), { now });
 * await stop();
 * ```
 */
export class Keyring {
  readonly #store: SigningKeyStore;
  readonly #clock: () => number;
  readonly #cooldownMs: number;
  #signing: TokenSigningKey;
  #public: Map<string, CryptoKey>;
  #lastReloadAt: number;
  #pending: Promise<void> | null = null;

  private constructor(
    store: SigningKeyStore,
    options: KeyringOptions,
    signing: TokenSigningKey,
    publicKeys: Map<string, CryptoKey>,
    loadedAt: number,
  ) {
    this.#store = store;
    this.#clock = options.clock ?? Date.now;
    this.#cooldownMs = options.reloadCooldownMs ?? DEFAULT_RELOAD_COOLDOWN_MS;
    this.#signing = signing;
    this.#public = publicKeys;
    this.#lastReloadAt = loadedAt;
  }

  /** Loads the keys, creating the first signing key if the store has none. */
  static async load(store: SigningKeyStore, options: KeyringOptions = {}): Promise<Keyring> {
    const cooldown = options.reloadCooldownMs;
    if (cooldown !== undefined && !(cooldown >= 0)) {
      throw new TypeError("reloadCooldownMs must be a non-negative number");
    }
    const loadedAt = (options.clock ?? Date.now)();
    const { signing, publicKeys } = await snapshot(store, undefined, new Map());
    return new Keyring(store, options, signing, publicKeys, loadedAt);
  }

  /** The current signing key (synchronous: minting never waits on KV). */
  signingKey(): TokenSigningKey {
    return this.#signing;
  }

  /** Kids of the public keys currently held. */
  kids(): string[] {
    return [...this.#public.keys()];
  }

  /**
   * The public key for `kid`, or `undefined`. An unknown kid reloads from the store at most once
   * per cooldown; concurrent misses share one reload.
   */
  resolve(kid: string): Promise<CryptoKey | undefined> {
    const key = this.#public.get(kid);
    if (key !== undefined) return Promise.resolve(key);
    return this.#resolveMiss(kid);
  }

  /** Reloads keys from the store now; concurrent calls share one reload. */
  refresh(): Promise<void> {
    this.#pending ??= this.#reload().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  /**
   * Refreshes every `intervalMs` so a rotation done elsewhere is used for signing within that
   * time. Returns a disposer that stops the timer and resolves once any refresh in flight is done.
   * A failed refresh keeps the previous keys and is reported to `onError` (default: console).
   */
  startAutoRefresh(
    intervalMs: number,
    onError: (err: unknown) => void = (err) => console.error("keyring refresh failed", err),
  ): () => Promise<void> {
    if (!(intervalMs > 0)) throw new TypeError("intervalMs must be a positive number");
    const timer = setInterval(() => {
      this.refresh().catch(onError);
    }, intervalMs);
    return async () => {
      clearInterval(timer);
      await this.#pending?.catch(() => {});
    };
  }

  async #resolveMiss(kid: string): Promise<CryptoKey | undefined> {
    if (this.#pending === null && this.#clock() - this.#lastReloadAt < this.#cooldownMs) {
      return undefined;
    }
    try {
      await this.refresh();
    } catch {
      // The store is unreachable: answer from what we have; the kid stays unknown.
    }
    return this.#public.get(kid);
  }

  async #reload(): Promise<void> {
    // Stamped before the read, so a failing store is also retried at most once per cooldown.
    this.#lastReloadAt = this.#clock();
    const next = await snapshot(this.#store, this.#signing, this.#public);
    this.#signing = next.signing;
    this.#public = next.publicKeys;
  }
}

async function snapshot(
  store: SigningKeyStore,
  signing: TokenSigningKey | undefined,
  known: ReadonlyMap<string, CryptoKey>,
): Promise<{ signing: TokenSigningKey; publicKeys: Map<string, CryptoKey> }> {
  const current = await store.ensureCurrent();
  const records: SigningKeyRecord[] = await store.publishable();
  // A rotation between the two reads could leave `current` out of the list; it must stay usable.
  if (!records.some((r) => r.kid === current.kid)) records.push(current);
  const publicKeys = new Map<string, CryptoKey>();
  for (const record of records) {
    // A kid is the thumbprint of its key, so an already imported key is still the right one.
    publicKeys.set(record.kid, known.get(record.kid) ?? await importPublic(record.publicJwk));
  }
  const nextSigning = signing?.kid === current.kid
    ? signing
    : { kid: current.kid, privateKey: await importPrivate(current.privateJwk) };
  return { signing: nextSigning, publicKeys };
}
