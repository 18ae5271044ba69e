/**
 * The types a route file sees: the process's dependencies, the Hono environment, and the
 * Fresh-style handler and page shapes.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ComponentChildren, ComponentType } from "preact";
import type { Config, Role } from "../config.ts";
import type { SdkKeyCache } from "../hub/key_cache.ts";
import type { MintRateLimiter } from "../hub/rate_limit.ts";
import type { ClientIpMintLimiter } from "../hub/client_ip_limit.ts";
import type { Logger } from "../ops/logger.ts";
import type { Metrics } from "../ops/metrics.ts";
import type { BudgetStore } from "../redis/budget.ts";
import type { RedisClient } from "../redis/client.ts";
import type { RenderDeps } from "../kernel/render.ts";
import type { RevocationReplica } from "../kernel/revocation_replica.ts";
import type { Keyring } from "../token/keyring.ts";
import type { SigningKeyStore } from "../token/signing_keys.ts";
import type { SignInThrottle } from "../auth/sign_in_throttle.ts";
import type { SessionRecord } from "../auth/sessions.ts";
import type { Account } from "../store/accounts.ts";
import type { UsageRecorder } from "../hub/usage.ts";

/** What the hub role adds: signing keys and the mint path. */
export interface HubDeps {
  /** Durable signing keys (the JWKS is published from here). */
  signingKeys: SigningKeyStore;
  /** In-process view of the signing keys: signs mints, resolves kids for verification. */
  keyring: Keyring;
  rateLimiter: MintRateLimiter;
  /** Browser-flow mints per key and client IP (lib/hub/client_ip_limit.ts). */
  clientIpLimiter: ClientIpMintLimiter;
  /** Render budgets: the mint opens each budgeted token's counter. */
  budgets: Pick<BudgetStore, "open">;
  /** SDK key records for the mint path, cached for at most 2 s. */
  keys: SdkKeyCache;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** Per-key usage counters written by the mint path (settings → usage). */
  usage?: UsageRecorder;
}

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
  /** Per-key usage counters (mints, renders); present when the hub is served. */
  usage?: UsageRecorder;
}

/** The render pipeline's dependencies plus what must be closed at shutdown. */
export interface RenderServices extends RenderDeps {
  /** This node's revocation replica (a revocation made in this process syncs it at once). */
  revocations: RevocationReplica;
  close(): Promise<void>;
}

/** The Hono environment of every route. */
export type AppEnv = {
  Variables: {
    deps: AppDeps;
    requestId: string;
    /** The request's logger (carries the request id). */
    log: Logger;
    /** Problem code of a failed request, for the request log and metrics. */
    problemCode?: string;
    /** The signed-in account under /settings (set by its middleware). */
    account?: Account;
    /** The session of the signed-in account. */
    session?: SessionRecord;
  };
};

/** The context a route handler receives. */
export type RouteContext = Context<AppEnv>;

/** Data a GET handler hands to its page component. */
export interface PageData<T = unknown> {
  data: T;
  /** Optional page title. */
  title?: string;
  /** Response status (default 200), e.g. 422 for a form re-shown with errors. */
  status?: number;
  /** Extra response headers, e.g. `Cache-Control: no-store`. */
  headers?: Record<string, string>;
}

/** A route handler: a response, or data for the page component. */
export type Handler = (ctx: RouteContext) => Response | PageData | Promise<Response | PageData>;

/** HTTP method names a route may export handlers for. */
export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";

/** A route file's `handler` export: one function per method. */
export type Handlers = Partial<Record<Method, Handler>>;

/** Props of a page component. */
export interface PageProps<T = unknown> {
  data: T;
  url: URL;
  params: Record<string, string>;
  /** CSP nonce for inline scripts and styles. */
  nonce: string;
}

/** Props of the `_app.tsx` layout. */
export interface AppProps {
  title?: string;
  nonce: string;
  url: URL;
  children: ComponentChildren;
}

/** Per-route options: which roles serve it (default: every role). */
export interface RouteConfig {
  roles?: Role[];
}

/** What a route file may export. */
export interface RouteModule {
  handler?: Handlers;
  config?: RouteConfig;
  // deno-lint-ignore no-explicit-any -- page components take route-specific props
  default?: ComponentType<any>;
}

/** What a `_middleware.ts` file exports. */
export interface MiddlewareModule {
  handler: MiddlewareHandler<AppEnv> | MiddlewareHandler<AppEnv>[];
}

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

/** Returns page data from a handler (Fresh's `page()`). */
export function page<T>(data: T, title?: string): PageData<T> {
  return { data, title };
}

/** The manifest shape written by `deno task manifest`. */
export interface Manifest {
  baseUrl: string;
  routes: Record<string, RouteModule | MiddlewareModule>;
  islands: Record<string, Record<string, unknown>>;
}
