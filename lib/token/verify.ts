/**
 * Verifies `sv1.` session tokens. The order of checks is the security argument: cheap structural
 * checks first (size before anything, so junk costs nothing), then the signature, and only then
 * the claims. Nothing in the payload is trusted before the signature is checked, with one
 * exception explained at `kid` below.
 */

import { decodeBase64UrlStrictInto } from "./base64url.ts";
import {
  assertClaimTypes,
  assertClaimValues,
  isClaimString,
  MAX_TOKEN_LENGTH,
  type SessionClaims,
  TOKEN_PREFIX,
} from "./claims.ts";
import { ED25519_SIGNATURE_LENGTH, verifyEd25519 } from "./ed25519.ts";
import { TokenError } from "./errors.ts";
import { parseStrictJsonBytes } from "./strict_json.ts";

/** Length in chars of the unpadded base64url encoding of a 64-byte signature. */
const SIGNATURE_SEGMENT_LENGTH = 86;

const encoder = new TextEncoder();
// Fixed buffers reused by every verification, because a fresh ArrayBuffer per token costs several
// percent of a verify. They are only touched in synchronous stretches: the segments are decoded and
// the payload turned into a string before any await, and the signed bytes are written immediately
// before the (synchronous) `verifyEd25519`. So concurrent verifications never see each other's bytes.
/** Both segments, decoded for validation; a token of MAX_TOKEN_LENGTH chars always fits. */
const segmentScratch = new Uint8Array((MAX_TOKEN_LENGTH * 3) >> 2);
/** "sv1." + payload segment as ASCII bytes. */
const signedScratch = new Uint8Array(MAX_TOKEN_LENGTH);
/** The decoded signature. */
const signatureScratch = new Uint8Array(ED25519_SIGNATURE_LENGTH);

/** Looks up the public key for a `kid`; `undefined` means the kid is not known (yet). */
export type KeyResolver = (
  kid: string,
) => Promise<CryptoKey | undefined> | CryptoKey | undefined;

/** Options of `verifyToken`. */
export interface VerifyOptions {
  /** The current time in Unix seconds (pass the clock in, so tests can fix it). */
  now: number;
}

/**
 * Verifies an `sv1.` token and returns its claims. Throws `TokenError` (see `errors.ts` for the
 * reasons); `code` is `token_expired` only for an expired token.
 *
 * @example
 * ```ts
 * const claims = await verifyToken(token, (kid) => keyring.resolve(kid), {
 *   now: Math.floor(Date.now() / 1000),
 * });
 * ```
 */
export async function verifyToken(
  token: string,
  resolveKey: KeyResolver,
  options: VerifyOptions,
): Promise<SessionClaims> {
  if (typeof token !== "string") throw new TypeError("token must be a string");
  if (!Number.isFinite(options?.now)) throw new TypeError("options.now must be Unix seconds");
  if (token.length > MAX_TOKEN_LENGTH) {
    throw new TokenError("too_large", `token is longer than ${MAX_TOKEN_LENGTH} chars`);
  }
  if (!token.startsWith(TOKEN_PREFIX)) {
    throw new TokenError("bad_prefix", `token does not start with ${TOKEN_PREFIX}`);
  }
  const p = TOKEN_PREFIX.length;
  const dot = token.indexOf(".", p);
  if (dot === -1 || token.indexOf(".", dot + 1) !== -1) {
    throw new TokenError("malformed", "token must have exactly three dot-separated segments");
  }
  if (dot === p || dot === token.length - 1) {
    throw new TokenError("malformed", "token has an empty segment");
  }
  const payloadLength = decodeBase64UrlStrictInto(token.slice(p, dot), segmentScratch);
  const signatureSegment = token.slice(dot + 1);
  if (signatureSegment.length === SIGNATURE_SEGMENT_LENGTH) {
    // The one length a 64-byte signature can have; decode straight to where verify reads it.
    decodeBase64UrlStrictInto(signatureSegment, signatureScratch);
  } else {
    // Any other length is wrong, but a non-canonical segment is reported as such first.
    decodeBase64UrlStrictInto(signatureSegment, segmentScratch.subarray(payloadLength));
    throw new TokenError("bad_signature", "signature has the wrong length");
  }
  const payload = parseStrictJsonBytes(segmentScratch.subarray(0, payloadLength));
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw new TokenError("bad_json", "payload is not a JSON object");
  }

  // `kid` is the only member read before the signature is checked, because it is needed to pick
  // the key that checks the signature. It is used purely as a bounded lookup key: an attacker who
  // edits it can only select another of *our* public keys (which then fails to verify) or none
  // (at worst a key reload, which the resolvers rate-limit). Nothing else (aud, exp, …) may
  // influence control flow before verification, or an unauthenticated payload could probe the
  // verifier's logic. Own property only: a polluted Object.prototype must not supply it.
  const kid = Object.hasOwn(payload, "kid") ? payload.kid : undefined;
  if (!isClaimString(kid)) throw new TokenError("bad_claim_type", 'claim "kid" is missing or bad');
  const resolved = resolveKey(kid);
  let key: CryptoKey | undefined;
  if (resolved === undefined || resolved instanceof CryptoKey) {
    key = resolved;
  } else {
    key = await resolved;
    // Other verifications may have used the buffers meanwhile: decode the signature again.
    decodeBase64UrlStrictInto(signatureSegment, signatureScratch);
  }
  if (key === undefined) throw new TokenError("unknown_kid", "no public key for this kid");

  // No await between filling the buffers and the verify call (see the note on the buffers above).
  encoder.encodeInto(token.slice(0, dot), signedScratch);
  if (!verifyEd25519(key, signatureScratch, signedScratch.subarray(0, dot))) {
    throw new TokenError("bad_signature", "signature does not verify");
  }

  try {
    const claims = assertClaimTypes(payload);
    assertClaimValues(claims, options.now);
    return claims;
  } catch (err) {
    if (err instanceof TokenError) err.verifiedPayload = payload;
    throw err;
  }
}
