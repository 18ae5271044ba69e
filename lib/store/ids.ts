/** Random identifiers for durable records. */

/** A random id: `prefix` followed by `bytes` random bytes in lowercase hex. */
export function randomId(prefix: string, bytes = 12): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return prefix + Array.from(buf, (b) => b.toString(16).padStart(2, "0")).join("");
}
