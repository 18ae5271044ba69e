import assert from "node:assert/strict";
import { SLUGIFY_JS } from "@/components/settings/NewProjectForm.tsx";
import { slugFromTitle } from "@/lib/hub/project_slug.ts";
import { listStarters } from "@/lib/hub/starter_projects.ts";
import { getProject } from "@/lib/store/projects.ts";
import { getProjectVersion } from "@/lib/store/project_versions.ts";
import { getSdkKey } from "@/lib/store/sdk_keys.ts";
import { createTestApp } from "../_helpers/app.ts";
import { rid } from "../_helpers/redis.ts";
import { SettingsClient } from "./_client.ts";
import { setUpPartner } from "./_setup.ts";

Deno.test("projects page - a slug from the title: the server's rule and the page script's agree", () => {
  const browserSlugify = new Function(`${SLUGIFY_JS}; return slugify;`)() as (t: string) => string;
  const cases: Array<[string, string]> = [
    ["Spur gear", "spur-gear"],
    ["  Spur   gear — 20 teeth!  ", "spur-gear-20-teeth"],
    ["Crème brûlée dish", "creme-brulee-dish"],
    ["ÄÖÜ box", "aou-box"],
    ["--A--", ""], // one character is not a slug
    ["日本", ""],
    ["x".repeat(80), "x".repeat(64)],
    [`${"ab-".repeat(30)}cd`, `${"ab-".repeat(21)}a`],
  ];
  for (const [title, slug] of cases) {
    assert.equal(slugFromTitle(title), slug, title);
    assert.equal(browserSlugify(title), slug, `page script: ${title}`);
  }
});

Deno.test("projects page - new project, starter gallery, and two partners with one slug", async (t) => {
  const app = await createTestApp();
  const { kv } = app.deps;
  try {
    const client = new SettingsClient(app.url, app.fetch);
    await client.signUp(`first-hour-${rid()}@shop.example`, "First Hour");

    await t.step(
      "an empty slug is made from the title, and a taken one gets a free variant",
      async () => {
        for (const expected of ["oak-table", "oak-table-2"]) {
          await client.html("/settings/projects");
          const res = await client.post("/settings/projects", { title: "Oak table", slug: "" });
          await res.body?.cancel();
          assert.equal(res.status, 303);
          assert.equal(res.headers.get("location"), `/settings/projects/${expected}`);
        }
        // A typed slug is taken as typed, and refused when the partner has it.
        const typed = await client.post("/settings/projects", { title: "T", slug: "oak-table" });
        assert.equal(typed.status, 422);
        assert.match(
          await typed.text(),
          /already have a project &quot;oak-table&quot;|already have a project "oak-table"/,
        );
        const nothing = await client.post("/settings/projects", { title: "日本", slug: "" });
        assert.equal(nothing.status, 422);
        assert.match(await nothing.text(), /type a slug/);
      },
    );

    await t.step("the gallery lists every example with a CSRF-protected form", async () => {
      const html = await client.html("/settings/projects");
      const starters = await listStarters();
      assert.ok(starters.length >= 5);
      for (const s of starters) {
        assert.ok(html.includes(`name="starter" value="${s.name}"`), s.name);
      }
      const forms = html.match(/<input type="hidden" name="action" value="starter"\/?>/g) ?? [];
      assert.equal(forms.length, starters.length);
      const without = await client.post("/settings/projects", {
        action: "starter",
        starter: "spur-gear",
      }, { csrf: null });
      assert.equal(without.status, 403);
      assert.equal((await without.json()).code, "csrf_rejected");
    });

    let ownPartner = "";
    await t.step("one click publishes an example; a second gets a free slug", async () => {
      for (const expected of ["spur-gear", "spur-gear-2"]) {
        await client.html("/settings/projects");
        const res = await client.post("/settings/projects", {
          action: "starter",
          starter: "spur-gear",
        });
        await res.body?.cancel();
        assert.equal(res.status, 303);
        assert.equal(res.headers.get("location"), `/settings/projects/${expected}?published=1`);
      }
      const page = await client.html("/settings/projects/spur-gear-2?published=1");
      assert.match(page, /Published version 1/);
      const audit = await (await client.get("/settings/audit?format=json")).text();
      assert.match(audit, /project\.publish/);
      const entries = await Array.fromAsync(kv.list<{ partnerId: string; slug: string }>({
        prefix: ["partner_projects"],
      }));
      ownPartner = entries.find((e) => e.value.slug === "spur-gear-2")!.value.partnerId;
      const v = await getProjectVersion(kv, { partnerId: ownPartner, slug: "spur-gear" });
      assert.equal(v?.version, 1);
      assert.equal(v?.mode, "template");
      const bad = await client.post("/settings/projects", { action: "starter", starter: "../x" });
      assert.equal(bad.status, 422);
      assert.match(await bad.text(), /No starter is called/);
    });

    await t.step(
      "a second partner has its own spur-gear; every read names the partner",
      async () => {
        const other = new SettingsClient(app.url, app.fetch);
        await other.signUp(`second-${rid()}@shop.example`, "Second");
        await other.html("/settings/projects");
        const res = await other.post("/settings/projects", { title: "Gear", slug: "spur-gear" });
        await res.body?.cancel();
        assert.equal(res.status, 303, "the slug is free for this partner");
        await other.html("/settings/projects");
        const own = await other.post("/settings/projects", { action: "starter", starter: "vase" });
        await own.body?.cancel();
        const theirs = await other.html("/settings/projects/spur-gear");
        assert.match(theirs, /<h1>Gear<\/h1>/);
        const mine = await client.html("/settings/projects/spur-gear");
        assert.match(mine, /<h1>Spur gear<\/h1>/);
        // The second partner has not published its spur-gear: the slug alone still names one.
        const alone = await app.request("/api/v1/projects/spur-gear");
        assert.equal(alone.status, 200);
        assert.equal((await alone.json()).title, "Spur gear");
        const otherPartner = (await Array.fromAsync(kv.list<{ partnerId: string; title: string }>({
          prefix: ["partner_projects"],
        }))).find((e) => e.value.title === "Gear")!.value.partnerId;
        assert.ok(await getProject(kv, { partnerId: otherPartner, slug: "spur-gear" }));
      },
    );
  } finally {
    await app.close();
  }
});

Deno.test("projects page - a project made after its keys is added to them from its page", async (t) => {
  const app = await createTestApp();
  const { kv } = app.deps;
  try {
    const p = await setUpPartner(app.url, "Keys", app.fetch);
    await p.client.html("/settings/projects");
    const created = await p.client.post("/settings/projects", {
      action: "starter",
      starter: "vase",
    });
    await created.body?.cancel();
    assert.equal(created.status, 303);

    await t.step("the page lists the active key, unchecked, and minting is refused", async () => {
      const html = await p.client.html("/settings/projects/vase");
      assert.match(html, new RegExp(`name="keys" value="${p.keyId}"(?! checked)`));
      const refused = await app.mint({ keyId: p.keyId, projectId: "vase" }, { origin: p.origin });
      assert.equal(refused.status, 403);
      assert.equal((await refused.json()).code, "project_not_allowed");
    });

    await t.step("checking it adds the project; the key cache is forgotten at once", async () => {
      const res = await p.client.post("/settings/projects/vase/keys", { keys: [p.keyId] });
      await res.body?.cancel();
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), "/settings/projects/vase?keys=saved#keys");
      assert.deepEqual((await getSdkKey(kv, p.keyId))!.allowedProjects, [p.project, "vase"]);
      // The refusal above cached the key record; without the invalidation this would be a 403.
      const minted = await app.mint({ keyId: p.keyId, projectId: "vase" }, { origin: p.origin });
      assert.equal(minted.status, 200, await minted.clone().text());
      const html = await p.client.html("/settings/projects/vase?keys=saved");
      assert.match(html, /Saved: the keys/);
      assert.match(html, new RegExp(`name="keys" value="${p.keyId}" checked`));
      const audit = await (await p.client.get("/settings/audit?format=json")).text();
      assert.match(audit, /"key\.edit"/);
    });

    await t.step("saving the same choice changes nothing", async () => {
      const res = await p.client.post("/settings/projects/vase/keys", { keys: [p.keyId] });
      await res.body?.cancel();
      assert.equal(res.headers.get("location"), "/settings/projects/vase?keys=unchanged#keys");
    });

    await t.step("unchecking removes it when the key keeps another project", async () => {
      const res = await p.client.post("/settings/projects/vase/keys", {});
      await res.body?.cancel();
      assert.equal(res.headers.get("location"), "/settings/projects/vase?keys=saved#keys");
      assert.deepEqual((await getSdkKey(kv, p.keyId))!.allowedProjects, [p.project]);
    });

    await t.step("a key's last project cannot be unchecked; nothing changes", async () => {
      const res = await p.client.post(`/settings/projects/${p.project}/keys`, {});
      await res.body?.cancel();
      assert.equal(
        res.headers.get("location"),
        `/settings/projects/${p.project}?keys=last_project&key_id=${p.keyId}#keys`,
      );
      assert.deepEqual((await getSdkKey(kv, p.keyId))!.allowedProjects, [p.project]);
      const html = await p.client.html(
        `/settings/projects/${p.project}?keys=last_project&key_id=${p.keyId}`,
      );
      assert.match(
        html,
        /Nothing was changed: &quot;Keys storefront&quot; would have no project left|Nothing was changed: "Keys storefront" would have no project left/,
      );
    });

    await t.step("another partner's key id or a forged id changes nothing", async () => {
      const other = await setUpPartner(app.url, "Other", app.fetch);
      const res = await p.client.post("/settings/projects/vase/keys", { keys: [other.keyId] });
      await res.body?.cancel();
      assert.equal(
        res.headers.get("location"),
        `/settings/projects/vase?keys=unknown_keys&key_id=${other.keyId}#keys`,
      );
      assert.deepEqual((await getSdkKey(kv, other.keyId))!.allowedProjects, [other.project]);
      const foreign = await other.client.post("/settings/projects/vase/keys", {
        keys: [other.keyId],
      });
      assert.equal(foreign.status, 404, "another partner's project is not found");
      await foreign.body?.cancel();
    });
  } finally {
    await app.close();
  }
});

Deno.test("projects page - a key for this project from its page: one origin, the rest defaults", async (t) => {
  const app = await createTestApp();
  const { kv } = app.deps;
  try {
    const client = new SettingsClient(app.url, app.fetch);
    await client.signUp(`quick-key-${rid()}@shop.example`, "Quick Key");
    const created = await client.post("/settings/projects", { action: "starter", starter: "vase" });
    await created.body?.cancel();
    assert.equal(created.status, 303);
    const origin = "https://shop.example";

    await t.step("the quick form's fields, as the page sends them, create a key", async () => {
      const html = await client.html("/settings/projects/vase");
      const form = /<form[^>]*id="quick-key"[^>]*>([\s\S]*?)<\/form>/.exec(html)?.[1];
      assert.ok(form, "the project page has the quick key form");
      const fields: Record<string, string> = {};
      for (const m of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
        fields[m[1]] = m[2];
      }
      assert.equal(fields.projects, "vase");
      delete fields.csrf; // the client adds its own
      const res = await client.post("/settings/keys", { ...fields, origins: origin });
      const page = await res.text();
      assert.equal(res.status, 200, page.slice(0, 300));
      const keyId = /<code id="key-plaintext">sdk_(k[a-z2-7]+)_/.exec(page)?.[1];
      assert.ok(keyId, "the key is shown once");
      // The key-created page carries the element snippet for the project, ready to paste.
      assert.match(page, /id="snippet-element"/);
      assert.match(page, new RegExp(`key-id=&quot;${keyId}&quot;|key-id="${keyId}"`));
      const key = (await getSdkKey(kv, keyId))!;
      assert.deepEqual(key.allowedProjects, ["vase"]);
      assert.deepEqual(key.allowedOrigins, [origin]);
      const minted = await app.mint({ keyId, projectId: "vase" }, { origin });
      assert.equal(minted.status, 200, await minted.clone().text());
    });

    await t.step("the full form's link chooses the project beforehand", async () => {
      const more = await client.post("/settings/projects", { action: "starter", starter: "shelf" });
      await more.body?.cancel();
      const html = await client.html("/settings/keys/new?project=shelf");
      assert.match(html, /name="projects" value="shelf" checked/);
      assert.doesNotMatch(html, /name="projects" value="vase" checked/);
    });
  } finally {
    await app.close();
  }
});
