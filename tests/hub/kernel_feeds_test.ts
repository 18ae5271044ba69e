/**
 * The hub's feeds for kernel nodes, in memory (docs/api.md, Kernel feeds): project versions
 * (immutable numbered versions, `current` with a short TTL, strong ETags and 304), the revocation
 * log after a position (paged), and key render quotas; bad input gets problems. Then the kernel's
 * side against a real hub on a socket: `HubProjectVersions` + `ProjectTemplates` follow a publish
 * and keep serving what they hold while the hub does not answer.
 */
import assert from "node:assert/strict";
import { publishProject } from "@/lib/hub/publish.ts";
import { HubLink } from "@/lib/render/hub_link.ts";
import { HubKeyQuotas } from "@/lib/render/hub_key_quotas.ts";
import { HubProjectVersions } from "@/lib/render/hub_project_versions.ts";
import { HubRevocationLog } from "@/lib/render/hub_revocation_log.ts";
import { ProjectTemplates } from "@/lib/render/project_templates.ts";
import { RevocationReplica } from "@/lib/render/revocation_replica.ts";
import { recordRevocation, tokenRevocation } from "@/lib/store/revocations.ts";
import { createTestApp } from "../_helpers/app.ts";
import { createKeyFixture } from "../_helpers/fixtures.ts";
import { publishFixture, readProjectFixture } from "../_helpers/projects.ts";
import { startTestServer } from "../_helpers/server.ts";

const versions = (partnerId: string, slug: string, v: string) =>
  `/api/v1/partners/${partnerId}/projects/${slug}/versions/${v}`;

Deno.test("kernel feeds - project versions: immutable numbers, current with ETag and 304", async (t) => {
  const app = await createTestApp();
  try {
    const f = await createKeyFixture(app.deps.kv);
    await publishFixture(app.deps.kv, f.partnerId, f.project);

    await t.step("a numbered version is immutable with a strong ETag", async () => {
      const res = await app.request(versions(f.partnerId, f.project, "1"));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
      const etag = res.headers.get("etag")!;
      assert.match(etag, /^"[^"]+\.1"$/, "strong (no W/) and naming the version");
      const body = await res.json();
      assert.deepEqual(Object.keys(body).sort(), [
        "mode",
        "partnerId",
        "schema",
        "slug",
        "template",
        "templateHash",
        "version",
      ]);
      assert.equal(body.version, 1);
      assert.equal(body.mode, "template");
      assert.match(body.templateHash, /^[0-9a-f]{64}$/);
      const again = await app.request(versions(f.partnerId, f.project, "1"), {
        headers: { "if-none-match": etag },
      });
      assert.equal(again.status, 304);
      assert.equal(again.headers.get("etag"), etag);
    });

    await t.step(
      "current: short TTL, 304 while unchanged, a new ETag after a publish",
      async () => {
        const first = await app.request(versions(f.partnerId, f.project, "current"));
        assert.equal(first.headers.get("cache-control"), "public, max-age=5");
        const etag = first.headers.get("etag")!;
        assert.equal((await first.json()).version, 1);
        const same = await app.request(versions(f.partnerId, f.project, "current"), {
          headers: { "if-none-match": etag },
        });
        assert.equal(same.status, 304);
        const docs = await readProjectFixture("plate");
        await publishProject(app.deps.kv, f.project, {
          template: docs.template,
          schema: { ...(docs.schema as object), title: "Second" },
        }, { partnerId: f.partnerId });
        const moved = await app.request(versions(f.partnerId, f.project, "current"), {
          headers: { "if-none-match": etag },
        });
        assert.equal(moved.status, 200);
        assert.notEqual(moved.headers.get("etag"), etag);
        assert.equal((await moved.json()).version, 2);
      },
    );

    await t.step("unknown partner, project or version → 404; a bad segment → 422", async () => {
      for (
        const path of [
          versions("prt_nobody", f.project, "1"),
          versions(f.partnerId, "no-such-project", "current"),
          versions(f.partnerId, f.project, "99"),
          versions(f.partnerId, "Not_A_Slug", "1"),
        ]
      ) {
        const res = await app.request(path);
        assert.equal(res.status, 404, path);
        assert.equal((await res.json()).code, "unknown_project_version");
      }
      for (const v of ["0", "-1", "1.5", "latest", "01", "99999999999999999"]) {
        const res = await app.request(versions(f.partnerId, f.project, v));
        assert.equal(res.status, 422, v);
        assert.equal((await res.json()).code, "validation_failed");
      }
    });
  } finally {
    await app.close();
  }
});

Deno.test("kernel feeds - the revocation log after a position, a page at a time", async (t) => {
  const app = await createTestApp();
  try {
    const { kv } = app.deps;
    const now = Date.now();
    const exp = Math.floor(now / 1000) + 600;
    for (let i = 0; i < 5; i++) {
      await recordRevocation(kv, tokenRevocation(`jti-${i}`, exp, now), now);
    }
    await t.step("from the start: the head and every entry", async () => {
      const res = await app.request("/api/v1/revocations");
      assert.equal(res.headers.get("cache-control"), "no-store");
      const page = await res.json();
      assert.equal(page.head.seq, 5);
      assert.equal(typeof page.head.versionstamp, "string");
      assert.equal(page.upTo, 5);
      assert.deepEqual(page.entries.map((e: { seq: number }) => e.seq), [1, 2, 3, 4, 5]);
      assert.deepEqual(page.entries[0].entry.id, "jti-0");
    });
    await t.step("after a position, limited: a partial page names where it stops", async () => {
      const page = await (await app.request("/api/v1/revocations?after=1&limit=2")).json();
      assert.equal(page.upTo, 3);
      assert.deepEqual(page.entries.map((e: { seq: number }) => e.seq), [2, 3]);
      const rest = await (await app.request("/api/v1/revocations?after=5")).json();
      assert.deepEqual(rest.entries, []);
    });
    await t.step("bad positions and limits → 422", async () => {
      for (const q of ["after=-1", "after=x", "limit=0", "limit=2001", "after=1e3"]) {
        const res = await app.request(`/api/v1/revocations?${q}`);
        assert.equal(res.status, 422, q);
        assert.equal((await res.json()).code, "validation_failed");
      }
    });
  } finally {
    await app.close();
  }
});

Deno.test("kernel feeds - a key's render quota settings; unknown keys 404", async () => {
  const app = await createTestApp();
  try {
    const f = await createKeyFixture(app.deps.kv, {
      renderQuota: { day: 50, month: null },
      exportFormats: { browser: ["glb", "3mf"], server: ["stl"] },
    });
    const res = await app.request(`/api/v1/keys/${f.keyId}/render-quota`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      keyId: f.keyId,
      renderQuota: { day: 50, month: null },
      exportFormats: { browser: ["glb", "3mf"], server: ["stl"] },
    });
    // What a kernel node reads of it (lib/render/hub_key_quotas.ts): renders that miss the
    // settings together share one request to the hub.
    let asked = 0;
    const counted = ((...args: Parameters<typeof fetch>) => {
      asked++;
      return (app.fetch as typeof fetch)(...args);
    }) as typeof fetch;
    const quotas = new HubKeyQuotas(new HubLink(app.url, { fetch: counted }));
    const all = await Promise.all(Array.from({ length: 16 }, () => quotas.get(f.keyId)));
    for (const settings of all) {
      assert.deepEqual(settings, {
        renderQuota: { day: 50, month: null },
        exportFormats: { browser: ["glb", "3mf"], server: ["stl"] },
      });
    }
    assert.equal(asked, 1);
    const unknown = await app.request("/api/v1/keys/nosuchkey123/render-quota");
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).code, "not_found");
  } finally {
    await app.close();
  }
});

Deno.test("kernel feeds - a kernel node's sources follow the hub and keep what they hold while it is away", async (t) => {
  const hub = await startTestServer({ env: { ROLE: "hub" }, redis: false });
  let elapsed = 0;
  const link = new HubLink(hub.url, { elapsed: () => elapsed });
  const templates = new ProjectTemplates(new HubProjectVersions(link), {
    elapsed: () => elapsed,
  });
  let replica: RevocationReplica | undefined;
  try {
    const f = await createKeyFixture(hub.deps.kv);
    await publishFixture(hub.deps.kv, f.partnerId, f.project);
    const ref = { partnerId: f.partnerId, slug: f.project };

    await t.step("current version and numbered versions load over HTTP", async () => {
      const current = await templates.get(ref);
      assert.equal(current.version, 1);
      assert.ok(current.template);
      assert.equal((await templates.get(ref, 1)).templateHash, current.templateHash);
      assert.deepEqual(link.status(), { state: "ok", ageMs: 0 });
    });

    await t.step("a publish is seen once the TTL has passed, not before", async () => {
      const docs = await readProjectFixture("plate");
      await publishProject(hub.deps.kv, f.project, {
        template: docs.template,
        schema: { ...(docs.schema as object), title: "Second" },
      }, { partnerId: f.partnerId });
      elapsed = 4000;
      assert.equal((await templates.get(ref)).version, 1, "within the TTL: as cached");
      elapsed = 5001;
      assert.equal((await templates.get(ref)).version, 2);
    });

    await t.step("an unknown project is 404, not a hub failure", async () => {
      await assert.rejects(
        templates.get({ partnerId: f.partnerId, slug: "no-such-project" }),
        (err: { code?: string }) => err.code === "unknown_project_version",
      );
    });

    await t.step(
      "hub gone: the current version past its TTL keeps serving; unknown ones 503",
      async () => {
        replica = new RevocationReplica(new HubRevocationLog(link), { elapsed: () => elapsed });
        await replica.sync();
        await hub.close();
        elapsed = 20_000;
        assert.equal((await templates.get(ref)).version, 2, "the version last known current");
        assert.equal((await templates.get(ref, 1)).version, 1, "a cached numbered version");
        await assert.rejects(
          templates.get({ partnerId: f.partnerId, slug: "never-loaded" }),
          (err: { code?: string }) => err.code === "service_unavailable",
        );
        assert.equal(link.status().state, "degraded");
        // The replica cannot confirm it is current: it fails closed past its bound.
        await assert.rejects(replica.sync());
        await assert.rejects(
          replica.isRevoked({ client_id: f.keyId, jti: "x" }),
          (err: { code?: string }) => err.code === "service_unavailable",
        );
      },
    );
  } finally {
    await replica?.stop();
    await hub.close().catch(() => {});
  }
});

Deno.test("kernel feeds - a kernel node opens no KV and serves neither /settings nor /auth nor the feeds", async () => {
  const app = await createTestApp({ env: { ROLE: "kernel", HUB_URL: "http://127.0.0.1:9" } });
  try {
    assert.throws(
      () => app.deps.kv.get(["x"]),
      (err: { code?: string }) => err.code === "kv_absent",
    );
    for (
      const path of [
        "/settings",
        "/settings/keys",
        "/auth/signin",
        "/api/v1/revocations",
        "/api/v1/keys/abc/render-quota",
        versions("prt_x", "plate", "1"),
      ]
    ) {
      const res = await app.request(path);
      assert.equal(res.status, 404, path);
      assert.equal((await res.json()).code, "not_found", path);
    }
    // Nothing cached and no hub: the node cannot serve a project read.
    const read = await app.request("/api/v1/projects/plate?partner=prt_x");
    assert.equal(read.status, 503);
    assert.equal((await read.json()).code, "service_unavailable");
  } finally {
    await app.close();
  }
});
