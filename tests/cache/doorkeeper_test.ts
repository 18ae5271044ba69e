import assert from "node:assert/strict";
import { Doorkeeper } from "@/lib/cache/doorkeeper.ts";

Deno.test("doorkeeper - a key is new once, then seen; keys that differ by one character are told apart", () => {
  const doorkeeper = new Doorkeeper();
  const body = '{"dag":{"nodes":{"width":{"op":"param","value":40}}}}';
  assert.equal(doorkeeper.seenBefore(body), false);
  assert.equal(doorkeeper.seenBefore(body), true);
  assert.equal(doorkeeper.seenBefore(body), true);
  assert.equal(doorkeeper.seenBefore(body.replace("40", "41")), false);
  assert.equal(doorkeeper.seenBefore(""), false);
  assert.equal(doorkeeper.seenBefore(""), true);
  // Non-Latin-1 text is fingerprinted by its code units, like any other.
  assert.equal(doorkeeper.seenBefore("Größe ✓"), false);
  assert.equal(doorkeeper.seenBefore("Größe ✓"), true);
  assert.equal(doorkeeper.seenBefore("Große ✓"), false);
});

Deno.test("doorkeeper - it remembers between half its window and its window of the latest keys, and no more", () => {
  const doorkeeper = new Doorkeeper(1000);
  const key = (i: number) => `p\n{"width":${i}}`;
  for (let i = 0; i < 10_000; i++) doorkeeper.seenBefore(key(i));
  assert.ok(doorkeeper.size <= 1000, `held ${doorkeeper.size} fingerprints`);
  assert.ok(doorkeeper.size >= 500, `held ${doorkeeper.size} fingerprints`);
  // The latest 500 are all remembered; the first 500 long forgotten.
  let recent = 0;
  for (let i = 9_500; i < 10_000; i++) if (doorkeeper.seenBefore(key(i))) recent++;
  assert.equal(recent, 500);
  let old = 0;
  for (let i = 0; i < 500; i++) if (doorkeeper.seenBefore(key(i))) old++;
  assert.ok(old <= 2, `${old} of 500 forgotten keys looked seen (fingerprint collisions)`);
});
