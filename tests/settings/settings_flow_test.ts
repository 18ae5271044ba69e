import assert from "node:assert/strict";
import { getSdkKey, updateSdkKey } from "@/lib/store/sdk_keys.ts";
import { createTestApp } from "../_helpers/app.ts";
import { mint, startTestServer } from "../_helpers/server.ts";
import { rid } from "../_helpers/redis.ts";
import { SettingsClient } from "./_client.ts";
import { publishExample, setUpPartner } from "./_setup.ts";

// On a server: its preview step evaluates on the render worker pool.
Deno.test({
  name: "settings - sign-up, project, key shown once, edit, roll, revoke, usage and audit",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const server = await startTestServer();
    const base = server.url.replace("localhost", "127.0.0.1");
    try {
      const a = await setUpPartner(base, "Alpha");
      const { client } = a;

      await t.step(
        "the key list never shows the plaintext; the created page is not cached",
        async () => {
          const list = await client.html("/settings/keys");
          assert.ok(list.includes(a.keyId));
          assert.ok(!list.includes(a.key.split("_")[2]), "no secret in the list");
          const again = await client.post("/settings/keys", {
            label: "second",
            origins: "http://localhost:5173",
            projects: [a.project],
            defaultTtl: "30",
            maxTtl: "120",
            budget: "3",
          });
          assert.equal(again.status, 200);
          assert.equal(again.headers.get("cache-control"), "no-store");
          const html = await again.text();
          assert.match(html, /Authorization: Bearer sdk_k[a-z2-7]{20}_&lt;secret>/);
          assert.match(html, /keyId: &quot;k[a-z2-7]{20}&quot;/);
        },
      );

      await t.step("bad origins are refused with what is wrong and what to enter", async () => {
        const res = await client.post("/settings/keys", {
          label: "bad",
          origins: "https://shop.example/\nhttps://*.shop.example",
          projects: [a.project],
          defaultTtl: "30",
          maxTtl: "120",
          budget: "",
        });
        assert.equal(res.status, 422);
        const html = await res.text();
        assert.match(html, /Allowed origin 1 of 2/);
        assert.match(html, /https:\/\/shop\.example/);
      });

      await t.step("test an origin explains the match", async () => {
        const ok = await client.html(
          `/settings/keys/${a.keyId}?test=${encodeURIComponent(a.origin + "/cart?x=1")}`,
        );
        assert.match(ok, /data-matches="true"/);
        const no = await client.html(
          `/settings/keys/${a.keyId}?test=${encodeURIComponent(a.origin.replace("https", "http"))}`,
        );
        assert.match(no, /data-matches="false"/);
        assert.match(no, /Closest allowed origin/);
      });

      await t.step("the key mints; edit adds an origin", async () => {
        const res = await mint(base, { keyId: a.keyId, projectId: a.project }, {
          origin: a.origin,
        });
        assert.equal(res.status, 200);
        await res.body?.cancel();
        await client.html(`/settings/keys/${a.keyId}`);
        const custom = { points: 7, durationSeconds: 9 };
        await updateSdkKey(server.deps.kv, a.keyId, (r) => ({ ...r, rateLimit: custom }));
        const saved = await client.post(`/settings/keys/${a.keyId}`, {
          label: "Alpha storefront",
          origins: `${a.origin}\nHTTPS://Second.Example:443`,
          projects: [a.project],
          defaultTtl: "30",
          maxTtl: "120",
          budget: "",
        });
        assert.equal(saved.status, 303);
        const page = await client.html(`/settings/keys/${a.keyId}`);
        assert.match(page, /<code>https:\/\/second\.example<\/code>/, "saved normalized");
        assert.deepEqual((await getSdkKey(server.deps.kv, a.keyId))!.rateLimit, custom, "kept");
        const m2 = await mint(base, { keyId: a.keyId, projectId: a.project }, {
          origin: "https://second.example",
        });
        assert.equal(m2.status, 200);
        await m2.body?.cancel();
        const denied = await mint(base, { keyId: a.keyId, projectId: a.project }, {
          origin: "https://evil.example",
        });
        assert.equal(denied.status, 403);
        await denied.body?.cancel();
      });

      await t.step("the form shows and edits the mint rate limit; bad values say why", async () => {
        const page = await client.html(`/settings/keys/${a.keyId}`);
        assert.match(page, /name="ratePoints"[^>]*value="7"/);
        assert.match(page, /name="rateSeconds"[^>]*value="9"/);
        const form = {
          label: "Alpha storefront",
          origins: `${a.origin}\nhttps://second.example`,
          projects: [a.project],
          defaultTtl: "30",
          maxTtl: "120",
          budget: "",
        };
        const saved = await client.post(`/settings/keys/${a.keyId}`, {
          ...form,
          ratePoints: "2",
          rateSeconds: "3600",
        });
        assert.equal(saved.status, 303);
        assert.deepEqual((await getSdkKey(server.deps.kv, a.keyId))!.rateLimit, {
          points: 2,
          durationSeconds: 3600,
        });
        // The mint path sees the new policy at once (the key cache was invalidated).
        const statuses: number[] = [];
        for (let i = 0; i < 3; i++) {
          const r = await mint(base, { keyId: a.keyId, projectId: a.project }, {
            origin: a.origin,
          });
          statuses.push(r.status);
          if (i === 0) {
            // The key's policy, then the browser flow's per-address one (default 60 a minute).
            assert.equal(
              r.headers.get("ratelimit-policy"),
              '"mint";q=2;w=3600, "mint-ip";q=60;w=60',
            );
          }
          await r.body?.cancel();
        }
        assert.deepEqual(statuses, [200, 200, 429]);
        for (
          const [points, seconds, message] of [
            ["0", "60", /rate limit points/],
            ["10", "100000", /rate limit window/],
            ["ten", "60", /mint rate limit must be a whole number/],
          ]
        ) {
          const bad = await client.post(`/settings/keys/${a.keyId}`, {
            ...form,
            ratePoints: points as string,
            rateSeconds: seconds as string,
          });
          assert.equal(bad.status, 422);
          assert.match(await bad.text(), message as RegExp);
        }
        const back = await client.post(`/settings/keys/${a.keyId}`, {
          ...form,
          ratePoints: "600",
          rateSeconds: "60",
        });
        assert.equal(back.status, 303);
      });

      await t.step("roll shows a new secret once; the old one works in grace", async () => {
        const res = await client.post(`/settings/keys/${a.keyId}/roll`, { grace: "3600" });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("cache-control"), "no-store");
        const html = await res.text();
        const fresh = /id="key-plaintext">(sdk_[a-z2-7]+_[a-z2-7]+)</.exec(html)?.[1];
        assert.ok(fresh && fresh !== a.key && fresh.split("_")[1] === a.keyId);
        for (const key of [a.key, fresh]) {
          const r = await mint(base, { projectId: a.project, origin: a.origin }, {
            authorization: `Bearer ${key}`,
          });
          assert.equal(r.status, 200);
          await r.body?.cancel();
        }
      });

      await t.step("publishing a broken template shows the node pointer", async () => {
        const form = new FormData();
        form.set("_csrf", client.csrf);
        form.set(
          "template",
          new File(['{"version":1,"nodes":[{"id":"a","type":"Nope"}]}'], "t.json"),
        );
        form.set("schema", new File(['{"type":"object","properties":{}}'], "s.json"));
        const res = await fetch(`${base}/settings/projects/${a.project}`, {
          method: "POST",
          headers: { cookie: client.cookie, origin: base, "sec-fetch-site": "same-origin" },
          body: form,
        });
        const html = await res.text();
        assert.equal(res.status, 422, html.slice(0, 300));
        assert.match(html, /id="publish-error"/);
        assert.match(html, /template\.dag\.json|parameters\.schema\.json/);
        const ok = await publishExample(client, a.project);
        assert.equal(ok.status, 303);
        const page = await client.html(`/settings/projects/${a.project}?published=2`);
        assert.match(page, /Published version 2/);
        assert.match(page, /\/configurator\/[a-z0-9-]+\?key=k[a-z2-7]{20}/);
        assert.match(page, /&lt;cad-configurator key-id=&quot;k/);
      });

      await t.step("preview evaluates the current version", async () => {
        const res = await client.post(`/settings/projects/${a.project}`, { action: "preview" });
        const html = await res.text();
        assert.equal(res.status, 200, html.slice(0, 300));
        const tris = /id="preview-triangles">([\d,]+)</.exec(html)?.[1];
        assert.ok(tris && Number(tris.replaceAll(",", "")) > 0, "a triangle count");
      });

      await t.step("revoke stops minting; usage and audit count what happened", async () => {
        const res = await client.post(`/settings/keys/${a.keyId}/revoke`, {});
        assert.equal(res.status, 303);
        await res.body?.cancel();
        const r = await mint(base, { keyId: a.keyId, projectId: a.project }, { origin: a.origin });
        assert.equal(r.status, 401);
        assert.equal((await r.json()).code, "key_revoked");
        const json = await (await client.get(`/settings/usage/${a.keyId}?format=json`)).json();
        // setUp + edit step: 2 browser-flow mints; rate-limit step: 2 (and 1 refused); roll
        // step: 2 server-flow mints.
        assert.equal(json.mintsOk, 6);
        assert.equal(json.mintsDenied, 3);
        assert.deepEqual(
          json.denials.map((d: { reason: string; origin: string }) => `${d.reason} ${d.origin}`)
            .sort(),
          [
            `key_revoked ${a.origin}`,
            "origin_not_allowed https://evil.example",
            `rate_limited ${a.origin}`,
          ],
        );
        assert.ok(json.lastUsedAt > 0);
        const csv = await (await client.get(`/settings/usage/${a.keyId}?format=csv`)).text();
        assert.match(csv, /^key_id,day,kind,outcome,detail,count\r\n/);
        assert.match(csv, /origin_not_allowed,https:\/\/evil\.example,1/);
        const audit = await (await client.get("/settings/audit?format=json")).json();
        const actions = audit.entries.map((e: { action: string }) => e.action).sort();
        for (
          const a of [
            "key.create",
            "key.edit",
            "key.roll",
            "key.revoke",
            "project.create",
            "project.publish",
          ]
        ) {
          assert.ok(actions.includes(a), `audit has ${a}`);
        }
        assert.ok(!JSON.stringify(audit).includes("sdk_k"), "no key plaintext in the audit log");
      });

      await t.step("no secret reaches the log", () => {
        const secret = a.key.split("_")[2];
        assert.ok(!server.logs.some((l) => l.includes(secret)));
      });

      await t.step("sign-out ends the session", async () => {
        const res = await client.post("/auth/signout", {});
        assert.equal(res.status, 303);
        assert.match(res.headers.get("set-cookie") ?? "", /Max-Age=0/);
        const after = await fetch(`${base}/settings/keys`, {
          headers: { cookie: `session=${client.cookie.split("=")[1]}`, accept: "text/html" },
          redirect: "manual",
        });
        await after.body?.cancel();
        assert.equal(after.status, 303);
        assert.match(after.headers.get("location") ?? "", /^\/auth\/signin/);
      });
    } finally {
      await server.close();
    }
  },
});

Deno.test("settings - invited developers manage keys but not members", async () => {
  const app = await createTestApp();
  try {
    const owner = new SettingsClient(app.url, app.fetch);
    await owner.signUp(`o-${rid()}@shop.example`, "Owner Co");
    await owner.html("/settings/members");
    const email = `d-${rid()}@shop.example`;
    const res = await owner.post("/settings/members", { email, role: "developer" });
    const link = /\/auth\/signup\?invite=([A-Za-z0-9_-]+)/.exec(await res.text())?.[1];
    assert.ok(link, "an invitation link");
    const dev = new SettingsClient(app.url, app.fetch);
    await dev.signUp(email, "", link);
    const members = await dev.html("/settings/members");
    assert.match(members, /Only owners can invite/);
    assert.ok(members.includes(email));
    const denied = await dev.post("/settings/members", {
      email: `x-${rid()}@a.example`,
      role: "owner",
    });
    assert.equal(denied.status, 403);
    assert.equal((await denied.json()).code, "forbidden");
    const project = await dev.post("/settings/projects", {
      title: "Dev project",
      slug: `p-${rid()}`,
    });
    assert.equal(project.status, 303);
    await project.body?.cancel();
  } finally {
    await app.close();
  }
});
