/**
 * A reader of the USDZ files `lib/client/usdz_export.ts` makes, written from the formats' specs
 * (not from the exporter): the zip container as USDZ constrains it (PKWARE APPNOTE local headers,
 * stored entries, data 64-byte aligned, the first entry the root layer) and the text (`.usda`)
 * prims the layers hold: transforms, references, mesh points and faces, materials.
 */

/** One entry of the zip. */
export interface UsdzEntry {
  name: string;
  /** Offset of the entry's data in the file. */
  dataOffset: number;
  /** 0 = stored. */
  method: number;
  data: Uint8Array;
  crc32: number;
}

/** Reads every local file header of `bytes` up to the central directory; throws on a bad one. */
export function readZipEntries(bytes: Uint8Array): UsdzEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: UsdzEntry[] = [];
  let at = 0;
  while (at + 4 <= bytes.length && view.getUint32(at, true) === 0x04034b50) {
    const flags = view.getUint16(at + 6, true);
    const method = view.getUint16(at + 8, true);
    const crc32 = view.getUint32(at + 14, true);
    const compressed = view.getUint32(at + 18, true);
    const size = view.getUint32(at + 22, true);
    const nameLength = view.getUint16(at + 26, true);
    const extraLength = view.getUint16(at + 28, true);
    if (flags & 0x08) throw new Error("a data descriptor: sizes must be in the local header");
    if (compressed !== size) throw new Error("a compressed entry");
    const name = new TextDecoder().decode(bytes.subarray(at + 30, at + 30 + nameLength));
    const dataOffset = at + 30 + nameLength + extraLength;
    entries.push({
      name,
      dataOffset,
      method,
      crc32,
      data: bytes.subarray(dataOffset, dataOffset + size),
    });
    at = dataOffset + size;
  }
  if (view.getUint32(at, true) !== 0x02014b50) {
    throw new Error("no central directory after entries");
  }
  return entries;
}

/** CRC-32 (IEEE) of `data`, to check each entry's stored checksum. */
export function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A mesh prim of the root layer, with its transform and the geometry layer it references. */
export interface UsdaMeshPrim {
  name: string;
  /** Row-vector 4×4 (USD's convention), 16 numbers row by row. */
  transform: number[];
  /** The referenced layer's path inside the package (`geometries/…usda`). */
  geometry: string;
  material: string;
}

/** The root layer's stage metadata and prims. */
export interface UsdaRoot {
  metersPerUnit: number;
  upAxis: string;
  defaultPrim: string;
  /** The model's root transform (the Xform holding the meshes). */
  rootTransform: number[];
  meshes: UsdaMeshPrim[];
  /** Material paths → diffuse colour (linear, 0–1). */
  materials: Map<string, number[]>;
}

/** Reads the stage metadata, the model's Xform and its mesh prims from a root `.usda`. */
export function readRootLayer(text: string): UsdaRoot {
  if (!text.startsWith("#usda 1.0")) throw new Error("the root layer is not text USD");
  const meta = (key: string) => new RegExp(`^\\s*${key} = (.+)$`, "m").exec(text)?.[1] ?? "";
  const model = /def Xform "Model"[^{]*\{\s*matrix4d xformOp:transform = ([^\n]+)/.exec(text);
  if (!model) throw new Error("no Model Xform with a transform");
  const meshes: UsdaMeshPrim[] = [];
  const prim =
    /def Xform "([^"]+)" \(\s*prepend references = @\.\/([^@]+)@<\/Geometry>[^)]*\)\s*\{([^{}]*)\}/g;
  for (const m of text.matchAll(prim)) {
    const body = m[3];
    const transform = /matrix4d xformOp:transform = ([^\n]+)/.exec(body);
    const material = /rel material:binding = <([^>]+)>/.exec(body);
    if (!transform || !material) throw new Error(`mesh prim ${m[1]} lacks a transform or material`);
    meshes.push({
      name: m[1],
      geometry: m[2],
      material: material[1],
      transform: numbers(transform[1]),
    });
  }
  const materials = new Map<string, number[]>();
  for (
    const m of text.matchAll(
      /def Material "([^"]+)"[\s\S]*?color3f inputs:diffuseColor = ([^\n]+)/g,
    )
  ) {
    materials.set(`/Materials/${m[1]}`, numbers(m[2]));
  }
  return {
    metersPerUnit: Number(meta("metersPerUnit")),
    upAxis: JSON.parse(meta("upAxis") || '""'),
    defaultPrim: JSON.parse(meta("defaultPrim") || '""'),
    rootTransform: numbers(model[1]),
    meshes,
    materials,
  };
}

/** A geometry layer's mesh: points, the faces' vertex counts and indices, normals. */
export interface UsdaGeometry {
  points: number[];
  faceVertexCounts: number[];
  faceVertexIndices: number[];
  normals: number[];
}

/** Reads the one `Mesh` of a geometry layer. */
export function readGeometryLayer(text: string): UsdaGeometry {
  const array = (name: string) => {
    const m = new RegExp(`${name} = \\[([^\\]]*)\\]`).exec(text);
    if (!m) throw new Error(`no ${name}`);
    return numbers(m[1]);
  };
  return {
    points: array("point3f\\[\\] points"),
    faceVertexCounts: array("int\\[\\] faceVertexCounts"),
    faceVertexIndices: array("int\\[\\] faceVertexIndices"),
    normals: array("normal3f\\[\\] normals"),
  };
}

/** Every number in `text`, in order. */
function numbers(text: string): number[] {
  return [...text.matchAll(/-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/gi)].map((m) => Number(m[0]));
}

/** `p` (x, y, z) times the row-vector 4×4 `m` (USD's convention: p' = p · M). */
export function applyRowMatrix(m: number[], p: number[]): number[] {
  return [0, 1, 2].map((j) => p[0] * m[j] + p[1] * m[4 + j] + p[2] * m[8 + j] + m[12 + j]);
}

/** The product a · b of row-vector 4×4s (a applied first). */
export function multiplyRowMatrices(a: number[], b: number[]): number[] {
  const out = new Array(16).fill(0);
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < 4; j++) {
      for (let k = 0; k < 4; k++) out[i * 4 + j] += a[i * 4 + k] * b[k * 4 + j];
    }
  }
  return out;
}
