/**
 * Mint policy (spec 4.1, 5, 7): decides which flow a request uses, proves the caller, checks the
 * key's origins, projects and TTL bounds, spends one rate-limit point (in the browser flow first one
 * of the client address's: docs/security.md) and signs an `sv1.` token.
 * Transport concerns (body size, JSON parsing, headers) stay in the route.
 */
import { AppError } from "../http/problem.ts";
import { originAllowed } from "../http/origin.ts";
import { explainOriginMatch } from "../http/origin_match.ts";
import { validate } from "../http/validate.ts";
import { type SessionClaims, TOKEN_AUDIENCE, TOKEN_ISSUER } from "../token/claims.ts";
import { signToken } from "../token/sign.ts";
import type { SdkKeyRecord } from "../store/sdk_keys.ts";
import type { SdkKeyCache } from "../store/sdk_key_cache.ts";
import { isWellFormedKeyId, parsePartnerKey, PartnerKeyFormatError } from "./partner_key.ts";
import { BrowserMintBody, ServerMintBody } from "./mint_request.ts";
import { type MintRateLimiter, rateLimitHeaders, type RateLimitResult } from "./rate_limit.ts";
import { clientIpRateLimitHeaders, clientIpWindow } from "./client_ip_limit.ts";
import { randomHex } from "./random_hex.ts";
import { secretAccepted, TTL_BOUNDS } from "./sdk_keys.ts";
import type { UsageRecorder } from "./usage.ts";
import type { BudgetStore } from "../render/budget.ts";

/** What a mint attempt learned about its key, for the usage counters. */
interface MintSeen {
  key?: SdkKeyRecord;
  origin?: string | null;
}

/** What the mint policy needs from the process. */
export interface MintDeps {
  /** Key records (cached for a bounded time). */
  keys: Pick<SdkKeyCache, "get">;
  /** Mint windows: per key, and per client network in the browser flow (one Redis call). */
  rateLimiter: Pick<MintRateLimiter, "consumeAll">;
  /** Supplies the current signing key (the hub's keyring). */
  keyring: { signingKey(): { kid: string; privateKey: CryptoKey } };
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** Opens each budgeted token's render-budget counter before the token is handed out. */
  budgets: Pick<BudgetStore, "open">;
  /** Per-key usage counters (optional: absent in unit tests of the policy). */
  usage?: Pick<UsageRecorder, "recordMint">;
}

/** The transport-independent parts of a mint request. */
export interface MintInput {
  /** The `Authorization` header, or null. */
  authorization: string | null;
  /** The `Origin` header exactly as sent, or null. */
  origin: string | null;
  /** The parsed JSON body. */
  body: unknown;
  /** The client's IP address (lib/http/client_ip.ts), for the browser flow's per-IP limit. */
  clientIp?: string;
}

/** Which flow minted: `secret` (server flow, spec 2.3) or `publishable` (browser flow). */
export type MintMode = "secret" | "publishable";

/** A minted token and what the response needs besides it. */
export interface MintResult {
  token: string;
  expiresAt: number;
  mode: MintMode;
  claims: SessionClaims;
  /** Rate-limit headers for the response. */
  headers: Record<string, string>;
}

/**
 * Mints a session token for either flow.
 *
 * @example
 * ```ts
 * const r = await mintSessionToken(deps, { authorization: null, origin: "https://shop.example", body: { keyId, projectId: "vase" } });
 * r.token; // "sv1.…"
 * ```
 */
export async function mintSessionToken(deps: MintDeps, input: MintInput): Promise<MintResult> {
  const seen: MintSeen = {};
  try {
    const result = input.authorization !== null
      ? await mintServerFlow(deps, input.authorization, input.body, seen)
      : await mintBrowserFlow(deps, input.origin, input.body, seen, input.clientIp);
    deps.usage?.recordMint(result.claims.client_id, "ok", result.claims.origin, [
      result.claims.origin,
    ]);
    return result;
  } catch (err) {
    recordMintFailure(deps, seen.key, seen.origin, err);
    throw err;
  }
}

/**
 * Counts a refused mint in the usage counters, under its error code, when the attempt named an
 * existing key (`key`); attempts that named none are not counted: the usage page is per key.
 *
 * @example
 * ```ts
 * recordMintFailure(deps, seen.key, origin, err);
 * ```
 */
export function recordMintFailure(
  deps: MintDeps,
  key: SdkKeyRecord | undefined,
  origin: string | null | undefined,
  err: unknown,
): void {
  if (!key || !deps.usage) return;
  const code = err instanceof AppError ? err.code : "internal_error";
  deps.usage.recordMint(key.keyId, code, origin, key.allowedOrigins);
}

async function mintBrowserFlow(
  deps: MintDeps,
  originHeader: string | null,
  raw: unknown,
  seen: MintSeen,
  clientIp: string | undefined,
): Promise<MintResult> {
  seen.origin = originHeader;
  if (!isObject(raw) || raw.keyId === undefined) {
    throw new AppError(
      "unauthenticated",
      "Send either a keyId in the body (browser flow) or Authorization: Bearer sdk_<keyId>_<secret> (server flow).",
    );
  }
  if (originHeader === null) {
    throw new AppError(
      "origin_required",
      "The browser flow is proven by the Origin header, and this request has none. " +
        "Browsers add it; from a server use the server flow with your secret key.",
    );
  }
  const body = validate(BrowserMintBody, raw);
  if (body.origin !== undefined && body.origin !== originHeader) {
    throw new AppError(
      "origin_conflict",
      `The body origin "${body.origin}" differs from the Origin header "${originHeader}".`,
      { extensions: { pointer: "/origin" } },
    );
  }
  if (!isWellFormedKeyId(body.keyId)) {
    throw new AppError(
      "unknown_key",
      `"${body.keyId}" is not a keyId (expected the part between "sdk_" and "_").`,
    );
  }
  const key = await loadActiveKey(deps, body.keyId, "unknown_key", seen);
  if (!originAllowed(originHeader, key.allowedOrigins)) {
    throw originNotAllowed(originHeader, key);
  }
  return await issue(deps, key, "publishable", {
    projectId: body.projectId,
    origin: originHeader,
    endUserId: body.endUserId,
    ttlSeconds: body.ttlSeconds,
    clientIp,
  });
}

async function mintServerFlow(
  deps: MintDeps,
  authorization: string,
  raw: unknown,
  seen: MintSeen,
): Promise<MintResult> {
  const match = /^Bearer +(\S+)$/i.exec(authorization.trim());
  if (!match) {
    throw new AppError(
      "unauthenticated",
      "The Authorization header must be `Bearer sdk_<keyId>_<secret>`.",
    );
  }
  let parsed: { keyId: string; secret: string };
  try {
    parsed = parsePartnerKey(match[1]);
  } catch (err) {
    if (err instanceof PartnerKeyFormatError) {
      throw new AppError("invalid_key_format", err.message, {
        extensions: { reason: err.reason },
      });
    }
    throw err;
  }
  const body = validate(ServerMintBody, raw);
  seen.origin = body.origin;
  if (body.keyId !== undefined && body.keyId !== parsed.keyId) {
    throw new AppError(
      "validation_failed",
      "The body keyId does not match the key in Authorization.",
      {
        extensions: {
          errors: [{ pointer: "/keyId", detail: "does not match the Authorization key" }],
        },
      },
    );
  }
  const key = await loadActiveKey(deps, parsed.keyId, "invalid_credentials", seen);
  // A rolled key has several live secrets: the new one and those still in their grace period.
  const ok = await secretAccepted(key, parsed.secret, deps.clock());
  if (!ok) throw new AppError("invalid_credentials", "The secret does not match this key.");
  if (!originAllowed(body.origin, key.allowedOrigins)) throw originNotAllowed(body.origin, key);
  return await issue(deps, key, "secret", body);
}

/** The key for `keyId` when it exists and is not revoked; else `missing` or `key_revoked`. */
export async function loadActiveKey(
  deps: MintDeps,
  keyId: string,
  missing: "unknown_key" | "invalid_credentials",
  seen: MintSeen = {},
): Promise<SdkKeyRecord> {
  const key = await deps.keys.get(keyId);
  if (key) seen.key = key;
  if (!key) {
    throw new AppError(
      missing,
      missing === "unknown_key" ? `No key has the keyId "${keyId}".` : "The key is not valid.",
    );
  }
  if (key.revokedAt !== null) {
    throw new AppError("key_revoked", `The key "${keyId}" was revoked and can no longer mint.`);
  }
  return key;
}

function originNotAllowed(origin: string, key: SdkKeyRecord): AppError {
  const hint = explainOriginMatch(origin, key.allowedOrigins);
  const closest = hint.closest ? ` The closest allowed origin is "${hint.closest}".` : "";
  return new AppError(
    "origin_not_allowed",
    `"${origin}" is not an allowed origin of this key; origins must match exactly (scheme, host and port).${closest}`,
  );
}

/**
 * Checks the project, TTL bounds and rate limits of `key` (for a publishable mint with a
 * `clientIp`, the per-client-IP limit first), then signs a token for `req.origin`.
 */
export async function issue(
  deps: MintDeps,
  key: SdkKeyRecord,
  mode: MintMode,
  req: {
    projectId: string;
    origin: string;
    endUserId?: string;
    ttlSeconds?: number;
    clientIp?: string;
  },
): Promise<MintResult> {
  if (!key.allowedProjects.includes(req.projectId)) {
    throw new AppError(
      "project_not_allowed",
      `The project "${req.projectId}" is not allowed for this key.`,
    );
  }
  const ttl = req.ttlSeconds ?? key.defaultTtlSeconds;
  if (ttl < TTL_BOUNDS.min || ttl > key.maxTtlSeconds) {
    throw new AppError(
      "ttl_out_of_bounds",
      `ttlSeconds must be from ${TTL_BOUNDS.min} to ${key.maxTtlSeconds} for this key, not ${ttl}.`,
      { extensions: { minimum: TTL_BOUNDS.min, maximum: key.maxTtlSeconds } },
    );
  }
  // Per client first: a client over its own limit must not spend the key's (client_ip_limit.ts).
  const perClient = mode === "publishable" && req.clientIp !== undefined;
  const keyWindow = { policy: key.rateLimit };
  const results = await deps.rateLimiter.consumeAll(
    key.keyId,
    perClient ? [clientIpWindow(req.clientIp!, key.clientIpRateLimit), keyWindow] : [keyWindow],
  );
  const perIp = perClient ? results[0] : undefined;
  if (perIp && !perIp.allowed) {
    throw new AppError(
      "rate_limited",
      `This key may mint ${perIp.policy.points} tokens per ${perIp.policy.durationSeconds} s for one client address; retry in ${perIp.resetSeconds} s.`,
      { headers: clientIpRateLimitHeaders(perIp), extensions: { scope: "client_ip" } },
    );
  }
  const limit: RateLimitResult = results[results.length - 1];
  const headers = perIp
    ? clientIpRateLimitHeaders(perIp, rateLimitHeaders(limit))
    : rateLimitHeaders(limit);
  if (!limit.allowed) {
    throw new AppError(
      "rate_limited",
      `This key may mint ${limit.policy.points} tokens per ${limit.policy.durationSeconds} s; retry in ${limit.resetSeconds} s.`,
      { headers, extensions: { scope: "key" } },
    );
  }
  const signing = deps.keyring.signingKey();
  const iat = Math.floor(deps.clock() / 1000);
  const claims: SessionClaims = {
    sub: req.endUserId ?? `anon_${randomHex(12)}`,
    iss: TOKEN_ISSUER,
    aud: TOKEN_AUDIENCE,
    partner: key.partnerId,
    client_id: key.keyId,
    project: req.projectId,
    origin: req.origin,
    jti: randomHex(16),
    budget: key.budget,
    iat,
    exp: iat + ttl,
    kid: signing.kid,
  };
  const token = signToken(claims, signing);
  // Before the token leaves: the kernel refuses a budgeted token whose counter does not exist
  // (lib/render/budget.ts), so a lost counter can never grant a fresh budget.
  await deps.budgets.open(claims.jti, claims.budget, claims.exp);
  return { token, expiresAt: claims.exp, mode, claims, headers };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
