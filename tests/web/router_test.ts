import assert from "node:assert/strict";
import { Hono } from "hono";
import { problemResponse } from "@/lib/http/problem.ts";
import { h } from "preact";
import { filePattern, mountRoutes, resolveManifest } from "@/lib/web/router.ts";
import type { AppEnv, Manifest } from "@/lib/app/context.ts";
import manifest from "@/manifest.gen.ts";

Deno.test("router - file paths become URL patterns", () => {
  const cases: Array<[string, string]> = [
    ["index.tsx", "/"],
    ["healthz.ts", "/healthz"],
    [".well-known/jwks.json.ts", "/.well-known/jwks.json"],
    ["api/v1/sdk/session-tokens.ts", "/api/v1/sdk/session-tokens"],
    ["v1/kernels/[kernel]/render.ts", "/v1/kernels/:kernel/render"],
    ["docs/[...path].ts", "/docs/:path{.+}"],
    ["configurator/index.tsx", "/configurator"],
  ];
  for (const [file, pattern] of cases) assert.equal(filePattern(file), pattern, file);
});

Deno.test("router - static segments sort before parameters", () => {
  const m: Manifest = {
    baseUrl: "",
    islands: {},
    routes: {
      "./routes/p/[slug].ts": { handler: {} },
      "./routes/p/new.ts": { handler: {} },
      "./routes/[...all].ts": { handler: {} },
      "./routes/_middleware.ts": { handler: [] },
      "./routes/p/_middleware.ts": { handler: [] },
    },
  };
  const { routes, middlewares } = resolveManifest(m, "all");
  assert.deepEqual(routes.map((r) => r.pattern), ["/p/new", "/p/:slug", "/:all{.+}"]);
  assert.deepEqual(middlewares.map((x) => x.prefix), ["", "/p"]);
});

Deno.test("router - ROLE=kernel does not serve hub-only routes", () => {
  const patterns = (role: "all" | "hub" | "kernel") =>
    resolveManifest(manifest, role).routes.map((r) => r.pattern);
  assert.ok(patterns("all").includes("/api/v1/sdk/session-tokens"));
  assert.ok(patterns("hub").includes("/api/v1/sdk/session-tokens"));
  assert.ok(!patterns("kernel").includes("/api/v1/sdk/session-tokens"));
  assert.ok(!patterns("kernel").includes("/.well-known/jwks.json"));
  assert.ok(patterns("kernel").includes("/healthz"));
});

Deno.test("router - a page answers only the methods its handlers name", async (t) => {
  const Page = ({ data }: { data: { n: number } }) => h("p", null, `n=${data.n}`);
  const m: Manifest = {
    baseUrl: "",
    islands: {},
    routes: {
      // A result page: it renders only what its POST returns.
      "./routes/roll.tsx": { handler: { POST: () => ({ data: { n: 1 } }) }, default: Page },
      // A static page without handlers: GET renders it without data.
      "./routes/about.tsx": { default: () => h("p", null, "about") },
    },
  };
  const app = new Hono<AppEnv>();
  app.onError((err) => problemResponse(err));
  mountRoutes(app, m, "all");

  await t.step("GET of a POST-only page is 405 with Allow, not an empty render", async () => {
    const res = await app.request("/roll");
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "POST");
    assert.equal((await res.json()).code, "method_not_allowed");
  });
  await t.step("its POST renders the page with the handler's data", async () => {
    const res = await app.request("/roll", { method: "POST" });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /n=1/);
  });
  await t.step("a page without handlers answers GET and HEAD, and 405 otherwise", async () => {
    assert.match(await (await app.request("/about")).text(), /about/);
    assert.equal((await app.request("/about", { method: "HEAD" })).status, 200);
    const res = await app.request("/about", { method: "DELETE" });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "GET, HEAD");
    await res.body?.cancel();
  });
});
