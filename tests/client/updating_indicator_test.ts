import assert from "node:assert/strict";
import { ManualClock } from "@/lib/client/clock.ts";
import { UPDATING_DELAY_MS, UpdatingIndicator } from "@/lib/client/updating_indicator.ts";

function indicator() {
  const clock = new ManualClock(0);
  const seen: boolean[] = [];
  const it = new UpdatingIndicator((show) => seen.push(show), UPDATING_DELAY_MS, clock);
  return { clock, seen, it };
}

Deno.test("updating indicator - a render shorter than the delay never shows it", async () => {
  const { clock, seen, it } = indicator();
  it.update(true);
  await clock.advance(UPDATING_DELAY_MS - 1);
  it.update(false);
  await clock.advance(10 * UPDATING_DELAY_MS);
  assert.deepEqual(seen, []);
  assert.equal(it.shown, false);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("updating indicator - shown once a render lasts the delay, hidden at once when it ends", async () => {
  const { clock, seen, it } = indicator();
  it.update(true);
  // A slider dragged: renders follow one another; the wait is not restarted by each.
  await clock.advance(100);
  it.update(true);
  await clock.advance(UPDATING_DELAY_MS - 100);
  assert.deepEqual(seen, [true]);
  it.update(true);
  assert.deepEqual(seen, [true], "said once while busy");
  it.update(false);
  assert.deepEqual(seen, [true, false]);
  // The next render waits the whole delay again.
  it.update(true);
  await clock.advance(UPDATING_DELAY_MS - 1);
  assert.deepEqual(seen, [true, false]);
  await clock.advance(1);
  assert.deepEqual(seen, [true, false, true]);
});

Deno.test("updating indicator - dispose stops a pending timer", async () => {
  const { clock, seen, it } = indicator();
  it.update(true);
  it.dispose();
  await clock.advance(10 * UPDATING_DELAY_MS);
  assert.deepEqual(seen, []);
  assert.equal(clock.pendingTimers, 0);
});
