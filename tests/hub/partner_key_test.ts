import assert from "node:assert/strict";
import { crc32 } from "node:zlib";
import {
  digestSecret,
  generatePartnerKey,
  isWellFormedKeyId,
  KEY_PREFIX,
  parsePartnerKey,
  PARTNER_KEY_MAX_LENGTH,
  PartnerKeyFormatError,
  type PartnerKeyFormatReason,
  redactPartnerKey,
  secretMatches,
} from "../../lib/hub/partner_key.ts";

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** Replaces the character at `i` with a different base32 character. */
function mutate(s: string, i: number, shift = 1): string {
  const next = BASE32[(BASE32.indexOf(s[i]) + shift) % 32];
  return s.slice(0, i) + next + s.slice(i + 1);
}

function assertFormatError(
  fn: () => unknown,
  reason: PartnerKeyFormatReason,
  fragment: string,
  label: string = reason,
): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof PartnerKeyFormatError, `${label}: not a PartnerKeyFormatError`);
    assert.equal(err.code, "invalid_key_format", label);
    assert.equal(err.reason, reason, `${label}: ${err.message}`);
    assert.ok(err.message.includes(fragment), `${label}: ${JSON.stringify(err.message)}`);
    return true;
  });
}

Deno.test("partner key - a generated key parses back into its halves", async () => {
  const key = await generatePartnerKey();
  assert.equal(key.plaintext, `${KEY_PREFIX}${key.keyId}_${key.secret}`);
  assert.deepEqual(parsePartnerKey(key.plaintext), { keyId: key.keyId, secret: key.secret });
  assert.equal(key.digest, await digestSecret(key.keyId, key.secret));
  assert.ok(key.plaintext.length <= PARTNER_KEY_MAX_LENGTH);
});

Deno.test("partner key - keyId and secret have the documented shape and no underscore", async () => {
  for (let i = 0; i < 50; i++) {
    const { keyId, secret, plaintext } = await generatePartnerKey();
    assert.ok(!keyId.includes("_") && !secret.includes("_"));
    assert.equal(plaintext.split("_").length, 3);
    assert.match(keyId, /^k[a-z2-7]{20}$/);
    assert.ok(isWellFormedKeyId(keyId));
    // 32 random base32 characters (160 bits ≥ 128) then a 7-character checksum.
    assert.match(secret, /^[a-z2-7]{39}$/);
    assert.ok((secret.length - 7) * 5 >= 128);
  }
});

Deno.test("partner key - the random part of the secret uses the whole base32 alphabet", async () => {
  // A biased or truncated generator would leave characters out over ~3,000 draws.
  const seen = new Set<string>();
  for (let i = 0; i < 100; i++) {
    const { secret } = await generatePartnerKey();
    for (const c of secret.slice(0, 32)) seen.add(c);
  }
  assert.equal(seen.size, 32);
});

Deno.test("partner key - the checksum is CRC-32 of sdk_<keyId>_<random part> in 7 base32 digits", async () => {
  // Checked against zlib's CRC-32 so the documented format can be reimplemented by partners.
  for (let i = 0; i < 20; i++) {
    const { keyId, secret } = await generatePartnerKey();
    let n = crc32(`sdk_${keyId}_${secret.slice(0, 32)}`);
    let expected = "";
    for (let d = 0; d < 7; d++, n = Math.floor(n / 32)) expected = BASE32[n % 32] + expected;
    assert.equal(secret.slice(32), expected);
  }
  // A hand-built key with a correct checksum parses; the format is not tied to the generator.
  const keyId = "k" + "a".repeat(20);
  const random = "b".repeat(32);
  let n = crc32(`sdk_${keyId}_${random}`);
  let sum = "";
  for (let d = 0; d < 7; d++, n = Math.floor(n / 32)) sum = BASE32[n % 32] + sum;
  assert.deepEqual(parsePartnerKey(`sdk_${keyId}_${random}${sum}`), {
    keyId,
    secret: random + sum,
  });
});

Deno.test("partner key - 1000 generated keys are unique", async () => {
  const keys = await Promise.all(Array.from({ length: 1000 }, () => generatePartnerKey()));
  assert.equal(new Set(keys.map((k) => k.keyId)).size, 1000);
  assert.equal(new Set(keys.map((k) => k.secret)).size, 1000);
  assert.equal(new Set(keys.map((k) => k.digest)).size, 1000);
});

Deno.test("partner key - any one-character change is refused by the checksum, before any digest", async () => {
  const { keyId, secret } = await generatePartnerKey();
  const realDigest = crypto.subtle.digest;
  let digests = 0;
  crypto.subtle.digest = (...args: Parameters<SubtleCrypto["digest"]>) => {
    digests++;
    return realDigest.apply(crypto.subtle, args);
  };
  try {
    for (let i = 0; i < secret.length; i++) {
      for (const shift of [1, 13, 31]) {
        assertFormatError(
          () => parsePartnerKey(`sdk_${keyId}_${mutate(secret, i, shift)}`),
          "bad_checksum",
          "checksum",
          `secret[${i}]+${shift}`,
        );
      }
    }
    // The checksum covers the keyId too: a key cannot be re-pointed at another keyId.
    for (let i = 1; i < keyId.length; i++) {
      assertFormatError(
        () => parsePartnerKey(`sdk_${mutate(keyId, i)}_${secret}`),
        "bad_checksum",
        "mistyped",
        `keyId[${i}]`,
      );
    }
    // Swapping two adjacent different characters (a common typo) is caught as well.
    for (let i = 0; i < secret.length - 1; i++) {
      if (secret[i] === secret[i + 1]) continue;
      const swapped = secret.slice(0, i) + secret[i + 1] + secret[i] + secret.slice(i + 2);
      assertFormatError(
        () => parsePartnerKey(`sdk_${keyId}_${swapped}`),
        "bad_checksum",
        "checksum",
      );
    }
    assert.equal(digests, 0, "parsePartnerKey must refuse without hashing anything");
  } finally {
    crypto.subtle.digest = realDigest;
  }
});

Deno.test("partner key - malformed plaintexts are refused with a reason and a clear message", async () => {
  const { keyId, secret, plaintext } = await generatePartnerKey();
  const rows: [string, string, PartnerKeyFormatReason, string][] = [
    ["empty", "", "empty", "empty"],
    ["too long", `${plaintext}${"a".repeat(PARTNER_KEY_MAX_LENGTH)}`, "too_long", "at most 128"],
    ["too long, even without the prefix", "x".repeat(129), "too_long", "has 129"],
    ["trailing newline", `${plaintext}\n`, "whitespace", "whitespace"],
    ["leading space", ` ${plaintext}`, "whitespace", "whitespace"],
    ["wrong prefix", `pk_${keyId}_${secret}`, "wrong_prefix", `starts with "sdk_"`],
    ["upper-case prefix", `SDK_${keyId}_${secret}`, "wrong_prefix", "lowercase"],
    ["a session token", "sv1.eyJhIjoxfQ.c2ln", "wrong_prefix", "session token"],
    ["a bare keyId", keyId, "wrong_prefix", "bare keyId"],
    ["no secret", `sdk_${keyId}`, "wrong_shape", "exactly two underscores"],
    [
      "an extra underscore in the secret",
      `sdk_${keyId}_${secret.slice(0, 10)}_${secret.slice(10)}`,
      "wrong_shape",
      "has 3",
    ],
    [
      "an extra underscore in the keyId",
      `sdk_${keyId.slice(0, 5)}_${keyId.slice(5)}_${secret}`,
      "wrong_shape",
      "underscores",
    ],
    ["a trailing underscore", `${plaintext}_`, "wrong_shape", "underscores"],
    ["short keyId", `sdk_${keyId.slice(0, -1)}_${secret}`, "bad_key_id", "20 characters"],
    ["keyId without the k", `sdk_a${keyId.slice(1)}_${secret}`, "bad_key_id", `"k"`],
    ["upper-case keyId", `sdk_${keyId.toUpperCase()}_${secret}`, "bad_key_id", "lowercase"],
    ["empty keyId", `sdk__${secret}`, "bad_key_id", "has 0 characters"],
    ["short secret", `sdk_${keyId}_${secret.slice(0, -1)}`, "bad_secret", "39 characters"],
    ["empty secret", `sdk_${keyId}_`, "bad_secret", "has 0"],
    [
      "secret with a digit outside base32",
      `sdk_${keyId}_${"1" + secret.slice(1)}`,
      "bad_secret",
      "a-z and 2-7",
    ],
    ["upper-case secret", `sdk_${keyId}_${secret.toUpperCase()}`, "bad_secret", "lowercase"],
  ];
  for (const [label, input, reason, fragment] of rows) {
    assertFormatError(() => parsePartnerKey(input), reason, fragment, label);
  }
});

Deno.test("partner key - refusal messages never repeat the secret", async () => {
  const { keyId, secret } = await generatePartnerKey();
  const inputs = [
    `sdk_${keyId}_${mutate(secret, 3)}`,
    `sdk_${keyId}_${secret.toUpperCase()}`,
    `sdk_${secret}_${keyId}`, // halves swapped
    `sdk_${keyId}_${secret}_x`,
    `SDK_${keyId}_${secret}`,
  ];
  for (const input of inputs) {
    assert.throws(() => parsePartnerKey(input), (err: unknown) => {
      assert.ok(err instanceof PartnerKeyFormatError);
      assert.ok(!err.message.toLowerCase().includes(secret.slice(0, 32)), err.message);
      return true;
    });
  }
});

Deno.test("partner key - a non-string is refused as malformed, not with a crash", () => {
  assertFormatError(() => parsePartnerKey(42 as unknown as string), "not_a_string", "string");
});

Deno.test("partner key - isWellFormedKeyId accepts only k + 20 base32 characters", () => {
  assert.ok(isWellFormedKeyId("k" + "a".repeat(20)));
  assert.ok(isWellFormedKeyId("k" + "234567abcdefghijklmn"));
  for (
    const bad of [
      "",
      "k",
      "k" + "a".repeat(19),
      "k" + "a".repeat(21),
      "K" + "a".repeat(20),
      "k" + "A".repeat(20),
      "k" + "1".repeat(20),
      "k" + "a".repeat(19) + "_",
      "sdk_k" + "a".repeat(20),
      "x" + "a".repeat(20),
    ]
  ) assert.equal(isWellFormedKeyId(bad), false, bad);
  assert.equal(isWellFormedKeyId(null as unknown as string), false);
});

Deno.test("partner key - digests round-trip and depend on keyId and secret", async () => {
  const a = await generatePartnerKey();
  const b = await generatePartnerKey();
  const digest = await digestSecret(a.keyId, a.secret);
  assert.match(digest, /^[A-Za-z0-9_-]{43}$/, "base64url SHA-256, unpadded");
  assert.equal(await digestSecret(a.keyId, a.secret), digest, "deterministic");
  assert.notEqual(await digestSecret(b.keyId, a.secret), digest, "bound to the keyId");
  assert.notEqual(await digestSecret(a.keyId, b.secret), digest);
  // Domain separation: not a bare SHA-256 of the secret.
  const bare = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(a.secret)),
  );
  const bareB64 = btoa(String.fromCharCode(...bare)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
  assert.notEqual(digest, bareB64);
});

Deno.test("partner key - digestSecret refuses inputs that would make the encoding ambiguous", async () => {
  await assert.rejects(digestSecret("", "secret"), TypeError);
  await assert.rejects(digestSecret("kabc", ""), TypeError);
  await assert.rejects(digestSecret("ka\0b", "secret"), TypeError);
  await assert.rejects(digestSecret("kab", "c\0secret"), TypeError);
});

Deno.test("partner key - secretMatches accepts the secret and refuses everything else", async () => {
  const key = await generatePartnerKey();
  const other = await generatePartnerKey();
  assert.equal(await secretMatches(key.keyId, key.secret, key.digest), true);
  // Same length, one character different.
  assert.equal(await secretMatches(key.keyId, mutate(key.secret, 0), key.digest), false);
  assert.equal(await secretMatches(key.keyId, other.secret, key.digest), false);
  // Right secret presented under another keyId.
  assert.equal(await secretMatches(other.keyId, key.secret, key.digest), false);
  // Another key's digest.
  assert.equal(await secretMatches(key.keyId, key.secret, other.digest), false);
  // Corrupt stored digests: wrong length, empty, not a string.
  assert.equal(await secretMatches(key.keyId, key.secret, key.digest.slice(1)), false);
  assert.equal(await secretMatches(key.keyId, key.secret, `${key.digest}=`), false);
  assert.equal(await secretMatches(key.keyId, key.secret, ""), false);
  assert.equal(await secretMatches(key.keyId, key.secret, null as unknown as string), false);
});

Deno.test("partner key - redaction keeps the keyId and never any of the secret", async () => {
  for (let i = 0; i < 20; i++) {
    const { keyId, secret, plaintext } = await generatePartnerKey();
    const redacted = redactPartnerKey(plaintext);
    assert.equal(redacted, `sdk_${keyId}_…`);
    for (let n = 0; n + 6 <= secret.length; n++) {
      assert.ok(!redacted.includes(secret.slice(n, n + 6)), "no 6-character run of the secret");
    }
    for (
      const malformed of [
        `sdk_${secret}_${keyId}`,
        `sdk_${keyId}${secret}`,
        `${keyId}_${secret}`,
        secret,
        "",
      ]
    ) {
      const r = redactPartnerKey(malformed);
      assert.ok(!r.includes(secret.slice(0, 6)) && !r.includes(secret.slice(-6)), r);
    }
  }
  assert.equal(redactPartnerKey("not a key"), "sdk_…");
});
