/**
 * Builds the HTTP application: request id, structured request log and latency metrics around the
 * file-system routes, and one error boundary that turns every failure into an RFC 9457 problem.
 */
import { Hono } from "hono";
import { AppError, problemResponse, toAppError } from "../http/problem.ts";
import type { AppDeps, AppEnv, Manifest } from "./context.ts";
import { mountRoutes } from "./router.ts";
import { staticFiles } from "./static_files.ts";

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

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
  const app = new Hono<AppEnv>();

  app.use("*", async (c, next) => {
    const start = performance.now();
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    const log = deps.log.child({ requestId });
    c.set("deps", deps);
    c.set("requestId", requestId);
    c.set("log", log);
    await next();
    c.res.headers.set("x-request-id", requestId);
    const seconds = (performance.now() - start) / 1000;
    // The matched pattern, not the raw path: bounded label values, and no secrets from URLs.
    const route = c.req.routePath === "*" || c.req.routePath === "/*"
      ? "unmatched"
      : c.req.routePath;
    deps.metrics.requestDuration.observe(
      { method: c.req.method, route, status: String(c.res.status) },
      seconds,
    );
    log.info("request", {
      method: c.req.method,
      route,
      status: c.res.status,
      ms: Math.round(seconds * 10000) / 10,
      code: c.get("problemCode"),
    });
  });

  mountRoutes(app, manifest, deps.config.role);
  app.use("*", staticFiles(new URL("../../static", import.meta.url).pathname));

  app.notFound((c) => {
    const e = new AppError("not_found", `Nothing is served at ${new URL(c.req.url).pathname}.`);
    c.set("problemCode", e.code);
    return problemResponse(e, c.get("requestId"));
  });
  app.onError((err, c) => {
    const e = toAppError(err);
    c.set("problemCode", e.code);
    if (e.code === "internal_error") {
      (c.get("log") ?? deps.log).error("unhandled error", { error: err });
    }
    return problemResponse(e, c.get("requestId"));
  });
  return app;
}
