import assert from "node:assert/strict";
import { decodeBase64UrlStrict } from "../../lib/token/base64url.ts";
import {
  assertClaimTypes,
  CLAIM_NAMES,
  MAX_TOKEN_LIFETIME_S,
  type SessionClaims,
} from "../../lib/token/claims.ts";
import { signToken } from "../../lib/token/sign.ts";
import { verifyToken } from "../../lib/token/verify.ts";
import { newTestKey, NOW, validClaims } from "./token_test_utils.ts";

const key = await newTestKey();

Deno.test("token sign - payload members are in the fixed order, whatever the input order", () => {
  const claims = validClaims(key.kid);
  const shuffled = Object.fromEntries(Object.entries(claims).reverse()) as unknown as SessionClaims;
  const token = signToken(shuffled, key);
  const json = new TextDecoder().decode(decodeBase64UrlStrict(token.split(".")[1]));
  assert.deepEqual(Object.keys(JSON.parse(json)), [...CLAIM_NAMES]);
  assert.equal(token, signToken(claims, key), "Ed25519 is deterministic");
});

Deno.test("token sign - refuses what a verifier would reject", async (t) => {
  const cases: Array<[string, Partial<SessionClaims> | Record<string, unknown>]> = [
    ["kid of another key", { kid: "another-kid" }],
    ["wrong audience", { aud: "hub" }],
    ["wrong issuer", { iss: "kernel-api" }],
    ["lifetime too long", { exp: NOW + MAX_TOKEN_LIFETIME_S + 1 }],
    ["exp not after iat", { exp: NOW }],
    ["empty sub", { sub: "" }],
    ["fractional budget", { budget: 0.5 }],
    ["extra member", { extra: 1 }],
  ];
  for (const [name, overrides] of cases) {
    await t.step(name, () => {
      const claims = { ...validClaims(key.kid), ...overrides } as SessionClaims;
      assert.throws(() => signToken(claims, key), TypeError);
    });
  }
  await t.step("a token over MAX_TOKEN_LENGTH", () => {
    // JSON.stringify writes a control character as a 6-char escape; 8 such claims overflow 4096.
    const long = "\u0001".repeat(256);
    const claims = validClaims(key.kid, {
      sub: long,
      partner: long,
      project: long,
      origin: long,
      jti: long,
    });
    assert.throws(() => signToken(claims, key), /over 4096/);
  });
});

Deno.test("token claims - assertClaimTypes returns a fresh object in the fixed order", () => {
  const claims = validClaims("k");
  const checked = assertClaimTypes({ ...claims });
  assert.notEqual(checked, claims);
  assert.deepEqual(checked, claims);
  assert.deepEqual(Object.keys(checked), [...CLAIM_NAMES]);
  for (const value of [null, [], "x", 1, undefined]) {
    assert.throws(() => assertClaimTypes(value), /claims must be a JSON object/);
  }
});

Deno.test("token sign - a zero budget and the maximum lifetime round trip", async () => {
  const claims = validClaims(key.kid, { budget: 0, exp: NOW + MAX_TOKEN_LIFETIME_S });
  const token = signToken(claims, key);
  assert.deepEqual(await verifyToken(token, () => key.publicKey, { now: NOW }), claims);
});

Deno.test("token claims - a polluted Object.prototype cannot supply a missing claim", () => {
  const { budget: _, ...withoutBudget } = validClaims("k");
  const proto = Object.prototype as Record<string, unknown>;
  proto.budget = 5;
  try {
    assert.throws(() => assertClaimTypes(withoutBudget), /"budget" is missing/);
  } finally {
    delete proto.budget;
  }
});
