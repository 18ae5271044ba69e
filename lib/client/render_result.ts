/**
 * A render response turned into what a viewer draws: parts that hold decoded meshes. Meshes the
 * client already held (`omitted`) come from the geometry cache; new ones are decoded and cached.
 * Held meshes are looked up before new ones are stored, so storing cannot evict a mesh this very
 * scene needs, and the result keeps its own references, so a later eviction never breaks a scene
 * that is on screen.
 *
 * Runs in browsers: no Deno APIs here.
 */

import type { BoundingBox, EffectiveValue } from "../dag/scene.ts";
import { instanceMatrices } from "../dag/wire_instances.ts";
import type { GeometryCache } from "./geometry_cache.ts";
import type { DecodedMesh } from "./mesh_decode.ts";
import { isRecord } from "./problem.ts";
import type { DecodedRenderBody } from "./render_body.ts";

/** One part of a rendered scene. */
export interface RenderedPart {
  name: string;
  /** `#rrggbb`. */
  color: string;
  /** The part's geometry (shared by parts with identical geometry). */
  mesh: DecodedMesh;
  /** Column-major 4×4 transforms, one per drawn instance. */
  instances: number[][];
}

/** A rendered scene, ready to draw. */
export interface RenderResult {
  /** The parameter values this scene was rendered for. */
  values: Record<string, unknown>;
  project: string;
  version: number;
  kernel: string;
  kernelVersion: string;
  /** SHA-256 of the canonical finished DAG. */
  dagHash: string;
  /** Where the server found the scene: `l1`, `l2` or `miss`. */
  cache: string;
  /** The token's renders left after this one; null when unlimited. */
  budgetRemaining: number | null;
  parts: RenderedPart[];
  bbox: BoundingBox;
  triangles: number;
  volume: number;
  /**
   * Parameters the DAG limited in this render, by name: the value the model uses and why
   * (docs/api.md, render; empty when nothing was limited or the server predates it).
   */
  effective: Record<string, EffectiveValue>;
  /** Mesh hashes whose data came with this response. */
  downloaded: string[];
  /** Mesh hashes the server left out because the client held them. */
  reused: string[];
}

/** What `assembleResult` gives: the result, or the meshes that could not be found. */
export type AssembledResult =
  | { ok: true; result: RenderResult }
  | { ok: false; missing: string[] };

/**
 * Builds a `RenderResult` from a decoded render response (`decodeRenderBody`), storing its new
 * meshes in `cache`. When a mesh the scene needs is neither in the response nor in the cache (the
 * cache was cleared meanwhile), returns the missing hashes instead, so the caller can ask again
 * without claiming them. Throws `TypeError` when a part's instances are malformed.
 *
 * @example
 * ```ts
 * const body = await decodeRenderBody(new Uint8Array(await res.arrayBuffer()));
 * const assembled = assembleResult(body, cache, values);
 * if (assembled.ok) draw(assembled.result.parts);
 * ```
 */
export function assembleResult(
  body: DecodedRenderBody,
  cache: GeometryCache,
  values: Record<string, unknown>,
): AssembledResult {
  const needed = new Set(body.scene.parts.map((part) => part.mesh));
  const meshes = new Map<string, DecodedMesh>();
  const reused: string[] = [];
  const missing: string[] = [];
  for (const hash of needed) {
    if (body.meshes.has(hash)) continue;
    const held = cache.get(hash);
    if (held) {
      meshes.set(hash, held);
      reused.push(hash);
    } else {
      missing.push(hash);
    }
  }
  if (missing.length > 0) return { ok: false, missing };
  const parts = body.scene.parts.map((part) => ({
    name: part.name,
    color: part.color,
    mesh: part.mesh,
    instances: instanceMatrices(part),
  }));
  const downloaded: string[] = [];
  for (const [hash, mesh] of body.meshes) {
    cache.set(hash, mesh);
    meshes.set(hash, mesh);
    downloaded.push(hash);
  }
  return {
    ok: true,
    result: {
      values,
      project: body.project,
      version: body.version,
      kernel: body.kernel,
      kernelVersion: body.kernelVersion,
      dagHash: body.dagHash,
      cache: body.cache,
      budgetRemaining: body.budget.remaining,
      parts: parts.map((part) => ({ ...part, mesh: meshes.get(part.mesh)! })),
      bbox: body.scene.bbox,
      triangles: body.scene.triangles,
      volume: body.scene.volume,
      effective: isRecord(body.scene.effective) ? body.scene.effective : {},
      downloaded,
      reused,
    },
  };
}
