/** The hub serves the Python fallback's files: Pyodide (immutable, wasm MIME), worker, package. */
import assert from "node:assert/strict";
import { PYODIDE_FILES, PYODIDE_VERSION } from "@/lib/web/sdk_assets.ts";
import { startTestServer } from "../_helpers/server.ts";

Deno.test("design - the hub serves Pyodide, the worker and the package for the Python fallback", async (t) => {
  const server = await startTestServer({ redis: false });
  try {
    const base = `${server.url}/sdk/v1`;
    await t.step("every Pyodide file, immutable and cross-origin", async () => {
      for (const [file, type] of Object.entries(PYODIDE_FILES)) {
        const res = await fetch(`${base}/pyodide/${PYODIDE_VERSION}/${file}`);
        const body = new Uint8Array(await res.arrayBuffer());
        assert.equal(res.status, 200, file);
        assert.equal(res.headers.get("content-type"), type);
        assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
        assert.equal(res.headers.get("access-control-allow-origin"), "*");
        assert.equal(Number(res.headers.get("content-length")), body.length);
        const installed = await Deno.stat(
          new URL(`../../node_modules/pyodide/${file}`, import.meta.url),
        );
        assert.equal(body.length, installed.size);
        const again = await fetch(`${base}/pyodide/${PYODIDE_VERSION}/${file}`, {
          headers: { "if-none-match": res.headers.get("etag")! },
        });
        assert.equal(again.status, 304);
        await again.body?.cancel();
      }
      const wasm = await fetch(`${base}/pyodide/${PYODIDE_VERSION}/pyodide.asm.wasm`);
      const magic = new Uint8Array(await wasm.arrayBuffer()).slice(0, 4);
      assert.deepEqual([...magic], [0, 0x61, 0x73, 0x6d]);
    });
    await t.step("nothing else under the Pyodide path", async () => {
      for (
        const path of [
          `pyodide/0.0.1/pyodide.mjs`,
          `pyodide/${PYODIDE_VERSION}/package.json`,
          `pyodide/${PYODIDE_VERSION}/..%2Fpyodide%2Fpackage.json`,
          `python/design.py`,
        ]
      ) {
        const res = await fetch(`${base}/${path}`);
        const body = await res.json();
        assert.equal(res.status, 404, path);
        assert.equal(body.code, "not_found");
      }
    });
    await t.step("the worker script and the cadparam package", async () => {
      const worker = await fetch(`${base}/python/worker.js`);
      assert.equal(worker.headers.get("content-type"), "text/javascript; charset=utf-8");
      assert.match(await worker.text(), /run_source_json/);
      const pkg = await fetch(`${base}/python/cadparam.json`);
      assert.equal(pkg.headers.get("access-control-allow-origin"), "*");
      const { files } = await pkg.json();
      assert.ok(files["cadparam/__init__.py"] && files["cadparam/runtime.py"]);
      assert.ok(Object.keys(files).every((name) => /^cadparam\/[a-z_]+\.py$/.test(name)));
    });
  } finally {
    await server.close();
  }
});
