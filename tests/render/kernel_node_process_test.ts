/**
 * A kernel node holds no durable state (issue 17), with real processes: a hub (`ROLE=hub`, a KV
 * file) and a kernel (`ROLE=kernel` with `HUB_URL` and `REDIS_URL`, and a `KV_PATH` naming a
 * folder that does not exist, to show the node never creates it). A project published on the hub
 * renders through the kernel; a new version reaches it; a token revoked with the real CLI is
 * refused; while the hub is stopped (SIGSTOP) the kernel renders what it has cached and `/readyz`
 * says `degraded`, then — past the revocation bound — refuses every render and answers 503 so a
 * load balancer drains it; once the hub continues, it recovers by itself. How long each change
 * took to reach the kernel is printed (no timing assertions; the hang guard is 30 s).
 */
import assert from "node:assert/strict";
import { publishProject } from "@/lib/hub/publish.ts";
import { openKv } from "@/lib/store/kv.ts";
import { createKeyFixture } from "../_helpers/fixtures.ts";
import { runHubCli, type ServerProcess, startServerProcess } from "../_helpers/process.ts";
import { finishedDag, publishFixture, readProjectFixture } from "../_helpers/projects.ts";
import { deleteRedisPrefix, rid, TEST_REDIS_URL } from "../_helpers/redis.ts";
import { expectProblem, mintToken, render } from "./render_helpers.ts";

const HANG_GUARD_MS = 30_000;

/** Calls `probe` until it returns a value (not undefined); returns it and the ms it took. */
async function until<T>(what: string, probe: () => Promise<T | undefined>) {
  const since = performance.now();
  while (performance.now() - since < HANG_GUARD_MS) {
    const value = await probe();
    if (value !== undefined) return { value, ms: Math.round(performance.now() - since) };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what}: not within ${HANG_GUARD_MS} ms`);
}

async function readyz(node: ServerProcess) {
  const res = await fetch(`${node.url}/readyz`);
  return { status: res.status, body: await res.json() };
}

function jtiOf(token: string): { jti: string; exp: number } {
  return JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
}

Deno.test("kernel node - renders from the hub's feeds with no KV, follows publishes and revocations, rides out a stopped hub", async (t) => {
  const dir = await Deno.makeTempDir();
  const prefix = `kernel:${rid(6)}:`;
  const hubKv = `${dir}/hub.kv`;
  const kernelKvDir = `${dir}/kernel-must-not-exist`;
  const kv = await openKv(hubKv);
  const timings: string[] = [];
  let hub: ServerProcess | undefined;
  let kernel: ServerProcess | undefined;
  let stopped = false;
  try {
    hub = await startServerProcess({
      ROLE: "hub",
      KV_PATH: hubKv,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      SEED_DEMO: "false",
    });
    kernel = await startServerProcess({
      ROLE: "kernel",
      HUB_URL: hub.url,
      REDIS_URL: TEST_REDIS_URL,
      // Only to share the test's prefix and keep the suite's other data apart.
      REDIS_PREFIX: prefix,
      KV_PATH: `${kernelKvDir}/hub.kv`,
      RENDER_WORKERS: "1",
    });
    const k = kernel;
    const f = await createKeyFixture(kv, { budget: 1000 });
    await publishFixture(kv, f.partnerId, f.project);
    const token = await mintToken(hub.url, f);
    const v1 = { dag: await finishedDag("plate") };

    await t.step("a project published on the hub renders through the kernel", async () => {
      const res = await render(k.url, token, f.origin, v1);
      const body = JSON.parse(await res.text());
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.version, 1);
      const ready = await readyz(k);
      assert.equal(ready.status, 200, JSON.stringify(ready.body));
      assert.equal(ready.body.status, "ok");
      assert.equal(ready.body.checks.hub.state, "ok");
      assert.equal(ready.body.checks.revocations.state, "ok");
      assert.equal(ready.body.checks.kv, undefined, "a kernel reports no KV");
    });

    await t.step("the public project read is answered by the hub through the kernel", async () => {
      const res = await fetch(`${k.url}/api/v1/projects/${f.project}?partner=${f.partnerId}`);
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.equal(body.slug, f.project);
      const again = await fetch(`${k.url}/api/v1/projects/${f.project}?partner=${f.partnerId}`, {
        headers: { "if-none-match": res.headers.get("etag")! },
      });
      assert.equal(again.status, 304);
      await again.body?.cancel();
    });

    await t.step("a new version published on the hub is served after at most the TTL", async () => {
      const docs = await readProjectFixture("plate");
      const schema = structuredClone(docs.schema) as { title?: string };
      schema.title = "Plate, second edition";
      const since = performance.now();
      const meta = await publishProject(kv, f.project, { template: docs.template, schema }, {
        partnerId: f.partnerId,
      });
      assert.equal(meta.version, 2);
      const { ms } = await until("version 2 on the kernel", async () => {
        const res = await render(k.url, token, f.origin, v1);
        const body = JSON.parse(await res.text());
        assert.equal(res.status, 200, JSON.stringify(body));
        return body.version === 2 ? true : undefined;
      });
      timings.push(
        `publish → version 2 served: ${ms} ms (${
          Math.round(performance.now() - since)
        } ms with the publish)`,
      );
      // A named version stays renderable.
      const pinned = await render(k.url, token, f.origin, { ...v1, version: 1 });
      assert.equal(JSON.parse(await pinned.text()).version, 1);
    });

    await t.step("a token revoked on the hub (real CLI) is refused by the kernel", async () => {
      const doomed = await mintToken(hub!.url, f);
      assert.equal((await render(k.url, doomed, f.origin, v1)).status, 200);
      const { jti, exp } = jtiOf(doomed);
      const cli = await runHubCli(["token", "revoke", "--jti", jti, "--exp", String(exp)], {
        KV_PATH: hubKv,
      });
      assert.equal(cli.code, 0, cli.stderr);
      const since = performance.now();
      await until("token_revoked on the kernel", async () => {
        const res = await render(k.url, doomed, f.origin, v1);
        if (res.status === 401) {
          await expectProblem(res, 401, "token_revoked");
          return true;
        }
        assert.equal(res.status, 200, await res.text());
      });
      timings.push(`CLI revoke → refused: ${Math.round(performance.now() - since)} ms`);
      // Its sibling still renders.
      assert.equal((await render(k.url, token, f.origin, v1)).status, 200);
    });

    await t.step(
      "hub stopped: cached renders go on and /readyz says degraded, then 503 past the revocation bound",
      async () => {
        Deno.kill(hub!.pid, "SIGSTOP");
        stopped = true;
        const since = performance.now();
        // Right after the stop the replica is current: the cached project renders (no hub call).
        const res = await render(k.url, token, f.origin, v1);
        assert.equal(res.status, 200, await res.text());
        const seen: string[] = [];
        const degraded = await until("readyz degraded or unavailable", async () => {
          const r = await readyz(k);
          seen.push(`${r.status}:${r.body.status}`);
          if (r.body.status === "ok") return undefined;
          return r;
        });
        if (degraded.value.body.status === "degraded") {
          // Degraded but serving: 200 (a load balancer keeps it), and it renders.
          assert.equal(degraded.value.status, 200);
          assert.equal(degraded.value.body.checks.hub.state, "degraded");
          assert.ok(degraded.value.body.warnings.length > 0);
          const during = await render(k.url, token, f.origin, v1);
          const text = await during.text();
          // The bound may pass between the two requests on a loaded machine: then it refuses.
          if (during.status !== 200) {
            await expectProblem(new Response(text, during), 503, "service_unavailable");
          }
        }
        timings.push(
          `stop → readyz ${degraded.value.body.status}: ${degraded.ms} ms (seen ${
            [...new Set(seen)].join(", ")
          })`,
        );
        const drained = await until("readyz 503", async () => {
          const r = await readyz(k);
          return r.status === 503 ? r : undefined;
        });
        assert.equal(drained.value.body.status, "unavailable");
        assert.equal(drained.value.body.checks.revocations.state, "stale");
        await expectProblem(await render(k.url, token, f.origin, v1), 503, "service_unavailable");
        timings.push(`stop → readyz 503: ${Math.round(performance.now() - since)} ms`);
      },
    );

    await t.step("hub continued: the kernel recovers by itself", async () => {
      Deno.kill(hub!.pid, "SIGCONT");
      stopped = false;
      const since = performance.now();
      await until(
        "readyz ok",
        async () => ((await readyz(k)).body.status === "ok" ? true : undefined),
      );
      const res = await render(k.url, token, f.origin, v1);
      assert.equal(res.status, 200, await res.text());
      timings.push(`continue → readyz ok: ${Math.round(performance.now() - since)} ms`);
    });

    await t.step("the kernel never created a KV store", async () => {
      await assert.rejects(Deno.stat(kernelKvDir), Deno.errors.NotFound);
    });
    console.log(`kernel node timings:\n  ${timings.join("\n  ")}`);
  } finally {
    if (stopped && hub) Deno.kill(hub.pid, "SIGCONT");
    await kernel?.stop();
    await hub?.stop();
    kv.close();
    await deleteRedisPrefix(TEST_REDIS_URL, prefix);
    await Deno.remove(dir, { recursive: true });
  }
});
