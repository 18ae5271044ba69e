import assert from "node:assert/strict";
import { publishProject } from "@/lib/hub/publish.ts";
import { CheckedBodies } from "@/lib/render/checked_bodies.ts";
import { CURRENT_VERSION_TTL_MS } from "@/lib/render/project_templates.ts";
import { startTestServer } from "../_helpers/server.ts";
import { finishedDag, readProjectFixture } from "../_helpers/projects.ts";
import { expectProblem, render, setupRender } from "./render_helpers.ts";

Deno.test("checked bodies - keys differ by project and by character; the memo is bounded in bytes", () => {
  const body = '{"dag":{}}';
  const a = CheckedBodies.key("shelf", body);
  assert.equal(a, CheckedBodies.key("shelf", body));
  assert.notEqual(a, CheckedBodies.key("shelf2", body));
  assert.notEqual(a, CheckedBodies.key("shelf", '{"dag":{} }'));
  const memo = new CheckedBodies({ maxBytes: 1200 });
  const entry = {
    version: 1,
    templateHash: "t",
    dagHash: "h",
    cacheKey: "k",
    have: [],
    python: false,
  };
  for (let i = 0; i < 10; i++) memo.set(`d${i}`, entry);
  assert.ok(memo.size <= 2, `held ${memo.size} entries of ~512 bytes in 1200`);
  assert.equal(memo.get("d9"), entry);
});

Deno.test("checked bodies - a remembered body is checked again when the project's current version moves", async () => {
  const server = await startTestServer();
  try {
    const s = await setupRender(server.deps.kv, server.url, { budget: 10 });
    const dag = await finishedDag("plate");
    const memo = server.deps.render?.checkedBodies;
    assert.ok(memo);
    const first = await render(server.url, s.token, s.origin, { dag });
    assert.equal(first.status, 200);
    const again = await render(server.url, s.token, s.origin, { dag });
    assert.equal((await again.json()).cache, "l1");
    assert.equal(memo.size, 1, "the body was remembered once");

    // A refused body is not remembered.
    const bad = structuredClone(dag);
    // deno-lint-ignore no-explicit-any -- reaching into a node of a known fixture
    (bad.nodes.width as any).value = 5000;
    await expectProblem(
      await render(server.url, s.token, s.origin, { dag: bad }),
      422,
      "invalid_parameters",
    );
    assert.equal(memo.size, 1);

    // Version 2 changes the template: the same bytes are no longer an instance of "current".
    const docs = await readProjectFixture("plate");
    // deno-lint-ignore no-explicit-any -- editing a literal of a known fixture
    (docs.template.nodes.plate as any).size[1] = 40;
    await publishProject(server.deps.kv, s.project, docs);
    await new Promise((r) => setTimeout(r, CURRENT_VERSION_TTL_MS + 200));
    const moved = await render(server.url, s.token, s.origin, { dag });
    const problem = await expectProblem(moved, 422, "invalid_dag");
    assert.equal(problem.reason, "not_an_instance");
    // Asking for version 1 explicitly still renders it.
    const pinned = await render(server.url, s.token, s.origin, { dag, version: 1 });
    assert.equal(pinned.status, 200);
    assert.equal((await pinned.json()).version, 1);
  } finally {
    await server.close();
  }
});

Deno.test("checked bodies - concurrent identical bodies are checked once; a failure is not remembered", async () => {
  const memo = new CheckedBodies();
  let checks = 0;
  const entry = {
    version: 1,
    templateHash: "t",
    dagHash: "h",
    cacheKey: "k",
    have: [],
    python: false,
  };
  const slow = async () => {
    checks++;
    await new Promise((r) => setTimeout(r, 20));
    return entry;
  };
  const results = await Promise.all(Array.from({ length: 8 }, () => memo.check("d", slow)));
  assert.equal(checks, 1);
  assert.ok(results.every((r) => r === entry));
  assert.equal(memo.get("d"), entry, "the entry is remembered");
  const failing = () => Promise.reject(new Error("refused"));
  await assert.rejects(memo.check("e", failing), /refused/);
  assert.equal(memo.get("e"), undefined);
});
