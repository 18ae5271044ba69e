/**
 * GET /api/v1/revocations?after=<seq>[&limit=n] — the revocation log's head and its live entries
 * after position `seq` (at most `limit`, default and most 2000), public like a certificate
 * revocation list: kernel nodes, which hold no Deno KV, poll it every second (docs/tokens.md,
 * Revocation). Never cached.
 */
import { parseRevocationQuery } from "@/lib/hub/revocation_feed.ts";
import { KvRevocationLog } from "@/lib/render/revocation_log_source.ts";
import type { Handlers, RouteConfig } from "@/lib/app/context.ts";

export const config: RouteConfig = { roles: ["hub"] };

export const handler: Handlers = {
  async GET(ctx) {
    const { after, limit } = parseRevocationQuery(ctx.req.query("after"), ctx.req.query("limit"));
    const page = await new KvRevocationLog(ctx.var.deps.kv).read(after, limit);
    return Response.json(page, { headers: { "cache-control": "no-store" } });
  },
};
