/**
 * The product behind a real load balancer (issue 17): the committed local example
 * (deploy/local/run.ts with its Procfile and haproxy.cfg) starts HAProxy in front of one hub and
 * three kernel processes (`ROLE=kernel`, HTTP health checks on `/readyz`) on free loopback ports,
 * with the shared Redis under a fresh prefix. Through it:
 * - a render from the real RenderClient is served (the example works);
 * - `<cad-configurator>` on a partner's page (a second loopback origin) draws the model, and a
 *   slider step renders again;
 * - renders per second with three kernels and with one (two disabled on HAProxy's admin socket),
 *   cold and cached, are printed for the record (no timing assertions);
 * - under a loop of renders, one kernel is killed with SIGKILL: no render is lost (every render is
 *   served, thanks to HAProxy's retry and redispatch and the client's one retry with its
 *   Idempotency-Key), no render spends two budget units (each token's remaining budget equals its
 *   budget minus its served renders), and HAProxy marks the node DOWN.
 */
import assert from "node:assert/strict";
import { RenderClient } from "@/lib/client/render_client.ts";
import { SessionClient } from "@/lib/client/session_client.ts";
import { openKv } from "@/lib/store/kv.ts";
import { serveStorefront } from "@/examples/storefront/serve.ts";
import { type LocalCluster, startLocalCluster } from "@/deploy/local/run.ts";
import { createKeyFixture } from "../_helpers/fixtures.ts";
import { publishFixture } from "../_helpers/projects.ts";
import { deleteRedisPrefix, rid, TEST_REDIS_URL } from "../_helpers/redis.ts";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import { dagHashChange, modelPixels, recordRenders, until } from "./storefront_fixture.ts";

const e2e = { sanitizeResources: false, sanitizeOps: false };
const BUDGET = 5000;
const CLIENTS = 4;

/** One shopper's render client through the load balancer, and what it saw. */
interface Shopper {
  renderer: RenderClient;
  session: SessionClient;
  served: number;
  failed: string[];
  lastRemaining: number | null | undefined;
  /** Render requests sent, per Idempotency-Key (more than one: the client retried). */
  sends: Map<string, number>;
}

function freePort(): number {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  return port;
}

async function shopper(
  cluster: LocalCluster,
  origin: string,
  keyId: string,
  project: string,
): Promise<Shopper> {
  const sends = new Map<string, number>();
  // A browser's fetch: Deno's adds no Origin.
  const net: typeof fetch = (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("origin", origin);
    const key = headers.get("idempotency-key");
    if (key) sends.set(key, (sends.get(key) ?? 0) + 1);
    return fetch(input, { ...init, headers });
  };
  const session = new SessionClient({
    keyId,
    projectKey: project,
    hubBaseUrl: cluster.url,
    fetch: net,
  });
  const renderer = new RenderClient({ baseUrl: cluster.url, session, fetch: net });
  await renderer.loadProject(project);
  return { renderer, session, served: 0, failed: [], lastRemaining: undefined, sends };
}

/** Renders `values` in order on one shopper; counts served and failed renders. */
async function renderAll(s: Shopper, values: Record<string, unknown>[], onServed?: () => void) {
  for (const v of values) {
    try {
      const result = await s.renderer.render(v);
      s.served++;
      s.lastRemaining = result.budgetRemaining;
      onServed?.();
    } catch (err) {
      s.failed.push(`${(err as { code?: string }).code}: ${(err as Error).message}`);
    }
  }
}

/** `n` plate values no other phase uses (`segments` names the phase). */
function plateValues(n: number, segments: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({
    width: 20 + 0.5 * (i % 360),
    holes: 1 + Math.floor(i / 360) % 6,
    segments,
  }));
}

/** Renders `values` spread over the shoppers, all at once; returns renders per second. */
async function throughput(shoppers: Shopper[], values: Record<string, unknown>[]) {
  const slices = shoppers.map((_, k) => values.filter((_, i) => i % shoppers.length === k));
  const since = performance.now();
  await Promise.all(shoppers.map((s, k) => renderAll(s, slices[k])));
  return values.length / ((performance.now() - since) / 1000);
}

async function rssMb(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Math.round(Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0) / 1024);
}

Deno.test({
  name:
    "load balancer - HAProxy, one hub and three kernels: configurator, throughput, a killed kernel loses no render",
  ...e2e,
  async fn(t) {
    const dir = await Deno.makeTempDir();
    const prefix = `lb:${rid(6)}:`;
    const logs: string[] = [];
    const cluster = await startLocalCluster({
      freePorts: true,
      env: {
        KV_PATH: `${dir}/hub.kv`,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: prefix,
        SEED_DEMO: "false",
        RENDER_WORKERS: "1",
      },
      log: (line) => logs.push(line),
    });
    const kv = await openKv(`${dir}/hub.kv`);
    const shopPort = freePort();
    const shopOrigin = `http://127.0.0.1:${shopPort}`;
    const shoppers: Shopper[] = [];
    const record: string[] = [];
    try {
      const f = await createKeyFixture(kv, { allowedOrigins: [shopOrigin], budget: BUDGET });
      await publishFixture(kv, f.partnerId, f.project);
      for (let i = 0; i < CLIENTS; i++) {
        shoppers.push(await shopper(cluster, shopOrigin, f.keyId, f.project));
      }

      await t.step("the example serves a render through HAProxy", async () => {
        assert.deepEqual(await cluster.serverStatus("kernels"), { k1: "UP", k2: "UP", k3: "UP" });
        const ready = await fetch(`${cluster.url}/readyz`);
        assert.equal(ready.status, 200, await ready.text());
        const result = await shoppers[0].renderer.render({ width: 70 });
        shoppers[0].served++;
        assert.ok(result.parts.length > 0);
        assert.equal(result.budgetRemaining, BUDGET - 1);
      });

      await t.step(
        "<cad-configurator> on a partner origin draws and re-renders through it",
        async () => {
          const shop = await serveStorefront({
            hubUrl: cluster.url,
            keyId: f.keyId,
            project: f.project,
            port: shopPort,
          });
          const browser = await launchBrowser();
          try {
            const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
            const errors: string[] = [];
            page.on("pageerror", (e) => errors.push(String(e)));
            const renders = recordRenders(page);
            await page.goto(`${shop.origin}/`);
            const cfg = page.locator("cad-configurator .cad-configurator");
            await cfg.and(page.locator('[data-render-status="ready"]')).waitFor({
              timeout: 30_000,
            });
            await page.waitForTimeout(300);
            const first = await cfg.getAttribute("data-dag-hash");
            assert.match(first ?? "", /^[0-9a-f]{64}$/);
            const pixels = await modelPixels(page);
            assert.ok(
              pixels.drawn > pixels.total * 0.02,
              `the model covers pixels (${pixels.drawn})`,
            );
            const slider = page.locator('cad-configurator [data-param="width"] input[type=range]');
            await slider.focus();
            await slider.press("ArrowRight");
            await dagHashChange(page, first);
            await until(() => renders.length >= 2, "the slider's render");
            assert.deepEqual(renders.map((r) => r.status), renders.map(() => 200));
            await page.screenshot({ path: `${ARTIFACTS}load_balancer_configurator.png` });
            assert.deepEqual(errors, []);
          } finally {
            await browser.close();
            await shop.shutdown();
          }
        },
      );

      await t.step(
        "renders per second through HAProxy, three kernels and one (printed)",
        async () => {
          // Warm-up: every kernel's worker has compiled manifold-3d and evaluated.
          await throughput(shoppers, plateValues(48, 39));
          const cold3 = await throughput(shoppers, plateValues(96, 40));
          // The same values again, twice: every kernel has met them (L1) or reads them (L2).
          const cached3 = await throughput(
            shoppers,
            [...Array(2)].flatMap(() => plateValues(96, 40)),
          );
          for (const k of ["k2", "k3"]) await cluster.haproxy(`disable server kernels/${k}`);
          assert.deepEqual(await cluster.serverStatus("kernels"), {
            k1: "UP",
            k2: "MAINT",
            k3: "MAINT",
          });
          const cold1 = await throughput(shoppers, plateValues(96, 41));
          const cached1 = await throughput(
            shoppers,
            [...Array(2)].flatMap(() => plateValues(96, 41)),
          );
          for (const k of ["k2", "k3"]) await cluster.haproxy(`enable server kernels/${k}`);
          await until(
            async () =>
              Object.values(await cluster.serverStatus("kernels")).every((s) => s === "UP"),
            "k2 and k3 up again",
          );
          const rss = await Promise.all(
            ["hub", "kernel1", "kernel2", "kernel3"].map(async (name) =>
              `${name} ${await rssMb(cluster.processes.get(name)!.pid)} MB`
            ),
          );
          record.push(
            `renders/s through HAProxy (${CLIENTS} clients, RENDER_WORKERS=1 per kernel, 2 CPUs ` +
              `shared): 3 kernels cold ${cold3.toFixed(1)}, cached ${cached3.toFixed(1)}; ` +
              `1 kernel cold ${cold1.toFixed(1)}, cached ${cached1.toFixed(1)}`,
            `resident memory after the runs: ${rss.join(", ")}`,
          );
          for (const s of shoppers) assert.deepEqual(s.failed, []);
        },
      );

      await t.step(
        "kill -9 of one kernel under load: no render lost, none paid twice",
        async () => {
          const before = await cluster.haproxy("show stat");
          const values = plateValues(96, 42);
          const slices = shoppers.map((_, k) => values.filter((_, i) => i % shoppers.length === k));
          let served = 0;
          let killedAt = -1;
          let killedMs = 0;
          const victim = cluster.processes.get("kernel2")!;
          const since = performance.now();
          await Promise.all(shoppers.map((s, k) =>
            renderAll(s, slices[k], () => {
              served++;
              if (served === 20) {
                killedAt = served;
                killedMs = performance.now();
                victim.child.kill("SIGKILL");
              }
            })
          ));
          const seconds = (performance.now() - since) / 1000;
          assert.ok(killedAt > 0, "the kernel was killed mid-run");
          assert.equal((await victim.child.status).signal, "SIGKILL");
          await until(
            async () => (await cluster.serverStatus("kernels")).k2 === "DOWN",
            "HAProxy marks k2 DOWN",
          );
          const downMs = Math.round(performance.now() - killedMs);
          const lost = shoppers.flatMap((s) => s.failed);
          assert.deepEqual(lost, [], "every render is served");
          // Exactly one unit per served render: the retries (HAProxy's and the client's) replayed
          // their Idempotency-Key instead of paying again.
          for (const s of shoppers) assert.equal(s.lastRemaining, BUDGET - s.served);
          const clientRetries = shoppers.reduce(
            (n, s) => n + [...s.sends.values()].filter((c) => c > 1).length,
            0,
          );
          const stat = (csv: string, col: string) => {
            const [header, ...rows] = csv.split("\n").filter(Boolean);
            const cols = header.replace(/^# /, "").split(",");
            const row = rows.find((r) => r.startsWith("kernels,BACKEND,"))!.split(",");
            return Number(row[cols.indexOf(col)] || 0);
          };
          const after = await cluster.haproxy("show stat");
          record.push(
            `kill -9 of kernel2 after ${killedAt} of ${values.length} renders (${CLIENTS} clients, ` +
              `${(values.length / seconds).toFixed(1)} renders/s): ${lost.length} lost, ` +
              `${clientRetries} client retries, HAProxy retries ${
                stat(after, "wretr") - stat(before, "wretr")
              } and redispatches ${stat(after, "wredis") - stat(before, "wredis")}; budget units ` +
              `spent = renders served for all ${CLIENTS} tokens; k2 seen DOWN ${downMs} ms ` +
              `after the kill`,
          );
        },
      );
    } catch (err) {
      console.error(logs.filter((l) => !l.includes('"level":"debug"')).slice(-60).join("\n"));
      throw err;
    } finally {
      console.log(record.join("\n"));
      for (const s of shoppers) {
        s.renderer.dispose();
        s.session.dispose();
      }
      kv.close();
      await cluster.stop();
      await deleteRedisPrefix(TEST_REDIS_URL, prefix);
      await Deno.remove(dir, { recursive: true });
    }
  },
});
