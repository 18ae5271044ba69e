/** GET/POST /auth/signin — sign in with email and password. */
import { signIn } from "@/lib/auth/accounts.ts";
import { clientIp, readForm } from "@/lib/auth/settings_session.ts";
import { formError, startSessionAndRedirect } from "@/lib/auth/sign_in_flow.ts";
import { AppError } from "@/lib/http/problem.ts";
import { type Handlers, page, type PageProps } from "@/lib/web/context.ts";

interface SignInData {
  email: string;
  next: string;
  error?: string;
}

export const handler: Handlers = {
  GET(ctx) {
    if (ctx.get("account")) return ctx.redirect("/settings/keys", 303);
    const next = ctx.req.query("next") ?? "";
    return page<SignInData>({ email: "", next }, "Sign in");
  },
  async POST(ctx) {
    const form = await readForm(ctx);
    const email = form.text("email");
    const next = form.text("next");
    const throttle = ctx.var.deps.signInThrottle;
    if (!throttle) throw new Error("sign-in needs the hub role");
    try {
      const account = await signIn(ctx.var.deps.kv, throttle, {
        email,
        password: form.text("password"),
        clientIp: clientIp(ctx),
      });
      return await startSessionAndRedirect(ctx, account, next);
    } catch (err) {
      const error = formError(err);
      const status = err instanceof AppError ? err.status : 422;
      const headers = err instanceof AppError ? err.headers : {};
      return { ...page<SignInData>({ email, next, error }, "Sign in"), status, headers };
    }
  },
};

export default function SignIn({ data }: PageProps<SignInData>) {
  return (
    <main class="auth">
      <link rel="stylesheet" href="/settings.css" />
      <h1>Sign in</h1>
      <p class="muted">Partner settings: SDK keys, projects and usage.</p>
      <section class="card">
        {data.error ? <p class="error" role="alert">{data.error}</p> : null}
        <form method="post" action="/auth/signin" class="stack">
          <input type="hidden" name="next" value={data.next} />
          <label>
            Email
            <input type="email" name="email" required autocomplete="username" value={data.email} />
          </label>
          <label>
            Password
            <input type="password" name="password" required autocomplete="current-password" />
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
