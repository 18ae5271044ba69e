import assert from "node:assert/strict";
import { ProjectLoader } from "@/lib/client/project_loader.ts";
import { RenderError } from "@/lib/client/problem.ts";
import { RenderClient } from "@/lib/client/render_client.ts";
import { SessionClient } from "@/lib/client/session_client.ts";
import { publishProject } from "@/lib/hub/publish.ts";
import { createTestApp } from "../_helpers/app.ts";
import { createKeyFixture } from "../_helpers/fixtures.ts";
import { readProjectFixture } from "../_helpers/projects.ts";
import { rid } from "../_helpers/redis.ts";
import { createProject } from "@/lib/store/projects.ts";

const EXAMPLES = new URL("../../examples/projects/", import.meta.url);

Deno.test("client - a slug two partners publish loads each partner's own project", async (t) => {
  const app = await createTestApp();
  const { kv } = app.deps;
  try {
    const slug = `twin-${rid()}`;
    const a = await createKeyFixture(kv);
    const b = await createKeyFixture(kv);
    await createProject(kv, { partnerId: a.partnerId, slug, title: "A's plate" });
    await createProject(kv, { partnerId: b.partnerId, slug, title: "B's vase" });
    await publishProject(kv, slug, await readProjectFixture("plate"), { partnerId: a.partnerId });
    const vase = {
      template: JSON.parse(await Deno.readTextFile(new URL("vase/template.dag.json", EXAMPLES))),
      schema: JSON.parse(await Deno.readTextFile(new URL("vase/parameters.schema.json", EXAMPLES))),
    };
    await publishProject(kv, slug, vase, { partnerId: b.partnerId });
    const loader = new ProjectLoader({ baseUrl: app.url, fetch: app.fetch });

    await t.step("by keyId and by partner id", async () => {
      assert.equal((await loader.load(slug, undefined, { key: a.keyId })).title, "A's plate");
      assert.equal((await loader.load(slug, 1, { partner: b.partnerId })).title, "B's vase");
    });

    await t.step("the slug alone is refused as ambiguous, with a stable code", async () => {
      const err = await loader.load(slug).then(() => assert.fail("loaded"), (e) => e);
      assert.ok(err instanceof RenderError);
      assert.equal(err.code, "project_ambiguous");
      assert.equal(err.status, 409);
    });

    await t.step("a RenderClient names the partner from its session", async () => {
      // Browser flow: the keyId.
      const browser = new SessionClient({
        keyId: b.keyId,
        projectKey: slug,
        hubBaseUrl: app.url,
        fetch: app.fetch,
        mintOnCreate: false,
      });
      const viaKey = new RenderClient({ baseUrl: app.url, session: browser, fetch: app.fetch });
      assert.equal((await viaKey.loadProject(slug)).title, "B's vase");
      viaKey.dispose();
      browser.dispose();
      // Server flow: the token's partner claim.
      const minted = await app.mint({ keyId: a.keyId, projectId: a.project }, { origin: a.origin });
      const { token } = await minted.json();
      const server = new SessionClient({ sessionToken: token });
      assert.deepEqual(server.projectScope, { partner: a.partnerId });
      const viaToken = new RenderClient({ baseUrl: app.url, session: server, fetch: app.fetch });
      assert.equal((await viaToken.loadProject(slug)).title, "A's plate");
      viaToken.dispose();
      server.dispose();
    });
  } finally {
    await app.close();
  }
});
