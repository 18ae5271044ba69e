import assert from "node:assert/strict";
import { decodeUtf8 } from "@/lib/http/utf8.ts";

const bytes = (...b: number[]) => new Uint8Array(b);

Deno.test("http - utf8: valid text decodes as TextDecoder does, a genuine U+FFFD included", () => {
  const samples = [
    '{"dag":{"nodes":[]}}',
    "Zahnrad ⚙ Ø12 — 齿轮 🦷",
    "replacement \uFFFD kept",
    "",
  ];
  for (const text of samples) {
    assert.equal(decodeUtf8(new TextEncoder().encode(text)), text);
  }
  assert.equal(decodeUtf8(bytes(0xef, 0xbb, 0xbf, 0x7b, 0x7d)), "{}", "a leading BOM is dropped");
});

Deno.test("http - utf8: invalid sequences are refused, wherever they are", () => {
  const invalid: [string, Uint8Array][] = [
    ["a lone continuation byte", bytes(0x7b, 0x80, 0x7d)],
    ["0xFF", bytes(0xff)],
    ["a truncated two-byte sequence at the end", bytes(0x61, 0xc3)],
    ["a truncated three-byte sequence before ASCII", bytes(0xe2, 0x82, 0x61)],
    ["an overlong '/'", bytes(0xc0, 0xaf)],
    ["an overlong NUL in three bytes", bytes(0xe0, 0x80, 0x80)],
    ["a UTF-16 surrogate", bytes(0xed, 0xa0, 0x80)],
    ["a code point above U+10FFFF", bytes(0xf4, 0x90, 0x80, 0x80)],
    ["a broken sequence beside a genuine U+FFFD", bytes(0xef, 0xbf, 0xbd, 0xff)],
  ];
  for (const [what, b] of invalid) assert.equal(decodeUtf8(b), undefined, what);
});
