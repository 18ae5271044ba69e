/** GET /sdk/v1/preact.js — the Preact components and hooks as an ES module (see embed.js.ts). */
import { sdkModuleResponse } from "@/lib/sdk/bundle_route.ts";
import type { Handlers } from "@/lib/app/context.ts";

export const handler: Handlers = {
  GET: (ctx) => sdkModuleResponse(ctx, "sdk"),
  OPTIONS: (ctx) => sdkModuleResponse(ctx, "preflight"),
};
