/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 9110 §11.6.1, §15.5.2: a 401 MUST carry at least
 * one). Three protection spaces, one per credential the service takes (docs/errors.md,
 * "Challenges"):
 *
 * - `partner-key` — the mint's partner keys: `Bearer` (RFC 6750), as the server flow sends
 *   `Authorization: Bearer sdk_…`.
 * - `session-token` — `sv1.` tokens on the render and configuration routes: `Bearer`.
 * - `settings` — the settings' session cookie, got by signing in with a form. No registered scheme
 *   fits; `Cookie` with `form-action` follows draft-broyer-http-cookie-auth, and an unknown scheme
 *   makes browsers show the page instead of a Basic-auth dialog.
 *
 * With no credential at all (`unauthenticated`, an `invalid_token` whose reason is `missing`),
 * RFC 6750 §3.1 says to send no error code; otherwise `error="invalid_token"`.
 */
import { ERROR_CODES, type ErrorCode } from "./error_codes.ts";

/** Which credential a 401 code is about. */
type ProtectionSpace = "partner-key" | "session-token" | "settings";

const SPACES: Partial<Record<ErrorCode, ProtectionSpace>> = {
  unauthenticated: "partner-key",
  invalid_key_format: "partner-key",
  invalid_credentials: "partner-key",
  unknown_key: "partner-key",
  key_revoked: "partner-key",
  invalid_token: "session-token",
  token_expired: "session-token",
  token_revoked: "session-token",
  session_required: "settings",
  sign_in_failed: "settings",
};

/** The sign-in form a `Cookie` challenge points at. */
const SIGN_IN_PATH = "/auth/signin";

// RFC 6750 §3: error_description is %x20-21 / %x23-5B / %x5D-7E.
const quotable = (s: string) => s.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, "");

/**
 * The challenge for a problem `code` (and its `reason`), or null when the code is not a 401.
 *
 * @example
 * ```ts
 * authChallenge("token_expired");
 * // 'Bearer realm="session-token", error="invalid_token", error_description="…"'
 * ```
 */
export function authChallenge(code: ErrorCode, reason?: unknown): string | null {
  if (ERROR_CODES[code].status !== 401) return null;
  const space = SPACES[code];
  // A 401 code added without a space still gets a valid challenge: RFC 6750's bare scheme.
  if (!space) return "Bearer";
  if (space === "settings") return `Cookie realm="settings", form-action="${SIGN_IN_PATH}"`;
  const challenge = `Bearer realm="${space}"`;
  if (code === "unauthenticated" || reason === "missing") return challenge;
  return `${challenge}, error="invalid_token", error_description="${
    quotable(ERROR_CODES[code].title)
  }"`;
}
