import assert from "node:assert/strict";
import { startTestServer } from "../_helpers/server.ts";
import { finishedDag } from "../_helpers/projects.ts";
import { expectProblem, render, setupRender } from "./render_helpers.ts";

const EXPORT = "/v1/kernels/manifold/export";

Deno.test("export - a token holder gets the GLB with a render's checks and cost; other formats only when the key allows them", async (t) => {
  const server = await startTestServer();
  try {
    const s = await setupRender(server.deps.kv, server.url, { budget: 5 });
    const dag = await finishedDag("plate", { width: 100, holes: 3 });

    await t.step("GLB: a glTF binary as an attachment, one unit spent", async () => {
      const res = await render(server.url, s.token, s.origin, { dag }, {
        path: `${EXPORT}?format=glb`,
      });
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(res.headers.get("content-type"), "model/gltf-binary");
      assert.match(
        res.headers.get("content-disposition") ?? "",
        new RegExp(`^attachment; filename="${s.project}-v1-[0-9a-f]{12}\\.glb"$`),
      );
      assert.equal(res.headers.get("access-control-allow-origin"), s.origin);
      assert.equal(res.headers.get("x-render-remaining"), "4");
      const bytes = new Uint8Array(await res.arrayBuffer());
      assert.equal(new TextDecoder().decode(bytes.subarray(0, 4)), "glTF");
      assert.equal(new DataView(bytes.buffer).getUint32(8, true), bytes.length);
    });

    await t.step(
      "the same export again is the same file (cached), and costs its unit",
      async () => {
        const a = await render(server.url, s.token, s.origin, { dag }, {
          path: `${EXPORT}?format=glb`,
        });
        const b = await render(server.url, s.token, s.origin, { dag }, {
          path: `${EXPORT}?format=glb`,
        });
        assert.deepEqual(
          new Uint8Array(await a.arrayBuffer()),
          new Uint8Array(await b.arrayBuffer()),
        );
        assert.equal(b.headers.get("x-render-remaining"), "2");
      },
    );

    await t.step("STL and 3MF are refused for a token by default, at no cost", async () => {
      for (const format of ["stl", "3mf"]) {
        const res = await render(server.url, s.token, s.origin, { dag }, {
          path: `${EXPORT}?format=${format}`,
        });
        const body = await expectProblem(res, 403, "export_format_not_allowed");
        assert.equal(body.format, format);
        assert.equal(body.flow, "browser");
        assert.deepEqual(body.allowed, ["glb"]);
        assert.match(String(body.detail), /settings/);
      }
      const res = await render(server.url, s.token, s.origin, { dag }, {
        path: `${EXPORT}?format=glb`,
      });
      assert.equal(res.headers.get("x-render-remaining"), "1", "the refusals cost nothing");
      await res.body?.cancel();
    });

    await t.step("an unknown or missing format is a 400 naming the formats", async () => {
      for (const query of ["?format=obj", ""]) {
        const res = await render(server.url, s.token, s.origin, { dag }, {
          path: `${EXPORT}${query}`,
        });
        const body = await expectProblem(res, 400, "unknown_export_format");
        assert.deepEqual(body.formats, ["glb", "stl", "3mf"]);
      }
    });

    await t.step("the render checks apply: another Origin is refused", async () => {
      const res = await render(server.url, s.token, "https://evil.example", { dag }, {
        path: `${EXPORT}?format=glb`,
      });
      await expectProblem(res, 403, "origin_mismatch");
    });
  } finally {
    await server.close();
  }
});

Deno.test("export - a key that allows STL and 3MF to the browser flow serves them", async () => {
  const server = await startTestServer();
  try {
    const s = await setupRender(server.deps.kv, server.url, {
      exportFormats: { browser: ["stl", "3mf"], server: [] },
    });
    const dag = await finishedDag("plate", { width: 100, holes: 3 });
    const stl = await render(server.url, s.token, s.origin, { dag }, {
      path: `${EXPORT}?format=stl`,
    });
    assert.equal(stl.status, 200, await stl.clone().text());
    assert.equal(stl.headers.get("content-type"), "model/stl");
    const bytes = new Uint8Array(await stl.arrayBuffer());
    const facets = new DataView(bytes.buffer).getUint32(80, true);
    assert.equal(bytes.length, 84 + 50 * facets);
    const threemf = await render(server.url, s.token, s.origin, { dag }, {
      path: `${EXPORT}?format=3mf`,
    });
    assert.equal(threemf.status, 200);
    assert.equal(threemf.headers.get("content-type"), "model/3mf");
    const zip = new Uint8Array(await threemf.arrayBuffer());
    assert.deepEqual([...zip.subarray(0, 4)], [0x50, 0x4b, 0x03, 0x04]);
    const glb = await render(server.url, s.token, s.origin, { dag }, {
      path: `${EXPORT}?format=glb`,
    });
    await expectProblem(glb, 403, "export_format_not_allowed");
  } finally {
    await server.close();
  }
});
