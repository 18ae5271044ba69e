/**
 * Every route of the manifest × every method × anonymous and signed-in, with empty and junk
 * bodies: nothing answers a 5xx (the app in memory has Redis's in-process equivalents, so not even
 * a 503), every 401
 * carries a `WWW-Authenticate` challenge, every 405 an `Allow` header, and every problem's status
 * is its code's status in the catalogue. Dynamic segments are filled with ids of data the test
 * creates (its own, another partner's, a python-mode project) and with bogus ids.
 */
import assert from "node:assert/strict";
import { createSession, readSession } from "@/lib/auth/sessions.ts";
import { readSessionCookie, sessionCookie } from "@/lib/auth/session_cookie.ts";
import { ERROR_CODES, isErrorCode } from "@/lib/http/error_codes.ts";
import { readProjectDir } from "@/lib/hub/project_dir.ts";
import { publishProject } from "@/lib/hub/publish.ts";
import type { Method } from "@/lib/app/context.ts";
import { resolveManifest } from "@/lib/web/router.ts";
import { PYODIDE_VERSION } from "@/lib/sdk/python_assets.ts";
import manifest from "@/manifest.gen.ts";
import { publishFixture } from "../_helpers/projects.ts";
import { createTestApp, type TestApp } from "../_helpers/app.ts";
import { createKeyFixture } from "../_helpers/fixtures.ts";
import { rid } from "../_helpers/redis.ts";
import { setUpPartner } from "../settings/_setup.ts";
import { SettingsClient } from "../settings/_client.ts";

const METHODS: Method[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const SHELF = new URL("../../examples/projects/shelf/", import.meta.url);

/** Bodies sent with every method that may carry one: [label, content type, body]. */
const BODIES: Array<[string, string | null, string | null]> = [
  ["no body", null, null],
  ["empty json", "application/json", ""],
  ["junk json", "application/json", '{"junk": [1, {'],
  ["json null", "application/json", "null"],
  ["json of wrong types", "application/json", '{"keyId": 7, "projectId": [], "values": "x"}'],
  ["junk form", "application/x-www-form-urlencoded", "a=%ZZ&password&email=&grace=-1&&="],
  ["junk multipart", "multipart/form-data; boundary=xyz", "--xyz\r\ngarbage"],
  ["text", "text/plain", "hello"],
];

/** Query parameters that routes read, all at once, with values that are wrong in some way. */
function junkQuery(keyId: string): string {
  return new URLSearchParams({
    key: keyId,
    version: "0",
    test: "https://x.example/a?b",
    done: "saved",
    next: "//evil.example",
    invite: "no-such-invite",
  }).toString();
}

/** Who sends a request: its headers, and a hook that sees every response. */
interface Identity {
  name: "anonymous" | "signed-in";
  headers(): Record<string, string>;
  after(res: Response): Promise<void>;
}

/**
 * A signed-in identity (cookie + form token, from this site). When a response changes the cookie
 * (signing out ends the session), a new session of the same account replaces it.
 */
async function signedIn(app: TestApp, client: SettingsClient): Promise<Identity> {
  const kv = app.deps.kv;
  const first = await readSession(kv, readSessionCookie(false, client.cookie), app.deps.clock());
  assert.ok(first, "the settings client is signed in");
  const session = { cookie: client.cookie, csrf: first.csrfToken };
  return {
    name: "signed-in",
    headers: () => ({
      origin: app.url,
      "sec-fetch-site": "same-origin",
      cookie: session.cookie,
      "x-csrf-token": session.csrf,
    }),
    async after(res) {
      if (!res.headers.has("set-cookie")) return;
      const { id, record } = await createSession(kv, first, app.deps.clock());
      session.cookie = sessionCookie(false, id, 3600).split(";")[0];
      session.csrf = record.csrfToken;
    },
  };
}

function cartesian(lists: string[][]): string[][] {
  return lists.reduce<string[][]>(
    (acc, list) => acc.flatMap((prefix) => list.map((v) => [...prefix, v])),
    [[]],
  );
}

/** The URL paths of a route pattern, every parameter filled with each of its test values. */
function pathsOf(pattern: string, values: Record<string, string[]>): string[] {
  // `:name` or a catch-all `:name{.+}`, replaced whole.
  const params = [...pattern.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)(?:\{\.\+\})?/g)];
  const names = params.map((m) => m[1]);
  const missing = names.filter((n) => !values[n]);
  assert.deepEqual(missing, [], `${pattern}: give the sweep values for ${missing.join(", ")}`);
  return cartesian(names.map((n) => values[n])).map((combo) =>
    combo.reduce((p, v, i) => p.replace(params[i][0], v), pattern)
  );
}

/** What is wrong with one answer, if anything. */
async function faults(res: Response, method: Method): Promise<string[]> {
  const out: string[] = [];
  const text = method === "HEAD" ? "" : await res.text();
  if (res.status >= 500) {
    out.push(text.replace(/,?"instance":"[^"]*"/, "").slice(0, 200));
  }
  if (res.status === 401 && !res.headers.get("www-authenticate")) {
    out.push("a 401 without WWW-Authenticate");
  }
  if (res.status === 405 && !res.headers.get("allow")) out.push("a 405 without Allow");
  if ((res.headers.get("content-type") ?? "").startsWith("application/problem+json") && text) {
    const { code } = JSON.parse(text) as { code: string };
    if (!isErrorCode(code)) out.push(`unknown code ${code}`);
    else if (ERROR_CODES[code].status !== res.status) out.push(`${code} is never a ${res.status}`);
  }
  return out;
}

Deno.test("route sweep - no route × method × identity answers a 5xx", async () => {
  const app = await createTestApp();
  try {
    const kv = app.deps.kv;
    const own = await setUpPartner(app.url, "Sweep", app.fetch);
    // Another partner's key and published project: real ids the signed-in partner does not own.
    const foreign = await createKeyFixture(kv);
    await publishFixture(kv, foreign.partnerId, foreign.project);
    // A python-mode project of the signed-in partner (template null, source set).
    const python = `shelf-${rid()}`;
    const created = await own.client.post("/settings/projects", { title: "Shelf", slug: python });
    await created.body?.cancel();
    assert.equal(created.status, 303);
    await publishProject(kv, python, await readProjectDir(SHELF));

    const bogus = ["bogus", "..", "%00", "x".repeat(300), "%C3%A9t%C3%A9"];
    const values: Record<string, string[]> = {
      slug: [own.project, python, foreign.project, ...bogus],
      project: [own.project, python, foreign.project, ...bogus],
      keyId: [own.keyId, foreign.keyId, `k${"a".repeat(25)}`, ...bogus],
      kernel: ["manifold", ...bogus],
      code: [Object.keys(ERROR_CODES)[0], ...bogus],
      version: [PYODIDE_VERSION, "1", "current", "0", "-1", ...bogus],
      partnerId: [foreign.partnerId, ...bogus],
      file: ["pyodide.mjs", "worker.js", "cadparam.json", ...bogus],
      name: ["api", "embedding", ...bogus],
      path: ["0123456789abcdef/embed.d.ts", "0123456789abcdef/../../deno.json", "a/b", ...bogus],
    };
    const anonymous: Identity = {
      name: "anonymous",
      headers: () => ({ origin: app.url, "sec-fetch-site": "same-origin" }),
      after: async () => {},
    };
    const identities = [anonymous, await signedIn(app, own.client)];

    const failures = new Set<string>();
    const signedInPages = new Set<string>();
    let requests = 0;
    for (const route of resolveManifest(manifest, "all").routes) {
      for (const path of pathsOf(route.pattern, values)) {
        for (const identity of identities) {
          for (const method of METHODS) {
            const variants = method === "GET" || method === "HEAD" || method === "OPTIONS"
              ? [["plain", null, null], ["query", null, null]] as const
              : BODIES;
            for (const [label, type, body] of variants) {
              // The query's key is the foreign one: the sweep revokes the partner's own key.
              const query = label === "query" ? `?${junkQuery(foreign.keyId)}` : "";
              const headers: Record<string, string> = {
                accept: "text/html,application/json;q=0.9,*/*;q=0.8",
                ...identity.headers(),
              };
              if (type) headers["content-type"] = type;
              const res = await app.request(`${app.url}${path}${query}`, {
                method,
                headers,
                body: body ?? undefined,
                redirect: "manual",
              });
              requests++;
              for (const fault of await faults(res, method)) {
                // By pattern, not path: one fault is reported once per variant.
                failures.add(
                  `${identity.name} ${method} ${route.pattern} (${label}) → ${res.status}: ${fault}`,
                );
              }
              if (identity.name === "signed-in" && method === "GET" && res.status === 200) {
                signedInPages.add(route.pattern);
              }
              await identity.after(res);
            }
          }
        }
      }
    }
    assert.deepEqual([...failures], []);
    // The signed-in identity got past the session and CSRF checks to the real records.
    for (
      const page of ["/settings/keys/:keyId", "/settings/projects/:slug", "/settings/usage/:keyId"]
    ) {
      assert.ok(signedInPages.has(page), `signed in, GET ${page} rendered`);
    }
    assert.ok(requests > 5000, `${requests} requests`);
  } finally {
    await app.close();
  }
});

Deno.test("route sweep - a sign-in without a password field is a 401 page with a challenge", async () => {
  const app = await createTestApp();
  try {
    const client = new SettingsClient(app.url, app.fetch);
    const email = `nopass-${rid()}@shop.example`;
    await client.signUp(email, "No Pass");
    client.cookie = "";
    const res = await client.post("/auth/signin", { email }, { csrf: null });
    assert.equal(res.status, 401);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(res.headers.get("www-authenticate") ?? "", /^Cookie realm="settings"/);
    assert.match(await res.text(), /The email or password is not correct/);
  } finally {
    await app.close();
  }
});
