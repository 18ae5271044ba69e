/**
 * The render node's copy of the live revocations (docs/tokens.md, Revocation). Deno KV holds them
 * (`lib/store/revocations.ts`); each node loads the log in full at start and then reads what was
 * appended every `REVOCATION_POLL_MS`, so the check on every render is two `Map` lookups and no
 * round trip. A node that holds the store reads KV; a kernel node (`ROLE=kernel`, no KV) reads the
 * hub's feed of the same log over HTTP (lib/render/revocation_log_source.ts). Redis is not on this
 * path: its data loss cannot un-revoke anything, and a revocation made by any writer of the shared
 * KV (settings, the CLI with or without `REDIS_URL`) arrives.
 *
 * The bound is enforced, not hoped for: a node answers "not revoked" only while the last read of
 * the log that succeeded started at most `REVOCATION_MAX_STALENESS_MS` ago. Past that (KV or the
 * hub unreachable, a read that hangs) every check fails closed with 503 `service_unavailable` until
 * a read succeeds again. So `REVOCATION_MAX_STALENESS_MS` after a revocation is committed, every
 * node refuses the affected tokens, or refuses everything.
 */
import { AppError } from "../http/problem.ts";
import type { Logger } from "../ops/logger.ts";
import type { RevocationEntry } from "../store/revocations.ts";
import {
  KvRevocationLog,
  type RevocationLogPage,
  type RevocationLogSource,
} from "./revocation_log_source.ts";

export type { RevocationLogPage, RevocationLogSource } from "./revocation_log_source.ts";

/** How often a node reads the revocation log, in milliseconds. */
export const REVOCATION_POLL_MS = 1000;
/** Longest time a node answers from an unrefreshed replica, in milliseconds (documented bound). */
export const REVOCATION_MAX_STALENESS_MS = 5000;
/** How often expired entries are dropped from memory, in milliseconds. */
const PRUNE_EVERY_MS = 60_000;

/** What a revocation check needs from a verified token. */
export interface RevocationSubject {
  /** The keyId that minted the token. */
  client_id: string;
  jti: string;
}

/** Answers whether a token, or the key that minted it, is revoked. */
export interface RevocationList {
  /** Whether the token (or its key) is revoked; rejects with `service_unavailable` when unsure. */
  isRevoked(subject: RevocationSubject): Promise<boolean>;
}

/** Options of a replica; the defaults are the documented figures. */
export interface RevocationReplicaOptions {
  /** Milliseconds since the epoch, to drop entries past their `until` (default `Date.now`). */
  clock?: () => number;
  /**
   * Milliseconds on a clock that only moves forward, to measure staleness (default
   * `performance.now`): a wall clock set back or forth must not stretch or end the bound.
   */
  elapsed?: () => number;
  log?: Logger;
  pollMs?: number;
  maxStalenessMs?: number;
}

// Settled once: the hot path hands out the same two promises instead of allocating one per call.
const REVOKED = Promise.resolve(true);
const NOT_REVOKED = Promise.resolve(false);

/** An in-process replica of the revocation log, kept current by polling its source. */
export class RevocationReplica implements RevocationList {
  readonly #source: RevocationLogSource;
  readonly #clock: () => number;
  readonly #elapsed: () => number;
  readonly #log?: Logger;
  readonly #pollMs: number;
  readonly #maxStalenessMs: number;
  // keyId / jti → until (ms). Nothing leaves before its `until`, not even on a reload.
  readonly #keys = new Map<string, number>();
  readonly #tokens = new Map<string, number>();
  /** The head last read: everything up to `#cursor` is applied. */
  #cursor = 0;
  #headStamp: string | null = null;
  /** When the last successful read started (`elapsed` clock); -Infinity before the first. */
  #syncedAt = -Infinity;
  #nextPrune = 0;
  #failing = false;
  /** The reads, one after the other; never rejects. */
  #chain: Promise<void> = Promise.resolve();
  #polling = false;
  #timer?: ReturnType<typeof setTimeout>;
  /** Settles with the first load, or after `maxStalenessMs` if it has not finished by then. */
  #firstLoad?: Promise<void>;
  #firstLoadTimer?: ReturnType<typeof setTimeout>;

  /**
   * Reads the revocation log of `source` (a Deno KV store, or a `RevocationLogSource` such as the
   * hub's feed); call `start()` to load it and keep it current.
   */
  constructor(source: Deno.Kv | RevocationLogSource, options: RevocationReplicaOptions = {}) {
    this.#source = "read" in source ? source : new KvRevocationLog(source);
    this.#clock = options.clock ?? Date.now;
    this.#elapsed = options.elapsed ?? (() => performance.now());
    this.#log = options.log;
    this.#pollMs = options.pollMs ?? REVOCATION_POLL_MS;
    this.#maxStalenessMs = options.maxStalenessMs ?? REVOCATION_MAX_STALENESS_MS;
  }

  /** Loads the log now and then reads it every `pollMs` until `stop()`. */
  start(): void {
    if (this.#polling) return;
    this.#polling = true;
    const tick = () => {
      this.#timer = undefined;
      this.sync().catch(() => {}).finally(() => {
        if (this.#polling) this.#timer = setTimeout(tick, this.#pollMs);
      });
    };
    tick();
    // The first requests wait for the first load; a hanging read holds them no longer than the
    // bound.
    this.#firstLoad = new Promise<void>((resolve) => {
      this.#firstLoadTimer = setTimeout(resolve, this.#maxStalenessMs);
      this.#chain.then(resolve);
    }).finally(() => clearTimeout(this.#firstLoadTimer));
  }

  /** Stops polling and waits for a read in flight (call before closing KV). */
  async stop(): Promise<void> {
    this.#polling = false;
    clearTimeout(this.#timer);
    clearTimeout(this.#firstLoadTimer);
    this.#timer = undefined;
    await this.#chain;
  }

  /**
   * Reads the log now, after any read in flight, so a revocation committed before the call is
   * reflected when it resolves (the settings page uses it: the node that revoked refuses at once).
   * Rejects when the log cannot be read.
   */
  sync(): Promise<void> {
    const run = this.#chain.then(() => this.#read());
    this.#chain = run.catch(() => {});
    return run;
  }

  /**
   * Two `Map` lookups while the replica is fresh. Before the first load it waits for that load;
   * when stale it rejects with `service_unavailable` (503, `Retry-After: 1`).
   */
  isRevoked(subject: RevocationSubject): Promise<boolean> {
    if (this.#elapsed() - this.#syncedAt <= this.#maxStalenessMs) return this.#lookup(subject);
    if (this.#syncedAt === -Infinity && this.#firstLoad) {
      // Start-up: the first load is in flight; the first requests wait for it, not refuse.
      return this.#firstLoad.then(() =>
        this.#elapsed() - this.#syncedAt <= this.#maxStalenessMs
          ? this.#lookup(subject)
          : Promise.reject(this.#staleError())
      );
    }
    return Promise.reject(this.#staleError());
  }

  /** Live revocations held, and how long ago the last successful read started (ms). */
  stats(): { keys: number; tokens: number; ageMs: number } {
    const ageMs = this.#elapsed() - this.#syncedAt;
    return { keys: this.#keys.size, tokens: this.#tokens.size, ageMs };
  }

  #lookup(subject: RevocationSubject): Promise<boolean> {
    // A revoked key never mints again, so every token that names it is refused.
    return this.#keys.has(subject.client_id) || this.#tokens.has(subject.jti)
      ? REVOKED
      : NOT_REVOKED;
  }

  #staleError(): AppError {
    return new AppError(
      "service_unavailable",
      "Revocations cannot be checked right now; retry shortly.",
      { headers: { "Retry-After": "1" } },
    );
  }

  async #read(): Promise<void> {
    // What the read sees was committed before it started: that is the time the bound counts from.
    const started = this.#elapsed();
    const now = this.#clock();
    try {
      let page = await this.#source.read(this.#cursor);
      if (page.head.versionstamp !== this.#headStamp) {
        // Appends move the position forward with a later versionstamp. Anything else means the
        // log was rewritten (a store restored or replaced): read it again from the start. What
        // was held stays until its `until`: no revocation is ever taken back.
        const forward = page.head.seq > this.#cursor &&
          (this.#headStamp === null || page.head.versionstamp! > this.#headStamp);
        if (!forward) page = await this.#source.read(0);
        this.#apply(page, now);
        // A page holds a bounded number of entries: read on until the head it saw.
        while (page.upTo < page.head.seq) {
          page = await this.#source.read(page.upTo);
          this.#apply(page, now);
        }
        this.#cursor = page.head.seq;
        this.#headStamp = page.head.versionstamp;
      }
      if (now >= this.#nextPrune) {
        prune(this.#keys, now);
        prune(this.#tokens, now);
        this.#nextPrune = now + PRUNE_EVERY_MS;
      }
      this.#syncedAt = Math.max(this.#syncedAt, started);
      if (this.#failing) this.#log?.info("revocation log readable again");
      this.#failing = false;
    } catch (err) {
      // One line per outage; the checks themselves fail closed once the replica is stale.
      if (!this.#failing) {
        this.#log?.warn("revocation log unreadable", { error: (err as Error)?.message });
      }
      this.#failing = true;
      throw err;
    }
  }

  #apply(page: RevocationLogPage, now: number): void {
    for (const { entry } of page.entries) {
      add(entry.kind === "key" ? this.#keys : this.#tokens, entry, now);
    }
  }
}

function add(map: Map<string, number>, entry: RevocationEntry, now: number): void {
  if (entry.until <= now) return;
  map.set(entry.id, Math.max(map.get(entry.id) ?? 0, entry.until));
}

function prune(map: Map<string, number>, now: number): void {
  for (const [id, until] of map) if (until <= now) map.delete(id);
}
