/**
 * The render response's wire shape (docs/api.md, render): shared by the kernel that writes it
 * (lib/render/render_response_bytes.ts) and the client that reads it (lib/client/render_body.ts).
 * Two forms carry the same members: JSON (the default) and the binary form
 * (`lib/dag/render_binary.ts`), whose JSON head names byte ranges instead of base64.
 */
import type { BoundingBox, EffectiveValue, EncodedMesh } from "./scene.ts";

/** Where a render came from: the in-process cache, Redis, or an evaluation. */
export type CacheLevel = "l1" | "l2" | "miss";

/**
 * A part as sent: instance transforms compactly, exactly one of `translations` (x, y, z per
 * instance, when every instance only moves the part) or `matrices` (16 numbers per instance,
 * column-major 4×4).
 */
export interface WirePart {
  name: string;
  /** `#rrggbb`. */
  color: string;
  /** Hash of the part's mesh. */
  mesh: string;
  translations?: number[];
  matrices?: number[];
}

/**
 * A part in the binary form's head: its instance transforms as `[offset, length, count]` of a
 * buffer in the data section (meshopt vertex codec over Float64 values: 3 or 16 per instance).
 */
export interface BinaryPart extends Omit<WirePart, "translations" | "matrices"> {
  translations?: [number, number, number];
  matrices?: [number, number, number];
}

/** The scene members of a response (the evaluated scene without its meshes). */
export interface WireScene<P = WirePart> {
  parts: P[];
  bbox: BoundingBox;
  triangles: number;
  volume: number;
  effective?: Record<string, EffectiveValue>;
}

/** A mesh of the binary form: its buffers as `[offset, length]` in the body's data section. */
export interface BinaryMesh extends Omit<EncodedMesh, "vertices" | "indices"> {
  vertices: [number, number];
  indices: [number, number];
}

/** The members of a successful render, whatever the form. */
export interface RenderResponseMembers<M, P = WirePart> {
  scene: WireScene<P>;
  /** Meshes by hash, except those the request said it holds. */
  meshes: Record<string, M>;
  /** Hashes referenced by the scene but left out because the client holds them. */
  omitted: string[];
  kernel: string;
  kernelVersion: string;
  project: string;
  version: number;
  dagHash: string;
  cache: CacheLevel;
  /** The budget left after this render (null = unlimited). */
  budget: { remaining: number | null };
}

/** The JSON body of a successful render (`application/json`). */
export type RenderResponse = RenderResponseMembers<EncodedMesh>;

/** The JSON head and tail of the binary form, merged (`application/vnd.cad-render`). */
export type BinaryRenderResponse = RenderResponseMembers<BinaryMesh, BinaryPart>;
