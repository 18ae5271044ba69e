/** GET /settings — the keys page is the settings' home. */
import type { Handlers } from "@/lib/app/context.ts";

export const handler: Handlers = {
  GET: (ctx) => ctx.redirect("/settings/keys", 303),
};
