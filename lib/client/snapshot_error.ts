/**
 * Why a cart snapshot could not be made (`snapshot.ts`), shared by the snapshot's API and its
 * lazily loaded drawing (`snapshot_draw.ts`).
 *
 * Runs in browsers: no Deno APIs here.
 */

/** Why a snapshot could not be made (stable `code`). */
export type SnapshotErrorCode =
  | "invalid_snapshot_options"
  | "no_scene"
  | "webgl_unavailable"
  | "load_failed";

/** A snapshot that could not be made. */
export class SnapshotError extends Error {
  /** Stable code: `invalid_snapshot_options`, `no_scene`, `webgl_unavailable` or `load_failed`. */
  readonly code: SnapshotErrorCode;
  /** Makes an error with `code` and a message that says what to change. */
  constructor(code: SnapshotErrorCode, message: string) {
    super(message);
    this.name = "SnapshotError";
    this.code = code;
  }
}
