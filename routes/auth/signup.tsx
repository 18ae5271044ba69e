/** GET/POST /auth/signup — create an account (a new partner, or join one through an invitation). */
import { signUp } from "@/lib/auth/accounts.ts";
import { readForm } from "@/lib/app/settings_session.ts";
import { formError, startSessionAndRedirect } from "@/lib/app/sign_in_flow.ts";
import { PASSWORD_LENGTH } from "@/lib/auth/password.ts";
import { AppError, problemHeaders } from "@/lib/http/problem.ts";
import { getInvite } from "@/lib/store/accounts_invites.ts";
import { getPartner } from "@/lib/store/partners.ts";
import { type Handlers, page, type PageProps, type RouteConfig } from "@/lib/app/context.ts";

export const config: RouteConfig = { roles: ["hub"] };

const DESCRIPTION =
  "Create a partner account for the CAD Configurator: SDK keys for your storefront's origins, " +
  "your parametric projects, usage and members.";

interface SignUpData {
  email: string;
  partnerName: string;
  invite?: { token: string; partnerName: string; role: string; email: string };
  error?: string;
  /** The fields the error is about (form field names). */
  errorFields?: string[];
}

async function inviteView(kv: Deno.Kv, token: string) {
  const entry = token ? await getInvite(kv, token) : null;
  if (!entry) return undefined;
  const partner = await getPartner(kv, entry.value.partnerId);
  return {
    token,
    partnerName: partner?.name ?? "",
    role: entry.value.role,
    email: entry.value.email,
  };
}

export const handler: Handlers = {
  async GET(ctx) {
    const token = ctx.req.query("invite") ?? "";
    const invite = await inviteView(ctx.var.deps.kv, token);
    if (token && !invite) {
      throw new AppError("invite_invalid", "This invitation link is unknown, used or expired.");
    }
    return page<SignUpData>(
      { email: invite?.email ?? "", partnerName: "", invite },
      "Sign up",
      DESCRIPTION,
    );
  },
  async POST(ctx) {
    const { kv, clock } = ctx.var.deps;
    const form = await readForm(ctx);
    const input = {
      email: form.text("email"),
      password: form.text("password"),
      partnerName: form.text("partnerName"),
      inviteToken: form.text("invite") || undefined,
    };
    try {
      const account = await signUp(kv, input, clock());
      // A new partner starts with a project (the starter gallery); a new member joins the keys.
      const next = input.inviteToken ? "/settings/keys" : "/settings/projects";
      return await startSessionAndRedirect(ctx, account, next);
    } catch (err) {
      const error = formError(err);
      const invite = input.inviteToken ? await inviteView(kv, input.inviteToken) : undefined;
      // formError rethrows anything but an AppError below 500: err is one here.
      const e = err as AppError;
      return {
        ...page<SignUpData>(
          {
            email: input.email,
            partnerName: input.partnerName,
            invite,
            error,
            errorFields: errorFields(e),
          },
          "Sign up",
          DESCRIPTION,
        ),
        status: e.status,
        headers: Object.fromEntries(problemHeaders(e)),
      };
    }
  },
};

/** The fields a refusal names: its problem's `errors` pointers; an existing account's email. */
function errorFields(e: AppError): string[] {
  if (e.code === "account_exists") return ["email"];
  const errors = e.extensions.errors;
  if (!Array.isArray(errors)) return [];
  return errors.map((x) => String((x as { pointer?: unknown }).pointer ?? "").replace(/^\//, ""));
}

export default function SignUp({ data }: PageProps<SignUpData>) {
  const about = (field: string) =>
    data.error && data.errorFields?.includes(field)
      ? { "aria-invalid": "true" as const, "aria-describedby": "form-error" }
      : {};
  return (
    <main class="auth">
      <link rel="stylesheet" href="/settings.css" />
      <h1>{data.invite ? `Join ${data.invite.partnerName}` : "Create your partner account"}</h1>
      <p class="muted">
        {data.invite
          ? `You were invited as ${data.invite.role}.`
          : "The first account of a company creates its partner and becomes its owner."}
      </p>
      <section class="card">
        {data.error ? <p class="error" role="alert" id="form-error">{data.error}</p> : null}
        <form method="post" action="/auth/signup" class="stack">
          {data.invite ? <input type="hidden" name="invite" value={data.invite.token} /> : (
            <label>
              Company name
              <input
                type="text"
                name="partnerName"
                required
                maxLength={200}
                value={data.partnerName}
                {...about("partnerName")}
              />
            </label>
          )}
          <label>
            Email
            <input
              type="email"
              name="email"
              required
              autocomplete="username"
              value={data.email}
              {...about("email")}
            />
          </label>
          <label>
            Password
            <span class="hint">At least {PASSWORD_LENGTH.min} characters.</span>
            <input
              type="password"
              name="password"
              required
              minLength={PASSWORD_LENGTH.min}
              maxLength={PASSWORD_LENGTH.max}
              autocomplete="new-password"
              {...about("password")}
            />
          </label>
          <div class="actions">
            <button type="submit">Create account</button>
            <a href="/auth/signin">I have an account</a>
          </div>
        </form>
      </section>
    </main>
  );
}
