/**
 * A tiny browser-like client for settings tests: a cookie, the site Origin, form posts. It talks
 * to a server over `fetch`, or to the app in memory through the `fetch` of tests/_helpers/app.ts.
 */

/** The global `fetch`'s signature. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A signed-in (or not yet) settings client bound to one server (or one app in memory). */
export class SettingsClient {
  cookie = "";
  csrf = "";
  constructor(
    readonly baseUrl: string,
    readonly fetch: Fetch = (input, init) => globalThis.fetch(input, init),
  ) {}

  /** GETs a path with the session cookie (and HTML accept), without following redirects. */
  async get(path: string): Promise<Response> {
    const res = await this.fetch(this.baseUrl + path, {
      headers: { cookie: this.cookie, accept: "text/html" },
      redirect: "manual",
    });
    return res;
  }

  /** GETs a page and returns its HTML, remembering the page's CSRF token. */
  async html(path: string): Promise<string> {
    const res = await this.get(path);
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 300)}`);
    const m = /name="_csrf" value="([^"]+)"/.exec(text);
    if (m) this.csrf = m[1];
    return text;
  }

  /** POSTs a urlencoded form from this site (Origin + Sec-Fetch-Site), with the token. */
  async post(
    path: string,
    fields: Record<string, string | string[]>,
    options: { headers?: Record<string, string>; csrf?: string | null } = {},
  ): Promise<Response> {
    const body = new URLSearchParams();
    const token = options.csrf === undefined ? this.csrf : options.csrf;
    if (token !== null && token !== "") body.set("_csrf", token);
    for (const [k, v] of Object.entries(fields)) {
      for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    }
    const res = await this.fetch(this.baseUrl + path, {
      method: "POST",
      headers: {
        cookie: this.cookie,
        origin: this.baseUrl,
        "sec-fetch-site": "same-origin",
        "content-type": "application/x-www-form-urlencoded",
        ...options.headers,
      },
      body,
      redirect: "manual",
    });
    const set = res.headers.get("set-cookie");
    if (set) this.cookie = set.split(";")[0];
    return res;
  }

  /** Signs up a new partner (or joins through `invite`) and loads the keys page. */
  async signUp(email: string, partnerName: string, invite?: string): Promise<void> {
    const res = await this.post("/auth/signup", {
      email,
      password: "correct horse battery",
      partnerName,
      ...(invite ? { invite } : {}),
    });
    await res.body?.cancel();
    if (res.status !== 303) throw new Error(`sign-up failed: ${res.status}`);
    await this.html("/settings/keys");
  }
}
