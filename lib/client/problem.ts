/**
 * RFC 9457 problem responses, read on the client into typed errors: `MintError` for the hub's
 * mint endpoint and `RenderError` for the render service. Switch on `code` (stable, documented in
 * docs/errors.md), never on `detail`, which is for people.
 *
 * Runs in browsers: no Deno APIs here.
 */

import type { DagError } from "../dag/dag_errors.ts";
import { parseRetryAfter } from "./retry_policy.ts";

/** Codes the client itself produces (the request never got a problem response). */
export type ClientErrorCode =
  /** `fetch` failed: offline, DNS, CORS refused, connection reset. */
  | "network_error"
  /** The response was not what the API documents (not JSON, or the wrong shape). */
  | "invalid_response"
  /** An error status without a problem body (say a proxy's 502 page). */
  | "http_error"
  /** The request was superseded by newer values (never seen by `render` callers). */
  | "aborted"
  /** The client was disposed while the request waited. */
  | "disposed";

/**
 * The problem codes the mint endpoints answer with (docs/api.md): the session-token endpoint's, in
 * both flows, and the hosted configurator's. Browser code cannot import the server's catalogue
 * (lib/http/error_codes.ts), so tests/client/problem_test.ts holds this list to it and to the codes
 * /openapi.json documents for the mint operations: a code added or renamed there fails that test.
 */
export const MINT_PROBLEM_CODES = [
  "invalid_body",
  "unsupported_media_type",
  "body_too_large",
  "validation_failed",
  "origin_required",
  "unauthenticated",
  "invalid_key_format",
  "invalid_credentials",
  "unknown_key",
  "key_revoked",
  "origin_not_allowed",
  "project_not_allowed",
  "origin_conflict",
  "ttl_out_of_bounds",
  "rate_limited",
  "internal_error",
  "service_unavailable",
] as const;

/** A problem code the mint endpoints answer with. */
export type MintProblemCode = typeof MINT_PROBLEM_CODES[number];

/**
 * The problem codes the render service answers with, and the hub's project and configuration
 * endpoints the render client also calls (docs/api.md); held to the server's catalogue and to
 * /openapi.json by tests/client/problem_test.ts, as `MINT_PROBLEM_CODES` is.
 */
export const RENDER_PROBLEM_CODES = [
  "invalid_body",
  "unsupported_media_type",
  "body_too_large",
  "validation_failed",
  "invalid_token",
  "token_expired",
  "token_revoked",
  "origin_mismatch",
  "project_mismatch",
  "budget_exhausted",
  "quota_exceeded",
  "invalid_idempotency_key",
  "idempotency_key_reused",
  "unknown_kernel",
  "unknown_project_version",
  // The project read names its partner by keyId (docs/api.md, Projects).
  "unknown_key",
  "key_revoked",
  "project_ambiguous",
  "invalid_dag",
  "invalid_parameters",
  "render_failed",
  "kernel_busy",
  "render_timeout",
  "internal_error",
  "service_unavailable",
] as const;

/** A problem code the render service (or the project and configuration endpoints) answers with. */
export type RenderProblemCode = typeof RENDER_PROBLEM_CODES[number];

/**
 * A code this release does not know (added to the service later). Intersecting `string` with an
 * empty record keeps editor completion for the known codes while accepting any string.
 */
export type OtherCode = string & Record<never, never>;

/** A mint error's code: a documented problem code, a client code, or a code added later. */
export type MintErrorCode = MintProblemCode | ClientErrorCode | OtherCode;
/** A render error's code: a documented problem code, a client code, or a code added later. */
export type RenderErrorCode =
  | RenderProblemCode
  | ClientErrorCode
  | "no_project"
  | "unsupported_mode"
  | OtherCode;

/** What a problem error is made of. */
export interface ProblemInit {
  code: string;
  /** The HTTP status; 0 when the error arose in the client (network, local validation). */
  status: number;
  detail: string;
  /** RFC 6901 pointer into the request (DAG and parameter problems). */
  pointer?: string;
  /** The rule that was broken (token, key-format and DAG problems). */
  reason?: string;
  /** How long the server asked us to wait (`Retry-After`), in milliseconds. */
  retryAfterMs?: number;
  /** The request id (`urn:request:…`): quote it when reporting a problem. */
  instance?: string;
  /** Every member of the problem body, extension members included. */
  body?: Record<string, unknown>;
  cause?: unknown;
}

/** An error with a stable `code`, read from a problem response or made by the client. */
export class ProblemError extends Error {
  /** Stable machine-readable code. */
  readonly code: string;
  /** The HTTP status; 0 when the error arose in the client. */
  readonly status: number;
  /** Human-readable explanation (may be reworded between releases). */
  readonly detail: string;
  /** RFC 6901 pointer into the request, for DAG and parameter problems. */
  readonly pointer?: string;
  /** The rule that was broken, when the server names one. */
  readonly reason?: string;
  /** The server's `Retry-After`, in milliseconds. */
  readonly retryAfterMs?: number;
  /** The request id of the failed request. */
  readonly instance?: string;
  /** The problem body as received (extension members such as `remaining`, `errors`). */
  readonly body: Record<string, unknown>;

  /** Builds the error from its parts. */
  constructor(init: ProblemInit) {
    super(init.detail, { cause: init.cause });
    this.name = "ProblemError";
    this.code = init.code;
    this.status = init.status;
    this.detail = init.detail;
    if (init.pointer !== undefined) this.pointer = init.pointer;
    if (init.reason !== undefined) this.reason = init.reason;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
    if (init.instance !== undefined) this.instance = init.instance;
    this.body = init.body ?? {};
  }
}

/** A failed mint (browser flow) or a session-token problem. */
export class MintError extends ProblemError {
  /** Stable machine-readable code. */
  declare readonly code: MintErrorCode;

  /** Builds the error from its parts. */
  constructor(init: ProblemInit) {
    super(init);
    this.name = "MintError";
  }
}

/** A failed render: `budget_exhausted`, `origin_mismatch`, `invalid_dag`, … are told apart by `code`. */
export class RenderError extends ProblemError {
  /** Stable machine-readable code. */
  declare readonly code: RenderErrorCode;

  /** Builds the error from its parts. */
  constructor(init: ProblemInit) {
    super(init);
    this.name = "RenderError";
  }
}

/**
 * A schema or value refusal found in the browser (`DagError`) as a `RenderError` with its code,
 * pointer and reason (status 0: no request was sent).
 *
 * @example
 * ```ts
 * if (err instanceof DagError) throw renderErrorFromDag(err);
 * ```
 */
export function renderErrorFromDag(err: DagError): RenderError {
  return new RenderError({
    code: err.code,
    status: 0,
    detail: err.message,
    pointer: err.pointer,
    reason: err.reason,
    cause: err,
  });
}

/**
 * Reads an error response into `ErrorClass`: the problem's `code`, `detail`, `pointer`, `reason`
 * and `instance`, and `Retry-After`. A body that is not a problem (an HTML error page from a
 * proxy) gives code `http_error`. Consumes the body.
 *
 * @example
 * ```ts
 * if (!res.ok) throw await readProblem(res, RenderError, Date.now());
 * ```
 */
export async function readProblem<E extends ProblemError>(
  res: Response,
  ErrorClass: new (init: ProblemInit) => E,
  nowMs: number,
): Promise<E> {
  const date = Date.parse(res.headers.get("date") ?? "");
  const retryAfterMs = parseRetryAfter(
    res.headers.get("retry-after"),
    nowMs,
    Number.isNaN(date) ? undefined : date,
  );
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  if (!isRecord(body) || typeof body.code !== "string") {
    return new ErrorClass({
      code: "http_error",
      status: res.status,
      detail: `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`,
      retryAfterMs,
    });
  }
  return new ErrorClass({
    code: body.code,
    status: res.status,
    detail: stringOr(body.detail, stringOr(body.title, `HTTP ${res.status}`)),
    pointer: typeof body.pointer === "string" ? body.pointer : undefined,
    reason: typeof body.reason === "string" ? body.reason : undefined,
    instance: typeof body.instance === "string" ? body.instance : undefined,
    retryAfterMs,
    body,
  });
}

/**
 * The error for a `fetch` that threw (no response at all).
 *
 * @example
 * ```ts
 * try { res = await fetch(url); } catch (err) { throw networkError(RenderError, err); }
 * ```
 */
export function networkError<E extends ProblemError>(
  ErrorClass: new (init: ProblemInit) => E,
  cause: unknown,
): E {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new ErrorClass({
    code: "network_error",
    status: 0,
    detail: `The request failed before any response: ${why}`,
    cause,
  });
}

/** Whether `value` is a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" && value.length > 0 ? value : fallback;
}
