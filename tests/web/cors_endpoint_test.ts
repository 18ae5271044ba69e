/**
 * The CORS endpoint helper (lib/app/cors_endpoint.ts) through a framework app in memory: one test
 * route declares a policy and a handler whose behaviour the request picks (answer, refuse, crash),
 * and the tests read the preflights, the CORS headers on successes and problems, the hooks' calls,
 * the request log's problem code and the error log.
 */
import assert from "node:assert/strict";
import { corsEndpoint, isRealOrigin } from "@/lib/app/cors_endpoint.ts";
import type { AppEnv, Manifest, RouteContext } from "@/lib/app/context.ts";
import { AppError } from "@/lib/http/problem.ts";
import { Logger } from "@/lib/ops/logger.ts";
import { createWebApp } from "@/lib/web/app.ts";

const SHOP = "https://shop.example.com";
const EVIL = "https://evil.example";
const PATH = "/thing";

type Trace = { boundOrigin?: string };

/** The app around one CORS endpoint, and what its hooks and logs saw. */
function setup() {
  const seen = {
    preflightAsked: [] as string[],
    problemAsked: [] as Array<{ origin: string; trace: Trace; code: string }>,
    outcomes: [] as Array<{ outcome: string; trace: Trace }>,
    codes: [] as Array<string | undefined>,
    logs: [] as string[],
  };
  const log = new Logger("debug", (line) => seen.logs.push(line));
  const handler = corsEndpoint<Trace>({
    name: "thing",
    policy: {
      methods: ["POST"],
      allowHeaders: ["authorization", "content-type"],
      exposeHeaders: ["x-request-id", "retry-after"],
      maxAgeSeconds: 600,
    },
    allowPreflight(_ctx, origin) {
      seen.preflightAsked.push(origin);
      return origin === SHOP;
    },
    problemReadable(_ctx, origin, trace, problem) {
      seen.problemAsked.push({ origin, trace: { ...trace }, code: problem.code });
      return origin === trace.boundOrigin;
    },
    outcome(_ctx, trace, outcome) {
      seen.outcomes.push({ outcome, trace: { ...trace } });
    },
    handlers: {
      async POST(ctx: RouteContext, { origin, trace }) {
        const { action, bind } = await ctx.req.json();
        if (bind) trace.boundOrigin = bind;
        if (action === "refuse") {
          throw new AppError("rate_limited", "Slow down.", { headers: { "Retry-After": "7" } });
        }
        if (action === "crash") throw new Error("boom");
        const response = Response.json({ ok: true }, { headers: { "cache-control": "no-store" } });
        return { response, readable: origin === trace.boundOrigin };
      },
    },
  });
  const manifest: Manifest = {
    baseUrl: "",
    islands: {},
    routes: { "./routes/thing.ts": { handler } },
  };
  const app = createWebApp<AppEnv>(manifest, {
    role: "all",
    staticDir: "/nonexistent",
    init(c) {
      c.set("log", log);
    },
    observe(_c, outcome) {
      seen.codes.push(outcome.code);
    },
  });
  const post = (body: unknown, origin?: string) =>
    app.request(PATH, {
      method: "POST",
      headers: { "content-type": "application/json", ...(origin === undefined ? {} : { origin }) },
      body: JSON.stringify(body),
    });
  return { app, seen, post };
}

Deno.test("cors endpoint - real origins are neither absent, empty nor the opaque null", () => {
  const table: Array<[string | null, boolean]> = [
    [SHOP, true],
    ["http://localhost:3000", true],
    [null, false],
    ["", false],
    ["null", false],
  ];
  for (const [origin, real] of table) assert.equal(isRealOrigin(origin), real, String(origin));
});

Deno.test("cors endpoint - preflights: allow headers only for an allowed origin within the policy", async () => {
  const { app, seen } = setup();
  const table: Array<[string, Record<string, string>, boolean]> = [
    ["allowed origin, method and headers", {
      origin: SHOP,
      "access-control-request-method": "POST",
      "access-control-request-headers": "Content-Type, authorization",
    }, true],
    ["lowercase method", { origin: SHOP, "access-control-request-method": "post" }, true],
    ["origin the route refuses", { origin: EVIL, "access-control-request-method": "POST" }, false],
    ["method outside the policy", { origin: SHOP, "access-control-request-method": "PUT" }, false],
    ["header outside the policy", {
      origin: SHOP,
      "access-control-request-method": "POST",
      "access-control-request-headers": "x-secret",
    }, false],
    ["no Origin", { "access-control-request-method": "POST" }, false],
    ["the opaque null origin", { origin: "null", "access-control-request-method": "POST" }, false],
  ];
  for (const [name, headers, allowed] of table) {
    const res = await app.request(PATH, { method: "OPTIONS", headers });
    assert.equal(res.status, 204, name);
    assert.equal(
      res.headers.get("vary"),
      "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
      name,
    );
    assert.equal(res.headers.get("access-control-allow-origin"), allowed ? SHOP : null, name);
    assert.equal(
      res.headers.get("access-control-allow-methods"),
      allowed ? "POST" : null,
      name,
    );
    assert.equal(
      res.headers.get("access-control-allow-headers"),
      allowed ? "authorization, content-type" : null,
      name,
    );
    assert.equal(res.headers.get("access-control-max-age"), allowed ? "600" : null, name);
    assert.equal(await res.text(), "", name);
  }
  assert.deepEqual(
    seen.preflightAsked,
    [SHOP, SHOP, EVIL, SHOP, SHOP],
    "the route is asked about real origins only",
  );
});

Deno.test("cors endpoint - successes carry CORS headers when the route says readable", async () => {
  const { post, seen } = setup();
  const table: Array<[string, { bind?: string }, string | undefined, boolean]> = [
    ["readable by its bound origin", { bind: SHOP }, SHOP, true],
    ["not readable by another origin", { bind: SHOP }, EVIL, false],
    ["no Origin, nothing to echo", { bind: SHOP }, undefined, false],
    ["the null origin never reads", { bind: "null" }, "null", false],
  ];
  for (const [name, body, origin, readable] of table) {
    const res = await post({ action: "answer", ...body }, origin);
    assert.equal(res.status, 200, name);
    assert.deepEqual(await res.json(), { ok: true }, name);
    assert.equal(res.headers.get("vary"), "Origin", name);
    assert.equal(res.headers.get("cache-control"), "no-store", name);
    assert.equal(res.headers.get("access-control-allow-origin"), readable ? origin : null, name);
    assert.equal(
      res.headers.get("access-control-expose-headers"),
      readable ? "x-request-id, retry-after" : null,
      name,
    );
  }
  assert.deepEqual(seen.outcomes.map((o) => o.outcome), ["ok", "ok", "ok", "ok"]);
  assert.deepEqual(seen.outcomes[0].trace, { boundOrigin: SHOP }, "the hook sees the trace");
  assert.deepEqual(seen.codes, [undefined, undefined, undefined, undefined]);
  assert.deepEqual(seen.problemAsked, [], "a success does not ask who may read a problem");
});

Deno.test("cors endpoint - problems keep their headers, get CORS per the route, and are counted", async (t) => {
  const { post, seen } = setup();
  const table: Array<[string, { bind?: string }, string | undefined, boolean]> = [
    ["readable after the request proved its origin", { bind: SHOP }, SHOP, true],
    ["unreadable before it did", {}, SHOP, false],
    ["unreadable by another origin", { bind: SHOP }, EVIL, false],
    ["no Origin: the route is not asked", { bind: SHOP }, undefined, false],
  ];
  for (const [name, body, origin, readable] of table) {
    await t.step(name, async () => {
      const res = await post({ action: "refuse", ...body }, origin);
      assert.equal(res.status, 429);
      assert.equal(res.headers.get("content-type"), "application/problem+json");
      assert.equal(res.headers.get("retry-after"), "7");
      assert.equal(res.headers.get("vary"), "Origin");
      assert.equal(res.headers.get("access-control-allow-origin"), readable ? origin : null);
      const problem = await res.json();
      assert.equal(problem.code, "rate_limited");
      assert.equal(problem.detail, "Slow down.");
    });
  }
  assert.deepEqual(seen.problemAsked, [
    { origin: SHOP, trace: { boundOrigin: SHOP }, code: "rate_limited" },
    { origin: SHOP, trace: {}, code: "rate_limited" },
    { origin: EVIL, trace: { boundOrigin: SHOP }, code: "rate_limited" },
  ]);
  assert.deepEqual(seen.outcomes.map((o) => o.outcome), Array(4).fill("rate_limited"));
  assert.deepEqual(seen.codes, Array(4).fill("rate_limited"), "the request log's problem code");
  assert.ok(!seen.logs.some((l) => l.includes('"level":"error"')), "a refusal is not an error");
});

Deno.test("cors endpoint - an unexpected failure is an internal_error problem, logged once", async () => {
  const { post, seen } = setup();
  const res = await post({ action: "crash", bind: SHOP }, SHOP);
  assert.equal(res.status, 500);
  const problem = await res.json();
  assert.equal(problem.code, "internal_error");
  assert.ok(!JSON.stringify(problem).includes("boom"), "the cause stays in the log");
  assert.equal(res.headers.get("access-control-allow-origin"), SHOP);
  assert.deepEqual(seen.outcomes.map((o) => o.outcome), ["internal_error"]);
  assert.deepEqual(seen.codes, ["internal_error"]);
  const errors = seen.logs.filter((l) => l.includes('"level":"error"'));
  assert.equal(errors.length, 1, seen.logs.join("\n"));
  assert.match(errors[0], /"msg":"thing failed"/);
  assert.match(errors[0], /boom/);
});

Deno.test("cors endpoint - undeclared methods are the router's 405, with OPTIONS allowed", async () => {
  const { app, seen } = setup();
  const res = await app.request(PATH, { headers: { origin: SHOP } });
  assert.equal(res.status, 405);
  assert.equal(res.headers.get("allow"), "POST, OPTIONS");
  assert.equal((await res.json()).code, "method_not_allowed");
  assert.deepEqual(seen.outcomes, [], "the endpoint's hooks do not see other methods");
});
