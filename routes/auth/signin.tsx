/** GET/POST /auth/signin — sign in with email and password. */
import { signIn } from "@/lib/auth/accounts.ts";
import { readForm } from "@/lib/app/settings_session.ts";
import { formError, startSessionAndRedirect } from "@/lib/app/sign_in_flow.ts";
import { type AppError, problemHeaders } from "@/lib/http/problem.ts";
import {
  clientIp,
  type Handlers,
  page,
  type PageProps,
  type RouteConfig,
} from "@/lib/app/context.ts";

export const config: RouteConfig = { roles: ["hub"] };

const DESCRIPTION =
  "Sign in to the CAD Configurator's partner settings: SDK keys, projects and usage.";

interface SignInData {
  email: string;
  next: string;
  error?: string;
}

export const handler: Handlers = {
  GET(ctx) {
    if (ctx.get("account")) return ctx.redirect("/settings/keys", 303);
    const next = ctx.req.query("next") ?? "";
    return page<SignInData>({ email: "", next }, "Sign in", DESCRIPTION);
  },
  async POST(ctx) {
    const form = await readForm(ctx);
    const email = form.text("email");
    const next = form.text("next");
    // Present with the hub role, the only one that serves /auth (config below).
    const throttle = ctx.var.deps.signInThrottle!;
    try {
      const account = await signIn(ctx.var.deps.kv, throttle, {
        email,
        password: form.text("password"),
        clientIp: clientIp(ctx),
      });
      return await startSessionAndRedirect(ctx, account, next);
    } catch (err) {
      const error = formError(err);
      // formError rethrows anything but an AppError below 500: err is one here.
      const e = err as AppError;
      const headers = Object.fromEntries(problemHeaders(e));
      return {
        ...page<SignInData>({ email, next, error }, "Sign in", DESCRIPTION),
        status: e.status,
        headers,
      };
    }
  },
};

export default function SignIn({ data }: PageProps<SignInData>) {
  // A refused sign-in is about the pair: both fields point at the message.
  const invalid = data.error
    ? { "aria-invalid": "true" as const, "aria-describedby": "form-error" }
    : {};
  return (
    <main class="auth">
      <link rel="stylesheet" href="/settings.css" />
      <h1>Sign in</h1>
      <p class="muted">Partner settings: SDK keys, projects and usage.</p>
      <section class="card">
        {data.error ? <p class="error" role="alert" id="form-error">{data.error}</p> : null}
        <form method="post" action="/auth/signin" class="stack">
          <input type="hidden" name="next" value={data.next} />
          <label>
            Email
            <input
              type="email"
              name="email"
              required
              autocomplete="username"
              value={data.email}
              {...invalid}
            />
          </label>
          <label>
            Password
            <input
              type="password"
              name="password"
              required
              autocomplete="current-password"
              {...invalid}
            />
          </label>
          <div class="actions">
            <button type="submit">Sign in</button>
            <a href="/auth/signup">Create an account</a>
          </div>
        </form>
      </section>
    </main>
  );
}
