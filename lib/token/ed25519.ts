/**
 * Ed25519 (RFC 8032) signing and verification for `sv1.` tokens, synchronous, through `node:crypto`.
 *
 * Why not WebCrypto: in Deno, `crypto.subtle.sign`/`verify` cost 58–76 µs per call, against 16–21 µs
 * (sign) and 32–40 µs (verify) through `node:crypto` (measured on our 2-CPU machine;
 * docs/tokens.md), and they add a promise per call. The signatures are byte-identical (Ed25519 is
 * deterministic), and this path accepts exactly the Wycheproof `valid` vectors
 * (`tests/token/wycheproof_test.ts`), so keys stay WebCrypto
 * `CryptoKey`s everywhere (generation, JWK import/export, JWKS) and are converted to a `KeyObject`
 * once per key here.
 */
import { KeyObject, sign, verify } from "node:crypto";

/** Length in bytes of an Ed25519 signature. */
export const ED25519_SIGNATURE_LENGTH = 64;

/** `KeyObject` per `CryptoKey`; weak, so a retired key is freed with its `CryptoKey`. */
const keyObjects = new WeakMap<CryptoKey, KeyObject | null>();

function keyObjectOf(key: CryptoKey, type: "public" | "private"): KeyObject | null {
  // Only an Ed25519 key of the asked type converts; anything else never signs or verifies.
  if (key.type !== type) return null;
  let object = keyObjects.get(key);
  if (object === undefined) {
    object = key.algorithm.name === "Ed25519" ? KeyObject.from(key) : null;
    keyObjects.set(key, object);
  }
  return object;
}

/**
 * Verifies an Ed25519 signature, accepting exactly the Wycheproof `valid` vectors and refusing every
 * `invalid` one (S ≥ L malleability, edge values such as 0 or the group order, bad R encodings,
 * truncated, padded and overlapping signatures; `tests/token/wycheproof_test.ts`). A key of another
 * algorithm or type is `false`, never an exception. Synchronous: the caller may reuse its buffers as
 * soon as it returns.
 *
 * @example
 * ```ts
 * const ok = verifyEd25519(publicKey, signature, new TextEncoder().encode("message"));
 * ```
 */
export function verifyEd25519(
  publicKey: CryptoKey,
  signature: Uint8Array,
  message: Uint8Array,
): boolean {
  if (signature.length !== ED25519_SIGNATURE_LENGTH) return false;
  const key = keyObjectOf(publicKey, "public");
  if (key === null) return false;
  try {
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

/**
 * Signs `message` with an Ed25519 private key; throws `TypeError` for any other kind of key.
 *
 * @example
 * ```ts
 * const signature = signEd25519(keyring.signingKey().privateKey, bytes); // 64 bytes
 * ```
 */
export function signEd25519(privateKey: CryptoKey, message: Uint8Array): Uint8Array {
  const key = keyObjectOf(privateKey, "private");
  if (key === null) throw new TypeError("not an Ed25519 private key");
  const signature = sign(null, message, key);
  return new Uint8Array(signature.buffer, signature.byteOffset, signature.byteLength);
}
