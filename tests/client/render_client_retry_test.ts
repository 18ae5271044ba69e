/**
 * The render client retries a lost answer once with the same `Idempotency-Key`, and the retried
 * render is paid once: a real server behind a real TCP proxy that refuses a connection, drops an
 * answer after the server served (and charged) it, or answers its own 502 page. A problem response
 * is not retried; a second loss surfaces as `network_error`.
 */
import assert from "node:assert/strict";
import { RenderError } from "@/lib/client/problem.ts";
import { RenderClient } from "@/lib/client/render_client.ts";
import { SessionClient } from "@/lib/client/session_client.ts";
import { publishFixture } from "../_helpers/projects.ts";
import { createKeyFixture, startTestServer } from "../_helpers/server.ts";
import { type ProxyAction, startFlakyProxy } from "../_helpers/flaky_proxy.ts";

const RENDER_PATH = "/v1/kernels/manifold/render";

/** A browser's fetch: Deno's adds no Origin. */
function withOrigin(origin: string): typeof fetch {
  return (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("origin", origin);
    return fetch(input, { ...init, headers });
  };
}

/**
 * A server with a budget-20 plate project, a proxy whose render requests follow `script` (one
 * action per render request, then `pass`), and a render client through the proxy.
 */
async function withProxiedClient(
  script: ProxyAction[],
  fn: (
    renderer: RenderClient,
    renders: () => { action: ProxyAction; key: string | null }[],
  ) => Promise<void>,
) {
  const server = await startTestServer();
  const key = await createKeyFixture(server.deps.kv, { budget: 20 });
  await publishFixture(server.deps.kv, key.partnerId, key.project);
  let n = 0;
  const proxy = startFlakyProxy(
    server.url,
    (req) => req.path.endsWith(RENDER_PATH) ? (script[n++] ?? "pass") : "pass",
  );
  const net = withOrigin(key.origin);
  const session = new SessionClient({
    keyId: key.keyId,
    projectKey: key.project,
    hubBaseUrl: server.url,
    fetch: net,
  });
  const renderer = new RenderClient({ baseUrl: proxy.url, session, fetch: net });
  try {
    await renderer.loadProject(key.project);
    await fn(renderer, () =>
      proxy.seen.filter((r) => r.path.endsWith(RENDER_PATH)).map((r) => ({
        action: r.action,
        key: r.headers.get("idempotency-key"),
      })));
  } finally {
    renderer.dispose();
    session.dispose();
    await proxy.close();
    await server.close();
  }
}

Deno.test("render client retry - an answer dropped after the server charged it: one retry, same key, one unit", async () => {
  await withProxiedClient(["drop"], async (renderer, renders) => {
    const result = await renderer.render({ width: 70 });
    const seen = renders();
    assert.deepEqual(seen.map((r) => r.action), ["drop", "pass"]);
    assert.match(seen[0].key ?? "", /^[0-9a-f]{32}$/);
    assert.equal(seen[1].key, seen[0].key, "the retry carries the same Idempotency-Key");
    // The first request spent unit 1 of 20; the retry replayed it instead of spending a second.
    assert.equal(result.budgetRemaining, 19);
    assert.ok(result.parts.length > 0);
    // The next render is a new render: a new key, a new unit.
    const next = await renderer.render({ width: 71 });
    assert.equal(next.budgetRemaining, 18);
    const third = renders()[2];
    assert.notEqual(third.key, seen[0].key);
  });
});

Deno.test("render client retry - a refused connection and a proxy's 502 page are retried once", async () => {
  await withProxiedClient(["refuse", "pass", "bad_gateway"], async (renderer, renders) => {
    const first = await renderer.render({ width: 70 });
    assert.equal(first.budgetRemaining, 19);
    const second = await renderer.render({ width: 72 });
    assert.equal(second.budgetRemaining, 18);
    const seen = renders();
    assert.deepEqual(seen.map((r) => r.action), ["refuse", "pass", "bad_gateway", "pass"]);
    assert.equal(seen[0].key, seen[1].key);
    assert.equal(seen[2].key, seen[3].key);
    assert.notEqual(seen[0].key, seen[2].key);
  });
});

Deno.test("render client retry - a second loss surfaces as network_error; a problem is not retried", async () => {
  await withProxiedClient(["drop", "refuse"], async (renderer, renders) => {
    await assert.rejects(
      renderer.render({ width: 70 }),
      (err: unknown) => err instanceof RenderError && err.code === "network_error",
    );
    assert.deepEqual(renders().map((r) => r.action), ["drop", "refuse"]);
    assert.equal(renderer.state.value.status, "error");
    // A problem answer (here 422 invalid_parameters from the server) is the service's decision.
    const before = renders().length;
    const dag = structuredClone(renderer.project!.template) as { nodes: Record<string, unknown> };
    const node = Object.values(dag.nodes).find((n) =>
      (n as { op?: string }).op === "ParameterInput"
    ) as { value?: unknown };
    node.value = 1e9;
    await assert.rejects(
      renderer.renderDag(dag as never, {}),
      (err: unknown) => err instanceof RenderError && err.status === 422,
    );
    assert.equal(renders().length, before + 1);
  });
});
