import assert from "node:assert/strict";
import { effect } from "@preact/signals";
import { ManualClock } from "@/lib/client/clock.ts";
import { RenderError } from "@/lib/client/problem.ts";
import { RenderClient, type RenderState } from "@/lib/client/render_client.ts";
import { MINT_PATH, SessionClient } from "@/lib/client/session_client.ts";
import type { CreateSdkKeyInput } from "@/lib/hub/sdk_keys.ts";
import { publishFixture } from "../_helpers/projects.ts";
import {
  createKeyFixture,
  type KeyFixture,
  mint,
  startTestServer,
  type TestServer,
} from "../_helpers/server.ts";

const RENDER_PATH = "/v1/kernels/manifold/render";

/** One request the test's fetch saw. */
interface Seen {
  url: string;
  body: Record<string, unknown> | undefined;
  signal: AbortSignal | undefined;
  status?: number;
}

/**
 * A browser's `fetch` for the tests: adds the page's `Origin` (Deno's fetch adds none), records
 * every request, and calls `onRender` when a render request goes out.
 */
function browserFetch(origin: string, onRender?: (seen: Seen) => void) {
  const seen: Seen[] = [];
  const wrapped = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("origin", origin);
    const url = String(input instanceof Request ? input.url : input);
    const entry: Seen = {
      url,
      body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
      signal: init.signal ?? undefined,
    };
    seen.push(entry);
    if (url.endsWith(RENDER_PATH)) onRender?.(entry);
    const res = await fetch(input, { ...init, headers });
    entry.status = res.status;
    return res;
  };
  return {
    fetch: wrapped as typeof fetch,
    seen,
    mints: () => seen.filter((s) => s.url.endsWith(MINT_PATH)),
    renders: () => seen.filter((s) => s.url.endsWith(RENDER_PATH)),
  };
}

interface Setup {
  server: TestServer;
  key: KeyFixture;
  clock: ManualClock;
  net: ReturnType<typeof browserFetch>;
  session: SessionClient;
  renderer: RenderClient;
}

/** A server with a published `plate` project, a browser-flow session and a render client. */
async function withRenderer(
  fn: (s: Setup) => Promise<void>,
  options: {
    key?: Partial<CreateSdkKeyInput>;
    server?: Parameters<typeof startTestServer>[0];
    onRender?: (seen: Seen) => void;
    abortSuperseded?: boolean;
  } = {},
): Promise<void> {
  const server = await startTestServer(options.server);
  const key = await createKeyFixture(server.deps.kv, options.key);
  await publishFixture(server.deps.kv, key.partnerId, key.project);
  const clock = new ManualClock(Date.now());
  const net = browserFetch(key.origin, options.onRender);
  const session = new SessionClient({
    keyId: key.keyId,
    projectKey: key.project,
    hubBaseUrl: server.url,
    fetch: net.fetch,
    clock,
  });
  const renderer = new RenderClient({
    baseUrl: server.url,
    session,
    fetch: net.fetch,
    abortSuperseded: options.abortSuperseded,
  });
  try {
    await renderer.loadProject(key.project);
    await fn({ server, key, clock, net, session, renderer });
  } finally {
    renderer.dispose();
    session.dispose();
    await server.close();
  }
}

Deno.test("client - loadProject revalidates with the ETag", async () => {
  await withRenderer(async ({ key, net, renderer }) => {
    const first = renderer.project!;
    assert.equal(first.slug, key.project);
    assert.equal(first.version, 1);
    assert.equal(first.mode, "template");
    assert.deepEqual(first.schema!.parameters.map((p) => p.name), [
      "width",
      "holes",
      "segments",
      "color",
    ]);
    const again = await renderer.loadProject(key.project);
    assert.equal(again, first, "a 304 gives the kept project");
    const loads = net.seen.filter((s) => s.url.includes("/api/v1/projects/"));
    assert.deepEqual(loads.map((s) => s.status), [200, 304]);
    await assert.rejects(renderer.loadProject("no-such-project"), (err: unknown) => {
      assert.ok(err instanceof RenderError);
      assert.equal(err.code, "unknown_project_version");
      assert.equal(err.status, 404);
      return true;
    });
  });
});

Deno.test("client - with a held token the request leaves before work queued after render()", async () => {
  await withRenderer(async ({ net, session, renderer }) => {
    await session.getToken();
    await renderer.render({ width: 100, holes: 3 });
    const before = net.renders().length;
    const states: string[] = [];
    const pending = renderer.render({ width: 101, holes: 3 });
    // "rendering" from the call on (settledResult and busy indicators read it at once) ...
    assert.equal(renderer.state.value.status, "rendering");
    // ... while a re-render the page queues after the call (Preact and React flush in a later
    // microtask) finds the request already sent: it no longer delays it.
    let sentBeforePageWork = false;
    queueMicrotask(() => {
      sentBeforePageWork = net.renders().length === before + 1;
      states.push(renderer.state.value.status);
    });
    await pending;
    assert.ok(sentBeforePageWork, "the render request was sent before the page's next microtask");
    assert.deepEqual(states, ["rendering"]);
    // Several calls in one task still send one request (the last values).
    const a = renderer.render({ width: 102, holes: 3 });
    const b = renderer.render({ width: 103, holes: 3 });
    const [ra, rb] = await Promise.all([a, b]);
    assert.equal(ra, rb);
    assert.equal(rb.values.width, 103);
    assert.equal(net.renders().length, before + 2);
  });
});

Deno.test("client - render decodes meshes and a changed parameter downloads only the changed mesh", async () => {
  await withRenderer(async ({ net, renderer }) => {
    const states: RenderState["status"][] = [];
    const stop = effect(() => {
      states.push(renderer.state.value.status);
    });
    try {
      const first = await renderer.render({ width: 100, holes: 3 });
      assert.deepEqual(first.parts.map((p) => p.name), ["Plate", "Feet"]);
      assert.equal(first.downloaded.length, 2);
      assert.deepEqual(first.reused, []);
      const [plate, feet] = first.parts;
      assert.ok(plate.mesh.positions instanceof Float32Array);
      assert.ok(plate.mesh.indices instanceof Uint32Array);
      assert.equal(plate.mesh.positions.length, plate.mesh.vertexCount * 3);
      assert.equal(feet.instances.length, 4);
      assert.equal(first.values.width, 100);
      assert.equal(first.budgetRemaining, null, "the key has no budget: unlimited");
      const xs = plate.mesh.positions.filter((_, i) => i % 3 === 0);
      assert.ok(Math.abs(Math.max(...xs) - Math.min(...xs) - 100) < 1e-3, "the plate is 100 wide");
      assert.equal(renderer.geometry.size, 2);

      const wider = await renderer.render({ width: 120, holes: 3 });
      const [body] = net.renders().slice(-1).map((s) => s.body!);
      assert.deepEqual(
        [...(body.have as string[])].sort(),
        [plate.mesh.hash, feet.mesh.hash].sort(),
        "the held meshes are sent as have",
      );
      assert.equal(body.version, 1);
      assert.deepEqual(wider.downloaded, [wider.parts[0].mesh.hash], "only the plate changed");
      assert.notEqual(wider.parts[0].mesh.hash, plate.mesh.hash);
      assert.deepEqual(wider.reused, [feet.mesh.hash]);
      assert.equal(wider.parts[1].mesh, feet.mesh, "the feet reuse the decoded mesh");
      assert.equal(renderer.geometry.size, 3);
      const state = renderer.state.value;
      assert.ok(state.status === "ready" && state.result === wider);
      assert.deepEqual(states, ["idle", "rendering", "ready", "rendering", "ready"]);
    } finally {
      stop();
    }
  });
});

Deno.test("client - a render held with sendAfter is queued at once and sent once it settles", async () => {
  await withRenderer(async ({ net, renderer }) => {
    await renderer.render({ width: 100 });
    const sent = net.renders().length;
    let paint!: () => void;
    const painted = new Promise<void>((resolve) => (paint = resolve));
    const held = renderer.render({ width: 110 }, { sendAfter: painted });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(renderer.state.value.status, "rendering", "the state says so at once");
    assert.equal(net.renders().length, sent, "no request before the frame is drawn");
    paint();
    const result = await held;
    assert.equal(result.values.width, 110);
    assert.equal(net.renders().length, sent + 1, "one request after it");

    // Newer values do not wait for a held render: it is superseded and never sent.
    const neverPainted = new Promise<void>(() => {});
    const first = renderer.render({ width: 120 }, { sendAfter: neverPainted });
    const second = renderer.render({ width: 130 });
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a, b, "both callers get the newest scene");
    assert.equal(b.values.width, 130);
    const widths = net.renders().slice(sent + 1).map((r) =>
      (r.body!.dag as { nodes: { width: { value: number } } }).nodes.width.value
    );
    assert.deepEqual(widths, [130], "the held values were never sent");

    // A rejected promise releases the request too.
    const released = await renderer.render({ width: 140 }, {
      sendAfter: Promise.reject(new Error("no frame")),
    });
    assert.equal(released.values.width, 140);
  });
});

Deno.test("client - superseded renders are aborted and only the latest result is delivered", async () => {
  let firstSent!: () => void;
  const sent = new Promise<void>((resolve) => (firstSent = resolve));
  await withRenderer(async ({ net, renderer }) => {
    const delivered: unknown[] = [];
    const stop = effect(() => {
      const state = renderer.state.value;
      if (state.status === "ready") delivered.push(state.result.values.width);
    });
    try {
      const a = renderer.render({ width: 100 });
      await sent; // the request for 100 is on the wire
      const b = renderer.render({ width: 110 });
      const c = renderer.render({ width: 120 });
      const results = await Promise.all([a, b, c]);
      assert.deepEqual(results.map((r) => r.values.width), [120, 120, 120]);
      assert.equal(results[0], results[2], "every caller gets the latest scene");
      const renders = net.renders();
      assert.deepEqual(
        renders.map((r) =>
          (r.body!.dag as { nodes: { width: { value: number } } }).nodes.width.value
        ),
        [100, 120],
        "110 was replaced while waiting and never sent",
      );
      assert.equal(renders[0].signal!.aborted, true, "the request for 100 was aborted");
      assert.equal(renders[1].signal!.aborted, false);
      assert.deepEqual(delivered, [120], "the scene for 100 was never shown");
      // A synchronous burst sends one request.
      await Promise.all([renderer.render({ width: 60 }), renderer.render({ width: 70 })]);
      assert.equal(net.renders().length, 3);
    } finally {
      stop();
    }
  }, { onRender: () => firstSent() });
});

Deno.test("client - the values of the render on its way join it: one request answers both calls", async () => {
  let firstSent!: () => void;
  const sent = new Promise<void>((resolve) => (firstSent = resolve));
  await withRenderer(async ({ net, renderer }) => {
    const values = { width: 100, holes: 3, segments: 32, color: "#3366cc" };
    const a = renderer.render(values);
    await sent; // on the wire
    const b = renderer.render({ ...values }); // the same values, another object
    const [ra, rb] = await Promise.all([a, b]);
    assert.equal(ra, rb, "both callers get the one answer");
    assert.equal(net.renders().length, 1);
    assert.equal(net.renders()[0].signal!.aborted, false, "nothing was superseded");
    // Once it has been answered, the same values are asked for again.
    await renderer.render({ ...values });
    assert.equal(net.renders().length, 2);
    // Not the same: another value, or a key more, is a render of its own that supersedes.
    const c = renderer.render({ ...values, width: 101 });
    const d = renderer.render({ ...values, width: 101, holes: 4 });
    assert.equal((await c).values.holes, 4);
    assert.equal(await c, await d);
    assert.equal(net.renders().length, 3, "c was replaced while waiting and never sent");
  }, { onRender: () => firstSent() });
});

Deno.test("client - abortSuperseded false lets the request in flight finish into the cache", async () => {
  let firstSent!: () => void;
  const sent = new Promise<void>((resolve) => (firstSent = resolve));
  await withRenderer(async ({ net, renderer }) => {
    const a = renderer.render({ width: 100 });
    await sent;
    const b = renderer.render({ width: 130 });
    const [ra, rb] = await Promise.all([a, b]);
    assert.equal(ra, rb);
    assert.equal(rb.values.width, 130);
    assert.equal(net.renders()[0].signal!.aborted, false);
    assert.equal(renderer.geometry.size, 3, "the meshes of 100 were cached though not shown");
  }, { onRender: () => firstSent(), abortSuperseded: false });
});

Deno.test("client - a 401 token_expired re-mints once and retries transparently", async () => {
  let hubOffset = 0;
  await withRenderer(async ({ net, renderer, session }) => {
    const first = await session.getToken();
    // The hub and kernel move 40 min on; the browser's clock does not, so it still trusts its token.
    hubOffset = 40 * 60_000;
    const result = await renderer.render({ width: 90 });
    assert.equal(result.values.width, 90);
    assert.deepEqual(net.renders().map((r) => r.status), [401, 200]);
    assert.equal(net.mints().length, 2, "one re-mint");
    assert.notEqual(await session.getToken(), first);
    assert.equal(renderer.state.value.status, "ready");
  }, { server: { clock: () => Date.now() + hubOffset } });
});

Deno.test("client - server flow: token_expired is surfaced and the partner is told", async () => {
  let hubOffset = 0;
  const server = await startTestServer({ clock: () => Date.now() + hubOffset });
  try {
    const key = await createKeyFixture(server.deps.kv);
    await publishFixture(server.deps.kv, key.partnerId, key.project);
    const res = await mint(server.url, { projectId: key.project, origin: key.origin }, {
      authorization: `Bearer ${key.key}`,
    });
    const { token } = await res.json();
    const expired: string[] = [];
    const session = new SessionClient({
      sessionToken: token,
      clock: new ManualClock(Date.now()),
      onTokenExpired: (detail) => expired.push(detail.reason),
    });
    const net = browserFetch(key.origin);
    const renderer = new RenderClient({ baseUrl: server.url, session, fetch: net.fetch });
    try {
      await renderer.loadProject(key.project);
      assert.equal((await renderer.render({})).parts.length, 2, "the provided token renders");
      hubOffset = 40 * 60_000;
      await assert.rejects(renderer.render({ width: 90 }), (err: unknown) => {
        assert.ok(err instanceof RenderError);
        assert.equal(err.code, "token_expired");
        assert.equal(err.status, 401);
        return true;
      });
      assert.deepEqual(expired, ["token_expired"]);
      assert.equal(net.mints().length, 0, "the server flow never mints");
      const state = renderer.state.value;
      assert.ok(state.status === "error" && state.error.code === "token_expired");
      assert.ok(state.result, "the last good scene stays");
    } finally {
      renderer.dispose();
      session.dispose();
    }
  } finally {
    await server.close();
  }
});

Deno.test("client - an exhausted budget is a typed budget_exhausted error, not a re-mint", async () => {
  await withRenderer(async ({ net, renderer }) => {
    const first = await renderer.render({ width: 100 });
    assert.equal(first.budgetRemaining, 1);
    await renderer.render({ width: 101 });
    assert.equal(renderer.state.value.budgetRemaining, 0);
    await assert.rejects(renderer.render({ width: 102 }), (err: unknown) => {
      assert.ok(err instanceof RenderError);
      assert.equal(err.code, "budget_exhausted");
      assert.equal(err.status, 429);
      return true;
    });
    const state = renderer.state.value;
    assert.equal(state.status, "error");
    assert.ok(state.status === "error" && state.error.code === "budget_exhausted");
    assert.equal(state.budgetRemaining, 0);
    assert.equal(state.result?.values.width, 101, "the last good scene stays");
    assert.equal(net.mints().length, 1);
  }, { key: { budget: 2 } });
});

Deno.test("client - render problems are told apart by code", async (t) => {
  await t.step("invalid parameters are refused locally with a pointer", async () => {
    await withRenderer(async ({ net, renderer }) => {
      await assert.rejects(renderer.render({ width: 5 }), (err: unknown) => {
        assert.ok(err instanceof RenderError);
        assert.equal(err.code, "invalid_parameters");
        assert.equal(err.pointer, "/width");
        assert.equal(err.reason, "out_of_range");
        assert.equal(err.status, 0, "found by the client");
        return true;
      });
      await assert.rejects(renderer.render({ depth: 5 }), { code: "invalid_parameters" });
      assert.equal(net.renders().length, 0);
      assert.equal(renderer.state.value.status, "error");
    });
  });

  await t.step("a DAG that is not an instance of the template is invalid_dag", async () => {
    await withRenderer(async ({ renderer }) => {
      // A template that differs from the published one (a tampered or stale bundle).
      const project = renderer.project!;
      const nodes = project.template!.nodes as unknown as Record<string, Record<string, unknown>>;
      nodes.foot = { ...nodes.foot, radius: 4 };
      await assert.rejects(renderer.render({}), (err: unknown) => {
        assert.ok(err instanceof RenderError);
        assert.equal(err.code, "invalid_dag");
        assert.equal(err.status, 422);
        assert.equal(err.reason, "not_an_instance");
        assert.ok(err.pointer?.startsWith("/nodes/"));
        return true;
      });
    });
  });

  await t.step("a page on another origin gets origin_mismatch", async () => {
    await withRenderer(async ({ server, key, session }) => {
      // The token was minted for the key's origin; the render comes from another page.
      const elsewhere = browserFetch("https://elsewhere.example");
      const renderer = new RenderClient({ baseUrl: server.url, session, fetch: elsewhere.fetch });
      try {
        await renderer.loadProject(key.project);
        await assert.rejects(renderer.render({}), (err: unknown) => {
          assert.ok(err instanceof RenderError);
          assert.equal(err.code, "origin_mismatch");
          assert.equal(err.status, 403);
          return true;
        });
      } finally {
        renderer.dispose();
      }
    });
  });

  await t.step("render before loadProject is no_project", async () => {
    const session = new SessionClient({ sessionToken: "sv1.e30.x" });
    const renderer = new RenderClient({ baseUrl: "http://127.0.0.1:9", session });
    await assert.rejects(renderer.render({}), { code: "no_project" });
    renderer.dispose();
    session.dispose();
  });
});
