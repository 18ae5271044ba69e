/**
 * The order hand-off end to end (docs/exports.md): a storefront — a small Deno server on a second
 * loopback origin, its page and its backend — shows the <cad-configurator> element; a shopper in
 * Chromium configures the wall bracket and clicks "Add to cart", which calls getConfiguration();
 * the backend verifies the hub-signed configuration as docs/exports.md shows (jose against the
 * hub's JWKS), then downloads the 3MF of that exact configuration from `production.url` with its
 * secret. The 3MF is read back with three.js's 3MFLoader: its volume and size are the kernel's for
 * the configured values. A shopper's own token cannot download the 3MF (browser flow: GLB only).
 */
import assert from "node:assert/strict";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { DOMParser } from "linkedom";
import * as THREE from "three";
import { ThreeMFLoader } from "three/examples/jsm/loaders/3MFLoader.js";
import { createSdkKey } from "@/lib/hub/sdk_keys.ts";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { substitute } from "@/lib/dag/substitute.ts";
import { evaluateDag } from "@/lib/kernel/evaluate.ts";
import { mint, startTestServer } from "../_helpers/server.ts";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import { until } from "./storefront_fixture.ts";

const WALL_BRACKET = new URL("../../examples/projects/wall-bracket/", import.meta.url);

/** A free loopback port (listened on and closed: the server that takes it is started next). */
function freePort(): number {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  return port;
}

const PAGE = (hub: string, keyId: string) =>
  `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script type="module" src="${hub}/sdk/v1/embed.js"></script></head>
<body><main>
<cad-configurator id="cfg" key-id="${keyId}" project="wall-bracket" hub-url="${hub}"></cad-configurator>
<button id="wide">Width 100 mm</button>
<button id="add" disabled>Add to cart</button>
<output id="cart"></output>
</main>
<script type="module">
const cfg = document.getElementById("cfg");
const add = document.getElementById("add");
const cart = document.getElementById("cart");
cfg.addEventListener("cad-ready", () => (add.disabled = false));
cfg.addEventListener("cad-rendered", (e) => (document.body.dataset.width =
  String(Math.round(e.detail.result.bbox.max[0] - e.detail.result.bbox.min[0]))));
document.getElementById("wide").onclick = () => cfg.setParameters({ width: 100 });
add.onclick = async () => {
  const { configuration } = await cfg.getConfiguration();
  const res = await fetch("/api/cart", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ configuration }),
  });
  const body = await res.json();
  cart.dataset.state = res.ok ? "ok" : "error";
  cart.textContent = res.ok ? "Added: " + body.order : "Not added: " + body.reason;
};
</script></body></html>`;

/** The partner's site and backend: the page, the cart (verify + download), the saved files. */
function serveStorefront(port: number, hub: string, keyId: string, secretKey: string) {
  const jwks = createRemoteJWKSet(new URL(`${hub}/.well-known/jwks.json`));
  const orders = new Map<string, { claims: Record<string, unknown>; file: Uint8Array }>();
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/") {
      return new Response(PAGE(hub, keyId), { headers: { "content-type": "text/html" } });
    }
    if (req.method === "POST" && url.pathname === "/api/cart") {
      const { configuration } = await req.json();
      // 1. The documented verification: EdDSA, the hub's JWKS, typ, issuer, expiry.
      let claims: Record<string, unknown>;
      try {
        ({ payload: claims } = await jwtVerify(configuration, jwks, {
          algorithms: ["EdDSA"],
          typ: "cad-configuration+jwt",
          issuer: "hub",
        }));
      } catch (err) {
        return Response.json({ reason: String(err) }, { status: 422 });
      }
      // 2. The production file of exactly this configuration, with the secret (server side).
      const production = claims.production as { url: string; formats: string[] };
      if (!production?.formats.includes("3mf")) {
        return Response.json({ reason: "no 3MF for this key" }, { status: 422 });
      }
      const res = await fetch(production.url, {
        method: "POST",
        headers: { authorization: `Bearer ${secretKey}`, "content-type": "application/json" },
        body: JSON.stringify({ configuration, format: "3mf" }),
      });
      if (!res.ok) return Response.json({ reason: await res.text() }, { status: 502 });
      const order = `order-${orders.size + 1}`;
      orders.set(order, { claims, file: new Uint8Array(await res.arrayBuffer()) });
      return Response.json({ order });
    }
    return new Response("not found", { status: 404 });
  });
  return { origin: `http://127.0.0.1:${port}`, orders, close: () => server.shutdown() };
}

Deno.test("e2e order hand-off - add to cart, the backend verifies the configuration and downloads its 3MF", async () => {
  const hubPort = freePort();
  const hubUrl = `http://127.0.0.1:${hubPort}`;
  const hub = await startTestServer({
    env: { SEED_DEMO: "true", PORT: String(hubPort), PUBLIC_URL: hubUrl },
  });
  const shopPort = freePort();
  const shopOrigin = `http://127.0.0.1:${shopPort}`;
  const { key, record } = await createSdkKey(hub.deps.kv, {
    partnerId: hub.demo!.partnerId,
    label: "order hand-off shop",
    allowedOrigins: [shopOrigin],
    allowedProjects: hub.demo!.projects,
  });
  const shop = serveStorefront(shopPort, hubUrl, record.keyId, key);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${shop.origin}/`);
    await page.locator("#add:not([disabled])").waitFor({ timeout: 60_000 });
    await page.click("#wide");
    await page.locator('body[data-width="100"]').waitFor({ timeout: 60_000 });
    await page.click("#add");
    await page.locator('#cart[data-state="ok"]').waitFor({ timeout: 60_000 });
    await page.screenshot({ path: `${ARTIFACTS}order_handoff.png` });
    await until(() => shop.orders.size === 1, "the order");
    const { claims, file } = shop.orders.get("order-1")!;
    assert.equal(claims.project, "wall-bracket");
    assert.equal((claims.values as Record<string, unknown>).width, 100);

    // The 3MF is the configured bracket: the kernel's volume and size for those values.
    const read = async (f: string) => JSON.parse(await Deno.readTextFile(new URL(f, WALL_BRACKET)));
    const scene = await evaluateDag(
      substitute(
        await read("template.dag.json"),
        validateParameterSchema(await read("parameters.schema.json")),
        claims.values as Record<string, unknown>,
      ),
    );
    (globalThis as unknown as { DOMParser: unknown }).DOMParser = DOMParser;
    const group = new ThreeMFLoader().parse(
      file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer,
    );
    const box = new THREE.Box3().setFromObject(group);
    assert.ok(Math.abs(box.max.x - box.min.x - 100) < 1e-3, "100 mm wide");
    for (let k = 0; k < 3; k++) {
      assert.ok(Math.abs(box.min.getComponent(k) - scene.bbox.min[k]) < 1e-3);
      assert.ok(Math.abs(box.max.getComponent(k) - scene.bbox.max[k]) < 1e-3);
    }
    let volume = 0;
    group.updateMatrixWorld(true);
    group.traverse((o) => {
      const mesh = o as THREE.Mesh;
      if (!mesh.isMesh) return;
      const pos = mesh.geometry.getAttribute("position");
      const index = mesh.geometry.getIndex();
      const at = (i: number) => (index ? index.getX(i) : i);
      const [a, b, c] = [new THREE.Vector3(), new THREE.Vector3(), new THREE.Vector3()];
      for (let i = 0; i < (index ? index.count : pos.count); i += 3) {
        a.fromBufferAttribute(pos, at(i)).applyMatrix4(mesh.matrixWorld);
        b.fromBufferAttribute(pos, at(i + 1)).applyMatrix4(mesh.matrixWorld);
        c.fromBufferAttribute(pos, at(i + 2)).applyMatrix4(mesh.matrixWorld);
        volume += a.dot(b.clone().cross(c)) / 6;
      }
    });
    assert.ok(
      Math.abs(volume - scene.volume) <= 1e-6 * scene.volume,
      `3MF volume ${volume} vs the kernel's ${scene.volume}`,
    );

    // A shopper's session (a browser-flow token of the same key for the shop's origin) cannot
    // take the production file: the key allows tokens GLB only.
    const minted = await mint(hubUrl, { keyId: record.keyId, projectId: "wall-bracket" }, {
      origin: shopOrigin,
    });
    const { token } = await minted.json();
    const dag = substitute(
      await read("template.dag.json"),
      validateParameterSchema(await read("parameters.schema.json")),
      claims.values as Record<string, unknown>,
    );
    const asShopper = (format: string) =>
      fetch(`${hubUrl}/v1/kernels/manifold/export?format=${format}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          origin: shopOrigin,
          "content-type": "application/json",
        },
        body: JSON.stringify({ dag }),
      });
    const refused = await asShopper("3mf");
    assert.equal(refused.status, 403);
    assert.equal((await refused.json()).code, "export_format_not_allowed");
    const glb = await asShopper("glb");
    assert.equal(glb.status, 200, "the GLB (for AR) is the shopper's");
    await glb.body?.cancel();
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await browser.close();
    await shop.close();
    await hub.close();
  }
});
