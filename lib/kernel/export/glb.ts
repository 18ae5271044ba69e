/**
 * GLB (glTF 2.0 binary, Khronos spec 2.0): one glTF mesh per distinct mesh hash and colour, one
 * node per instance (the part's transform as the node's matrix), one material per colour
 * (`baseColorFactor` in linear light, not metallic). A root node turns the kernel's millimetres,
 * +Z up, into glTF's metres, +Y up, so the file is to scale in AR viewers.
 *
 * Every mesh is a closed oriented 2-manifold as indexed (manifold-3d's output with positions
 * only: no vertex is split for normals or UVs), so each mesh declares `EXT_mesh_manifold` with
 * its one primitive as the `manifoldPrimitive` and no merge vectors (nothing to merge). There
 * are no normals: glTF viewers then shade flat, which is what a CAD part wants.
 */
import type { ExportModel } from "./export_model.ts";
import { drawnParts, isIdentity, srgbOf, srgbToLinear } from "./export_model.ts";

const FLOAT = 5126;
const UNSIGNED_SHORT = 5123;
const UNSIGNED_INT = 5125;
const ARRAY_BUFFER = 34962;
const ELEMENT_ARRAY_BUFFER = 34963;
const TRIANGLES = 4;
/** -90° about X: +Z up becomes +Y up. */
const Z_UP_TO_Y_UP = [-Math.SQRT1_2, 0, 0, Math.SQRT1_2];

/** Builds the GLB of a model. */
export function buildGlb(model: ExportModel): Uint8Array {
  const chunks: Uint8Array[] = [];
  let byteLength = 0;
  const bufferViews: Record<string, unknown>[] = [];
  const accessors: Record<string, unknown>[] = [];
  const push = (bytes: Uint8Array, target: number): number => {
    bufferViews.push({ buffer: 0, byteOffset: byteLength, byteLength: bytes.length, target });
    chunks.push(bytes);
    byteLength += bytes.length;
    const pad = (4 - (bytes.length % 4)) % 4;
    if (pad) {
      chunks.push(new Uint8Array(pad));
      byteLength += pad;
    }
    return bufferViews.length - 1;
  };

  const geometry = new Map<string, { position: number; indices: number }>();
  const materials: Record<string, unknown>[] = [];
  const materialOf = new Map<string, number>();
  const meshes: Record<string, unknown>[] = [];
  const meshOf = new Map<string, number>();
  const children: number[] = [];
  const nodes: Record<string, unknown>[] = [{
    name: model.title,
    rotation: Z_UP_TO_Y_UP,
    scale: [0.001, 0.001, 0.001],
    children,
  }];

  for (const part of drawnParts(model)) {
    let g = geometry.get(part.mesh);
    if (!g) {
      const { positions, indices } = part.exact;
      const min = [Infinity, Infinity, Infinity];
      const max = [-Infinity, -Infinity, -Infinity];
      for (let i = 0; i < positions.length; i++) {
        const k = i % 3;
        if (positions[i] < min[k]) min[k] = positions[i];
        if (positions[i] > max[k]) max[k] = positions[i];
      }
      const vertexCount = positions.length / 3;
      const small = vertexCount <= 0xffff;
      const indexBytes = small ? new Uint16Array(indices) : indices;
      accessors.push({
        bufferView: push(bytesOf(positions), ARRAY_BUFFER),
        componentType: FLOAT,
        count: vertexCount,
        type: "VEC3",
        min,
        max,
      });
      accessors.push({
        bufferView: push(bytesOf(indexBytes), ELEMENT_ARRAY_BUFFER),
        componentType: small ? UNSIGNED_SHORT : UNSIGNED_INT,
        count: indices.length,
        type: "SCALAR",
      });
      g = { position: accessors.length - 2, indices: accessors.length - 1 };
      geometry.set(part.mesh, g);
    }
    let material = materialOf.get(part.color);
    if (material === undefined) {
      const [r, gr, b] = srgbOf(part.color).map(srgbToLinear);
      materials.push({
        name: part.color,
        pbrMetallicRoughness: {
          baseColorFactor: [r, gr, b, 1],
          metallicFactor: 0,
          roughnessFactor: 0.6,
        },
      });
      material = materials.length - 1;
      materialOf.set(part.color, material);
    }
    const meshKey = `${part.mesh} ${part.color}`;
    let mesh = meshOf.get(meshKey);
    if (mesh === undefined) {
      const primitive = {
        attributes: { POSITION: g.position },
        indices: g.indices,
        mode: TRIANGLES,
      };
      meshes.push({
        name: part.name,
        primitives: [{ ...primitive, material }],
        extensions: { EXT_mesh_manifold: { manifoldPrimitive: primitive } },
      });
      mesh = meshes.length - 1;
      meshOf.set(meshKey, mesh);
    }
    part.instances.forEach((t, i) => {
      const node: Record<string, unknown> = {
        name: part.instances.length > 1 ? `${part.name} ${i + 1}` : part.name,
        mesh,
      };
      if (!isIdentity(t)) node.matrix = t;
      children.push(nodes.length);
      nodes.push(node);
    });
  }

  const json: Record<string, unknown> = {
    asset: { version: "2.0", generator: "cad-configurator kernel-api" },
    scene: 0,
    scenes: [{ name: model.title, nodes: [0] }],
    nodes,
  };
  if (children.length === 0) delete nodes[0].children;
  if (meshes.length > 0) {
    Object.assign(json, {
      extensionsUsed: ["EXT_mesh_manifold"],
      meshes,
      materials,
      accessors,
      bufferViews,
      buffers: [{ byteLength }],
    });
  }
  return glbContainer(json, chunks, byteLength);
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/** The 12-byte header, the JSON chunk (space-padded) and the BIN chunk (zero-padded). */
function glbContainer(json: unknown, chunks: Uint8Array[], binLength: number): Uint8Array {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jsonLength = Math.ceil(text.length / 4) * 4;
  const hasBin = binLength > 0;
  const total = 12 + 8 + jsonLength + (hasBin ? 8 + binLength : 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x46546c67, true); // "glTF"
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, jsonLength, true);
  view.setUint32(16, 0x4e4f534a, true); // "JSON"
  out.set(text, 20);
  out.fill(0x20, 20 + text.length, 20 + jsonLength);
  if (hasBin) {
    let at = 20 + jsonLength;
    view.setUint32(at, binLength, true);
    view.setUint32(at + 4, 0x004e4942, true); // "BIN\0"
    at += 8;
    for (const chunk of chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
  }
  return out;
}
