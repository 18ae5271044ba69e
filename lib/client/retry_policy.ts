/**
 * When to try a failed request again, and how long to wait: capped exponential backoff with full
 * jitter (so a fleet of browsers that failed together does not come back together), overridden
 * upward by a server's `Retry-After`.
 *
 * Runs in browsers: no Deno APIs here.
 */

/** How often and how patiently to retry. */
export interface RetryOptions {
  /** Attempts in all, the first included (default 5). */
  maxAttempts: number;
  /** Backoff before the first retry, before jitter (default 500 ms). */
  baseDelayMs: number;
  /** Longest backoff between two attempts (default 30 s); a longer `Retry-After` still wins. */
  maxDelayMs: number;
  /** Longest `Retry-After` honoured (default 10 min); beyond it the request is given up. */
  maxRetryAfterMs: number;
}

/** The default retry policy. */
export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 10 * 60_000,
};

/**
 * Statuses worth another attempt: the server may answer differently later (timeouts, rate limits,
 * overload). Every other 4xx is a decision about the request itself and repeats identically.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status === 500 || status === 502 ||
    status === 503 || status === 504;
}

/**
 * Problem codes that end a mint for good, whatever the status: the key is gone or revoked, so
 * another attempt would only repeat the refusal (and count against the key's usage).
 */
export const FINAL_MINT_CODES: ReadonlySet<string> = new Set(["key_revoked", "unknown_key"]);

/**
 * The wait before retry number `retry` (1 for the first retry): full jitter over a capped
 * exponential, `random() · min(max, base · 2^(retry-1))`, but never less than `retryAfterMs`.
 *
 * @example
 * ```ts
 * backoffDelay(3, DEFAULT_RETRY, Math.random);          // 0–2 s
 * backoffDelay(1, DEFAULT_RETRY, Math.random, 5_000);   // 5–5.5 s (Retry-After plus a little jitter)
 * ```
 */
export function backoffDelay(
  retry: number,
  options: RetryOptions,
  random: () => number,
  retryAfterMs?: number,
): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, retry - 1));
  if (retryAfterMs !== undefined) {
    // Honour the server's wait, spread by up to 10 % (at most 1 s) so waiters do not align.
    return retryAfterMs + Math.floor(random() * Math.min(1000, retryAfterMs * 0.1));
  }
  return Math.floor(random() * ceiling);
}

/**
 * Parses a `Retry-After` value (RFC 9110: delay-seconds or an HTTP-date) into milliseconds from
 * `nowMs`; undefined when absent or malformed. An HTTP-date is read against `serverNowMs` when the
 * response carried a `Date`, since both come from the server's clock.
 *
 * @example
 * ```ts
 * parseRetryAfter("3", Date.now()); // 3000
 * ```
 */
export function parseRetryAfter(
  value: string | null,
  nowMs: number,
  serverNowMs?: number,
): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - (serverNowMs ?? nowMs));
}
