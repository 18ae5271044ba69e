/** GET /sdk/v1/types/<hash>/<file>.d.ts — the SDK modules' declarations (X-TypeScript-Types). */
import { sdkTypesResponse } from "@/lib/sdk/types_route.ts";
import type { Handlers } from "@/lib/app/context.ts";

export const handler: Handlers = {
  GET: (ctx) => sdkTypesResponse(ctx, ctx.req.param("path") ?? ""),
};
