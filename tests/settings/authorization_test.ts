import assert from "node:assert/strict";
import { getSdkKey } from "@/lib/store/sdk_keys.ts";
import { listProjectVersions } from "@/lib/store/project_versions.ts";
import { createTestApp } from "../_helpers/app.ts";
import { publishExample, setUpPartner } from "./_setup.ts";

Deno.test("authorization - partner A can neither see nor change partner B's keys, projects or usage", async (t) => {
  const app = await createTestApp();
  const { kv } = app.deps;
  try {
    const a = await setUpPartner(app.url, "Alpha", app.fetch);
    const b = await setUpPartner(app.url, "Bravo", app.fetch);
    const before = await getSdkKey(kv, b.keyId);

    await t.step("B's ids do not appear on A's pages", async () => {
      for (
        const path of [
          "/settings/keys",
          "/settings/projects",
          "/settings/usage",
          "/settings/audit",
        ]
      ) {
        const html = await a.client.html(path);
        assert.ok(!html.includes(b.keyId), `${path} does not show B's key`);
        assert.ok(!html.includes(b.project), `${path} does not show B's project`);
      }
      const auditJson = await (await a.client.get("/settings/audit?format=json")).text();
      assert.ok(!auditJson.includes(b.keyId));
    });

    await t.step("direct URLs to B's records answer 404 not_found", async () => {
      for (
        const path of [
          `/settings/keys/${b.keyId}`,
          `/settings/keys/${b.keyId}?test=${encodeURIComponent(b.origin)}`,
          `/settings/usage/${b.keyId}`,
          `/settings/usage/${b.keyId}?format=csv`,
          `/settings/usage/${b.keyId}?format=json`,
          `/settings/projects/${b.project}`,
        ]
      ) {
        const res = await a.client.get(path);
        assert.equal(res.status, 404, path);
        assert.equal((await res.json()).code, "not_found", path);
      }
    });

    await t.step("form posts with B's ids change nothing", async () => {
      await a.client.html("/settings/keys");
      const posts: Array<[string, Record<string, string | string[]>]> = [
        [`/settings/keys/${b.keyId}`, {
          label: "hijacked",
          origins: "https://evil.example",
          projects: [b.project],
          defaultTtl: "30",
          maxTtl: "120",
          budget: "",
        }],
        [`/settings/keys/${b.keyId}/roll`, { grace: "0" }],
        [`/settings/keys/${b.keyId}/revoke`, {}],
        [`/settings/projects/${b.project}`, { action: "preview" }],
      ];
      for (const [path, fields] of posts) {
        const res = await a.client.post(path, fields);
        assert.equal(res.status, 404, path);
        assert.equal((await res.json()).code, "not_found", path);
      }
      // A's own key cannot be pointed at B's project either.
      const steal = await a.client.post(`/settings/keys/${a.keyId}`, {
        label: "mine",
        origins: a.origin,
        projects: [b.project],
        defaultTtl: "30",
        maxTtl: "120",
        budget: "",
      });
      assert.equal(steal.status, 422);
      assert.match(await steal.text(), /Not a project of this partner/);
      const publish = await publishExample(a.client, b.project);
      assert.equal(publish.status, 404);
      await publish.body?.cancel();
      assert.deepEqual(await getSdkKey(kv, b.keyId), before, "B's key is unchanged");
      const bPartner = (await getSdkKey(kv, b.keyId))!.partnerId;
      const bProject = { partnerId: bPartner, slug: b.project };
      assert.equal((await listProjectVersions(kv, bProject)).length, 1);
      assert.equal((await getSdkKey(kv, a.keyId))!.allowedProjects[0], a.project);
    });
  } finally {
    await app.close();
  }
});
