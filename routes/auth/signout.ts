/** POST /auth/signout — end the session (CSRF-checked like every POST under /auth). */
import { endSessionAndRedirect } from "@/lib/app/sign_in_flow.ts";
import type { Handlers, RouteConfig } from "@/lib/app/context.ts";

export const config: RouteConfig = { roles: ["hub"] };

export const handler: Handlers = {
  POST: (ctx) => endSessionAndRedirect(ctx),
};
