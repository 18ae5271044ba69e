/**
 * Render responses as bytes, serialized once per scene (issue 3, render-hit and render-flight):
 * a scene is turned into its JSON bytes when it enters the render cache, and each response is
 * those bytes with the per-request members (project, version, dagHash, cache, budget) spliced in
 * front, instead of a `JSON.stringify` of the whole scene per request. The 31 requests that wait
 * on one single-flight evaluation, and every L1 hit after it, copy the same bytes.
 *
 * The bytes are exactly those of `JSON.stringify(response)` for the `RenderResponse` object of
 * docs/api.md (same members, same order); a request whose `have` names meshes of the scene gets
 * those members cut out of the cached bytes and listed in `omitted`.
 */
import type { CacheLevel } from "../cache/render_cache.ts";
import type { Scene } from "./scene.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MESHES_OPEN = encoder.encode(',"meshes":{');
const COMMA = encoder.encode(",");

/** Where one mesh member (`"<hash>":{…}`) lies inside `PreparedScene.bytes`. */
interface MeshSpan {
  hash: string;
  start: number;
  end: number;
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

/**
 * A scene serialized once: `"scene":{…},"meshes":{…},"omitted":[]}` as UTF-8 bytes (the tail of
 * every response that omits nothing), with the byte span of each mesh member.
 */
export class PreparedScene {
  /** The response tail when the client holds none of the meshes. */
  readonly bytes: Uint8Array;
  /** Byte length of `"scene":{…}` at the start of `bytes`. */
  readonly #sceneEnd: number;
  readonly #spans: readonly MeshSpan[];

  private constructor(bytes: Uint8Array, sceneEnd: number, spans: MeshSpan[]) {
    this.bytes = bytes;
    this.#sceneEnd = sceneEnd;
    this.#spans = spans;
  }

  /**
   * Serializes `scene`; also returns the scene's own JSON (for the L2 cache), built from the same
   * pieces so the meshes are stringified once.
   *
   * @example
   * ```ts
   * const { prepared, json } = PreparedScene.fromScene(scene);
   * ```
   */
  static fromScene(scene: Scene): { prepared: PreparedScene; json: string } {
    const { meshes, ...rest } = scene;
    const restJson = JSON.stringify(rest);
    const members = Object.entries(meshes).map(([hash, mesh]) => ({
      hash,
      text: JSON.stringify(hash) + ":" + JSON.stringify(mesh),
    }));
    // One encode of the whole tail; the spans are found from each piece's UTF-8 length.
    const head = '"scene":' + restJson;
    const meshesJson = members.map((m) => m.text).join(",");
    const bytes = encoder.encode(head + ',"meshes":{' + meshesJson + '},"omitted":[]}');
    const sceneEnd = utf8Length(head);
    const spans: MeshSpan[] = [];
    let at = sceneEnd + MESHES_OPEN.byteLength;
    for (const m of members) {
      const end = at + utf8Length(m.text);
      spans.push({ hash: m.hash, start: at, end });
      at = end + 1;
    }
    const json = restJson === "{}"
      ? `{"meshes":{${meshesJson}}}`
      : `{"meshes":{${meshesJson}},` + restJson.slice(1);
    return { prepared: new PreparedScene(bytes, sceneEnd, spans), json };
  }

  /** Approximate bytes this entry holds (for the L1 bound). */
  get size(): number {
    return 256 + this.bytes.byteLength + this.#spans.length * 160;
  }

  /** The hashes of the scene's meshes, in response order. */
  get meshHashes(): string[] {
    return this.#spans.map((s) => s.hash);
  }

  /** The scene again, as a plain object (tests and tools; the response path never needs it). */
  toScene(): Scene {
    const text = decoder.decode(this.bytes);
    const body = JSON.parse("{" + text) as { scene: Omit<Scene, "meshes">; meshes: Scene["meshes"] };
    return { ...body.scene, meshes: body.meshes } as Scene;
  }

  /**
   * The whole response body: `head`'s members, then the scene and the meshes the client does not
   * hold (`have`), then `omitted`.
   *
   * @example
   * ```ts
   * const body = prepared.response({ kernel, kernelVersion, project, version, dagHash, cache, remaining }, []);
   * return new Response(body, { headers: { "content-type": "application/json" } });
   * ```
   */
  response(head: ResponseHead, have: readonly string[]): Uint8Array<ArrayBuffer> {
    const front = encoder.encode(
      `{"kernel":${JSON.stringify(head.kernel)},"kernelVersion":${
        JSON.stringify(head.kernelVersion)
      },"project":${JSON.stringify(head.project)},"version":${head.version},"dagHash":${
        JSON.stringify(head.dagHash)
      },"cache":${JSON.stringify(head.cache)},"budget":{"remaining":${head.remaining}},`,
    );
    const held = have.length === 0 ? undefined : new Set(have);
    const omitted = held ? this.#spans.filter((s) => held.has(s.hash)) : [];
    if (omitted.length === 0) return concat([front, this.bytes]);
    const chunks: Uint8Array[] = [front, this.bytes.subarray(0, this.#sceneEnd), MESHES_OPEN];
    let first = true;
    for (const span of this.#spans) {
      if (held!.has(span.hash)) continue;
      if (!first) chunks.push(COMMA);
      chunks.push(this.bytes.subarray(span.start, span.end));
      first = false;
    }
    chunks.push(encoder.encode(`},"omitted":${JSON.stringify(omitted.map((s) => s.hash))}}`));
    return concat(chunks);
  }
}

/** UTF-8 byte length of a string (JSON text: lone surrogates were escaped by JSON.stringify). */
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 2; // a surrogate pair: 2 UTF-16 units, 4 bytes
      i++;
    } else bytes += 2;
  }
  return bytes;
}

function concat(chunks: Uint8Array[]): Uint8Array<ArrayBuffer> {
  let size = 0;
  for (const c of chunks) size += c.byteLength;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
