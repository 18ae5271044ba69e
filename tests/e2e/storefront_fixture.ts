/**
 * The e2e setup for the configurator: the real app (hub + kernel, demo projects published) on
 * origin A, the demo storefront (examples/storefront) on origin B with its own key, and helpers
 * to read what a person sees (pixels of the viewer canvas).
 */
import type { Browser, Frame, Page } from "playwright-core";
import { createSdkKey } from "@/lib/hub/sdk_keys.ts";
import { serveStorefront } from "@/examples/storefront/serve.ts";
import { startTestServer, type TestServer } from "../_helpers/server.ts";
import { decodeRenderBody } from "@/lib/client/render_body.ts";

/** A running hub and storefront. */
export interface ShopSetup {
  hub: TestServer;
  /** The storefront's origin (allowed by the key). */
  shop: string;
  keyId: string;
  /** The full partner key (server flow). */
  secretKey: string;
  project: string;
  close(): Promise<void>;
}

/** Starts the hub (demo seeded) and a storefront whose origin the new key allows. */
export async function startShop(
  options: {
    clock?: () => number;
    defaultTtlSeconds?: number;
    budget?: number | null;
    project?: string;
    storefrontTtlSeconds?: number;
    extraOrigins?: string[];
    /** More storefront pages (path → HTML); `{{HUB_URL}}` and `{{KEY_ID}}` are filled in. */
    extraPages?: Record<string, string>;
  } = {},
): Promise<ShopSetup> {
  const hub = await startTestServer({ env: { SEED_DEMO: "true" }, clock: options.clock });
  const project = options.project ?? "wall-bracket";
  // The storefront's port must be known before the key is created: reserve one.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const shopOrigin = `http://127.0.0.1:${port}`;
  const { key, record } = await createSdkKey(hub.deps.kv, {
    partnerId: hub.demo!.partnerId,
    label: "storefront",
    allowedOrigins: [shopOrigin, ...(options.extraOrigins ?? [])],
    allowedProjects: hub.demo!.projects,
    defaultTtlSeconds: options.defaultTtlSeconds,
    budget: options.budget ?? null,
  });
  const shop = await serveStorefront({
    hubUrl: hub.url,
    keyId: record.keyId,
    project,
    secretKey: key,
    ttlSeconds: options.storefrontTtlSeconds,
    port,
    extraPages: Object.fromEntries(
      Object.entries(options.extraPages ?? {}).map(([path, html]) => [
        path,
        html.replaceAll("{{HUB_URL}}", hub.url).replaceAll("{{KEY_ID}}", record.keyId),
      ]),
    ),
  });
  return {
    hub,
    shop: shop.origin,
    keyId: record.keyId,
    secretKey: key,
    project,
    async close() {
      await shop.shutdown();
      await hub.close();
    },
  };
}

/**
 * Waits until the configurator's view exists (it is made once three.js has loaded, which may be
 * after the first render's answer: lib/client/scene_view_loader.ts) and two frames have passed, so
 * a scene it was handed is drawn.
 */
export async function viewShown(target: Page | Frame): Promise<void> {
  await target.waitForFunction(
    () => {
      const host = document.querySelector("cad-configurator");
      return !!(host?.shadowRoot ?? document).querySelector(".cad-viewer canvas");
    },
    null,
    { timeout: 60_000 },
  );
  await target.evaluate(() =>
    new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
  );
}

/**
 * Opens `url` (a storefront page with the element) in a new 1280 × 860 page and waits until its
 * configurator is ready and its view has drawn the first model; `errors` collects the page's
 * uncaught errors from the start.
 */
export async function openConfigurator(
  browser: Browser,
  url: string,
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  await page.locator('cad-configurator .cad-configurator[data-render-status="ready"]').waitFor({
    timeout: 60_000,
  });
  await viewShown(page);
  return { page, errors };
}

/** Waits until the element's configurator names a DAG hash other than `prev` (a change rendered). */
export async function dagHashChange(page: Page, prev: string | null): Promise<void> {
  await page.waitForFunction(
    (prev) =>
      document.querySelector("cad-configurator")!.shadowRoot!.querySelector(
        ".cad-configurator",
      )!.getAttribute("data-dag-hash") !== prev,
    prev,
    { timeout: 30_000 },
  );
}

/**
 * Pixels of the configurator's canvas that differ from the viewer background, once it is shown,
 * and their mean red and blue (0–255: which way the model's colour leans).
 */
export async function modelPixels(
  target: Page | Frame,
): Promise<{ drawn: number; total: number; red: number; blue: number }> {
  await viewShown(target);
  return await target.evaluate(() => {
    const doc = document;
    const host = doc.querySelector("cad-configurator");
    const root: ParentNode = host?.shadowRoot ?? doc;
    const gl = root.querySelector("canvas") as HTMLCanvasElement;
    const c = document.createElement("canvas");
    c.width = gl.width;
    c.height = gl.height;
    const ctx = c.getContext("2d")!;
    ctx.drawImage(gl, 0, 0);
    const data = ctx.getImageData(0, 0, c.width, c.height).data;
    // The viewer background is #eef1f5.
    let drawn = 0, red = 0, blue = 0;
    for (let i = 0; i < data.length; i += 4) {
      const d = Math.abs(data[i] - 0xee) + Math.abs(data[i + 1] - 0xf1) +
        Math.abs(data[i + 2] - 0xf5);
      if (d <= 24) continue;
      drawn++;
      red += data[i];
      blue += data[i + 2];
    }
    return { drawn, total: c.width * c.height, red: red / drawn, blue: blue / drawn };
  });
}

/** What the page sent to and got from the render service, in order. */
export interface RenderExchange {
  have: string[];
  dagHash: string;
  status: number;
  meshes: string[];
  omitted: string[];
  sceneMeshes: string[];
}

/** Records every render request the page makes and its answer. */
export function recordRenders(page: Page): RenderExchange[] {
  const log: RenderExchange[] = [];
  page.on("response", async (res) => {
    if (!res.url().includes("/v1/kernels/") || res.request().method() !== "POST") return;
    const sent = JSON.parse(res.request().postData() ?? "{}");
    let body: Record<string, unknown> = {};
    try {
      // Either form (the SDK asks for the binary one), decoded as the client decodes it.
      const decoded = await decodeRenderBody(new Uint8Array(await res.body()));
      body = { ...decoded, meshes: Object.fromEntries(decoded.meshes) };
    } catch {
      // aborted or unreadable
    }
    const scene = body.scene as { parts?: Array<{ mesh: string }> } | undefined;
    log.push({
      have: sent.have ?? [],
      dagHash: String(body.dagHash ?? ""),
      status: res.status(),
      meshes: Object.keys((body.meshes as Record<string, unknown>) ?? {}),
      omitted: (body.omitted as string[]) ?? [],
      sceneMeshes: (scene?.parts ?? []).map((p) => p.mesh),
    });
  });
  return log;
}

/**
 * Waits until the page's `<cad-configurator>` has rendered its configurator: the element is
 * defined as soon as `embed.js` runs, and renders once its bundle has arrived, which may be after
 * the page's `load` (lib/sdk/configurator_element.ts).
 */
export async function configuratorMounted(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      !!document.querySelector("cad-configurator")?.shadowRoot?.querySelector(".cad-configurator"),
    null,
    { timeout: 60_000 },
  );
}

/** Polls `check` until it is true (or throws after `timeoutMs`). */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
