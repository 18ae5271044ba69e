/**
 * Render responses serialized once per scene (issue 3, render-hit and render-flight):
 * a scene is turned into its JSON text when it enters the render cache, and each response is
 * that text with the per-request members (project, version, dagHash, cache, budget) spliced in
 * front, instead of a `JSON.stringify` of the whole scene per request. The 31 requests that wait
 * on one single-flight evaluation, and every L1 hit after it, reuse the same text.
 *
 * The text is exactly that of `JSON.stringify(response)` for the `RenderResponse` object of
 * docs/api.md (same members, same order); a request whose `have` names meshes of the scene gets
 * those members cut out of the cached text and listed in `omitted`.
 */
import type { CacheLevel } from "../dag/render_response.ts";
import type { Scene } from "../dag/scene.ts";

const MESHES_OPEN = ',"meshes":{';

/** Where one mesh member (`"<hash>":{…}`) lies inside `PreparedScene.text`. */
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
 * A scene serialized once: `"scene":{…},"meshes":{…},"omitted":[]}` (the tail of every response
 * that omits nothing), with the span of each mesh member. It is kept as a string, on the JS heap:
 * measured against bytes off the heap, the heap reuses the room that per-render garbage needs
 * anyway, while off-heap buffers held for a long time between short-lived ones fragment the
 * allocator and the process keeps growing (issue 3, render-memory).
 */
export class PreparedScene {
  /** The response tail when the client holds none of the meshes. */
  readonly text: string;
  /** Length of `"scene":{…}` at the start of `text`. */
  readonly #sceneEnd: number;
  readonly #spans: readonly MeshSpan[];
  readonly #size: number;

  private constructor(text: string, sceneEnd: number, spans: MeshSpan[]) {
    this.text = text;
    this.#sceneEnd = sceneEnd;
    this.#spans = spans;
    // A string of Latin-1 characters holds one byte each, any other two.
    this.#size = 256 + spans.length * 160 + text.length * (/[\u0100-\uffff]/.test(text) ? 2 : 1);
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
    const restJson = JSON.stringify(rest);
    const members = Object.entries(meshes).map(([hash, mesh]) => ({
      hash,
      text: JSON.stringify(hash) + ":" + JSON.stringify(mesh),
    }));
    const head = '"scene":' + restJson;
    const meshesJson = members.map((m) => m.text).join(",");
    const spans: MeshSpan[] = [];
    let at = head.length + MESHES_OPEN.length;
    for (const m of members) {
      spans.push({ hash: m.hash, start: at, end: at + m.text.length });
      at += m.text.length + 1;
    }
    const text = flat(head + MESHES_OPEN + meshesJson + '},"omitted":[]}');
    return new PreparedScene(text, head.length, spans);
  }

  /**
   * The prepared scene whose `text` this was (the L2 cache stores `text`: a miss writes the
   * string it already holds, and nothing is serialized twice).
   *
   * @example
   * ```ts
   * const again = PreparedScene.fromText(prepared.text); // equal text, same spans
   * ```
   */
  static fromText(text: string): PreparedScene {
    return PreparedScene.fromScene(PreparedScene.#parse(text));
  }

  /** Approximate bytes this entry holds (for the L1 bound). */
  get size(): number {
    return this.#size;
  }

  /** The hashes of the scene's meshes, in response order. */
  get meshHashes(): string[] {
    return this.#spans.map((s) => s.hash);
  }

  /** The scene again, as a plain object (tests and tools; the response path never needs it). */
  toScene(): Scene {
    return PreparedScene.#parse(this.text);
  }

  static #parse(text: string): Scene {
    const body = JSON.parse("{" + text) as {
      scene: Omit<Scene, "meshes">;
      meshes: Scene["meshes"];
    };
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
  response(head: ResponseHead, have: readonly string[]): string {
    const front = `{"kernel":${JSON.stringify(head.kernel)},"kernelVersion":${
      JSON.stringify(head.kernelVersion)
    },"project":${JSON.stringify(head.project)},"version":${head.version},"dagHash":${
      JSON.stringify(head.dagHash)
    },"cache":${JSON.stringify(head.cache)},"budget":{"remaining":${head.remaining}},`;
    const held = have.length === 0 ? undefined : new Set(have);
    const omitted = held ? this.#spans.filter((s) => held.has(s.hash)) : [];
    if (omitted.length === 0) return front + this.text;
    const kept = this.#spans.filter((s) => !held!.has(s.hash));
    return front + this.text.slice(0, this.#sceneEnd) + MESHES_OPEN +
      kept.map((s) => this.text.slice(s.start, s.end)).join(",") +
      `},"omitted":${JSON.stringify(omitted.map((s) => s.hash))}}`;
  }
}

/** The string flattened now (a concatenation is a tree until first read; L1 keeps it long). */
function flat(text: string): string {
  // Reading a character flattens a V8 cons string in place.
  text.charCodeAt(text.length >> 1);
  return text;
}
