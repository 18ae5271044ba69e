import assert from "node:assert/strict";
import { rid, TEST_REDIS_URL } from "../_helpers/server.ts";
import { deleteRedisPrefix } from "../_helpers/server.ts";
import { runHubCli, startServerProcess } from "../_helpers/process.ts";

Deno.test("restart - a key created by the CLI still mints after the server restarts", async () => {
  const dir = await Deno.makeTempDir();
  const prefix = `test:${rid(6)}:`;
  const env = {
    KV_PATH: `${dir}/hub.kv`,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    SEED_DEMO: "false",
  };
  try {
    const cli = async (...args: string[]) => {
      const r = await runHubCli(args, env);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    const { partnerId } = await cli("partner", "create", "--name", "Restart Co");
    await cli("project", "create", "--partner", partnerId, "--slug", "shelf", "--title", "Shelf");
    const { keyId, key } = await cli(
      "key",
      "create",
      "--partner",
      partnerId,
      "--label",
      "prod",
      "--origin",
      "https://shop.example",
      "--project",
      "shelf",
    );
    const mintOnce = async (url: string) => {
      const res = await fetch(`${url}/api/v1/sdk/session-tokens`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ projectId: "shelf", origin: "https://shop.example" }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      return await res.json();
    };
    const jwks = async (url: string) =>
      (await (await fetch(`${url}/.well-known/jwks.json`)).json()).keys;

    const first = await startServerProcess(env);
    const minted = await mintOnce(first.url);
    const keysBefore = await jwks(first.url);
    await first.stop();

    const second = await startServerProcess(env);
    try {
      const again = await mintOnce(second.url);
      assert.equal(again.mode, "secret");
      assert.deepEqual(await jwks(second.url), keysBefore, "the signing key survived the restart");
      // A token minted before the restart still carries a kid the hub publishes.
      const kid =
        JSON.parse(atob(minted.token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).kid;
      assert.ok(keysBefore.some((k: { kid: string }) => k.kid === kid));
      assert.ok(
        !second.output().includes(key.slice(key.lastIndexOf("_") + 1)),
        "the secret is not logged",
      );
      const list = await cli("key", "list", "--partner", partnerId);
      assert.equal(list.keys[0].keyId, keyId);
    } finally {
      await second.stop();
    }
  } finally {
    await deleteRedisPrefix(TEST_REDIS_URL, prefix);
    await Deno.remove(dir, { recursive: true });
  }
});
