/**
 * Hostile render bodies through the HTTP API, each refused by the step that owns it with its own
 * problem code and reason (docs/dag.md, "Limits"). "Fast" is shown by where the refusal comes
 * from (a body-size, parse or validation reason, never an evaluation or a deadline), not by timing.
 */
import assert from "node:assert/strict";
import { RenderCache } from "@/lib/render/render_cache.ts";
import { startTestServer } from "../_helpers/server.ts";
import { finishedDag } from "../_helpers/projects.ts";
import {
  assemblyOf,
  expectProblem,
  finish,
  type InlineProject,
  RENDER,
  render,
  schemaWith,
  setupRender,
} from "./render_helpers.ts";

/** A DAG with `extra` nodes merged in; the output is a box part, so only `extra` is hostile. */
function withNodes(extra: Record<string, unknown>) {
  return assemblyOf({ ...extra, boxNode: { op: "box", size: [1, 1, 1] } }, "boxNode");
}

/** Node i references node i+1 twice, `depth` deep: 2^depth nodes of work as a tree. */
function sharedReferenceBomb(depth: number) {
  const nodes: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) {
    nodes[`u${i}`] = { op: "union", children: [{ ref: `u${i + 1}` }, { ref: `u${i + 1}` }] };
  }
  nodes[`u${depth}`] = { op: "box", size: [1, 1, 1] };
  return assemblyOf(nodes, "u0");
}

/** `count` tiny arithmetic nodes: a node-count attack that fits under the body limit. */
function manyNodes(count: number) {
  const nodes: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) nodes[`n${i}`] = { op: "add", args: [i] };
  return withNodes(nodes);
}

Deno.test("render - hostile DAGs are refused before evaluation, each with its own code and reason", async (t) => {
  const server = await startTestServer({ env: { RENDER_WORKERS: "1" } });
  try {
    const s = await setupRender(server.deps.kv, server.url, { budget: 100 });
    const cases: { name: string; dag: unknown; reason: string; pointer: RegExp }[] = [
      {
        name: "a cycle",
        dag: withNodes({
          a: { op: "add", args: [{ ref: "b" }] },
          b: { op: "add", args: [{ ref: "a" }] },
        }),
        reason: "cycle",
        pointer: /^\/nodes\/[ab]\//,
      },
      {
        name: "a self-reference",
        dag: withNodes({ a: { op: "add", args: [{ ref: "a" }] } }),
        reason: "cycle",
        pointer: /^\/nodes\/a\//,
      },
      {
        name: "a deep shared-reference bomb (60 levels, each referenced twice)",
        dag: sharedReferenceBomb(60),
        reason: "expanded_cost",
        pointer: /^\/nodes\/u\d+$/,
      },
      {
        name: "a huge segment count",
        dag: withNodes({ ball: { op: "sphere", radius: 1, segments: 1_000_000_000 } }),
        reason: "out_of_range",
        pointer: /^\/nodes\/ball\/segments$/,
      },
      {
        name: "Infinity (1e999 parses as Infinity)",
        dag: '{"dag":1,"nodes":{"b":{"op":"box","size":[1e999,1,1]},' +
          '"p":{"op":"part","name":"P","color":"#ffffff","child":{"ref":"b"}},' +
          '"o":{"op":"assembly","parts":[{"ref":"p"}]}},"output":"o"}',
        reason: "out_of_range",
        pointer: /^\/nodes\/b\/size\/0$/,
      },
      {
        name: "2 001 nodes in a body under the size limit",
        dag: manyNodes(2001),
        reason: "too_many_nodes",
        pointer: /^\/nodes$/,
      },
    ];
    for (const c of cases) {
      await t.step(`${c.name} → 422 invalid_dag/${c.reason}`, async () => {
        const body = typeof c.dag === "string" ? `{"dag":${c.dag}}` : { dag: c.dag };
        const res = await render(server.url, s.token, s.origin, body);
        const problem = await expectProblem(res, 422, "invalid_dag");
        assert.equal(problem.reason, c.reason);
        assert.match(String(problem.pointer), c.pointer);
      });
    }
    await t.step("nothing reached the evaluator", () => {
      const cache = server.deps.render?.cache;
      assert.ok(cache instanceof RenderCache);
      assert.deepEqual(cache.counts(), { l1: 0, l2: 0, evaluations: 0 });
    });
    await t.step("a hostile DAG spends no budget (refused before the budget step)", async () => {
      const res = await render(server.url, s.token, s.origin, {
        dag: await finishedDag("plate"),
      });
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal((await res.json()).budget.remaining, 99);
    });
  } finally {
    await server.close();
  }
});

Deno.test("render - a literal NaN cannot be sent: 400 invalid_body", async () => {
  const server = await startTestServer();
  try {
    const s = await setupRender(server.deps.kv, server.url);
    const text = JSON.stringify({ dag: await finishedDag("plate") }).replace(
      '"value":80',
      '"value":NaN',
    );
    assert.ok(text.includes("NaN"));
    const problem = await expectProblem(
      await render(server.url, s.token, s.origin, text),
      400,
      "invalid_body",
    );
    assert.match(String(problem.detail), /not valid JSON/);
  } finally {
    await server.close();
  }
});

Deno.test("render - a body that is not UTF-8 is refused with invalid_body, each time", async () => {
  const server = await startTestServer();
  try {
    const s = await setupRender(server.deps.kv, server.url);
    const text = JSON.stringify({ dag: await finishedDag("plate") });
    const at = text.indexOf('"value":80');
    assert.ok(at > 0);
    const valid = new TextEncoder().encode(text);
    // A stray 0xFF inside the body: the lenient decoder would read it as U+FFFD.
    const broken = new Uint8Array([...valid.subarray(0, at), 0xff, ...valid.subarray(at)]);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${server.url}${RENDER}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${s.token}`,
          origin: s.origin,
        },
        body: broken,
      });
      const problem = await expectProblem(res, 400, "invalid_body");
      assert.match(String(problem.detail), /not valid UTF-8/);
    }
    const ok = await render(server.url, s.token, s.origin, text);
    assert.equal(ok.status, 200, await ok.clone().text());
    await ok.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("render - a computed division by zero or overflow is refused with render_failed", async (t) => {
  const server = await startTestServer();
  // The template divides by a parameter that may be 0 and squares one that may be 1e6.
  const project: InlineProject = {
    template: assemblyOf({
      gap: { op: "ParameterInput", parameter: "gap", fallback: 1 },
      big: { op: "ParameterInput", parameter: "big", fallback: 1 },
      width: { op: "div", a: 10, b: { ref: "gap" } },
      depth: { op: "mul", args: [{ ref: "big" }, { ref: "big" }] },
      slab: { op: "box", size: [{ ref: "width" }, { ref: "depth" }, 1] },
    }, "slab"),
    schema: schemaWith({
      gap: { kind: "Int", type: "integer", default: 1, minimum: 0, maximum: 10 },
      big: { kind: "Float", type: "number", default: 1, minimum: 1, maximum: 1_000_000 },
    }),
  };
  try {
    const s = await setupRender(server.deps.kv, server.url, { budget: 10 }, project);
    await t.step("valid values render", async () => {
      const res = await render(server.url, s.token, s.origin, { dag: finish(project) });
      assert.equal(res.status, 200, await res.clone().text());
      assert.ok((await res.json()).scene.volume > 0);
    });
    await t.step("gap = 0 → 422 render_failed/division_by_zero at the div node", async () => {
      const res = await render(server.url, s.token, s.origin, { dag: finish(project, { gap: 0 }) });
      const problem = await expectProblem(res, 422, "render_failed");
      assert.equal(problem.reason, "division_by_zero");
      assert.match(String(problem.pointer), /^\/nodes\/width/);
    });
    await t.step("big² = 1e12 → 422 render_failed/out_of_range (finite limit)", async () => {
      const res = await render(server.url, s.token, s.origin, {
        dag: finish(project, { big: 1_000_000 }),
      });
      const problem = await expectProblem(res, 422, "render_failed");
      assert.equal(problem.reason, "out_of_range");
      assert.match(String(problem.pointer), /^\/nodes\/depth/);
    });
  } finally {
    await server.close();
  }
});

Deno.test("render - a 10⁶-node DAG is refused at the body-size step, before the token or JSON", async (t) => {
  const server = await startTestServer();
  try {
    // About 30 MB of JSON: built as text so the test does not hold a million objects either.
    const parts: string[] = [];
    for (let i = 0; i < 1_000_000; i++) parts.push(`"n${i}":{"op":"add","args":[${i}]}`);
    const huge = `{"dag":{"dag":1,"nodes":{${parts.join(",")}},"output":"n0"}}`;
    assert.ok(huge.length > 20_000_000);
    await t.step("with Content-Length: 413 without a token (nothing was parsed)", async () => {
      const res = await render(server.url, null, null, huge);
      const problem = await expectProblem(res, 413, "body_too_large");
      assert.equal(problem.maxBytes, 256 * 1024);
    });
    await t.step("streamed without Content-Length: 413 once the cap is passed", async () => {
      const bytes = new TextEncoder().encode(huge);
      const chunk = 64 * 1024;
      let offset = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= bytes.length) return controller.close();
          controller.enqueue(bytes.subarray(offset, offset + chunk));
          offset += chunk;
        },
      });
      const res = await fetch(`${server.url}${RENDER}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: stream,
      });
      await expectProblem(res, 413, "body_too_large");
      assert.ok(offset < bytes.length, "the server stopped reading long before the end");
    });
  } finally {
    await server.close();
  }
});

Deno.test("render - an oversized body with a valid token is refused with 413 and spends nothing", async () => {
  const server = await startTestServer();
  try {
    const s = await setupRender(server.deps.kv, server.url, { budget: 5 });
    const dag = await finishedDag("plate");
    const res = await render(server.url, s.token, s.origin, { dag, pad: "x".repeat(300_000) });
    await expectProblem(res, 413, "body_too_large");
    const ok = await render(server.url, s.token, s.origin, { dag });
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).budget.remaining, 4);
  } finally {
    await server.close();
  }
});
