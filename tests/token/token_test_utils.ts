/**
 * Helpers for the token tests: a fresh key pair, valid claims with random ids, and a raw signer
 * that signs arbitrary payload bytes so tests can reach the checks behind the signature.
 */

import { encodeBase64Url } from "../../lib/token/base64url.ts";
import type { SessionClaims } from "../../lib/token/claims.ts";
import { TokenError, type TokenErrorReason } from "../../lib/token/errors.ts";
import { jwkThumbprint } from "../../lib/token/signing_keys.ts";
import assert from "node:assert/strict";

/** A test signing key with both halves. */
export interface TestKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

/** Fixed "now" for token tests, Unix seconds. */
export const NOW = 1_750_000_000;

/** Creates an Ed25519 key pair whose kid is its thumbprint. */
export async function newTestKey(): Promise<TestKey> {
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const kid = await jwkThumbprint(await crypto.subtle.exportKey("jwk", pair.publicKey));
  return { kid, privateKey: pair.privateKey, publicKey: pair.publicKey };
}

/** Valid claims for `kid`, issued at `NOW` for 30 minutes, with random ids. */
export function validClaims(kid: string, overrides: Partial<SessionClaims> = {}): SessionClaims {
  return {
    iss: "hub",
    aud: "kernel-api",
    sub: `user-${crypto.randomUUID()}`,
    partner: `partner-${crypto.randomUUID().slice(0, 8)}`,
    client_id: "kaaaaaaaaaaaaaaaaaaaa",
    project: "chair",
    origin: "https://shop.example",
    jti: crypto.randomUUID(),
    budget: 100,
    iat: NOW,
    exp: NOW + 1800,
    kid,
    ...overrides,
  };
}

/** Signs an arbitrary payload (JSON text or bytes) into an `sv1.` token, skipping all checks. */
export async function signRaw(payload: string | Uint8Array, key: TestKey): Promise<string> {
  const bytes = typeof payload === "string" ? new TextEncoder().encode(payload) : payload;
  const input = "sv1." + encodeBase64Url(bytes);
  const signature = await crypto.subtle.sign(
    "Ed25519",
    key.privateKey,
    new TextEncoder().encode(input),
  );
  return input + "." + encodeBase64Url(new Uint8Array(signature));
}

/** Asserts that `promise` rejects with a `TokenError` of this reason and the matching code. */
export async function assertTokenError(
  promise: Promise<unknown>,
  reason: TokenErrorReason,
): Promise<TokenError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof TokenError, `expected TokenError(${reason}), got ${caught}`);
  assert.equal(caught.reason, reason, caught.message);
  assert.equal(caught.code, reason === "expired" ? "token_expired" : "invalid_token");
  return caught;
}
