/**
 * The claims of an `sv1.` session token, the limits that bound a token, and the two checks every
 * verified payload goes through: exact types first (`assertClaimTypes`), then values against the
 * clock (`assertClaimValues`). Both are strict on purpose: the hub is the only writer, so anything
 * unexpected is either a bug or an attack.
 */

import { TokenError } from "./errors.ts";

/** The version prefix; it fixes the algorithm (Ed25519) and the encoding, so there is no `alg`. */
export const TOKEN_PREFIX = "sv1.";
/** Longest accepted token, in characters; checked before any decoding so junk costs nothing. */
export const MAX_TOKEN_LENGTH = 4096;
/** Longest accepted lifetime (`exp - iat`), in seconds; also how long a retired key stays published. */
export const MAX_TOKEN_LIFETIME_S = 12 * 3600;
/** Clock skew tolerated between hub and render nodes, in seconds. */
export const CLOCK_LEEWAY_S = 60;
/** The only accepted `iss`. */
export const TOKEN_ISSUER = "hub";
/** The only accepted `aud`. */
export const TOKEN_AUDIENCE = "kernel-api";
/** Longest accepted string claim, in UTF-16 code units. */
export const MAX_CLAIM_STRING_LENGTH = 256;

/** The payload of an `sv1.` session token (spec 2.2 plus `kid`). */
export interface SessionClaims {
  /** End-user identifier (the `endUserId` given at mint, or an anonymous id). */
  sub: string;
  /** Issuer; always `hub`. */
  iss: "hub";
  /** Audience; always `kernel-api`. */
  aud: "kernel-api";
  /** Partner identifier. */
  partner: string;
  /**
   * The keyId that minted the token (RFC 9068's `client_id`). Not in the spec's claim list: the
   * render service needs it to refuse tokens of a revoked key. It is publishable, like the keyId.
   */
  client_id: string;
  /** Project slug the token is scoped to. */
  project: string;
  /** Origin the token is bound to, serialized as the browser sends it. */
  origin: string;
  /** Unique per token; the budget and revocation key. */
  jti: string;
  /** Renders allowed for this `jti`; `null` means unlimited. */
  budget: number | null;
  /** Issued-at, Unix seconds. */
  iat: number;
  /** Expiry, Unix seconds. */
  exp: number;
  /** Id of the signing key (RFC 7638 thumbprint, see `signing_keys.ts`). */
  kid: string;
}

/** Every claim name, in the fixed order `signToken` serializes them. */
export const CLAIM_NAMES = [
  "iss",
  "aud",
  "sub",
  "partner",
  "client_id",
  "project",
  "origin",
  "jti",
  "budget",
  "iat",
  "exp",
  "kid",
] as const satisfies ReadonlyArray<keyof SessionClaims>;

const STRING_CLAIMS = [
  "iss",
  "aud",
  "sub",
  "partner",
  "client_id",
  "project",
  "origin",
  "jti",
  "kid",
] as const satisfies ReadonlyArray<keyof SessionClaims>;

const KNOWN_CLAIMS: ReadonlySet<string> = new Set(CLAIM_NAMES);

function badType(name: string, message: string): TokenError {
  // Names come from the token; bound and quote them so a log line cannot be flooded or forged.
  return new TokenError("bad_claim_type", `claim ${JSON.stringify(name.slice(0, 64))} ${message}`);
}

/** Whether `value` is a non-empty string of at most `MAX_CLAIM_STRING_LENGTH` code units. */
export function isClaimString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= MAX_CLAIM_STRING_LENGTH;
}

/**
 * Checks that `value` has exactly the members of `SessionClaims` with exactly their types, and
 * returns a fresh object in the fixed member order. Throws `TokenError` `bad_claim_type` naming the
 * claim. `iss` and `aud` are only type-checked here; their values are `assertClaimValues`'s job so
 * a wrong audience gets its own reason.
 *
 * @example
 * ```ts
 * const claims = assertClaimTypes(JSON.parse(text)); // throws TokenError("bad_claim_type")
 * ```
 */
export function assertClaimTypes(value: unknown): SessionClaims {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TokenError("bad_claim_type", "claims must be a JSON object");
  }
  const record = value as Record<string, unknown>;
  const names = Object.keys(record);
  for (const name of names) {
    if (!KNOWN_CLAIMS.has(name)) throw badType(name, "is not a known claim");
  }
  // Only known names and as many as there are claims: every claim is an own member, so the reads
  // below can never fall through to a (polluted) prototype.
  if (names.length !== CLAIM_NAMES.length) {
    const missing = CLAIM_NAMES.find((name) => !Object.hasOwn(record, name)) ?? "?";
    throw badType(missing, "is missing");
  }
  for (const name of STRING_CLAIMS) {
    if (!isClaimString(record[name])) {
      throw badType(name, `must be a non-empty string of at most ${MAX_CLAIM_STRING_LENGTH} chars`);
    }
  }
  const budget = record.budget;
  if (budget !== null && !(Number.isSafeInteger(budget) && (budget as number) >= 0)) {
    throw badType("budget", "must be a non-negative safe integer or null");
  }
  for (const name of ["iat", "exp"] as const) {
    const v = record[name];
    if (!(Number.isSafeInteger(v) && (v as number) >= 0)) {
      throw badType(name, "must be a non-negative safe integer (Unix seconds)");
    }
  }
  return {
    iss: record.iss as "hub",
    aud: record.aud as "kernel-api",
    sub: record.sub as string,
    partner: record.partner as string,
    client_id: record.client_id as string,
    project: record.project as string,
    origin: record.origin as string,
    jti: record.jti as string,
    budget: budget as number | null,
    iat: record.iat as number,
    exp: record.exp as number,
    kid: record.kid as string,
  };
}

/**
 * Checks the values of type-checked claims at time `now` (Unix seconds), in this order: `aud`,
 * `iss`, lifetime (`exp <= iat` or longer than `MAX_TOKEN_LIFETIME_S`), expiry, issued-in-future,
 * each with `CLOCK_LEEWAY_S`. Throws `TokenError` with the matching reason.
 *
 * @example
 * ```ts
 * assertClaimValues(claims, Math.floor(Date.now() / 1000));
 * ```
 */
export function assertClaimValues(claims: SessionClaims, now: number): void {
  if (!Number.isFinite(now)) throw new TypeError("now must be a finite number of Unix seconds");
  if (claims.aud !== TOKEN_AUDIENCE) {
    throw new TokenError("bad_audience", `aud must be ${JSON.stringify(TOKEN_AUDIENCE)}`);
  }
  if (claims.iss !== TOKEN_ISSUER) {
    throw new TokenError("bad_issuer", `iss must be ${JSON.stringify(TOKEN_ISSUER)}`);
  }
  if (claims.exp <= claims.iat || claims.exp - claims.iat > MAX_TOKEN_LIFETIME_S) {
    throw new TokenError(
      "lifetime_too_long",
      `exp must be after iat and at most ${MAX_TOKEN_LIFETIME_S} s later`,
    );
  }
  if (now > claims.exp + CLOCK_LEEWAY_S) throw new TokenError("expired", "the token has expired");
  if (claims.iat > now + CLOCK_LEEWAY_S) {
    throw new TokenError("issued_in_future", "the token was issued in the future");
  }
}
