import assert from "node:assert/strict";
import { publishProject } from "@/lib/hub/publish.ts";
import { CheckedBodies, type CheckedBody } from "@/lib/render/checked_bodies.ts";
import { CURRENT_VERSION_TTL_MS } from "@/lib/render/project_templates.ts";
import { startTestServer } from "../_helpers/server.ts";
import { finishedDag, readProjectFixture } from "../_helpers/projects.ts";
import { expectProblem, render, setupRender } from "./render_helpers.ts";

/** What a body's checks produced, as a memo entry (its cache key names its scene). */
const entry: CheckedBody = {
  version: 1,
  templateHash: "t",
  dagHash: "h",
  cacheKey: "k",
  have: [],
  python: false,
};

Deno.test("checked bodies - keys differ by project and by character; the memo is bounded in bytes", () => {
  const body = '{"dag":{}}';
  const a = CheckedBodies.key("shelf", body);
  assert.equal(a, CheckedBodies.key("shelf", body));
  assert.notEqual(a, CheckedBodies.key("shelf2", body));
  assert.notEqual(a, CheckedBodies.key("shelf", '{"dag":{} }'));
  const memo = new CheckedBodies({ maxBytes: 1200 });
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
    await first.body?.cancel();
    assert.equal(memo.size, 0, "a body seen once is not remembered");
    const again = await render(server.url, s.token, s.origin, { dag });
    assert.equal((await again.json()).cache, "l1");
    assert.equal(memo.size, 1, "seen twice, the body was remembered once");

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

Deno.test("checked bodies - a body is remembered on its second sighting, so one-off bodies leave the memo alone", async () => {
  const memo = new CheckedBodies();
  let checks = 0;
  // Each body asks for its own scene (cache key).
  const check = (width: number) => () => {
    checks++;
    return Promise.resolve({ ...entry, cacheKey: `scene ${width}` });
  };
  // A drag through 500 distinct positions: each checked, none remembered.
  for (let i = 0; i < 500; i++) await memo.check(`p\n{"width":${i}}`, check(i));
  assert.equal(checks, 500);
  assert.equal(memo.size, 0);
  // A position seen again is checked once more and then remembered: the third costs no check.
  assert.equal((await memo.check('p\n{"width":7}', check(7))).cacheKey, "scene 7");
  assert.equal(checks, 501);
  assert.equal(memo.get('p\n{"width":7}')?.cacheKey, "scene 7");
  assert.equal(memo.size, 1);
  // Another body text for a scene seen before (the client now holds a mesh: its `have` differs)
  // is remembered at once.
  await memo.check('p\n{"width":9,"have":["m"]}', check(9));
  assert.equal(memo.get('p\n{"width":9,"have":["m"]}')?.cacheKey, "scene 9");
  // A failed check is never remembered, however often it is seen.
  const failing = () => Promise.reject(new Error("refused"));
  await assert.rejects(memo.check("bad", failing), /refused/);
  await assert.rejects(memo.check("bad", failing), /refused/);
  assert.equal(memo.get("bad"), undefined);
});

Deno.test("checked bodies - bodies that repeat stay remembered while one-off bodies stream past", async () => {
  // Room for about 20 entries; 10 repeating bodies, each seen again after 100 one-off bodies (an
  // LRU that took every body would have forgotten them by then).
  const memo = new CheckedBodies({ maxBytes: 20 * 600 });
  let checks = 0;
  const ask = async (key: string) =>
    memo.get(key) ?? await memo.check(key, () => {
      checks++;
      return Promise.resolve({ ...entry, cacheKey: key });
    });
  let oneOff = 0;
  for (let round = 0; round < 5; round++) {
    for (let warm = 0; warm < 10; warm++) {
      await ask(`warm ${warm}`);
      for (let i = 0; i < 10; i++) await ask(`one-off ${oneOff++}`);
    }
  }
  // Each repeating body is checked on its first two sightings only; every one-off once.
  assert.equal(checks, 10 * 2 + oneOff);
  for (let warm = 0; warm < 10; warm++) {
    assert.equal(memo.get(`warm ${warm}`)?.cacheKey, `warm ${warm}`);
  }
});
