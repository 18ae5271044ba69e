/**
 * Render-response bytes on the wire (issue 15, wire bytes): every example project with a template
 * (`examples/projects/*`; the python-mode shelf has none and needs Pyodide to make a DAG) at its
 * defaults and with every numeric parameter at its maximum, rendered by the real kernel-api and
 * received as the SDK receives it: `Accept: application/vnd.cad-render, application/json;q=0.5`
 * (RenderClient) and `Accept-Encoding: gzip, deflate, br, zstd` (what Chromium sends; Deno's
 * fetch sends `gzip, br`), all meshes included. The bytes are counted before any decoding
 * (node:http does not decompress).
 *
 * Baseline, computed here by meshoptimizer directly: for each response, the same meshes (the
 * kernel's exact geometry, evaluated in this process) through `reorderMesh`, 16-bit positions
 * over each mesh's box (8-byte stride), the vertex and index codecs at their defaults, all of the
 * response's buffers gzipped together (level 6). The candidate carries the whole response besides
 * (parts, instances, bbox, hashes, budget), so ≤ 1.05 leaves 5 % for all of it.
 *
 * The verdict counts a repeat request of each configuration (served from L1 in brotli once the
 * dense brotli prefix has been made off the request path, lib/render/coded_prefix.ts); the first
 * request's bytes (the miss, compressed on the request path: gzip, as the client takes it) are
 * printed beside it.
 *
 * A deterministic measurement: one render per model, no rounds.
 */
import http from "node:http";
import { gzipSync } from "node:zlib";
import { MeshoptEncoder } from "meshoptimizer/encoder";
import type { Benchmark, BenchResult } from "./benchmark.ts";
import { evaluateDagExact } from "../lib/kernel/evaluate.ts";
import { quantizePositions } from "../lib/kernel/mesh_encoding.ts";
import { RENDER_BINARY_TYPE } from "../lib/dag/render_binary.ts";
import {
  createRenderFixture,
  type ExampleProject,
  mintRenderHeaders,
  readExample,
  RENDER_PATH,
  startRenderBenchServer,
} from "./render_fixture.ts";

const TARGET = 1.05;
/** What Chromium sends; Deno's fetch sends "gzip, br". */
const ACCEPT_ENCODING = "gzip, deflate, br, zstd";
const SDK_ACCEPT = `${RENDER_BINARY_TYPE}, application/json;q=0.5`;

/** The example projects that have a template (a python-mode one has only its design). */
async function templateExamples(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(new URL("../examples/projects/", import.meta.url))) {
    try {
      await Deno.stat(
        new URL(`../examples/projects/${entry.name}/template.dag.json`, import.meta.url),
      );
      names.push(entry.name);
    } catch {
      // python-mode: no template
    }
  }
  return names.sort();
}

/** A second valid set of values: every numeric parameter at its maximum. */
function maxima(example: ExampleProject): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const p of example.parameters.parameters) {
    if (p.kind === "Int" || p.kind === "Float") values[p.name] = p.maximum;
  }
  return values;
}

/** POSTs `body` and counts the response bytes as they arrive (no content decoding). */
function wireBytes(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; bytes: number; encoding: string; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers }, (res) => {
      let bytes = 0;
      let text = "";
      res.on("data", (chunk: Uint8Array) => {
        bytes += chunk.byteLength;
        if (res.statusCode !== 200) text += new TextDecoder().decode(chunk);
      });
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          bytes,
          encoding: String(res.headers["content-encoding"] ?? "identity"),
          type: String(res.headers["content-type"] ?? ""),
          text,
        }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** gzip of every mesh of a scene coded by meshoptimizer directly (the baseline). */
function meshoptGzip(meshes: Iterable<{ positions: Float32Array; indices: Uint32Array }>): number {
  const buffers: Uint8Array[] = [];
  for (const mesh of meshes) {
    const indices = new Uint32Array(mesh.indices);
    if (indices.length === 0) continue;
    const [remap, unique] = MeshoptEncoder.reorderMesh(indices, true, true);
    const positions = new Float32Array(unique * 3);
    for (let v = 0; v < remap.length; v++) {
      if (remap[v] !== 0xffffffff) {
        positions.set(mesh.positions.subarray(v * 3, v * 3 + 3), remap[v] * 3);
      }
    }
    const { q } = quantizePositions(positions);
    const padded = new Uint16Array(unique * 4);
    for (let v = 0; v < unique; v++) padded.set(q.subarray(v * 3, v * 3 + 3), v * 4);
    buffers.push(
      MeshoptEncoder.encodeVertexBuffer(new Uint8Array(padded.buffer), unique, 8),
      MeshoptEncoder.encodeIndexBuffer(new Uint8Array(indices.buffer), indices.length, 4),
    );
  }
  const all = new Uint8Array(buffers.reduce((n, b) => n + b.byteLength, 0));
  let at = 0;
  for (const b of buffers) {
    all.set(b, at);
    at += b.byteLength;
  }
  return gzipSync(all).byteLength;
}

async function run(progress: (line: string) => void): Promise<BenchResult> {
  await MeshoptEncoder.ready;
  const examples = await templateExamples();
  const kernel = await startRenderBenchServer(examples[0]);
  try {
    const totals = { first: 0, sdk: 0, baseline: 0, json: 0, jsonIdentity: 0, binaryIdentity: 0 };
    const details: string[] = [];
    const problems: string[] = [];
    for (const name of examples) {
      const example = await readExample(name);
      const fixture = await createRenderFixture(kernel.server.deps.kv, example);
      const url = kernel.server.url + RENDER_PATH;
      const headers = await mintRenderHeaders(kernel.server.url, fixture);
      for (const [label, values] of [["defaults", {}], ["maxima", maxima(example)]] as const) {
        const dag = example.finish(values);
        const body = JSON.stringify({ dag });
        const ask = (accept: string, encoding: string) =>
          wireBytes(url, { ...headers, accept, "accept-encoding": encoding }, body);
        const sdk = await ask(SDK_ACCEPT, ACCEPT_ENCODING);
        if (sdk.status !== 200) {
          problems.push(`${name} ${label}: ${sdk.status} ${sdk.text.slice(0, 200)}`);
          continue;
        }
        if (sdk.encoding !== "gzip" || sdk.type !== RENDER_BINARY_TYPE) {
          problems.push(`${name} ${label}: got ${sdk.type} in ${sdk.encoding} (want gzip)`);
        }
        // The same configuration asked again (another shopper, or back to a value): served from
        // L1, in brotli once the dense prefix made off the request path is ready.
        let repeat = await ask(SDK_ACCEPT, ACCEPT_ENCODING);
        for (let i = 0; i < 80 && repeat.encoding !== "br"; i++) {
          await new Promise((resolve) => setTimeout(resolve, 25));
          repeat = await ask(SDK_ACCEPT, ACCEPT_ENCODING);
        }
        if (repeat.encoding !== "br") {
          problems.push(`${name} ${label}: the repeat request got ${repeat.encoding} (want br)`);
        }
        const json = await ask("application/json", ACCEPT_ENCODING);
        const jsonIdentity = await ask("application/json", "identity");
        const binaryIdentity = await ask(SDK_ACCEPT, "identity");
        const baseline = meshoptGzip((await evaluateDagExact(dag)).exact.values());
        totals.first += sdk.bytes;
        totals.sdk += repeat.bytes;
        totals.baseline += baseline;
        totals.json += json.bytes;
        totals.jsonIdentity += jsonIdentity.bytes;
        totals.binaryIdentity += binaryIdentity.bytes;
        const line =
          `${name} ${label}: SDK ${repeat.bytes} B (binary, br; first request ${sdk.bytes} B, ` +
          `${sdk.encoding}), ` +
          `meshopt+gzip ${baseline} B, ratio ${(repeat.bytes / baseline).toFixed(3)} ` +
          `(first ${
            (sdk.bytes / baseline).toFixed(3)
          }); JSON ${json.bytes} B (${json.encoding}), ` +
          `uncompressed binary ${binaryIdentity.bytes} B, JSON ${jsonIdentity.bytes} B`;
        details.push(line);
        progress(`render-bytes ${line}`);
      }
    }
    if (totals.sdk === 0) problems.push("no render succeeded");
    details.push(
      `first requests (the miss, gzip -9 on the request path): ${totals.first} B, ÷ baseline ` +
        `${(totals.first / totals.baseline).toFixed(3)}`,
      `JSON form (Accept: application/json, same Accept-Encoding) ${totals.json} B, ` +
        `÷ baseline ${(totals.json / totals.baseline).toFixed(3)}; uncompressed: binary ` +
        `${totals.binaryIdentity} B, JSON ${totals.jsonIdentity} B`,
    );
    return {
      title: "render-bytes",
      unit: "B",
      lowerIsBetter: true,
      baseline: {
        label: "meshopt (reorderMesh, 16-bit, vertex+index codecs) + gzip",
        value: totals.baseline,
      },
      candidate: {
        label: "render responses as the SDK receives them (binary, br; a repeat request)",
        value: totals.sdk,
      },
      target: TARGET,
      decimals: 3,
      summary: `${examples.length} template examples × (defaults, maxima), all meshes sent; ` +
        `SDK Accept "${SDK_ACCEPT}", Accept-Encoding "${ACCEPT_ENCODING}" (Chromium's)`,
      details,
      problems,
    };
  } finally {
    await kernel.close();
  }
}

/** Render-response bytes on the wire as the SDK receives them ÷ meshopt + gzip of the meshes; ≤ 1.05. */
export const renderBytesBench: Benchmark = {
  name: "render-bytes",
  description: "render response bytes on the wire (SDK: binary form, brotli) vs meshopt + gzip",
  run,
};
