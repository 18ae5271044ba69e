/**
 * The OpenAPI document against real answers, as a validating proxy would check them: every
 * documented operation, each of its documented statuses and each problem code it lists, with
 * python-mode projects among them, goes through tests/web/_openapi_contract.ts. The test fails when
 * an answer is not what the document says, when a documented status or code has no real answer
 * here, and when an API route of the manifest is not in the document.
 *
 * The answers come from a running server with its Redis. Failures of dependencies (a Redis or KV
 * outage, the evaluation pool refusing or losing a job) are produced by an app built on the same
 * dependencies with the one that fails replaced by one that fails the way it does.
 */
import assert from "node:assert/strict";
import type { Hono } from "hono";
import { AppError } from "@/lib/http/problem.ts";
import { generatePartnerKey } from "@/lib/hub/partner_key.ts";
import { readProjectDir } from "@/lib/hub/project_dir.ts";
import { createSdkKey, setRenderQuota } from "@/lib/hub/sdk_keys.ts";
import { publishProject } from "@/lib/hub/publish.ts";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { EvalError } from "@/lib/kernel/eval_errors.ts";
import type { SessionClaims } from "@/lib/token/claims.ts";
import { signToken } from "@/lib/token/sign.ts";
import { createApp } from "@/lib/app/app.ts";
import type { AppDeps, AppEnv, Method } from "@/lib/app/context.ts";
import { resolveManifest } from "@/lib/web/router.ts";
import { PYODIDE_VERSION } from "@/lib/sdk/python_assets.ts";
import manifest from "@/manifest.gen.ts";
import { cadparam, PROJECTS } from "../design/_python.ts";
import { finishedDag, publishFixture, readProjectFixture } from "../_helpers/projects.ts";
import { createKeyFixture, mint, startTestServer } from "../_helpers/server.ts";
import {
  assemblyOf,
  finish,
  type InlineProject,
  mintToken,
  RENDER,
  schemaWith,
  setupRender,
  tokenClaims,
} from "../render/render_helpers.ts";
import { setUpPartner } from "../settings/_setup.ts";
import { ContractChecker, type OpenApiDoc } from "./_openapi_contract.ts";

/** One real request: what it should be answered with, and how to send it. */
interface Case {
  name: string;
  /** The problem code, or the status of a non-problem answer. */
  expect: string | number;
  request: () => Request | Promise<Request>;
  /** An app with a failing dependency (default: the running server). */
  via?: Hono<AppEnv>;
}

/** A case written as [name, expect, request]. */
type Row = Case | [string, string | number, () => Request | Promise<Request>];

/** `obj` with method `name` replaced (class instances keep their private state). */
function replacing<T extends object>(obj: T, name: string, fn: unknown): T {
  return new Proxy(obj, {
    get(target, prop) {
      if (prop === name) return fn;
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A template that divides by a parameter that may be 0 (render_failed at evaluation). */
const DIVIDING: InlineProject = {
  template: assemblyOf({
    gap: { op: "ParameterInput", parameter: "gap", fallback: 1 },
    width: { op: "div", a: 10, b: { ref: "gap" } },
    slab: { op: "box", size: [{ ref: "width" }, 5, 1] },
  }, "slab"),
  schema: schemaWith({ gap: { kind: "Int", type: "integer", default: 1, minimum: 0, maximum: 9 } }),
};

/** A template that holds its parameter under 5 (the response reports `scene.effective`). */
const LIMITING: InlineProject = {
  template: assemblyOf({
    width: { op: "ParameterInput", parameter: "width", fallback: 4 },
    held: { op: "min", args: [{ ref: "width" }, 5] },
    slab: { op: "box", size: [{ ref: "held" }, 5, 1] },
  }, "slab"),
  schema: schemaWith({
    width: { kind: "Int", type: "integer", default: 4, minimum: 1, maximum: 9 },
  }),
};

const SHELF = new URL("shelf/", PROJECTS);

Deno.test("openapi - real answers of every documented operation, status and code match /openapi.json", async (t) => {
  const server = await startTestServer();
  try {
    const base = server.url;
    const kv = server.deps.kv;
    const hub = server.deps.hub!;
    const render = server.deps.render!;
    const docRes = await fetch(`${base}/openapi.json`);
    const doc: OpenApiDoc = await docRes.clone().json();
    const checker = new ContractChecker(doc);
    await checker.check(new Request(`${base}/openapi.json`), undefined, docRes);

    /** A request to the server; `json` is sent as application/json. */
    const req = (
      method: Method,
      path: string,
      init: { headers?: Record<string, string>; json?: unknown; body?: string } = {},
    ) => {
      const headers = new Headers(init.headers);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set("content-type", "application/json");
        body = JSON.stringify(init.json);
      }
      return new Request(`${base}${path}`, { method, headers, body });
    };
    const bearer = (token: string, origin: string) => ({
      authorization: `Bearer ${token}`,
      origin,
    });

    // Data: a template project, a python-mode one, an unpublished one, rate-limited keys, a
    // one-render budget, a project whose evaluation fails, a key with no render quota left, and
    // a settings partner whose key (and so its token) is revoked before the cases run.
    const plate = await setupRender(kv, base, { budget: 100 });
    const once = await setupRender(kv, base, { budget: 1 });
    const dividing = await setupRender(kv, base, { budget: 10 }, DIVIDING);
    const limiting = await setupRender(kv, base, { budget: 10 }, LIMITING);
    const noQuota = await setupRender(kv, base, { budget: 10 });
    await setRenderQuota(kv, noQuota.keyId, { day: 0 });
    // Written behind the key cache's back (the mint above cached the record): forget it, as the
    // settings edit route does, instead of waiting out the cache's 2 s bound.
    server.deps.hub!.keys.invalidate(noQuota.keyId);
    const oneMint = { rateLimit: { points: 1, durationSeconds: 60 } };
    const limited = await createKeyFixture(kv, oneMint);
    const limitedHosted = await createKeyFixture(kv, oneMint);
    await publishProject(kv, limitedHosted.project, await readProjectFixture("plate"));
    const unpublished = await createKeyFixture(kv);
    const unpublishedToken = await mintToken(base, unpublished);
    const python = await createKeyFixture(kv);
    await publishProject(kv, python.project, await readProjectDir(SHELF));
    const pythonToken = await mintToken(base, python);
    const shelfDag: Dag = JSON.parse(
      await cadparam(["run", new URL("design.py", SHELF).pathname, "--values", '{"boards":3}']),
    );
    const own = await setUpPartner(base, "Contract");
    const ownMint = await mint(base, { keyId: own.keyId, projectId: own.project }, {
      origin: own.origin,
    });
    assert.equal(ownMint.status, 200);
    const ownToken: string = (await ownMint.json()).token;
    const revoked = await own.client.post(`/settings/keys/${own.keyId}/revoke`, {});
    await revoked.body?.cancel();
    assert.equal(revoked.status, 303);

    // Two partners that both publish one slug (slugs are unique per partner only).
    const twin = `twin-${crypto.randomUUID().slice(0, 8)}`;
    await publishFixture(kv, plate.partnerId, twin);
    await publishFixture(kv, python.partnerId, twin);

    const signing = hub.keyring.signingKey();
    const now = Math.floor(Date.now() / 1000);
    const expiredToken = signToken({
      ...(tokenClaims(plate.token) as unknown as SessionClaims),
      iat: now - 3660,
      exp: now - 3600,
      kid: signing.kid,
    }, signing);
    const plateDag = await finishedDag("plate");
    const IDEM_KEY = crypto.randomUUID().replaceAll("-", "");
    const outOfRange = structuredClone(plateDag);
    const nodes = outOfRange.nodes as unknown as Record<string, Record<string, unknown>>;
    for (const node of Object.values(nodes)) {
      if (node.op === "ParameterInput" && node.parameter === "width") node.value = 1_000_000;
    }
    const stranger = await generatePartnerKey();
    const big = "x".repeat(300_000);

    // Apps on the server's dependencies with one of them failing.
    const unavailable = () =>
      Promise.reject(new AppError("service_unavailable", "Redis is unreachable."));
    const withDeps = (deps: Partial<AppDeps>) => createApp({ ...server.deps, ...deps }, manifest);
    const pool = (err: EvalError) =>
      withDeps({ render: replacing(render, "evaluate", () => Promise.reject(err)) });
    const exportPool = (err: EvalError) =>
      withDeps({ render: replacing(render, "exportFile", () => Promise.reject(err)) });
    const revocationsDown = withDeps({
      render: replacing(render, "revocations", { isRevoked: unavailable }),
    });
    const budgetsDown = withDeps({ hub: replacing(hub, "budgets", { open: unavailable }) });
    const kvDown = withDeps({
      kv: replacing(kv, "get", () => Promise.reject(new Error("KV is unreachable"))),
    });

    const configurator = (
      project: string,
      body: unknown,
      origin = base,
    ) => req("POST", `/configurator/${project}/session-token`, { headers: { origin }, json: body });
    const configuratorBody = (f: { keyId: string; project: string; origin: string }) => ({
      keyId: f.keyId,
      projectId: f.project,
      parentOrigin: f.origin,
    });

    const mintCases = (): Row[] => {
      const m = (body: unknown, headers: Record<string, string> = {}) =>
        req("POST", "/api/v1/sdk/session-tokens", { headers, json: body });
      const browser = { keyId: plate.keyId, projectId: plate.project };
      const origin = { origin: plate.origin };
      return [
        ["mint: browser flow", 200, () => m(browser, origin)],
        ["mint: server flow", 200, () =>
          m({ projectId: plate.project, origin: plate.origin }, {
            authorization: `Bearer ${plate.key}`,
          })],
        ["mint: bad JSON", "invalid_body", () =>
          req("POST", "/api/v1/sdk/session-tokens", {
            headers: { ...origin, "content-type": "application/json" },
            body: "{",
          })],
        ["mint: browser flow without Origin", "origin_required", () => m(browser)],
        ["mint: no credentials", "unauthenticated", () => m({ projectId: plate.project }, origin)],
        [
          "mint: a malformed secret key",
          "invalid_key_format",
          () =>
            m({ projectId: plate.project, origin: plate.origin }, {
              authorization: "Bearer sdk_not_a_key",
            }),
        ],
        [
          "mint: an unknown secret key",
          "invalid_credentials",
          () =>
            m({ projectId: plate.project, origin: plate.origin }, {
              authorization: `Bearer ${stranger.plaintext}`,
            }),
        ],
        [
          "mint: an unknown keyId",
          "unknown_key",
          () => m({ ...browser, keyId: stranger.keyId }, origin),
        ],
        [
          "mint: a revoked key",
          "key_revoked",
          () => m({ keyId: own.keyId, projectId: own.project }, { origin: own.origin }),
        ],
        [
          "mint: another origin",
          "origin_not_allowed",
          () => m(browser, { origin: "https://elsewhere.example" }),
        ],
        [
          "mint: another project",
          "project_not_allowed",
          () => m({ ...browser, projectId: python.project }, origin),
        ],
        ["mint: too large", "body_too_large", () => m({ ...browser, pad: big }, origin)],
        [
          "mint: not JSON",
          "unsupported_media_type",
          () => req("POST", "/api/v1/sdk/session-tokens", { headers: origin, body: "x" }),
        ],
        ["mint: an unknown member", "validation_failed", () => m({ ...browser, extra: 1 }, origin)],
        [
          "mint: body origin ≠ Origin",
          "origin_conflict",
          () => m({ ...browser, origin: "https://elsewhere.example" }, origin),
        ],
        [
          "mint: ttl too short",
          "ttl_out_of_bounds",
          () => m({ ...browser, ttlSeconds: 10 }, origin),
        ],
        [
          "mint: rate limited (the first of two)",
          200,
          () => m({ keyId: limited.keyId, projectId: limited.project }, { origin: limited.origin }),
        ],
        [
          "mint: rate limited",
          "rate_limited",
          () => m({ keyId: limited.keyId, projectId: limited.project }, { origin: limited.origin }),
        ],
        ["mint: preflight", 204, () =>
          req("OPTIONS", "/api/v1/sdk/session-tokens", {
            headers: { origin: plate.origin, "access-control-request-method": "POST" },
          })],
        {
          name: "mint: budgets unknown",
          expect: "service_unavailable",
          via: budgetsDown,
          request: () => m(browser, origin),
        },
      ];
    };
    const assetCases = (what: string, path: string): Row[] => {
      const dir = path.slice(0, path.lastIndexOf("/") + 1);
      return [
        [`${what}`, 200, () => req("GET", path)],
        [`${what}: not modified`, 304, async () => {
          const res = await fetch(`${base}${path}`);
          await res.body?.cancel();
          return req("GET", path, { headers: { "if-none-match": res.headers.get("etag")! } });
        }],
        [`${what}: unknown file`, "not_found", () => req("GET", `${dir}no-such-file`)],
      ];
    };

    const EXPORT = "/v1/kernels/manifold/export";
    const exporting = await setupRender(kv, base, {
      budget: 100,
      exportFormats: { browser: ["glb", "stl", "3mf"], server: ["glb", "stl", "3mf"] },
    });
    const exportNoQuota = await setupRender(kv, base, { budget: 10 });
    await setRenderQuota(kv, exportNoQuota.keyId, { day: 0 });
    server.deps.hub!.keys.invalidate(exportNoQuota.keyId);
    const exportOnce = await setupRender(kv, base, { budget: 1 });
    const signed = await fetch(`${base}/sdk/v1/configurations`, {
      method: "POST",
      headers: { ...bearer(exporting.token, exporting.origin), "content-type": "application/json" },
      body: JSON.stringify({ values: {} }),
    });
    assert.equal(signed.status, 200);
    const { configuration } = await signed.json();
    const glbOnly = await createKeyFixture(kv, {
      exportFormats: { browser: ["glb"], server: ["glb"] },
    });
    const glbOnlySameProject = await createSdkKey(kv, {
      partnerId: exporting.partnerId,
      label: "glb only",
      allowedOrigins: [exporting.origin],
      allowedProjects: [exporting.project],
      exportFormats: { browser: ["glb"], server: ["glb"] },
    });
    const AR_TICKET = "/v1/kernels/manifold/ar-ticket";
    const arOnce = await setupRender(kv, base, { budget: 1 });
    const arNoGlb = await setupRender(kv, base, {
      exportFormats: { browser: ["stl"], server: ["glb"] },
    });
    const arTicketCases = async (): Promise<Row[]> => {
      const ticket = (headers: Record<string, string>, json: unknown = { dag: plateDag }) =>
        req("POST", AR_TICKET, { headers, json });
      const issued = await fetch(ticket(bearer(plate.token, plate.origin)));
      assert.equal(issued.status, 200, await issued.clone().text());
      const { url } = await issued.json();
      const model = new URL(url).pathname;
      return [
        ["ar ticket: issued", 200, () => ticket(bearer(arOnce.token, arOnce.origin))],
        [
          "ar ticket: budget spent",
          "budget_exhausted",
          () => ticket(bearer(arOnce.token, arOnce.origin)),
        ],
        ["ar ticket: bad JSON", "invalid_body", () =>
          req("POST", AR_TICKET, {
            headers: { ...bearer(plate.token, plate.origin), "content-type": "application/json" },
            body: "{",
          })],
        ["ar ticket: not JSON", "unsupported_media_type", () =>
          req("POST", AR_TICKET, {
            headers: { ...bearer(plate.token, plate.origin), "content-type": "text/plain" },
            body: "{}",
          })],
        [
          "ar ticket: too large",
          "body_too_large",
          () => ticket(bearer(plate.token, plate.origin), { dag: plateDag, pad: big }),
        ],
        ["ar ticket: no token", "invalid_token", () => ticket({ origin: plate.origin })],
        [
          "ar ticket: an expired token",
          "token_expired",
          () => ticket(bearer(expiredToken, plate.origin)),
        ],
        [
          "ar ticket: a revoked key's token",
          "token_revoked",
          () => ticket(bearer(ownToken, own.origin)),
        ],
        [
          "ar ticket: another origin",
          "origin_mismatch",
          () => ticket(bearer(plate.token, "https://elsewhere.example")),
        ],
        [
          "ar ticket: another kernel",
          "unknown_kernel",
          () =>
            req("POST", "/v1/kernels/cgal/ar-ticket", {
              headers: bearer(plate.token, plate.origin),
              json: { dag: plateDag },
            }),
        ],
        [
          "ar ticket: a key that keeps GLB from tokens",
          "export_format_not_allowed",
          () => ticket(bearer(arNoGlb.token, arNoGlb.origin)),
        ],
        [
          "ar ticket: not a render body",
          "validation_failed",
          () => ticket(bearer(plate.token, plate.origin), { dag: plateDag, extra: 1 }),
        ],
        [
          "ar ticket: not the template",
          "invalid_dag",
          () => ticket(bearer(plate.token, plate.origin), { dag: shelfDag }),
        ],
        [
          "ar ticket: a spent quota",
          "quota_exceeded",
          () => ticket(bearer(exportNoQuota.token, exportNoQuota.origin)),
        ],
        ...([
          ["a crashed worker", new EvalError("internal_error", "worker_crashed", "crashed")],
          [
            "past the deadline",
            new EvalError("render_timeout", "deadline", "late", { retryAfter: 1 }),
          ],
          ["not admitted", new EvalError("kernel_busy", "queue_full", "busy", { retryAfter: 2 })],
        ] as const).map(([what, err], i): Case => ({
          name: `ar ticket: ${what}`,
          expect: err.code,
          via: exportPool(err),
          request: async () =>
            ticket(bearer(plate.token, plate.origin), {
              dag: await finishedDag("plate", { width: 150 + i }),
            }),
        })),
        {
          name: "ar ticket: revocations unknown",
          expect: "service_unavailable",
          via: revocationsDown,
          request: () => ticket(bearer(plate.token, plate.origin)),
        },
        ["ar ticket: preflight", 204, () =>
          req("OPTIONS", AR_TICKET, {
            headers: {
              origin: plate.origin,
              "access-control-request-method": "POST",
              "access-control-request-headers": "authorization, content-type",
            },
          })],
        ["ar model: no token, no Origin", 200, () => req("GET", model)],
        [
          "ar model: unknown ticket",
          "ar_ticket_unknown",
          () => req("GET", "/v1/kernels/manifold/ar/AAAAAAAAAAAAAAAAAAAAAA.glb"),
        ],
        [
          "ar model: another kernel",
          "unknown_kernel",
          () => req("GET", model.replace("/manifold/", "/cgal/")),
        ],
      ];
    };
    const exportCases = (): Row[] => {
      const ex = (format: string, headers: Record<string, string>, json: unknown = {
        dag: plateDag,
      }) => req("POST", `${EXPORT}?format=${format}`, { headers, json });
      const handOff = (key: string | null, json: unknown) =>
        req("POST", "/api/v1/production-files", {
          headers: key === null ? {} : { authorization: `Bearer ${key}` },
          json,
        });
      return [
        ...(["glb", "stl", "3mf"] as const).map((format): Row => [
          `export: ${format}`,
          200,
          () => ex(format, bearer(exporting.token, exporting.origin)),
        ]),
        ["export: bad JSON", "invalid_body", () =>
          req("POST", `${EXPORT}?format=glb`, {
            headers: { ...bearer(plate.token, plate.origin), "content-type": "application/json" },
            body: "{",
          })],
        ["export: not JSON", "unsupported_media_type", () =>
          req("POST", `${EXPORT}?format=glb`, {
            headers: { ...bearer(plate.token, plate.origin), "content-type": "text/plain" },
            body: "{}",
          })],
        [
          "export: too large",
          "body_too_large",
          () => ex("glb", bearer(plate.token, plate.origin), { dag: plateDag, pad: big }),
        ],
        ["export: no token", "invalid_token", () => ex("glb", { origin: plate.origin })],
        [
          "export: an expired token",
          "token_expired",
          () => ex("glb", bearer(expiredToken, plate.origin)),
        ],
        [
          "export: a revoked key's token",
          "token_revoked",
          () => ex("glb", bearer(ownToken, own.origin)),
        ],
        [
          "export: another origin",
          "origin_mismatch",
          () => ex("glb", bearer(plate.token, "https://elsewhere.example")),
        ],
        [
          "export: another kernel",
          "unknown_kernel",
          () =>
            req("POST", "/v1/kernels/cgal/export?format=glb", {
              headers: bearer(plate.token, plate.origin),
              json: { dag: plateDag },
            }),
        ],
        [
          "export: an unknown format",
          "unknown_export_format",
          () => ex("obj", bearer(plate.token, plate.origin)),
        ],
        [
          "export: a format the key keeps from tokens",
          "export_format_not_allowed",
          () => ex("3mf", bearer(plate.token, plate.origin)),
        ],
        [
          "export: not a render body",
          "validation_failed",
          () => ex("glb", bearer(plate.token, plate.origin), { dag: plateDag, extra: 1 }),
        ],
        [
          "export: not the template",
          "invalid_dag",
          () => ex("glb", bearer(plate.token, plate.origin), { dag: shelfDag }),
        ],
        [
          "export: the budget's one unit",
          200,
          () => ex("glb", bearer(exportOnce.token, exportOnce.origin)),
        ],
        [
          "export: budget spent",
          "budget_exhausted",
          () => ex("glb", bearer(exportOnce.token, exportOnce.origin)),
        ],
        [
          "export: a spent quota",
          "quota_exceeded",
          () => ex("glb", bearer(exportNoQuota.token, exportNoQuota.origin)),
        ],
        ...([
          ["a crashed worker", new EvalError("internal_error", "worker_crashed", "crashed")],
          [
            "past the deadline",
            new EvalError("render_timeout", "deadline", "late", {
              retryAfter: 1,
            }),
          ],
          ["not admitted", new EvalError("kernel_busy", "queue_full", "busy", { retryAfter: 2 })],
        ] as const).map(([what, err], i): Case => ({
          name: `export: ${what}`,
          expect: err.code,
          via: exportPool(err),
          request: async () =>
            ex("glb", bearer(plate.token, plate.origin), {
              dag: await finishedDag("plate", { width: 140 + i }),
            }),
        })),
        {
          name: "export: revocations unknown",
          expect: "service_unavailable",
          via: revocationsDown,
          request: () => ex("glb", bearer(plate.token, plate.origin)),
        },
        ["export: preflight", 204, () =>
          req("OPTIONS", `${EXPORT}?format=glb`, {
            headers: {
              origin: plate.origin,
              "access-control-request-method": "POST",
              "access-control-request-headers": "authorization, content-type",
            },
          })],
        ...(["glb", "stl", "3mf"] as const).map((format): Row => [
          `production file: ${format}`,
          200,
          () => handOff(exporting.key, { configuration, format }),
        ]),
        [
          "production file: bad JSON",
          "invalid_body",
          () =>
            req("POST", "/api/v1/production-files", {
              headers: {
                authorization: `Bearer ${exporting.key}`,
                "content-type": "application/json",
              },
              body: "{",
            }),
        ],
        [
          "production file: not JSON",
          "unsupported_media_type",
          () =>
            req("POST", "/api/v1/production-files", {
              headers: { authorization: `Bearer ${exporting.key}`, "content-type": "text/plain" },
              body: "{}",
            }),
        ],
        [
          "production file: no key",
          "unauthenticated",
          () => handOff(null, { configuration, format: "3mf" }),
        ],
        [
          "production file: a malformed key",
          "invalid_key_format",
          () => handOff("sdk_x_y", { configuration, format: "3mf" }),
        ],
        [
          "production file: an unknown key",
          "invalid_credentials",
          () => handOff(stranger.plaintext, { configuration, format: "3mf" }),
        ],
        [
          "production file: a revoked key",
          "key_revoked",
          () => handOff(own.key, { configuration, format: "3mf" }),
        ],
        [
          "production file: a bad body",
          "validation_failed",
          () => handOff(exporting.key, { configuration, format: "obj" }),
        ],
        [
          "production file: a forged configuration",
          "invalid_configuration",
          () => handOff(exporting.key, { configuration: "a.b.c", format: "3mf" }),
        ],
        [
          "production file: another partner's key",
          "configuration_not_owned",
          () => handOff(glbOnly.key, { configuration, format: "glb" }),
        ],
        [
          "production file: a format the key keeps from its secret",
          "export_format_not_allowed",
          () => handOff(glbOnlySameProject.key, { configuration, format: "3mf" }),
        ],
      ];
    };

    const rows: Row[] = [
      // Render (a fresh width per evaluation that must miss the caches).
      [
        "render: a template project",
        200,
        () =>
          req("POST", RENDER, {
            headers: bearer(plate.token, plate.origin),
            json: { dag: plateDag },
          }),
      ],
      ["render: a parameter the template limits (scene.effective)", 200, () =>
        req("POST", RENDER, {
          headers: bearer(limiting.token, limiting.origin),
          json: { dag: finish(LIMITING, { width: 9 }) },
        })],
      ["render: a python-mode project", 200, () =>
        req("POST", RENDER, {
          headers: bearer(pythonToken, python.origin),
          json: { dag: shelfDag },
        })],
      ["render: bad JSON", "invalid_body", () =>
        req("POST", RENDER, {
          headers: { ...bearer(plate.token, plate.origin), "content-type": "application/json" },
          body: "{",
        })],
      [
        "render: no token",
        "invalid_token",
        () => req("POST", RENDER, { headers: { origin: plate.origin }, json: { dag: plateDag } }),
      ],
      ["render: an expired token", "token_expired", () =>
        req("POST", RENDER, {
          headers: bearer(expiredToken, plate.origin),
          json: { dag: plateDag },
        })],
      [
        "render: a revoked key's token",
        "token_revoked",
        () =>
          req("POST", RENDER, { headers: bearer(ownToken, own.origin), json: { dag: plateDag } }),
      ],
      ["render: another origin", "origin_mismatch", () =>
        req("POST", RENDER, {
          headers: bearer(plate.token, "https://elsewhere.example"),
          json: { dag: plateDag },
        })],
      ["render: another kernel", "unknown_kernel", () =>
        req("POST", "/v1/kernels/cgal/render", {
          headers: bearer(plate.token, plate.origin),
          json: { dag: plateDag },
        })],
      ["render: an unpublished project", "unknown_project_version", () =>
        req("POST", RENDER, {
          headers: bearer(unpublishedToken, unpublished.origin),
          json: { dag: plateDag },
        })],
      ["render: too large", "body_too_large", () =>
        req("POST", RENDER, {
          headers: bearer(plate.token, plate.origin),
          json: { dag: plateDag, pad: big },
        })],
      [
        "render: not JSON",
        "unsupported_media_type",
        () => req("POST", RENDER, { headers: bearer(plate.token, plate.origin), body: "x" }),
      ],
      [
        "render: not a render body",
        "validation_failed",
        () => req("POST", RENDER, { headers: bearer(plate.token, plate.origin), json: { dag: 1 } }),
      ],
      ["render: not an instance of the template", "invalid_dag", () =>
        req("POST", RENDER, {
          headers: bearer(plate.token, plate.origin),
          json: { dag: { dag: 1, nodes: {}, output: "x" } },
        })],
      ["render: a python-mode DAG with a slot", "invalid_dag", () => {
        const dag = structuredClone(shelfDag);
        (dag.nodes as Record<string, unknown>).slot = {
          op: "ParameterInput",
          parameter: "boards",
          fallback: 4,
        };
        return req("POST", RENDER, { headers: bearer(pythonToken, python.origin), json: { dag } });
      }],
      ["render: a value out of range", "invalid_parameters", () =>
        req("POST", RENDER, {
          headers: bearer(plate.token, plate.origin),
          json: { dag: outOfRange },
        })],
      ["render: a division by zero", "render_failed", () =>
        req("POST", RENDER, {
          headers: bearer(dividing.token, dividing.origin),
          json: { dag: finish(DIVIDING, { gap: 0 }) },
        })],
      [
        "render: a spent budget (the first of two)",
        200,
        () =>
          req("POST", RENDER, {
            headers: bearer(once.token, once.origin),
            json: { dag: plateDag },
          }),
      ],
      [
        "render: a spent budget",
        "budget_exhausted",
        () =>
          req("POST", RENDER, {
            headers: bearer(once.token, once.origin),
            json: { dag: plateDag },
          }),
      ],
      ["render: a malformed Idempotency-Key", "invalid_idempotency_key", () =>
        req("POST", RENDER, {
          headers: { ...bearer(plate.token, plate.origin), "idempotency-key": "short" },
          json: { dag: plateDag },
        })],
      [
        "render: an Idempotency-Key's first render",
        200,
        () =>
          req("POST", RENDER, {
            headers: { ...bearer(plate.token, plate.origin), "idempotency-key": IDEM_KEY },
            json: { dag: plateDag },
          }),
      ],
      [
        "render: the Idempotency-Key again, with another DAG",
        "idempotency_key_reused",
        async () =>
          req("POST", RENDER, {
            headers: { ...bearer(plate.token, plate.origin), "idempotency-key": IDEM_KEY },
            json: { dag: await finishedDag("plate", { width: 71 }) },
          }),
      ],
      ["render: a spent quota", "quota_exceeded", () =>
        req("POST", RENDER, {
          headers: bearer(noQuota.token, noQuota.origin),
          json: { dag: plateDag },
        })],
      ...([
        ["a crashed worker", new EvalError("internal_error", "worker_crashed", "crashed")],
        [
          "past the deadline",
          new EvalError("render_timeout", "deadline", "late", { retryAfter: 1 }),
        ],
        ["not admitted", new EvalError("kernel_busy", "queue_full", "busy", { retryAfter: 2 })],
      ] as const).map(([what, err], i): Case => ({
        name: `render: ${what}`,
        expect: err.code,
        via: pool(err),
        request: async () =>
          req("POST", RENDER, {
            headers: bearer(plate.token, plate.origin),
            json: { dag: await finishedDag("plate", { width: 100 + i }) },
          }),
      })),
      {
        name: "render: revocations unknown",
        expect: "service_unavailable",
        via: revocationsDown,
        request: () =>
          req("POST", RENDER, {
            headers: bearer(plate.token, plate.origin),
            json: { dag: plateDag },
          }),
      },
      ["render: preflight", 204, () =>
        req("OPTIONS", RENDER, {
          headers: {
            origin: plate.origin,
            "access-control-request-method": "POST",
            "access-control-request-headers": "authorization, content-type",
          },
        })],

      // Exports (docs/exports.md) and the order hand-off.
      ...exportCases(),

      // AR tickets (docs/security.md).
      ...(await arTicketCases()),

      // Projects.
      ["project: template mode", 200, () => req("GET", `/api/v1/projects/${plate.project}`)],
      ["project: python mode", 200, () => req("GET", `/api/v1/projects/${python.project}`)],
      [
        "project: a named version",
        200,
        () => req("GET", `/api/v1/projects/${plate.project}?version=1`),
      ],
      ["project: not modified", 304, async () => {
        const res = await fetch(`${base}/api/v1/projects/${plate.project}`);
        await res.body?.cancel();
        return req("GET", `/api/v1/projects/${plate.project}`, {
          headers: { "if-none-match": res.headers.get("etag")! },
        });
      }],
      [
        "project: unknown",
        "unknown_project_version",
        () => req("GET", "/api/v1/projects/no-such-project"),
      ],
      [
        "project: named by its key",
        200,
        () => req("GET", `/api/v1/projects/${twin}?key=${plate.keyId}`),
      ],
      [
        "project: named by its partner",
        200,
        () => req("GET", `/api/v1/projects/${twin}?partner=${python.partnerId}&version=1`),
      ],
      [
        "project: a slug two partners publish, no partner named",
        "project_ambiguous",
        () => req("GET", `/api/v1/projects/${twin}`),
      ],
      [
        "project: an unknown key",
        "unknown_key",
        () => req("GET", `/api/v1/projects/${twin}?key=k${"a".repeat(20)}`),
      ],
      [
        "project: a revoked key",
        "key_revoked",
        () => req("GET", `/api/v1/projects/${own.project}?key=${own.keyId}`),
      ],
      [
        "project: a bad version",
        "validation_failed",
        () => req("GET", `/api/v1/projects/${plate.project}?version=zero`),
      ],

      // Kernel feeds (docs/api.md).
      ...kernelFeedCases(plate, base, req),

      // Mint.
      ...mintCases(),

      // The hosted configurator's mint.
      ["configurator mint", 200, () => configurator(plate.project, configuratorBody(plate))],
      [
        "configurator mint: bad JSON",
        "invalid_body",
        () =>
          req("POST", `/configurator/${plate.project}/session-token`, {
            headers: { origin: base, "content-type": "application/json" },
            body: "{",
          }),
      ],
      [
        "configurator mint: not JSON",
        "unsupported_media_type",
        () =>
          req("POST", `/configurator/${plate.project}/session-token`, {
            headers: { origin: base },
            body: "x",
          }),
      ],
      [
        "configurator mint: too large",
        "body_too_large",
        () => configurator(plate.project, { ...configuratorBody(plate), pad: big }),
      ],
      [
        "configurator mint: unknown key",
        "unknown_key",
        () =>
          configurator(plate.project, { ...configuratorBody(plate), keyId: `k${"a".repeat(25)}` }),
      ],
      [
        "configurator mint: revoked key",
        "key_revoked",
        () => configurator(own.project, configuratorBody(own)),
      ],
      [
        "configurator mint: not a hub page",
        "origin_not_allowed",
        () => configurator(plate.project, configuratorBody(plate), plate.origin),
      ],
      [
        "configurator mint: a project the key may not show",
        "project_not_allowed",
        () =>
          configurator(python.project, { ...configuratorBody(plate), projectId: python.project }),
      ],
      [
        "configurator mint: projectId is not the path's",
        "validation_failed",
        () =>
          configurator(plate.project, { ...configuratorBody(plate), projectId: python.project }),
      ],
      [
        "configurator mint: rate limited (the first of two)",
        200,
        () => configurator(limitedHosted.project, configuratorBody(limitedHosted)),
      ],
      [
        "configurator mint: rate limited",
        "rate_limited",
        () => configurator(limitedHosted.project, configuratorBody(limitedHosted)),
      ],
      {
        name: "configurator mint: budgets unknown",
        expect: "service_unavailable",
        via: budgetsDown,
        request: () => configurator(plate.project, configuratorBody(plate)),
      },

      // Signed configurations.
      ["sign a configuration", 200, () =>
        req("POST", "/sdk/v1/configurations", {
          headers: bearer(plate.token, plate.origin),
          json: { values: { width: 90 } },
        })],
      ["sign: bad JSON", "invalid_body", () =>
        req("POST", "/sdk/v1/configurations", {
          headers: { ...bearer(plate.token, plate.origin), "content-type": "application/json" },
          body: "{",
        })],
      ["sign: not JSON", "unsupported_media_type", () =>
        req("POST", "/sdk/v1/configurations", {
          headers: bearer(plate.token, plate.origin),
          body: "x",
        })],
      ["sign: too large", "body_too_large", () =>
        req("POST", "/sdk/v1/configurations", {
          headers: bearer(plate.token, plate.origin),
          json: { values: {}, pad: big },
        })],
      ["sign: no token", "invalid_token", () =>
        req("POST", "/sdk/v1/configurations", {
          headers: { origin: plate.origin },
          json: { values: {} },
        })],
      ["sign: an expired token", "token_expired", () =>
        req("POST", "/sdk/v1/configurations", {
          headers: bearer(expiredToken, plate.origin),
          json: { values: {} },
        })],
      ["sign: a revoked key's token", "token_revoked", () =>
        req("POST", "/sdk/v1/configurations", {
          headers: bearer(ownToken, own.origin),
          json: { values: {} },
        })],
      ["sign: another origin", "origin_mismatch", () =>
        req("POST", "/sdk/v1/configurations", {
          headers: bearer(plate.token, "https://elsewhere.example"),
          json: { values: {} },
        })],
      [
        "sign: an unpublished version",
        "unknown_project_version",
        () =>
          req("POST", "/sdk/v1/configurations", {
            headers: bearer(plate.token, plate.origin),
            json: { values: {}, version: 99 },
          }),
      ],
      [
        "sign: not a configuration body",
        "validation_failed",
        () =>
          req("POST", "/sdk/v1/configurations", {
            headers: bearer(plate.token, plate.origin),
            json: { values: 1 },
          }),
      ],
      [
        "sign: a value out of range",
        "invalid_parameters",
        () =>
          req("POST", "/sdk/v1/configurations", {
            headers: bearer(plate.token, plate.origin),
            json: { values: { width: 1_000_000 } },
          }),
      ],
      ["sign: a python-mode project", "invalid_dag", () =>
        req("POST", "/sdk/v1/configurations", {
          headers: bearer(pythonToken, python.origin),
          json: { values: {} },
        })],
      {
        name: "sign: revocations unknown",
        expect: "service_unavailable",
        via: revocationsDown,
        request: () =>
          req("POST", "/sdk/v1/configurations", {
            headers: bearer(plate.token, plate.origin),
            json: { values: {} },
          }),
      },
      ["sign: preflight", 204, () =>
        req("OPTIONS", "/sdk/v1/configurations", {
          headers: { origin: plate.origin, "access-control-request-method": "POST" },
        })],
      ["verify: valid", 200, async () => {
        const signed = await fetch(`${base}/sdk/v1/configurations`, {
          method: "POST",
          headers: { ...bearer(plate.token, plate.origin), "content-type": "application/json" },
          body: JSON.stringify({ values: {} }),
        });
        const { configuration } = await signed.json();
        return req("POST", "/sdk/v1/configurations/verify", { json: { configuration } });
      }],
      [
        "verify: not valid",
        200,
        () => req("POST", "/sdk/v1/configurations/verify", { json: { configuration: "a.b.c" } }),
      ],
      ["verify: bad JSON", "invalid_body", () =>
        req("POST", "/sdk/v1/configurations/verify", {
          headers: { "content-type": "application/json" },
          body: "{",
        })],
      [
        "verify: not JSON",
        "unsupported_media_type",
        () => req("POST", "/sdk/v1/configurations/verify", { body: "x" }),
      ],
      [
        "verify: too large",
        "body_too_large",
        () => req("POST", "/sdk/v1/configurations/verify", { json: { configuration: big } }),
      ],
      [
        "verify: no configuration",
        "validation_failed",
        () => req("POST", "/sdk/v1/configurations/verify", { json: {} }),
      ],

      // Keys, problem types, this document, operations.
      ["jwks", 200, () => req("GET", "/.well-known/jwks.json")],
      ["problem type", 200, () => req("GET", "/problems/not_found")],
      ["problem type: unknown", "not_found", () => req("GET", "/problems/no_such_code")],
      ["healthz", 200, () => req("GET", "/healthz")],
      ["readyz", 200, () => req("GET", "/readyz")],
      { name: "readyz: KV down", expect: 503, via: kvDown, request: () => req("GET", "/readyz") },
      ["metrics", 200, () => req("GET", "/metrics")],

      // SDK files.
      ["embed.js", 200, () => req("GET", "/sdk/v1/embed.js")],
      ["embed.js: preflight", 204, () => req("OPTIONS", "/sdk/v1/embed.js")],
      ["preact.js", 200, () => req("GET", "/sdk/v1/preact.js")],
      ["preact.js: preflight", 204, () => req("OPTIONS", "/sdk/v1/preact.js")],
      ["declarations named by X-TypeScript-Types", 200, async () => {
        const mod = await fetch(`${base}/sdk/v1/embed.js`);
        await mod.body?.cancel();
        return req("GET", new URL(mod.headers.get("x-typescript-types")!).pathname);
      }],
      [
        "declarations of another build",
        "not_found",
        () => req("GET", "/sdk/v1/types/0123456789abcdef/embed.d.ts"),
      ],
      ...assetCases("pyodide", `/sdk/v1/pyodide/${PYODIDE_VERSION}/pyodide.mjs`),
      ...assetCases("python runtime", "/sdk/v1/python/cadparam.json"),
    ];
    const cases: Case[] = rows.map((c) =>
      Array.isArray(c) ? { name: c[0], expect: c[1], request: c[2] } : c
    );

    for (const c of cases) {
      await t.step(c.name, async () => {
        const request = await c.request();
        const body = request.body ? await request.clone().text() : undefined;
        const res = await (c.via ? c.via.fetch(request) : fetch(request));
        const got = await checker.check(request, body, res);
        assert.equal(got.code ?? got.status, c.expect, JSON.stringify(got.body)?.slice(0, 300));
      });
    }

    await t.step("every documented status and problem code was answered for real", () => {
      assert.deepEqual(checker.uncovered(), []);
    });

    await t.step("every API route of the manifest is documented, each of its methods", async () => {
      const documented = new Set(checker.operations());
      const missing: string[] = [];
      let apiRoutes = 0;
      for (const route of resolveManifest(manifest, "all").routes) {
        // The settings UI (HTML forms and redirects, docs/settings.md) and pages are not the API.
        if (/^\/(settings|auth)(\/|$)/.test(route.pattern) || route.module.default) continue;
        const handlers = route.module.handler ?? {};
        if (handlers.GET) {
          const path = route.pattern.replace(/:[A-Za-z_]+(\{\.\+\})?/g, plate.project);
          const res = await fetch(`${base}${path}?key=${plate.keyId}`);
          await res.body?.cancel();
          if ((res.headers.get("content-type") ?? "").startsWith("text/html")) continue;
        }
        apiRoutes++;
        // A catch-all (`:path{.+}`) is one OpenAPI parameter.
        const template = route.pattern.replace(/:([A-Za-z_][A-Za-z0-9_]*)(\{\.\+\})?/g, "{$1}");
        for (const method of Object.keys(handlers)) {
          if (method !== "HEAD" && !documented.has(`${method} ${template}`)) {
            missing.push(`${method} ${template}`);
          }
        }
      }
      assert.ok(apiRoutes >= 15, `${apiRoutes} API routes`);
      assert.deepEqual(missing, []);
    });
  } finally {
    await server.close();
  }
});

/** The hub's feeds for kernel nodes: versions, the revocation log, key render quotas. */
function kernelFeedCases(
  plate: { partnerId: string; project: string; keyId: string },
  base: string,
  req: (method: Method, path: string, init?: { headers?: Record<string, string> }) => Request,
): Row[] {
  const versions = `/api/v1/partners/${plate.partnerId}/projects/${plate.project}/versions`;
  return [
    ["kernel feed: a numbered version", 200, () => req("GET", `${versions}/1`)],
    ["kernel feed: current, not modified", 304, async () => {
      const res = await fetch(`${base}${versions}/current`);
      await res.body?.cancel();
      return req("GET", `${versions}/current`, {
        headers: { "if-none-match": res.headers.get("etag")! },
      });
    }],
    [
      "kernel feed: an unknown version",
      "unknown_project_version",
      () => req("GET", `${versions}/99`),
    ],
    ["kernel feed: a bad version", "validation_failed", () => req("GET", `${versions}/latest`)],
    ["kernel feed: revocations", 200, () => req("GET", "/api/v1/revocations?after=0")],
    [
      "kernel feed: revocations, bad after",
      "validation_failed",
      () => req("GET", "/api/v1/revocations?after=-1"),
    ],
    [
      "kernel feed: render quota",
      200,
      () => req("GET", `/api/v1/keys/${plate.keyId}/render-quota`),
    ],
    [
      "kernel feed: render quota, unknown key",
      "not_found",
      () => req("GET", "/api/v1/keys/nosuchkey123/render-quota"),
    ],
  ];
}
