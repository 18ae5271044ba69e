/**
 * The framework's types: Fresh's handler and page shapes over Hono, generic over the app's Hono
 * environment `E` (as Fresh's `Context<State>`). The framework knows nothing of the product: the
 * app (lib/app/context.ts) fixes `E` and adds its dependencies.
 */
import type { Context, Env, MiddlewareHandler } from "hono";
import type { ComponentChildren, ComponentType } from "preact";
import type { IslandBuild } from "./islands.ts";

/** The variables the framework itself sets on every request. */
export interface WebVariables {
  requestId: string;
  /** Problem code of a failed request, for the request log and metrics. */
  problemCode?: string;
  /** The app's island build (built on first use, then shared); see `islandBuildOf`. */
  islandBuild?: () => Promise<IslandBuild>;
}

/** The smallest Hono environment the framework runs on; an app's environment extends it. */
export type WebEnv = { Variables: WebVariables };

/** Data a GET handler hands to its page component. */
export interface PageData<T = unknown> {
  data: T;
  /** Optional page title. */
  title?: string;
  /** Optional `<meta name="description">` text (search results, link previews). */
  description?: string;
  /** Response status (default 200), e.g. 422 for a form re-shown with errors. */
  status?: number;
  /** Extra response headers, e.g. `Cache-Control: no-store`. */
  headers?: Record<string, string>;
}

/** A route handler: a response, or data for the page component. */
export type Handler<E extends Env = WebEnv> = (
  ctx: Context<E>,
) => Response | PageData | Promise<Response | PageData>;

/** HTTP method names a route may export handlers for. */
export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";

/** A route file's `handler` export: one function per method. */
export type Handlers<E extends Env = WebEnv> = Partial<Record<Method, Handler<E>>>;

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
  description?: string;
  nonce: string;
  url: URL;
  children: ComponentChildren;
}

/** Per-route options: which roles serve it (default: every role). */
export interface RouteConfig {
  roles?: readonly string[];
}

/** What a route file may export. */
export interface RouteModule<E extends Env = WebEnv> {
  handler?: Handlers<E>;
  config?: RouteConfig;
  // deno-lint-ignore no-explicit-any -- page components take route-specific props
  default?: ComponentType<any>;
}

/** What a `_middleware.ts` file exports. */
export interface MiddlewareModule<E extends Env = WebEnv> {
  handler: MiddlewareHandler<E> | MiddlewareHandler<E>[];
}

/** The manifest shape written by `deno task manifest`. */
export interface Manifest<E extends Env = WebEnv> {
  baseUrl: string;
  routes: Record<string, RouteModule<E> | MiddlewareModule<E>>;
  islands: Record<string, Record<string, unknown>>;
}

/** Returns page data from a handler (Fresh's `page()`), with an optional title and description. */
export function page<T>(data: T, title?: string, description?: string): PageData<T> {
  return description === undefined ? { data, title } : { data, title, description };
}
