import assert from "node:assert/strict";
import zlib from "node:zlib";
import {
  compressionThreadsStarted,
  compressOffThread,
  RECYCLE_AFTER_JOBS,
} from "../../lib/http/compression_worker.ts";

const bytesOf = (i: number) => new TextEncoder().encode(`{"job":${i},"pad":"${"x".repeat(64)}"}`);

Deno.test("compression thread - replaced once idle after its jobs, every answer intact", async () => {
  // This module is the only user of the thread in its test process.
  assert.equal(compressionThreadsStarted(), 0);
  for (let i = 0; i < RECYCLE_AFTER_JOBS; i++) {
    const out = await compressOffThread(bytesOf(i), { coding: "gzip", quality: 6 });
    assert.deepEqual(new Uint8Array(zlib.gunzipSync(out)), bytesOf(i));
  }
  assert.equal(compressionThreadsStarted(), 1);
  // The thread that took them was let go once idle; the next job starts another.
  const br = await compressOffThread(bytesOf(-1), { coding: "br", quality: 10 });
  assert.deepEqual(new Uint8Array(zlib.brotliDecompressSync(br)), bytesOf(-1));
  assert.equal(compressionThreadsStarted(), 2);
  // Jobs in flight are never cut off: the thread is replaced only when none are waiting.
  const many = Array.from({ length: RECYCLE_AFTER_JOBS + 50 }, (_, i) => i);
  const outs = await Promise.all(
    many.map((i) => compressOffThread(bytesOf(i), { coding: "gzip", quality: 1 })),
  );
  outs.forEach((out, i) => assert.deepEqual(new Uint8Array(zlib.gunzipSync(out)), bytesOf(i)));
  assert.equal(compressionThreadsStarted(), 2);
  await compressOffThread(bytesOf(0), { coding: "gzip", quality: 1 });
  assert.equal(compressionThreadsStarted(), 3);
});
