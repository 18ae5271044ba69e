/**
 * Server-side sessions in Deno KV. The cookie carries a 128-bit random id; KV holds only its
 * SHA-256 (`["sessions", hash]`), so reading the store does not yield a usable cookie. A session
 * ends after `IDLE_TIMEOUT_MS` without a request or `ABSOLUTE_TIMEOUT_MS` after sign-in, whichever
 * comes first; KV expiry removes the record at the absolute bound, the idle bound is checked on
 * read. Sign-in always creates a new id (no fixation); sign-out deletes the record.
 */
import { hashSessionId, isSessionIdShape, newCsrfToken, newSessionId } from "./session_id.ts";

/** A session ends this long after its last request (2 h). */
export const IDLE_TIMEOUT_MS = 2 * 60 * 60 * 1000;
/** A session ends this long after sign-in, however active (7 d). */
export const ABSOLUTE_TIMEOUT_MS = 7 * 24 * 60 * 60 * 1000;
/** `lastSeenAt` is rewritten at most this often, so reads do not each cost a write. */
const TOUCH_EVERY_MS = 60 * 1000;

/** A stored session (keyed by the hash of its id). */
export interface SessionRecord {
  accountId: string;
  partnerId: string;
  /** The synchronizer token every state-changing form carries. */
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
}

/**
 * Starts a session for an account; returns the cookie value (the id) and the record.
 *
 * @example
 * ```ts
 * const { id } = await createSession(kv, { accountId, partnerId });
 * ```
 */
export async function createSession(
  kv: Deno.Kv,
  who: { accountId: string; partnerId: string },
  now = Date.now(),
): Promise<{ id: string; record: SessionRecord }> {
  const id = newSessionId();
  const record: SessionRecord = {
    ...who,
    csrfToken: newCsrfToken(),
    createdAt: now,
    lastSeenAt: now,
  };
  await kv.set(["sessions", await hashSessionId(id)], record, { expireIn: ABSOLUTE_TIMEOUT_MS });
  return { id, record };
}

/** The live session for a cookie value, refreshing its idle timer; null when absent or expired. */
export async function readSession(
  kv: Deno.Kv,
  id: string | undefined,
  now = Date.now(),
): Promise<SessionRecord | null> {
  if (!id || !isSessionIdShape(id)) return null;
  const key = ["sessions", await hashSessionId(id)];
  const entry = await kv.get<SessionRecord>(key);
  const s = entry.value;
  if (!s) return null;
  if (now - s.createdAt >= ABSOLUTE_TIMEOUT_MS || now - s.lastSeenAt >= IDLE_TIMEOUT_MS) {
    await kv.delete(key);
    return null;
  }
  if (now - s.lastSeenAt >= TOUCH_EVERY_MS) {
    const next = { ...s, lastSeenAt: now };
    const left = s.createdAt + ABSOLUTE_TIMEOUT_MS - now;
    // A concurrent touch winning is fine: both wrote a fresh lastSeenAt.
    await kv.atomic().check(entry).set(key, next, { expireIn: Math.max(1000, left) }).commit();
    return next;
  }
  return s;
}

/** Ends a session (sign-out); a missing session is fine. */
export async function deleteSession(kv: Deno.Kv, id: string | undefined): Promise<void> {
  if (!id || !isSessionIdShape(id)) return;
  await kv.delete(["sessions", await hashSessionId(id)]);
}
