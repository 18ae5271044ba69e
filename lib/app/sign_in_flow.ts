/** What the sign-in, sign-up and sign-out routes share: starting and ending a session. */
import { AppError } from "../http/problem.ts";
import type { RouteContext } from "./context.ts";
import { clearSessionCookie, readSessionCookie, sessionCookie } from "../auth/session_cookie.ts";
import { ABSOLUTE_TIMEOUT_MS, createSession, deleteSession } from "../auth/sessions.ts";
import { isSecureSite } from "./settings_session.ts";
import type { Account } from "../store/accounts.ts";

/**
 * Starts a fresh session (a new id: any session the browser had is ended first, so an id planted
 * before sign-in is useless) and redirects to `next` when it is a local path.
 */
export async function startSessionAndRedirect(
  ctx: RouteContext,
  account: Account,
  next: string,
): Promise<Response> {
  const { kv, clock } = ctx.var.deps;
  const secure = isSecureSite(ctx);
  await deleteSession(kv, readSessionCookie(secure, ctx.req.header("cookie") ?? null));
  const { id } = await createSession(
    kv,
    { accountId: account.id, partnerId: account.partnerId },
    clock(),
  );
  const target = /^\/settings(\/[A-Za-z0-9/_.?=&%-]*)?$/.test(next) ? next : "/settings/keys";
  return new Response(null, {
    status: 303,
    headers: {
      location: target,
      "set-cookie": sessionCookie(secure, id, Math.floor(ABSOLUTE_TIMEOUT_MS / 1000)),
      "cache-control": "no-store",
    },
  });
}

/** Ends the session and redirects to the sign-in page. */
export async function endSessionAndRedirect(ctx: RouteContext): Promise<Response> {
  const secure = isSecureSite(ctx);
  await deleteSession(ctx.var.deps.kv, readSessionCookie(secure, ctx.req.header("cookie") ?? null));
  return new Response(null, {
    status: 303,
    headers: { location: "/auth/signin", "set-cookie": clearSessionCookie(secure) },
  });
}

/** The message to show on a form for an error, or rethrows what a form cannot show. */
export function formError(err: unknown): string {
  if (err instanceof AppError && err.status < 500) return err.message;
  throw err;
}
