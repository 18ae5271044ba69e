/** GET /sdk/v1/python/<file> — the Python fallback's worker script and design package. */
import { pythonRuntimeAsset } from "@/lib/sdk/python_assets.ts";
import type { Handlers, RouteConfig } from "@/lib/app/context.ts";

export const config: RouteConfig = { roles: ["hub"] };

export const handler: Handlers = {
  GET(ctx) {
    return pythonRuntimeAsset(ctx.req.param("file") ?? "", {
      ifNoneMatch: ctx.req.header("if-none-match") ?? null,
      acceptEncoding: ctx.req.header("accept-encoding") ?? null,
    });
  },
};
