/**
 * base64url (RFC 4648 §5) without padding, decoded strictly: a string is accepted only if it is
 * the one canonical encoding of its bytes, i.e. decoding then re-encoding gives the input back.
 * Without that, one token would have many spellings (padding, stray trailing bits), which defeats
 * caching, logging and revocation keyed on the token text.
 *
 * This sits on the verify hot path, so the native `Uint8Array.fromBase64`/`toBase64` (in Deno 2's
 * V8) are used when present; the portable versions below are the fallback and the reference the tests
 * compare the native path against.
 */

import { TokenError } from "./errors.ts";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Character code → 6-bit value, or -1 for anything outside the base64url alphabet. */
const VALUES: Int8Array = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i;
  return table;
})();

const HAS_NATIVE = typeof Uint8Array.fromBase64 === "function" &&
  typeof Uint8Array.prototype.toBase64 === "function";

function nonCanonical(why: string): TokenError {
  return new TokenError("non_canonical_base64url", `not canonical base64url: ${why}`);
}

/**
 * Encodes bytes as base64url without padding.
 *
 * @example
 * ```ts
 * encodeBase64Url(new Uint8Array([251, 255])); // "-_8"
 * ```
 */
export function encodeBase64Url(bytes: Uint8Array): string {
  if (HAS_NATIVE) return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
  return encodeBase64UrlPortable(bytes);
}

/**
 * Decodes canonical unpadded base64url; throws `TokenError` `non_canonical_base64url` for any
 * character outside `[A-Za-z0-9_-]`, padding, a length of 1 mod 4, or nonzero unused trailing bits.
 *
 * @example
 * ```ts
 * decodeBase64UrlStrict("-_8"); // Uint8Array [251, 255]
 * decodeBase64UrlStrict("-_9"); // throws: the unused low bits of "9" are not zero
 * ```
 */
export function decodeBase64UrlStrict(s: string): Uint8Array<ArrayBuffer> {
  if (!HAS_NATIVE) return decodeBase64UrlStrictPortable(s);
  const n = s.length;
  const rem = n & 3;
  if (rem === 1) throw nonCanonical("length is 1 mod 4");
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    // The default ("loose") mode rejects foreign characters but tolerates ASCII whitespace,
    // padding and stray trailing bits; the checks below close those three gaps.
    bytes = Uint8Array.fromBase64(s, { alphabet: "base64url" });
  } catch {
    throw nonCanonical("invalid character");
  }
  // Every character of a canonical string carries data, so the output length is fixed by the
  // input length; a skipped whitespace or "=" (with n % 4 != 1) always makes it come out short.
  if (bytes.length !== (n * 3) >> 2) throw nonCanonical("padding or whitespace");
  if (rem !== 0) checkTrailingBits(s, rem);
  return bytes;
}

/**
 * Like `decodeBase64UrlStrict`, but writes into `target` and returns the byte count, so the hot
 * path can reuse a buffer instead of allocating one per token. Throws `RangeError` if `target` is
 * too small.
 *
 * @example
 * ```ts
 * const buffer = new Uint8Array(64);
 * const length = decodeBase64UrlStrictInto("-_8", buffer); // 2; buffer starts 251, 255
 * ```
 */
export function decodeBase64UrlStrictInto(s: string, target: Uint8Array): number {
  const n = s.length;
  const rem = n & 3;
  if (rem === 1) throw nonCanonical("length is 1 mod 4");
  const expected = (n * 3) >> 2;
  if (target.length < expected) throw new RangeError("target is too small for the decoded bytes");
  if (!HAS_NATIVE) {
    target.set(decodeBase64UrlStrictPortable(s));
    return expected;
  }
  let written: number;
  try {
    ({ written } = target.setFromBase64(s, { alphabet: "base64url" }));
  } catch {
    throw nonCanonical("invalid character");
  }
  // Same argument as in decodeBase64UrlStrict: skipped whitespace or "=" makes the output short.
  if (written !== expected) throw nonCanonical("padding or whitespace");
  if (rem !== 0) checkTrailingBits(s, rem);
  return written;
}

function checkTrailingBits(s: string, rem: number): void {
  const last = VALUES[s.charCodeAt(s.length - 1)];
  // With 2 chars in the last group only the top 2 bits of the second char are data; with 3 chars,
  // the top 4 bits of the third. The rest must be zero or the string is one of several spellings.
  if ((last & (rem === 2 ? 0x0f : 0x03)) !== 0) throw nonCanonical("nonzero trailing bits");
}

/** Portable base64url encoder (no padding); the fallback when `Uint8Array#toBase64` is missing. */
export function encodeBase64UrlPortable(bytes: Uint8Array): string {
  let out = "";
  const full = bytes.length - (bytes.length % 3);
  let i = 0;
  for (; i < full; i += 3) {
    const v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += ALPHABET[v >> 18] + ALPHABET[(v >> 12) & 63] + ALPHABET[(v >> 6) & 63] +
      ALPHABET[v & 63];
  }
  const left = bytes.length - full;
  if (left === 1) {
    const v = bytes[i] << 16;
    out += ALPHABET[v >> 18] + ALPHABET[(v >> 12) & 63];
  } else if (left === 2) {
    const v = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += ALPHABET[v >> 18] + ALPHABET[(v >> 12) & 63] + ALPHABET[(v >> 6) & 63];
  }
  return out;
}

/** Portable strict decoder with the same contract as `decodeBase64UrlStrict`; the fallback path. */
export function decodeBase64UrlStrictPortable(s: string): Uint8Array<ArrayBuffer> {
  const n = s.length;
  const rem = n & 3;
  if (rem === 1) throw nonCanonical("length is 1 mod 4");
  const out = new Uint8Array((n * 3) >> 2);
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? VALUES[c] : -1;
    if (v < 0) throw nonCanonical("invalid character");
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  if (rem !== 0) checkTrailingBits(s, rem);
  return out;
}
