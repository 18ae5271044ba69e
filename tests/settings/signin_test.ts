import assert from "node:assert/strict";
import { createTestApp } from "../_helpers/app.ts";
import { rid } from "../_helpers/redis.ts";
import { SettingsClient } from "./_client.ts";

Deno.test("sign-in - rotates the session id, refuses wrong passwords, then throttles", async () => {
  const app = await createTestApp();
  try {
    const email = `s-${rid()}@shop.example`;
    const first = new SettingsClient(app.url, app.fetch);
    await first.signUp(email, "Signin Co");
    const before = first.cookie;

    const ok = await first.post("/auth/signin", {
      email: email.toUpperCase(),
      password: "correct horse battery",
      next: "/settings/projects",
    });
    await ok.body?.cancel();
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get("location"), "/settings/projects");
    assert.notEqual(first.cookie, before, "a new session id at sign-in");
    const old = await app.request("/settings/keys", { headers: { cookie: before } });
    assert.equal(old.status, 401, "the previous session ended");
    await old.body?.cancel();

    await first.html("/settings/keys");
    const offsite = await first.post("/auth/signin", {
      email,
      password: "correct horse battery",
      next: "https://evil.example/",
    });
    await offsite.body?.cancel();
    assert.equal(offsite.headers.get("location"), "/settings/keys", "no open redirect");

    const other = new SettingsClient(app.url, app.fetch);
    for (let i = 0; i < 5; i++) {
      const res = await other.post("/auth/signin", { email, password: "wrong password!" });
      assert.equal(res.status, 401);
      assert.match(await res.text(), /The email or password is not correct/);
      assert.equal(other.cookie, "", "no session for a failed sign-in");
    }
    const blocked = await other.post("/auth/signin", {
      email,
      password: "correct horse battery",
    });
    assert.equal(blocked.status, 429);
    assert.ok(Number(blocked.headers.get("retry-after")) > 0);
    assert.match(await blocked.text(), /Too many failed sign-ins/);
    assert.ok(
      !app.logs.some((l) => l.includes("correct horse battery")),
      "no password in logs",
    );
  } finally {
    await app.close();
  }
});
