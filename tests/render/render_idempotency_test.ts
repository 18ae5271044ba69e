/**
 * `Idempotency-Key` on the render route, through the real app and the real Redis: a replayed
 * request spends once (sequentially and concurrently), different keys spend once each, a key
 * reused for another DAG and a malformed key are refused with their codes, and a refused key is
 * readable by the token's origin (CORS) like any other problem.
 */
import assert from "node:assert/strict";
import { setRenderQuota } from "@/lib/hub/sdk_keys.ts";
import { createKeyFixture, startTestServer } from "../_helpers/server.ts";
import { finishedDag, publishFixture } from "../_helpers/projects.ts";
import { rid } from "../_helpers/redis.ts";
import { expectProblem, mintToken, render, setupRender } from "./render_helpers.ts";

async function remaining(res: Response): Promise<number> {
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text).budget.remaining;
}

/** A 128-bit key as the client makes it. */
function newKey(): string {
  return rid(16);
}

Deno.test("render idempotency - a replayed key spends one unit, different keys one each", async (t) => {
  const server = await startTestServer();
  try {
    const s = await setupRender(server.deps.kv, server.url, { budget: 50 });
    const dag = await finishedDag("plate", { width: 70 });
    const send = (key?: string, body: unknown = { dag }) =>
      render(server.url, s.token, s.origin, body, {
        headers: key ? { "idempotency-key": key } : {},
      });

    await t.step("the same key twice: one unit, the same remaining", async () => {
      const key = newKey();
      assert.equal(await remaining(await send(key)), 49);
      assert.equal(await remaining(await send(key)), 49);
      // The structured-field form of the draft names the same key.
      assert.equal(await remaining(await send(`"${key}"`)), 49);
      // The next render without a key pays.
      assert.equal(await remaining(await send()), 48);
    });

    await t.step("different keys: one unit each", async () => {
      assert.equal(await remaining(await send(newKey())), 47);
      assert.equal(await remaining(await send(newKey())), 46);
    });

    await t.step("twelve concurrent requests with one key: one unit", async () => {
      const key = newKey();
      const answers = await Promise.all(Array.from({ length: 12 }, () => send(key)));
      const left = await Promise.all(answers.map(remaining));
      assert.deepEqual(new Set(left), new Set([45]));
      assert.equal(await remaining(await send()), 44);
    });

    await t.step("the key of one DAG sent with another: 422, nothing spent", async () => {
      const key = newKey();
      assert.equal(await remaining(await send(key)), 43);
      const other = { dag: await finishedDag("plate", { width: 71 }) };
      await expectProblem(await send(key, other), 422, "idempotency_key_reused");
      assert.equal(await remaining(await send()), 42);
    });

    await t.step(
      "a malformed key: 400 invalid_idempotency_key, readable by the origin",
      async () => {
        for (
          const bad of ["short", "x".repeat(65), "has space in it 123", `${newKey()}, ${newKey()}`]
        ) {
          const res = await send(bad);
          assert.equal(res.headers.get("access-control-allow-origin"), s.origin, bad);
          await expectProblem(res, 400, "invalid_idempotency_key");
        }
        assert.equal(await remaining(await send()), 41);
      },
    );
  } finally {
    await server.close();
  }
});

Deno.test("render idempotency - a replay counts no second render against the key's quota", async () => {
  const server = await startTestServer();
  try {
    // The quota is set before anything reads the key (the render node caches its settings).
    const f = await createKeyFixture(server.deps.kv, { budget: 50 });
    await setRenderQuota(server.deps.kv, f.keyId, { day: 2 });
    await publishFixture(server.deps.kv, f.partnerId, f.project);
    const s = { ...f, token: await mintToken(server.url, f) };
    const dag = await finishedDag("plate", { width: 70 });
    const send = (key: string) =>
      render(server.url, s.token, s.origin, { dag }, { headers: { "idempotency-key": key } });
    const key = newKey();
    assert.equal(await remaining(await send(key)), 49);
    assert.equal(await remaining(await send(key)), 49);
    assert.equal(await remaining(await send(newKey())), 48);
    // Two renders counted, not three: the quota of 2 is spent only now.
    await expectProblem(await send(newKey()), 429, "quota_exceeded");
    // And the replay is still answered.
    assert.equal(await remaining(await send(key)), 49);
  } finally {
    await server.close();
  }
});
