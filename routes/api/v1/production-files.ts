/**
 * POST /api/v1/production-files — the order hand-off (docs/exports.md): a partner's backend sends
 * a hub-signed configuration and its key's secret and gets that configuration's production file.
 * Server to server: no CORS.
 */
import { readJsonBody } from "@/lib/http/json_body.ts";
import { productionFileRequest } from "@/lib/hub/production_file.ts";
import { toJwks } from "@/lib/token/jwks.ts";
import { type Handlers, hubDeps, type RouteConfig } from "@/lib/app/context.ts";

export const config: RouteConfig = { roles: ["hub"] };

export const handler: Handlers = {
  async POST(ctx) {
    const hub = hubDeps(ctx);
    const deps = ctx.get("deps");
    const result = await productionFileRequest({
      keys: hub.keys,
      jwks: async () => toJwks(await hub.signingKeys.publishable()) as never,
      clock: hub.clock,
      render: deps.render,
    }, {
      authorization: ctx.req.header("authorization") ?? null,
      body: await readJsonBody(ctx.req.raw),
    });
    return new Response(result.file as Uint8Array<ArrayBuffer>, {
      headers: {
        "content-type": result.contentType,
        "content-disposition": `attachment; filename="${result.filename}"`,
        "cache-control": "no-store",
      },
    });
  },
};
