/** GET /problems/<code> — what a problem `type` means (the target of every problem's `type`). */
import { ERROR_CODES, isErrorCode } from "@/lib/http/error_codes.ts";
import { AppError } from "@/lib/http/problem.ts";
import type { Handlers } from "@/lib/app/context.ts";

export const handler: Handlers = {
  GET(ctx) {
    const code = ctx.req.param("code") ?? "";
    if (!isErrorCode(code)) throw new AppError("not_found", `"${code}" is not a problem code.`);
    const info = ERROR_CODES[code];
    return Response.json(
      { code, status: info.status, title: info.title },
      { headers: { "cache-control": "public, max-age=86400" } },
    );
  },
};
