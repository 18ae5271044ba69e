import assert from "node:assert/strict";
import { filePattern, resolveManifest } from "@/lib/web/router.ts";
import type { Manifest } from "@/lib/web/context.ts";
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
