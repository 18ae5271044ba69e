import assert from "node:assert/strict";
import { verifyEd25519 } from "../../lib/token/ed25519.ts";

interface WycheproofTest {
  tcId: number;
  comment: string;
  flags: string[];
  msg: string;
  sig: string;
  result: "valid" | "invalid";
}

interface WycheproofFile {
  numberOfTests: number;
  testGroups: Array<{ publicKey: { pk: string }; tests: WycheproofTest[] }>;
}

const file: WycheproofFile = JSON.parse(
  await Deno.readTextFile(new URL("../fixtures/wycheproof/ed25519_test.json", import.meta.url)),
);

function hex(s: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

Deno.test("token ed25519 - accepts exactly the valid Wycheproof vectors", async () => {
  let total = 0;
  const wrong: string[] = [];
  for (const group of file.testGroups) {
    let key: CryptoKey | undefined;
    try {
      key = await crypto.subtle.importKey(
        "raw",
        hex(group.publicKey.pk),
        { name: "Ed25519" },
        true,
        [
          "verify",
        ],
      );
    } catch {
      key = undefined; // a key that does not import rejects every signature under it
    }
    for (const test of group.tests) {
      total++;
      const accepted = key !== undefined && verifyEd25519(key, hex(test.sig), hex(test.msg));
      if (accepted !== (test.result === "valid")) {
        wrong.push(`tcId ${test.tcId} (${test.result}, ${test.flags.join(",")}): ${test.comment}`);
      }
    }
  }
  assert.equal(total, 151);
  assert.equal(total, file.numberOfTests);
  assert.deepEqual(wrong, []);
});
