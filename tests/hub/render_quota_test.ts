import assert from "node:assert/strict";
import { runCli } from "@/lib/hub/cli.ts";
import { setRenderQuota } from "@/lib/hub/sdk_keys.ts";
import { AppError } from "@/lib/http/problem.ts";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { RenderQuotas } from "@/lib/render/render_quota.ts";
import { substitute } from "@/lib/dag/substitute.ts";
import { Logger } from "@/lib/ops/logger.ts";
import { connectRedis } from "@/lib/redis/client.ts";
import {
  MemoryRenderQuotaStore,
  RedisRenderQuotaStore,
  type RenderQuotaStore,
} from "@/lib/render/render_quota_store.ts";
import { getSdkKey } from "@/lib/store/sdk_keys.ts";
import { TEST_REDIS_URL } from "../_helpers/redis.ts";
import { REDIS_TARGETS } from "../_helpers/redis_cluster.ts";
import { createKeyFixture, mint, startTestServer } from "../_helpers/server.ts";
import { setUpPartner } from "../settings/_setup.ts";

const WALL_BRACKET = new URL("../../examples/projects/wall-bracket/", import.meta.url);

/** The wall-bracket example with every parameter at its default. */
async function wallBracketDag(): Promise<Dag> {
  const read = async (file: string) =>
    JSON.parse(await Deno.readTextFile(new URL(file, WALL_BRACKET)));
  return substitute(
    await read("template.dag.json"),
    validateParameterSchema(await read("parameters.schema.json")),
    {},
  );
}

/**
 * Runs `fn` with a gate over each store: real Redis on a fresh prefix (the shared server, and a
 * local three-master cluster), and in process.
 */
async function eachStore(
  fn: (name: string, gate: (kv: Deno.Kv, clock?: () => number) => RenderQuotas) => Promise<void>,
): Promise<void> {
  for (const target of REDIS_TARGETS) {
    await target.run(async (redis, prefix) => {
      const store = new RedisRenderQuotaStore(redis, prefix);
      await fn(`redis ${target.name}`, (kv, clock) => new RenderQuotas({ kv, store, clock }));
    });
  }
  const memory = new MemoryRenderQuotaStore();
  await fn("memory", (kv, clock) => new RenderQuotas({ kv, store: memory, clock }));
}

/** The problem a spend threw, or fails. */
async function refusal(p: Promise<void>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return err;
  }
  assert.fail("the spend was not refused");
}

Deno.test("render quota - the key settings, the render route and the usage page", async (t) => {
  const server = await startTestServer();
  try {
    const a = await setUpPartner(server.url, "Quota");
    const { client } = a;

    await t.step("the key form sets a daily quota of 3", async () => {
      const page = await client.html(`/settings/keys/${a.keyId}`);
      assert.match(page, /name="quotaDay"[^>]*value\/>/, "unlimited (empty) by default");
      assert.match(page, /name="ipPoints"[^>]*value="60"/, "the per-address default");
      const saved = await client.post(`/settings/keys/${a.keyId}`, {
        label: "Quota storefront",
        origins: a.origin,
        projects: [a.project],
        defaultTtl: "30",
        maxTtl: "120",
        budget: "",
        ratePoints: "600",
        rateSeconds: "60",
        ipPoints: "30",
        ipSeconds: "60",
        quotaDay: "3",
        quotaMonth: "",
      });
      assert.equal(saved.status, 303, await saved.text());
      const record = await getSdkKey(server.deps.kv, a.keyId);
      assert.deepEqual(record!.renderQuota, { day: 3, month: null });
      assert.deepEqual(record!.clientIpRateLimit, { points: 30, durationSeconds: 60 });
      const again = await client.html(`/settings/keys/${a.keyId}`);
      assert.match(again, /name="quotaDay"[^>]*value="3"/);
    });

    await t.step("a bad quota is refused with a message", async () => {
      const res = await client.post(`/settings/keys/${a.keyId}`, {
        label: "Quota storefront",
        origins: a.origin,
        projects: [a.project],
        defaultTtl: "30",
        maxTtl: "120",
        budget: "",
        quotaDay: "lots",
      });
      assert.equal(res.status, 422);
      assert.match(await res.text(), /render quota per day must be a whole number/);
    });

    await t.step(
      "renders 1–3 pass, the 4th is 429 quota_exceeded until the next UTC day",
      async () => {
        const minted = await mint(server.url, { keyId: a.keyId, projectId: a.project }, {
          origin: a.origin,
        });
        assert.equal(minted.status, 200);
        const { token } = await minted.json();
        const dag = await wallBracketDag();
        const statuses: number[] = [];
        let last: Response | undefined;
        for (let i = 0; i < 4; i++) {
          last = await fetch(`${server.url}/v1/kernels/manifold/render`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${token}`,
              origin: a.origin,
              "content-type": "application/json",
            },
            body: JSON.stringify({ dag }),
          });
          statuses.push(last.status);
          if (i < 3) await last.body?.cancel();
        }
        assert.deepEqual(statuses, [200, 200, 200, 429]);
        const problem = await last!.json();
        assert.equal(problem.code, "quota_exceeded");
        assert.equal(problem.quota, "day");
        assert.equal(problem.limit, 3);
        const retry = Number(last!.headers.get("retry-after"));
        const now = Date.now();
        const toMidnight = Math.ceil((Math.floor(now / 86_400_000 + 1) * 86_400_000 - now) / 1000);
        assert.ok(retry >= 1 && retry <= toMidnight + 1, `Retry-After ${retry} vs ${toMidnight}`);
        assert.equal(last!.headers.get("access-control-allow-origin"), a.origin);
      },
    );

    await t.step("the usage page shows used / limit today and this month", async () => {
      const html = await client.html(`/settings/usage/${a.keyId}`);
      assert.match(html, /data-stat="quota-day" data-used="3" data-limit="3"/);
      assert.match(html, /data-stat="quota-month" data-used="3" data-limit="unlimited"/);
      assert.match(html, /data-stat="quota-exceeded"><b>1<\/b>/);
      const json = await (await client.get(`/settings/usage/${a.keyId}?format=json`)).json();
      assert.deepEqual(json.quota, {
        day: { used: 3, limit: 3 },
        month: { used: 3, limit: null },
        source: "quota",
      });
    });
  } finally {
    await server.close();
  }
});

Deno.test("render quota - the CLI sets quotas at create and changes them with key quota", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const f = await createKeyFixture(kv);
    const created = await runCli(kv, [
      "key",
      "create",
      "--partner",
      f.partnerId,
      "--label",
      "cli",
      "--origin",
      f.origin,
      "--project",
      f.project,
      "--quota-day",
      "100",
      "--quota-month",
      "2000",
      "--ip-rate-limit",
      "10/60",
    ]) as { keyId: string; renderQuota: unknown; clientIpRateLimit: unknown };
    assert.deepEqual(created.renderQuota, { day: 100, month: 2000 });
    assert.deepEqual(created.clientIpRateLimit, { points: 10, durationSeconds: 60 });
    const changed = await runCli(kv, [
      "key",
      "quota",
      "--key-id",
      created.keyId,
      "--quota-day",
      "none",
    ]);
    assert.deepEqual(changed, { keyId: created.keyId, renderQuota: { day: null, month: 2000 } });
    await assert.rejects(runCli(kv, ["key", "quota", "--key-id", created.keyId]), /--quota-day/);
    await assert.rejects(
      runCli(kv, ["key", "quota", "--key-id", created.keyId, "--quota-month", "lots"]),
      /non-negative integer/,
    );
  } finally {
    kv.close();
  }
});

Deno.test("render quota - exact under 50 concurrent spends, day and month", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await eachStore(async (name, gate) => {
      for (const quota of [{ day: 20, month: null }, { day: null, month: 7 }]) {
        const f = await createKeyFixture(kv, { renderQuota: quota });
        const quotas = gate(kv);
        const results = await Promise.allSettled(
          Array.from({ length: 50 }, () => quotas.spend(f.keyId)),
        );
        const allowed = results.filter((r) => r.status === "fulfilled").length;
        const limit = quota.day ?? quota.month!;
        assert.equal(allowed, limit, `${name} ${JSON.stringify(quota)}`);
        for (const r of results) {
          if (r.status === "rejected") assert.equal((r.reason as AppError).code, "quota_exceeded");
        }
        assert.deepEqual(await quotas.used(f.keyId), { day: limit, month: limit }, name);
      }
    });
  } finally {
    kv.close();
  }
});

Deno.test("render quota - a spent period refuses with Retry-After to the next UTC day or month", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await eachStore(async (name, gate) => {
      let now = Date.UTC(2031, 0, 31, 23, 59, 30);
      const f = await createKeyFixture(kv, { renderQuota: { day: 2, month: 3 } });
      const quotas = gate(kv, () => now);
      await quotas.spend(f.keyId);
      await quotas.spend(f.keyId);
      const day = await refusal(quotas.spend(f.keyId));
      assert.equal(day.code, "quota_exceeded");
      assert.equal(day.status, 429);
      assert.deepEqual(day.extensions, { quota: "day", limit: 2 });
      assert.equal(day.headers["Retry-After"], "30", name);
      assert.deepEqual(
        await quotas.used(f.keyId),
        { day: 2, month: 2 },
        "a refusal counts nothing",
      );

      now = Date.UTC(2031, 1, 1, 0, 0, 5); // a new day and a new month
      await quotas.spend(f.keyId);
      assert.deepEqual(await quotas.used(f.keyId), { day: 1, month: 1 });
      now = Date.UTC(2031, 1, 10, 12);
      await quotas.spend(f.keyId);
      await quotas.spend(f.keyId);
      const month = await refusal(quotas.spend(f.keyId));
      assert.deepEqual(month.extensions, { quota: "month", limit: 3 });
      assert.equal(
        month.headers["Retry-After"],
        String((Date.UTC(2031, 2, 1) - now) / 1000),
        "to 1 March 00:00 UTC",
      );
      assert.match(month.message, /2031-03-01T00:00:00.000Z/);
    });
  } finally {
    kv.close();
  }
});

Deno.test("render quota - refunds give a render back; a quota of 0 stops rendering", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await eachStore(async (name, gate) => {
      const f = await createKeyFixture(kv, { renderQuota: { day: 1, month: null } });
      const quotas = gate(kv);
      await quotas.spend(f.keyId);
      await refusal(quotas.spend(f.keyId));
      await quotas.refund(f.keyId);
      await quotas.spend(f.keyId);
      assert.deepEqual(await quotas.used(f.keyId), { day: 1, month: 1 }, name);
      await quotas.refund(f.keyId);
      await quotas.refund(f.keyId);
      assert.deepEqual(await quotas.used(f.keyId), { day: 0, month: 0 }, "never below zero");

      const stopped = await createKeyFixture(kv, { renderQuota: { day: null, month: 0 } });
      const err = await refusal(gate(kv).spend(stopped.keyId));
      assert.deepEqual(err.extensions, { quota: "month", limit: 0 });
    });
  } finally {
    kv.close();
  }
});

for (const target of REDIS_TARGETS) {
  Deno.test(`render quota - keys without quotas write nothing to Redis (${target.name})`, async () => {
    const kv = await Deno.openKv(":memory:");
    try {
      await target.run(async (redis, prefix, admin) => {
        const quotas = new RenderQuotas({ kv, store: new RedisRenderQuotaStore(redis, prefix) });
        const f = await createKeyFixture(kv);
        // A record written before quotas existed has no field at all: unlimited too.
        const record = await getSdkKey(kv, f.keyId);
        const { renderQuota: _, ...old } = record!;
        await kv.set(["sdk_keys", f.keyId], old);
        const g = await createKeyFixture(kv, { renderQuota: { day: null, month: null } });
        for (let i = 0; i < 10; i++) {
          await quotas.spend(f.keyId);
          await quotas.spend(g.keyId);
        }
        await quotas.refund(f.keyId);
        assert.deepEqual(await admin.keys(`${prefix}*`), []);
        // With a quota, the two counters share one hash slot: `{keyId}`.
        const h = await createKeyFixture(kv, { renderQuota: { day: 5, month: null } });
        await quotas.spend(h.keyId);
        const keys = (await admin.keys(`${prefix}*`)).sort();
        assert.equal(keys.length, 2);
        for (const k of keys) assert.ok(k.startsWith(`${prefix}quota:{${h.keyId}}:`), k);
        for (const k of keys) {
          const ttl = await redis.ttl(k);
          assert.ok(ttl > 0, `${k} expires`);
        }
      });
    } finally {
      kv.close();
    }
  });
}

Deno.test("render quota - settings are cached; an edit applies once invalidated", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const f = await createKeyFixture(kv, { renderQuota: { day: 1, month: null } });
    const quotas = new RenderQuotas({ kv, store: new MemoryRenderQuotaStore(), ttlMs: 60_000 });
    await quotas.spend(f.keyId);
    await setRenderQuota(kv, f.keyId, { day: 5 });
    const cached = await refusal(quotas.spend(f.keyId));
    assert.deepEqual(cached.extensions, { quota: "day", limit: 1 }, "the cached setting holds");
    quotas.invalidate(f.keyId);
    await quotas.spend(f.keyId);
    assert.deepEqual(await quotas.used(f.keyId), { day: 2, month: 2 });
  } finally {
    kv.close();
  }
});

Deno.test("render quota - Redis unreachable fails closed with 503 and Retry-After", async () => {
  const kv = await Deno.openKv(":memory:");
  const redis = await connectRedis(TEST_REDIS_URL, new Logger("error", () => {}));
  try {
    await redis.close();
    const store: RenderQuotaStore = new RedisRenderQuotaStore(redis, "test:closed:");
    const quotas = new RenderQuotas({ kv, store });
    const f = await createKeyFixture(kv, { renderQuota: { day: 10, month: null } });
    const err = await refusal(quotas.spend(f.keyId));
    assert.equal(err.code, "service_unavailable");
    assert.equal(err.status, 503);
    assert.equal(err.headers["Retry-After"], "1");
    const free = await createKeyFixture(kv);
    await quotas.spend(free.keyId); // no quota: Redis is not asked, the render goes on
  } finally {
    kv.close();
  }
});
