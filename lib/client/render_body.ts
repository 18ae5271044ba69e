/**
 * A render response's bytes, in either form (docs/api.md, render), turned into its members and
 * decoded meshes: the one entry point from the wire to geometry. The JSON form starts with `{`,
 * the binary form (`lib/dag/render_binary.ts`) with "CADR"; both go through the same checks
 * (layout, members, every mesh as `lib/client/mesh_decode.ts` checks it), and a broken body
 * fails with a `TypeError` that says what is wrong.
 *
 * Runs in browsers: no Deno APIs here.
 */

import type { RenderResponseMembers } from "../dag/render_response.ts";
import {
  alignUp,
  RENDER_BINARY_HEADER,
  RENDER_BINARY_MAGIC,
  RENDER_BINARY_VERSION,
} from "../dag/render_binary.ts";
import {
  type DecodedMesh,
  decodeInstanceBuffer,
  decodeMesh,
  decodeMeshBuffers,
  meshDecoderReady,
} from "./mesh_decode.ts";
import { isRecord } from "./problem.ts";

/** A decoded render response: its members, with the meshes it carried decoded by hash. */
export type DecodedRenderBody = Omit<RenderResponseMembers<never>, "meshes"> & {
  meshes: Map<string, DecodedMesh>;
};

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Decodes a render response body (JSON or binary form, already without its content coding, as
 * `fetch` hands it over) and checks it. Throws `TypeError` on a body that is not a well-formed
 * render response.
 *
 * @example
 * ```ts
 * const body = await decodeRenderBody(new Uint8Array(await res.arrayBuffer()));
 * for (const [hash, mesh] of body.meshes) draw(mesh.positions, mesh.indices);
 * ```
 */
export async function decodeRenderBody(bytes: Uint8Array): Promise<DecodedRenderBody> {
  await meshDecoderReady();
  return isBinary(bytes) ? decodeBinary(bytes) : decodeJson(bytes);
}

function isBinary(bytes: Uint8Array): boolean {
  return bytes.byteLength >= 4 && RENDER_BINARY_MAGIC.every((b, i) => bytes[i] === b);
}

function fail(what: string): never {
  throw new TypeError(`the render response ${what}`);
}

function parseJson(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch (err) {
    throw new TypeError(`the render response's ${what} is not JSON`, { cause: err });
  }
}

function decodeJson(bytes: Uint8Array): DecodedRenderBody {
  const body = checkMembers(parseJson(bytes, "body"));
  const meshes = new Map<string, DecodedMesh>();
  for (const [hash, mesh] of Object.entries(body.meshes)) {
    if (!isRecord(mesh)) fail(`has a mesh ${hash} that is not an object`);
    meshes.set(hash, decodeMesh(hash, mesh as never));
  }
  return { ...body, meshes };
}

function decodeBinary(bytes: Uint8Array): DecodedRenderBody {
  if (bytes.byteLength < RENDER_BINARY_HEADER) fail("is cut short (no whole header)");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(4, true);
  if (version !== RENDER_BINARY_VERSION) fail(`has binary layout ${version}, not 1`);
  const headLength = view.getUint32(8, true);
  const dataLength = view.getUint32(12, true);
  const dataStart = alignUp(RENDER_BINARY_HEADER + headLength);
  if (dataStart + dataLength > bytes.byteLength) {
    fail(`is cut short: ${bytes.byteLength} bytes, its header names ${dataStart + dataLength}`);
  }
  const head = parseJson(
    bytes.subarray(RENDER_BINARY_HEADER, RENDER_BINARY_HEADER + headLength),
    "head",
  );
  const tail = parseJson(bytes.subarray(dataStart + dataLength), "tail");
  if (!isRecord(head) || !isRecord(tail)) fail("has a head or tail that is not an object");
  const body = checkMembers({ ...(head as object), ...(tail as object) });
  const data = bytes.subarray(dataStart, dataStart + dataLength);
  /** The bytes `[offset, length, …]` names in the data section. */
  const range = (r: unknown, size: number, what: string): Uint8Array => {
    if (
      !Array.isArray(r) || r.length !== size ||
      !r.every((n) => Number.isSafeInteger(n) && n >= 0) || r[0] + r[1] > dataLength
    ) {
      fail(`has ${what} outside its ${dataLength} data bytes`);
    }
    return data.subarray(r[0], r[0] + r[1]);
  };
  // Instance buffers become the JSON form's numbers: both forms then read the same way.
  for (const part of body.scene.parts as unknown as Record<string, unknown>[]) {
    for (const [kind, stride] of [["translations", 3], ["matrices", 16]] as const) {
      if (part[kind] === undefined) continue;
      const r = part[kind] as number[];
      const bytes = range(r, 3, `part ${String(part.name)} ${kind}`);
      part[kind] = decodeInstanceBuffer(bytes, r[2], stride);
    }
  }
  const meshes = new Map<string, DecodedMesh>();
  for (const [hash, mesh] of Object.entries(body.meshes)) {
    if (!isRecord(mesh)) fail(`has a mesh ${hash} that is not an object`);
    const m = mesh as Record<string, unknown>;
    const vertices = range(m.vertices, 2, `mesh ${hash} vertices`);
    const indices = range(m.indices, 2, `mesh ${hash} indices`);
    meshes.set(hash, decodeMeshBuffers(hash, m as never, vertices, indices));
  }
  return { ...body, meshes };
}

/** Checks the members the client reads; the server is trusted for the rest. */
function checkMembers(value: unknown): RenderResponseMembers<unknown> {
  if (!isRecord(value)) fail("is not an object");
  const body = value as Record<string, unknown>;
  if (!isRecord(body.scene) || !Array.isArray(body.scene.parts)) fail("has no scene.parts");
  if (!isRecord(body.meshes)) fail("has no meshes");
  if (!Array.isArray(body.omitted)) fail("has no omitted");
  if (!isRecord(body.budget)) fail("has no budget");
  const remaining = (body.budget as Record<string, unknown>).remaining;
  if (remaining !== null && typeof remaining !== "number") fail("has a bad budget.remaining");
  for (const part of (body.scene as { parts: unknown[] }).parts) {
    if (!isRecord(part) || typeof part.mesh !== "string" || typeof part.name !== "string") {
      fail("has a part without name or mesh");
    }
  }
  return body as unknown as RenderResponseMembers<unknown>;
}
