/**
 * The hub serves the Python fallback's files: Pyodide (immutable, wasm MIME), worker, package;
 * in brotli or gzip to clients that accept it (except the already-compressed stdlib zip).
 */
import assert from "node:assert/strict";
import { PYODIDE_FILES, PYODIDE_VERSION } from "@/lib/sdk/python_assets.ts";
import { startTestServer } from "../_helpers/server.ts";
import { decoded, rawRequest } from "../http/_raw_http.ts";

Deno.test("design - the hub serves Pyodide, the worker and the package for the Python fallback", async (t) => {
  const server = await startTestServer({ redis: false });
  try {
    const base = `${server.url}/sdk/v1`;
    const identity = { "accept-encoding": "identity" };
    await t.step("every Pyodide file, immutable and cross-origin", async () => {
      for (const [file, type] of Object.entries(PYODIDE_FILES)) {
        const res = await fetch(`${base}/pyodide/${PYODIDE_VERSION}/${file}`, {
          headers: identity,
        });
        const body = new Uint8Array(await res.arrayBuffer());
        assert.equal(res.status, 200, file);
        assert.equal(res.headers.get("content-type"), type);
        assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
        assert.equal(res.headers.get("access-control-allow-origin"), "*");
        assert.equal(res.headers.get("content-encoding"), null);
        assert.equal(Number(res.headers.get("content-length")), body.length);
        const installed = await Deno.stat(
          new URL(`../../node_modules/pyodide/${file}`, import.meta.url),
        );
        assert.equal(body.length, installed.size);
        const again = await fetch(`${base}/pyodide/${PYODIDE_VERSION}/${file}`, {
          headers: { ...identity, "if-none-match": res.headers.get("etag")! },
        });
        assert.equal(again.status, 304);
        await again.body?.cancel();
      }
      const wasm = await fetch(`${base}/pyodide/${PYODIDE_VERSION}/pyodide.asm.wasm`, {
        headers: identity,
      });
      const magic = new Uint8Array(await wasm.arrayBuffer()).slice(0, 4);
      assert.deepEqual([...magic], [0, 0x61, 0x73, 0x6d]);
    });
    await t.step("coded for a client that accepts it, the zip as it is", async () => {
      let identityBytes = 0;
      const wire = { gzip: 0, br: 0 };
      for (const [file, type] of Object.entries(PYODIDE_FILES)) {
        const url = `${base}/pyodide/${PYODIDE_VERSION}/${file}`;
        const installed = await Deno.readFile(
          new URL(`../../node_modules/pyodide/${file}`, import.meta.url),
        );
        identityBytes += installed.length;
        const gzip = await rawRequest(url, { "accept-encoding": "gzip" });
        // Brotli is made off the event loop; until it is ready the answer is gzip.
        let br = await rawRequest(url, { "accept-encoding": "br;q=1, gzip;q=0.8" });
        for (let i = 0; i < 600 && br.headers.get("content-encoding") === "gzip"; i++) {
          await new Promise((r) => setTimeout(r, 200));
          br = await rawRequest(url, { "accept-encoding": "br;q=1, gzip;q=0.8" });
        }
        for (const [coding, res] of [["gzip", gzip], ["br", br]] as const) {
          assert.deepEqual(decoded(res), installed, `${file} ${coding}`);
          assert.equal(Number(res.headers.get("content-length")), res.body.length);
          wire[coding] += res.body.length;
          if (type === "application/zip") {
            assert.equal(res.headers.get("content-encoding"), null, file);
            assert.equal(res.headers.get("vary"), null, file);
            continue;
          }
          assert.equal(res.headers.get("content-encoding"), coding, file);
          assert.equal(res.headers.get("vary"), "Accept-Encoding");
          assert.ok(res.body.length < installed.length, `${file}: ${res.body.length}`);
          // Each coding has its own validator, so a cache never revalidates one with the other's.
          const etag = res.headers.get("etag")!;
          assert.match(etag, coding === "br" ? /-br"$/ : /-gz"$/);
          const again = await rawRequest(url, { "accept-encoding": coding, "if-none-match": etag });
          assert.equal(again.status, 304);
          const plain = await rawRequest(url, { ...identity, "if-none-match": etag });
          assert.equal(plain.status, 200, "a coded validator does not match the identity body");
        }
      }
      assert.ok(wire.gzip < identityBytes * 0.6, `gzip: ${wire.gzip} of ${identityBytes} bytes`);
      assert.ok(wire.br < wire.gzip, `brotli ${wire.br} < gzip ${wire.gzip} bytes`);
      const refused = await rawRequest(`${base}/pyodide/${PYODIDE_VERSION}/pyodide.mjs`, {
        "accept-encoding": "gzip;q=0, br;q=0",
      });
      assert.equal(refused.headers.get("content-encoding"), null);
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
      assert.ok(
        ["gzip", "br"].includes(worker.headers.get("content-encoding")!),
        "fetch sends both",
      );
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
