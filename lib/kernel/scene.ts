/** The evaluated result of a DAG: parts that reference meshes by hash (docs/api.md, render). */

/** A mesh as sent to clients: little-endian typed arrays, base64-encoded. */
export interface EncodedMesh {
  /** Float32 x, y, z per vertex, little-endian, base64. */
  positions: string;
  /** Uint32 vertex indices, three per triangle, little-endian, base64. */
  indices: string;
  vertexCount: number;
  triangleCount: number;
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
}
