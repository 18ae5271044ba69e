/**
 * The catalogue of stable problem `code`s: one place that maps each code to its HTTP status and a
 * short title. `docs/errors.md` lists every entry; a test keeps the two in step. Browser code may
 * not import this server module: the client's per-endpoint lists (`lib/client/problem.ts`) are
 * held to this catalogue and to /openapi.json by tests/client/problem_test.ts.
 */

/** One catalogue entry: the status a code is always answered with, and its human title. */
export interface ErrorCodeInfo {
  status: number;
  title: string;
}

/** Every stable error code the service answers with. */
export const ERROR_CODES = {
  // Request shape
  invalid_body: { status: 400, title: "The request body is not valid JSON" },
  unsupported_media_type: { status: 415, title: "The request body must be application/json" },
  body_too_large: { status: 413, title: "The request body is too large" },
  validation_failed: { status: 422, title: "The request body failed validation" },
  not_found: { status: 404, title: "No such resource" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  // Mint: who is asking
  origin_required: { status: 400, title: "The browser flow needs an Origin header" },
  unauthenticated: {
    status: 401,
    title: "No credentials: send a keyId (browser flow) or a secret key (server flow)",
  },
  invalid_key_format: { status: 401, title: "The partner key is malformed" },
  invalid_credentials: { status: 401, title: "The partner key is not valid" },
  unknown_key: { status: 401, title: "No partner key has this keyId" },
  key_revoked: { status: 401, title: "The partner key has been revoked" },
  // Mint: what they may do
  origin_not_allowed: { status: 403, title: "The origin is not in the key's allowed origins" },
  project_not_allowed: { status: 403, title: "The project is not in the key's allowed projects" },
  origin_conflict: { status: 422, title: "The body origin disagrees with the Origin header" },
  ttl_out_of_bounds: { status: 422, title: "ttlSeconds is out of bounds" },
  rate_limited: { status: 429, title: "Too many requests for this key" },
  // Tokens (render side)
  invalid_token: { status: 401, title: "The session token is not valid" },
  token_expired: { status: 401, title: "The session token has expired" },
  token_revoked: { status: 401, title: "The session token or the key that minted it was revoked" },
  origin_mismatch: { status: 403, title: "The Origin header does not match the token's origin" },
  project_mismatch: { status: 403, title: "The request names a project the token is not for" },
  budget_exhausted: { status: 429, title: "The token's render budget is spent" },
  quota_exceeded: { status: 429, title: "The key's daily or monthly render quota is spent" },
  invalid_idempotency_key: { status: 400, title: "The Idempotency-Key header is malformed" },
  idempotency_key_reused: {
    status: 422,
    title: "The Idempotency-Key was already used for a different render",
  },
  // Rendering
  unknown_kernel: { status: 404, title: "No such kernel" },
  unknown_project_version: { status: 404, title: "No such project or version" },
  invalid_dag: { status: 422, title: "The DAG is invalid" },
  invalid_parameters: { status: 422, title: "A parameter value is invalid" },
  invalid_parameter_schema: { status: 422, title: "The parameter schema is invalid" },
  render_failed: { status: 422, title: "The geometry could not be evaluated" },
  kernel_busy: { status: 503, title: "The render service is at capacity" },
  render_timeout: { status: 503, title: "The render took longer than its deadline" },
  // Exports and the order hand-off (docs/exports.md)
  unknown_export_format: { status: 400, title: "No such export format" },
  export_format_not_allowed: {
    status: 403,
    title: "The key does not allow this export format in this flow",
  },
  ar_ticket_unknown: { status: 404, title: "The AR link is unknown or has expired" },
  invalid_configuration: { status: 422, title: "The signed configuration does not verify" },
  configuration_not_owned: {
    status: 403,
    title: "The signed configuration belongs to another partner or project",
  },
  // Operator input (CLI, settings)
  invalid_origin: { status: 422, title: "An allowed origin is not a valid origin" },
  unknown_partner: { status: 404, title: "No such partner" },
  unknown_project: { status: 422, title: "A project is not one of the partner's projects" },
  project_exists: { status: 409, title: "A project with this slug already exists" },
  project_ambiguous: {
    status: 409,
    title: "Several partners have a project with this slug: name the partner",
  },
  // Settings: accounts, sessions, CSRF
  session_required: { status: 401, title: "Sign in to use the settings" },
  sign_in_failed: { status: 401, title: "The email or password is not correct" },
  csrf_rejected: { status: 403, title: "The request failed the cross-site request check" },
  forbidden: { status: 403, title: "Your role does not allow this" },
  account_exists: { status: 409, title: "An account with this email already exists" },
  invite_invalid: { status: 410, title: "The invitation is unknown, used or expired" },
  sign_in_throttled: { status: 429, title: "Too many failed sign-ins; wait and retry" },
  // Dependencies
  service_unavailable: { status: 503, title: "A backing service is unavailable" },
  internal_error: { status: 500, title: "Internal error" },
} as const satisfies Record<string, ErrorCodeInfo>;

/** A stable error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Whether `code` is one of the catalogue's codes. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}
