/**
 * A KV file locked by another connection: Deno KV gives up after its own 5 s wait, the store's
 * retry commits once the lock is gone, exactly once, and a refusal that is not "busy" is not
 * retried. The lock is real: SQLite's `BEGIN EXCLUSIVE` through `node:sqlite` on the same file.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { openKv } from "@/lib/store/kv.ts";
import { isKvBusy } from "@/lib/store/kv_busy_retry.ts";

Deno.test("kv busy retry - a commit refused while another connection holds the file applies once after it lets go", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await openKv(`${dir}/hub.kv`);
  try {
    await kv.set(["counter"], new Deno.KvU64(0n));
    const other = new DatabaseSync(`${dir}/hub.kv`);
    other.exec("BEGIN EXCLUSIVE");
    // Held past Deno KV's own 5 s busy wait, so the first attempt is refused.
    const release = setTimeout(() => {
      other.exec("COMMIT");
      other.close();
    }, 5_500);
    const res = await kv.atomic().sum(["counter"], 1n).set(["after"], "written").commit();
    clearTimeout(release);
    assert.equal(res.ok, true);
    assert.equal((await kv.get<Deno.KvU64>(["counter"])).value?.value, 1n);
    assert.equal((await kv.get(["after"])).value, "written");
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kv busy retry - only SQLite's busy refusal counts as busy", () => {
  assert.equal(isKvBusy(new TypeError("database is locked")), true);
  assert.equal(isKvBusy(new TypeError("Value too large (max 65536 bytes)")), false);
  assert.equal(isKvBusy("database is locked"), false);
});
