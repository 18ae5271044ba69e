/** The render path's cache of verified tokens (lib/token/verified_cache.ts): bounded, until exp. */
import assert from "node:assert/strict";
import { CachingTokenVerifier } from "@/lib/token/verified_cache.ts";
import {
  assertTokenError,
  newTestKey,
  NOW,
  signRaw,
  validClaims,
} from "../token/token_test_utils.ts";

Deno.test("verified tokens - a hit skips the signature, the cache is bounded, expiry still applies", async (t) => {
  const key = await newTestKey();
  let now = NOW * 1000;
  let resolves = 0;
  const verifier = new CachingTokenVerifier((kid) => {
    resolves++;
    return Promise.resolve(kid === key.kid ? key.publicKey : undefined);
  }, { clock: () => now, max: 2 });
  const tokens = await Promise.all(
    [1, 2, 3].map(() => signRaw(JSON.stringify(validClaims(key.kid)), key)),
  );

  await t.step("a repeated token is verified once", async () => {
    const first = await verifier.verify(tokens[0]);
    const again = await verifier.verify(tokens[0]);
    assert.deepEqual(again, first);
    assert.equal(resolves, 1);
  });
  await t.step("at most `max` tokens are held", async () => {
    await verifier.verify(tokens[1]);
    await verifier.verify(tokens[2]);
    assert.equal(verifier.size, 2);
    await verifier.verify(tokens[0]); // evicted: verified again
    assert.equal(resolves, 4);
  });
  await t.step("a cached token is refused once it expires (leeway included)", async () => {
    now = (NOW + 1800 + 61) * 1000;
    const err = await assertTokenError(verifier.verify(tokens[0]), "expired");
    assert.equal(err.verifiedPayload?.origin, "https://shop.example", "CORS can still answer");
  });
  await t.step("a forged token is never cached", async () => {
    now = NOW * 1000;
    const [h, p] = tokens[1].split(".");
    const forged = `${h}.${p}.${"A".repeat(86)}`;
    await assertTokenError(verifier.verify(forged), "bad_signature");
    await assertTokenError(verifier.verify(forged), "bad_signature");
    assert.equal(verifier.size, 2);
  });
});
