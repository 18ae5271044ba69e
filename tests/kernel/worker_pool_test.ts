/**
 * The render worker pool: concurrent jobs, deadlines that kill and replace only the late job's
 * worker, a bounded queue, typed errors from inside workers, crashes contained, aborts, and a
 * `close()` that leaves nothing running (the tests run under Deno's op and resource sanitizers).
 */
import assert from "node:assert/strict";
import type { Dag, DagNode } from "@/lib/kernel/dag_types.ts";
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
    return true;
  };
}

/** A worker module as a data URL (a stand-in that misbehaves on purpose). */
function workerSource(source: string): string {
  return `data:application/javascript,${encodeURIComponent(source)}`;
}

Deno.test("kernel - pool: default size is the core count clamped to 1–8", () => {
  const size = defaultPoolSize();
  assert.ok(size >= 1 && size <= 8);
  assert.equal(new WorkerPool().size, size);
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
  assert.deepEqual({ ...pool.stats(), replaced: 0 }, {
    workers: 1,
    busy: 1,
    queued: 1,
    replaced: 0,
  });
  await pool.close();
  await assert.rejects(running, isEval("kernel_busy", "pool_closed"));
  await assert.rejects(queued, isEval("kernel_busy", "pool_closed"));
  assert.equal(pool.stats().workers, 0);
  await assert.rejects(pool.evaluate(bracket()), isEval("kernel_busy", "pool_closed"));
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
