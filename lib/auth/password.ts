/**
 * Password hashing with argon2id at the OWASP minimum (m = 19456 KiB, t = 2, p = 1), a 16-byte
 * CSPRNG salt and a 32-byte tag, stored as a PHC string
 * `$argon2id$v=19$m=19456,t=2,p=1$<salt b64>$<hash b64>`. Verification re-derives with the
 * parameters in the stored string (so they can be raised later) and compares in constant time.
 */
import { timingSafeEqual } from "node:crypto";
import { argon2id } from "hash-wasm";

/** The argon2id cost parameters used for new hashes. */
export const PASSWORD_PARAMS = { memorySize: 19456, iterations: 2, parallelism: 1, hashLength: 32 };

/** Shortest and longest password accepted (long inputs would only burn CPU). */
export const PASSWORD_LENGTH = { min: 10, max: 256 } as const;

const PHC =
  /^\$argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,3}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/**
 * Hashes a password into a PHC string.
 *
 * @example
 * ```ts
 * const stored = await hashPassword("correct horse battery");
 * await verifyPassword("correct horse battery", stored); // true
 * ```
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(password, salt, PASSWORD_PARAMS);
  const p = PASSWORD_PARAMS;
  return `$argon2id$v=19$m=${p.memorySize},t=${p.iterations},p=${p.parallelism}$${b64(salt)}$${
    b64(hash)
  }`;
}

/** Whether `password` matches the PHC string `stored`; false for a malformed `stored`. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = PHC.exec(stored);
  if (!m) return false;
  const expected = unb64(m[5]);
  const params = {
    memorySize: Number(m[1]),
    iterations: Number(m[2]),
    parallelism: Number(m[3]),
    hashLength: expected.length,
  };
  // argon2 (hash-wasm) refuses an empty password. No account has one (PASSWORD_LENGTH.min), so
  // it matches nothing; it still costs a derivation, so its answer takes as long as a wrong one.
  const actual = await derive(password || "\u0000", unb64(m[4]), params);
  return password !== "" && actual.length === expected.length &&
    timingSafeEqual(actual, expected);
}

/**
 * The hash of a random, discarded password with the current parameters: verifying an unknown
 * email against it costs what a real check costs, and nothing can match it.
 */
export const DUMMY_PASSWORD_HASH =
  "$argon2id$v=19$m=19456,t=2,p=1$l01htjUWA6IpDlN6acR1OQ$JZ2aCYP0eXWwhHBvyRxhsVUfG28D7A1KojRWqFajQCM";

async function derive(
  password: string,
  salt: Uint8Array,
  p: typeof PASSWORD_PARAMS,
): Promise<Uint8Array> {
  return await argon2id({
    password: password.normalize("NFC"),
    salt,
    memorySize: p.memorySize,
    iterations: p.iterations,
    parallelism: p.parallelism,
    hashLength: p.hashLength,
    outputType: "binary",
  });
}

function b64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/=+$/, "");
}

function unb64(text: string): Uint8Array {
  const padded = text + "=".repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}
