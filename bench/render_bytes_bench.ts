/**
 * Response size: real render responses (every example project at its defaults and at a second
 * set of values, all meshes included) versus the same responses with each mesh written the naive
 * way, as JSON number arrays of the kernel's exact geometry (`positions: [x, y, z, …]` of the
 * Float32 values, `indices: [...]`, in place of the encoded members). The exact geometry comes
 * from evaluating the same DAG in this process (the wire positions are quantized, so decoding
 * the response would not give it back); each response mesh is matched to it by hash. A
 * deterministic measurement: one render per model, no rounds.
 */
import { gzipSync } from "node:zlib";
import type { Benchmark, BenchResult } from "./benchmark.ts";
import { evaluateDagExact, type ExactMesh } from "../lib/kernel/evaluate.ts";
import {
  createRenderFixture,
  mintRenderHeaders,
  readExample,
  RENDER_PATH,
  startRenderBenchServer,
} from "./render_fixture.ts";

const EXAMPLES = ["spur-gear", "storage-box", "stud-plate", "vase", "wall-bracket"];
const TARGET = 0.35;

/** Bytes of the mesh members alone, per encoding. */
interface MeshBytes {
  positions: number;
  indices: number;
}

/**
 * The response with every mesh's encoded members replaced by its exact geometry as JSON numbers,
 * and mesh byte counts of both forms.
 */
function asNumberArrays(
  text: string,
  exact: Map<string, ExactMesh>,
): { text: string; compact: MeshBytes; arrays: MeshBytes } {
  const body = JSON.parse(text);
  const compact = { positions: 0, indices: 0 };
  const arrays = { positions: 0, indices: 0 };
  for (const [hash, mesh] of Object.entries(body.meshes) as [string, Record<string, unknown>][]) {
    const geometry = exact.get(hash);
    if (!geometry) throw new Error(`mesh ${hash} of the response is not the local evaluation's`);
    compact.positions += JSON.stringify(mesh.positions).length + JSON.stringify(mesh.min).length +
      JSON.stringify(mesh.scale).length;
    compact.indices += JSON.stringify(mesh.indices).length;
    delete mesh.min;
    delete mesh.scale;
    mesh.positions = Array.from(geometry.positions);
    mesh.indices = Array.from(geometry.indices);
    arrays.positions += JSON.stringify(mesh.positions).length;
    arrays.indices += JSON.stringify(mesh.indices).length;
  }
  return { text: JSON.stringify(body), compact, arrays };
}

/** A second valid set of values: every numeric parameter at its maximum. */
function maxima(example: Awaited<ReturnType<typeof readExample>>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const p of example.parameters.parameters) {
    if (p.kind === "Int" || p.kind === "Float") values[p.name] = p.maximum;
  }
  return values;
}

async function run(progress: (line: string) => void): Promise<BenchResult> {
  const kernel = await startRenderBenchServer(EXAMPLES[0]);
  try {
    const encoder = new TextEncoder();
    let compact = 0;
    let arrays = 0;
    let compactGzip = 0;
    let arraysGzip = 0;
    const parts = { compact: { positions: 0, indices: 0 }, arrays: { positions: 0, indices: 0 } };
    const details: string[] = [];
    const problems: string[] = [];
    for (const name of EXAMPLES) {
      const example = await readExample(name);
      const fixture = await createRenderFixture(kernel.server.deps.kv, example);
      const target = {
        url: kernel.server.url + RENDER_PATH,
        headers: await mintRenderHeaders(kernel.server.url, fixture),
      };
      for (const [label, values] of [["defaults", {}], ["maxima", maxima(example)]] as const) {
        let dag;
        try {
          dag = example.finish(values);
        } catch (err) {
          problems.push(`${name} ${label}: ${(err as Error).message}`);
          continue;
        }
        const res = await fetch(target.url, {
          method: "POST",
          headers: target.headers,
          body: JSON.stringify({ dag }),
        });
        const text = await res.text();
        if (res.status !== 200) {
          details.push(`${name} ${label}: ${res.status} ${text.slice(0, 160)} (not counted)`);
          continue;
        }
        const naive = asNumberArrays(text, (await evaluateDagExact(dag)).exact);
        const a = encoder.encode(text).byteLength;
        const b = encoder.encode(naive.text).byteLength;
        compact += a;
        arrays += b;
        compactGzip += gzipSync(text).byteLength;
        arraysGzip += gzipSync(naive.text).byteLength;
        for (const side of ["compact", "arrays"] as const) {
          parts[side].positions += naive[side].positions;
          parts[side].indices += naive[side].indices;
        }
        const line = `${name} ${label}: ${a.toLocaleString("en-US")} B compact, ` +
          `${b.toLocaleString("en-US")} B as number arrays, ratio ${(a / b).toFixed(3)}`;
        details.push(line);
        progress(`render-bytes ${line}`);
      }
    }
    if (compact === 0) problems.push("no render succeeded");
    const share = (x: MeshBytes) => `positions ${x.positions} B, indices ${x.indices} B`;
    // positions (compact) include the min and scale members.
    details.push(
      `mesh members: compact ${share(parts.compact)}; as numbers ${share(parts.arrays)}`,
      `gzip (not applied by the server): compact ${compactGzip} B, as numbers ${arraysGzip} B, ` +
        `ratio ${(compactGzip / arraysGzip).toFixed(3)}; gzip compact ÷ raw numbers ${
          (compactGzip / arrays).toFixed(3)
        }`,
    );
    return {
      title: "render-bytes",
      unit: "B",
      lowerIsBetter: true,
      baseline: { label: "meshes as JSON number arrays", value: arrays },
      candidate: { label: "compact (Uint16 positions, delta varint indices)", value: compact },
      target: TARGET,
      summary: `${EXAMPLES.length} example projects × (defaults, maxima), all meshes sent`,
      details,
      problems,
    };
  } finally {
    await kernel.close();
  }
}

/** Compact render response bytes ÷ the same meshes as JSON number arrays; target ≤ 0.35. */
export const renderBytesBench: Benchmark = {
  name: "render-bytes",
  description:
    "render response bytes (quantized, delta-coded meshes) vs the meshes as JSON numbers",
  run,
};
