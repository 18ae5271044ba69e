/**
 * The `Idempotency-Key` request header of a render (IETF draft-ietf-httpapi-idempotency-key-header):
 * one random key per logical render, sent again unchanged when the client retries it, so the
 * budget spends one unit for the render however many times it reaches a node (lib/render/budget.ts).
 *
 * The value is 16 to 64 characters of `A–Z a–z 0–9 _ -` (128 random bits as 32 hex digits or 22
 * base64url characters fit), bare or as the draft's structured-field string (in double quotes).
 * Anything else is refused with 400 `invalid_idempotency_key` before the token is looked at: it is
 * a malformed request, whoever sends it.
 */
import { AppError } from "../http/problem.ts";

/** The name of the header (lowercase, as CORS lists and `Headers.get` use it). */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";

const KEY = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * The key in a request's `Idempotency-Key` header value, null when the header is absent; throws
 * `invalid_idempotency_key` when it is malformed (several values arrive joined by a comma, which
 * the pattern refuses).
 *
 * @example
 * ```ts
 * parseIdempotencyKey(req.headers.get("idempotency-key")); // "9f86d081884c7d659a2feaa0c55ad015" or null
 * ```
 */
export function parseIdempotencyKey(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  let key = value.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
  if (!KEY.test(key)) {
    throw new AppError(
      "invalid_idempotency_key",
      "The Idempotency-Key header must be 16 to 64 characters of A-Z, a-z, 0-9, '_' and '-' " +
        "(optionally in double quotes), one value per request.",
    );
  }
  return key;
}
