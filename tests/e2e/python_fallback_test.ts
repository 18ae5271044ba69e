/**
 * The Python fallback in Chromium: a page mints a token for a python-mode project (the shelf
 * example), lazily loads Pyodide from the hub in a Web Worker, runs the shelf's design for two
 * board counts and renders both through the render client and the kernel.
 *
 * The page script is bundled from tests/e2e/python_fallback_page.ts with `deno bundle`. In the
 * first test the page is on the app's own origin (answered by the test with `page.route`; mint,
 * project, Pyodide, worker, package and render come from the real app); in the second it is a
 * partner's site on another origin, as in production, so the worker starts from a blob and every
 * runtime file is fetched cross-origin. Both print the measured download size and cold start
 * (docs/design.md quotes them).
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { publishProject } from "@/lib/hub/publish.ts";
import { readProjectDir } from "@/lib/hub/project_dir.ts";
import { PYODIDE_FILES, PYODIDE_VERSION } from "@/lib/sdk/python_assets.ts";
import { PYODIDE_VERSION as CLIENT_PYODIDE_VERSION } from "@/lib/client/python_runtime.ts";
import { createKeyFixture, startTestServer } from "../_helpers/server.ts";
import { ARTIFACTS, launchBrowser } from "./browser.ts";

const PAGE_SCRIPT = new URL("./python_fallback_page.ts", import.meta.url).pathname;
const SHELF = new URL("../../examples/projects/shelf/", import.meta.url);

const PAGE_HTML = `<!DOCTYPE html><title>Python fallback</title>
  <h1>Python fallback</h1><p id="status" data-status="running">running</p>
  <pre id="report"></pre><script type="module" src="/e2e/python-fallback.js"></script>`;

async function bundlePage(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "python-fallback-" });
  try {
    const out = `${dir}/page.js`;
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--platform", "browser", "-o", out, PAGE_SCRIPT],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(run.success, new TextDecoder().decode(run.stderr));
    const script = await Deno.readTextFile(out);
    assert.ok(!script.includes("pyodide.asm"), "Pyodide is never in the page bundle");
    return script;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Records the size of every /sdk/v1/ answer the page and its worker fetched from `hub`. */
function recordRuntimeFetches(page: Page, hub: string): Map<string, number> {
  const fetched = new Map<string, number>();
  page.on("requestfinished", async (request) => {
    const url = new URL(request.url());
    if (url.origin !== hub || !url.pathname.startsWith("/sdk/v1/")) return;
    const response = await request.response();
    // The bytes on the wire (every /sdk/v1/ answer carries its length).
    if (response) fetched.set(url.pathname, Number(await response.headerValue("content-length")));
  });
  return fetched;
}

/** Waits for the page, checks both renders and what was downloaded, and prints the figures. */
async function checkRun(page: Page, fetched: Map<string, number>, label: string) {
  const logs: string[] = [];
  page.on("console", (msg) => logs.push(`${msg.type()}: ${msg.text()}`));
  await page.locator('#status:not([data-status="running"])').waitFor({ timeout: 120_000 });
  const report = JSON.parse(await page.locator("#report").textContent() ?? "{}");
  await page.screenshot({ path: `${ARTIFACTS}python_fallback_${label}.png`, fullPage: true });
  assert.equal(
    await page.locator("#status").getAttribute("data-status"),
    "done",
    `${JSON.stringify(report)}\n${logs.join("\n")}`,
  );
  assert.equal(report.mode, "python");
  assert.equal(report.renders.length, 2);
  const [two, seven] = report.renders;
  assert.deepEqual(two.parts, ["Shelf"]);
  assert.ok(two.triangles > 0 && seven.triangles > two.triangles, JSON.stringify(report));
  assert.notEqual(two.dagHash, seven.dagHash);
  assert.ok(seven.volume > two.volume);

  // Exactly the Pyodide files the runtime needs came from the hub, plus worker and package.
  const prefix = `/sdk/v1/pyodide/${PYODIDE_VERSION}/`;
  assert.deepEqual(
    [...fetched.keys()].filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length))
      .sort(),
    Object.keys(PYODIDE_FILES).sort(),
  );
  assert.ok(fetched.has("/sdk/v1/python/worker.js"), "the worker came from the hub");
  assert.ok(fetched.has("/sdk/v1/python/cadparam.json"), "the package came from the hub");
  assert.equal(fetched.size, Object.keys(PYODIDE_FILES).length + 2);
  assert.ok([...fetched.values()].every((n) => n > 0), JSON.stringify([...fetched]));
  const bytes = [...fetched.values()].reduce((sum, n) => sum + n, 0);
  console.log(
    `python fallback (${label}): ${fetched.size} files, ${bytes} bytes downloaded; ` +
      `cold start ${Math.round(report.coldStartMs)} ms to the first DAG ` +
      `(Pyodide ${Math.round(report.timings.pyodideMs)} ms, package ` +
      `${Math.round(report.timings.totalMs - report.timings.pyodideMs)} ms); renders ` +
      report.renders.map((r: { boards: number; ms: number; triangles: number }) =>
        `${r.boards} boards ${Math.round(r.ms)} ms / ${r.triangles} triangles`
      ).join(", "),
  );
  for (const [path, size] of [...fetched].sort()) console.log(`  ${path} ${size} B`);
}

Deno.test("e2e - client and hub agree on the Pyodide version", () => {
  assert.equal(CLIENT_PYODIDE_VERSION, PYODIDE_VERSION);
});

Deno.test({
  name: "e2e - a python-mode project renders through the in-browser Python runtime",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const script = await bundlePage();
    const server = await startTestServer({ env: { SEED_DEMO: "true" } });
    const browser = await launchBrowser();
    try {
      assert.ok(server.demo?.projects.includes("shelf"), "the demo publishes the shelf");
      const url = server.url.replace("localhost", "127.0.0.1");
      const page = await browser.newPage();
      const fetched = recordRuntimeFetches(page, url);
      await page.route(
        `${url}/e2e/python-fallback?*`,
        (route) => route.fulfill({ contentType: "text/html; charset=utf-8", body: PAGE_HTML }),
      );
      await page.route(
        `${url}/e2e/python-fallback.js`,
        (route) => route.fulfill({ contentType: "text/javascript; charset=utf-8", body: script }),
      );
      const key = encodeURIComponent(server.demo!.keyId);
      await page.goto(`${url}/e2e/python-fallback?key=${key}&project=shelf&boards=2,7`);
      await checkRun(page, fetched, "same_origin");
    } finally {
      await browser.close();
      await server.close();
    }
  },
});

Deno.test({
  name: "e2e - a partner page on another origin runs the Python fallback from the hub",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const script = await bundlePage();
    // The partner's site: serves only its page and script; everything else is the hub's.
    const partner = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen() {} },
      (req) =>
        new URL(req.url).pathname === "/e2e/python-fallback.js"
          ? new Response(script, { headers: { "content-type": "text/javascript; charset=utf-8" } })
          : new Response(PAGE_HTML, { headers: { "content-type": "text/html; charset=utf-8" } }),
    );
    const server = await startTestServer();
    const browser = await launchBrowser();
    try {
      const partnerOrigin = `http://127.0.0.1:${partner.addr.port}`;
      const f = await createKeyFixture(server.deps.kv, { allowedOrigins: [partnerOrigin] });
      await publishProject(server.deps.kv, f.project, await readProjectDir(SHELF));
      const hub = server.url.replace("localhost", "127.0.0.1");
      const page = await browser.newPage();
      const fetched = recordRuntimeFetches(page, hub);
      const query = new URLSearchParams({ key: f.keyId, project: f.project, hub, boards: "2,7" });
      await page.goto(`${partnerOrigin}/e2e/python-fallback?${query}`);
      await checkRun(page, fetched, "cross_origin");
    } finally {
      await browser.close();
      await partner.shutdown();
      await server.close();
    }
  },
});
