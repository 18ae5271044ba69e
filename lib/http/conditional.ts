/**
 * `If-None-Match` (RFC 9110 §13.1.2): whether a request's validators name the representation a
 * server is about to send, so it can answer 304 instead. The comparison is weak (a `W/` prefix on
 * either side is ignored) and `*` matches any current representation.
 */

/**
 * Whether the `If-None-Match` value lists `etag` (weak comparison) or is `*`.
 *
 * @example
 * ```ts
 * ifNoneMatchHits('"a", W/"b-br"', '"b-br"'); // true
 * ifNoneMatchHits('"a"', '"a-br"'); // false
 * ```
 */
export function ifNoneMatchHits(ifNoneMatch: string | null | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const want = opaque(etag);
  return ifNoneMatch.split(",").some((tag) => opaque(tag.trim()) === want);
}

function opaque(tag: string): string {
  return tag.startsWith("W/") ? tag.slice(2) : tag;
}
