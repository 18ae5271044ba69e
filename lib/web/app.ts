/**
 * Builds a Hono app from a route manifest: a request id on every request, the file-system routes,
 * static files, the bundles of the manifest's islands (built on first use), compression of every
 * text answer the client accepts coded (lib/http/compression.ts), and one error boundary that
 * turns every failure into an RFC 9457 problem. What the app adds per request (its
 * dependencies, a logger, metrics) and to the bundles (its own entries) comes in through options,
 * so the framework imports nothing of the product.
 */
import { type Context, type Env, Hono } from "hono";
import { compressResponse } from "../http/compression.ts";
import { AppError, problemResponse, toAppError } from "../http/problem.ts";
import type { Manifest, WebEnv } from "./context.ts";
import { manifestIslandBuild } from "./islands_build.ts";
import { MemoRouter } from "./memo_router.ts";
import { mountRoutes } from "./router.ts";
import { staticFiles } from "./static_files.ts";

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** One finished request, as the `observe` hook sees it. */
export interface RequestOutcome {
  method: string;
  /** The matched route pattern (`unmatched` when none): bounded, and free of URL secrets. */
  route: string;
  status: number;
  seconds: number;
  /** Problem code of a failed request. */
  code?: string;
}

/** What the app plugs into the framework. */
export interface WebAppOptions<E extends WebEnv> {
  /** The role this process serves; routes whose `config.roles` omit it are not mounted. */
  role: string;
  /** Folder of static files served after the routes. */
  staticDir: string;
  /** Modules bundled with the manifest's islands: name → path (absolute, or from its folder). */
  islandEntries?: Readonly<Record<string, string>>;
  /** Sets the app's per-request variables (dependencies, a logger) before any route runs. */
  init?(c: Context<E>, requestId: string): void;
  /**
   * Sets the headers every answer carries (security headers), once the route, a problem, a static
   * file or the not-found answer is made and before it is compressed.
   */
  finish?(c: Context<E>): void;
  /** Called once per finished request (request log, latency metrics). */
  observe?(c: Context<E>, outcome: RequestOutcome): void;
  /** Called for an error that becomes `internal_error` (to log it; the client sees a problem). */
  onInternalError?(err: unknown, c: Context<E>): void;
}

/**
 * The Hono app serving the routes of `manifest` for `options.role`.
 *
 * @example
 * ```ts
 * const app = createWebApp(manifest, { role: "all", staticDir: "./static" });
 * const res = await app.request("/healthz");
 * ```
 */
export function createWebApp<E extends WebEnv & Env>(
  manifest: Manifest<E>,
  options: WebAppOptions<E>,
): Hono<E> {
  // Remembers recent route matches (lib/web/memo_router.ts): most requests repeat a few paths.
  const app = new Hono<E>({ router: new MemoRouter() });
  // Hono's variable map is keyed by the app's E; the framework only touches its own variables.
  const vars = (c: Context<E>) => c as unknown as Context<WebEnv>;
  const islandBuild = () => manifestIslandBuild(manifest, options.islandEntries);

  app.use("*", async (c, next) => {
    const start = performance.now();
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    vars(c).set("requestId", requestId);
    vars(c).set("islandBuild", islandBuild);
    options.init?.(c, requestId);
    await next();
    // The app's headers and compression run here rather than as middlewares of their own: each
    // async layer costs every request a few µs (docs/performance.md). Inside the request log (its
    // time counts), after everything that answers (problems too).
    options.finish?.(c);
    await compressResponse(c);
    c.res.headers.set("x-request-id", requestId);
    // Read once: Hono builds an array of every matched route's path on each read.
    const matched = c.req.routePath;
    const route = matched === "*" || matched === "/*" ? "unmatched" : matched;
    options.observe?.(c, {
      method: c.req.method,
      route,
      status: c.res.status,
      seconds: (performance.now() - start) / 1000,
      code: vars(c).get("problemCode"),
    });
  });

  mountRoutes(app, manifest, options.role);
  app.use("*", staticFiles(options.staticDir));

  app.notFound((c) => {
    const e = new AppError("not_found", `Nothing is served at ${new URL(c.req.url).pathname}.`);
    vars(c).set("problemCode", e.code);
    return problemResponse(e, vars(c).get("requestId"));
  });
  app.onError((err, c) => {
    const e = toAppError(err);
    vars(c).set("problemCode", e.code);
    if (e.code === "internal_error") options.onInternalError?.(err, c);
    return problemResponse(e, vars(c).get("requestId"));
  });
  return app;
}
