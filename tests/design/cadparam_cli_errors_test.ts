/**
 * A partner's first mistakes, through the real command line (`python3 -m cadparam emit`) on small
 * design files in a temporary folder: each comes back as exactly one stderr line naming the
 * design's own file and line, what was asked and what cadparam knows (closest first), with exit
 * status 2; a bug inside cadparam still shows its traceback; a successful emit says what it wrote.
 */
import assert from "node:assert/strict";
import { python } from "./_python.ts";

const HEADER = "import cadparam as cp\n\n";
const PROJECT = '@cp.project(slug="plate", title="Plate", parameters=[' +
  'cp.Float("width", 80, min=40, max=200), cp.Int("holes", 2, min=1, max=6)])';

/** A design file: `lines` after the header, or the whole source when `whole`. */
function design(body: string[], whole = false): string {
  return (whole ? "" : HEADER) + body.join("\n") + "\n";
}

/** Writes `source` as design.py in a fresh folder and runs `emit` on it. */
async function emit(source: string, extra: string[] = []) {
  const dir = await Deno.makeTempDir({ prefix: "cadparam-cli-" });
  const path = `${dir}/design.py`;
  await Deno.writeTextFile(path, source);
  const run = await python(["-m", "cadparam", "emit", path, "--out", `${dir}/out`, ...extra]);
  return { ...run, dir, path };
}

/** The run failed with exit 2 and exactly one line on stderr, which is returned. */
function oneLine(run: { code: number; stdout: string; stderr: string }): string {
  assert.equal(run.code, 2, run.stderr);
  assert.equal(run.stdout, "");
  assert.ok(run.stderr.endsWith("\n"), JSON.stringify(run.stderr));
  const lines = run.stderr.slice(0, -1).split("\n");
  assert.equal(lines.length, 1, `more than one line:\n${run.stderr}`);
  assert.doesNotMatch(lines[0], /Traceback|cadparam\/\w+\.py/);
  return lines[0];
}

const CASES: { name: string; body: string[]; whole?: boolean; line: number; expect: RegExp }[] = [
  {
    name: "an unknown import",
    whole: true,
    body: [
      "from cadparam import Cylindr, part, project",
      "",
      '@project(slug="x", title="X")',
      "def x(p):",
      '    return part("P", Cylindr(2, 1), "#112233")',
    ],
    line: 1,
    expect:
      /^cadparam has no name 'Cylindr'; did you mean cylinder\? known names: cylinder, (\w+, )+union$/,
  },
  {
    name: "an unknown method on a shape",
    body: [
      PROJECT,
      "def plate(p):",
      "    b = cp.rectangle([p.width, 40])",
      "    s = b.extrud(4)",
      '    return cp.part("Plate", s, "#112233")',
    ],
    line: 6,
    expect:
      /^Shape has no attribute 'extrud'; did you mean extrude\? known attributes: extrude, (\w+, )+\w+$/,
  },
  {
    name: "a DAG op name instead of its Python call",
    body: [
      PROJECT,
      "def plate(p):",
      "    peg = cp.cylinder(5, 2)",
      '    return cp.part("Plate", cp.linearRepeat(peg, p.holes, [10, 0, 0]), "#112233")',
    ],
    line: 6,
    expect: /^cadparam has no name 'linearRepeat'; did you mean linear_repeat\? known names: /,
  },
  {
    name: "an unknown choice of an op",
    body: [
      PROJECT,
      "def plate(p):",
      '    s = cp.rectangle([p.width, 40]).offset(1, join="mitre").extrude(4)',
      '    return cp.part("Plate", s, "#112233")',
    ],
    line: 5,
    expect: /^offset has no join 'mitre'; did you mean miter\? known joins: miter, round, square$/,
  },
  {
    name: "an unknown keyword argument",
    body: [
      PROJECT,
      "def plate(p):",
      '    return cp.part("Plate", cp.cylinder(4, p.width, radus=2), "#112233")',
    ],
    line: 5,
    expect: new RegExp(
      "^cylinder\\(\\) has no argument 'radus'; did you mean radius or radius_top\\? " +
        "known arguments: radius, radius_top, center, height, segments$",
    ),
  },
  {
    name: "an unknown keyword passed on by a method",
    body: [
      PROJECT,
      "def plate(p):",
      "    s = cp.rectangle([p.width, 40]).extrude(4, twst=10)",
      '    return cp.part("Plate", s, "#112233")',
    ],
    line: 5,
    expect:
      /^Shape\.extrude\(\) has no argument 'twst'; did you mean twist\? known arguments: twist, /,
  },
  {
    name: "an unknown parameter",
    body: [
      PROJECT,
      "def plate(p):",
      '    return cp.part("Plate", cp.box([p.widht, 40, 4]), "#112233")',
    ],
    line: 5,
    expect:
      /^the project has no parameter 'widht'; did you mean width\? known parameters: width, holes$/,
  },
  {
    name: "a name never imported",
    body: [
      PROJECT,
      "def plate(p):",
      '    return cp.part("Plate", Box([p.width, 40, 4]), "#112233")',
    ],
    line: 5,
    expect: /^name 'Box' is not defined; did you mean cp\.box\? names defined here: /,
  },
  {
    name: "a bad parameter range",
    body: [
      '@cp.project(slug="x", title="X", parameters=[cp.Float("w", 10, min=30, max=20)])',
      "def x(p):",
      '    return cp.part("P", cp.box([p.w, 1, 1]), "#112233")',
    ],
    line: 3,
    expect: /^w: max \(20\) is below min \(30\)$/,
  },
  {
    name: "a misspelt descriptor keyword",
    body: [
      '@cp.project(slug="x", title="X", parameters=[cp.Float("w", 10, mn=1, max=20)])',
      "def x(p):",
      '    return cp.part("P", cp.box([p.w, 1, 1]), "#112233")',
    ],
    line: 3,
    expect: /^Float\(\) has no argument 'mn'; did you mean min\? known arguments: min, /,
  },
  {
    name: "structure that depends on a parameter's value",
    body: [
      PROJECT,
      "def plate(p):",
      "    pegs = [cp.box([1, 1, 1]).translate(2 * i, 0, 0) for i in range(p.holes)]",
      '    return cp.part("Plate", cp.union(pegs), "#112233")',
    ],
    line: 5,
    expect: /^the design's structure depends on a parameter's value \(range\(\).*mode="python"/,
  },
  {
    name: "a wrong return value, at the project's declaration",
    body: [PROJECT, "def plate(p):", "    return cp.box([p.width, 40, 4])"],
    line: 3,
    expect: /^the project function of plate must return .*, got a solid \(box\)$/,
  },
  {
    name: "the design's own exception",
    body: [PROJECT, "def plate(p):", "    ratio = 1 / 0", "    return ratio"],
    line: 5,
    expect: /^ZeroDivisionError: division by zero$/,
  },
  {
    name: "a syntax error",
    body: [PROJECT, "def plate(p):", '    return cp.part("Plate", cp.box([1, 1, 1])'],
    line: 5,
    expect: /^SyntaxError: '\(' was never closed$/,
  },
];

Deno.test("design - a design's mistake is one stderr line at its file:line, with suggestions", async (t) => {
  for (const c of CASES) {
    await t.step(c.name, async () => {
      const run = await emit(design(c.body, c.whole));
      try {
        const line = oneLine(run);
        const prefix = `error: ${run.path}:${c.line}: `;
        assert.ok(line.startsWith(prefix), `${line}\ndoes not start with ${prefix}`);
        assert.match(line.slice(prefix.length), c.expect);
        // Nothing was written for a design that failed.
        await assert.rejects(Deno.stat(`${run.dir}/out`), Deno.errors.NotFound);
      } finally {
        await Deno.remove(run.dir, { recursive: true });
      }
    });
  }
});

Deno.test("design - mistakes outside the design file are one line without a design line", async () => {
  const missing = await python(["-m", "cadparam", "emit", "/nonexistent/design.py", "--out", "x"]);
  assert.equal(
    oneLine(missing),
    "error: /nonexistent/design.py: cannot read the design: No such file or directory",
  );
  const run = await emit(
    design([
      PROJECT,
      "def plate(p):",
      '    return cp.part("P", cp.box([p.width, 4, 4]), "#112233")',
    ]),
  );
  try {
    const values = await python(["-m", "cadparam", "run", run.path, "--values", '{"widht": 90}']);
    assert.equal(
      oneLine(values),
      "error: the project has no parameter 'widht'; did you mean width? " +
        "known parameters: width, holes",
    );
  } finally {
    await Deno.remove(run.dir, { recursive: true });
  }
});

Deno.test("design - a bug inside cadparam still shows its traceback", async () => {
  // The design breaks one of cadparam's own functions, so the exception is raised in cadparam's
  // code (not the design's): that is reported as a bug, traceback and all, not as one line.
  const run = await emit(design([
    "import cadparam.graph",
    "cadparam.graph.check_number = cadparam.graph.symbolic",
    PROJECT,
    "def plate(p):",
    '    return cp.part("Plate", cp.box([1, 40, 4]), "#112233")',
  ]));
  try {
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^Traceback \(most recent call last\):/);
    assert.match(run.stderr, /cadparam\/graph\.py", line \d+, in symbolic/);
    assert.match(run.stderr, /AttributeError: 'int' object has no attribute 'type'\n$/);
  } finally {
    await Deno.remove(run.dir, { recursive: true });
  }
});

Deno.test("design - emit says what it wrote, and nothing with --quiet", async () => {
  const source = design([
    PROJECT,
    "def plate(p):",
    "    hole = cp.cylinder(10, 2, center=True)",
    "    holes = cp.linear_repeat(hole, p.holes, [p.width / (p.holes + 1), 0, 0])",
    '    return cp.part("Plate", cp.box([p.width, 40, 4]) - holes, "#112233")',
  ]);
  const run = await emit(source);
  try {
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    const schema = await Deno.readFile(`${run.dir}/out/parameters.schema.json`);
    const template = await Deno.readFile(`${run.dir}/out/template.dag.json`);
    const params = Object.keys(JSON.parse(new TextDecoder().decode(schema)).properties).length;
    const nodes = Object.keys(JSON.parse(new TextDecoder().decode(template)).nodes).length;
    assert.equal(params, 2);
    assert.ok(nodes > 5);
    assert.equal(
      run.stdout,
      `wrote ${run.dir}/out/parameters.schema.json (${schema.length} bytes, 2 parameters)\n` +
        `wrote ${run.dir}/out/template.dag.json (${template.length} bytes, ${nodes} nodes)\n`,
    );
    const quiet = await python([
      "-m",
      "cadparam",
      "emit",
      run.path,
      "--out",
      `${run.dir}/out`,
      "--quiet",
    ]);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stdout + quiet.stderr, "");
  } finally {
    await Deno.remove(run.dir, { recursive: true });
  }
});

Deno.test("design - emit of a python-mode design says there is no template", async () => {
  const run = await emit(
    design([
      '@cp.project(slug="shelf", title="Shelf", mode="python", parameters=[' +
      'cp.Int("boards", 3, min=1, max=8)])',
      "def shelf(p):",
      "    boards = [cp.box([80, 20, 2]).translate(0, 0, 30 * i) for i in range(p.boards)]",
      '    return cp.part("Shelf", cp.union(boards), "#aa8844")',
    ]),
  );
  try {
    assert.equal(run.code, 0, run.stderr);
    const schema = await Deno.readFile(`${run.dir}/out/parameters.schema.json`);
    assert.equal(
      run.stdout,
      `wrote ${run.dir}/out/parameters.schema.json (${schema.length} bytes, 1 parameter)\n` +
        "no template.dag.json: shelf is a python-mode project (docs/design.md)\n",
    );
  } finally {
    await Deno.remove(run.dir, { recursive: true });
  }
});
