/**
 * The demo storefront's web server: serves the product pages of this folder with the hub URL,
 * key id and project filled in, and plays the partner's backend:
 * - `POST /api/session-token` mints a token with the partner's SECRET key (server flow; the
 *   secret stays here and never reaches the browser),
 * - `POST /api/cart` accepts a hub-signed configuration only after verifying its Ed25519
 *   signature against the hub's JWKS (`/.well-known/jwks.json`).
 *
 * Run: deno run -A examples/storefront/serve.ts --hub http://localhost:8000 --key <keyId>
 *        [--project wall-bracket] [--port 8100] [--secret sdk_<keyId>_<secret> | --secret -]
 *
 * `--secret -` reads the partner key from standard input: the key itself, or the JSON that
 * `deno task hub key create` prints, so the two can be piped (the start banner prints that line).
 * At start it mints once from its own origin and says plainly whether the key allows it.
 */
import { verifyConfiguration } from "../../lib/hub/configuration_signature.ts";
import { DEMO_STOREFRONT_PORT } from "../../lib/hub/demo_seed.ts";

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
    port: options.port ?? DEMO_STOREFRONT_PORT,
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

/**
 * The partner key given as `--secret`: `-` reads standard input, which holds the key or
 * `deno task hub key create`'s JSON (`{"key": "sdk_…", …}`).
 */
export function secretFromInput(text: string): string {
  const trimmed = text.trim();
  const json = trimmed.startsWith("{") ? JSON.parse(trimmed) : null;
  const key = json ? json.key : trimmed.split(/\s+/).at(-1);
  if (typeof key !== "string" || !/^sdk_[a-z0-9]+_[A-Za-z0-9_-]+$/.test(key)) {
    throw new Error("standard input holds no partner key (sdk_<keyId>_<secret>)");
  }
  return key;
}

/**
 * Tries both flows once from `origin`, as the pages will: a browser-flow mint with the page's
 * `Origin`, and a server-flow mint when a secret is configured. Returns one line per flow.
 */
export async function checkStorefrontFlows(
  options: StorefrontOptions,
  origin: string,
): Promise<{ ok: boolean; lines: string[] }> {
  const lines: string[] = [];
  let ok = true;
  let browser: Response;
  try {
    browser = await fetch(`${options.hubUrl}/api/v1/sdk/session-tokens`, {
      method: "POST",
      headers: { "content-type": "application/json", origin },
      body: JSON.stringify({ keyId: options.keyId, projectId: options.project }),
    });
  } catch (err) {
    return { ok: false, lines: [`The hub at ${options.hubUrl} does not answer (${err}).`] };
  }
  const body = await browser.json().catch(() => ({}));
  if (browser.ok) lines.push(`browser flow: key ${options.keyId} allows ${origin}`);
  else {
    ok = false;
    lines.push(
      `browser flow refused: ${body.code ?? browser.status} — ${body.detail ?? ""}`,
      body.code === "origin_not_allowed"
        ? `  Add ${origin} to the allowed origins of key ${options.keyId} (${options.hubUrl}/settings/keys), ` +
          `or use the demo key that deno task start prints (it allows ${origin} on port ${DEMO_STOREFRONT_PORT}).`
        : `  Check the key id and project (${options.project}).`,
    );
  }
  if (options.secretKey) {
    const server = await mintServerToken(options, origin);
    const sbody = await server.json().catch(() => ({}));
    if (server.ok) lines.push(`server flow: the secret key mints for ${origin}`);
    else {
      ok = false;
      lines.push(`server flow refused: ${sbody.code ?? server.status} — ${sbody.detail ?? ""}`);
    }
  } else {
    lines.push("server flow: off (no --secret); server-flow.html shows no model");
  }
  return { ok, lines };
}

if (import.meta.main) {
  const args = Object.fromEntries(
    Deno.args.flatMap((a, i, all) => a.startsWith("--") ? [[a.slice(2), all[i + 1]]] : []),
  );
  if (!args.hub || !args.key) {
    console.error(
      "usage: serve.ts --hub <hub url> --key <keyId> [--project slug] [--port n] [--secret <key>|-]",
    );
    Deno.exit(2);
  }
  let secretKey = args.secret;
  if (secretKey === "-") {
    try {
      secretKey = secretFromInput(await new Response(Deno.stdin.readable).text());
    } catch (err) {
      console.error(`--secret -: ${err instanceof Error ? err.message : err}`);
      Deno.exit(2);
    }
  }
  const options: StorefrontOptions = {
    hubUrl: args.hub.replace(/\/+$/, ""),
    keyId: args.key,
    project: args.project ?? "wall-bracket",
    secretKey,
    port: Number(args.port ?? DEMO_STOREFRONT_PORT),
  };
  const shop = await serveStorefront(options);
  const check = await checkStorefrontFlows(options, shop.origin);
  console.log(`storefront on ${shop.origin}
  ${shop.origin}/                  the <cad-configurator> element (browser flow)
  ${shop.origin}/iframe.html       the hosted configurator in an iframe
  ${shop.origin}/server-flow.html  a token minted by this server with the secret key
${check.lines.map((l) => `  ${l}`).join("\n")}`);
}
