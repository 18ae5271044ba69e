/**
 * The one error type of the `sv1.` token codec. Every rejection carries a stable `code` (what the
 * problem response says) and a finer `reason` (what the logs and tests look at), so callers never
 * parse messages.
 */

/** Why a token was rejected; stable strings, safe to log and to assert on. */
export type TokenErrorReason =
  | "too_large"
  | "bad_prefix"
  | "malformed"
  | "non_canonical_base64url"
  | "bad_json"
  | "duplicate_key"
  | "bad_claim_type"
  | "unknown_kid"
  | "bad_signature"
  | "bad_audience"
  | "bad_issuer"
  | "expired"
  | "issued_in_future"
  | "lifetime_too_long";

/** The problem `code` a token rejection maps to (see `lib/http/error_codes.ts`). */
export type TokenErrorCode = "invalid_token" | "token_expired";

/**
 * A rejected `sv1.` token. Only `expired` maps to `token_expired`: that is the one case where the
 * client should simply mint again; every other reason is `invalid_token`.
 *
 * @example
 * ```ts
 * try {
 *   await verifyToken(token, keyring.resolve.bind(keyring), { now });
 * } catch (err) {
 *   if (err instanceof TokenError) console.log(err.code, err.reason);
 * }
 * ```
 */
export class TokenError extends Error {
  /** The stable problem code: `token_expired` for `expired`, otherwise `invalid_token`. */
  readonly code: TokenErrorCode;
  /** The precise reason the token was rejected. */
  readonly reason: TokenErrorReason;
  /**
   * The payload, set only when the signature verified and a claim value was refused (expired,
   * wrong audience, …): authentic, so a caller may use e.g. its `origin` to make the problem
   * readable cross-origin, but never as a grant.
   */
  verifiedPayload?: Readonly<Record<string, unknown>>;

  /** Creates a rejection for `reason`; `message` is for humans and must not contain the token. */
  constructor(reason: TokenErrorReason, message: string) {
    super(message);
    this.name = "TokenError";
    this.reason = reason;
    this.code = reason === "expired" ? "token_expired" : "invalid_token";
  }
}
