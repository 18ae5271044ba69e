/**
 * The binary form of the render response (`application/vnd.cad-render`, docs/api.md, render):
 *
 * ```
 * 0   4  magic "CADR"
 * 4   4  format version, Uint32 LE (1)
 * 8   4  head length H, Uint32 LE: UTF-8 JSON {"scene":…,"meshes":{hash: {…, "vertices":
 *        [offset, length], "indices": [offset, length]}}}
 * 12  4  data length D, Uint32 LE
 * 16  H  the head
 *     …  zero bytes up to a multiple of 4
 *     D  data: the meshopt buffers the head names, each at an offset (from the data's start) that
 *        is a multiple of 4
 *     …  the tail, to the end: UTF-8 JSON {"omitted":[…],"kernel":…,"budget":{…}}
 * ```
 *
 * The response is the head's members and the tail's together. The tail (the members that change
 * per request) comes last so that everything before it is the same bytes for every request of a
 * scene, compressed once (lib/render/coded_prefix.ts).
 */

/** The media type of the binary form. */
export const RENDER_BINARY_TYPE = "application/vnd.cad-render";

/** "CADR". */
export const RENDER_BINARY_MAGIC = [0x43, 0x41, 0x44, 0x52] as const;

/** The layout version written in bytes 4–7. */
export const RENDER_BINARY_VERSION = 1;

/** Bytes before the head. */
export const RENDER_BINARY_HEADER = 16;

/** Alignment of the data section and of every buffer in it. */
export const RENDER_BINARY_ALIGN = 4;

/** `n` rounded up to a multiple of `RENDER_BINARY_ALIGN`. */
export function alignUp(n: number): number {
  return Math.ceil(n / RENDER_BINARY_ALIGN) * RENDER_BINARY_ALIGN;
}
