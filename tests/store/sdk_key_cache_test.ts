/**
 * The mint path's key cache against a real Deno KV: a fresh record is served without a read, an
 * expired one is read again, the requests that miss it together share one read, and a read begun
 * before an invalidation is neither joined nor cached after it.
 */
import assert from "node:assert/strict";
import { SdkKeyCache } from "@/lib/store/sdk_key_cache.ts";
import { createSdkKey } from "@/lib/hub/sdk_keys.ts";
import { createPartner } from "@/lib/store/partners.ts";
import { createProject } from "@/lib/store/projects.ts";
import type { SdkKeyRecord } from "@/lib/store/sdk_keys.ts";

/**
 * `kv` with its `get` calls counted (everything else passes through); while `hold` is set, a read's
 * answer waits for it after the read itself.
 */
function countingReads(
  kv: Deno.Kv,
): { kv: Deno.Kv; reads: () => number; hold: { until?: Promise<void> } } {
  let reads = 0;
  const hold: { until?: Promise<void> } = {};
  const counted = new Proxy(kv, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== "function") return value;
      if (name === "get") {
        return async (...args: unknown[]) => {
          reads++;
          const until = hold.until;
          const answer = await value.apply(target, args);
          await until;
          return answer;
        };
      }
      return value.bind(target);
    },
  });
  return { kv: counted, reads: () => reads, hold };
}

/** Runs `test` with a fresh in-memory KV holding one partner, project and key labelled `label`. */
async function withKeyRecord(
  label: string,
  test: (kv: Deno.Kv, record: SdkKeyRecord) => Promise<void>,
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    const partner = await createPartner(kv, "Cache GmbH");
    await createProject(kv, { partnerId: partner.id, slug: "chair", title: "Chair" });
    const { record } = await createSdkKey(kv, {
      partnerId: partner.id,
      label,
      allowedOrigins: ["https://shop.example"],
      allowedProjects: ["chair"],
    });
    await test(kv, record);
  } finally {
    kv.close();
  }
}

Deno.test("sdk key cache - concurrent misses share one read; fresh hits read nothing", async () => {
  await withKeyRecord("cache", async (kv, record) => {
    const { kv: counted, reads } = countingReads(kv);
    const cache = new SdkKeyCache(counted, { ttlMs: 500 });

    const first = await Promise.all(Array.from({ length: 32 }, () => cache.get(record.keyId)));
    assert.equal(reads(), 1, "32 concurrent misses read once");
    for (const got of first) assert.equal(got?.keyId, record.keyId);

    await cache.get(record.keyId);
    assert.equal(reads(), 1, "a fresh record is served from the cache");

    await new Promise((resolve) => setTimeout(resolve, 600));
    const again = await Promise.all(Array.from({ length: 32 }, () => cache.get(record.keyId)));
    assert.equal(reads(), 2, "after the TTL, the misses share one read again");
    for (const got of again) assert.equal(got?.keyId, record.keyId);

    // Unknown keys are not cached (a new key works at once), but concurrent lookups still share.
    const unknown = await Promise.all(Array.from({ length: 8 }, () => cache.get("nosuchkey")));
    assert.deepEqual(unknown, Array(8).fill(null));
    assert.equal(reads(), 3);
    await cache.get("nosuchkey");
    assert.equal(reads(), 4, "a missing key is looked up again next time");
  });
});

Deno.test("sdk key cache - after invalidate, a read begun before it is not joined and not cached", async () => {
  await withKeyRecord("before", async (kv, record) => {
    const { kv: counted, reads, hold } = countingReads(kv);
    const cache = new SdkKeyCache(counted);

    let release = () => {};
    hold.until = new Promise<void>((resolve) => (release = resolve));
    const early = cache.get(record.keyId); // reads "before" now, answers once released
    assert.equal(reads(), 1);
    hold.until = undefined;
    // An edit made by this process: the record changes, then the cache forgets it.
    await kv.set(["sdk_keys", record.keyId], { ...record, label: "after" });
    cache.invalidate(record.keyId);

    const late = await cache.get(record.keyId);
    assert.equal(late?.label, "after", "a get after invalidate does not join the earlier read");
    assert.equal(reads(), 2);
    release();
    assert.equal((await early)?.label, "before");
    assert.equal(
      (await cache.get(record.keyId))?.label,
      "after",
      "the earlier read was not cached",
    );
    assert.equal(reads(), 2);
  });
});
