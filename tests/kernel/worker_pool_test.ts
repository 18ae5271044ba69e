/**
 * The render worker pool: concurrent jobs, deadlines that kill and replace only the late job's
 * worker, fair admission (a token's share of workers, its cap, the fair order, the expected-wait
 * bound, each refusal with `retryAfter`), typed errors from inside workers, crashes contained,
 * aborts, and a `close()` that leaves nothing running (the tests run under Deno's op and resource
 * sanitizers). admission_test.ts and fair_queue_test.ts cover the arithmetic without workers.
 */
import assert from "node:assert/strict";
import type { Dag, DagNode } from "@/lib/dag/dag_types.ts";
import { EvalError } from "@/lib/kernel/eval_errors.ts";
import { evaluateDag } from "@/lib/kernel/evaluate.ts";
import { defaultPoolSize, WorkerPool } from "@/lib/kernel/worker_pool.ts";

const ref = (id: string) => ({ ref: id });

function dagOf(nodes: Record<string, unknown>): Dag {
  return {
    dag: 1,
    nodes: {
      ...nodes,
      part: { op: "part", name: "P", color: "#112233", child: ref("shape") },
      out: { op: "assembly", parts: [ref("part")] },
    } as Record<string, DagNode>,
    output: "out",
  };
}

/** A bracket with two holes: milliseconds of work. */
function bracket(width = 80): Dag {
  return dagOf({
    plate: { op: "box", size: [width, 40, 4] },
    hole: { op: "cylinder", height: 10, radius: 2.5, segments: 32, center: true },
    holes: { op: "linearRepeat", child: ref("hole"), count: 2, step: [40, 0, 0] },
    at: { op: "translate", child: ref("holes"), offset: [20, 20, 0] },
    shape: { op: "difference", base: ref("plate"), subtract: [ref("at")] },
  });
}

/** A union of 30 overlapping fine spheres: seconds of work. */
function heavy(): Dag {
  const nodes: Record<string, unknown> = { ball: { op: "sphere", radius: 10, segments: 256 } };
  const children = [];
  for (let i = 0; i < 30; i++) {
    nodes[`b${i}`] = { op: "translate", child: ref("ball"), offset: [i, i % 3, 0] };
    children.push(ref(`b${i}`));
  }
  nodes.shape = { op: "union", children };
  return dagOf(nodes);
}

function isEval(code: string, reason: string) {
  return (err: unknown) => {
    assert.ok(err instanceof EvalError, `not an EvalError: ${err}`);
    assert.equal(err.code, code, err.message);
    assert.equal(err.reason, reason, err.message);
    if (code === "kernel_busy" || code === "render_timeout") {
      assert.ok((err.retryAfter ?? 0) >= 1, `${reason} says when to retry`);
    }
    return true;
  };
}

const tenant = (partner: string, token: string) => ({ partner, token });

/** A worker module as a data URL (a stand-in that misbehaves on purpose). */
function workerSource(source: string): string {
  return `data:application/javascript,${encodeURIComponent(source)}`;
}

Deno.test("kernel - pool: default size is the core count clamped to 1–8", () => {
  const size = defaultPoolSize();
  assert.ok(size >= 1 && size <= 8);
  assert.equal(new WorkerPool().size, size);
});

Deno.test("kernel - pool: a DAG sent as the body text holding it gives the same scene and export", async () => {
  const pool = new WorkerPool({ size: 1 });
  try {
    // A render body: the DAG is its `dag` member, beside the request's other members.
    const body = JSON.stringify({ dag: bracket(70), version: 1, have: [] });
    const fromText = await pool.evaluate({ dagIn: body }, { deadlineMs: 30_000 });
    assert.deepEqual(fromText, await pool.evaluate(bracket(70), { deadlineMs: 30_000 }));
    assert.deepEqual(fromText, await evaluateDag(bracket(70)));
    const stl = (source: Parameters<WorkerPool["exportFile"]>[0]) =>
      pool.exportFile(source, "stl", "Bracket", { deadlineMs: 30_000 });
    assert.deepEqual(await stl({ dagIn: body }), await stl(bracket(70)));
    await assert.rejects(
      pool.evaluate({ dagIn: JSON.stringify({ dag: { ...bracket(70), output: "nowhere" } }) }),
      isEval("invalid_dag", "unknown_reference"),
    );
  } finally {
    await pool.close();
  }
});

Deno.test("kernel - pool: concurrent jobs give the same scenes as in-thread evaluation", async () => {
  const pool = new WorkerPool({ size: 2 });
  try {
    const dags = [bracket(60), bracket(70), bracket(80), bracket(90), bracket(60)];
    const scenes = await Promise.all(dags.map((dag) => pool.evaluate(dag, { deadlineMs: 30_000 })));
    const local = await evaluateDag(bracket(80));
    assert.deepEqual(scenes[2], local, "a worker computes the same bytes and hashes");
    assert.equal(scenes[0].parts[0].mesh, scenes[4].parts[0].mesh);
    assert.notEqual(scenes[0].parts[0].mesh, scenes[1].parts[0].mesh);
    assert.ok(pool.stats().workers <= 2);
  } finally {
    await pool.close();
  }
});

Deno.test("kernel - pool: a late job is killed, a concurrent job succeeds, the pool recovers", async () => {
  const pool = new WorkerPool({ size: 2 });
  try {
    await pool.warm();
    const started = performance.now();
    const [late, normal] = await Promise.allSettled([
      pool.evaluate(heavy(), { deadlineMs: 1 }),
      pool.evaluate(bracket(), { deadlineMs: 30_000 }),
    ]);
    assert.equal(late.status, "rejected");
    isEval("render_timeout", "deadline")((late as PromiseRejectedResult).reason);
    assert.equal((late as PromiseRejectedResult).reason.retryAfter, 1, "its deadline, rounded up");
    assert.equal(normal.status, "fulfilled");
    assert.ok(performance.now() - started < 3_000, "the heavy job did not run to its end");
    assert.equal(pool.stats().replaced, 1);
    assert.equal(pool.stats().workers, 2, "the killed worker was replaced");
    const after = await Promise.all([bracket(), bracket(50)].map((dag) => pool.evaluate(dag)));
    assert.equal(after.length, 2);
  } finally {
    await pool.close();
  }
});

Deno.test("kernel - pool: evaluation errors come back typed and keep the worker", async () => {
  const pool = new WorkerPool({ size: 1 });
  try {
    const dag = dagOf({
      z: { op: "sub", a: 3, b: 3 },
      d: { op: "div", a: 1, b: ref("z") },
      shape: { op: "box", size: [ref("d"), 1, 1] },
    });
    await assert.rejects(pool.evaluate(dag), (err: unknown) => {
      isEval("render_failed", "division_by_zero")(err);
      assert.equal((err as EvalError).pointer, "/nodes/d/b");
      return true;
    });
    assert.equal(pool.stats().replaced, 0);
    assert.ok((await pool.evaluate(bracket())).volume > 0);
  } finally {
    await pool.close();
  }
});

Deno.test("kernel - pool: a full queue refuses with kernel_busy; close rejects the rest", async () => {
  const pool = new WorkerPool({ size: 1, maxQueue: 1 });
  await pool.warm();
  const running = pool.evaluate(heavy(), { deadlineMs: 60_000 });
  const queued = pool.evaluate(bracket(), { deadlineMs: 60_000 });
  await assert.rejects(pool.evaluate(bracket()), isEval("kernel_busy", "queue_full"));
  const { averageMs: _, ...stats } = pool.stats();
  assert.deepEqual(stats, { workers: 1, busy: 1, queued: 1, replaced: 0, reusedNodes: 0 });
  await pool.close();
  await assert.rejects(running, isEval("kernel_busy", "pool_closed"));
  await assert.rejects(queued, isEval("kernel_busy", "pool_closed"));
  assert.equal(pool.stats().workers, 0);
  await assert.rejects(pool.evaluate(bracket()), isEval("kernel_busy", "pool_closed"));
});

Deno.test("kernel - pool: one token's flood holds one worker; other tokens are served meanwhile", async () => {
  const pool = new WorkerPool({ size: 2 });
  try {
    await pool.warm();
    assert.equal(pool.admissionLimits.tokenRunning, 1);
    assert.equal(pool.admissionLimits.tokenInFlight, 4);
    const flooder = tenant("partner-a", "flooder");
    let floodEnded = false;
    const flood = [heavy(), heavy(), bracket(61), bracket(62)].map((dag) =>
      pool.evaluate(dag, { deadlineMs: 60_000, tenant: flooder }).finally(() => floodEnded = true)
    );
    assert.equal(pool.stats().busy, 1, "the flooder's jobs wait for its one worker");
    assert.equal(pool.stats().queued, 3);
    await assert.rejects(
      pool.evaluate(bracket(63), { tenant: flooder }),
      isEval("kernel_busy", "token_concurrency"),
    );
    // Another partner's token, then another token of the flooder's partner: the free worker.
    for (const other of [tenant("partner-b", "victim"), tenant("partner-a", "sibling")]) {
      const scene = await pool.evaluate(bracket(70), { deadlineMs: 60_000, tenant: other });
      assert.ok(scene.volume > 0);
    }
    assert.equal(floodEnded, false, "served while the flood's first (heavy) job still runs");
    await pool.close();
    for (const result of await Promise.allSettled(flood)) {
      assert.equal(result.status, "rejected");
      isEval("kernel_busy", "pool_closed")(result.reason);
    }
  } finally {
    await pool.close();
  }
});

Deno.test("kernel - pool: waiting jobs go to the worker in the fair order, not first come first served", async () => {
  const pool = new WorkerPool({ size: 1 });
  try {
    await pool.warm();
    const order: string[] = [];
    const submit = (name: string, partner: string, token: string, width: number) =>
      pool.evaluate(bracket(width), { deadlineMs: 60_000, tenant: tenant(partner, token) })
        .then(() => order.push(name));
    await Promise.all([
      submit("x", "X", "x", 50), // takes the worker; the rest queue in this order
      submit("a1", "P", "a", 51),
      submit("a2", "P", "a", 52),
      submit("a3", "P", "a", 53),
      submit("b1", "P", "b", 54),
      submit("c1", "Q", "c", 55),
    ]);
    assert.deepEqual(order, ["x", "a1", "c1", "b1", "a2", "a3"]);
  } finally {
    await pool.close();
  }
});

Deno.test("kernel - pool: past the expected-wait bound or a partner's cap a job is refused at once", async () => {
  const pool = new WorkerPool({
    size: 1,
    initialEstimateMs: 1000,
    admission: { maxWaitMs: 100, partnerInFlight: 2 },
  });
  try {
    await pool.warm();
    const running = pool.evaluate(heavy(), { deadlineMs: 60_000, tenant: tenant("P", "a") });
    // The running job is expected to take 1 s; the bound is 100 ms.
    await assert.rejects(
      pool.evaluate(bracket(), { tenant: tenant("Q", "b") }),
      isEval("kernel_busy", "queue_full"),
    );
    const queued = new WorkerPool({ size: 1, admission: { partnerInFlight: 2 } });
    try {
      await queued.warm();
      const jobs = [
        queued.evaluate(heavy(), { deadlineMs: 60_000, tenant: tenant("P", "a") }),
        queued.evaluate(bracket(), { deadlineMs: 60_000, tenant: tenant("P", "b") }),
      ];
      await assert.rejects(
        queued.evaluate(bracket(), { tenant: tenant("P", "c") }),
        isEval("kernel_busy", "partner_concurrency"),
      );
      await queued.close();
      await Promise.allSettled(jobs);
    } finally {
      await queued.close();
    }
    await pool.close();
    await assert.rejects(running, isEval("kernel_busy", "pool_closed"));
  } finally {
    await pool.close();
  }
});

Deno.test("kernel - pool: a job that waits in the queue past its deadline is refused", async () => {
  const pool = new WorkerPool({ size: 1, maxQueue: 4, queueTimeoutMs: 50 });
  try {
    await pool.warm();
    const running = pool.evaluate(heavy(), { deadlineMs: 300 });
    await assert.rejects(pool.evaluate(bracket()), isEval("kernel_busy", "queue_timeout"));
    await assert.rejects(running, isEval("render_timeout", "deadline"));
  } finally {
    await pool.close();
  }
});

Deno.test("kernel - pool: a job with a short deadline waits in the queue as long as admission allows", async () => {
  // Python-mode renders have a 5 s deadline; the queue wait they were admitted under may be longer
  // (a loaded machine, a worker still starting): the wait is bounded by the later of the two.
  const pool = new WorkerPool({ size: 1, maxQueue: 4, admission: { maxWaitMs: 60_000 } });
  try {
    await pool.warm();
    const started = performance.now();
    const running = pool.evaluate(heavy(), { deadlineMs: 600 });
    const queued = pool.evaluate(bracket(), { deadlineMs: 100 }).then(
      () => "served",
      (err) => err instanceof EvalError ? `${err.code}/${err.reason}` : String(err),
    );
    await assert.rejects(running, isEval("render_timeout", "deadline"));
    const outcome = await queued;
    // It waited past its own 100 ms behind the 600 ms job and was not refused for waiting; on a
    // loaded machine its own evaluation may still hit its 100 ms deadline in the fresh worker.
    assert.ok(performance.now() - started >= 600, "it waited for the running job");
    assert.ok(
      outcome === "served" || outcome === "render_timeout/deadline",
      `not refused for its wait: ${outcome}`,
    );
  } finally {
    await pool.close();
  }
});

Deno.test("kernel - pool: aborting a running job kills only its worker", async () => {
  const pool = new WorkerPool({ size: 1 });
  try {
    await pool.warm();
    const controller = new AbortController();
    const running = pool.evaluate(heavy(), { deadlineMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error("client went away")), 50);
    await assert.rejects(running, /client went away/);
    assert.equal(pool.stats().replaced, 1);
    assert.ok((await pool.evaluate(bracket())).volume > 0);
  } finally {
    await pool.close();
  }
});

Deno.test("kernel - pool: a crashing worker is contained and replaced", async () => {
  const crashing = workerSource(`
    self.postMessage({ type: "ready" });
    self.onmessage = () => setTimeout(() => { throw new Error("boom"); }, 0);
  `);
  const pool = new WorkerPool({ size: 1, workerUrl: crashing });
  try {
    await assert.rejects(pool.evaluate(bracket()), isEval("internal_error", "worker_crashed"));
    assert.equal(pool.stats().replaced, 1);
    await assert.rejects(pool.evaluate(bracket()), isEval("internal_error", "worker_crashed"));
  } finally {
    await pool.close();
  }
});

Deno.test("kernel - pool: a worker that cannot start fails its job, without a restart loop", async () => {
  const broken = workerSource(`throw new Error("cannot load");`);
  const pool = new WorkerPool({ size: 2, workerUrl: broken });
  try {
    await assert.rejects(pool.evaluate(bracket()), isEval("internal_error", "worker_failed"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(pool.stats().workers, 0, "nothing waits, so nothing restarts");
  } finally {
    await pool.close();
  }
});
