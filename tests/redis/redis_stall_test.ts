/**
 * A Redis that stops answering (`SIGSTOP`: what a partition or a hung primary looks like, the
 * kernel still accepting bytes) against a private `redis-server` on a free port, never the shared
 * one. Every request path answers while it is stalled, with its documented status (docs/api.md,
 * When Redis is down), and works again after `SIGCONT` and after a kill + restart, without
 * restarting the app. No timing is asserted: a request must complete at all, and an
 * `AbortSignal.timeout` far above the deadline turns a hang into a failure. The longest latency
 * seen per route while stalled is printed for the record.
 */
import assert from "node:assert/strict";
import { ErrorReply } from "redis";
import { Logger } from "@/lib/ops/logger.ts";
import { closeRedis, connectRedis, type RedisClient } from "@/lib/redis/client.ts";
import { RedisUnavailableError } from "@/lib/redis/deadline.ts";
import { RedisScript } from "@/lib/redis/script.ts";
import { PrivateRedis } from "../_helpers/redis_server.ts";
import { createKeyFixture, type KeyFixture, rid, startTestServer } from "../_helpers/server.ts";
import { finishedDag, publishFixture } from "../_helpers/projects.ts";
import { SettingsClient } from "../settings/_client.ts";
import { expectProblem, RENDER } from "../render/render_helpers.ts";

/** Far above any deadline: a request still running after this is a hang. */
const HANG_MS = 20_000;

/** Megabytes written to a stalled server: well above loopback's socket buffers (a few MB each). */
const FILL_MB = 48;

const silent = () => new Logger("error", () => {});

Deno.test("redis deadline - commands, scripts, MULTI and pipelines settle while Redis is stalled", async () => {
  await withDeadlineClient(async (server, client, script) => {
    assert.equal(await script.run(["n"], []), 1);

    server.pause();
    const calls: Array<[string, () => Promise<unknown>]> = [
      ["GET", () => client.get("n")],
      ["EVALSHA", () => script.run(["n"], [])],
      ["MULTI", () => client.multi().get("n").pTTL("n").exec()],
      ["pipeline", () => client.multi().get("n").pTTL("n").execAsPipeline()],
      ["PING", () => client.ping()],
    ];
    for (const [name, call] of calls) {
      await assert.rejects(
        hangGuard(call()),
        (e: unknown) => e instanceof RedisUnavailableError && e.status === 503,
        name,
      );
    }

    server.resume();
    await eventually(() => client.get("n").then((v) => v === "1"));
    // The reply stream kept its order: every late reply went to its own command.
    assert.equal(await script.run(["n"], []), 2);
    assert.deepEqual(await client.multi().get("n").pTTL("n").exec(), ["2", -1]);
    // A Redis error reply is an answer and passes through unchanged.
    await assert.rejects(client.evalSha("0".repeat(40), { keys: [] }), ErrorReply);

    server.pause();
    await assert.rejects(hangGuard(client.set("n", "3")), RedisUnavailableError);
    // Closing does not wait for replies a stalled server never sends.
    await hangGuard(closeRedis(client));
  });
});

Deno.test("redis deadline - a command still unwritten when its deadline passes never reaches Redis", async () => {
  // The stall below stays far shorter than the client's socketTimeout (2 s), so the socket is never
  // destroyed: only the deadline's own drop keeps the commands off the wire.
  await withDeadlineClient(async (server, client, script) => {
    assert.equal(await script.run(["warm"], []), 1);

    server.pause();
    // More bytes than the stopped server's receive buffer and this socket's send buffer hold: the
    // writes back up and the commands after them wait in node-redis's queue, unwritten.
    const value = "v".repeat(1 << 20);
    const fills = Array.from({ length: FILL_MB }, (_, i) => client.set(`fill:${i}`, value));
    const spends = [client.incr("spent"), script.run(["spent"], [])];
    for (const pending of [...fills, ...spends]) {
      await assert.rejects(hangGuard(pending), RedisUnavailableError);
    }

    server.resume();
    await eventually(() => client.ping().then((v) => v === "PONG"));
    // Replies keep their order, so every command written before the stall has run by now.
    const landed = Number(await client.eval("return #redis.call('KEYS', 'fill:*')", { keys: [] }));
    // Had the writes not backed up, the spends would have gone out before their deadline and
    // this fails too: the test cannot pass without commands left unwritten.
    assert.equal(
      await client.get("spent"),
      null,
      `a command its caller saw fail reached Redis (${landed} of ${FILL_MB} fills landed)`,
    );
    assert.ok(landed < FILL_MB);
    // The connection goes on: the commands after the stall are written and answered.
    assert.equal(await script.run(["spent"], []), 1);
    await closeRedis(client);
  });
});

Deno.test("redis stall - render, mint, sign-in and readyz answer while Redis is stopped, then recover", async (t) => {
  const redis = await PrivateRedis.start();
  // The default REDIS_TIMEOUT_MS: the latencies printed below are the product's.
  const server = await startTestServer({ env: { REDIS_URL: redis.url } });
  const base = server.url.replace("localhost", "127.0.0.1");
  const latency = new Map<string, number>();
  let stalled = false;
  const pause = () => {
    redis.pause();
    stalled = true;
  };
  const resume = () => {
    redis.resume();
    stalled = false;
  };
  const timed = async (route: string, url: string, init: RequestInit = {}): Promise<Response> => {
    const started = performance.now();
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(HANG_MS) });
    const body = await res.arrayBuffer(); // the whole answer, not just its head
    const ms = performance.now() - started;
    if (stalled) latency.set(route, Math.max(latency.get(route) ?? 0, ms));
    return new Response(body, { status: res.status, headers: res.headers });
  };
  try {
    const budgeted = await createKeyFixture(server.deps.kv, { budget: 20 });
    await publishFixture(server.deps.kv, budgeted.partnerId, budgeted.project);
    const unbudgeted = await createKeyFixture(server.deps.kv, {
      budget: null,
      rateLimit: { points: 3, durationSeconds: 600 },
    });
    const dag = await finishedDag("plate");
    const email = `stall-${rid()}@shop.example`;
    await new SettingsClient(base).signUp(email, "Stall Co");
    // Failed sign-ins go on another account: the in-process counts outlive the stall.
    const guessed = `guessed-${rid()}@shop.example`;
    await new SettingsClient(base).signUp(guessed, "Guessed Co");

    const mint = (f: KeyFixture) =>
      timed("mint", `${base}/api/v1/sdk/session-tokens`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: f.origin },
        body: JSON.stringify({ keyId: f.keyId, projectId: f.project }),
      });
    const render = (token: string, body: unknown = { dag }) =>
      timed("render", `${base}${RENDER}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: budgeted.origin,
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify(body),
      });
    const signIn = (password: string, account = email) =>
      timed("sign-in", `${base}/auth/signin`, {
        method: "POST",
        headers: {
          origin: base,
          "sec-fetch-site": "same-origin",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ email: account, password }),
        redirect: "manual",
      });
    const readyz = () => timed("readyz", `${base}/readyz`);
    const tokenOf = async (res: Response) => {
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()).token as string;
    };
    const expectWorking = async () => {
      // The client finds its way back by itself; poll readiness, then every route must work.
      await eventually(async () => (await readyz()).status === 200);
      const token = await tokenOf(await mint(budgeted));
      const ok = await render(token);
      assert.equal(ok.status, 200, await ok.clone().text());
      const signedIn = await signIn("correct horse battery");
      assert.equal(signedIn.status, 303, await signedIn.clone().text());
    };
    const token = await tokenOf(await mint(budgeted));
    assert.equal((await render(token)).status, 200);

    // What every route answers while Redis is stalled (docs/api.md, When Redis is down).
    const stalledAnswers = async (round: string) => {
      await t.step(`${round}: render fails closed with 503 service_unavailable`, async () => {
        const res = await render(token);
        assert.ok(res.headers.get("retry-after"), "Retry-After");
        await expectProblem(res, 503, "service_unavailable");
        // A scene in no cache fails the same way: budgets come before evaluation.
        const other = await render(token, { dag: await finishedDag("plate", { width: 150 }) });
        await expectProblem(other, 503, "service_unavailable");
      });
      await t.step(
        `${round}: a budgeted mint fails closed (no counter can be opened)`,
        async () => {
          const res = await mint(budgeted);
          assert.ok(res.headers.get("retry-after"), "Retry-After");
          await expectProblem(res, 503, "service_unavailable");
        },
      );
      await t.step(`${round}: sign-in works on the in-process throttle`, async () => {
        assert.equal((await signIn("correct horse battery")).status, 303);
      });
      await t.step(`${round}: readyz says 503, redis down`, async () => {
        const res = await readyz();
        assert.equal(res.status, 503);
        assert.equal((await res.json()).checks.redis, "down");
      });
    };

    // Each route first, right after the stall begins (it meets the deadline, not a known stall).
    for (const first of [() => render(token), () => mint(budgeted), () => signIn("x"), readyz]) {
      pause();
      await first();
      resume();
      await eventually(async () => (await readyz()).status === 200);
    }

    pause();
    // All four at once as the stall begins.
    await Promise.all([render(token), mint(budgeted), signIn("correct horse battery"), readyz()]);
    await stalledAnswers("stalled");

    await t.step("stalled: mint rate limits count in process", async () => {
      // The key allows 3 mints per window; this process counts them itself while Redis is out.
      for (let i = 0; i < 3; i++) assert.equal((await mint(unbudgeted)).status, 200);
      const refused = await mint(unbudgeted);
      await expectProblem(refused, 429, "rate_limited");
    });
    await t.step("stalled: the sign-in throttle counts in process", async () => {
      for (let i = 0; i < 5; i++) {
        assert.equal((await signIn("wrong password!", guessed)).status, 401);
      }
      const refused = await signIn("correct horse battery", guessed);
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get("retry-after")) > 0);
    });

    await t.step(
      "stalled past the socket timeout: the connection is replaced, answers go on",
      async () => {
        // Long enough for node-redis to drop the idle connection and start reconnecting against
        // the stopped server (its handshake is never answered) while requests keep arriving.
        const until = Date.now() + 6_000;
        while (Date.now() < until) {
          await expectProblem(await render(token), 503, "service_unavailable");
          assert.equal((await readyz()).status, 503);
          await new Promise((r) => setTimeout(r, 200));
        }
      },
    );

    resume();
    await t.step("after SIGCONT: every route works again without a restart", expectWorking);

    await redis.restart();
    await t.step("after a kill and restart: every route works again", async () => {
      await expectWorking();
    });

    pause();
    await stalledAnswers("stalled again");
    resume();
    await t.step("after the second SIGCONT: every route works again", expectWorking);

    console.log(
      "longest request latency with Redis stalled (REDIS_TIMEOUT_MS default):",
      Object.fromEntries([...latency].map(([route, ms]) => [route, `${Math.round(ms)} ms`])),
    );
    assert.deepEqual([...latency.keys()].sort(), ["mint", "readyz", "render", "sign-in"]);
  } finally {
    if (stalled) resume();
    // Cleanup deletes the test prefix on the private server, so it must be running.
    if (!redis.running) await redis.restart();
    await server.close();
    await redis.stop();
  }
});

/**
 * Runs `test` with a private `redis-server`, a product client on it with a 200 ms deadline and an
 * `INCR` script; destroys the client and stops the server whatever happens.
 */
async function withDeadlineClient(
  test: (server: PrivateRedis, client: RedisClient, script: RedisScript) => Promise<void>,
): Promise<void> {
  const server = await PrivateRedis.start();
  let client: RedisClient | undefined;
  try {
    client = await connectRedis(server.url, silent(), { timeoutMs: 200 });
    await test(server, client, new RedisScript(client, "return redis.call('INCR', KEYS[1])"));
  } finally {
    if (client?.isOpen) client.destroy();
    await server.stop();
  }
}

/** `promise`, or a failure if it has not settled after HANG_MS. */
async function hangGuard<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer after ${HANG_MS} ms`)), HANG_MS);
  });
  try {
    return await Promise.race([promise, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` until it holds (Redis coming back takes a reconnect); fails after HANG_MS. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + HANG_MS;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`still not true after ${HANG_MS} ms`);
}
