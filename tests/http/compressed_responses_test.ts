/**
 * The app's answers on the wire (a real server, `node:http`, so the coded bytes are seen as sent):
 * every kind of text answer — API JSON, a problem, pages, the OpenAPI document, island and SDK
 * bundles, the three.js chunk, CSS, SDK declarations — goes in brotli or gzip as the client
 * accepts, decodes to the identity bytes, says `Vary: Accept-Encoding`, carries an ETag per coding
 * that revalidates to 304, answers HEAD, and small bodies go as they are.
 */
import assert from "node:assert/strict";
import { appIslandBuild } from "@/lib/app/app.ts";
import manifest from "@/manifest.gen.ts";
import { createKeyFixture, startTestServer } from "../_helpers/server.ts";
import { publishFixture } from "../_helpers/projects.ts";
import { decoded, rawRequest, type RawResponse } from "./_raw_http.ts";

/** One kind of answer: its path, whether it is a precompressed asset, how to compare bodies. */
interface Kind {
  name: string;
  path: string;
  /** A coded asset (brotli is made in the background: the test waits for it). */
  asset?: boolean;
  /** Immutable (content-hashed URL). */
  immutable?: boolean;
  /** Text that differs per request for a known reason, made comparable. */
  normalize?: (text: string) => string;
}

const REQUEST_ID = { "x-request-id": "compression-test-0001" };
const withoutNonces = (html: string) => html.replace(/nonce="[^"]*"/g, 'nonce=""');

function text(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

Deno.test("http - compressed answers: every kind of text answer, on the wire", async (t) => {
  const server = await startTestServer({ redis: false });
  const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
    rawRequest(`${server.url}${path}`, { ...REQUEST_ID, ...headers }, method);
  try {
    const fx = await createKeyFixture(server.deps.kv);
    await publishFixture(server.deps.kv, fx.partnerId, fx.project);
    const build = await appIslandBuild(manifest);
    // Uncoded (asked for without Accept-Encoding), to read the bundle it names.
    const embedModule = await get("/sdk/v1/embed.js");
    const embedBundle = new URL(/^const \w+ = "([^"]+)";$/m.exec(text(embedModule.body))![1])
      .pathname;
    assert.equal(embedBundle, build.entries.embed);
    // The element's declarations: the file embed.js names re-exports them from this one.
    const types = new URL(embedModule.headers.get("x-typescript-types")!).pathname
      .replace(/[^/]+\.d\.ts$/, "configurator_element.d.ts");
    // The viewer loads three.js lazily, from a chunk its page preloads.
    const threeChunk = await largestChunk(get, build.preloads?.Viewer ?? []);

    const kinds: Kind[] = [
      {
        // A published version's document is a coded asset (lib/hub/project_document.ts).
        name: "API JSON (a project document)",
        path: `/api/v1/projects/${fx.project}?partner=${fx.partnerId}`,
        asset: true,
      },
      { name: "a problem", path: `/no-such-page/${"x".repeat(1200)}` },
      { name: "the OpenAPI document", path: "/openapi.json" },
      { name: "the home page", path: "/", normalize: withoutNonces },
      { name: "a docs page", path: "/docs/api", normalize: withoutNonces },
      { name: "the stable embed.js (the element's code inline)", path: "/sdk/v1/embed.js" },
      { name: "the islands' boot bundle", path: build.boot, asset: true, immutable: true },
      { name: "the embed bundle", path: embedBundle, asset: true, immutable: true },
      { name: "the three.js chunk", path: threeChunk, asset: true, immutable: true },
      { name: "a stylesheet", path: "/settings.css", asset: true },
      { name: "SDK declarations", path: types, asset: true, immutable: true },
    ];
    for (const kind of kinds) {
      await t.step(kind.name, () => checkKind(get, kind));
    }

    await t.step("small answers go as they are", async () => {
      // An island's own module only re-exports its chunks: a few hundred bytes.
      for (const path of ["/sdk/v1/preact.js", "/healthz", "/favicon.svg", build.modules.Viewer]) {
        const res = await get(path, { "accept-encoding": "br, gzip" });
        assert.equal(res.status, 200, path);
        assert.ok(res.body.length < 1024, `${path}: ${res.body.length} bytes`);
        assert.equal(res.headers.get("content-encoding"), null, path);
      }
      const icon = await get("/favicon.ico", { "accept-encoding": "br, gzip" });
      assert.equal(icon.headers.get("content-encoding"), null, "an image is not coded");
    });

    await t.step("a client-side cache revalidates the project with its coded ETag", async () => {
      const path = `/api/v1/projects/${fx.project}?partner=${fx.partnerId}`;
      const first = await get(path, { "accept-encoding": "gzip, deflate, br" });
      const again = await get(path, {
        "accept-encoding": "gzip, deflate, br",
        "if-none-match": first.headers.get("etag")!,
      });
      assert.equal(again.status, 304);
      assert.equal(again.headers.get("etag"), first.headers.get("etag"));
      assert.equal(again.headers.get("access-control-allow-origin"), "*");
    });
  } finally {
    await server.close();
  }
});

type Get = (
  path: string,
  headers?: Record<string, string>,
  method?: string,
) => Promise<RawResponse>;

/** The largest shared chunk the bundle at `path` imports (three.js). */
async function largestChunk(get: Get, chunks: string[]): Promise<string> {
  let best = { path: "", size: 0 };
  for (const chunk of chunks) {
    const res = await get(chunk, { "accept-encoding": "identity" });
    if (res.body.length > best.size) best = { path: chunk, size: res.body.length };
  }
  assert.ok(best.size > 100_000, `the three.js chunk: ${best.size} bytes`);
  return best.path;
}

/** Brotli is made off the event loop; until then an asset goes in gzip. Waits for it. */
async function brotliAnswer(get: Get, kind: Kind): Promise<RawResponse> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const res = await get(kind.path, { "accept-encoding": "br, gzip" });
    if (res.headers.get("content-encoding") === "br" || !kind.asset) return res;
    assert.equal(res.headers.get("content-encoding"), "gzip", "gzip while brotli is made");
    if (Date.now() > deadline) throw new Error(`${kind.path}: no brotli after 120 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function checkKind(get: Get, kind: Kind): Promise<void> {
  const same = (bytes: Uint8Array) => (kind.normalize ?? ((s: string) => s))(text(bytes));
  const identity = await get(kind.path, { "accept-encoding": "identity" });
  const plain = same(identity.body);
  assert.ok(identity.status === 200 || identity.status === 404, `${identity.status}`);
  assert.ok(identity.body.length >= 1024, `${identity.body.length} bytes`);
  assert.equal(identity.headers.get("content-encoding"), null);
  assert.match(identity.headers.get("vary") ?? "", /accept-encoding/i);

  const none = await get(kind.path);
  assert.equal(none.headers.get("content-encoding"), null);
  assert.equal(same(none.body), plain);

  const gzip = await get(kind.path, { "accept-encoding": "gzip" });
  const br = await brotliAnswer(get, kind);
  for (const [coding, res] of [["gzip", gzip], ["br", br]] as const) {
    assert.equal(res.status, identity.status, coding);
    assert.equal(res.headers.get("content-encoding"), coding);
    assert.match(res.headers.get("vary") ?? "", /accept-encoding/i);
    assert.equal(Number(res.headers.get("content-length")), res.body.length);
    assert.ok(res.body.length < identity.body.length, `${coding} ${res.body.length}`);
    assert.equal(same(decoded(res)), plain, `${coding} decodes to the identity bytes`);
    assert.equal(res.headers.get("content-type"), identity.headers.get("content-type"));
  }

  const etag = identity.headers.get("etag");
  if (kind.asset || etag) {
    const tags = [etag, gzip.headers.get("etag"), br.headers.get("etag")];
    assert.equal(new Set(tags).size, 3, `an ETag per coding: ${tags.join(" ")}`);
    if (kind.asset) assert.match(etag!, /^"[0-9a-f]{32}"$/, "a strong ETag of the bytes");
    const revalidated = await get(kind.path, {
      "accept-encoding": "br",
      "if-none-match": br.headers.get("etag")!,
    });
    assert.equal(revalidated.status, 304);
    assert.equal(revalidated.body.length, 0);
    const otherCoding = await get(kind.path, {
      "accept-encoding": "gzip",
      "if-none-match": br.headers.get("etag")!,
    });
    assert.equal(otherCoding.status, 200, "the brotli ETag does not name the gzip bytes");
  }
  if (kind.immutable) {
    assert.equal(br.headers.get("cache-control"), "public, max-age=31536000, immutable");
  }

  const head = await get(kind.path, { "accept-encoding": "br" }, "HEAD");
  assert.equal(head.status, identity.status);
  assert.equal(head.body.length, 0);
  assert.match(head.headers.get("vary") ?? "", /accept-encoding/i);
  if (kind.asset) {
    assert.equal(head.headers.get("content-encoding"), "br");
    assert.equal(head.headers.get("etag"), br.headers.get("etag"));
  }
}
