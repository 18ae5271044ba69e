/**
 * Fresh's file-system routing on Hono: turns the manifest's route files into Hono routes.
 * `routes/a/[id].ts` → `/a/:id`, `index` → its folder, `_middleware.ts` → middleware for its
 * folder and below, `_app.tsx` → the layout of every page. Static segments win over dynamic ones.
 */
import type { Context, Env, Hono, MiddlewareHandler } from "hono";
import { h } from "preact";
import { AppError } from "../http/problem.ts";
import type {
  AppProps,
  Handler,
  Handlers,
  Manifest,
  Method,
  MiddlewareModule,
  PageData,
  RouteModule,
} from "./context.ts";
import { PAGE_DIRECTIVES } from "./csp.ts";
import { documentResponse } from "./document.ts";

/** A route file resolved to its URL pattern. */
export interface RouteEntry<E extends Env = Env> {
  file: string;
  pattern: string;
  module: RouteModule<E>;
}

const METHODS: Method[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * The URL pattern for a route file path relative to `routes/`.
 *
 * @example
 * ```ts
 * filePattern("v1/kernels/[kernel]/render.ts"); // "/v1/kernels/:kernel/render"
 * ```
 */
export function filePattern(file: string): string {
  const segments = file.replace(/\.(ts|tsx)$/, "").split("/");
  if (segments.at(-1) === "index") segments.pop();
  const path = segments.map((s) => {
    const rest = /^\[\.\.\.([A-Za-z_][A-Za-z0-9_]*)\]$/.exec(s);
    if (rest) return `:${rest[1]}{.+}`;
    const param = /^\[([A-Za-z_][A-Za-z0-9_]*)\]$/.exec(s);
    return param ? `:${param[1]}` : s;
  });
  return "/" + path.join("/");
}

function specificity(pattern: string): number[] {
  // Static segments before parameters before catch-alls, segment by segment.
  return pattern.split("/").map((s) => (s.includes("{.+}") ? 2 : s.startsWith(":") ? 1 : 0));
}

function compareRoutes(a: { pattern: string }, b: { pattern: string }): number {
  const sa = specificity(a.pattern);
  const sb = specificity(b.pattern);
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    if (sa[i] !== sb[i]) return sa[i] - sb[i];
  }
  return sb.length - sa.length || a.pattern.localeCompare(b.pattern);
}

/** Splits the manifest into middlewares (by folder prefix), the app layout, and sorted routes. */
export function resolveManifest<E extends Env>(manifest: Manifest<E>, role: string) {
  const middlewares: Array<{ prefix: string; module: MiddlewareModule<E> }> = [];
  const routes: RouteEntry<E>[] = [];
  let app: RouteModule<E> | undefined;
  for (const [path, module] of Object.entries(manifest.routes)) {
    const file = path.replace(/^\.\/routes\//, "");
    const base = file.split("/").at(-1)!;
    if (/^_middleware\.tsx?$/.test(base)) {
      const dir = file.slice(0, -base.length).replace(/\/$/, "");
      middlewares.push({ prefix: dir ? `/${dir}` : "", module: module as MiddlewareModule<E> });
    } else if (/^_app\.tsx?$/.test(base)) {
      app = module as RouteModule<E>;
    } else {
      const route = module as RouteModule<E>;
      const roles = route.config?.roles;
      if (role !== "all" && roles && !roles.includes(role)) continue;
      routes.push({ file, pattern: filePattern(file), module: route });
    }
  }
  middlewares.sort((a, b) => a.prefix.length - b.prefix.length);
  routes.sort(compareRoutes);
  return { middlewares, routes, app };
}

/**
 * The methods a route answers. A page without a `handler` export renders without data on GET
 * (Fresh's default); a page that has handlers answers only the methods they name, since its
 * component expects their data (a POST-only result page must not render empty on a GET).
 */
export function routeHandlers<E extends Env>(module: RouteModule<E>): Handlers<E> {
  if (module.handler) return module.handler;
  return module.default ? { GET: () => ({ data: undefined }) } : {};
}

/** Registers every route of `manifest` on `hono`. */
export function mountRoutes<E extends Env>(
  hono: Hono<E>,
  manifest: Manifest<E>,
  role: string,
): RouteEntry<E>[] {
  const { middlewares, routes, app } = resolveManifest(manifest, role);
  for (const mw of middlewares) {
    const list = Array.isArray(mw.module.handler) ? mw.module.handler : [mw.module.handler];
    for (const fn of list) {
      hono.use(mw.prefix || "*", fn);
      if (mw.prefix) hono.use(`${mw.prefix}/*`, fn);
    }
  }
  for (const route of routes) {
    const Page = route.module.default;
    const handlers = routeHandlers(route.module);
    const allowed = METHODS.filter((m) => handlers[m] || (m === "HEAD" && handlers.GET));
    const dispatch: MiddlewareHandler<E> = async (c) => {
      const method = c.req.method as Method;
      const fn: Handler<E> | undefined = handlers[method] ??
        (method === "HEAD" ? handlers.GET : undefined);
      if (!fn) {
        throw new AppError(
          "method_not_allowed",
          `${method} is not allowed here; use ${allowed.join(", ")}.`,
          { headers: { Allow: allowed.join(", ") } },
        );
      }
      const result = await fn(c);
      if (result instanceof Response) return result;
      if (!Page) throw new Error(`${route.file} returned page data but has no page component`);
      return renderPage(c, Page, app?.default, result);
    };
    hono.all(route.pattern, dispatch);
  }
  return routes;
}

function renderPage(
  c: Context,
  Page: NonNullable<RouteModule["default"]>,
  Layout: RouteModule["default"] | undefined,
  result: PageData,
): Response {
  return documentResponse({
    csp: PAGE_DIRECTIVES,
    framing: "nobody",
    status: result.status,
    headers: result.headers,
    render(nonce) {
      const props = { data: result.data, url: new URL(c.req.url), params: c.req.param(), nonce };
      const body = h(Page, props);
      const layoutProps: AppProps = {
        title: result.title,
        description: result.description,
        nonce,
        url: props.url,
        children: body,
      };
      return Layout ? h(Layout, layoutProps) : body;
    },
  });
}
