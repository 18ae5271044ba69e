/**
 * The middlewares of the settings area: they load the session from its cookie, refuse
 * cross-site state-changing requests (lib/auth/csrf.ts) and, under /settings, require a signed-in
 * account. A page request without a session is redirected to the sign-in page; anything else gets
 * a `session_required` problem.
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../http/problem.ts";
import { getAccount } from "../store/accounts.ts";
import { getPartner } from "../store/partners.ts";
import type { AppEnv, RouteContext } from "./context.ts";
import { assertCsrfToken, assertSameOrigin, CSRF_FIELD, SAFE_METHODS } from "../auth/csrf.ts";
import { readSessionCookie } from "../auth/session_cookie.ts";
import { readSession } from "../auth/sessions.ts";

/** Whether the site is served over https (then cookies are `__Host-` and `Secure`). */
export function isSecureSite(ctx: RouteContext): boolean {
  return new URL(ctx.req.url).protocol === "https:" ||
    ctx.var.deps.config.publicUrl.startsWith("https:");
}

/** The origins this site is reached at: the request URL's and `PUBLIC_URL`'s. */
export function siteOrigins(ctx: RouteContext): string[] {
  return [new URL(ctx.req.url).origin, new URL(ctx.var.deps.config.publicUrl).origin];
}

/**
 * Loads the session, applies the CSRF checks and (when `required`) demands a session.
 *
 * @example
 * ```ts
 * export const handler = settingsSession({ required: true });
 * ```
 */
export function settingsSession(options: { required: boolean }): MiddlewareHandler<AppEnv> {
  return async (ctx, next) => {
    const { kv, clock } = ctx.var.deps;
    const id = readSessionCookie(isSecureSite(ctx), ctx.req.header("cookie") ?? null);
    const session = await readSession(kv, id, clock());
    const account = session ? await getAccount(kv, session.accountId) : null;
    if (session && account && account.partnerId === session.partnerId) {
      ctx.set("session", session);
      ctx.set("account", account);
    }
    if (!SAFE_METHODS.has(ctx.req.method)) {
      assertSameOrigin(ctx.req.raw.headers, siteOrigins(ctx));
      const s = ctx.get("session");
      if (s) assertCsrfToken(await presentedToken(ctx), s.csrfToken);
    }
    if (options.required && !ctx.get("account")) {
      if (ctx.req.method === "GET" && (ctx.req.header("accept") ?? "").includes("text/html")) {
        const url = new URL(ctx.req.url);
        const back = encodeURIComponent(url.pathname + url.search);
        return ctx.redirect(`/auth/signin?next=${back}`, 303);
      }
      throw new AppError("session_required", "Sign in to use the settings.");
    }
    await next();
    ctx.res.headers.set(
      "cache-control",
      ctx.res.headers.get("cache-control") ?? "private, no-cache",
    );
    ctx.res.headers.set("x-frame-options", "DENY");
  };
}

async function presentedToken(ctx: RouteContext): Promise<string | null> {
  const header = ctx.req.header("x-csrf-token");
  if (header) return header;
  const type = ctx.req.header("content-type") ?? "";
  if (
    !type.startsWith("application/x-www-form-urlencoded") && !type.startsWith("multipart/form-data")
  ) {
    return null;
  }
  try {
    const form = await ctx.req.parseBody();
    const v = form[CSRF_FIELD];
    return typeof v === "string" ? v : null;
  } catch {
    return null;
  }
}

/** The signed-in account; throws `session_required` outside the settings middleware. */
export function currentAccount(ctx: RouteContext) {
  const account = ctx.get("account");
  if (!account) throw new AppError("session_required", "Sign in to use the settings.");
  return account;
}

/** What every settings page's frame shows: the account, its partner's name and the form token. */
export interface SettingsFrame {
  account: { id: string; email: string; role: "owner" | "developer"; partnerId: string };
  partnerName: string;
  csrf: string;
}

/** The frame data for the signed-in account. */
export async function settingsFrame(ctx: RouteContext): Promise<SettingsFrame> {
  const account = currentAccount(ctx);
  const partner = await getPartner(ctx.var.deps.kv, account.partnerId);
  return {
    account: {
      id: account.id,
      email: account.email,
      role: account.role,
      partnerId: account.partnerId,
    },
    partnerName: partner?.name ?? "",
    csrf: ctx.get("session")!.csrfToken,
  };
}

/** A submitted form as text fields (files are left out) and lists (for checkboxes). */
export interface FormFields {
  text(name: string): string;
  all(name: string): string[];
  file(name: string): File | null;
}

/** Parses a urlencoded or multipart form body. */
export async function readForm(ctx: RouteContext): Promise<FormFields> {
  let form: Awaited<ReturnType<typeof ctx.req.parseBody>>;
  try {
    form = await ctx.req.parseBody({ all: true });
  } catch (err) {
    throw new AppError("invalid_body", "The form could not be read; submit it again.", {
      cause: err,
    });
  }
  const values = (name: string): Array<string | File> => {
    const v = form[name];
    return v === undefined ? [] : Array.isArray(v) ? v : [v];
  };
  return {
    text: (name) => {
      const v = values(name)[0];
      return typeof v === "string" ? v : "";
    },
    all: (name) => values(name).filter((v): v is string => typeof v === "string"),
    file: (name) => {
      const v = values(name)[0];
      return v instanceof File ? v : null;
    },
  };
}

/**
 * The base URL snippets and invitation links point at: `PUBLIC_URL`, or the request's origin when
 * `PUBLIC_URL` names port 0 (a server started on an ephemeral port, as in tests).
 */
export function siteBaseUrl(ctx: RouteContext): string {
  const configured = ctx.var.deps.config.publicUrl;
  return new URL(configured).port === "0" ? new URL(ctx.req.url).origin : configured;
}

/**
 * The render service's base URL for snippets: `KERNEL_URL` when it names another origin than
 * `PUBLIC_URL` (a separate render service), else `siteBaseUrl` (hub and kernel in one process).
 * The hosted configurator page (routes/configurator/[project]) decides the same way.
 */
export function siteKernelUrl(ctx: RouteContext): string {
  const { kernelUrl, publicUrl } = ctx.var.deps.config;
  return new URL(kernelUrl).origin === new URL(publicUrl).origin ? siteBaseUrl(ctx) : kernelUrl;
}
