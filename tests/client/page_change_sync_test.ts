import assert from "node:assert/strict";
import { ManualClock } from "@/lib/client/clock.ts";
import { FORM_SYNC_DEADLINE_MS, PageChangeSync } from "@/lib/client/page_change_sync.ts";

function sync() {
  const clock = new ManualClock(0);
  let synced = 0;
  const it = new PageChangeSync(() => synced++, FORM_SYNC_DEADLINE_MS, clock);
  return { clock, it, synced: () => synced };
}

/** Lets settled promises' callbacks run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

Deno.test("page change sync - a change in the form shows at once", () => {
  const { clock, it, synced } = sync();
  it.now();
  assert.equal(synced(), 1);
  assert.equal(it.waiting, false);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("page change sync - a page change shows with its model, not before", async () => {
  const { clock, it, synced } = sync();
  const answer = Promise.withResolvers<void>();
  it.withModel(answer.promise);
  await settle();
  await clock.advance(FORM_SYNC_DEADLINE_MS - 1);
  assert.equal(synced(), 0, "nothing shown while the render is on its way");
  assert.equal(it.waiting, true);
  answer.resolve();
  await settle();
  assert.equal(synced(), 1);
  assert.equal(it.waiting, false);
  assert.equal(clock.pendingTimers, 0, "the deadline is stopped");
  await clock.advance(10 * FORM_SYNC_DEADLINE_MS);
  assert.equal(synced(), 1);
});

Deno.test("page change sync - a slow render: the values show at the deadline, again with the model", async () => {
  const { clock, it, synced } = sync();
  const answer = Promise.withResolvers<void>();
  it.withModel(answer.promise);
  await clock.advance(FORM_SYNC_DEADLINE_MS);
  assert.equal(synced(), 1);
  assert.equal(it.waiting, false);
  // A failed render still leaves the form showing what was asked for.
  answer.reject(new Error("refused"));
  await settle();
  assert.equal(synced(), 2);
});

Deno.test("page change sync - changes in a row do not push the deadline back", async () => {
  const { clock, it, synced } = sync();
  const never = new Promise<void>(() => {});
  it.withModel(never);
  await clock.advance(60);
  it.withModel(never);
  assert.equal(clock.pendingTimers, 1);
  await clock.advance(FORM_SYNC_DEADLINE_MS - 60);
  assert.equal(synced(), 1, "shown one deadline after the first change");
  // A shopper's change meanwhile shows at once and stops a running deadline.
  it.withModel(never);
  it.now();
  assert.equal(synced(), 2);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("page change sync - disposed: earlier answers ignored, later changes synced", async () => {
  const { clock, it, synced } = sync();
  const answer = Promise.withResolvers<void>();
  it.withModel(answer.promise);
  it.dispose();
  assert.equal(clock.pendingTimers, 0);
  answer.resolve();
  await settle();
  await clock.advance(FORM_SYNC_DEADLINE_MS);
  assert.equal(synced(), 0, "nothing from before the dispose");
  // Mounted again (React's StrictMode unmounts and mounts once on trial): it works as before.
  it.withModel(Promise.resolve());
  await settle();
  assert.equal(synced(), 1);
  it.now();
  assert.equal(synced(), 2);
});
