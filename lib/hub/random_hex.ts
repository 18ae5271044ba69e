/**
 * Random hex identifiers (`jti`, anonymous `sub`) for the mint path. Bytes come from the CSPRNG in
 * 4 KiB draws and each byte is handed out once: one `getRandomValues` call costs about 1 µs, more
 * than hex-encoding a whole id, and a mint needs two ids. Node's `crypto.randomUUID` buffers its
 * entropy the same way. Only synchronous code touches the pool, so concurrent mints never share
 * bytes.
 */

const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let offset = POOL_BYTES;

/**
 * `bytes` CSPRNG bytes (1 to 4096) as lowercase hex.
 *
 * @example
 * ```ts
 * randomHex(16); // "3f9c…" (32 hex digits, 128 bits)
 * ```
 */
export function randomHex(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > POOL_BYTES) {
    throw new RangeError(`randomHex takes 1 to ${POOL_BYTES} bytes, not ${bytes}`);
  }
  if (offset + bytes > POOL_BYTES) {
    crypto.getRandomValues(pool);
    offset = 0;
  }
  const hex = pool.subarray(offset, offset + bytes).toHex();
  offset += bytes;
  return hex;
}
