/**
 * The in-browser runtime explains a design's mistakes like the command line does, under the
 * Python the browser really runs: Pyodide (npm `pyodide`, a newer Python than the machine's
 * python3, whose own messages differ) loads the `cadparam` files as the worker does and runs
 * `cadparam.runtime.run_source_json` on small bad designs.
 */
import assert from "node:assert/strict";
import { loadPyodide } from "pyodide";

const PACKAGE = new URL("../../design/cadparam/", import.meta.url);
const LIB = "/home/pyodide/cadparam_lib";
const HEADER = [
  "import cadparam as cp",
  "",
  '@cp.project(slug="s", title="S", mode="python",',
  '            parameters=[cp.Int("boards", 3, min=1, max=8)])',
  "def s(p):",
].join("\n") + "\n";

Deno.test("design - Pyodide's runtime gives the same one-line mistakes with suggestions", async (t) => {
  const pyodide = await loadPyodide({ packages: [] });
  pyodide.FS.mkdirTree(`${LIB}/cadparam`);
  for await (const entry of Deno.readDir(PACKAGE)) {
    if (!entry.isFile || !entry.name.endsWith(".py")) continue;
    const text = await Deno.readTextFile(new URL(entry.name, PACKAGE));
    pyodide.FS.writeFile(`${LIB}/cadparam/${entry.name}`, text);
  }
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(LIB)})`);
  const run = pyodide.runPython("from cadparam.runtime import run_source_json\nrun_source_json");
  const error = (body: string) => {
    const out = JSON.parse(run(`${HEADER}    ${body}\n`, "{}"));
    assert.equal(out.ok, false);
    assert.doesNotMatch(out.error.message, /\n/);
    return out.error;
  };

  await t.step("an unknown keyword argument", () => {
    const { kind, message } = error("return cp.part('S', cp.cylinder(1, 2, radus=3), '#aa8844')");
    assert.equal(kind, "exception");
    assert.equal(
      message,
      "design.py:6: cylinder() has no argument 'radus'; did you mean radius or radius_top? " +
        "known arguments: radius, radius_top, center, height, segments",
    );
  });
  await t.step("an unknown method", () => {
    const { message } = error("return cp.part('S', cp.box([1, 1, 1]).extrud(2), '#aa8844')");
    assert.match(
      message,
      /^design\.py:6: Shape has no attribute 'extrud'; did you mean extrude\? known attributes: /,
    );
  });
  await t.step("an unknown parameter", () => {
    assert.deepEqual(error("return cp.part('S', cp.box([p.bords, 1, 1]), '#aa8844')"), {
      kind: "design",
      message: "design.py:6: the project has no parameter 'bords'; did you mean boards? " +
        "known parameters: boards",
    });
  });
  await t.step("a name never imported", () => {
    assert.equal(
      error("return cp.part('S', Box([1, 1, 1]), '#aa8844')").message,
      "design.py:6: name 'Box' is not defined; did you mean cp.box? names defined here: cp, p, s",
    );
  });
});
