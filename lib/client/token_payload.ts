/**
 * Reads the times out of an `sv1.` session token WITHOUT verifying it. The browser holds no key
 * and needs none: the render service verifies every token. The client only uses `iat` and `exp`
 * to schedule work (a refresh, an expiry callback), where a wrong value costs a request at worst.
 * Never use these claims for a decision about access.
 *
 * Runs in browsers: no Deno APIs here.
 */

import { decodeBase64 } from "./base64.ts";

/** The two times of a token, in Unix seconds as the hub's clock saw them. */
export interface TokenTimes {
  /** Issued at. */
  iat?: number;
  /** Expires at. */
  exp?: number;
}

/**
 * The `iat`/`exp` claims of an `sv1.` token, or `{}` when the token cannot be read. Unverified.
 *
 * @example
 * ```ts
 * const { exp } = readTokenTimes(token);
 * if (exp !== undefined) scheduleAt(exp * 1000);
 * ```
 */
export function readTokenTimes(token: string): TokenTimes {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== "sv1") return {};
  try {
    const json = new TextDecoder().decode(decodeBase64(parts[1], { url: true }));
    const payload: unknown = JSON.parse(json);
    if (typeof payload !== "object" || payload === null) return {};
    const { iat, exp } = payload as Record<string, unknown>;
    const times: TokenTimes = {};
    if (typeof iat === "number" && Number.isFinite(iat)) times.iat = iat;
    if (typeof exp === "number" && Number.isFinite(exp)) times.exp = exp;
    return times;
  } catch {
    return {};
  }
}

/**
 * The `origin` claim of an `sv1.` token, or undefined. Unverified: only used to explain a refusal
 * (a token bound to another site) in words, never to decide anything.
 */
export function readTokenOrigin(token: string): string | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== "sv1") return undefined;
  try {
    const json = new TextDecoder().decode(decodeBase64(parts[1], { url: true }));
    const origin = (JSON.parse(json) as Record<string, unknown>)?.origin;
    return typeof origin === "string" ? origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `partner` claim of an `sv1.` token, or undefined. Unverified: only used to name whose
 * public project to load (slugs are unique per partner), never to decide anything.
 */
export function readTokenPartner(token: string): string | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== "sv1") return undefined;
  try {
    const json = new TextDecoder().decode(decodeBase64(parts[1], { url: true }));
    const partner = (JSON.parse(json) as Record<string, unknown>)?.partner;
    return typeof partner === "string" ? partner : undefined;
  } catch {
    return undefined;
  }
}
