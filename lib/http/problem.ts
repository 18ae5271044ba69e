/**
 * RFC 9457 problem details. Anything in `lib/` throws an error with a stable `code`; this module
 * is the one place that turns such an error into an `application/problem+json` response.
 */
import { authChallenge } from "./auth_challenge.ts";
import { ERROR_CODES, type ErrorCode, isErrorCode } from "./error_codes.ts";
import { jsonResponse } from "./json_response.ts";

/** Extension members a problem may carry besides the RFC 9457 ones. */
export type ProblemExtensions = Record<string, unknown>;

/** The error every layer throws for a client-visible failure; its status comes from the code. */
export class AppError extends Error {
  /** Stable machine-readable code (see `docs/errors.md`). */
  readonly code: ErrorCode;
  /** Extra members copied into the problem body (e.g. `reason`, `pointer`). */
  readonly extensions: ProblemExtensions;
  /** Extra response headers (e.g. `Retry-After`). */
  readonly headers: Record<string, string>;

  /** Builds an error whose status is the catalogue's status for `code`. */
  constructor(
    code: ErrorCode,
    detail: string,
    options: { extensions?: ProblemExtensions; headers?: Record<string, string>; cause?: unknown } =
      {},
  ) {
    super(detail, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }

  /** The HTTP status for this error's code. */
  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

/** The JSON body of a problem response. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  instance?: string;
  [extension: string]: unknown;
}

/** The media type of problem responses. */
export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/**
 * Turns any thrown value into an AppError: typed errors from `lib/` that carry a known `code`
 * (and optionally a `reason`) keep it; anything else becomes `internal_error` without leaking its
 * message.
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (
    err instanceof Error && "code" in err && typeof err.code === "string" && isErrorCode(err.code)
  ) {
    const extensions: ProblemExtensions = {};
    if ("reason" in err && typeof err.reason === "string") extensions.reason = err.reason;
    if ("pointer" in err && typeof err.pointer === "string") extensions.pointer = err.pointer;
    const headers: Record<string, string> = {};
    if ("retryAfter" in err && typeof err.retryAfter === "number") {
      headers["Retry-After"] = String(err.retryAfter);
    }
    return new AppError(err.code, err.message, { extensions, headers, cause: err });
  }
  return new AppError("internal_error", "An unexpected error occurred.", { cause: err });
}

/**
 * The headers every response for `err` carries, problem or HTML page alike: the error's own (e.g.
 * `Retry-After`, `Allow`) and, on a 401, the `WWW-Authenticate` challenge
 * (lib/http/auth_challenge.ts) unless the error brings its own.
 *
 * @example
 * ```ts
 * problemHeaders(new AppError("session_required", "Sign in.")).get("www-authenticate");
 * // 'Cookie realm="settings", form-action="/auth/signin"'
 * ```
 */
export function problemHeaders(err: AppError): Headers {
  const headers = new Headers(err.headers);
  const challenge = authChallenge(err.code, err.extensions.reason);
  if (challenge && !headers.has("www-authenticate")) headers.set("www-authenticate", challenge);
  return headers;
}

/**
 * Builds the problem response for an error.
 *
 * @example
 * ```ts
 * problemResponse(new AppError("rate_limited", "Try again in 3 s."), "req-1");
 * ```
 */
export function problemResponse(err: unknown, requestId?: string): Response {
  const e = toAppError(err);
  const info = ERROR_CODES[e.code];
  const body: ProblemBody = {
    ...e.extensions,
    type: `/problems/${e.code}`,
    title: info.title,
    status: info.status,
    detail: e.message,
    code: e.code,
  };
  if (requestId) body.instance = `urn:request:${requestId}`;
  const headers = problemHeaders(e);
  headers.set("cache-control", "no-store");
  // Every 503 says when to come back (docs/errors.md); the error's own value wins.
  if (info.status === 503 && !headers.has("retry-after")) headers.set("retry-after", "1");
  return jsonResponse(body, { status: info.status, headers }, PROBLEM_CONTENT_TYPE);
}
