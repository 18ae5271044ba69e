import assert from "node:assert/strict";
import {
  decodeBase64UrlStrict,
  decodeBase64UrlStrictInto,
  decodeBase64UrlStrictPortable,
  encodeBase64Url,
  encodeBase64UrlPortable,
} from "../../lib/token/base64url.ts";
import { TokenError } from "../../lib/token/errors.ts";

function decodeViaInto(s: string): Uint8Array {
  const target = new Uint8Array(s.length + 3);
  return target.slice(0, decodeBase64UrlStrictInto(s, target));
}

const decoders = [
  ["native", decodeBase64UrlStrict],
  ["portable", decodeBase64UrlStrictPortable],
  ["into a buffer", decodeViaInto],
] as const;

function rejects(decode: (s: string) => Uint8Array, input: string): boolean {
  try {
    decode(input);
    return false;
  } catch (err) {
    assert.ok(err instanceof TokenError);
    assert.equal(err.reason, "non_canonical_base64url");
    assert.equal(err.code, "invalid_token");
    return true;
  }
}

Deno.test("base64url - known vectors round trip (RFC 4648 §10, url alphabet, no padding)", async (t) => {
  const vectors: Array<[string, string]> = [
    ["", ""],
    ["f", "Zg"],
    ["fo", "Zm8"],
    ["foo", "Zm9v"],
    ["foob", "Zm9vYg"],
    ["fooba", "Zm9vYmE"],
    ["foobar", "Zm9vYmFy"],
  ];
  for (const [name, decode] of decoders) {
    await t.step(name, () => {
      for (const [plain, encoded] of vectors) {
        const bytes = new TextEncoder().encode(plain);
        assert.equal(encodeBase64Url(bytes), encoded);
        assert.equal(encodeBase64UrlPortable(bytes), encoded);
        assert.deepEqual(decode(encoded), bytes);
      }
      assert.equal(encodeBase64Url(new Uint8Array([251, 255])), "-_8");
      assert.deepEqual(decode("-_8"), new Uint8Array([251, 255]));
    });
  }
});

Deno.test("base64url - non-canonical inputs are rejected", async (t) => {
  const bad = [
    "Zg==", // padding
    "Zg=",
    "Zm9v====",
    "Zh", // nonzero trailing bits (2-char group)
    "Zm9", // nonzero trailing bits (3-char group)
    "A", // length 1 mod 4
    "Zm9vY",
    "Zm+v", // standard alphabet
    "Zm/v",
    "Zm9v\n", // whitespace
    " Zm9v",
    "Zm 9v",
    "Zm9\tv",
    "Zm9é",
    "Zm9v.",
    "=Zm9",
  ];
  for (const [name, decode] of decoders) {
    await t.step(name, () => {
      for (const input of bad) assert.ok(rejects(decode, input), JSON.stringify(input));
    });
  }
});

Deno.test("base64url - strict decoding equals 'decode then re-encode gives the input back'", () => {
  // Random strings over the alphabet plus the characters a lenient decoder skips or accepts.
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_AQgw= \n+/";
  const random = new Uint32Array(16_000);
  crypto.getRandomValues(random);
  for (let i = 0; i < random.length; i += 10) {
    let s = "";
    const length = random[i] % 9;
    for (let j = 1; j <= length; j++) s += chars[random[i + j] % chars.length];
    let canonical = false;
    try {
      canonical = encodeBase64UrlPortable(Uint8Array.fromBase64(s, { alphabet: "base64url" })) ===
        s;
    } catch {
      canonical = false;
    }
    for (const [name, decode] of decoders) {
      assert.equal(!rejects(decode, s), canonical, `${name} on ${JSON.stringify(s)}`);
    }
  }
});

Deno.test("base64url - random bytes round trip through both implementations", () => {
  for (let length = 0; length < 100; length++) {
    const bytes = crypto.getRandomValues(new Uint8Array(length));
    const encoded = encodeBase64Url(bytes);
    assert.equal(encodeBase64UrlPortable(bytes), encoded);
    for (const [, decode] of decoders) assert.deepEqual(decode(encoded), bytes);
  }
});

Deno.test("base64url - decoding into a buffer that is too small is a RangeError", () => {
  assert.throws(() => decodeBase64UrlStrictInto("Zm9vYmFy", new Uint8Array(5)), RangeError);
  assert.equal(decodeBase64UrlStrictInto("Zm9vYmFy", new Uint8Array(6)), 6);
});
