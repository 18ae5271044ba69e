import assert from "node:assert/strict";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { substitute } from "@/lib/dag/substitute.ts";
import { getSdkKey } from "@/lib/store/sdk_keys.ts";
import { mint, startTestServer } from "../_helpers/server.ts";
import { setUpPartner } from "./_setup.ts";

const WALL_BRACKET = new URL("../../examples/projects/wall-bracket/", import.meta.url);

async function wallBracketDag(): Promise<Dag> {
  const read = async (file: string) =>
    JSON.parse(await Deno.readTextFile(new URL(file, WALL_BRACKET)));
  return substitute(
    await read("template.dag.json"),
    validateParameterSchema(await read("parameters.schema.json")),
    {},
  );
}

/** The `value`s of the checked checkboxes named `name` on a page. */
function checked(page: string, name: string): string[] {
  const inputs = page.match(new RegExp(`<input[^>]*name="${name}"[^>]*>`, "g")) ?? [];
  return inputs.filter((i) => /\bchecked\b/.test(i)).map((i) => /value="([^"]*)"/.exec(i)![1]);
}

const FORM = (a: { origin: string; project: string }) => ({
  label: "Export storefront",
  origins: a.origin,
  projects: [a.project],
  defaultTtl: "30",
  maxTtl: "120",
  budget: "",
  ratePoints: "600",
  rateSeconds: "60",
  ipPoints: "60",
  ipSeconds: "60",
});

Deno.test("key settings - export formats per flow: defaults, edit, kept when absent, refused when unknown, applied to exports", async (t) => {
  const server = await startTestServer();
  try {
    const a = await setUpPartner(server.url, "Exports");
    const { client } = a;

    await t.step("a new key's form and an existing key's page show the defaults", async () => {
      const blank = await client.html("/settings/keys/new");
      assert.deepEqual(checked(blank, "exportBrowser"), ["glb"]);
      assert.deepEqual(checked(blank, "exportServer"), ["glb", "stl", "3mf"]);
      const page = await client.html(`/settings/keys/${a.keyId}`);
      assert.match(page, /<legend>Export formats<\/legend>/);
      assert.deepEqual(checked(page, "exportBrowser"), ["glb"]);
      assert.deepEqual(checked(page, "exportServer"), ["glb", "stl", "3mf"]);
      const record = await getSdkKey(server.deps.kv, a.keyId);
      assert.deepEqual(record!.exportFormats, { browser: ["glb"], server: ["glb", "stl", "3mf"] });
    });

    await t.step(
      "the form lets shoppers download STL and keeps only 3MF for the backend",
      async () => {
        const saved = await client.post(`/settings/keys/${a.keyId}`, {
          ...FORM(a),
          exportFormats: "1",
          exportBrowser: ["glb", "stl"],
          exportServer: ["3mf"],
        });
        assert.equal(saved.status, 303, await saved.text());
        const record = await getSdkKey(server.deps.kv, a.keyId);
        assert.deepEqual(record!.exportFormats, { browser: ["glb", "stl"], server: ["3mf"] });
        const page = await client.html(`/settings/keys/${a.keyId}`);
        assert.deepEqual(checked(page, "exportBrowser"), ["glb", "stl"]);
        assert.deepEqual(checked(page, "exportServer"), ["3mf"]);
      },
    );

    await t.step("a post without the export fieldset keeps the key's formats", async () => {
      const saved = await client.post(`/settings/keys/${a.keyId}`, FORM(a));
      assert.equal(saved.status, 303, await saved.text());
      const record = await getSdkKey(server.deps.kv, a.keyId);
      assert.deepEqual(record!.exportFormats, { browser: ["glb", "stl"], server: ["3mf"] });
    });

    await t.step(
      "nothing checked means none; an unknown format is refused with a message",
      async () => {
        const none = await client.post(`/settings/keys/${a.keyId}`, {
          ...FORM(a),
          exportFormats: "1",
          exportBrowser: ["glb", "stl"],
        });
        assert.equal(none.status, 303);
        assert.deepEqual((await getSdkKey(server.deps.kv, a.keyId))!.exportFormats!.server, []);
        const res = await client.post(`/settings/keys/${a.keyId}`, {
          ...FORM(a),
          exportFormats: "1",
          exportBrowser: ["obj"],
        });
        assert.equal(res.status, 422);
        assert.match(
          await res.text(),
          /Export formats \(browser\) must be a list of: glb, stl, 3mf/,
        );
      },
    );

    await t.step("a token of the key exports STL now, and still not 3MF", async () => {
      server.deps.hub!.keys.invalidate(a.keyId);
      const minted = await mint(server.url, { keyId: a.keyId, projectId: a.project }, {
        origin: a.origin,
      });
      const { token } = await minted.json();
      const dag = await wallBracketDag();
      const post = (format: string) =>
        fetch(`${server.url}/v1/kernels/manifold/export?format=${format}`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            origin: a.origin,
            "content-type": "application/json",
          },
          body: JSON.stringify({ dag }),
        });
      const stl = await post("stl");
      assert.equal(stl.status, 200, await stl.clone().text());
      await stl.body?.cancel();
      const threemf = await post("3mf");
      assert.equal(threemf.status, 403);
      assert.equal((await threemf.json()).code, "export_format_not_allowed");
    });
  } finally {
    await server.close();
  }
});
