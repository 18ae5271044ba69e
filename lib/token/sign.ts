/**
 * Signs `sv1.` session tokens: `sv1.<base64url(JSON claims)>.<base64url(Ed25519 signature over the
 * ASCII bytes of "sv1." + payload segment)>`. The hub refuses to sign what a verifier would reject,
 * so a bad mint fails loudly at the hub instead of as a mysterious 401 at the render node.
 */

import { encodeBase64Url } from "./base64url.ts";
import { signEd25519 } from "./ed25519.ts";
import {
  assertClaimTypes,
  assertClaimValues,
  MAX_TOKEN_LENGTH,
  type SessionClaims,
  TOKEN_PREFIX,
} from "./claims.ts";
import { TokenError } from "./errors.ts";

const encoder = new TextEncoder();

/** The private half of the current signing key, as `Keyring#signingKey()` returns it. */
export interface TokenSigningKey {
  /** Key id; must equal the token's `kid` claim. */
  kid: string;
  /** Ed25519 private key with usage `sign`. */
  privateKey: CryptoKey;
}

/**
 * Serializes `claims` in the fixed member order and signs them with Ed25519, synchronously on the
 * calling thread (`ed25519.ts`). Throws `TypeError` when
 * `claims.kid !== key.kid`, when a claim has the wrong type or value (`aud`, `iss`, lifetime), or
 * when the token would exceed `MAX_TOKEN_LENGTH`.
 *
 * @example
 * ```ts
 * const key = keyring.signingKey();
 * const now = Math.floor(Date.now() / 1000);
 * const token = signToken({
 *   iss: "hub", aud: "kernel-api", sub: "anon-1", partner: "acme", client_id: "k…", project: "chair",
 *   origin: "https://shop.example", jti: crypto.randomUUID(), budget: 100,
 *   iat: now, exp: now + 1800, kid: key.kid,
 * }, key);
 * ```
 */
export function signToken(claims: SessionClaims, key: TokenSigningKey): string {
  if (claims.kid !== key.kid) {
    throw new TypeError(`claims.kid (${claims.kid}) does not match the signing key (${key.kid})`);
  }
  let checked: SessionClaims;
  try {
    checked = assertClaimTypes(claims);
    // At now = iat the clock checks cannot fail, so this checks exactly aud, iss and lifetime.
    assertClaimValues(checked, checked.iat);
  } catch (err) {
    if (err instanceof TokenError) throw new TypeError(`refusing to sign: ${err.message}`);
    throw err;
  }
  // assertClaimTypes builds the object in CLAIM_NAMES order, so this JSON is stable.
  const payload = encodeBase64Url(encoder.encode(JSON.stringify(checked)));
  const signingInput = TOKEN_PREFIX + payload;
  const signature = signEd25519(key.privateKey, encoder.encode(signingInput));
  const token = signingInput + "." + encodeBase64Url(signature);
  if (token.length > MAX_TOKEN_LENGTH) {
    throw new TypeError(`token would be ${token.length} chars, over ${MAX_TOKEN_LENGTH}`);
  }
  return token;
}
