/**
 * The settings' preview picture: real example scenes (evaluated by the kernel) drawn to PNG,
 * decoded again and looked at pixel by pixel — background where nothing is, each part in its own
 * color, the model framed in the middle, mirrored instances lit like the rest.
 */
import assert from "node:assert/strict";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import type { Scene } from "@/lib/dag/scene.ts";
import { substitute } from "@/lib/dag/substitute.ts";
import { validateDag } from "@/lib/kernel/dag_validate.ts";
import { evaluateDag } from "@/lib/kernel/evaluate.ts";
import { drawScenePicture } from "@/lib/hub/scene_picture.ts";
import { type DecodedPng, decodePng } from "./_png_decode.ts";

const BACKGROUND = [0xee, 0xf1, 0xf5];

async function exampleScene(name: string): Promise<Scene> {
  const dir = new URL(`../../examples/projects/${name}/`, import.meta.url);
  const template = JSON.parse(await Deno.readTextFile(new URL("template.dag.json", dir)));
  const schema = JSON.parse(await Deno.readTextFile(new URL("parameters.schema.json", dir)));
  return await evaluateDag(validateDag(substitute(template, validateParameterSchema(schema), {})));
}

function pixel(p: DecodedPng, x: number, y: number): number[] {
  const i = 3 * (y * p.width + x);
  return [p.rgb[i], p.rgb[i + 1], p.rgb[i + 2]];
}

function isBackground(c: number[]): boolean {
  return c.every((v, k) => Math.abs(v - BACKGROUND[k]) <= 1);
}

/** Hue in degrees of an sRGB color (NaN for greys). */
function hue([r, g, b]: number[]): number {
  const max = Math.max(r, g, b), min = Math.min(r, g, b);
  if (max - min < 12) return NaN;
  const d = max - min;
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return (h * 60 + 360) % 360;
}

function hueDistance(a: number, b: number): number {
  const d = Math.abs(a - b) % 360;
  return Math.min(d, 360 - d);
}

/** The covered pixels: their bounding box, count and mean luminance. */
function coverage(p: DecodedPng) {
  let x0 = p.width, x1 = -1, y0 = p.height, y1 = -1, n = 0, lum = 0;
  for (let y = 0; y < p.height; y++) {
    for (let x = 0; x < p.width; x++) {
      const c = pixel(p, x, y);
      if (isBackground(c)) continue;
      n++;
      lum += 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
      x0 = Math.min(x0, x), x1 = Math.max(x1, x), y0 = Math.min(y0, y), y1 = Math.max(y1, y);
    }
  }
  return { x0, x1, y0, y1, n, meanLuminance: lum / n };
}

Deno.test("scene picture - the model is framed in the middle on the viewer's background", async () => {
  const scene = await exampleScene("wall-bracket");
  const picture = await drawScenePicture(scene, { width: 400, height: 300 });
  assert.equal(picture.width, 400);
  const p = await decodePng(picture.png);
  assert.equal(p.width, 400);
  assert.equal(p.height, 300);
  for (const [x, y] of [[0, 0], [399, 0], [0, 299], [399, 299]]) {
    assert.ok(isBackground(pixel(p, x, y)), `corner ${x},${y} is background`);
  }
  const c = coverage(p);
  assert.ok(c.n > 400 * 300 * 0.05, `the model covers ${c.n} pixels`);
  // Framed on the bounding box with a 6 % margin: the box's projection spans 88 % of one side;
  // the model inside the box spans at most that, and is centred on the box, not the picture.
  assert.ok(c.x0 >= 0.06 * 400 - 2 && c.x1 <= 0.94 * 400 + 2, `x ${c.x0}…${c.x1}`);
  assert.ok(c.y0 >= 0.06 * 300 - 2 && c.y1 <= 0.94 * 300 + 2, `y ${c.y0}…${c.y1}`);
  assert.ok(c.y1 - c.y0 > 0.6 * 300, `the bracket is tall: ${c.y0}…${c.y1}`);
  // Every covered pixel has the part's hue (shading changes lightness, not hue).
  const want = hue(hexToRgb(scene.parts[0].color));
  let off = 0;
  for (let i = 0; i < p.width * p.height; i++) {
    const px = [p.rgb[3 * i], p.rgb[3 * i + 1], p.rgb[3 * i + 2]];
    if (isBackground(px)) continue;
    const h = hue(px);
    if (!Number.isNaN(h) && hueDistance(h, want) > 20) off++;
  }
  // Only antialiased rims, where the part blends into the grey background, may drift.
  assert.ok(off < c.n * 0.05, `${off} of ${c.n} covered pixels off the part's hue`);
});

Deno.test("scene picture - each part is drawn in its own color", async () => {
  const scene = await exampleScene("storage-box");
  const colors = [...new Set(scene.parts.map((part) => part.color))];
  assert.ok(colors.length >= 2, `storage-box has ${colors.length} colors`);
  const p = await decodePng((await drawScenePicture(scene)).png);
  for (const color of colors) {
    const want = hue(hexToRgb(color));
    let n = 0;
    for (let i = 0; i < p.width * p.height; i++) {
      const h = hue([p.rgb[3 * i], p.rgb[3 * i + 1], p.rgb[3 * i + 2]]);
      if (!Number.isNaN(h) && hueDistance(h, want) < 10) n++;
    }
    assert.ok(n > 2000, `${n} pixels of ${color}`);
  }
});

Deno.test("scene picture - a mirrored instance is lit like the original", async () => {
  const scene = await exampleScene("wall-bracket");
  // The same part drawn once through a mirror in x: its triangles' winding is reversed.
  const mirror = [-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  const mirrored: Scene = {
    ...scene,
    parts: scene.parts.map((part) => ({ ...part, instances: [mirror] })),
    bbox: {
      min: [-scene.bbox.max[0], scene.bbox.min[1], scene.bbox.min[2]],
      max: [-scene.bbox.min[0], scene.bbox.max[1], scene.bbox.max[2]],
    },
  };
  const a = coverage(await decodePng((await drawScenePicture(scene)).png));
  const b = coverage(await decodePng((await drawScenePicture(mirrored)).png));
  assert.ok(b.n > a.n * 0.5, `the mirrored model is drawn (${b.n} vs ${a.n} pixels)`);
  assert.ok(
    b.meanLuminance > a.meanLuminance * 0.75,
    `mirrored ${b.meanLuminance.toFixed(1)} vs ${a.meanLuminance.toFixed(1)}`,
  );
});

Deno.test("scene picture - sizes outside 1–2048 pixels are a TypeError", async () => {
  const scene = await exampleScene("wall-bracket");
  for (const size of [{ width: 0 }, { height: 4096 }, { width: 10.5 }]) {
    await assert.rejects(() => drawScenePicture(scene, size), TypeError);
  }
});

function hexToRgb(hex: string): number[] {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}
