/**
 * Render response bytes (lib/render/render_response_bytes.ts): the JSON and binary forms carry the
 * same members and decode to identical geometry, with and without omitted meshes; compressed
 * bodies (brotli, gzip; the cached prefix finished per request, lib/render/coded_prefix.ts)
 * decompress to exactly the identity bytes; the L2 text gives the same prepared scene.
 */
import assert from "node:assert/strict";
import zlib from "node:zlib";
import {
  PreparedScene,
  type RenderForm,
  type ResponseHead,
} from "@/lib/render/render_response_bytes.ts";
import { CodedPrefix } from "@/lib/render/coded_prefix.ts";
import { brotliStreamWindowBits } from "../_helpers/brotli_window.ts";
import type { Scene } from "@/lib/dag/scene.ts";
import { brotliWindowBits, type ContentCoding } from "@/lib/http/content_coding.ts";
import { evaluateDag } from "@/lib/kernel/evaluate.ts";
import { meshEncoderReady } from "@/lib/kernel/mesh_encoding.ts";
import { decodeRenderBody } from "@/lib/client/render_body.ts";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { substitute } from "@/lib/dag/substitute.ts";

await meshEncoderReady();

/** The stud plate at its maxima (two meshes; 1024 translated studs) with a rotated extra part. */
async function studPlate(): Promise<Scene> {
  const dir = new URL("../../examples/projects/stud-plate/", import.meta.url);
  const template = JSON.parse(await Deno.readTextFile(new URL("template.dag.json", dir)));
  const schema = validateParameterSchema(
    JSON.parse(await Deno.readTextFile(new URL("parameters.schema.json", dir))),
  );
  const values: Record<string, unknown> = {};
  for (const p of schema.parameters) {
    if (p.kind === "Int" || p.kind === "Float") values[p.name] = p.maximum;
  }
  const scene = await evaluateDag(substitute(template, schema, values));
  const turned = [0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0.1 + 0.2, 5, 7, 1];
  scene.parts.push({ ...scene.parts[0], name: "Grundplatte – Ø 12 😀", instances: [turned] });
  return scene;
}

const HEAD = {
  kernel: "manifold",
  kernelVersion: "manifold-3d@3.5.4+dag1+eval4",
  project: "plaque-ß",
  version: 3,
  dagHash: "f".repeat(64),
};

function bytesOf(body: string | Uint8Array): Uint8Array {
  return typeof body === "string" ? new TextEncoder().encode(body) : body;
}

function decompress(bytes: Uint8Array, coding: ContentCoding | null): Uint8Array {
  if (coding === "br") return new Uint8Array(zlib.brotliDecompressSync(bytes));
  if (coding === "gzip") return new Uint8Array(zlib.gunzipSync(bytes));
  return bytes;
}

Deno.test("response bytes - both forms, every coding, with and without omissions, decode alike", async () => {
  const scene = await studPlate();
  const prepared = PreparedScene.fromScene(scene);
  const [plate, stud] = prepared.meshHashes;
  const cases: [string[], "l1" | "l2" | "miss", number | null][] = [
    [[], "miss", 9],
    [[plate], "l1", 0],
    [[stud], "l2", null],
    [[plate, stud], "l1", 4],
    [["c".repeat(64), plate, plate], "l1", 2],
  ];
  for (const [have, cache, remaining] of cases) {
    const head = { ...HEAD, cache, remaining };
    const decoded = [];
    for (const form of ["json", "binary"] as RenderForm[]) {
      const identity = bytesOf(prepared.response(head, have, form, null).body);
      for (const coding of ["br", "gzip"] as const) {
        // Twice: the second finishes the cached prefix again.
        for (let i = 0; i < 2; i++) {
          const coded = prepared.response(head, have, form, coding);
          assert.equal(coded.coding, coding);
          assert.deepEqual(decompress(bytesOf(coded.body), coding), identity, `${form} ${coding}`);
        }
      }
      const body = await decodeRenderBody(identity);
      decoded.push(body);
      assert.deepEqual(body.omitted, [plate, stud].filter((h) => have.includes(h)));
      assert.deepEqual([...body.meshes.keys()], [plate, stud].filter((h) => !have.includes(h)));
      assert.deepEqual(
        [body.kernel, body.kernelVersion, body.project, body.version, body.dagHash, body.cache],
        [HEAD.kernel, HEAD.kernelVersion, HEAD.project, HEAD.version, HEAD.dagHash, cache],
      );
      assert.deepEqual(body.budget, { remaining });
      assert.equal(body.scene.parts[1].translations!.length, 3 * 1024);
      assert.deepEqual(body.scene.parts[2].matrices, scene.parts[2].instances[0]);
    }
    const [json, binary] = decoded;
    assert.deepEqual(binary.scene, json.scene, "same scene members");
    assert.deepEqual([...binary.meshes], [...json.meshes], "identical geometry");
    if (have.length === 0) {
      const text = new TextDecoder().decode(bytesOf(prepared.response(head, [], "json").body));
      assert.deepEqual(Object.keys(JSON.parse(text)), [
        "scene",
        "meshes",
        "kernel",
        "kernelVersion",
        "project",
        "version",
        "dagHash",
        "omitted",
        "cache",
        "budget",
      ]);
    }
  }
});

Deno.test("response bytes - the L2 text gives the same prepared scene; size counts what is held", async () => {
  const scene = await studPlate();
  const prepared = PreparedScene.fromScene(scene);
  const again = PreparedScene.fromText(prepared.text);
  assert.equal(again.text, prepared.text);
  assert.deepEqual(again.toScene(), scene);
  assert.deepEqual(again.meshHashes, prepared.meshHashes);
  const head = { ...HEAD, cache: "l2" as const, remaining: 1 };
  assert.deepEqual(
    again.response(head, [], "binary").body,
    prepared.response(head, [], "binary").body,
  );
  // Two bytes per character once any character is outside Latin-1 (a part name has "😀").
  assert.ok(prepared.size >= 2 * prepared.text.length);
  const empty: Scene = { ...scene, parts: [], meshes: {} };
  const bare = PreparedScene.fromScene(empty);
  assert.deepEqual(PreparedScene.fromText(bare.text).toScene(), empty);
  const body = await decodeRenderBody(bytesOf(bare.response(head, [], "binary").body));
  assert.equal(body.meshes.size, 0);
});

Deno.test("response bytes - a coded prefix finishes with any tail, also past one block", () => {
  const prefix = new TextEncoder().encode('{"a":"' + "xyz".repeat(5000) + '",');
  for (const coding of ["br", "gzip"] as const) {
    const coded = CodedPrefix.compress(prefix, coding);
    if (coding === "br") {
      // The window fits the prefix (the tail adds no distances): a decoder of this unfinished
      // stream allocates that much, not the default 4 MiB.
      assert.equal(
        brotliStreamWindowBits(coded.finish(new Uint8Array(0))),
        brotliWindowBits(prefix.byteLength),
      );
    }
    for (const size of [0, 1, 65535, 65536, 200_000]) {
      const tail = new Uint8Array(size).map((_, i) => (i * 31) & 0xff);
      const all = new Uint8Array(prefix.byteLength + size);
      all.set(prefix, 0);
      all.set(tail, prefix.byteLength);
      assert.deepEqual(decompress(coded.finish(tail), coding), all, `${coding} tail ${size}`);
    }
  }
});

Deno.test("response bytes - a coded prefix finishes with a text tail as with its UTF-8 bytes", () => {
  const prefix = new TextEncoder().encode('{"a":"' + "xyz".repeat(5000) + '",');
  const tails = [
    "",
    '"omitted":[],"cache":"l1","budget":{"remaining":41}}',
    // Not ASCII: written through the encoder.
    '"name":"Grundplatte – Ø 12 😀"}',
    // Past one block: written through the encoder, in several blocks.
    '"pad":"' + "q".repeat(70_000) + '"}',
  ];
  for (const coding of ["br", "gzip"] as const) {
    const coded = CodedPrefix.compress(prefix, coding);
    for (const tail of tails) {
      const bytes = new TextEncoder().encode(tail);
      const all = new Uint8Array(prefix.byteLength + bytes.byteLength);
      all.set(prefix, 0);
      all.set(bytes, prefix.byteLength);
      const fromText = coded.finish(tail);
      assert.deepEqual(fromText, coded.finish(bytes), `${coding} tail of ${tail.length}`);
      assert.deepEqual(decompress(fromText, coding), all, `${coding} tail of ${tail.length}`);
    }
  }
});

Deno.test("response bytes - a scene asked for under two projects and versions in turn answers each with its own members", async () => {
  const prepared = PreparedScene.fromScene(await studPlate());
  const heads: ResponseHead[] = [
    { ...HEAD, cache: "l1", remaining: 5 },
    { ...HEAD, project: "other-project", cache: "l1", remaining: 4 },
    { ...HEAD, version: 4, cache: "l2", remaining: 3 },
    { ...HEAD, kernelVersion: "manifold-3d@9.9.9+dag1+eval4", cache: "l1", remaining: 2 },
    { ...HEAD, cache: "l1", remaining: 1 },
  ];
  // Twice round: the second finishes the prefixes the first made.
  for (const head of [...heads, ...heads]) {
    for (const form of ["json", "binary"] as RenderForm[]) {
      const identity = bytesOf(prepared.response(head, [], form, null).body);
      for (const coding of ["br", "gzip"] as const) {
        const coded = prepared.response(head, [], form, coding);
        assert.deepEqual(decompress(bytesOf(coded.body), coding), identity, `${form} ${coding}`);
      }
      const body = await decodeRenderBody(identity);
      assert.deepEqual(
        [body.kernelVersion, body.project, body.version, body.cache, body.budget.remaining],
        [head.kernelVersion, head.project, head.version, head.cache, head.remaining],
      );
    }
  }
});

Deno.test("response bytes - a brotli prefix served again from a cache is replaced by a denser one off the request path", async () => {
  const scene = await studPlate();
  const prepared = PreparedScene.fromScene(scene);
  const head = { ...HEAD, cache: "l1" as const, remaining: 7 };
  const identity = bytesOf(prepared.response(head, [], "binary", null).body);
  const first = bytesOf(prepared.response(head, [], "binary", "br").body);
  assert.deepEqual(decompress(first, "br"), identity);
  // Served once: no dense coding yet (a configuration asked for once never pays it).
  assert.equal(prepared.upgradesStarted, 0);
  // Nor when its own evaluation's answers are served again (a single-flight burst's joiners).
  const joiner = { ...head, cache: "miss" as const };
  for (let i = 0; i < 3; i++) prepared.response(joiner, [], "binary", "br");
  assert.equal(prepared.upgradesStarted, 0);
  const second = bytesOf(prepared.response(head, [], "binary", "br").body);
  assert.deepEqual(second, first);
  assert.equal(prepared.upgradesStarted, 1);
  // The upgrade runs on node:zlib's thread pool; wait for it without a timing assumption.
  let later = first;
  for (let i = 0; i < 200 && later.byteLength >= first.byteLength; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    later = bytesOf(prepared.response(head, [], "binary", "br").body);
  }
  assert.ok(later.byteLength < first.byteLength, `${later.byteLength} < ${first.byteLength}`);
  assert.deepEqual(decompress(later, "br"), identity);
  // Still finishes any tail.
  const other = { ...head, cache: "miss" as const, remaining: null };
  assert.deepEqual(
    decompress(bytesOf(prepared.response(other, [], "binary", "br").body), "br"),
    bytesOf(prepared.response(other, [], "binary", null).body),
  );
  // Only brotli is upgraded; gzip prefixes stay as they were made, however often served.
  for (let i = 0; i < 3; i++) prepared.response(head, [], "json", "gzip");
  assert.equal(prepared.upgradesStarted, 1);
});

Deno.test("response bytes - an upgraded brotli prefix finishes with any tail", async () => {
  const prefix = new TextEncoder().encode('{"a":"' + "xyz".repeat(5000) + '",');
  const coded = await CodedPrefix.upgradeBrotli(prefix);
  assert.equal(
    brotliStreamWindowBits(coded.finish(new Uint8Array(0))),
    brotliWindowBits(prefix.byteLength),
  );
  for (const size of [0, 1, 65536]) {
    const tail = new Uint8Array(size).map((_, i) => (i * 31) & 0xff);
    const all = new Uint8Array(prefix.byteLength + size);
    all.set(prefix, 0);
    all.set(tail, prefix.byteLength);
    assert.deepEqual(decompress(coded.finish(tail), "br"), all, `tail ${size}`);
  }
});

for (const form of ["binary", "json"] as const) {
  Deno.test(`response bytes - ${form} form: a client that takes gzip gets it until the dense brotli prefix is ready`, async () => {
    const scene = await studPlate();
    const prepared = PreparedScene.fromScene(scene);
    const miss = { ...HEAD, cache: "miss" as const, remaining: 7 };
    const hit = { ...miss, cache: "l1" as const };
    const identityOf = (head: ResponseHead) =>
      bytesOf(prepared.response(head, [], form, null).body);
    // The miss and the answers of its own flight: gzip, and no dense coding started.
    for (let i = 0; i < 3; i++) {
      const answer = prepared.response(miss, [], form, "br", true);
      assert.equal(answer.coding, "gzip");
      assert.deepEqual(decompress(bytesOf(answer.body), "gzip"), identityOf(miss));
    }
    assert.equal(prepared.upgradesStarted, 0);
    // Asked again from the cache: still gzip, while the dense brotli prefix is made off the path.
    const first = prepared.response(hit, [], form, "br", true);
    assert.equal(first.coding, "gzip");
    assert.equal(prepared.upgradesStarted, 1);
    let later = first;
    for (let i = 0; i < 200 && later.coding !== "br"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      later = prepared.response(hit, [], form, "br", true);
    }
    assert.equal(later.coding, "br");
    assert.deepEqual(decompress(bytesOf(later.body), "br"), identityOf(hit));
    assert.equal(prepared.upgradesStarted, 1);
    // A client that takes only brotli gets the dense prefix too; one that prefers gzip gets gzip.
    assert.equal(prepared.response(hit, [], form, "br").coding, "br");
    assert.equal(prepared.response(hit, [], form, "gzip", true).coding, "gzip");
    // A body built for one request (meshes omitted) is compressed in gzip when the client takes it.
    const [plate] = prepared.meshHashes;
    const trimmed = prepared.response(hit, [plate], form, "br", true);
    assert.equal(trimmed.coding, "gzip");
    assert.deepEqual(
      decompress(bytesOf(trimmed.body), "gzip"),
      bytesOf(prepared.response(hit, [plate], form, null).body),
    );
  });
}

Deno.test("response bytes - a client that takes only brotli gets a fast prefix while the dense one is made", async () => {
  const prepared = PreparedScene.fromScene(await studPlate());
  const hit = { ...HEAD, cache: "l1" as const, remaining: 7 };
  // A gzip-taking client asked first: the brotli entry waits for its dense prefix.
  assert.equal(prepared.response(hit, [], "binary", "br", true).coding, "gzip");
  const fast = prepared.response(hit, [], "binary", "br");
  assert.equal(fast.coding, "br");
  const identity = bytesOf(prepared.response(hit, [], "binary", null).body);
  assert.deepEqual(decompress(bytesOf(fast.body), "br"), identity);
  let later = bytesOf(fast.body);
  for (let i = 0; i < 200 && later.byteLength >= bytesOf(fast.body).byteLength; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    later = bytesOf(prepared.response(hit, [], "binary", "br").body);
  }
  assert.ok(later.byteLength < bytesOf(fast.body).byteLength);
  assert.deepEqual(decompress(later, "br"), identity);
});
