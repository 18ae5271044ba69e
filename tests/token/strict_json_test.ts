import assert from "node:assert/strict";
import { TokenError } from "../../lib/token/errors.ts";
import { parseStrictJson, parseStrictJsonBytes } from "../../lib/token/strict_json.ts";

function reason(text: string): string | undefined {
  try {
    parseStrictJson(text);
    return undefined;
  } catch (err) {
    assert.ok(err instanceof TokenError, String(err));
    return err.reason;
  }
}

Deno.test("strict json - parses what JSON.parse parses, to the same value", () => {
  const texts = [
    "{}",
    "[]",
    ' { "a" : [ 1 , -2.5e3 , 0 , -0 , 1E+2 , 3e-1 ] , "b" : { "c" : null } } ',
    '{"s":"plain","e":"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude42","t":true,"f":false}',
    '"just a string"',
    "12345678901234567890",
    "\t\r\n null \t\r\n",
    '{"":1,"__proto__":{"x":1}}',
    '{"a":1,"A":2,"a ":3}',
  ];
  for (const text of texts) {
    assert.deepEqual(parseStrictJson(text), JSON.parse(text), text);
  }
  const proto = parseStrictJson('{"__proto__":{"x":1}}') as Record<string, unknown>;
  assert.ok(Object.hasOwn(proto, "__proto__"));
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
});

Deno.test("strict json - rejects what JSON.parse rejects (bad_json)", () => {
  const texts = [
    "",
    " ",
    "{",
    "}",
    '{"a"}',
    '{"a":}',
    '{"a":1,}',
    "[1,]",
    "[1 2]",
    "{a:1}",
    "{'a':1}",
    '"unterminated',
    '"tab\there"',
    '"bad \\x escape"',
    '"bad \\u12 escape"',
    "01",
    "1.",
    ".5",
    "-",
    "1e",
    "+1",
    "NaN",
    "Infinity",
    "tru",
    "nul",
    "{} {}",
    "\u00a0{}",
    "\uFEFF{}",
  ];
  for (const text of texts) {
    assert.throws(() => JSON.parse(text), SyntaxError, `JSON.parse accepted ${text}`);
    assert.equal(reason(text), "bad_json", JSON.stringify(text));
  }
});

Deno.test("strict json - duplicate member names are rejected at any depth", () => {
  for (
    const text of [
      '{"a":1,"a":1}',
      '{"a":1,"b":2,"a":3}',
      '{"a":1,"\\u0061":2}',
      '{"x":{"a":1,"a":2}}',
      '[{"a":1,"a":2}]',
      '{"__proto__":1,"__proto__":2}',
    ]
  ) {
    assert.equal(reason(text), "duplicate_key", text);
  }
  assert.equal(reason('{"a":1,"b":{"a":2}}'), undefined);
});

Deno.test("strict json - nesting is bounded", () => {
  assert.equal(reason("[".repeat(32) + "]".repeat(32)), undefined);
  assert.equal(reason("[".repeat(33) + "]".repeat(33)), "bad_json");
  assert.equal(reason('{"a":'.repeat(40) + "1" + "}".repeat(40)), "bad_json");
});

Deno.test("strict json - bytes must be UTF-8 without a byte-order mark", () => {
  assert.deepEqual(parseStrictJsonBytes(new TextEncoder().encode('{"é":"ü"}')), { é: "ü" });
  for (
    const bytes of [
      new Uint8Array([0x22, 0xc3, 0x22]), // truncated sequence
      new Uint8Array([0x22, 0xed, 0xa0, 0x80, 0x22]), // encoded surrogate
      new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), // BOM
    ]
  ) {
    assert.throws(
      () => parseStrictJsonBytes(bytes),
      (err) => err instanceof TokenError && err.reason === "bad_json",
    );
  }
});

Deno.test("strict json - a genuine U+FFFD is not mistaken for broken UTF-8", () => {
  const bytes = new TextEncoder().encode('{"s":"\uFFFD"}');
  assert.deepEqual(parseStrictJsonBytes(bytes), { s: "\uFFFD" });
});
