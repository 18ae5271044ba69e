/**
 * The fair order of the render pool: round-robin across partners, then across a partner's
 * tokens, first come first served within a token; a token's share of workers; the count of jobs
 * ahead of a new one; and tenants forgotten once they have nothing in flight.
 */
import assert from "node:assert/strict";
import { FairQueue, type Tenant } from "@/lib/kernel/fair_queue.ts";

interface TestJob {
  name: string;
  tenant: Tenant;
}

const job = (name: string, partner: string, token: string): TestJob => ({
  name,
  tenant: { partner, token },
});

/** Takes jobs until none may run, releasing each at once (a pool of one fast worker). */
function serveAll(queue: FairQueue<TestJob>): string[] {
  const order: string[] = [];
  for (let next = queue.next(); next; next = queue.next()) {
    order.push(next.name);
    queue.release(next);
  }
  return order;
}

Deno.test("kernel - fair queue: partners take turns, then a partner's tokens, a token's jobs in order", () => {
  const queue = new FairQueue<TestJob>(1);
  for (
    const j of [
      job("a1", "P", "a"),
      job("a2", "P", "a"),
      job("a3", "P", "a"),
      job("b1", "P", "b"),
      job("c1", "Q", "c"),
      job("c2", "Q", "c"),
      job("d1", "R", "d"),
    ]
  ) queue.push(j);
  assert.equal(queue.queued, 7);
  assert.deepEqual(serveAll(queue), ["a1", "c1", "d1", "b1", "c2", "a2", "a3"]);
  assert.equal(queue.queued, 0);
  assert.equal(queue.running.size, 0);
});

Deno.test("kernel - fair queue: a token running its share waits while other tokens run", () => {
  const queue = new FairQueue<TestJob>(1);
  const flood = Array.from({ length: 4 }, (_, i) => job(`f${i}`, "P", "flood"));
  for (const j of flood) queue.push(j);
  const first = queue.next();
  assert.equal(first?.name, "f0");
  assert.equal(queue.next(), undefined, "the flooding token already runs its one worker");
  queue.push(job("v1", "Q", "victim"));
  queue.push(job("s1", "P", "sibling"));
  assert.equal(queue.next()?.name, "v1");
  assert.equal(queue.next()?.name, "s1", "another token of the same partner runs too");
  assert.equal(queue.next(), undefined);
  assert.deepEqual(queue.counts({ partner: "P", token: "flood" }), {
    tokenQueued: 3,
    tokenRunning: 1,
    partnerQueued: 3,
    partnerRunning: 2,
  });
  queue.release(first!);
  assert.equal(queue.next()?.name, "f1", "its next job runs once its first one ended");
});

Deno.test("kernel - fair queue: a partner arriving during a flood goes before the flooder's next job", () => {
  const queue = new FairQueue<TestJob>(1);
  for (let i = 0; i < 3; i++) {
    queue.push(job(`x${i}`, "P", "x"));
    queue.push(job(`y${i}`, "P", "y"));
  }
  const x0 = queue.next()!;
  const y0 = queue.next()!;
  assert.deepEqual([x0.name, y0.name], ["x0", "y0"], "two tokens of one partner hold two workers");
  queue.push(job("v", "Q", "v"));
  queue.release(x0);
  assert.equal(queue.next()?.name, "v", "the first worker to free up goes to the newcomer");
  queue.release(y0);
  assert.equal(queue.next()?.name, "x1");
});

Deno.test("kernel - fair queue: ahead counts the jobs the fair order starts before a new one", () => {
  const queue = new FairQueue<TestJob>(1);
  const fresh = { partner: "Z", token: "z" };
  assert.equal(queue.ahead(fresh), 0);
  for (let i = 0; i < 10; i++) queue.push(job(`f${i}`, "P", "flood"));
  // A new partner waits for one turn of each partner with jobs queued, not for the whole flood.
  assert.equal(queue.ahead(fresh), 1);
  assert.equal(queue.ahead({ partner: "P", token: "flood" }), 10, "the flooder waits for itself");
  assert.equal(queue.ahead({ partner: "P", token: "sibling" }), 1);
  queue.push(job("q1", "Q", "q"));
  queue.push(job("q2", "Q", "q"));
  assert.equal(queue.ahead(fresh), 2);
  queue.push(job("z1", "Z", "z"));
  // z's second job comes in Z's second turn: z1, then a turn of P and of Q each, twice.
  assert.equal(queue.ahead(fresh), 1 + 2 + 2);
});

Deno.test("kernel - fair queue: release is idempotent and tenants with nothing in flight are forgotten", async (t) => {
  const queue = new FairQueue<TestJob>(2);
  const a = job("a", "P", "t");
  const b = job("b", "P", "t");
  queue.push(a);
  queue.push(b);
  await t.step("a queued job leaves the queue", () => {
    assert.equal(queue.release(b), "queued");
    assert.equal(queue.release(b), undefined);
    assert.equal(queue.queued, 1);
  });
  await t.step("a running job leaves the running set", () => {
    assert.equal(queue.next(), a);
    assert.equal(queue.release(a), "running");
    assert.equal(queue.release(a), undefined);
    assert.equal(queue.running.size, 0);
    assert.deepEqual(queue.counts(a.tenant), {
      tokenQueued: 0,
      tokenRunning: 0,
      partnerQueued: 0,
      partnerRunning: 0,
    });
    assert.deepEqual(queue.runningOf(a.tenant, "partner"), []);
  });
  await t.step("drain empties the queue but keeps running jobs", () => {
    const running = job("r", "P", "t");
    queue.push(running);
    queue.push(job("w1", "Q", "u"));
    queue.push(job("w2", "P", "t"));
    assert.equal(queue.next(), running);
    assert.deepEqual(queue.drain().map((j) => j.name).sort(), ["w1", "w2"]);
    assert.equal(queue.queued, 0);
    assert.deepEqual(queue.runningOf(running.tenant, "token"), [running]);
  });
});

Deno.test("kernel - fair queue: a share below one worker is refused", () => {
  assert.throws(() => new FairQueue(0), TypeError);
});
