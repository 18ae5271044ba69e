/**
 * The types a route file sees: the process's dependencies, the Hono environment, and the
 * Fresh-style handler and page shapes.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ComponentChildren, ComponentType } from "preact";
import type { Config, Role } from "../config.ts";
import type { SdkKeyCache } from "../hub/key_cache.ts";
import type { MintRateLimiter } from "../hub/rate_limit.ts";
import type { Logger } from "../ops/logger.ts";
import type { Metrics } from "../ops/metrics.ts";
import type { RedisClient } from "../redis/client.ts";
import type { Keyring } from "../token/keyring.ts";
import type { SigningKeyStore } from "../token/signing_keys.ts";

/** Everything a request may use, built once per process (tests build their own). */
export interface AppDeps {
  config: Config;
  kv: Deno.Kv;
  /** Absent when `REDIS_URL` is unset: in-process equivalents are used instead. */
  redis?: RedisClient;
  /** Durable signing keys (the JWKS is published from here). */
  signingKeys: SigningKeyStore;
  /** In-process view of the signing keys: signs mints, resolves kids for verification. */
  keyring: Keyring;
  rateLimiter: MintRateLimiter;
  /** SDK key records for the mint path, cached for at most 2 s. */
  keys: SdkKeyCache;
  metrics: Metrics;
  log: Logger;
  /** Milliseconds since the epoch; fixed in tests. */
  clock: () => number;
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
  };
};

/** The context a route handler receives. */
export type RouteContext = Context<AppEnv>;

/** Data a GET handler hands to its page component. */
export interface PageData<T = unknown> {
  data: T;
  /** Optional page title. */
  title?: string;
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
