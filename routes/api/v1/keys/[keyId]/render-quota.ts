/**
 * GET /api/v1/keys/<keyId>/render-quota — a key's render quota settings (`{ day, month }`, null =
 * unlimited) and export formats per flow, public: kernel nodes read them here instead of Deno KV
 * (docs/api.md, Kernel feeds). Both are what a `quota_exceeded` or `export_format_not_allowed`
 * problem tells any token holder anyway. Never cached.
 */
import { AppError } from "@/lib/http/problem.ts";
import { isWellFormedKeyId } from "@/lib/hub/partner_key.ts";
import { getSdkKey, UNLIMITED_RENDER_QUOTA } from "@/lib/store/sdk_keys.ts";
import { exportFormatsOf } from "@/lib/dag/export_format.ts";
import type { Handlers, RouteConfig } from "@/lib/app/context.ts";

export const config: RouteConfig = { roles: ["hub"] };

export const handler: Handlers = {
  async GET(ctx) {
    const keyId = ctx.req.param("keyId") ?? "";
    const key = isWellFormedKeyId(keyId) ? await getSdkKey(ctx.var.deps.kv, keyId) : null;
    if (!key) throw new AppError("not_found", `No partner key has the keyId "${keyId}".`);
    return Response.json(
      {
        keyId,
        renderQuota: key.renderQuota ?? UNLIMITED_RENDER_QUOTA,
        exportFormats: exportFormatsOf(key),
      },
      { headers: { "cache-control": "no-store" } },
    );
  },
};
