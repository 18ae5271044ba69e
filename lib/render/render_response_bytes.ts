/**
 * Render responses serialized once per scene (issue 3, render-hit and render-flight; issue 15,
 * wire bytes): a scene is turned into its response bytes when it enters the render cache, in both
 * forms (docs/api.md, render) — JSON text and the binary form (lib/dag/render_binary.ts) — and
 * each response is those bytes followed by the per-request members (omitted, kernel, project,
 * version, dagHash, cache, budget). The 31 requests that wait on one single-flight evaluation, and
 * every L1 hit after it, reuse the same bytes; compressed bytes are kept per form and coding
 * (lib/render/coded_prefix.ts), so a hit never compresses again.
 *
 * A request whose `have` names meshes of the scene gets those meshes cut out and listed in
 * `omitted` (its body is then built, and compressed, for that request alone).
 *
 * In either form, what is compressed on a request's path is compressed in gzip when the client
 * takes it, even if it prefers brotli; brotli is sent once its dense coding, made off the request
 * path, is ready (docs/api.md, compression). On the examples' first answers gzip -9 comes within
 * about 2 % of brotli's fast quality (a JSON answer with long instance lists as text loses more),
 * takes less time per call (0.5–0.85× on most), and frees its state when the call ends: the
 * native state of a `node:zlib` brotli encoder in Deno is freed only when V8 collects its wrapper,
 * so brotli on the request path held memory per miss until a major GC (render-memory 1.20–1.23
 * against 1.12–1.14; docs/performance.md).
 */
import type { BinaryMesh, CacheLevel, WirePart, WireScene } from "../dag/render_response.ts";
import {
  alignUp,
  RENDER_BINARY_HEADER,
  RENDER_BINARY_MAGIC,
  RENDER_BINARY_VERSION,
} from "../dag/render_binary.ts";
import type { EncodedMesh, Scene, ScenePart } from "../dag/scene.ts";
import { compactInstances, instanceMatrices } from "../dag/wire_instances.ts";
import { base64ToBytes, encodeInstanceBytes } from "../kernel/mesh_encoding.ts";
import { compressSync, type ContentCoding } from "../http/content_coding.ts";
import { CodedPrefix } from "./coded_prefix.ts";

/** The two forms of a render response: JSON (the default) or binary. */
export type RenderForm = "json" | "binary";

const MESHES_OPEN = ',"meshes":{';
const encoder = new TextEncoder();

/** One mesh: where its member lies in `PreparedScene.text`, and its bytes for the binary form. */
interface PreparedMesh {
  hash: string;
  start: number;
  end: number;
  /** `"vertexCount":…,"triangleCount":…,"min":[…],"scale":[…]`. */
  meta: string;
  vertices: Uint8Array;
  indices: Uint8Array;
}

/** A part's instance transforms for the binary form: meshopt-coded Float64 values. */
interface PreparedInstances {
  /** `"name":…,"color":…,"mesh":…`. */
  members: string;
  kind: "translations" | "matrices";
  count: number;
  bytes: Uint8Array;
}

/**
 * A compressed prefix kept for a scene, and whether its dense brotli coding was started. A brotli
 * entry started for a client that also takes gzip has no prefix until the dense one is ready.
 */
interface CodedEntry {
  prefix?: CodedPrefix;
  upgrading: boolean;
}

/** Compressed prefixes kept per scene (form × coding × the scene's response members). */
const MAX_CODED = 8;

/**
 * The members fixed for a scene and project version (`ResponseHead` but `cache` and `remaining`),
 * as JSON text, and the keys of `#coded` made with them, by form and coding.
 */
interface FixedMembers {
  head: ResponseHead;
  text: string;
  keys: Map<string, string>;
}

/** The per-request members of a render response. */
export interface ResponseHead {
  kernel: string;
  kernelVersion: string;
  project: string;
  version: number;
  dagHash: string;
  cache: CacheLevel;
  /** The budget left after this render (null = unlimited). */
  remaining: number | null;
}

/** A response body: text (JSON, identity) or bytes, with the coding applied (null = identity). */
export interface PreparedBody {
  body: string | Uint8Array<ArrayBuffer>;
  coding: ContentCoding | null;
}

/**
 * A scene serialized once: `text` is the JSON form up to the per-request members,
 * `{"scene":{…},"meshes":{…}` (the L2 cache stores it), and the binary form's bytes up to its tail
 * are built beside it.
 */
export class PreparedScene {
  /** The JSON response up to its per-request members, when the client holds none of the meshes. */
  readonly text: string;
  /** Length of `{"scene":{…}` at the start of `text`. */
  readonly #sceneEnd: number;
  readonly #meshes: readonly PreparedMesh[];
  readonly #parts: readonly PreparedInstances[];
  /** The scene's members after `parts` (`"bbox":…`), as JSON text. */
  readonly #sceneRest: string;
  /** The binary form up to its tail, all meshes included. */
  readonly #binary: Uint8Array;
  /** Compressed prefixes by form, coding and response members, made on first use. */
  readonly #coded = new Map<string, CodedEntry>();
  /**
   * The fixed members last asked for. Every hit of a scene in one project version asks for the
   * same: reusing the strings spares building them and hashing a new `#coded` key per request.
   */
  #fixed?: FixedMembers;
  readonly #size: number;

  private constructor(
    text: string,
    sceneEnd: number,
    meshes: PreparedMesh[],
    parts: PreparedInstances[],
    sceneRest: string,
  ) {
    this.text = text;
    this.#sceneEnd = sceneEnd;
    this.#sceneRest = sceneRest;
    // From here on the instance and mesh buffers are views of the binary form: an L1 entry holds
    // each mesh's bytes once, not once decoded and again inside the binary form.
    const binary = binaryPrefix(parts, sceneRest, meshes);
    this.#binary = binary.bytes;
    this.#parts = binary.parts;
    this.#meshes = binary.meshes;
    // A string of Latin-1 characters holds one byte each, any other two. Compressed prefixes come
    // later; room for them is counted now (the L1 bound is set once per entry): they are well
    // under half their input, and a scene is rarely asked for in more than two form-codings.
    const textBytes = text.length * (/[\u0100-\uffff]/.test(text) ? 2 : 1);
    this.#size = 256 + meshes.length * 160 + 2 * (textBytes + this.#binary.byteLength);
  }

  /**
   * Serializes `scene`.
   *
   * @example
   * ```ts
   * const prepared = PreparedScene.fromScene(scene);
   * ```
   */
  static fromScene(scene: Scene): PreparedScene {
    const { meshes, ...rest } = scene;
    return PreparedScene.#build(wireScene(rest), meshes);
  }

  /**
   * The prepared scene whose `text` this was (the L2 cache stores `text`: a miss writes the
   * string it already holds, and nothing is serialized twice).
   *
   * @example
   * ```ts
   * const again = PreparedScene.fromText(prepared.text); // equal text and bytes
   * ```
   */
  static fromText(text: string): PreparedScene {
    const body = JSON.parse(text + "}") as {
      scene: WireScene;
      meshes: Record<string, EncodedMesh>;
    };
    return PreparedScene.#build(body.scene, body.meshes);
  }

  static #build(scene: WireScene, meshes: Record<string, EncodedMesh>): PreparedScene {
    const head = '{"scene":' + JSON.stringify(scene);
    const members: PreparedMesh[] = [];
    const texts: string[] = [];
    let at = head.length + MESHES_OPEN.length;
    for (const [hash, mesh] of Object.entries(meshes)) {
      const text = JSON.stringify(hash) + ":" + JSON.stringify(mesh);
      const meta = JSON.stringify({
        vertexCount: mesh.vertexCount,
        triangleCount: mesh.triangleCount,
        min: mesh.min,
        scale: mesh.scale,
      }).slice(1, -1);
      members.push({
        hash,
        start: at,
        end: at + text.length,
        meta,
        vertices: base64ToBytes(mesh.vertices),
        indices: base64ToBytes(mesh.indices),
      });
      texts.push(text);
      at += text.length + 1;
    }
    const text = flat(head + MESHES_OPEN + texts.join(",") + "}");
    const { parts, ...rest } = scene;
    const prepared = parts.map((part): PreparedInstances => {
      const members = JSON.stringify({ name: part.name, color: part.color, mesh: part.mesh })
        .slice(1, -1);
      const kind = part.translations ? "translations" : "matrices";
      const values = part.translations ?? part.matrices ?? [];
      const stride = kind === "translations" ? 3 : 16;
      return {
        members,
        kind,
        count: values.length / stride,
        bytes: encodeInstanceBytes(values, stride),
      };
    });
    return new PreparedScene(
      text,
      head.length,
      members,
      prepared,
      JSON.stringify(rest).slice(1, -1),
    );
  }

  /** Approximate bytes this entry holds (for the L1 bound). */
  get size(): number {
    return this.#size;
  }

  /** How many cached brotli prefixes have had their dense coding started (tests, `#upgrade`). */
  get upgradesStarted(): number {
    return [...this.#coded.values()].filter((entry) => entry.upgrading).length;
  }

  /** The hashes of the scene's meshes, in response order. */
  get meshHashes(): string[] {
    return this.#meshes.map((m) => m.hash);
  }

  /** The scene again, as a plain object (tests and tools; the response path never needs it). */
  toScene(): Scene {
    const body = JSON.parse(this.text + "}") as {
      scene: WireScene;
      meshes: Record<string, EncodedMesh>;
    };
    const { parts, ...rest } = body.scene;
    return {
      parts: parts.map(scenePart),
      meshes: body.meshes,
      ...rest,
    } as Scene;
  }

  /**
   * The whole response body in `form`, compressed in the client's preferred `coding` (null:
   * identity) or, when it prefers brotli and `gzipAccepted`, in gzip until a dense brotli prefix
   * is ready (the body's `coding` says which): the scene, the meshes the client does not hold
   * (`have`), then `omitted` and `head`'s members. With nothing omitted, the bytes before the
   * per-request members are compressed once per form and coding and reused.
   *
   * @example
   * ```ts
   * const { body, coding } = prepared.response(head, [], "binary", "br", true);
   * return new Response(body, { headers: { "content-encoding": coding! } });
   * ```
   */
  response(
    head: ResponseHead,
    have: readonly string[],
    form: RenderForm = "json",
    coding: ContentCoding | null = null,
    gzipAccepted = false,
  ): PreparedBody {
    const held = have.length === 0 ? undefined : new Set(have);
    const omitted = held ? this.#meshes.filter((m) => held.has(m.hash)) : [];
    const fixed = this.#fixedMembers(head);
    const scene = fixed.text;
    const request = requestMembers(head, omitted.map((m) => m.hash));
    if (omitted.length === 0) {
      // Everything up to the per-request members is the same for every request of this scene.
      const open = form === "json" ? "," : "{";
      if (coding === null) {
        const tail = open + scene + "," + request + "}";
        return { body: form === "json" ? this.text + tail : concat(this.#binary, tail), coding };
      }
      const members = open + scene + ",";
      const fromCache = head.cache !== "miss";
      const chosen = gzipAccepted
        ? this.#prefixCoding(form, coding, members, fixed, fromCache)
        : coding;
      const coded = this.#codedPrefix(form, chosen, members, fixed, fromCache);
      return { body: coded.finish(request + "}"), coding: chosen };
    }
    const kept = this.#meshes.filter((m) => !held!.has(m.hash));
    const members = scene + "," + request;
    const body = form === "json"
      ? this.text.slice(0, this.#sceneEnd) + MESHES_OPEN +
        kept.map((m) => this.text.slice(m.start, m.end)).join(",") + "}," + members + "}"
      : concat(binaryPrefix(this.#parts, this.#sceneRest, kept).bytes, "{" + members + "}");
    if (coding === null) return { body, coding };
    const bytes = typeof body === "string" ? encoder.encode(body) : body;
    const chosen = gzipAccepted ? "gzip" : coding;
    return { body: compressSync(bytes, chosen, "dynamic"), coding: chosen };
  }

  /**
   * The coding of a prefix for a client that takes gzip and prefers `coding`: brotli when a
   * brotli prefix of this form is held already (dense, or fast for a client that takes no gzip),
   * else gzip; served from a cache, it also starts the dense brotli prefix (`#upgrade`).
   */
  #prefixCoding(
    form: RenderForm,
    coding: ContentCoding,
    members: string,
    fixed: FixedMembers,
    fromCache: boolean,
  ): ContentCoding {
    if (coding !== "br") return coding;
    const key = codedKey(fixed, form, "br", members);
    const held = this.#coded.get(key);
    if (held?.prefix) return "br";
    if (fromCache && !held) {
      const entry: CodedEntry = { upgrading: false };
      this.#keep(key, entry);
      this.#upgrade(entry, this.#prefixBytes(form, members));
    }
    return "gzip";
  }

  #codedPrefix(
    form: RenderForm,
    coding: ContentCoding,
    members: string,
    fixed: FixedMembers,
    fromCache: boolean,
  ): CodedPrefix {
    const key = codedKey(fixed, form, coding, members);
    const held = this.#coded.get(key);
    if (held?.prefix) {
      if (coding === "br" && fromCache && !held.upgrading) {
        this.#upgrade(held, this.#prefixBytes(form, members));
      }
      return held.prefix;
    }
    const prefix = CodedPrefix.compress(this.#prefixBytes(form, members), coding);
    // A brotli entry whose dense prefix is still on its way gets this fast one meanwhile.
    if (held) held.prefix = prefix;
    else this.#keep(key, { prefix, upgrading: false });
    return prefix;
  }

  /** The fixed members of `head`, the last ones again when they are equal. */
  #fixedMembers(head: ResponseHead): FixedMembers {
    const last = this.#fixed;
    if (
      last && last.head.dagHash === head.dagHash && last.head.project === head.project &&
      last.head.version === head.version && last.head.kernel === head.kernel &&
      last.head.kernelVersion === head.kernelVersion
    ) {
      return last;
    }
    return this.#fixed = { head, text: sceneMembers(head), keys: new Map() };
  }

  /** The uncompressed prefix of `form` followed by `members`. */
  #prefixBytes(form: RenderForm, members: string): Uint8Array {
    return concat(form === "json" ? encoder.encode(this.text) : this.#binary, members);
  }

  /** Keeps `entry` under `key`; bounded, as a scene is rarely asked for under two versions. */
  #keep(key: string, entry: CodedEntry): void {
    if (this.#coded.size >= MAX_CODED) this.#coded.delete(this.#coded.keys().next().value!);
    this.#coded.set(key, entry);
  }

  /**
   * Replaces the fast brotli prefix of `entry` (or fills an entry that has none, for clients that
   * got gzip meanwhile) by a denser one made off the request path, so the later requests get fewer
   * bytes (docs/api.md, compression). Started when a prefix is served
   * again from a cache (L1 or L2), after the answers of its own evaluation: a configuration asked
   * for once (most slider positions, a burst of new values) never pays the dense coding's CPU,
   * which on a saturated node is taken from the evaluations (render-capacity: 0.59 → 0.74 of the
   * direct builds without it), and neither does a burst of identical requests that one
   * evaluation answers (single flight), where it competed for the CPU with answering the burst
   * (render-flight: ~10 ms of a thread per burst). An entry evicted meanwhile is not brought back;
   * a failure keeps the fast prefix.
   */
  #upgrade(entry: CodedEntry, prefix: Uint8Array): void {
    entry.upgrading = true;
    CodedPrefix.upgradeBrotli(prefix).then((dense) => {
      if (!entry.prefix || dense.size < entry.prefix.size) entry.prefix = dense;
    }, () => {});
  }
}

/**
 * Where a compressed prefix is kept in a scene's `#coded`: `members` are `fixed`'s, opened for
 * `form`, and the key is made once per form and coding of them.
 */
function codedKey(
  fixed: FixedMembers,
  form: RenderForm,
  coding: ContentCoding,
  members: string,
): string {
  const short = form + coding;
  let key = fixed.keys.get(short);
  if (key === undefined) fixed.keys.set(short, key = `${form}:${coding}:${members}`);
  return key;
}

/** The members fixed for a scene and project version, as JSON members without braces. */
function sceneMembers(head: ResponseHead): string {
  return `"kernel":${JSON.stringify(head.kernel)},"kernelVersion":${
    JSON.stringify(head.kernelVersion)
  },"project":${JSON.stringify(head.project)},"version":${head.version},"dagHash":${
    JSON.stringify(head.dagHash)
  }`;
}

/** The members that change per request, as JSON members without braces. */
function requestMembers(head: ResponseHead, omitted: string[]): string {
  return `"omitted":${JSON.stringify(omitted)},"cache":${
    JSON.stringify(head.cache)
  },"budget":{"remaining":${head.remaining}}`;
}

/**
 * The binary form up to its tail (lib/dag/render_binary.ts): header, head, padding, data (each
 * part's instance buffer, then each mesh's vertex and index buffers); with `parts` and `meshes`
 * again, their buffers now views of those bytes.
 */
function binaryPrefix(
  parts: readonly PreparedInstances[],
  sceneRest: string,
  meshes: readonly PreparedMesh[],
): { bytes: Uint8Array<ArrayBuffer>; parts: PreparedInstances[]; meshes: PreparedMesh[] } {
  let at = 0;
  const buffers: Uint8Array[] = [];
  const places: number[] = [];
  const place = (bytes: Uint8Array): number => {
    const start = alignUp(at);
    at = start + bytes.byteLength;
    buffers.push(bytes);
    places.push(start);
    return start;
  };
  const partTexts = parts.map((p) =>
    `{${p.members},${JSON.stringify(p.kind)}:[${place(p.bytes)},${p.bytes.byteLength},${p.count}]}`
  );
  const meshTexts = meshes.map((m) => {
    const ranges: Pick<BinaryMesh, "vertices" | "indices"> = {
      vertices: [place(m.vertices), m.vertices.byteLength],
      indices: [place(m.indices), m.indices.byteLength],
    };
    return `${JSON.stringify(m.hash)}:{${m.meta},${JSON.stringify(ranges).slice(1)}`;
  });
  const head = encoder.encode(
    `{"scene":{"parts":[${partTexts.join(",")}]${sceneRest ? "," + sceneRest : ""}},` +
      `"meshes":{${meshTexts.join(",")}}}`,
  );
  const dataStart = alignUp(RENDER_BINARY_HEADER + head.byteLength);
  const out = new Uint8Array(dataStart + at);
  out.set(RENDER_BINARY_MAGIC, 0);
  const view = new DataView(out.buffer);
  view.setUint32(4, RENDER_BINARY_VERSION, true);
  view.setUint32(8, head.byteLength, true);
  view.setUint32(12, at, true);
  out.set(head, RENDER_BINARY_HEADER);
  buffers.forEach((bytes, k) => out.set(bytes, dataStart + places[k]));
  // The buffers in the order they were placed above: each part's, then each mesh's two.
  let k = 0;
  const placed = () => {
    const start = dataStart + places[k];
    return out.subarray(start, start + buffers[k++].byteLength);
  };
  return {
    bytes: out,
    parts: parts.map((part) => ({ ...part, bytes: placed() })),
    meshes: meshes.map((mesh) => ({ ...mesh, vertices: placed(), indices: placed() })),
  };
}

/** `bytes` followed by the UTF-8 of `text`. */
function concat(bytes: Uint8Array, text: string): Uint8Array<ArrayBuffer> {
  const tail = encoder.encode(text);
  const out = new Uint8Array(bytes.byteLength + tail.byteLength);
  out.set(bytes, 0);
  out.set(tail, bytes.byteLength);
  return out;
}

/** The scene's members as sent: each part's instances compactly (`WirePart`). */
function wireScene(scene: Omit<Scene, "meshes">): WireScene {
  const { parts, ...rest } = scene;
  return {
    parts: parts.map((part): WirePart => ({
      name: part.name,
      color: part.color,
      mesh: part.mesh,
      ...compactInstances(part.instances),
    })),
    ...rest,
  };
}

/** A part with its instances as 4×4 matrices again. */
function scenePart(part: WirePart): ScenePart {
  return { name: part.name, color: part.color, mesh: part.mesh, instances: instanceMatrices(part) };
}

/** The string flattened now (a concatenation is a tree until first read; L1 keeps it long). */
function flat(text: string): string {
  // Reading a character flattens a V8 cons string in place.
  text.charCodeAt(text.length >> 1);
  return text;
}
