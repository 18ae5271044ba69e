/**
 * Redis going away under a running server (the real Redis behind a TCP relay the test cuts):
 * budgets fail closed with 503 `service_unavailable` + `Retry-After`, no render is served for
 * free, and renders resume once Redis is reachable again. (That L2 is skipped rather than failing
 * is shown in tests/render/render_cache_test.ts: on the route, the fail-closed budget step comes
 * before the cache. Revocations do not depend on Redis: tests/hub/revocation_durable_test.ts.)
 */
import assert from "node:assert/strict";
import { startTestServer, TEST_REDIS_URL } from "../_helpers/server.ts";
import { finishedDag } from "../_helpers/projects.ts";
import { expectProblem, render, setupRender } from "./render_helpers.ts";

/** A TCP relay to the test Redis on a fixed local port that can be cut and restored. */
class RedisRelay {
  #listener?: Deno.Listener;
  readonly #conns = new Set<Deno.Conn>();
  port = 0;

  /** Whether the relay accepts connections. */
  get up(): boolean {
    return this.#listener !== undefined;
  }

  start(): void {
    const target = new URL(TEST_REDIS_URL);
    this.#listener = Deno.listen({ hostname: "127.0.0.1", port: this.port });
    this.port = (this.#listener.addr as Deno.NetAddr).port;
    const listener = this.#listener;
    (async () => {
      for await (const inbound of listener) {
        const outbound = await Deno.connect({
          hostname: target.hostname,
          port: Number(target.port || 6379),
        });
        this.#conns.add(inbound).add(outbound);
        const pipe = (from: Deno.Conn, to: Deno.Conn) =>
          from.readable.pipeTo(to.writable).catch(() => {}).finally(() => this.#drop(from, to));
        pipe(inbound, outbound);
        pipe(outbound, inbound);
      }
    })().catch(() => {});
  }

  /** Stops accepting and drops every relayed connection: Redis is "down". */
  cut(): void {
    this.#listener?.close();
    this.#listener = undefined;
    for (const conn of this.#conns) this.#close(conn);
    this.#conns.clear();
  }

  #drop(a: Deno.Conn, b: Deno.Conn): void {
    for (const conn of [a, b]) {
      if (this.#conns.delete(conn)) this.#close(conn);
    }
  }

  #close(conn: Deno.Conn): void {
    try {
      conn.close();
    } catch {
      // already closed
    }
  }
}

Deno.test("render - Redis down: renders fail closed with 503 service_unavailable, then resume", async () => {
  const relay = new RedisRelay();
  relay.start();
  const server = await startTestServer({
    env: { REDIS_URL: `redis://127.0.0.1:${relay.port}` },
  });
  try {
    const s = await setupRender(server.deps.kv, server.url, { budget: 10 });
    const dag = await finishedDag("plate");
    const ok = await render(server.url, s.token, s.origin, { dag });
    assert.equal(ok.status, 200, await ok.clone().text());
    assert.equal((await ok.json()).budget.remaining, 9);

    relay.cut();
    // The scene is in L1, yet the render is not served: budgets cannot be checked.
    const down = await render(server.url, s.token, s.origin, { dag });
    assert.equal(down.headers.get("retry-after"), "1");
    assert.equal(down.headers.get("access-control-allow-origin"), s.origin, "readable by the shop");
    await expectProblem(down, 503, "service_unavailable");
    const fresh = await render(server.url, s.token, s.origin, {
      dag: await finishedDag("plate", { width: 150 }),
    });
    await expectProblem(fresh, 503, "service_unavailable");
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.notEqual((await ready.json()).checks.redis, "ok");

    relay.start(); // same port: the client reconnects by itself
    let back: Response | undefined;
    for (let i = 0; i < 100; i++) {
      back = await render(server.url, s.token, s.origin, { dag });
      if (back.status === 200) break;
      await back.body?.cancel();
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(back!.status, 200);
    const body = await back!.json();
    assert.equal(body.cache, "l1");
    // The refused renders spent nothing.
    assert.equal(body.budget.remaining, 8);
  } finally {
    // Cleanup deletes the test prefix through the relay, so it must be up.
    if (!relay.up) relay.start();
    await server.close();
    relay.cut();
  }
});
