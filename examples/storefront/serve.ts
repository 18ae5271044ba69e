/**
 * The demo storefront's web server: serves the product pages of this folder with the hub URL,
 * key id and project filled in, and plays the partner's backend:
 * - `POST /api/session-token` mints a token with the partner's SECRET key (server flow; the
 *   secret stays here and never reaches the browser),
 * - `POST /api/cart` accepts a hub-signed configuration only after verifying its Ed25519
 *   signature against the hub's JWKS (`/.well-known/jwks.json`).
 *
 * Run: deno run -A examples/storefront/serve.ts --hub http://localhost:8000 --key <keyId>
 *        [--project wall-bracket] [--port 8100] [--secret sdk_<keyId>_<secret>]
 */
import { verifyConfiguration } from "../../lib/hub/configuration_signature.ts";

/** What the storefront needs to know. */
export interface StorefrontOptions {
  hubUrl: string;
  keyId: string;
  project: string;
  /** The partner key with its secret (server flow); optional. */
  secretKey?: string;
  /** Requested TTL for server-flow tokens. */
  ttlSeconds?: number;
  port?: number;
  hostname?: string;
  /** Tests: put this token in server-flow.html instead of minting one. */
  fixedSessionToken?: string;
  /** Tests: more pages (path → HTML), e.g. a partner's own app using the Preact module. */
  extraPages?: Record<string, string>;
}

const DIR = new URL("./", import.meta.url);
const PAGES: Record<string, string> = {
  "/": "index.html",
  "/index.html": "index.html",
  "/iframe.html": "iframe.html",
  "/server-flow.html": "server-flow.html",
  "/store.css": "store.css",
  "/store.js": "store.js",
};

/**
 * Starts the storefront; returns its origin and a shutdown function.
 *
 * @example
 * ```ts
 * const shop = await serveStorefront({ hubUrl, keyId, project: "wall-bracket", port: 0 });
 * ```
 */
export async function serveStorefront(
  options: StorefrontOptions,
): Promise<{ origin: string; shutdown: () => Promise<void> }> {
  let origin = "";
  const ac = new AbortController();
  let listening!: (addr: Deno.NetAddr) => void;
  const ready = new Promise<Deno.NetAddr>((r) => (listening = r));
  const server = Deno.serve({
    port: options.port ?? 8100,
    hostname: options.hostname ?? "127.0.0.1",
    signal: ac.signal,
    onListen: (addr) => listening(addr as Deno.NetAddr),
  }, async (req) => {
    const url = new URL(req.url);
    if (req.method === "POST" && url.pathname === "/api/session-token") {
      return await mintServerToken(options, origin);
    }
    if (req.method === "POST" && url.pathname === "/api/cart") {
      return await addToCart(options, req);
    }
    const extra = options.extraPages?.[url.pathname];
    if (extra !== undefined && req.method === "GET") {
      return new Response(extra, { headers: { "content-type": "text/html; charset=utf-8" } });
    }
    const file = PAGES[url.pathname];
    if (!file || req.method !== "GET") return new Response("Not found", { status: 404 });
    let text = await Deno.readTextFile(new URL(file, DIR));
    if (file.endsWith(".html")) {
      let token = "";
      if (file === "server-flow.html" && options.fixedSessionToken) {
        token = options.fixedSessionToken;
      } else if (file === "server-flow.html") {
        const res = await mintServerToken(options, origin);
        token = res.ok ? (await res.json()).token : "";
      }
      text = text.replaceAll("{{HUB_URL}}", options.hubUrl)
        .replaceAll("{{KEY_ID}}", options.keyId)
        .replaceAll("{{PROJECT}}", projectOf(url, options.project))
        .replaceAll("{{SESSION_TOKEN}}", token);
    }
    const type = file.endsWith(".css")
      ? "text/css"
      : file.endsWith(".js")
      ? "text/javascript"
      : "text/html";
    return new Response(text, { headers: { "content-type": `${type}; charset=utf-8` } });
  });
  const addr = await ready;
  origin = `http://${addr.hostname}:${addr.port}`;
  return {
    origin,
    async shutdown() {
      ac.abort();
      await server.finished;
    },
  };
}

/** The project to show: `?project=<slug>` (a demo convenience), else the configured one. */
function projectOf(url: URL, fallback: string): string {
  const asked = url.searchParams.get("project");
  return asked && /^[a-z0-9-]{1,64}$/.test(asked) ? asked : fallback;
}

/** Server flow: our backend mints with the secret key, bound to our origin. */
async function mintServerToken(options: StorefrontOptions, origin: string): Promise<Response> {
  if (!options.secretKey) {
    return Response.json({ reason: "no secret key configured" }, { status: 501 });
  }
  const res = await fetch(`${options.hubUrl}/api/v1/sdk/session-tokens`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${options.secretKey}`,
    },
    body: JSON.stringify({
      projectId: options.project,
      origin,
      ...(options.ttlSeconds ? { ttlSeconds: options.ttlSeconds } : {}),
    }),
  });
  return new Response(await res.text(), {
    status: res.status,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

/** Verifies the hub's signature before accepting a configured item. */
async function addToCart(options: StorefrontOptions, req: Request): Promise<Response> {
  const body = await req.json().catch(() => null);
  if (typeof body?.configuration !== "string") {
    return Response.json({ reason: "no configuration" }, { status: 400 });
  }
  const jwks = await (await fetch(`${options.hubUrl}/.well-known/jwks.json`)).json();
  try {
    const claims = await verifyConfiguration(body.configuration, jwks, { now: Date.now() });
    if (claims.project !== options.project) {
      return Response.json({ reason: "another project" }, { status: 422 });
    }
    return Response.json({
      ok: true,
      item: {
        project: claims.project,
        version: claims.version,
        values: claims.values,
        dagHash: claims.dagHash,
      },
    });
  } catch (err) {
    return Response.json({ reason: (err as { reason?: string }).reason ?? String(err) }, {
      status: 422,
    });
  }
}

if (import.meta.main) {
  const args = Object.fromEntries(
    Deno.args.flatMap((a, i, all) => a.startsWith("--") ? [[a.slice(2), all[i + 1]]] : []),
  );
  if (!args.hub || !args.key) {
    console.error("usage: serve.ts --hub <hub url> --key <keyId> [--project slug] [--port n]");
    Deno.exit(2);
  }
  const shop = await serveStorefront({
    hubUrl: args.hub.replace(/\/+$/, ""),
    keyId: args.key,
    project: args.project ?? "wall-bracket",
    secretKey: args.secret,
    port: Number(args.port ?? 8100),
  });
  console.log(`storefront on ${shop.origin} (add it to the key's allowed origins)`);
}
