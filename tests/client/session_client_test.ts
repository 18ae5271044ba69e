import assert from "node:assert/strict";
import { effect } from "@preact/signals";
import { ManualClock } from "@/lib/client/clock.ts";
import { MintError } from "@/lib/client/problem.ts";
import {
  type BrowserFlowOptions,
  MINT_PATH,
  SessionClient,
  type SessionStatus,
  type TokenExpiredDetail,
} from "@/lib/client/session_client.ts";
import { readTokenTimes } from "@/lib/client/token_payload.ts";
import { revokeSdkKey } from "@/lib/hub/sdk_keys.ts";
import {
  createKeyFixture,
  type KeyFixture,
  mint,
  startTestServer,
  type TestServer,
} from "../_helpers/server.ts";

const MINUTE = 60_000;

/** What the test's fetch saw of each mint. */
interface MintLog {
  requests: { body: unknown; headers: Headers }[];
  statuses: number[];
}

/**
 * The `fetch` a browser would run: Deno's fetch adds no `Origin`, so this adds the page's origin.
 * It records mint requests and can rewrite the response's `Date` (a hub clock that differs from
 * the browser's) or fail the first calls like a flaky network.
 */
function browserFetch(
  origin: string,
  options: { date?: () => string | null; failFirst?: number } = {},
): { fetch: typeof fetch; log: MintLog } {
  const log: MintLog = { requests: [], statuses: [] };
  let failures = options.failFirst ?? 0;
  const wrapped = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("origin", origin);
    const url = String(input instanceof Request ? input.url : input);
    if (url.endsWith(MINT_PATH)) {
      log.requests.push({ body: JSON.parse(String(init.body)), headers });
      if (failures > 0) {
        failures--;
        throw new TypeError("connection reset (simulated)");
      }
    }
    const res = await fetch(input, { ...init, headers });
    if (url.endsWith(MINT_PATH)) log.statuses.push(res.status);
    if (!options.date) return res;
    const rewritten = new Headers(res.headers);
    const date = options.date();
    if (date === null) rewritten.delete("date");
    else rewritten.set("date", date);
    return new Response(res.body, {
      status: res.status,
      statusText: res.statusText,
      headers: rewritten,
    });
  };
  return { fetch: wrapped as typeof fetch, log };
}

/** Waits (in real time) until `condition` holds; fails after `ms`. */
async function until(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Every status the client showed, in order. */
function recordStatuses(session: SessionClient): { seen: SessionStatus[]; stop: () => void } {
  const seen: SessionStatus[] = [];
  const stop = effect(() => {
    seen.push(session.status.value);
  });
  return { seen, stop };
}

async function withServer(
  fn: (server: TestServer) => Promise<void>,
  options: Parameters<typeof startTestServer>[0] = {},
): Promise<void> {
  const server = await startTestServer(options);
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

function browserSession(
  server: TestServer,
  key: KeyFixture,
  clock: ManualClock,
  fetchFn: typeof fetch,
  extra: Partial<BrowserFlowOptions> = {},
): SessionClient {
  return new SessionClient({
    keyId: key.keyId,
    projectKey: key.project,
    hubBaseUrl: server.url,
    fetch: fetchFn,
    clock,
    ...extra,
  });
}

Deno.test("client - browser flow: the first mint goes from loading to ready", async () => {
  await withServer(async (server) => {
    const key = await createKeyFixture(server.deps.kv);
    const clock = new ManualClock(Date.now());
    const { fetch, log } = browserFetch(key.origin);
    const session = browserSession(server, key, clock, fetch);
    try {
      assert.equal(session.flow, "browser");
      assert.deepEqual(session.status.value, { state: "loading" });
      assert.equal(session.tokenNow(), undefined, "nothing to send before the first mint");
      const token = await session.getToken();
      assert.match(token, /^sv1\./);
      assert.equal(session.tokenNow(), token, "the held token, without a promise turn");
      const status = session.status.value;
      assert.equal(status.state, "ready");
      assert.ok(status.state === "ready");
      assert.equal(status.token, token);
      assert.equal(status.expiresAt, readTokenTimes(token).exp);
      assert.equal(log.requests.length, 1);
      assert.deepEqual(log.requests[0].body, { keyId: key.keyId, projectId: key.project });
      assert.equal(log.requests[0].headers.get("authorization"), null, "no credential header");
      assert.equal(await session.getToken(), token, "a valid token is reused");
      assert.equal(log.requests.length, 1);
    } finally {
      session.dispose();
    }
    assert.equal(session.tokenNow(), undefined, "a disposed session offers nothing");
    assert.equal(clock.pendingTimers, 0, "dispose clears the refresh timer");
  });
});

Deno.test("client - concurrent getToken calls share one mint", async () => {
  await withServer(async (server) => {
    const key = await createKeyFixture(server.deps.kv);
    const clock = new ManualClock(Date.now());
    const { fetch, log } = browserFetch(key.origin);
    const session = browserSession(server, key, clock, fetch, { mintOnCreate: false });
    try {
      assert.deepEqual(session.status.value, { state: "loading" });
      const tokens = await Promise.all(Array.from({ length: 8 }, () => session.getToken()));
      assert.equal(new Set(tokens).size, 1, "every caller got the same token");
      assert.equal(log.requests.length, 1, "one mint for eight callers");
      // A forced refresh during a mint shares it too.
      const [a, b, c] = await Promise.all([
        session.refreshSessionToken(),
        session.refreshSessionToken(),
        session.getToken(),
      ]);
      assert.equal(a, b);
      assert.notEqual(a, tokens[0], "refreshSessionToken mints a new token");
      assert.equal(c, tokens[0], "getToken during a refresh gets the still-valid old token");
      assert.equal(log.requests.length, 2);
    } finally {
      session.dispose();
    }
  });
});

Deno.test("client - a scheduled refresh replaces the token before expiry without a loading flash", async () => {
  await withServer(async (server) => {
    const key = await createKeyFixture(server.deps.kv, { defaultTtlSeconds: 60 });
    const clock = new ManualClock(Date.now());
    const { fetch, log } = browserFetch(key.origin);
    const session = browserSession(server, key, clock, fetch);
    const { seen, stop } = recordStatuses(session);
    const refreshing: boolean[] = [];
    const stopRefreshing = effect(() => {
      refreshing.push(session.refreshing.value);
    });
    try {
      const first = await session.getToken();
      // A 60 s token is refreshed at half its life (30 s; the 60 s-before rule would be "now").
      const at = clock.nextTimerAt()! - clock.now();
      assert.ok(at > 25_000 && at <= 30_000, `refresh scheduled in ${at} ms`);
      await clock.advance(25_000);
      assert.equal(log.requests.length, 1, "no refresh yet");
      await clock.advance(6_000);
      await until(() => log.requests.length === 2, "the refresh mint");
      await until(
        () => session.status.value.state === "ready" && session.status.value.token !== first,
        "the new token",
      );
      const second = await session.getToken();
      assert.notEqual(second, first);
      assert.equal(readTokenTimes(second).exp! > readTokenTimes(first).exp! - 1, true);
      assert.deepEqual(
        seen.map((s) => s.state),
        ["loading", "ready", "ready"],
        "the old token stays shown (ready) while the refresh runs",
      );
      assert.deepEqual(refreshing, [false, true, false]);
      assert.ok(clock.pendingTimers === 1, "the next refresh is scheduled");
    } finally {
      stop();
      stopRefreshing();
      session.dispose();
    }
  });
});

for (const offsetMinutes of [10, -10]) {
  const label = offsetMinutes > 0 ? "ahead" : "behind";
  Deno.test(`client - refresh is scheduled on the hub's clock when it is 10 min ${label} (Date header)`, async () => {
    const offset = offsetMinutes * MINUTE;
    const hubNow = () => Date.now() + offset;
    await withServer(async (server) => {
      const key = await createKeyFixture(server.deps.kv);
      const clock = new ManualClock(Date.now());
      const start = clock.now();
      // The hub's responses carry its own time, as a real hub with a skewed clock would.
      const { fetch, log } = browserFetch(key.origin, {
        date: () => new Date(hubNow()).toUTCString(),
      });
      const session = browserSession(server, key, clock, fetch);
      try {
        const token = await session.getToken();
        const status = session.status.value;
        assert.ok(status.state === "ready");
        assert.ok(
          Math.abs(status.expiresAt * 1000 - (hubNow() + 30 * MINUTE)) < 2000,
          "expiresAt is on the hub's clock",
        );
        assert.ok(Math.abs(session.clockSkewMs - offset) < 2000, `skew ${session.clockSkewMs}`);
        assert.ok(
          Math.abs(session.localExpiresAtMs! - (start + 30 * MINUTE)) < 2500,
          "on the local clock the token lives 30 min from now",
        );
        // 80 % of 30 min = 24 min. Uncorrected, a hub 10 min ahead would put the refresh at
        // 32 min (after expiry) and one 10 min behind at 16 min.
        await clock.advance(23 * MINUTE);
        assert.equal(log.requests.length, 1, "no refresh before 24 min");
        assert.equal(await session.getToken(), token);
        await clock.advance(1 * MINUTE + 1000);
        await until(() => log.requests.length === 2, "the refresh at 24 min");
      } finally {
        session.dispose();
      }
    }, { clock: hubNow });
  });
}

Deno.test("client - without a readable Date header, skew is taken from the token's iat", async () => {
  const offset = 10 * MINUTE;
  const hubNow = () => Date.now() + offset;
  await withServer(async (server) => {
    const key = await createKeyFixture(server.deps.kv);
    const clock = new ManualClock(Date.now());
    const start = clock.now();
    const { fetch } = browserFetch(key.origin, { date: () => null });
    const session = browserSession(server, key, clock, fetch);
    try {
      await session.getToken();
      assert.ok(Math.abs(session.clockSkewMs - offset) < 2000, `skew ${session.clockSkewMs}`);
      assert.ok(Math.abs(session.localExpiresAtMs! - (start + 30 * MINUTE)) < 2500);
    } finally {
      session.dispose();
    }
  }, { clock: hubNow });
});

Deno.test("client - refreshSessionToken forces a re-mint and the old token stays ready meanwhile", async () => {
  await withServer(async (server) => {
    const key = await createKeyFixture(server.deps.kv);
    const clock = new ManualClock(Date.now());
    const { fetch, log } = browserFetch(key.origin);
    const session = browserSession(server, key, clock, fetch);
    const { seen, stop } = recordStatuses(session);
    try {
      const first = await session.getToken();
      const pending = session.refreshSessionToken();
      assert.deepEqual(session.status.value, seen[1], "still ready with the old token");
      const second = await pending;
      assert.notEqual(second, first);
      assert.equal(log.requests.length, 2);
      const status = session.status.value;
      assert.ok(status.state === "ready" && status.token === second);
      assert.deepEqual(seen.map((s) => s.state), ["loading", "ready", "ready"]);
      assert.equal(clock.pendingTimers, 1, "one refresh timer, for the new token");
    } finally {
      stop();
      session.dispose();
    }
  });
});

Deno.test("client - a 403 origin_not_allowed is an error with its code and is not retried", async () => {
  await withServer(async (server) => {
    const key = await createKeyFixture(server.deps.kv);
    const clock = new ManualClock(Date.now());
    const { fetch, log } = browserFetch("https://copied-key.example");
    const session = browserSession(server, key, clock, fetch);
    try {
      await assert.rejects(session.getToken(), (err: unknown) => {
        assert.ok(err instanceof MintError);
        assert.equal(err.code, "origin_not_allowed");
        assert.equal(err.status, 403);
        return true;
      });
      const status = session.status.value;
      assert.equal(status.state, "error");
      assert.ok(status.state === "error");
      assert.equal(status.code, "origin_not_allowed");
      assert.match(status.error, /copied-key\.example/);
      assert.equal(clock.pendingTimers, 0, "no retry is scheduled");
      await clock.advance(10 * MINUTE);
      assert.deepEqual(log.statuses, [403], "one request, no retry");
    } finally {
      session.dispose();
    }
  });
});

Deno.test("client - a revoked or unknown key ends the browser flow: its code shown, never asked again", async (t) => {
  await withServer(async (server) => {
    const key = await createKeyFixture(server.deps.kv);
    await revokeSdkKey(server.deps.kv, key.keyId);
    for (
      const [code, keyId] of [["key_revoked", key.keyId], ["unknown_key", "kaaaaaaaaaaaaaaaaaaaa"]]
    ) {
      await t.step(code, async () => {
        const clock = new ManualClock(Date.now());
        const { fetch, log } = browserFetch(key.origin);
        const session = browserSession(server, { ...key, keyId }, clock, fetch);
        try {
          await assert.rejects(session.getToken(), (err: unknown) => {
            assert.ok(err instanceof MintError);
            assert.equal(err.code, code);
            return true;
          });
          const status = session.status.value;
          assert.ok(status.state === "error");
          assert.equal(status.code, code);
          assert.equal(clock.pendingTimers, 0, "no retry is scheduled");
          await clock.advance(10 * MINUTE);
          // Later asks (a render, a refresh) get the same refusal without another request.
          for (const ask of [() => session.getToken(), () => session.refreshSessionToken()]) {
            await assert.rejects(
              ask(),
              (err: unknown) => err instanceof MintError && err.code === code,
            );
          }
          assert.equal(log.requests.length, 1, "one request, no retry");
        } finally {
          session.dispose();
        }
      });
    }
  });
});

Deno.test("client - a 429 is retried after Retry-After", async () => {
  await withServer(async (server) => {
    const key = await createKeyFixture(server.deps.kv, {
      rateLimit: { points: 1, durationSeconds: 1 },
    });
    // Another tab spent the key's only mint of this second.
    assert.equal(
      (await mint(server.url, { keyId: key.keyId, projectId: key.project }, { origin: key.origin }))
        .status,
      200,
    );
    const clock = new ManualClock(Date.now());
    const { fetch, log } = browserFetch(key.origin);
    const session = browserSession(server, key, clock, fetch, { random: () => 0 });
    try {
      const token = session.getToken();
      await until(() => log.statuses.length === 1 && clock.pendingTimers === 1, "the 429");
      assert.deepEqual(log.statuses, [429]);
      assert.deepEqual(session.status.value, { state: "loading" }, "still loading while retrying");
      const wait = clock.nextTimerAt()! - clock.now();
      assert.ok(wait >= 1000, `waits Retry-After (1 s) at least, waited ${wait} ms`);
      await clock.advance(wait - 1);
      assert.equal(log.requests.length, 1, "not before Retry-After");
      await new Promise((r) => setTimeout(r, 1100)); // the hub's real window passes
      await clock.advance(1);
      assert.match(await token, /^sv1\./);
      assert.deepEqual(log.statuses, [429, 200]);
      assert.equal(session.status.value.state, "ready");
    } finally {
      session.dispose();
    }
  });
});

Deno.test("client - network errors are retried with capped exponential backoff", async () => {
  await withServer(async (server) => {
    const key = await createKeyFixture(server.deps.kv);
    const clock = new ManualClock(Date.now());
    const { fetch, log } = browserFetch(key.origin, { failFirst: 2 });
    const session = browserSession(server, key, clock, fetch, { random: () => 0.5 });
    try {
      const token = session.getToken();
      await until(() => clock.pendingTimers === 1, "the first retry");
      assert.equal(clock.nextTimerAt()! - clock.now(), 250, "half of 500 ms (jitter 0.5)");
      await clock.advance(250);
      await until(() => log.requests.length === 2 && clock.pendingTimers === 1, "the second retry");
      assert.equal(clock.nextTimerAt()! - clock.now(), 500, "half of 1 s");
      await clock.advance(500);
      assert.match(await token, /^sv1\./);
      assert.equal(log.requests.length, 3);
    } finally {
      session.dispose();
    }
  });
});

Deno.test("client - after the last retry the error is shown, and a later getToken tries again", async () => {
  await withServer(async (server) => {
    const key = await createKeyFixture(server.deps.kv);
    const clock = new ManualClock(Date.now());
    const { fetch, log } = browserFetch(key.origin, { failFirst: 2 });
    const session = browserSession(server, key, clock, fetch, {
      retry: { maxAttempts: 2 },
      random: () => 0,
    });
    try {
      const first = session.getToken();
      await until(() => clock.pendingTimers === 1, "the retry");
      await clock.advance(0);
      await assert.rejects(
        first,
        (err: unknown) => err instanceof MintError && err.code === "network_error",
      );
      const status = session.status.value;
      assert.ok(status.state === "error" && status.code === "network_error");
      assert.match(await session.getToken(), /^sv1\./, "the next call mints again");
      assert.equal(log.requests.length, 3);
      assert.equal(session.status.value.state, "ready");
    } finally {
      session.dispose();
    }
  });
});

Deno.test("client - server flow: provided, never mints, and reports expiry to the partner", async () => {
  await withServer(async (server) => {
    const key = await createKeyFixture(server.deps.kv);
    const serverMint = async () => {
      const res = await mint(server.url, {
        projectId: key.project,
        origin: key.origin,
        ttlSeconds: 300,
      }, {
        authorization: `Bearer ${key.key}`,
      });
      assert.equal(res.status, 200);
      return (await res.json()).token as string;
    };
    const token = await serverMint();
    const clock = new ManualClock(Date.now());
    const expired: TokenExpiredDetail[] = [];
    const events: TokenExpiredDetail[] = [];
    const session = new SessionClient({
      sessionToken: token,
      clock,
      onTokenExpired: (detail) => expired.push(detail),
    });
    session.addEventListener("tokenexpired", (e) => events.push((e as CustomEvent).detail));
    try {
      assert.equal(session.flow, "server");
      assert.deepEqual(session.status.value, { state: "provided", token });
      assert.equal(await session.getToken(), token);
      assert.equal(session.tokenNow(), token, "the provided token, without a promise turn");
      await assert.rejects(session.refreshSessionToken(), TypeError);
      const exp = readTokenTimes(token).exp!;
      await clock.advance(exp * 1000 - clock.now() - 1000);
      assert.equal(expired.length, 0, "not before exp");
      await clock.advance(1000);
      assert.deepEqual(expired, [{ token, reason: "exp" }]);
      assert.deepEqual(events, expired, "the event carries the same detail");
      session.reportTokenExpired(token);
      assert.equal(expired.length, 1, "once per token");

      const next = await serverMint();
      session.setSessionToken(next);
      assert.deepEqual(session.status.value, { state: "provided", token: next });
      assert.equal(await session.getToken(), next);
      session.reportTokenExpired(next); // the render service said token_expired
      assert.deepEqual(expired[1], { token: next, reason: "token_expired" });
      assert.throws(() => session.setSessionToken("not a token"), TypeError);
    } finally {
      session.dispose();
    }
    assert.equal(clock.pendingTimers, 0);
  });
});

Deno.test("client - options are checked early", () => {
  assert.throws(() => new SessionClient({ keyId: "", projectKey: "p" }), TypeError);
  assert.throws(() => new SessionClient({ keyId: "k", projectKey: "" }), TypeError);
  assert.throws(() => new SessionClient({ sessionToken: "abc" }), TypeError);
  const browser = new SessionClient({ keyId: "k", projectKey: "p", mintOnCreate: false });
  assert.throws(() => browser.setSessionToken("sv1.a.b"), TypeError);
  browser.dispose();
});

Deno.test("session client - a custom mint path and extra body members (the hosted configurator)", async () => {
  const seen: Array<{ url: string; body: unknown }> = [];
  const fakeFetch = (input: RequestInfo | URL, init: RequestInit = {}) => {
    seen.push({ url: String(input), body: JSON.parse(String(init.body)) });
    const payload = btoa(JSON.stringify({ iat: 1000, exp: 1060 })).replaceAll("=", "");
    return Promise.resolve(
      Response.json({ token: `sv1.${payload}.sig`, expiresAt: 1060, mode: "publishable" }),
    );
  };
  const session = new SessionClient({
    keyId: "k1",
    projectKey: "vase",
    hubBaseUrl: "https://hub.example.com/",
    mintPath: "/configurator/vase/session-token",
    mintExtras: { parentOrigin: "https://shop.example.com", keyId: "ignored" },
    fetch: fakeFetch as typeof fetch,
    clock: new ManualClock(1_000_000),
    mintOnCreate: false,
  });
  try {
    await session.getToken();
    assert.deepEqual(seen, [{
      url: "https://hub.example.com/configurator/vase/session-token",
      body: { parentOrigin: "https://shop.example.com", keyId: "k1", projectId: "vase" },
    }]);
    assert.equal(session.status.value.state, "ready");
  } finally {
    session.dispose();
  }
});
