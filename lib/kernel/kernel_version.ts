/**
 * The kernel version that keys both render-cache levels (`sha256(kernelVersion + "\n" + dagHash)`,
 * docs/dag.md). It names everything that can change the evaluated scene for one DAG: the
 * manifold-3d release (its triangulation and booleans), the DAG format, and this kernel's own
 * evaluation rules. Bump `EVAL_REVISION` whenever `evaluate.ts`, `mesh_encoding.ts` or
 * `transforms.ts` would answer a DAG differently (other vertices, order, hashes, instance
 * matrices, bbox or volume rules), so stale cached scenes are never served.
 */

/**
 * The manifold-3d release this kernel is built and tested against. Pinned rather than read from
 * the package at run time (its `package.json` is not an export of the package); a test compares
 * it with the installed package so an upgrade cannot slip by without a new cache key.
 */
export const MANIFOLD_VERSION = "3.5.4";

/** The DAG format version evaluated (docs/dag.md). */
export const DAG_FORMAT = 1;

/**
 * The revision of this kernel's evaluation rules; bump when the output for a DAG changes.
 * 2: meshes travel quantized (Uint16 positions, zigzag-delta varint indices).
 * 3: scenes report the parameters the DAG limited (`scene.effective`).
 * 4: meshes in meshoptimizer's order (hashes change) and coded by its vertex and index codecs.
 */
export const EVAL_REVISION = 4;

/**
 * The version string used in cache keys and the render response's `kernelVersion`.
 *
 * @example
 * ```ts
 * KERNEL_VERSION; // "manifold-3d@3.5.4+dag1+eval4"
 * ```
 */
export const KERNEL_VERSION =
  `manifold-3d@${MANIFOLD_VERSION}+dag${DAG_FORMAT}+eval${EVAL_REVISION}`;
