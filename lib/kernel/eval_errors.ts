/**
 * The one error type of DAG evaluation and of the worker pool that runs it. Validation refuses
 * what the JSON alone shows to be wrong (`DagError`); this error covers what only evaluation can
 * find (a computed value out of range, a triangle count past the limit, empty geometry) and what
 * the pool decides (deadline, capacity). Each carries a stable `code` (the problem code, mapped to
 * a status in `lib/http/error_codes.ts`), a stable snake_case `reason` and, where a node is to
 * blame, an RFC 6901 `pointer` into the DAG — the same three members a `DagError` has, so the
 * problem response and a partner's editor treat both alike. A refusal for capacity and a deadline
 * also say when to come back (`retryAfter`, the problem's `Retry-After`).
 *
 * Crosses the worker boundary as plain data (`toWireError` / `fromWireError`): a structured clone
 * keeps neither the class nor its own members reliably.
 */

/** The problem codes evaluation and the pool can end in. */
export type EvalErrorCode =
  | "invalid_dag" // 422: a limit of docs/dag.md is exceeded by a computed value
  | "render_failed" // 422: the geometry cannot be evaluated (NaN, empty result, …)
  | "render_timeout" // 503: the job ran past its wall-clock deadline and was stopped
  | "kernel_busy" // 503: not admitted (docs/api.md, "Render admission"), or the pool is closing
  | "internal_error"; // 500: a worker crashed; it was replaced

/** Every stable `reason`, grouped by the code it usually comes with. */
export const EVAL_ERROR_REASONS = [
  // invalid_dag: what validation would refuse had the value been a literal
  "type_mismatch", // a node produced a value of the wrong type for where it is used
  "unknown_reference", // a reference to a node that does not exist
  "unknown_op", // an op this kernel does not know
  "cycle", // references form a cycle
  "output_not_assembly", // `output` does not name an assembly
  "not_an_integer", // a computed count, segments or divisions is not an integer
  "bad_color", // a computed part color is not `#rrggbb`
  "string_too_long", // a computed part name (or text) is longer than the limit
  "unsupported_character", // computed text has a character the text font does not draw
  "too_many_vertices", // a text's flattened outlines exceed the vertex limit
  "duplicate_part_name", // two parts of the assembly compute the same name
  "out_of_range", // computed segments, a repeat count or divisions outside their limit
  "too_many_instances", // a part (or merged instances) would place more than the limit
  "too_many_triangles", // an intermediate or the output exceeds the triangle limit
  // render_failed: computed values and geometry
  "nan", // an expression computed NaN or ±Infinity
  // (out_of_range too: a computed number outside ±1e6 or outside its member's range)
  "division_by_zero", // `div` by a computed 0
  "not_counter_clockwise", // a computed polygon is clockwise or degenerate
  "empty_geometry", // a part's geometry is empty, or an offset leaves nothing of a profile
  "geometry_failed", // manifold-3d reported an error status
  // render_timeout, kernel_busy, internal_error: the pool
  "deadline", // the job ran past its deadline; its worker was terminated and replaced
  "aborted", // the caller's signal aborted the job
  "queue_full", // the expected wait for a worker is over the bound, or the queue is at its hard cap
  "token_concurrency", // the token has as many renders queued or running as it may
  "partner_concurrency", // the partner's tokens have as many renders queued or running as they may
  "queue_timeout", // the job waited in the queue past its deadline
  "pool_closed", // the pool was closed before the job finished
  "worker_crashed", // the worker died (uncaught error, WASM abort); it was replaced
  "worker_failed", // a worker could not start
  "unexpected", // an error that is not an EvalError (the message is not exposed)
] as const;

/** A stable, machine-readable reason for an EvalError. */
export type EvalErrorReason = typeof EVAL_ERROR_REASONS[number];

/**
 * A failed evaluation or a job the pool refused or stopped.
 *
 * @example
 * ```ts
 * throw new EvalError("render_failed", "division_by_zero", "div by a computed 0", {
 *   pointer: "/nodes/ratio",
 * });
 * ```
 */
export class EvalError extends Error {
  /** The problem code (maps to an HTTP status in `lib/http/error_codes.ts`). */
  readonly code: EvalErrorCode;
  /** The rule that was broken. */
  readonly reason: EvalErrorReason;
  /** RFC 6901 pointer into the DAG at the node (and member) to blame, when one is. */
  readonly pointer?: string;
  /** Seconds after which a retry may be answered differently (`Retry-After`), when known. */
  readonly retryAfter?: number;

  /** Builds the error; `message` is a human sentence for the problem's `detail`. */
  constructor(
    code: EvalErrorCode,
    reason: EvalErrorReason,
    message: string,
    options: { pointer?: string; retryAfter?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "EvalError";
    this.code = code;
    this.reason = reason;
    if (options.pointer !== undefined) this.pointer = options.pointer;
    if (options.retryAfter !== undefined) {
      this.retryAfter = Math.max(1, Math.ceil(options.retryAfter));
    }
  }
}

/** An EvalError as plain data, for `postMessage`. */
export interface WireError {
  code: EvalErrorCode;
  reason: EvalErrorReason;
  message: string;
  pointer?: string;
}

/** Whether `err` is an EvalError of this realm (one from a worker arrives as a WireError). */
export function isEvalError(err: unknown): err is EvalError {
  return err instanceof EvalError;
}

/**
 * Plain data for any thrown value: an EvalError keeps its members; anything else becomes
 * `internal_error` / `unexpected` without its message (it may hold paths or WASM internals).
 */
export function toWireError(err: unknown): WireError {
  if (err instanceof EvalError) {
    const wire: WireError = { code: err.code, reason: err.reason, message: err.message };
    if (err.pointer !== undefined) wire.pointer = err.pointer;
    return wire;
  }
  return {
    code: "internal_error",
    reason: "unexpected",
    message: "The evaluation failed unexpectedly.",
  };
}

/** Rebuilds an EvalError from plain data received from a worker; unknown shapes are internal. */
export function fromWireError(data: unknown): EvalError {
  const wire = data as Partial<WireError> | null;
  const codes: readonly string[] = [
    "invalid_dag",
    "render_failed",
    "render_timeout",
    "kernel_busy",
    "internal_error",
  ];
  if (
    wire === null || typeof wire !== "object" || typeof wire.code !== "string" ||
    !codes.includes(wire.code) || typeof wire.reason !== "string" ||
    !(EVAL_ERROR_REASONS as readonly string[]).includes(wire.reason) ||
    typeof wire.message !== "string"
  ) {
    return new EvalError("internal_error", "unexpected", "The evaluation failed unexpectedly.");
  }
  return new EvalError(wire.code, wire.reason, wire.message, {
    pointer: typeof wire.pointer === "string" ? wire.pointer : undefined,
  });
}
