/**
 * The floor of time to first model in this browser: a bare page that loads three.js's own
 * `three.module.js` from a loopback server (no compression, no token, no render request), creates
 * one `WebGLRenderer`, draws one flat-shaded mesh of ~1,200 triangles under a hemisphere light on
 * the next frame and waits one more frame. Prints, per cold navigation (a new browser context
 * each), the renderer's construction, the first draw and the time from navigation start to drawn,
 * then the p50. Run alone: `deno run -A bench/first_model_floor.ts` (docs/performance.md).
 */
import { launchBrowser } from "../tests/e2e/browser.ts";
import { percentileOfSorted } from "./stats.ts";

const NAVIGATIONS = 6;
const THREE_BUILD = new URL(
  "../node_modules/.deno/three@0.187.0/node_modules/three/build/",
  import.meta.url,
);

const PAGE = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>floor</title>
<script type="importmap">{"imports":{"three":"/three.module.js"}}</script></head><body>
<div id="host" style="width:1100px;height:640px"></div>
<script type="module">
import * as THREE from "three";
const t0 = performance.now();
const renderer = new THREE.WebGLRenderer({ antialias: true });
renderer.setSize(1100, 640);
document.getElementById("host").appendChild(renderer.domElement);
const t1 = performance.now();
const scene = new THREE.Scene();
const camera = new THREE.PerspectiveCamera(40, 1100 / 640, 1, 1000);
camera.position.set(60, 60, 60);
camera.lookAt(0, 0, 0);
scene.add(new THREE.HemisphereLight(0xffffff, 0x444444, 1));
scene.add(new THREE.Mesh(
  new THREE.TorusKnotGeometry(10, 3, 100, 6),
  new THREE.MeshStandardMaterial({ color: 0xc9a227, flatShading: true }),
));
requestAnimationFrame(() => {
  renderer.render(scene, camera);
  const t2 = performance.now();
  requestAnimationFrame(() => {
    globalThis.floor = { renderer: t1 - t0, draw: t2 - t1, drawn: performance.now() };
  });
});
</script></body></html>`;

interface FloorTimes {
  renderer: number;
  draw: number;
  drawn: number;
}

if (import.meta.main) {
  const ac = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen() {} },
    async (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/") return new Response(PAGE, { headers: { "content-type": "text/html" } });
      if (!/^\/three\.(module|core)\.js$/.test(path)) return new Response(null, { status: 404 });
      const body = await Deno.readFile(new URL(path.slice(1), THREE_BUILD));
      return new Response(body, { headers: { "content-type": "text/javascript" } });
    },
  );
  const browser = await launchBrowser();
  const runs: FloorTimes[] = [];
  try {
    for (let i = 0; i < NAVIGATIONS; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      try {
        const page = await context.newPage();
        await page.goto(`http://127.0.0.1:${server.addr.port}/`);
        await page.waitForFunction(() => "floor" in globalThis, null, { timeout: 60_000 });
        const t = await page.evaluate(() => (globalThis as unknown as { floor: FloorTimes }).floor);
        runs.push(t);
        console.log(
          `navigation ${i + 1}: WebGLRenderer ${t.renderer.toFixed(0)} ms, first draw ` +
            `${t.draw.toFixed(0)} ms, drawn ${t.drawn.toFixed(0)} ms after navigation start`,
        );
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
    ac.abort();
    await server.finished;
  }
  const p50 = (f: (t: FloorTimes) => number) =>
    percentileOfSorted(runs.map(f).sort((a, b) => a - b), 50).toFixed(0);
  console.log(
    `first-model floor p50: WebGLRenderer ${p50((t) => t.renderer)} ms, first draw ` +
      `${p50((t) => t.draw)} ms, drawn ${
        p50((t) => t.drawn)
      } ms (target for the product: 1,000 ms)`,
  );
}
