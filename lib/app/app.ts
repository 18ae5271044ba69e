/**
 * The app's HTTP application: the framework's app (lib/web/app.ts) over the generated manifest,
 * with this process's dependencies and a request logger set on every request, the security headers
 * on every answer, the structured request log, the latency histogram, and the SDK's bundles built
 * with the manifest's islands.
 */
import type { Hono } from "hono";
import { SDK_BUNDLES } from "../sdk/bundle_route.ts";
import { createWebApp } from "../web/app.ts";
import { type IslandBuild, manifestIslandBuild } from "../web/islands_build.ts";
import type { AppDeps, AppEnv, Manifest } from "./context.ts";
import { securityHeaders } from "./security_headers.ts";

/**
 * The app's browser bundles: `manifest`'s islands and the SDK's bundles, built once per process
 * (the same build every app over `manifest` serves).
 *
 * @example
 * ```ts
 * const build = await appIslandBuild(manifest);
 * build.entries.embed; // "/build/embed-1a2b3c4d5e6f.js"
 * ```
 */
export function appIslandBuild(manifest: Manifest): Promise<IslandBuild> {
  return manifestIslandBuild(manifest, SDK_BUNDLES);
}

/**
 * The Hono app for `deps`, serving the routes in `manifest` that belong to `deps.config.role`.
 *
 * @example
 * ```ts
 * const app = createApp(deps, manifest);
 * const res = await app.request("/healthz");
 * ```
 */
export function createApp(deps: AppDeps, manifest: Manifest): Hono<AppEnv> {
  return createWebApp<AppEnv>(manifest, {
    role: deps.config.role,
    staticDir: new URL("../../static", import.meta.url).pathname,
    islandEntries: SDK_BUNDLES,
    finish: securityHeaders(deps.config.publicUrl.startsWith("https:")),
    init(c, requestId) {
      c.set("deps", deps);
      c.set("log", deps.log.child({ requestId }));
    },
    observe(c, outcome) {
      const { method, route, status, seconds, code } = outcome;
      deps.metrics.requestDuration.observe({ method, route, status: String(status) }, seconds);
      c.get("log").info("request", {
        method,
        route,
        status,
        ms: Math.round(seconds * 10000) / 10,
        code,
      });
    },
    onInternalError(err, c) {
      (c.get("log") ?? deps.log).error("unhandled error", { error: err });
    },
  });
}
