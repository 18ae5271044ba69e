/**
 * The `text` op: outlines of the bundled font (contours and holes of single letters, the size as
 * cap height, alignment, kerning, spacing, tolerance), the same geometry for the same string on
 * every run and host (pinned digests of the font file and of one outline), the characters it
 * refuses and its limits — in validation and in evaluation — and text engraved into and embossed
 * on a plate, leaking no WASM object.
 */
import assert from "node:assert/strict";
import { DagError } from "@/lib/dag/dag_errors.ts";
import { DEFAULT_DAG_LIMITS } from "@/lib/dag/dag_limits.ts";
import type { Dag, DagNode } from "@/lib/dag/dag_types.ts";
import { sha256HexOf } from "@/lib/dag/sha256.ts";
import { validateDag } from "@/lib/kernel/dag_validate.ts";
import { EvalError } from "@/lib/kernel/eval_errors.ts";
import { DEFAULT_EVAL_LIMITS, type EvalLimits } from "@/lib/kernel/eval_limits.ts";
import { evaluateDagExact } from "@/lib/kernel/evaluate.ts";
import { createManifoldRuntime } from "@/lib/kernel/manifold_runtime.ts";
import { supportedCodePoints, TEXT_FONT_FILE, textFont } from "@/lib/kernel/ops/text_font.ts";
import {
  type TextLayout,
  textOutline,
  unsupportedCharacter,
} from "@/lib/kernel/ops/text_outline.ts";

const runtime = await createManifoldRuntime({ trackObjects: true });
const LAYOUT: TextLayout = {
  size: 10,
  halign: "left",
  valign: "baseline",
  spacing: 0,
  tolerance: 0.01,
  kerning: true,
};

function outline(text: string, layout: Partial<TextLayout> = {}) {
  const out = textOutline(text, { ...LAYOUT, ...layout }, textFont(), 20_000);
  assert.ok(out, `${text} is within the vertex limit`);
  return out;
}

/** Twice the signed area of a closed polygon. */
function twiceArea(points: readonly (readonly number[])[]): number {
  let sum = 0;
  for (let k = 0; k < points.length; k++) {
    const [x0, y0] = points[k];
    const [x1, y1] = points[(k + 1) % points.length];
    sum += x0 * y1 - x1 * y0;
  }
  return sum;
}

/** Outlines and holes of a string once manifold-3d has resolved them (non-zero fill). */
function regions(text: string): { contours: number; holes: number; area: number } {
  const cs = new runtime.CrossSection(outline(text).contours, "NonZero");
  try {
    const polygons = cs.toPolygons();
    return {
      contours: polygons.length,
      holes: polygons.filter((p) => twiceArea(p) < 0).length,
      area: cs.area(),
    };
  } finally {
    cs.delete();
  }
}

Deno.test("text - letters have the contours and holes they are drawn with", () => {
  const counts = Object.fromEntries(
    ["O", "B", "i", "8", "é", "H"].map((c) => {
      const { contours, holes } = regions(c);
      return [c, [contours, holes]];
    }),
  );
  assert.deepEqual(counts, { O: [2, 1], B: [3, 2], i: [2, 0], 8: [3, 2], é: [3, 1], H: [1, 0] });
  assert.equal(runtime.liveObjects!(), 0);
});

Deno.test("text - the size is the cap height; alignment puts the origin where it says", () => {
  const bounds = (text: string, layout: Partial<TextLayout>) => {
    const xs = outline(text, layout).contours.flat();
    return {
      minX: Math.min(...xs.map((p) => p[0])),
      maxX: Math.max(...xs.map((p) => p[0])),
      minY: Math.min(...xs.map((p) => p[1])),
      maxY: Math.max(...xs.map((p) => p[1])),
    };
  };
  const h = bounds("H", {});
  assert.ok(Math.abs(h.minY) < 1e-9 && Math.abs(h.maxY - 10) < 1e-9, JSON.stringify(h));
  const h25 = bounds("H", { size: 25 });
  assert.ok(Math.abs(h25.maxY - 25) < 1e-9);
  const top = bounds("H", { valign: "top" });
  assert.ok(Math.abs(top.maxY) < 1e-9 && Math.abs(top.minY + 10) < 1e-9);
  const center = bounds("H", { valign: "center" });
  assert.ok(Math.abs(center.maxY - 5) < 1e-9 && Math.abs(center.minY + 5) < 1e-9);
  const bottom = bounds("g", { valign: "bottom" });
  assert.ok(bottom.minY >= -1e-9 && bottom.minY < 1, `g's descent is above y = 0: ${bottom.minY}`);
  const { width } = outline("NAME");
  const left = bounds("NAME", {});
  const middle = bounds("NAME", { halign: "center" });
  const right = bounds("NAME", { halign: "right" });
  assert.ok(Math.abs(middle.minX - (left.minX - width / 2)) < 1e-9);
  assert.ok(Math.abs(right.maxX - (left.maxX - width)) < 1e-9);
});

Deno.test("text - kerning tightens AV; spacing adds between letters, not after the last", () => {
  const kerned = outline("AV").width, plain = outline("AV", { kerning: false }).width;
  assert.ok(kerned < plain, `${kerned} < ${plain}`);
  const base = outline("ABC", { kerning: false }).width;
  const spaced = outline("ABC", { kerning: false, spacing: 1.5 }).width;
  assert.ok(Math.abs(spaced - base - 3) < 1e-9, `${spaced - base}`);
});

Deno.test("text - a finer tolerance gives more points; none is off the curve by more", () => {
  const coarse = outline("O", { tolerance: 0.1 }).vertices;
  const fine = outline("O", { tolerance: 0.001 }).vertices;
  assert.ok(fine > coarse, `${fine} > ${coarse}`);
  // Areas converge: the fine outline's area is within the coarse one's chord error band.
  const a = regions("O").area;
  assert.ok(a > 40 && a < 60, `area of O at cap height 10: ${a}`);
});

Deno.test("text - the same string gives the same geometry, pinned across hosts", async () => {
  const font = await Deno.readFile(TEXT_FONT_FILE);
  assert.equal(
    await sha256HexOf(font),
    "19e78b1c5f2c683c28800f84dd6d453ddb67987b0079060a4cbe50c7bdded148",
    "the bundled font file changed: geometry of every text changes (bump EVAL_REVISION)",
  );
  const a = outline("Hello, Zoë & Åsa!", { halign: "center", valign: "center", spacing: 0.3 });
  const b = outline("Hello, Zoë & Åsa!", { halign: "center", valign: "center", spacing: 0.3 });
  assert.deepEqual(a, b);
  const digest = await sha256HexOf(JSON.stringify(a.contours));
  assert.equal(digest, PINNED_OUTLINE_DIGEST, "outline of a fixed string, bit for bit");
});
const PINNED_OUTLINE_DIGEST = "b3642aaa2ce2e49045b86c7569e82b7d63149abdaba29dd54cb281fcb6c71dd9";

Deno.test("text - the characters drawn: printable Latin-1 and a few more, nothing invisible", () => {
  const set = new Set(supportedCodePoints());
  for (let cp = 0x20; cp <= 0x7e; cp++) assert.ok(set.has(cp), `U+${cp.toString(16)}`);
  for (let cp = 0xa0; cp <= 0xff; cp++) if (cp !== 0xad) assert.ok(set.has(cp));
  for (const c of "€–—‘’“”…•™Œœı") assert.ok(set.has(c.codePointAt(0)!), c);
  for (const c of "\n\t\u00ad\u0301\u200b\ufeff\ufffdЖ✓😀") {
    assert.ok(!set.has(c.codePointAt(0)!), `U+${c.codePointAt(0)!.toString(16)}`);
  }
  assert.deepEqual(unsupportedCharacter("Zoë 😀!", textFont()), { index: 4, char: "😀" });
  assert.equal(unsupportedCharacter("Zoë!", textFont()), undefined);
});

// ---------------------------------------------------------------------------------------------
// In DAGs

type Nodes = Record<string, unknown>;

function dagOf(nodes: Nodes): Dag {
  return {
    dag: 1,
    nodes: {
      ...nodes,
      part: { op: "part", name: "Tag", color: "#8899aa", child: { ref: "shape" } },
      out: { op: "assembly", parts: [{ ref: "part" }] },
    } as Record<string, DagNode>,
    output: "out",
  };
}

/** A 60 × 20 × 3 plate with `text` engraved 1 mm deep (or embossed 1 mm high). */
function tag(text: unknown, how: "difference" | "union", extra: Nodes = {}): Nodes {
  return {
    plate: { op: "box", size: [60, 20, 3] },
    label: { op: "text", text, size: 8, halign: "center", valign: "center", ...extra },
    solid: { op: "extrude", profile: { ref: "label" }, height: how === "union" ? 1 : 2 },
    placed: { op: "translate", child: { ref: "solid" }, offset: [30, 10, how === "union" ? 3 : 2] },
    shape: how === "union"
      ? { op: "union", children: [{ ref: "plate" }, { ref: "placed" }] }
      : { op: "difference", base: { ref: "plate" }, subtract: [{ ref: "placed" }] },
  };
}

async function evaluate(nodes: Nodes, limits: EvalLimits = DEFAULT_EVAL_LIMITS) {
  try {
    return await evaluateDagExact(validateDag(dagOf(nodes)), runtime, limits);
  } finally {
    assert.equal(runtime.liveObjects!(), 0, "WASM objects leaked");
  }
}

Deno.test("text - engraved and embossed: the plate loses or gains the text's area × depth", async () => {
  const area = regions("Ada").area * (8 / 10) ** 2;
  const engraved = await evaluate(tag("Ada", "difference"));
  const embossed = await evaluate(tag("Ada", "union"));
  const plate = 60 * 20 * 3;
  assert.ok(Math.abs(engraved.scene.volume - (plate - area)) < 1e-3 * area, "engraved");
  assert.ok(Math.abs(embossed.scene.volume - (plate + area)) < 1e-3 * area, "embossed");
  assert.ok(Math.abs(embossed.scene.bbox.max[2] - 4) < 1e-6, "embossed 1 mm above the plate");
  const again = await evaluate(tag("Ada", "difference"));
  assert.equal(again.scene.parts[0].mesh, engraved.scene.parts[0].mesh, "same mesh hash");
});

Deno.test("text - validation refuses literal text the font cannot draw, or too long", () => {
  const refused = (nodes: Nodes, reason: string, pointer: string) =>
    assert.throws(() => validateDag(dagOf(nodes)), (err: unknown) => {
      assert.ok(err instanceof DagError);
      assert.equal(err.code, "invalid_dag");
      assert.equal(err.reason, reason, err.message);
      assert.equal(err.pointer, pointer);
      return true;
    });
  refused(tag("Name ✓", "difference"), "unsupported_character", "/nodes/label/text");
  refused(tag("two\nlines", "difference"), "unsupported_character", "/nodes/label/text");
  const max = DEFAULT_DAG_LIMITS.maxTextCharacters;
  refused(tag("x".repeat(max + 1), "difference"), "string_too_long", "/nodes/label/text");
  validateDag(dagOf(tag("x".repeat(max), "difference")));
  refused(tag("A", "difference", { tolerance: 0 }), "out_of_range", "/nodes/label/tolerance");
  refused(tag("A", "difference", { halign: "middle" }), "bad_choice", "/nodes/label/halign");
});

Deno.test("text - evaluation refuses computed text it cannot draw, blank text and too many points", async (t) => {
  const fails = async (
    nodes: Nodes,
    code: string,
    reason: string,
    pointer: string,
    limits?: EvalLimits,
  ) => {
    await assert.rejects(evaluate(nodes, limits), (err: unknown) => {
      assert.ok(err instanceof EvalError, String(err));
      assert.deepEqual([err.code, err.reason, err.pointer], [code, reason, pointer], err.message);
      return true;
    });
  };
  const fromParameter = (value: string): Nodes => ({
    ...tag({ ref: "name" }, "difference"),
    name: { op: "ParameterInput", parameter: "name", fallback: "Ada", value },
  });
  await t.step("a parameter's value with a character the font lacks", async () => {
    await fails(
      fromParameter("Жанна"),
      "invalid_dag",
      "unsupported_character",
      "/nodes/label/text",
    );
  });
  await t.step("a parameter's value over the character limit", async () => {
    await fails(
      fromParameter("y".repeat(65)),
      "invalid_dag",
      "string_too_long",
      "/nodes/label/text",
    );
  });
  await t.step("only spaces", async () => {
    await fails(tag("   ", "difference"), "render_failed", "empty_geometry", "/nodes/label/text");
  });
  await t.step("more points than the limit", async () => {
    await fails(
      tag("Bobo", "difference", { tolerance: 0.001 }),
      "invalid_dag",
      "too_many_vertices",
      "/nodes/label",
      { ...DEFAULT_EVAL_LIMITS, maxTextVertices: 500 },
    );
  });
});
