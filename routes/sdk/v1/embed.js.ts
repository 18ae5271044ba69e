/**
 * GET /sdk/v1/embed.js — the stable URL of the `<cad-configurator>` element. A one-line module
 * that imports the current content-hashed build (long-cached) by absolute URL, so partners never
 * change their script tag and browsers still cache the bundle forever. CORS: any origin.
 */
import { sdkModuleResponse } from "@/lib/sdk/bundle_route.ts";
import type { Handlers } from "@/lib/app/context.ts";

export const handler: Handlers = {
  GET: (ctx) => sdkModuleResponse(ctx, "embed"),
  OPTIONS: (ctx) => sdkModuleResponse(ctx, "preflight"),
};
