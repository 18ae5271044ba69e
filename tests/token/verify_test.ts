import assert from "node:assert/strict";
import { decodeBase64UrlStrict, encodeBase64Url } from "../../lib/token/base64url.ts";
import {
  CLOCK_LEEWAY_S,
  MAX_TOKEN_LENGTH,
  MAX_TOKEN_LIFETIME_S,
  type SessionClaims,
} from "../../lib/token/claims.ts";
import { signToken } from "../../lib/token/sign.ts";
import { verifyEd25519 } from "../../lib/token/ed25519.ts";
import { verifyToken } from "../../lib/token/verify.ts";
import { TokenError } from "../../lib/token/errors.ts";
import {
  assertTokenError,
  newTestKey,
  NOW,
  signRaw,
  type TestKey,
  validClaims,
} from "./token_test_utils.ts";

const key = await newTestKey();
const resolver = (k: TestKey) => (kid: string) => kid === k.kid ? k.publicKey : undefined;
const resolve = resolver(key);
const never = (): CryptoKey => {
  throw new Error("the key must not be resolved for this input");
};

function validToken(overrides: Partial<SessionClaims> = {}): string {
  return signToken(validClaims(key.kid, overrides), key);
}

function segments(token: string): [string, string] {
  const [, payload, signature] = token.split(".");
  return [payload, signature];
}

Deno.test("token - sign then verify returns the claims", async (t) => {
  await t.step("with a budget", async () => {
    const claims = validClaims(key.kid);
    const token = signToken(claims, key);
    assert.match(token, /^sv1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{86}$/);
    assert.deepEqual(await verifyToken(token, resolve, { now: NOW }), claims);
  });
  await t.step("with an unlimited budget and an async resolver", async () => {
    const claims = validClaims(key.kid, { budget: null, sub: "ünïcødé 🙂" });
    const token = signToken(claims, key);
    const asyncResolve = (kid: string) => Promise.resolve(resolve(kid));
    assert.deepEqual(await verifyToken(token, asyncResolve, { now: NOW }), claims);
  });
  await t.step("at the edges of the clock leeway", async () => {
    const token = validToken();
    const claims = await verifyToken(token, resolve, { now: NOW + 1800 + CLOCK_LEEWAY_S });
    assert.equal(claims.exp, NOW + 1800);
    await verifyToken(token, resolve, { now: NOW - CLOCK_LEEWAY_S });
  });
  await t.step("with the longest allowed lifetime", async () => {
    const token = validToken({ exp: NOW + MAX_TOKEN_LIFETIME_S });
    await verifyToken(token, resolve, { now: NOW });
  });
});

Deno.test("token - too_large is checked before anything else", async (t) => {
  for (
    const [name, token] of [
      ["long junk", "x".repeat(MAX_TOKEN_LENGTH + 1)],
      ["long sv1 token", "sv1." + "A".repeat(MAX_TOKEN_LENGTH) + ".AAAA"],
    ]
  ) {
    await t.step(name, async () => {
      await assertTokenError(verifyToken(token, never, { now: NOW }), "too_large");
    });
  }
});

Deno.test("token - bad_prefix", async (t) => {
  const [payload, signature] = segments(validToken());
  for (
    const token of [
      "",
      "sv1",
      `sv2.${payload}.${signature}`,
      `SV1.${payload}.${signature}`,
      `${payload}.${signature}`,
      `eyJhbGciOiJFZERTQSJ9.${payload}.${signature}`,
      ` sv1.${payload}.${signature}`,
    ]
  ) {
    await t.step(JSON.stringify(token.slice(0, 12)), async () => {
      await assertTokenError(verifyToken(token, never, { now: NOW }), "bad_prefix");
    });
  }
});

Deno.test("token - malformed segments", async (t) => {
  const [payload, signature] = segments(validToken());
  for (
    const token of [
      "sv1.",
      "sv1..",
      `sv1.${payload}`,
      `sv1.${payload}.`,
      `sv1..${signature}`,
      `sv1.${payload}.${signature}.`,
      `sv1.${payload}.${signature}.${signature}`,
      `sv1.${payload}..${signature}`,
    ]
  ) {
    await t.step(token.replace(/[A-Za-z0-9_-]{10,}/g, "…"), async () => {
      await assertTokenError(verifyToken(token, never, { now: NOW }), "malformed");
    });
  }
});

Deno.test("token - non_canonical_base64url in either segment", async (t) => {
  const [payload, signature] = segments(validToken());
  // The signature is 64 bytes = 86 chars: its last char carries 2 data bits and 4 unused bits, so
  // canonical last chars are A, Q, g, w; the next char decodes to the same bytes.
  const respelled = signature.slice(0, -1) +
    ({ A: "B", Q: "R", g: "h", w: "x" } as Record<string, string>)[signature.at(-1) ?? ""];
  const cases: Array<[string, string]> = [
    ["padding on payload", `sv1.${payload}==.${signature}`],
    ["padding on signature", `sv1.${payload}.${signature}==`],
    ["standard alphabet +", `sv1.+${payload.slice(1)}.${signature}`],
    ["standard alphabet /", `sv1.${payload}./${signature.slice(1)}`],
    ["whitespace", `sv1.${payload.slice(0, 4)} ${payload.slice(5)}.${signature}`],
    ["length 1 mod 4", `sv1.${payload}.${signature.slice(0, -1)}`],
    ["non-ASCII", `sv1.${payload.slice(0, -1)}é.${signature}`],
    ["nonzero trailing bits", `sv1.${payload}.${respelled}`],
  ];
  for (const [name, token] of cases) {
    await t.step(name, async () => {
      await assertTokenError(verifyToken(token, never, { now: NOW }), "non_canonical_base64url");
    });
  }
});

Deno.test("token - bad_json when the payload is not a JSON object", async (t) => {
  const cases: Array<[string, string | Uint8Array]> = [
    ["not JSON", "not json"],
    ["array", "[]"],
    ["null", "null"],
    ["number", "42"],
    ["string", '"sv1"'],
    ["trailing comma", '{"kid":"k",}'],
    ["trailing data", '{"kid":"k"} x'],
    ["single quotes", "{'kid':'k'}"],
    ["byte-order mark", "\uFEFF{}"],
    ["invalid UTF-8", new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])],
  ];
  for (const [name, payload] of cases) {
    await t.step(name, async () => {
      const token = await signRaw(payload, key);
      await assertTokenError(verifyToken(token, never, { now: NOW }), "bad_json");
    });
  }
});

Deno.test("token - duplicate_key even when JSON.parse would keep the last one", async (t) => {
  const claims = validClaims(key.kid, { aud: "other-api" as "kernel-api" });
  const base = JSON.stringify(claims);
  for (
    const [name, payload] of [
      ["aud twice, last one valid", base.slice(0, -1) + ',"aud":"kernel-api"}'],
      ["kid twice", base.slice(0, -1) + `,"kid":"${key.kid}"}`],
      ["escaped spelling of the same name", base.slice(0, -1) + ',"\\u0061ud":"kernel-api"}'],
    ]
  ) {
    await t.step(name, async () => {
      const token = await signRaw(payload, key);
      await assertTokenError(verifyToken(token, never, { now: NOW }), "duplicate_key");
    });
  }
});

Deno.test("token - bad_claim_type names the claim", async (t) => {
  const base = validClaims(key.kid);
  // A string is used as the payload text as is; an object is serialized.
  const cases: Array<[string, Record<string, unknown> | string, string]> = [
    ["sub is a number", { ...base, sub: 7 }, "sub"],
    ["partner is empty", { ...base, partner: "" }, "partner"],
    ["origin is too long", { ...base, origin: "o".repeat(257) }, "origin"],
    ["aud is an array", { ...base, aud: ["kernel-api"] }, "aud"],
    ["iss is null", { ...base, iss: null }, "iss"],
    ["budget is negative", { ...base, budget: -1 }, "budget"],
    ["budget is fractional", { ...base, budget: 1.5 }, "budget"],
    ["budget is a string", { ...base, budget: "10" }, "budget"],
    ["iat is a string", { ...base, iat: String(NOW) }, "iat"],
    ["exp is not safe", { ...base, exp: 2 ** 53 }, "exp"],
    ["jti is missing", { ...base, jti: undefined }, "jti"],
    ["budget is missing", { ...base, budget: undefined }, "budget"],
    ["unknown member", { ...base, admin: true }, "admin"],
    ["__proto__ member", JSON.stringify(base).slice(0, -1) + ',"__proto__":{}}', "__proto__"],
  ];
  for (const [name, payload, claim] of cases) {
    await t.step(name, async () => {
      const text = typeof payload === "string" ? payload : JSON.stringify(payload);
      const token = await signRaw(text, key);
      const err = await assertTokenError(
        verifyToken(token, resolve, { now: NOW }),
        "bad_claim_type",
      );
      assert.match(err.message, new RegExp(`"${claim}"`));
    });
  }
  await t.step("kid is not a string (checked before any key lookup)", async () => {
    const token = await signRaw(JSON.stringify({ ...base, kid: 1 }), key);
    const err = await assertTokenError(verifyToken(token, never, { now: NOW }), "bad_claim_type");
    assert.match(err.message, /"kid"/);
  });
});

Deno.test("token - unknown_kid", async (t) => {
  const token = validToken();
  await t.step("sync resolver", async () => {
    await assertTokenError(verifyToken(token, () => undefined, { now: NOW }), "unknown_kid");
  });
  await t.step("async resolver", async () => {
    const none = () => Promise.resolve(undefined);
    await assertTokenError(verifyToken(token, none, { now: NOW }), "unknown_kid");
  });
});

Deno.test("token - bad_signature", async (t) => {
  const token = validToken();
  const [payload, signature] = segments(token);
  const sigBytes = decodeBase64UrlStrict(signature);

  await t.step("signature moved onto another payload", async () => {
    const [otherPayload] = segments(validToken({ budget: 1_000_000 }));
    await assertTokenError(
      verifyToken(`sv1.${otherPayload}.${signature}`, resolve, { now: NOW }),
      "bad_signature",
    );
  });
  await t.step("one bit flipped", async () => {
    const flipped = sigBytes.slice();
    flipped[10] ^= 1;
    const forged = `sv1.${payload}.${encodeBase64Url(flipped)}`;
    await assertTokenError(verifyToken(forged, resolve, { now: NOW }), "bad_signature");
  });
  await t.step("signed by another key under our kid", async () => {
    const other = await newTestKey();
    const forged = signToken(validClaims(key.kid), { ...other, kid: key.kid });
    await assertTokenError(verifyToken(forged, resolve, { now: NOW }), "bad_signature");
  });
  for (const length of [0, 32, 63, 65, 128]) {
    await t.step(`signature of ${length} bytes (checked before the key lookup)`, async () => {
      const bytes = new Uint8Array(length);
      bytes.set(sigBytes.subarray(0, Math.min(length, 64)));
      const forged = `sv1.${payload}.${encodeBase64Url(bytes)}`;
      const expected = length === 0 ? "malformed" : "bad_signature";
      await assertTokenError(verifyToken(forged, never, { now: NOW }), expected);
    });
  }
  await t.step("claims are not looked at before the signature", async () => {
    const wrongAudience = validClaims(key.kid, { aud: "x" as "kernel-api", exp: NOW - 1 });
    const [otherPayload] = segments(await signRaw(JSON.stringify(wrongAudience), key));
    const forged = `sv1.${otherPayload}.${signature}`;
    await assertTokenError(verifyToken(forged, resolve, { now: NOW }), "bad_signature");
  });
});

Deno.test("token - bad_audience", async () => {
  const token = await signRaw(
    JSON.stringify(validClaims(key.kid, { aud: "hub" as "kernel-api" })),
    key,
  );
  await assertTokenError(verifyToken(token, resolve, { now: NOW }), "bad_audience");
});

Deno.test("token - bad_issuer", async () => {
  const claims = validClaims(key.kid, { iss: "someone-else" as "hub" });
  const token = await signRaw(JSON.stringify(claims), key);
  await assertTokenError(verifyToken(token, resolve, { now: NOW }), "bad_issuer");
});

Deno.test("token - expired maps to token_expired", async () => {
  const token = validToken();
  const err = await assertTokenError(
    verifyToken(token, resolve, { now: NOW + 1800 + CLOCK_LEEWAY_S + 1 }),
    "expired",
  );
  assert.equal(err.code, "token_expired");
});

Deno.test("token - issued_in_future", async () => {
  const token = validToken();
  await assertTokenError(
    verifyToken(token, resolve, { now: NOW - CLOCK_LEEWAY_S - 1 }),
    "issued_in_future",
  );
});

Deno.test("token - lifetime_too_long", async (t) => {
  for (
    const [name, exp] of [
      ["one second over the maximum", NOW + MAX_TOKEN_LIFETIME_S + 1],
      ["exp equals iat", NOW],
      ["exp before iat", NOW - 10],
    ] as const
  ) {
    await t.step(name, async () => {
      const token = await signRaw(JSON.stringify(validClaims(key.kid, { exp })), key);
      await assertTokenError(verifyToken(token, resolve, { now: NOW }), "lifetime_too_long");
    });
  }
});

Deno.test("token - verifyToken rejects a missing clock early", async () => {
  const token = validToken();
  await assert.rejects(verifyToken(token, resolve, { now: Number.NaN }), TypeError);
});

Deno.test("token - tokens signed here verify with WebCrypto, and WebCrypto's with verifyEd25519", async () => {
  // The hub signs through node:crypto (ed25519.ts); JWKS consumers may verify with WebCrypto.
  const token = signToken(validClaims(key.kid), key);
  const dot = token.lastIndexOf(".");
  const message = new TextEncoder().encode(token.slice(0, dot));
  const signature = decodeBase64UrlStrict(token.slice(dot + 1));
  assert.equal(await crypto.subtle.verify("Ed25519", key.publicKey, signature, message), true);
  const theirs = new Uint8Array(await crypto.subtle.sign("Ed25519", key.privateKey, message));
  assert.deepEqual(theirs, signature, "Ed25519 is deterministic: the same bytes either way");
  assert.equal(verifyEd25519(key.publicKey, theirs, message), true);
  theirs[0] ^= 1;
  assert.equal(verifyEd25519(key.publicKey, theirs, message), false);
});

Deno.test("token - verifyEd25519 is false, not an exception, for a key that cannot verify", async () => {
  const message = new TextEncoder().encode("sv1.payload");
  const signature = new Uint8Array(await crypto.subtle.sign("Ed25519", key.privateKey, message));
  assert.equal(verifyEd25519(key.privateKey, signature, message), false, "a private key");
  const hmac = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, [
    "verify",
  ]);
  assert.equal(verifyEd25519(hmac, signature, message), false, "another algorithm");
  assert.equal(verifyEd25519(key.publicKey, signature.subarray(0, 63), message), false, "short");
});

Deno.test("token - concurrent verifications never mix up their bytes", async () => {
  const other = await newTestKey();
  const keys = new Map([[key.kid, key.publicKey], [other.kid, other.publicKey]]);
  // A resolver that answers after a random delay, so verifications interleave at every await.
  const slowResolve = async (kid: string) => {
    const wait = Math.floor(Math.random() * 3);
    for (let i = 0; i < wait; i++) await new Promise((r) => setTimeout(r, 0));
    return keys.get(kid);
  };
  const cases = Array.from({ length: 60 }, (_, i) => {
    const signer = i % 2 === 0 ? key : other;
    const claims = validClaims(signer.kid, { budget: i });
    return { claims, token: signToken(claims, signer) };
  });
  // Forgeries: each payload with the signature of the next token from the same key.
  const forged = cases.map(({ token }, i) => {
    const donor = cases[(i + 2) % cases.length].token;
    return token.slice(0, token.lastIndexOf(".")) + donor.slice(donor.lastIndexOf("."));
  });
  const results = await Promise.allSettled([
    ...cases.map(({ token }) => verifyToken(token, slowResolve, { now: NOW })),
    ...forged.map((token) => verifyToken(token, slowResolve, { now: NOW })),
  ]);
  results.forEach((result, i) => {
    if (i < cases.length) {
      assert.equal(result.status, "fulfilled", `token ${i}`);
      assert.deepEqual(result.value, cases[i].claims);
    } else {
      assert.equal(result.status, "rejected", `forgery ${i - cases.length}`);
      assert.ok(result.reason instanceof TokenError);
      assert.equal(result.reason.reason, "bad_signature");
    }
  });
});
