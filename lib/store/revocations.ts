/**
 * Revocations in Deno KV, the source of truth (docs/tokens.md, Revocation). Every revocation, of
 * a key or of one token, is an entry of an append-only log `["revocation_log", seq]`; `seq` comes
 * from the counter `["revocation_head"]`. A writer commits the entry and the new head in one
 * atomic operation that checks the head it read (together with the key record, when a key is
 * revoked), so the log has no gaps and an entry becomes visible only with every entry before it.
 * A reader that holds everything up to `seq` reads the head and, if it moved, lists `(seq, head]`:
 * no clock takes part in the order, so a writer's clock skew cannot hide an entry from a reader.
 * The head's versionstamp tells a reader when the log was rewritten instead (a store restored from
 * a backup, or replaced): its versionstamp changed without its position moving forward.
 * Entries expire once no token they affect can still be accepted.
 */
import { CLOCK_LEEWAY_S, MAX_TOKEN_LIFETIME_S } from "../token/claims.ts";

/** What a revocation stops: every token of a key (`client_id`), or one token (`jti`). */
export type RevocationKind = "key" | "token";

/** One revocation as stored in the log. */
export interface RevocationEntry {
  kind: RevocationKind;
  /** The keyId (`kind: "key"`) or the jti (`kind: "token"`). */
  id: string;
  /** When it was revoked, ms since the epoch (the writer's clock; kept for audit). */
  at: number;
  /** Until when it must be enforced, ms since the epoch; afterwards no affected token is alive. */
  until: number;
}

/** A log entry with its position. */
export interface LoggedRevocation {
  seq: number;
  entry: RevocationEntry;
}

const HEAD: Deno.KvKey = ["revocation_head"];
const LOG = "revocation_log";

/**
 * How long a key revocation is enforced, in ms: the longest token lifetime plus twice the clock
 * leeway. The key mints nothing once revoked (the mint path's key cache is 2 s), so the last token
 * it can have minted is accepted at most 12 h + 60 s after a mint that happened within a minute
 * of the revocation, whatever the skew (≤ 60 s) between the writer and the hub.
 */
export const KEY_REVOCATION_RETENTION_MS = (MAX_TOKEN_LIFETIME_S + 2 * CLOCK_LEEWAY_S) * 1000;

/** The log entry revoking every token of `keyId`, revoked at `atMs`. */
export function keyRevocation(keyId: string, atMs: number): RevocationEntry {
  return { kind: "key", id: keyId, at: atMs, until: atMs + KEY_REVOCATION_RETENTION_MS };
}

/** The log entry revoking the token `jti` that expires at `exp` (Unix seconds). */
export function tokenRevocation(jti: string, exp: number, atMs: number): RevocationEntry {
  return { kind: "token", id: jti, at: atMs, until: (exp + CLOCK_LEEWAY_S) * 1000 };
}

/**
 * Adds `entry` to `op` as the log's next entry (reading the head now). Commit `op` afterwards; the
 * commit fails when another revocation took that position first, and the caller retries.
 *
 * @example
 * ```ts
 * const op = kv.atomic().check(keyEntry).set(["sdk_keys", keyId], revoked);
 * await appendRevocation(kv, op, keyRevocation(keyId, now), now);
 * if (!(await op.commit()).ok) { ...retry }
 * ```
 */
export async function appendRevocation(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  entry: RevocationEntry,
  now: number,
): Promise<void> {
  const head = await kv.get<number>(HEAD);
  const seq = (head.value ?? 0) + 1;
  // The entry goes when it no longer matters; a second spares an entry written already due.
  const expireIn = Math.max(1000, entry.until - now);
  op.check(head).set(HEAD, seq).set([LOG, seq], entry, { expireIn });
}

/**
 * Commits one revocation on its own (a token's; a key's goes with its record, see
 * `revokeSdkKey`), retrying when a concurrent revocation took the position.
 *
 * @example
 * ```ts
 * await recordRevocation(kv, tokenRevocation(jti, exp, Date.now()), Date.now());
 * ```
 */
export async function recordRevocation(
  kv: Deno.Kv,
  entry: RevocationEntry,
  now: number,
): Promise<void> {
  for (let attempt = 0; attempt < 32; attempt++) {
    const op = kv.atomic();
    await appendRevocation(kv, op, entry, now);
    if ((await op.commit()).ok) return;
    // Another writer took the position: back off a little, at random, so a burst drains.
    await new Promise((r) => setTimeout(r, Math.random() * 2 ** Math.min(attempt, 6)));
  }
  throw new Error("too much contention appending to the revocation log");
}

/** The log's head: the position of the latest entry (0: none) and its versionstamp (or null). */
export interface RevocationHead {
  seq: number;
  versionstamp: string | null;
}

/** Reads the log's head. */
export async function revocationHead(kv: Deno.Kv): Promise<RevocationHead> {
  const head = await kv.get<number>(HEAD);
  return { seq: head.value ?? 0, versionstamp: head.versionstamp };
}

/** The entries at positions `after < seq ≤ upTo` that have not expired, in log order. */
export async function listRevocations(
  kv: Deno.Kv,
  after: number,
  upTo: number,
): Promise<LoggedRevocation[]> {
  const out: LoggedRevocation[] = [];
  const entries = kv.list<RevocationEntry>(
    { start: [LOG, after + 1], end: [LOG, upTo + 1] },
    { batchSize: 500 },
  );
  for await (const e of entries) out.push({ seq: e.key[1] as number, entry: e.value });
  return out;
}
