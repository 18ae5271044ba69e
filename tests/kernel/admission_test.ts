/**
 * Admission to the render pool, without workers: the default limits, the order of the refusals
 * (token, partner, hard cap, expected wait), the expected wait under the fair order, the
 * `Retry-After` each refusal carries, and the moving averages it is computed from. Time is a
 * number handed in, so nothing here depends on the machine's speed.
 */
import assert from "node:assert/strict";
import {
  Admission,
  type AdmissionLimits,
  admissionLimits,
  type AdmittedJob,
  NODE_WINDOW,
} from "@/lib/kernel/admission.ts";
import { ConfigError, loadConfig } from "@/lib/config.ts";
import { EvalError } from "@/lib/kernel/eval_errors.ts";
import { FairQueue, type Tenant } from "@/lib/kernel/fair_queue.ts";

interface Job extends AdmittedJob {
  tenant: Tenant;
}

/** A pool's bookkeeping without workers: admit, queue, and start jobs on `size` slots. */
function simulatedPool(size: number, limits: AdmissionLimits, initialEstimateMs = 1000) {
  const queue = new FairQueue<Job>(limits.tokenRunning);
  const admission = new Admission(size, limits, initialEstimateMs);
  return {
    queue,
    admission,
    /** Admits a job of `tenant` at `now` and starts whatever may start; throws when refused. */
    submit(tenant: Tenant, now = 0): Job {
      const job: Job = { tenant, estimateMs: admission.admit(queue, tenant, now) };
      queue.push(job);
      while (queue.running.size < size) {
        const next = queue.next();
        if (!next) break;
        next.startedAt = now;
      }
      return job;
    },
  };
}

function refusedWith(reason: string, retryAfter?: number) {
  return (err: unknown) => {
    assert.ok(err instanceof EvalError, String(err));
    assert.equal(err.code, "kernel_busy");
    assert.equal(err.reason, reason, err.message);
    assert.ok(err.retryAfter !== undefined && err.retryAfter >= 1, "a refusal says when to retry");
    if (retryAfter !== undefined) assert.equal(err.retryAfter, retryAfter, err.message);
    return true;
  };
}

const tenant = (partner: string, token: string): Tenant => ({ partner, token });

Deno.test("kernel - admission: default limits follow the pool size, overrides win", () => {
  assert.deepEqual(admissionLimits(1), {
    tokenInFlight: 4,
    tokenRunning: 1,
    partnerInFlight: 16,
    maxWaitMs: 5000,
    maxQueued: 32,
  });
  assert.deepEqual(admissionLimits(2), {
    tokenInFlight: 4,
    tokenRunning: 1,
    partnerInFlight: 32,
    maxWaitMs: 5000,
    maxQueued: 64,
  });
  assert.equal(admissionLimits(8).tokenRunning, 7, "one token leaves a worker for the others");
  const set = admissionLimits(2, {
    tokenInFlight: 10,
    tokenRunning: 5,
    partnerInFlight: 3,
    maxWaitMs: 0,
    maxQueued: 0,
  });
  assert.deepEqual(set, {
    tokenInFlight: 10,
    tokenRunning: 2, // never more than the pool
    partnerInFlight: 3,
    maxWaitMs: 0,
    maxQueued: 0,
  });
  assert.deepEqual(
    admissionLimits(2, { tokenInFlight: 0, tokenRunning: 0, partnerInFlight: 0 }),
    admissionLimits(2),
    "0 means the default (the environment's convention)",
  );
});

Deno.test("kernel - admission: the environment sets the limits, and bad values name the variable", () => {
  const defaults = loadConfig({});
  assert.deepEqual(
    [
      defaults.renderTokenConcurrency,
      defaults.renderTokenWorkers,
      defaults.renderPartnerConcurrency,
      defaults.renderQueueWaitMs,
    ],
    [4, 0, 0, 5000],
  );
  const set = loadConfig({
    RENDER_TOKEN_CONCURRENCY: "2",
    RENDER_TOKEN_WORKERS: "3",
    RENDER_PARTNER_CONCURRENCY: "10",
    RENDER_QUEUE_WAIT_MS: "0",
  });
  assert.deepEqual(
    [set.renderTokenConcurrency, set.renderTokenWorkers, set.renderPartnerConcurrency],
    [2, 3, 10],
  );
  assert.equal(set.renderQueueWaitMs, 0, "0: take a render only when a worker is free for it");
  for (
    const [name, value] of [
      ["RENDER_TOKEN_CONCURRENCY", "0"],
      ["RENDER_TOKEN_WORKERS", "65"],
      ["RENDER_PARTNER_CONCURRENCY", "-1"],
      ["RENDER_QUEUE_WAIT_MS", "1.5"],
    ]
  ) {
    assert.throws(
      () => loadConfig({ [name]: value }),
      (e: unknown) => e instanceof ConfigError && e.message.includes(name),
    );
  }
});

Deno.test("kernel - admission: a flooding token is held to its share and refused past its cap", () => {
  const pool = simulatedPool(2, admissionLimits(2));
  const flood = tenant("P", "flood");
  const first = pool.submit(flood);
  assert.equal(first.startedAt, 0, "a free worker takes it at once");
  assert.equal(pool.admission.expectedWait(pool.queue, flood, 0), 1000, "its next waits for it");
  for (let i = 0; i < 3; i++) pool.submit(flood);
  assert.equal(pool.queue.running.size, 1, "one token holds one of the two workers");
  assert.equal(pool.queue.queued, 3);
  // In flight: 4, the cap. The soonest of its jobs ends in 1 s (estimate 1 s, just started).
  assert.throws(() => pool.submit(flood, 0), refusedWith("token_concurrency", 1));
  assert.throws(() => pool.submit(flood, 900), refusedWith("token_concurrency", 1));

  // Another token of the same partner, and another partner, get the free worker.
  const sibling = pool.submit(tenant("P", "sibling"));
  assert.equal(sibling.startedAt, 0);
  assert.equal(pool.queue.running.size, 2);
  const other = tenant("Q", "victim");
  // Both workers busy: the victim waits for one of them, not for the flood's queue.
  assert.equal(pool.admission.expectedWait(pool.queue, other, 0), (1000 + 1000 + 1000) / 2);
  const victim = pool.submit(other);
  assert.equal(victim.startedAt, undefined);
  pool.queue.release(first);
  assert.equal(pool.queue.next(), victim, "the next free worker goes to the victim");
});

Deno.test("kernel - admission: a partner's tokens together are held to the partner cap", () => {
  const pool = simulatedPool(2, admissionLimits(2, { partnerInFlight: 3 }));
  for (const token of ["a", "b", "c"]) pool.submit(tenant("P", token));
  // The three started at 0 with a 1 s estimate; at 600 ms the first to end has 400 ms left.
  assert.throws(() => pool.submit(tenant("P", "d"), 600), refusedWith("partner_concurrency", 1));
  pool.submit(tenant("Q", "e"));
});

Deno.test("kernel - admission: past the expected-wait bound a job is refused at once, with Retry-After from the wait", () => {
  const pool = simulatedPool(1, admissionLimits(1, { maxWaitMs: 5000 }), 1000);
  pool.submit(tenant("A", "a"));
  // Each newcomer (its own partner) waits for the running job and for those queued before it.
  for (let i = 0; i < 4; i++) {
    const t = tenant(`B${i}`, `b${i}`);
    assert.equal(pool.admission.expectedWait(pool.queue, t, 0), 1000 * (i + 1));
    pool.submit(t);
  }
  const late = tenant("C", "c");
  const wait = pool.admission.expectedWait(pool.queue, late, 0);
  assert.equal(wait, 5000, "a wait equal to the bound is still admitted");
  pool.submit(late);
  const later = tenant("D", "d");
  assert.equal(pool.admission.expectedWait(pool.queue, later, 0), 6000);
  assert.throws(() => pool.submit(later), refusedWith("queue_full", 1));
  assert.equal(pool.queue.queued, 5, "nothing was queued for the refused job");

  // A bound of 0 holds nothing: only a job a free worker takes at once is admitted.
  const strict = simulatedPool(1, admissionLimits(1, { maxWaitMs: 0 }), 1000);
  strict.submit(tenant("A", "a"));
  assert.throws(() => strict.submit(tenant("B", "b")), refusedWith("queue_full", 1));
});

Deno.test("kernel - admission: Retry-After is when the expected wait falls back under the bound", () => {
  const pool = simulatedPool(1, admissionLimits(1, { maxWaitMs: 2000, tokenInFlight: 20 }), 3000);
  pool.submit(tenant("A", "a"));
  const next = tenant("B", "b");
  // The running job's 3 s, plus nothing queued: 3 s, 1 s over the bound.
  assert.throws(() => pool.submit(next), refusedWith("queue_full", 1));
  const busy = simulatedPool(1, admissionLimits(1, { maxWaitMs: 2000 }), 9000);
  busy.submit(tenant("A", "a"));
  // 9 s of running work, 7 s over the bound.
  assert.throws(() => busy.submit(next), refusedWith("queue_full", 7));
  // 8 s later the running job is past its estimate; a quarter of it is still expected.
  assert.equal(busy.admission.expectedWait(busy.queue, next, 8000), 9000 / 4);
  assert.throws(() => busy.submit(next, 8000), refusedWith("queue_full", 1));
});

Deno.test("kernel - admission: the hard cap on waiting jobs holds whatever the expected wait", () => {
  const limits = admissionLimits(1, { maxWaitMs: 600_000, maxQueued: 2 });
  const pool = simulatedPool(1, limits, 1);
  for (let i = 0; i < 3; i++) pool.submit(tenant(`P${i}`, `t${i}`));
  assert.equal(pool.queue.queued, 2);
  assert.throws(() => pool.submit(tenant("Z", "z")), refusedWith("queue_full", 1));
});

Deno.test("kernel - admission: averages are kept for the node and per token", () => {
  const admission = new Admission(2, admissionLimits(2), 100);
  const slow = tenant("P", "slow");
  const fast = tenant("Q", "fast");
  assert.equal(admission.estimate(slow), 100, "an untimed token gets the node's average");
  assert.equal(admission.averageMs, 100, "before any timing the node's average is the guess");
  admission.observe(slow, 3000);
  assert.equal(admission.estimate(slow), 3000, "a token's first timing is its estimate");
  assert.equal(admission.averageMs, 3000, "the node's first timing replaces the guess");
  admission.observe(fast, 10);
  admission.observe(slow, 2000);
  assert.equal(admission.estimate(slow), 3000 + 0.2 * (2000 - 3000));
  assert.equal(admission.estimate(fast), 10);
  assert.equal(admission.averageMs, (3000 + 10 + 2000) / 3, "the node's: the mean of its timings");
  admission.observe(fast, Number.NaN);
  assert.equal(admission.estimate(fast), 10, "a nonsense timing is ignored");
  assert.equal(admission.averageMs, (3000 + 10 + 2000) / 3);
});

Deno.test("kernel - admission: the node's average is the mean of its last 16 timings", () => {
  const admission = new Admission(2, admissionLimits(2), 250);
  const t = tenant("P", "t");
  for (let i = 0; i < NODE_WINDOW; i++) admission.observe(t, 1000);
  assert.equal(admission.averageMs, 1000);
  // 16 more, each pushing out one of the first: the mean follows exactly, then forgets them.
  for (let i = 1; i <= NODE_WINDOW; i++) {
    admission.observe(t, 100);
    assert.equal(admission.averageMs, (1000 * (NODE_WINDOW - i) + 100 * i) / NODE_WINDOW);
  }
  for (let i = 0; i < 10 * NODE_WINDOW + 3; i++) admission.observe(t, 0.1 * (i % 7));
  const last = Array.from(
    { length: NODE_WINDOW },
    (_, k) => 0.1 * ((10 * NODE_WINDOW + 3 - 1 - k) % 7),
  );
  assert.ok(Math.abs(admission.averageMs - last.reduce((a, b) => a + b) / NODE_WINDOW) < 1e-9);
});

/** A pool of 2 workers whose node has timed `timings`; then `clients` tenants of one partner. */
function burstAfter(timings: number[], clients: number) {
  const pool = simulatedPool(2, admissionLimits(2), 250);
  const timer = tenant("T", "timer");
  for (const ms of timings) pool.admission.observe(timer, ms);
  const refused: string[] = [];
  for (let c = 0; c < clients; c++) {
    try {
      pool.submit(tenant("shop", `shopper${c}`));
    } catch (err) {
      refused.push((err as EvalError).reason);
    }
  }
  return { pool, refused };
}

Deno.test("kernel - admission: a burst whose wait fits the bound is queued whole, one slow timing or not", () => {
  // 150 ms evaluations: 32 shoppers of one storefront, 2 workers, wait of the last ≈ 15 × 150 ms.
  const steady = Array.from({ length: NODE_WINDOW }, () => 150);
  assert.deepEqual(burstAfter(steady, 32).refused, []);
  // One evaluation took 8× the usual (a shared machine's hiccup): a moving average of weight 0.2
  // put the node at 363 ms and the last four shoppers' waits at 5.1–5.6 s, over the bound; the
  // mean of the last 16 (216 ms) keeps them at 3.5 s.
  const { pool, refused } = burstAfter([...steady.slice(1), 1200], 32);
  assert.deepEqual(refused, []);
  assert.equal(pool.queue.queued, 30);
  assert.equal(pool.queue.running.size, 2);
  const last = pool.admission.expectedWait(pool.queue, tenant("shop", "next"), 0);
  assert.ok(last < 5000, `expected wait ${last} ms`);
});

Deno.test("kernel - admission: a burst whose wait exceeds the bound is refused past it", () => {
  // 400 ms evaluations: on 2 workers, the 27th waits (2 running + 24 queued) × 400 ÷ 2 = 5.2 s.
  const { pool, refused } = burstAfter(Array.from({ length: NODE_WINDOW }, () => 400), 32);
  assert.equal(pool.queue.running.size + pool.queue.queued, 26);
  assert.deepEqual(refused, Array.from({ length: 6 }, () => "queue_full"));
  // A cold node: 32 shoppers before any timing wait at the 250 ms guess, 3.9 s, and get in.
  assert.deepEqual(burstAfter([], 32).refused, []);
});
