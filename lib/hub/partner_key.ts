/**
 * The partner key format (spec 2.1, 5): plaintext `sdk_<keyId>_<secret>`, where neither half
 * contains `_`, so the plaintext splits unambiguously on its two underscores.
 *
 * - `keyId` is publishable: `k` followed by 20 characters of lowercase base32 (RFC 4648 alphabet,
 *   lowercased: `a-z2-7`) = 100 bits from the CSPRNG, enough that ids never collide and cannot be
 *   enumerated. The leading `k` keeps ids from starting with a digit in logs and KV keys.
 * - `secret` is 32 base32 characters (160 bits from the CSPRNG) followed by a 7-character base32
 *   checksum: the CRC-32 of the ASCII bytes `sdk_<keyId>_<random part>`, big-endian, zero-padded
 *   (`a` is the base32 zero). As with GitHub's token checksums, a mistyped, truncated or made-up
 *   key is refused offline, before any store lookup or digest. The checksum is not a MAC: it
 *   catches accidents, and the secret's entropy is what stops guessing.
 *
 * The hub stores only `digestSecret(keyId, secret)` and compares digests in constant time.
 */
import { timingSafeEqual } from "node:crypto";

/** The prefix every partner key plaintext starts with. */
export const KEY_PREFIX = "sdk_";

/** Longest plaintext `parsePartnerKey` looks at; real keys are 65 characters. */
export const PARTNER_KEY_MAX_LENGTH = 128;

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";
const KEY_ID_RANDOM_CHARS = 20;
const SECRET_RANDOM_CHARS = 32;
const CHECKSUM_CHARS = 7;
const SECRET_CHARS = SECRET_RANDOM_CHARS + CHECKSUM_CHARS;
const KEY_ID_PATTERN = /^k[a-z2-7]{20}$/;
const SECRET_PATTERN = /^[a-z2-7]{39}$/;
// Domain separation: a digest of a partner secret can never equal a digest computed for any
// other purpose, and bumping the version invalidates every stored digest at once if ever needed.
const DIGEST_DOMAIN = "sdk-secret-v1\0";

/** Why a plaintext was refused; stable, for metrics and problem `reason` members. */
export type PartnerKeyFormatReason =
  | "not_a_string"
  | "empty"
  | "too_long"
  | "whitespace"
  | "wrong_prefix"
  | "wrong_shape"
  | "bad_key_id"
  | "bad_secret"
  | "bad_checksum";

/** Thrown when a string is not a well-formed partner key; the message says what is wrong. */
export class PartnerKeyFormatError extends Error {
  /** Stable machine-readable code (see `docs/errors.md`). */
  readonly code = "invalid_key_format" as const;
  /** Which check failed. */
  readonly reason: PartnerKeyFormatReason;

  /** Builds the error; `message` must never contain the secret. */
  constructor(reason: PartnerKeyFormatReason, message: string) {
    super(message);
    this.name = "PartnerKeyFormatError";
    this.reason = reason;
  }
}

/** A freshly generated key: the plaintext is shown once; only `keyId` and `digest` are stored. */
export interface GeneratedPartnerKey {
  keyId: string;
  secret: string;
  plaintext: string;
  digest: string;
}

/**
 * Generates a new partner key from the CSPRNG.
 *
 * @example
 * ```ts
 * const { keyId, plaintext, digest } = await generatePartnerKey();
 * // store { keyId, digest }; show `plaintext` to the partner once
 * ```
 */
export async function generatePartnerKey(): Promise<GeneratedPartnerKey> {
  const keyId = "k" + randomBase32(KEY_ID_RANDOM_CHARS);
  const random = randomBase32(SECRET_RANDOM_CHARS);
  const secret = random + checksum(keyId, random);
  const digest = await digestSecret(keyId, secret);
  return { keyId, secret, plaintext: `${KEY_PREFIX}${keyId}_${secret}`, digest };
}

/**
 * A key for an existing `keyId` with a fresh secret (rolling a key keeps its keyId): `random`'s
 * first 32 characters are the random part, the checksum is recomputed for this keyId.
 *
 * @example
 * ```ts
 * const { plaintext, digest } = await secretForKeyId(keyId, (await generatePartnerKey()).secret);
 * ```
 */
export async function secretForKeyId(
  keyId: string,
  random: string,
): Promise<GeneratedPartnerKey> {
  if (!isWellFormedKeyId(keyId)) throw new TypeError("secretForKeyId needs a well-formed keyId.");
  const part = random.slice(0, SECRET_RANDOM_CHARS);
  if (!/^[a-z2-7]{32}$/.test(part)) {
    throw new TypeError("secretForKeyId needs 32 base32 characters.");
  }
  const secret = part + checksum(keyId, part);
  const digest = await digestSecret(keyId, secret);
  return { keyId, secret, plaintext: `${KEY_PREFIX}${keyId}_${secret}`, digest };
}

/**
 * Splits a plaintext key into its halves after checking length, prefix, shape, alphabet and
 * checksum; throws `PartnerKeyFormatError` (whose message never repeats the secret).
 *
 * @example
 * ```ts
 * const { keyId, secret } = parsePartnerKey("sdk_kabc…_…");
 * ```
 */
export function parsePartnerKey(plaintext: string): { keyId: string; secret: string } {
  if (typeof plaintext !== "string") {
    throw new PartnerKeyFormatError("not_a_string", "A partner key must be a string.");
  }
  // Length first: nothing below should spend time on (or echo) an arbitrarily long input.
  if (plaintext.length > PARTNER_KEY_MAX_LENGTH) {
    throw new PartnerKeyFormatError(
      "too_long",
      `A partner key is at most ${PARTNER_KEY_MAX_LENGTH} characters; this one has ${plaintext.length}.`,
    );
  }
  if (plaintext.length === 0) {
    throw new PartnerKeyFormatError("empty", "The partner key is empty.");
  }
  if (plaintext.trim() !== plaintext) {
    throw new PartnerKeyFormatError(
      "whitespace",
      "The partner key has leading or trailing whitespace; copy it without spaces or line breaks.",
    );
  }
  if (!plaintext.startsWith(KEY_PREFIX)) {
    throw new PartnerKeyFormatError("wrong_prefix", wrongPrefixMessage(plaintext));
  }
  const parts = plaintext.slice(KEY_PREFIX.length).split("_");
  if (parts.length !== 2) {
    throw new PartnerKeyFormatError(
      "wrong_shape",
      `A partner key has the shape sdk_<keyId>_<secret> with exactly two underscores; this one has ${parts.length}.`,
    );
  }
  const [keyId, secret] = parts;
  if (!isWellFormedKeyId(keyId)) {
    throw new PartnerKeyFormatError(
      "bad_key_id",
      // Not echoed: a key pasted in the wrong order would put the secret here.
      `The keyId (between "${KEY_PREFIX}" and the second "_") is malformed: a keyId is "k" followed ` +
        `by 20 characters from a-z and 2-7, and this one has ${keyId.length} characters.` +
        caseHint(keyId),
    );
  }
  if (!SECRET_PATTERN.test(secret)) {
    throw new PartnerKeyFormatError(
      "bad_secret",
      `The secret of key ${keyId} is malformed: it must be ${SECRET_CHARS} characters from a-z and 2-7, ` +
        `and has ${secret.length}.` + caseHint(secret),
    );
  }
  const random = secret.slice(0, SECRET_RANDOM_CHARS);
  if (secret.slice(SECRET_RANDOM_CHARS) !== checksum(keyId, random)) {
    throw new PartnerKeyFormatError(
      "bad_checksum",
      `The checksum of key ${keyId} does not match: the key was mistyped, truncated or altered. ` +
        "Copy it again from where it was saved when it was created.",
    );
  }
  return { keyId, secret };
}

/** Whether `s` has the shape of a keyId (`k` + 20 lowercase base32 characters). */
export function isWellFormedKeyId(s: string): boolean {
  return typeof s === "string" && KEY_ID_PATTERN.test(s);
}

/**
 * The stored form of a secret: base64url (unpadded) SHA-256 of
 * `"sdk-secret-v1\0" + keyId + "\0" + secret`.
 *
 * A fast hash is right here, unlike for passwords: the secret carries ≥ 128 bits of CSPRNG
 * entropy, so a leaked digest cannot be brute-forced and a slow KDF would only add latency (and a
 * CPU-exhaustion lever) to every server-flow mint. Binding the keyId means a digest copied onto
 * another key record does not verify there.
 *
 * @example
 * ```ts
 * const digest = await digestSecret(keyId, secret); // 43 characters
 * ```
 */
export async function digestSecret(keyId: string, secret: string): Promise<string> {
  if (typeof keyId !== "string" || typeof secret !== "string" || !keyId || !secret) {
    throw new TypeError("digestSecret needs a non-empty keyId and secret.");
  }
  // NUL separates the fields, so the encoding is only unambiguous if neither contains one.
  if (keyId.includes("\0") || secret.includes("\0")) {
    throw new TypeError("A keyId or secret cannot contain NUL.");
  }
  const input = new TextEncoder().encode(`${DIGEST_DOMAIN}${keyId}\0${secret}`);
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", input)));
}

/**
 * Whether `secret` is the secret whose digest for `keyId` is `storedDigest`; the comparison
 * takes the same time wherever the digests differ.
 *
 * @example
 * ```ts
 * const { keyId, secret } = parsePartnerKey(presented);
 * if (!(await secretMatches(keyId, secret, record.digest))) throw new Error("invalid_credentials");
 * ```
 */
export async function secretMatches(
  keyId: string,
  secret: string,
  storedDigest: string,
): Promise<boolean> {
  const presented = new TextEncoder().encode(await digestSecret(keyId, secret));
  const stored = new TextEncoder().encode(typeof storedDigest === "string" ? storedDigest : "");
  // Digest length is public (always 43), so a length mismatch only means a corrupt record; still
  // run one comparison so both paths do the same work.
  if (stored.length !== presented.length) {
    timingSafeEqual(presented, presented);
    return false;
  }
  return timingSafeEqual(presented, stored);
}

/**
 * A loggable form of a key: `sdk_<keyId>_…` when the keyId is well formed, else `sdk_…`; never
 * any character of the secret.
 *
 * @example
 * ```ts
 * redactPartnerKey("sdk_kabcdefghijklmnopqrst_…secret…"); // "sdk_kabcdefghijklmnopqrst_…"
 * ```
 */
export function redactPartnerKey(plaintext: string): string {
  if (typeof plaintext === "string" && plaintext.startsWith(KEY_PREFIX)) {
    const rest = plaintext.slice(KEY_PREFIX.length);
    const end = rest.indexOf("_");
    const keyId = end === -1 ? "" : rest.slice(0, end);
    if (isWellFormedKeyId(keyId)) return `${KEY_PREFIX}${keyId}_…`;
  }
  return `${KEY_PREFIX}…`;
}

/** `count` characters of lowercase base32, each from one CSPRNG byte. */
function randomBase32(count: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(count));
  let out = "";
  // 256 is a multiple of 32, so the low five bits of a uniform byte are uniform: no modulo bias.
  for (const b of bytes) out += BASE32[b & 31];
  return out;
}

/** The 7-character base32 checksum of a key's `keyId` and random secret part. */
function checksum(keyId: string, random: string): string {
  let n = crc32(new TextEncoder().encode(`${KEY_PREFIX}${keyId}_${random}`));
  let out = "";
  // 7 × 5 = 35 bits hold the 32-bit CRC; the leading digit is therefore always a-d.
  for (let i = 0; i < CHECKSUM_CHARS; i++) {
    out = BASE32[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}

/** CRC-32 (IEEE 802.3, as in zlib and GitHub token checksums), as an unsigned 32-bit integer. */
function crc32(bytes: Uint8Array): number {
  // Bitwise rather than table-driven: keys are ~60 bytes, and this keeps no module-level table.
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function wrongPrefixMessage(plaintext: string): string {
  if (plaintext.startsWith("sv1.")) {
    return `This is a session token (sv1.…), not a partner key; a partner key starts with "${KEY_PREFIX}".`;
  }
  if (plaintext.toLowerCase().startsWith(KEY_PREFIX)) {
    return `A partner key starts with "${KEY_PREFIX}" in lowercase.`;
  }
  if (isWellFormedKeyId(plaintext)) {
    return `This is a bare keyId; the server flow needs the whole key sdk_${plaintext}_<secret>.`;
  }
  return `A partner key starts with "${KEY_PREFIX}" (the shape is sdk_<keyId>_<secret>).`;
}

function caseHint(s: string): string {
  return /[A-Z]/.test(s) ? " Keys are lowercase; was it changed to upper case?" : "";
}
