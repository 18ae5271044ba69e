/**
 * "View in AR" launching (lib/client/ar_launch.ts) without a browser: the Scene Viewer intent URL
 * (read back as Android parses it), the Scene Viewer path with a capability URL, and the
 * refusals. The Quick Look path (a blob: USDZ through an `<a rel="ar">`) runs in Chromium in
 * tests/e2e/ar_view_test.ts.
 */
import assert from "node:assert/strict";
import { ArError, sceneViewerIntentUrl, viewInAr } from "@/lib/client/ar_launch.ts";
import type { UsdzInput } from "@/lib/client/usdz_export.ts";

const GLB = "https://kernel.example/v1/kernels/manifold/ar/abc_DEF-123.glb";
const PAGE = "https://shop.example/product?cad=1.k7&colour=red#details";

/** Reads an intent URL the way Android's `Intent.parseUri` splits it. */
function parseIntent(url: string) {
  const m = /^intent:\/\/([^?#]+)\?([^#]*)#Intent;(.*);end;$/.exec(url);
  assert.ok(m, `an intent URL: ${url}`);
  const extras = new Map(
    m[3].split(";").map((kv) => {
      const i = kv.indexOf("=");
      return [kv.slice(0, i), kv.slice(i + 1)] as [string, string];
    }),
  );
  return { path: m[1], query: new URLSearchParams(m[2]), extras };
}

const SCENE: UsdzInput = {
  parts: [{
    name: "p",
    color: "#ff0000",
    mesh: { hash: "h", positions: new Float32Array(9), indices: new Uint32Array([0, 1, 2]) },
    instances: [[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]],
  }],
  bbox: { min: [0, 0, 0], max: [1, 1, 1] },
};

Deno.test("ar launch - the Scene Viewer intent carries the GLB, AR first, true size and the fallback", () => {
  const url = sceneViewerIntentUrl(GLB, { title: "Spur gear & co", fallbackUrl: PAGE });
  const intent = parseIntent(url);
  assert.equal(intent.path, "arvr.google.com/scene-viewer/1.0");
  assert.equal(intent.query.get("file"), GLB);
  assert.equal(intent.query.get("mode"), "ar_preferred");
  assert.equal(intent.query.get("resizable"), "false");
  assert.equal(intent.query.get("title"), "Spur gear & co");
  assert.equal(intent.extras.get("scheme"), "https");
  assert.equal(intent.extras.get("package"), "com.google.android.googlequicksearchbox");
  assert.equal(intent.extras.get("action"), "android.intent.action.VIEW");
  assert.equal(decodeURIComponent(intent.extras.get("S.browser_fallback_url")!), PAGE);
  assert.ok(!url.includes(" "), "no raw spaces");
  assert.equal(
    parseIntent(sceneViewerIntentUrl(GLB, { fallbackUrl: PAGE })).query.has("title"),
    false,
  );
});

Deno.test("ar launch - Scene Viewer: the capability URL is asked for and the intent opened", async () => {
  const opened: string[] = [];
  const launch = await viewInAr({
    mode: "scene-viewer",
    scene: () => Promise.resolve(SCENE),
    glbUrl: () => Promise.resolve(GLB),
    title: "Vase",
    fallbackUrl: PAGE,
    open: (u) => opened.push(u),
  });
  assert.equal(launch.mode, "scene-viewer");
  assert.deepEqual(opened, [launch.url]);
  assert.equal(parseIntent(launch.url).query.get("file"), GLB);
});

Deno.test("ar launch - refusals name what is missing", async (t) => {
  const opened: string[] = [];
  const open = (u: string) => opened.push(u);
  const cases: Array<[string, Parameters<typeof viewInAr>[0], string]> = [
    [
      "no AR on this device",
      { mode: null, scene: () => Promise.resolve(SCENE), open },
      "ar_unavailable",
    ],
    [
      "Scene Viewer without a GLB URL source",
      { mode: "scene-viewer", scene: () => Promise.resolve(SCENE), open },
      "ar_unavailable",
    ],
    [
      "Scene Viewer before any scene",
      {
        mode: "scene-viewer",
        scene: () => Promise.reject(new Error("nothing drawn")),
        glbUrl: () => Promise.resolve(GLB),
        open,
      },
      "no_scene",
    ],
    [
      "Scene Viewer when the kernel refuses the ticket",
      {
        mode: "scene-viewer",
        scene: () => Promise.resolve(SCENE),
        glbUrl: () => Promise.reject(new Error("export_format_not_allowed")),
        open,
      },
      "ar_model_unavailable",
    ],
    [
      "Quick Look before any scene",
      { mode: "quick-look", scene: () => Promise.reject(new Error("nothing drawn")), open },
      "no_scene",
    ],
    [
      "Quick Look of a scene with no triangles",
      { mode: "quick-look", scene: () => Promise.resolve({ ...SCENE, parts: [] }), open },
      "no_scene",
    ],
  ];
  for (const [label, options, code] of cases) {
    await t.step(label, async () => {
      await assert.rejects(viewInAr(options), (e) => e instanceof ArError && e.code === code);
    });
  }
  assert.deepEqual(opened, [], "nothing was opened");
});
