/**
 * The tag-keychain example end to end: published for a partner, a token minted, and its finished
 * DAG rendered by the real server (worker pool, manifold-3d) with an embossed and an engraved
 * name; a name the schema's pattern refuses answers 422 with the parameter's pointer.
 */
import assert from "node:assert/strict";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { substitute } from "@/lib/dag/substitute.ts";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { publishProject } from "@/lib/hub/publish.ts";
import { createProject } from "@/lib/store/projects.ts";
import { createKeyFixture, mint, startTestServer } from "../_helpers/server.ts";

const EXAMPLE = new URL("../../examples/projects/tag-keychain/", import.meta.url);

async function readJson(name: string): Promise<unknown> {
  return JSON.parse(await Deno.readTextFile(new URL(name, EXAMPLE)));
}

Deno.test("render - the tag-keychain example renders an embossed and an engraved name", async () => {
  const server = await startTestServer();
  try {
    const f = await createKeyFixture(server.deps.kv);
    const template = await readJson("template.dag.json") as Dag;
    const schemaDoc = await readJson("parameters.schema.json");
    await createProject(server.deps.kv, { partnerId: f.partnerId, slug: f.project, title: "Tag" })
      .catch((err) => {
        if (err?.code !== "project_exists") throw err;
      });
    await publishProject(server.deps.kv, f.project, { template, schema: schemaDoc }, {
      partnerId: f.partnerId,
    });
    const minted = await mint(server.url, { keyId: f.keyId, projectId: f.project }, {
      origin: f.origin,
    });
    assert.equal(minted.status, 200, await minted.clone().text());
    const { token } = await minted.json();
    const schema = validateParameterSchema(schemaDoc);
    const render = (values: Record<string, unknown>, dag?: Dag) =>
      fetch(`${server.url}/v1/kernels/manifold/render`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${token}`,
          origin: f.origin,
        },
        body: JSON.stringify({ dag: dag ?? substitute(template, schema, values) }),
      });
    const volumes: Record<string, number> = {};
    for (const style of ["embossed", "engraved"]) {
      const res = await render({ name: "Jo & Co. +1!", style });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      const { scene } = body;
      assert.deepEqual(scene.parts.map((p: { name: string }) => p.name), ["Tag", "Lettering"]);
      assert.ok(scene.volume > 0 && scene.triangles > 0, `${style}: ${scene.volume}`);
      const meshes = body.meshes as Record<string, { vertexCount: number; triangleCount: number }>;
      for (const mesh of Object.values(meshes)) {
        // Closed and orientable: every edge in two triangles (an even count), χ = V − F/2 even.
        assert.ok(mesh.triangleCount > 0 && mesh.triangleCount % 2 === 0, style);
        assert.equal((mesh.vertexCount - mesh.triangleCount / 2) % 2, 0, style);
      }
      // The tag is a plate with one through hole whatever the letters: a torus, χ = 0.
      const tag = meshes[scene.parts[0].mesh];
      assert.equal(tag.vertexCount - tag.triangleCount / 2, 0, `${style}: the tag's genus is 1`);
      volumes[style] = scene.volume;
      assert.ok(Math.abs(scene.bbox.max[0] - 60) < 1e-3, "the tag's default length");
    }
    // Embossed letters stand on the tag; engraved ones fill their own cut.
    assert.ok(volumes.embossed > volumes.engraved, JSON.stringify(volumes));

    // A name the pattern refuses never reaches the kernel's font.
    const refused = structuredClone(template);
    (refused.nodes.name as { value?: string }).value = "Zoë";
    const res = await render({}, refused);
    const problem = await res.json();
    assert.equal(res.status, 422, JSON.stringify(problem));
    assert.equal(problem.code, "invalid_parameters", JSON.stringify(problem));
    assert.equal(problem.reason, "unsupported_character");
  } finally {
    await server.close();
  }
});
