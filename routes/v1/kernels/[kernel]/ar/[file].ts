/**
 * GET /v1/kernels/<kernel>/ar/<ticket>.glb — the GLB an AR ticket names, for Scene Viewer: no
 * token, no Origin, readable from anywhere, never paid again (docs/security.md, AR tickets).
 */
import { AppError } from "@/lib/http/problem.ts";
import { KERNELS } from "@/lib/render/render.ts";
import { type Handlers, renderDeps, type RouteConfig } from "@/lib/app/context.ts";

export const config: RouteConfig = { roles: ["kernel"] };

export const handler: Handlers = {
  async GET(ctx) {
    const kernel = ctx.req.param("kernel") ?? "";
    if (!(KERNELS as readonly string[]).includes(kernel)) {
      throw new AppError("unknown_kernel", `There is no kernel "${kernel}".`);
    }
    const file = ctx.req.param("file") ?? "";
    const ticket = file.endsWith(".glb") ? file.slice(0, -".glb".length) : "";
    const model = ticket ? await renderDeps(ctx).arTickets.get(ticket) : null;
    if (!model) {
      throw new AppError(
        "ar_ticket_unknown",
        "This AR link is unknown or has expired; open View in AR again.",
      );
    }
    const remaining = Math.max(0, Math.floor((model.expiresAt - Date.now()) / 1000));
    return new Response(model.file as Uint8Array<ArrayBuffer>, {
      headers: {
        "content-type": "model/gltf-binary",
        "access-control-allow-origin": "*",
        "cache-control": `private, max-age=${remaining}`,
        "x-content-type-options": "nosniff",
      },
    });
  },
};
