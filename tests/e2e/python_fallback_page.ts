/**
 * The script of the Python-fallback test page (bundled by python_fallback_test.ts with
 * `deno bundle`): mints in the browser flow, loads the python-mode shelf project, lazily starts
 * the Pyodide runtime, and renders two board counts through the render client. It writes what it
 * measured into `#report` and sets `#status[data-status]` to `done` or `failed`.
 */
import { RenderClient } from "@/lib/client/render_client.ts";
import { PythonRuntime, renderWithPython } from "@/lib/client/python_runtime.ts";
import { SessionClient } from "@/lib/client/session_client.ts";

const status = document.getElementById("status")!;
const report = document.getElementById("report")!;
const query = new URLSearchParams(location.search);
const keyId = query.get("key") ?? "";
const slug = query.get("project") ?? "";
const boards = (query.get("boards") ?? "2,7").split(",").map(Number);
// The hub and kernel (the same app here): this page's origin, or another one (a partner's site).
const base = query.get("hub") ?? location.origin;

async function main(): Promise<Record<string, unknown>> {
  const session = new SessionClient({ keyId, projectKey: slug, hubBaseUrl: base });
  const renderer = new RenderClient({ baseUrl: base, session });
  const project = await renderer.loadProject(slug);
  const runtime = new PythonRuntime({ hubBaseUrl: base });
  const start = performance.now();
  const timings = await runtime.load();
  const firstDag = await runtime.run(project.source!, { boards: boards[0] });
  const coldStartMs = performance.now() - start;
  const renders = [];
  for (const count of boards) {
    const began = performance.now();
    const result = await renderWithPython(renderer, runtime, { boards: count });
    renders.push({
      boards: count,
      ms: performance.now() - began,
      dagHash: result.dagHash,
      triangles: result.triangles,
      volume: result.volume,
      parts: result.parts.map((part) => part.name),
    });
  }
  runtime.dispose();
  return {
    mode: project.mode,
    firstDagNodes: Object.keys(firstDag.nodes).length,
    coldStartMs,
    timings,
    renders,
  };
}

main().then(
  (result) => {
    report.textContent = JSON.stringify(result);
    status.dataset.status = "done";
    status.textContent = "done";
  },
  (err) => {
    report.textContent = JSON.stringify({ error: String(err), code: err?.code });
    status.dataset.status = "failed";
    status.textContent = "failed";
  },
);
