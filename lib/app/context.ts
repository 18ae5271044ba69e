/**
 * The app's side of the framework's types: the process's dependencies (the composition root's
 * product), the Hono environment every route sees, and the route shapes fixed to it. Route files
 * import from here; lib/web stays generic.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Config } from "../config.ts";
import { requestClientIp } from "../http/client_ip.ts";
import type { SessionRecord } from "../auth/sessions.ts";
import type { SignInThrottle } from "../auth/sign_in_throttle.ts";
import type { HubDeps } from "../hub/hub_deps.ts";
import type { RenderUsageSink } from "../render/usage_sink.ts";
import type { Logger } from "../ops/logger.ts";
import type { Metrics } from "../ops/metrics.ts";
import type { RedisClient } from "../redis/client.ts";
import type { RenderServices } from "../render/render_services.ts";
import type { Account } from "../store/accounts.ts";
import type * as web from "../web/context.ts";

export type { HubDeps } from "../hub/hub_deps.ts";
export type { RenderServices } from "../render/render_services.ts";
export type { AppProps, Method, PageData, PageProps, RouteConfig } from "../web/context.ts";
export { page } from "../web/context.ts";

/** The module whose `Manifest` type the generated manifest uses (dev.ts, the manifest test). */
export const APP_MANIFEST_TYPES = "./lib/app/context.ts";

/** Everything a request may use, built once per process (tests build their own). */
export interface AppDeps {
  config: Config;
  kv: Deno.Kv;
  /** Absent when `REDIS_URL` is unset: in-process equivalents are used instead. */
  redis?: RedisClient;
  /** Present when the process serves the hub (`ROLE=all|hub`); a kernel holds no signing key. */
  hub?: HubDeps;
  /** Present when the process renders (`ROLE=all|kernel`). */
  render?: RenderServices;
  metrics: Metrics;
  log: Logger;
  /** Milliseconds since the epoch; fixed in tests. */
  clock: () => number;
  /** Failed sign-in throttle of the settings (present when the hub is served). */
  signInThrottle?: SignInThrottle;
  /** Per-key render usage: KV counters on a hub, the Redis relay on a kernel node. */
  usage?: RenderUsageSink;
}

/** The Hono environment of every route. */
export type AppEnv = {
  Variables: web.WebVariables & {
    deps: AppDeps;
    /** The request's logger (carries the request id). */
    log: Logger;
    /** The signed-in account under /settings (set by its middleware). */
    account?: Account;
    /** The session of the signed-in account. */
    session?: SessionRecord;
  };
};

/** The context a route handler receives. */
export type RouteContext = Context<AppEnv>;
/** A route handler of this app. */
export type Handler = web.Handler<AppEnv>;
/** A route file's `handler` export in this app. */
export type Handlers = web.Handlers<AppEnv>;
/** What a route file of this app may export. */
export type RouteModule = web.RouteModule<AppEnv>;
/** What a `_middleware.ts` file of this app exports. */
export type MiddlewareModule = web.MiddlewareModule<AppEnv>;
/** A middleware of this app. */
export type AppMiddleware = MiddlewareHandler<AppEnv>;
/** The app's generated manifest. */
export type Manifest = web.Manifest<AppEnv>;

/** The hub dependencies; a route served only by the hub role calls this. */
export function hubDeps(ctx: RouteContext): HubDeps {
  const hub = ctx.get("deps").hub;
  if (!hub) throw new Error("this route needs the hub role");
  return hub;
}

/** The render dependencies; a route served only by the kernel role calls this. */
export function renderDeps(ctx: RouteContext): RenderServices {
  const render = ctx.get("deps").render;
  if (!render) throw new Error("this route needs the kernel role");
  return render;
}

/** The client's IP address: the socket peer, or per `TRUSTED_PROXIES` (lib/http/client_ip.ts). */
export function clientIp(ctx: RouteContext): string {
  // ctx.get, not ctx.var: Hono builds a fresh object of every variable on each `ctx.var`.
  return requestClientIp(ctx, ctx.get("deps").config.trustedProxies);
}
