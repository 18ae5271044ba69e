/**
 * The Python design package's own unit tests (design/tests, unittest) run inside `deno task test`,
 * and every example's committed template and schema are exactly what the emitter writes today.
 */
import assert from "node:assert/strict";
import { cadparam, exampleSlugs, PROJECTS, python, ROOT } from "./_python.ts";

Deno.test("design - the cadparam unit tests pass", async () => {
  const run = await python(
    ["-m", "unittest", "discover", "-s", "tests", "-t", "."],
    new URL("design/", ROOT),
  );
  assert.equal(run.code, 0, `python3 -m unittest failed:\n${run.stderr}\n${run.stdout}`);
  assert.match(run.stderr, /Ran \d+ tests/);
  assert.match(run.stderr, /\nOK\b/);
});

Deno.test("design - every example is authored in Python and its committed files are emitted byte for byte", async (t) => {
  const slugs = await exampleSlugs();
  assert.ok(slugs.length >= 5);
  for (const slug of slugs) {
    await t.step(slug, async () => {
      const folder = new URL(`${slug}/`, PROJECTS);
      const out = await Deno.makeTempDir({ prefix: `emit-${slug}-` });
      try {
        await cadparam(["emit", new URL("design.py", folder).pathname, "--out", out]);
        const mode = JSON.parse(await cadparam(["mode", new URL("design.py", folder).pathname]));
        const files = mode === "python"
          ? ["parameters.schema.json"]
          : ["parameters.schema.json", "template.dag.json"];
        const emitted = [];
        for await (const entry of Deno.readDir(out)) emitted.push(entry.name);
        assert.deepEqual(emitted.sort(), files);
        for (const name of files) {
          const committed = await Deno.readFile(new URL(name, folder));
          const fresh = await Deno.readFile(`${out}/${name}`);
          assert.ok(
            committed.length === fresh.length && committed.every((b, i) => b === fresh[i]),
            `examples/projects/${slug}/${name} is stale: run ` +
              `PYTHONPATH=design python3 -m cadparam emit examples/projects/${slug}/design.py ` +
              `--out examples/projects/${slug}`,
          );
        }
      } finally {
        await Deno.remove(out, { recursive: true });
      }
    });
  }
});

Deno.test("design - a template design whose structure depends on a parameter fails with its line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "design-structure-" });
  try {
    const path = `${dir}/design.py`;
    await Deno.writeTextFile(
      path,
      [
        "import cadparam as cp",
        "",
        '@cp.project(slug="shelf", title="Shelf", parameters=[cp.Int("boards", 3, min=1, max=8)])',
        "def shelf(p):",
        "    boards = [cp.box([80, 20, 2]).translate(0, 0, 30 * i) for i in range(p.boards)]",
        '    return cp.part("Shelf", cp.union(boards), "#aa8844")',
        "",
      ].join("\n"),
    );
    const run = await python(["-m", "cadparam", "emit", path, "--out", dir]);
    assert.equal(run.code, 2);
    const lines = run.stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, run.stderr);
    assert.ok(lines[0].startsWith(`error: ${path}:5: the design's structure depends on`), lines[0]);
    assert.match(lines[0], /range\(\)/);
    assert.match(lines[0], /mode="python"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
