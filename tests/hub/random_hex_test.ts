import assert from "node:assert/strict";
import { randomHex } from "../../lib/hub/random_hex.ts";

Deno.test("randomHex - lowercase hex of the asked length, never repeating across pool refills", () => {
  const seen = new Set<string>();
  // 16-byte ids: 256 per 4 KiB draw, so 2,000 of them cross several refills.
  for (let i = 0; i < 2000; i++) {
    const id = randomHex(16);
    assert.match(id, /^[0-9a-f]{32}$/);
    assert.ok(!seen.has(id), `repeated id ${id}`);
    seen.add(id);
  }
  // Odd sizes leave a tail that is not reused: the next draw starts a fresh pool.
  for (let i = 0; i < 500; i++) assert.match(randomHex(12), /^[0-9a-f]{24}$/);
  assert.equal(randomHex(4096).length, 8192);
});

Deno.test("randomHex - the bytes look uniform (every hex digit about equally often)", () => {
  const counts = new Map<string, number>();
  const text = Array.from({ length: 400 }, () => randomHex(64)).join("");
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  assert.equal(counts.size, 16);
  const expected = text.length / 16; // 3,200 per digit
  for (const [digit, n] of counts) {
    // Far outside chance (about 9 standard deviations) only if the bytes are not random.
    assert.ok(Math.abs(n - expected) < 500, `digit ${digit} appeared ${n} times`);
  }
});

Deno.test("randomHex - refuses sizes outside 1..4096", () => {
  for (const bad of [0, -1, 1.5, 4097, Number.NaN]) {
    assert.throws(() => randomHex(bad), RangeError);
  }
});
