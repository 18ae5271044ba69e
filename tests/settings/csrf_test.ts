import assert from "node:assert/strict";
import { createTestApp } from "../_helpers/app.ts";
import { rid } from "../_helpers/redis.ts";
import { SettingsClient } from "./_client.ts";

async function rejected(res: Response, reason: string) {
  assert.equal(res.status, 403);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  const body = await res.json();
  assert.equal(body.code, "csrf_rejected");
  assert.equal(body.reason, reason);
}

Deno.test("csrf - state-changing settings requests need the same origin and the session's token", async (t) => {
  const app = await createTestApp();
  try {
    const c = new SettingsClient(app.url, app.fetch);
    await c.signUp(`c-${rid()}@shop.example`, "Csrf Co");
    await c.html("/settings/projects");
    const create = (fields: Record<string, string>, options = {}) =>
      c.post("/settings/projects", { title: "P", slug: `p-${rid()}`, ...fields }, options);

    await t.step("missing token", async () => {
      await rejected(await create({}, { csrf: null }), "missing_token");
    });
    await t.step("wrong token", async () => {
      await rejected(await create({}, { csrf: "A".repeat(43) }), "bad_token");
    });
    await t.step("cross-site Origin", async () => {
      await rejected(
        await create({}, {
          headers: { origin: "https://evil.example", "sec-fetch-site": "same-origin" },
        }),
        "cross_site",
      );
    });
    await t.step("Sec-Fetch-Site cross-site", async () => {
      await rejected(
        await create({}, { headers: { "sec-fetch-site": "cross-site" } }),
        "cross_site",
      );
    });
    await t.step("Sec-Fetch-Site same-site (a sibling subdomain) is refused too", async () => {
      await rejected(
        await create({}, { headers: { "sec-fetch-site": "same-site" } }),
        "cross_site",
      );
    });
    await t.step("sign-in from another site is refused before any password check", async () => {
      const res = await app.request("/auth/signin", {
        method: "POST",
        headers: {
          origin: "https://evil.example",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: "email=a%40b.example&password=x",
      });
      await rejected(res, "cross_site");
    });
    await t.step("sign-out needs the token too", async () => {
      await rejected(await c.post("/auth/signout", {}, { csrf: null }), "missing_token");
    });
    await t.step(
      "the token in the header works for scripts; nothing was created before",
      async () => {
        const html = await c.html("/settings/projects");
        assert.ok(!html.includes("<code>p-"), "no project was created by the refused requests");
        const ok = await create({}, { headers: { "x-csrf-token": c.csrf }, csrf: null });
        assert.equal(ok.status, 303);
        await ok.body?.cancel();
      },
    );
  } finally {
    await app.close();
  }
});

Deno.test("csrf - settings pages send a nonce CSP and refuse framing; without a session they redirect", async () => {
  const app = await createTestApp();
  try {
    const c = new SettingsClient(app.url, app.fetch);
    await c.signUp(`h-${rid()}@shop.example`, "Headers Co");
    const res = await c.get("/settings/keys");
    const html = await res.text();
    const csp = res.headers.get("content-security-policy") ?? "";
    const nonce = /script-src 'self' 'nonce-([0-9a-f]+)'/.exec(csp)?.[1];
    assert.ok(nonce, csp);
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    assert.ok(html.includes(`<script nonce="${nonce}">`), "the inline script carries the nonce");
    assert.match(c.cookie, /^session=[A-Za-z0-9_-]{22}$/);

    const anon = await app.request("/settings/keys", {
      headers: { accept: "text/html" },
      redirect: "manual",
    });
    await anon.body?.cancel();
    assert.equal(anon.status, 303);
    assert.equal(anon.headers.get("location"), "/auth/signin?next=%2Fsettings%2Fkeys");
    const api = await app.request("/settings/keys", { redirect: "manual" });
    assert.equal(api.status, 401);
    assert.equal((await api.json()).code, "session_required");
    const forged = await app.request("/settings/keys", {
      headers: { cookie: "session=AAAAAAAAAAAAAAAAAAAAAA" },
      redirect: "manual",
    });
    assert.equal(forged.status, 401);
    await forged.body?.cancel();
  } finally {
    await app.close();
  }
});

Deno.test("csrf - over https the cookie is __Host-session with Secure", async () => {
  const app = await createTestApp({ env: { PUBLIC_URL: "https://settings.example" } });
  try {
    const res = await app.request("/auth/signup", {
      method: "POST",
      headers: {
        origin: "https://settings.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({
        email: `s-${rid()}@shop.example`,
        password: "correct horse battery",
        partnerName: "Secure Co",
      }),
      redirect: "manual",
    });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.match(
      res.headers.get("set-cookie") ?? "",
      /^__Host-session=[A-Za-z0-9_-]{22}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800; Secure$/,
    );
  } finally {
    await app.close();
  }
});
