import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { createKeyFixture, mint, startTestServer } from "../_helpers/server.ts";
import { finishedDag } from "../_helpers/projects.ts";
import { render, setupRender } from "../kernel/render_helpers.ts";

type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>
  >;
};

Deno.test("openapi - responses of a running server validate against /openapi.json", async (t) => {
  const server = await startTestServer();
  try {
    const doc: Doc = await (await fetch(`${server.url}/openapi.json`)).json();
    assert.equal(doc.openapi, "3.1.0");
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema(doc, "openapi.json");

    const check = async (path: string, method: string, res: Response) => {
      const op = doc.paths[path]?.[method];
      assert.ok(op, `${method} ${path} is documented`);
      const response = op.responses[String(res.status)];
      assert.ok(response, `${method} ${path} ${res.status} is documented`);
      const type = (res.headers.get("content-type") ?? "").split(";")[0];
      const media = response.content?.[type] as { schema: unknown } | undefined;
      assert.ok(media, `${method} ${path} ${res.status} ${type} is documented`);
      const pointer = `/paths/${
        path.replaceAll("~", "~0").replaceAll("/", "~1")
      }/${method}/responses/${res.status}/content/${type.replaceAll("/", "~1")}/schema`;
      const validate = ajv.getSchema(`openapi.json#${pointer}`);
      assert.ok(validate, pointer);
      const body = await res.json();
      assert.ok(
        validate(body),
        `${method} ${path} ${res.status}: ${ajv.errorsText(validate.errors)}`,
      );
    };

    const f = await createKeyFixture(server.deps.kv);
    const cases: Array<[string, string, string, () => Promise<Response>]> = [
      [
        "mint 200 browser",
        "/api/v1/sdk/session-tokens",
        "post",
        () => mint(server.url, { keyId: f.keyId, projectId: f.project }, { origin: f.origin }),
      ],
      [
        "mint 200 server",
        "/api/v1/sdk/session-tokens",
        "post",
        () =>
          mint(server.url, { projectId: f.project, origin: f.origin }, {
            authorization: `Bearer ${f.key}`,
          }),
      ],
      [
        "mint 400",
        "/api/v1/sdk/session-tokens",
        "post",
        () => mint(server.url, { keyId: f.keyId, projectId: "x" }),
      ],
      ["mint 401", "/api/v1/sdk/session-tokens", "post", () => mint(server.url, {})],
      [
        "mint 403",
        "/api/v1/sdk/session-tokens",
        "post",
        () => mint(server.url, { keyId: f.keyId, projectId: "nope" }, { origin: f.origin }),
      ],
      [
        "mint 413",
        "/api/v1/sdk/session-tokens",
        "post",
        () => mint(server.url, { keyId: "x".repeat(20_000) }, { origin: f.origin }),
      ],
      [
        "mint 415",
        "/api/v1/sdk/session-tokens",
        "post",
        () => fetch(`${server.url}/api/v1/sdk/session-tokens`, { method: "POST", body: "x" }),
      ],
      [
        "mint 422",
        "/api/v1/sdk/session-tokens",
        "post",
        () =>
          mint(server.url, { keyId: f.keyId, projectId: f.project, extra: 1 }, {
            origin: f.origin,
          }),
      ],
      ["jwks", "/.well-known/jwks.json", "get", () => fetch(`${server.url}/.well-known/jwks.json`)],
      ["healthz", "/healthz", "get", () => fetch(`${server.url}/healthz`)],
      ["readyz", "/readyz", "get", () => fetch(`${server.url}/readyz`)],
    ];
    for (const [name, path, method, send] of cases) {
      await t.step(name, async () => await check(path, method, await send()));
    }

    const RENDER = "/v1/kernels/{kernel}/render";
    const PROJECT = "/api/v1/projects/{slug}";
    const r = await setupRender(server.deps.kv, server.url, { budget: 3 });
    const dag = await finishedDag("plate");
    const send = (
      body: unknown,
      token: string | null = r.token,
      origin: string | null = r.origin,
    ) => render(server.url, token, origin, body);
    const renderCases: Array<[string, string, () => Promise<Response>]> = [
      ["render 200 miss", RENDER, () => send({ dag })],
      ["render 200 l1, a mesh omitted", RENDER, async () => {
        const first = await (await send({ dag: await finishedDag("plate", { width: 90 }) })).json();
        const have = [first.scene.parts[1].mesh];
        const res = await send({ dag: await finishedDag("plate", { width: 90 }), have });
        const body = await res.clone().json();
        assert.equal(body.cache, "l1");
        assert.deepEqual(body.omitted, have);
        return res;
      }],
      ["render 400", RENDER, () => send("{")],
      ["render 401", RENDER, () => send({ dag }, null)],
      ["render 403", RENDER, () => send({ dag }, r.token, "https://elsewhere.example")],
      [
        "render 404",
        RENDER,
        () => render(server.url, r.token, r.origin, { dag }, { path: "/v1/kernels/cgal/render" }),
      ],
      ["render 413", RENDER, () => send({ dag, pad: "x".repeat(300_000) })],
      [
        "render 415",
        RENDER,
        () => fetch(`${server.url}/v1/kernels/manifold/render`, { method: "POST", body: "x" }),
      ],
      ["render 422", RENDER, () => send({ dag: { dag: 1, nodes: {}, output: "x" } })],
      ["render 429", RENDER, () => send({ dag })],
      ["project 200", PROJECT, () => fetch(`${server.url}/api/v1/projects/${r.project}`)],
      ["project 404", PROJECT, () => fetch(`${server.url}/api/v1/projects/no-such-project`)],
      [
        "project 422",
        PROJECT,
        () => fetch(`${server.url}/api/v1/projects/${r.project}?version=zero`),
      ],
    ];
    for (const [name, path, sendIt] of renderCases) {
      const method = path === RENDER ? "post" : "get";
      await t.step(name, async () => await check(path, method, await sendIt()));
    }
    await t.step("mint 429", async () => {
      const g = await createKeyFixture(server.deps.kv, {
        rateLimit: { points: 1, durationSeconds: 60 },
      });
      await (await mint(server.url, { keyId: g.keyId, projectId: g.project }, { origin: g.origin }))
        .body?.cancel();
      await check(
        "/api/v1/sdk/session-tokens",
        "post",
        await mint(server.url, { keyId: g.keyId, projectId: g.project }, { origin: g.origin }),
      );
    });
  } finally {
    await server.close();
  }
});
