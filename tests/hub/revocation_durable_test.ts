/**
 * Durable revocation with real processes (issue 12): two server processes (`deno task start`'s
 * command) share one Deno KV file and a private redis-server, as two render nodes would. A key or
 * token revoked by the real CLI — without `REDIS_URL`, with it, with another `REDIS_PREFIX` — or
 * on the settings page of one node is refused by both within the documented bound; a FLUSHALL and
 * a restart of Redis un-revoke nothing, nor does a restart of a node. How long each revocation took
 * to reach each node is printed (no timing assertions; the hang guard is 30 s, far above 5 s).
 */
import assert from "node:assert/strict";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { substitute } from "@/lib/dag/substitute.ts";
import { openKv } from "@/lib/store/kv.ts";
import { createKeyFixture, type KeyFixture } from "../_helpers/fixtures.ts";
import { runHubCli, type ServerProcess, startServerProcess } from "../_helpers/process.ts";
import { finishedDag, publishFixture } from "../_helpers/projects.ts";
import { PrivateRedis } from "../_helpers/redis_server.ts";
import { expectProblem, mintToken, render } from "../render/render_helpers.ts";
import { setUpPartner } from "../settings/_setup.ts";

const HANG_GUARD_MS = 30_000;

function claimsOf(token: string): { jti: string; exp: number } {
  return JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
}

/** A token that renders now, and what to render it with. */
interface Session {
  token: string;
  origin: string;
  body: unknown;
}

async function assertRenders(node: ServerProcess, s: Session): Promise<void> {
  const res = await render(node.url, s.token, s.origin, s.body);
  assert.equal(res.status, 200, await res.text());
}

/** Renders on `node` until it answers 401 `token_revoked`; returns the ms from `since`. */
async function refusedAfter(node: ServerProcess, s: Session, since: number): Promise<number> {
  while (performance.now() - since < HANG_GUARD_MS) {
    const res = await render(node.url, s.token, s.origin, s.body);
    const text = await res.text();
    if (res.status === 401 && JSON.parse(text).code === "token_revoked") {
      return Math.round(performance.now() - since);
    }
    // Until the node has read the revocation, the token renders as before.
    assert.equal(res.status, 200, text);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${node.url} still renders ${HANG_GUARD_MS} ms after the revocation`);
}

Deno.test("revocation durable - CLI (with or without Redis) and settings revocations reach every node and survive Redis loss", async (t) => {
  const dir = await Deno.makeTempDir();
  const redis = await PrivateRedis.start();
  const env = {
    KV_PATH: `${dir}/hub.kv`,
    REDIS_URL: redis.url,
    REDIS_PREFIX: "durable:",
    SEED_DEMO: "false",
    RENDER_WORKERS: "1",
  };
  const kv = await openKv(env.KV_PATH);
  const nodes: ServerProcess[] = [];
  const timings: string[] = [];
  try {
    nodes.push(await startServerProcess(env));
    nodes.push(await startServerProcess(env));
    const [a, b] = nodes;
    const plate = { dag: await finishedDag("plate") };
    /** A new key (created in the shared KV) with a token minted on node A that renders on both. */
    const newSession = async () => {
      const f = await createKeyFixture(kv);
      await publishFixture(kv, f.partnerId, f.project);
      const s = { ...f, token: await mintToken(a.url, f), body: plate };
      for (const node of nodes) await assertRenders(node, s);
      return s;
    };
    const cli = async (args: string[], cliEnv: Record<string, string>) => {
      const r = await runHubCli(args, { KV_PATH: env.KV_PATH, ...cliEnv });
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    /** Waits until every node refuses `s`, recording how long each took after `since`. */
    const refusedEverywhere = async (what: string, s: Session, since: number) => {
      const ms = await Promise.all(nodes.map((node) => refusedAfter(node, s, since)));
      timings.push(`${what}: node A ${ms[0]} ms, node B ${ms[1]} ms`);
    };
    const revoked: Session[] = [];
    const cliCases: [string, Record<string, string>][] = [
      ["CLI key revoke, no REDIS_URL", { REDIS_URL: "" }],
      ["CLI key revoke, same REDIS_URL and prefix", {
        REDIS_URL: redis.url,
        REDIS_PREFIX: "durable:",
      }],
      ["CLI key revoke, another REDIS_PREFIX", {
        REDIS_URL: redis.url,
        REDIS_PREFIX: "elsewhere:",
      }],
    ];
    for (const [name, cliEnv] of cliCases) {
      await t.step(name, async () => {
        const s = await newSession();
        const second = { ...s, token: await mintToken(a.url, s) };
        const out = await cli(["key", "revoke", "--key-id", s.keyId], cliEnv);
        assert.deepEqual(out, { keyId: s.keyId, revoked: true });
        await refusedEverywhere(name, s, performance.now());
        // Every token of the key, not only the one that was polled.
        for (const node of nodes) {
          await expectProblem(
            await render(node.url, second.token, s.origin, plate),
            401,
            "token_revoked",
          );
        }
        revoked.push(s, second);
      });
    }

    await t.step("CLI token revoke --jti: that token only", async () => {
      const s = await newSession();
      const sibling = { ...s, token: await mintToken(a.url, s) };
      const { jti, exp } = claimsOf(s.token);
      const out = await cli(["token", "revoke", "--jti", jti, "--exp", String(exp)], {
        REDIS_URL: "",
      });
      assert.deepEqual(out, { jti, revoked: true });
      await refusedEverywhere("CLI token revoke --jti, no REDIS_URL", s, performance.now());
      for (const node of nodes) await assertRenders(node, sibling);
      revoked.push(s);
    });

    let control: (Session & KeyFixture) | undefined;
    await t.step("settings page on node A: A refuses at once, B within the bound", async () => {
      const partner = await setUpPartner(a.url, "Durable");
      const dir = new URL("../../examples/projects/wall-bracket/", import.meta.url);
      const template = JSON.parse(await Deno.readTextFile(new URL("template.dag.json", dir)));
      const schema = JSON.parse(await Deno.readTextFile(new URL("parameters.schema.json", dir)));
      const body = { dag: substitute(template, validateParameterSchema(schema), {}) };
      const s = { token: await mintToken(a.url, { ...partner, partnerId: "" }), ...partner, body };
      for (const node of nodes) await assertRenders(node, s);
      const since = performance.now();
      const res = await partner.client.post(`/settings/keys/${partner.keyId}/revoke`, {});
      await res.body?.cancel();
      assert.equal(res.status, 303);
      await expectProblem(await render(a.url, s.token, s.origin, body), 401, "token_revoked");
      const ms = await refusedAfter(b, s, since);
      timings.push(
        `settings revoke on node A: node A at once (synced before the redirect), ` +
          `node B ${ms} ms`,
      );
      revoked.push(s);
      control = await newSession();
    });

    const stillRefused = async () => {
      for (const node of nodes) {
        for (const s of revoked) {
          await expectProblem(
            await render(node.url, s.token, s.origin, s.body),
            401,
            "token_revoked",
          );
        }
      }
    };

    await t.step("after FLUSHALL of Redis: still refused", async () => {
      await redis.flushAll();
      await stillRefused();
    });

    await t.step("after a restart of Redis (empty): still refused; new tokens render", async () => {
      await redis.restart();
      await stillRefused();
      // A token minted now has a budget counter in the new Redis (the old ones were wiped).
      const fresh = { ...control!, token: await waitForMint(a, control!) };
      for (const node of nodes) await waitForRender(node, fresh);
    });

    await t.step(
      "a node restarted on the same KV refuses them from its first request",
      async () => {
        await nodes[1].stop();
        nodes[1] = await startServerProcess(env);
        for (const s of revoked) {
          await expectProblem(
            await render(nodes[1].url, s.token, s.origin, s.body),
            401,
            "token_revoked",
          );
        }
      },
    );

    console.log(
      `revocation propagation (CLI exited, or settings POST sent → first 401 token_revoked):\n  ${
        timings.join("\n  ")
      }`,
    );
  } finally {
    for (const node of nodes) await node.stop();
    kv.close();
    await redis.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

/** Mints once Redis answers again (the mint's budget counter lives there). */
async function waitForMint(node: ServerProcess, f: KeyFixture): Promise<string> {
  for (let i = 0; i < 200; i++) {
    try {
      return await mintToken(node.url, f);
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error("no mint within 10 s of the Redis restart");
}

/** Renders once Redis answers again. */
async function waitForRender(node: ServerProcess, s: Session): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const res = await render(node.url, s.token, s.origin, s.body);
    const text = await res.text();
    if (res.status === 200) return;
    assert.equal(res.status, 503, text);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("no render within 10 s of the Redis restart");
}
