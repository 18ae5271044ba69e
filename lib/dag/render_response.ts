/**
 * The render response's wire shape (docs/api.md, render): shared by the kernel that writes it
 * (lib/render/render_response_bytes.ts) and the client that reads it (lib/client/render_result.ts).
 */
import type { EncodedMesh, Scene } from "./scene.ts";

/** Where a render came from: the in-process cache, Redis, or an evaluation. */
export type CacheLevel = "l1" | "l2" | "miss";

/** The JSON body of a successful render. */
export interface RenderResponse {
  kernel: string;
  kernelVersion: string;
  project: string;
  version: number;
  dagHash: string;
  cache: CacheLevel;
  /** The budget left after this render (null = unlimited). */
  budget: { remaining: number | null };
  scene: Omit<Scene, "meshes">;
  /** Meshes by hash, except those the request said it holds. */
  meshes: Record<string, EncodedMesh>;
  /** Hashes referenced by the scene but left out because the client holds them. */
  omitted: string[];
}
