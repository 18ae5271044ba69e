/**
 * Python-mode projects end to end on the server: publishing `design.py` + schema (no template),
 * serving the source to clients, and the kernel rendering concrete DAGs for such a project only,
 * under the stricter python-mode limits. The DAGs come from running the shelf example's design.
 */
import assert from "node:assert/strict";
import { seedDemo } from "@/lib/hub/demo_seed.ts";
import { readProjectDir } from "@/lib/hub/project_dir.ts";
import { publishProject } from "@/lib/hub/publish.ts";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { DEFAULT_DAG_LIMITS } from "@/lib/dag/dag_limits.ts";
import { PYTHON_MODE_LIMITS } from "@/lib/kernel/python_mode.ts";
import { getProjectVersion } from "@/lib/store/project_versions.ts";
import { createKeyFixture, mint, startTestServer, type TestServer } from "../_helpers/server.ts";
import { publishFixture } from "../_helpers/projects.ts";
import { cadparam, PROJECTS } from "./_python.ts";

const SHELF = new URL("shelf/", PROJECTS);
const RENDER = "/v1/kernels/manifold/render";

async function shelfDag(values: Record<string, unknown>): Promise<Dag> {
  const out = await cadparam([
    "run",
    new URL("design.py", SHELF).pathname,
    "--values",
    JSON.stringify(values),
  ]);
  return JSON.parse(out);
}

/** The shelf's volume from its parameters (the back panel overlaps the boards and dividers). */
function shelfVolume(v: { boards: number; dividers?: boolean; back?: boolean }): number {
  const t = 18, w = 800, d = 250, s = 300;
  const h = v.boards * t + (v.boards - 1) * s;
  let dividers = 0;
  for (let i = 1; i < v.boards - 1; i += 2) dividers++;
  if (v.dividers === false) dividers = 0;
  const back = (w - 2 * t) * 4 * h - v.boards * (w - 2 * t) * 4 * t - dividers * t * 4 * s;
  return 2 * t * d * h + v.boards * (w - 2 * t) * d * t + dividers * t * d * s +
    (v.back ? back : 0);
}

async function setupShelf(server: TestServer) {
  const f = await createKeyFixture(server.deps.kv);
  const meta = await publishProject(server.deps.kv, f.project, await readProjectDir(SHELF));
  assert.equal(meta.mode, "python");
  const res = await mint(server.url, { keyId: f.keyId, projectId: f.project }, {
    origin: f.origin,
  });
  assert.equal(res.status, 200);
  return { ...f, token: (await res.json()).token as string };
}

function render(server: TestServer, s: { token: string; origin: string }, body: unknown) {
  return fetch(`${server.url}${RENDER}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${s.token}`,
      origin: s.origin,
    },
    body: JSON.stringify(body),
  });
}

Deno.test("design - a project folder's files decide its mode", async () => {
  const shelf = await readProjectDir(SHELF);
  assert.equal(shelf.mode, "python");
  assert.match(shelf.source ?? "", /mode="python"/);
  assert.equal(shelf.template, undefined);
  const vase = await readProjectDir(new URL("vase", PROJECTS));
  assert.equal(vase.mode, "template");
  assert.equal((vase.template as Dag).dag, 1);
  await assert.rejects(readProjectDir(new URL("no-such-project", PROJECTS)), {
    code: "validation_failed",
  });
});

Deno.test("design - a python-mode version stores its source and schema, and the project route serves them", async () => {
  const server = await startTestServer({ redis: false });
  try {
    const kv = server.deps.kv;
    const f = await createKeyFixture(kv);
    const docs = await readProjectDir(SHELF);
    const meta = await publishProject(kv, f.project, docs);
    const stored = await getProjectVersion(
      kv,
      { partnerId: f.partnerId, slug: f.project },
      meta.version,
    );
    assert.equal(stored?.mode, "python");
    assert.equal(stored?.source, docs.source);
    assert.equal(stored?.template, null);
    assert.deepEqual(stored?.schema, docs.schema);

    const res = await fetch(`${server.url}/api/v1/projects/${f.project}`);
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.mode, "python");
    assert.equal(body.source, docs.source);
    assert.equal(body.template, null);

    for (
      const [label, bad] of [
        ["no source", { ...docs, source: undefined }],
        ["empty source", { ...docs, source: "  " }],
        ["a template too", { ...docs, template: { dag: 1, nodes: {}, output: "out" } }],
        ["a huge source", { ...docs, source: "#".repeat(300_000) }],
      ] as const
    ) {
      await assert.rejects(
        publishProject(kv, f.project, bad),
        { code: "validation_failed" },
        label,
      );
    }
    await assert.rejects(
      publishProject(kv, f.project, { ...docs, schema: { type: "object" } }),
      { code: "invalid_parameter_schema" },
    );
  } finally {
    await server.close();
  }
});

Deno.test("design - the kernel renders concrete DAGs of a python-mode project under stricter limits", async (t) => {
  const server = await startTestServer();
  try {
    const s = await setupShelf(server);
    const triangles: number[] = [];
    for (
      const values of [{ boards: 2 }, { boards: 8, back: true }, { boards: 5, dividers: false }]
    ) {
      await t.step(`renders ${JSON.stringify(values)}`, async () => {
        const res = await render(server, s, { dag: await shelfDag(values) });
        const body = await res.json();
        assert.equal(res.status, 200, JSON.stringify(body));
        assert.equal(body.project, s.project);
        const expected = shelfVolume(values);
        assert.ok(
          Math.abs(body.scene.volume - expected) < 1e-6 * expected,
          `volume ${body.scene.volume} ≠ ${expected}`,
        );
        triangles.push(body.scene.triangles);
      });
    }
    assert.equal(new Set(triangles).size, triangles.length, "board counts change the mesh");

    await t.step("a DAG with parameter slots is refused", async () => {
      const dag = await shelfDag({});
      dag.nodes.slot = { op: "ParameterInput", parameter: "boards", fallback: 4 };
      const body = await (await render(server, s, { dag })).json();
      assert.equal(body.code, "invalid_dag");
      assert.equal(body.reason, "not_concrete");
    });

    await t.step("a DAG over the python-mode node limit is refused before evaluation", async () => {
      const dag = await shelfDag({});
      for (let i = 0; i <= PYTHON_MODE_LIMITS.maxNodes; i++) {
        dag.nodes[`n${i}`] = { op: "add", args: [i, 1] };
      }
      assert.ok(Object.keys(dag.nodes).length <= DEFAULT_DAG_LIMITS.maxNodes);
      const res = await render(server, s, { dag });
      const body = await res.json();
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(body.reason, "too_many_nodes");
    });

    await t.step("a DAG over the python-mode triangle limit fails in evaluation", async () => {
      const dag: Dag = {
        dag: 1,
        nodes: {
          ball: { op: "sphere", radius: 10, segments: 256 },
          row: { op: "linearRepeat", child: { ref: "ball" }, count: 10, step: [30, 0, 0] },
          p: { op: "part", name: "Balls", color: "#ffffff", child: { ref: "row" } },
          out: { op: "assembly", parts: [{ ref: "p" }] },
        },
        output: "out",
      };
      // 10 × 32 768 triangles: fine for a template instance (1 000 000), not for python mode.
      const body = await (await render(server, s, { dag })).json();
      assert.equal(body.code, "invalid_dag", JSON.stringify(body));
      assert.equal(body.reason, "too_many_triangles");
      assert.match(body.detail, /327680 triangles; the limit is 250000/);
    });
  } finally {
    await server.close();
  }
});

Deno.test("design - a template project still renders only instances of its template", async () => {
  const server = await startTestServer();
  try {
    const f = await createKeyFixture(server.deps.kv);
    await publishFixture(server.deps.kv, f.partnerId, f.project);
    const res = await mint(server.url, { keyId: f.keyId, projectId: f.project }, {
      origin: f.origin,
    });
    const s = { ...f, token: (await res.json()).token as string };
    const body = await (await render(server, s, { dag: await shelfDag({ boards: 3 }) })).json();
    assert.equal(body.code, "invalid_dag");
    assert.equal(body.reason, "not_an_instance");
  } finally {
    await server.close();
  }
});

Deno.test("design - the demo seed publishes the python-mode shelf and keeps a template project first", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const seed = await seedDemo(kv, ["http://localhost:8000"]);
    assert.ok(seed.projects.includes("shelf"));
    assert.equal(seed.projectSlug, "spur-gear");
    assert.equal(seed.projects.at(-1), "shelf", "template projects come first");
    assert.equal(
      (await getProjectVersion(kv, { partnerId: seed.partnerId, slug: "shelf" }))?.mode,
      "python",
    );
    assert.equal(
      (await getProjectVersion(kv, { partnerId: seed.partnerId, slug: "vase" }))?.mode,
      "template",
    );
    // A second start publishes nothing new (the etags match).
    await seedDemo(kv, ["http://localhost:8000"]);
    assert.equal(
      (await getProjectVersion(kv, { partnerId: seed.partnerId, slug: "shelf" }))?.version,
      1,
    );
    assert.equal(
      (await getProjectVersion(kv, { partnerId: seed.partnerId, slug: "vase" }))?.version,
      1,
    );
  } finally {
    kv.close();
  }
});
