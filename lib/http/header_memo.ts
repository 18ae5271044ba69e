/**
 * Remembered parses of request header values. Clients send the same few `Accept` and
 * `Accept-Encoding` values on every request (a browser's, Deno's, the SDK's), and splitting,
 * trimming and weighing them cost a few µs per request on the render path; a bounded map from
 * the exact value to its parse answers them with one lookup. Long values are parsed each time (a
 * client must not fill memory), and the least recently used value is forgotten first.
 */
import { LRUCache } from "lru-cache";

/** Values longer than this are parsed but not remembered. */
export const HEADER_MEMO_MAX_VALUE = 256;

/** How many distinct values one memo keeps. */
export const HEADER_MEMO_SIZE = 64;

/**
 * `parse`, remembering its result per exact header value; the result is shared between calls, so
 * it must be immutable (freeze arrays).
 *
 * @example
 * ```ts
 * const weigh = headerMemo((value) => Object.freeze(value.split(",").map((s) => s.trim())));
 * weigh("gzip, br") === weigh("gzip, br"); // true: parsed once
 * ```
 */
export function headerMemo<T extends NonNullable<unknown>>(
  parse: (value: string) => T,
): (value: string) => T {
  const parsed = new LRUCache<string, T>({ max: HEADER_MEMO_SIZE });
  return (value) => {
    let result = parsed.get(value);
    if (result === undefined) {
      result = parse(value);
      if (value.length <= HEADER_MEMO_MAX_VALUE) parsed.set(value, result);
    }
    return result;
  };
}
