/** GET /sdk/v1/pyodide/<version>/<file> — the Pyodide runtime of the Python fallback (immutable). */
import { pyodideAsset } from "@/lib/sdk/python_assets.ts";
import type { Handlers, RouteConfig } from "@/lib/app/context.ts";

export const config: RouteConfig = { roles: ["hub"] };

export const handler: Handlers = {
  GET(ctx) {
    return pyodideAsset(ctx.req.param("version") ?? "", ctx.req.param("file") ?? "", {
      ifNoneMatch: ctx.req.header("if-none-match") ?? null,
      acceptEncoding: ctx.req.header("accept-encoding") ?? null,
    });
  },
};
