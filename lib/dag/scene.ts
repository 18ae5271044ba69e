/** The evaluated result of a DAG: parts that reference meshes by hash (docs/api.md, render). */

/**
 * A mesh as sent to clients in the JSON form (lib/kernel/mesh_encoding.ts, docs/api.md):
 * meshoptimizer-coded vertex and index buffers, base64. Coordinate k of a vertex decodes as
 * `min[k] + q · scale[k]`, within `scale[k] / 2` (half a step, `extent / 131070`) of the kernel's
 * value.
 */
export interface EncodedMesh {
  vertexCount: number;
  triangleCount: number;
  /** The mesh's bounding-box minimum per axis (what q = 0 means). */
  min: [number, number, number];
  /** The step per axis, `(max − min) / 65535` (0 on a flat axis). */
  scale: [number, number, number];
  /** meshopt vertex codec (v1) of Uint16 x, y, z, 0 per vertex (8 bytes), base64. */
  vertices: string;
  /** meshopt index codec of the triangle list (32-bit indices), base64. */
  indices: string;
}

/** One part of the assembly. */
export interface ScenePart {
  name: string;
  /** `#rrggbb`. */
  color: string;
  /** Hash of the part's mesh (a key of `Scene.meshes`). */
  mesh: string;
  /** Column-major 4×4 transforms, one per drawn instance; a plain part has one identity. */
  instances: number[][];
}

/** An axis-aligned bounding box. */
export interface BoundingBox {
  min: [number, number, number];
  max: [number, number, number];
}

/**
 * A parameter the DAG limited in this evaluation (lib/kernel/effective_values.ts): the design used
 * `value` where the request gave `requested`.
 */
export interface EffectiveValue {
  /** The value the design used (the bound, in the parameter's own units). */
  value: number;
  /** The value the request gave. */
  requested: number;
  /** `max`: held down to `value`; `min`: held up to it. */
  bound: "min" | "max";
  /** The parameters the bound is computed from (empty: a constant bound). */
  by: string[];
}

/** The whole evaluated assembly. */
export interface Scene {
  parts: ScenePart[];
  /** Every mesh the parts reference, by hash. */
  meshes: Record<string, EncodedMesh>;
  bbox: BoundingBox;
  /** Triangles drawn (instances counted). */
  triangles: number;
  /** Total volume of all parts (instances counted), in cubic model units. */
  volume: number;
  /** Parameters the DAG limited, by name; absent when none was (docs/api.md, render). */
  effective?: Record<string, EffectiveValue>;
}
