/**
 * Origins as browsers serialize them (RFC 6454 §6.1, WHATWG URL "ASCII serialization of an
 * origin"): `scheme://host[:port]`, lowercase, punycode host, default port omitted, no path.
 *
 * Allowed origins are normalized once, when a partner saves a key, and refused with a message
 * that says what is wrong and what to enter instead. At request time the `Origin` header is
 * compared byte for byte with no normalization: a browser always sends the canonical form, so
 * anything else did not come from a browser and has no claim to match (spec 5, 8: exact match,
 * no wildcards).
 */

import { isLoopback, looseParts, MAX_ORIGIN_LENGTH } from "./origin_parts.ts";

export { MAX_ORIGIN_LENGTH };

/** Most allowed origins one key may list. */
export const MAX_ALLOWED_ORIGINS = 100;

/** Why an origin (or a list of them) was refused; stable, for UIs and problem `reason` members. */
export type OriginErrorReason =
  | "not_a_string"
  | "not_a_list"
  | "empty"
  | "empty_list"
  | "too_many"
  | "too_long"
  | "whitespace"
  | "control_character"
  | "opaque"
  | "wildcard"
  | "backslash"
  | "missing_scheme"
  | "missing_slashes"
  | "unsupported_scheme"
  | "userinfo"
  | "no_host"
  | "invalid_host"
  | "invalid_port"
  | "trailing_slash"
  | "path"
  | "query"
  | "fragment";

/** Thrown when an allowed origin is refused; the message says why and, if it can, what to use. */
export class OriginError extends Error {
  /** Stable machine-readable code (see `docs/errors.md`). */
  readonly code = "invalid_origin" as const;
  /** Which check failed. */
  readonly reason: OriginErrorReason;
  /** The refused string as given (empty for list-level errors). */
  readonly input: string;
  /** The normalized origin the input most likely meant, when there is one. */
  readonly suggestion?: string;
  /** Position of the refused entry, for errors from `normalizeAllowedOrigins`. */
  readonly index?: number;

  /** Builds the error; `message` is shown to the partner as is. */
  constructor(
    reason: OriginErrorReason,
    input: string,
    message: string,
    options: { suggestion?: string; index?: number } = {},
  ) {
    super(message);
    this.name = "OriginError";
    this.reason = reason;
    this.input = input;
    if (options.suggestion !== undefined) this.suggestion = options.suggestion;
    if (options.index !== undefined) this.index = options.index;
  }
}

const EXAMPLE = "https://shop.example.com";
const SCHEME_PREFIX = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s;

/**
 * Normalizes one allowed origin to the exact string a browser on that origin sends, or throws
 * `OriginError`.
 *
 * @example
 * ```ts
 * normalizeAllowedOrigin("https://EXAMPLE.com:443"); // "https://example.com"
 * normalizeAllowedOrigin("http://[::1]:3000"); // "http://[::1]:3000"
 * normalizeAllowedOrigin("https://shop.example.com/"); // throws: trailing slash
 * ```
 */
export function normalizeAllowedOrigin(input: string): string {
  if (typeof input !== "string") {
    throw new OriginError("not_a_string", String(input), "An origin must be a string.");
  }
  if (input.length > MAX_ORIGIN_LENGTH) {
    throw new OriginError(
      "too_long",
      input,
      `An origin is at most ${MAX_ORIGIN_LENGTH} characters; this one has ${input.length}.`,
    );
  }
  if (input === "") {
    throw new OriginError("empty", input, `An origin is required, e.g. "${EXAMPLE}".`);
  }
  const trimmed = input.trim();
  if (trimmed !== input) {
    const suggestion = tryNormalize(trimmed);
    throw new OriginError(
      "whitespace",
      input,
      `${show(input)} has leading or trailing whitespace${use(suggestion)}`,
      { suggestion },
    );
  }
  if (/\s/.test(input)) {
    throw new OriginError(
      "whitespace",
      input,
      `${show(input)} contains whitespace; an origin has none.`,
    );
  }
  // The URL parser silently drops tabs and newlines; refuse them rather than store a surprise.
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(input)) {
    throw new OriginError(
      "control_character",
      input,
      `${show(input)} contains a control character.`,
    );
  }
  if (input.toLowerCase() === "null") {
    throw new OriginError(
      "opaque",
      input,
      `"null" is the opaque origin sent by sandboxed iframes and file:// pages; every such page ` +
        `sends it, so it cannot identify a partner. Serve the page from a real origin, e.g. ` +
        `"http://localhost:5173" during development.`,
    );
  }
  if (input.includes("*")) {
    const example = tryNormalize(input.replace(/\*\.?/g, "")) ?? EXAMPLE;
    throw new OriginError(
      "wildcard",
      input,
      `${show(input)} contains a wildcard; allowed origins match exactly, so list every origin ` +
        `in full, e.g. "${example}".`,
    );
  }
  if (input.includes("\\")) {
    const suggestion = tryNormalize(input.replaceAll("\\", "/"));
    throw new OriginError(
      "backslash",
      input,
      `${show(input)} contains a backslash${use(suggestion, "; use forward slashes")}`,
      { suggestion },
    );
  }
  const sep = input.indexOf("://");
  if (sep === -1) throw schemeless(input);
  const scheme = input.slice(0, sep).toLowerCase();
  if (scheme === "") throw schemeless(input);
  if (scheme !== "http" && scheme !== "https") {
    const why = scheme === "file"
      ? `; file:// pages send the origin "null", which cannot be allowed — serve the files over ` +
        `http, e.g. "http://localhost:8000"`
      : "";
    throw new OriginError(
      "unsupported_scheme",
      input,
      `${show(input)} uses the scheme "${scheme}"; an allowed origin is http or https${why}.`,
    );
  }
  const afterScheme = input.slice(sep + 3);
  const authorityEnd = afterScheme.search(/[/?#]/);
  const authority = authorityEnd === -1 ? afterScheme : afterScheme.slice(0, authorityEnd);
  const rest = authorityEnd === -1 ? "" : afterScheme.slice(authorityEnd);
  if (authority.includes("@")) {
    const at = authority.lastIndexOf("@");
    const suggestion = tryNormalize(`${scheme}://${authority.slice(at + 1)}`);
    // The user info may be a password: the message shows neither it nor the raw input.
    throw new OriginError(
      "userinfo",
      input,
      `The origin "${scheme}://…@${
        authority.slice(at + 1)
      }" contains user info ("…@"); an origin ` +
        `carries no credentials${use(suggestion)}`,
      { suggestion },
    );
  }
  checkAuthority(input, scheme, authority);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new OriginError(
      "invalid_host",
      input,
      `${show(input)} does not have a valid host, e.g. "${EXAMPLE}".`,
    );
  }
  if (url.hostname === "") {
    throw new OriginError("no_host", input, `${show(input)} has no host, e.g. "${EXAMPLE}".`);
  }
  const origin = `${url.protocol}//${url.host}`;
  if (rest !== "") throw pathError(input, rest, origin);
  return origin;
}

/**
 * Normalizes a key's allowed origins: each entry normalized, duplicates (after normalization)
 * dropped, order kept; throws `OriginError` naming the first bad entry and its index.
 *
 * @example
 * ```ts
 * normalizeAllowedOrigins(["https://Shop.example.com", "https://shop.example.com:443", "http://localhost:5173"]);
 * // ["https://shop.example.com", "http://localhost:5173"]
 * ```
 */
export function normalizeAllowedOrigins(inputs: string[]): string[] {
  if (!Array.isArray(inputs)) {
    throw new OriginError("not_a_list", "", "Allowed origins must be a list of strings.");
  }
  if (inputs.length === 0) {
    throw new OriginError(
      "empty_list",
      "",
      `At least one origin is required, e.g. "${EXAMPLE}" (add "http://localhost:5173" or your ` +
        `own development origin too).`,
    );
  }
  // Counted before de-duplication so the work done here is bounded by the input, not its content.
  if (inputs.length > MAX_ALLOWED_ORIGINS) {
    throw new OriginError(
      "too_many",
      "",
      `A key may list at most ${MAX_ALLOWED_ORIGINS} allowed origins; ${inputs.length} were given.`,
    );
  }
  const seen = new Set<string>();
  const out: string[] = [];
  for (const [index, input] of inputs.entries()) {
    let origin: string;
    try {
      origin = normalizeAllowedOrigin(input);
    } catch (err) {
      if (!(err instanceof OriginError)) throw err;
      throw new OriginError(
        err.reason,
        err.input,
        `Allowed origin ${index + 1} of ${inputs.length} (index ${index}): ${err.message}`,
        { suggestion: err.suggestion, index },
      );
    }
    if (!seen.has(origin)) {
      seen.add(origin);
      out.push(origin);
    }
  }
  return out;
}

/**
 * The request's `Origin` header exactly as sent, or null when there is none. The string `"null"`
 * (sandboxed iframes, file:// pages) is returned as is; it never matches an allowlist.
 */
export function readRequestOrigin(headers: Headers): string | null {
  return headers.get("origin");
}

/**
 * Whether a request `Origin` is on the allowlist: exact string equality, no normalization (a
 * browser already sends the canonical form); null and `"null"` are never allowed.
 *
 * @example
 * ```ts
 * originAllowed("https://shop.example.com", ["https://shop.example.com"]); // true
 * originAllowed("https://shop.example.com/", ["https://shop.example.com"]); // false
 * ```
 */
export function originAllowed(origin: string | null, allowed: readonly string[]): boolean {
  if (typeof origin !== "string" || origin === "null") return false;
  return allowed.includes(origin);
}

/** The refusal for an input without `scheme://`. */
function schemeless(input: string): OriginError {
  const m = SCHEME_PREFIX.exec(input);
  if (m && /^https?$/i.test(m[1])) {
    const suggestion = tryNormalize(`${m[1]}://${m[2].replace(/^\/*/, "")}`);
    return new OriginError(
      "missing_slashes",
      input,
      `${show(input)} is missing "//" after "${m[1]}:"${use(suggestion)}`,
      { suggestion },
    );
  }
  // `localhost:5173` and `example.com:8080` also look like `scheme:rest`; a port-like rest or a
  // dot in the "scheme" says it is a host.
  if (m && !m[1].includes(".") && !/^\d*(?:[/?#].*)?$/s.test(m[2])) {
    return new OriginError(
      "unsupported_scheme",
      input,
      `${show(input)} uses the scheme "${
        m[1].toLowerCase()
      }"; an allowed origin is http or https, ` +
        `e.g. "${EXAMPLE}".`,
    );
  }
  const host = input.replace(/^:?\/\//, "");
  const scheme = isLoopback(looseParts(`http://${host}`)?.host ?? "") ? "http" : "https";
  const suggestion = originOf(`${scheme}://${host}`);
  return new OriginError(
    "missing_scheme",
    input,
    `${show(input)} has no scheme; add the scheme, e.g. "${suggestion ?? EXAMPLE}".`,
    { suggestion },
  );
}

/** Refuses a missing host or a bad port with a specific message (the URL parser's is generic). */
function checkAuthority(input: string, scheme: string, authority: string): void {
  let host = authority;
  let port: string | undefined;
  if (authority.startsWith("[")) {
    const close = authority.indexOf("]");
    if (close === -1) {
      throw new OriginError(
        "invalid_host",
        input,
        `${show(input)} has an unclosed "[" in its host.`,
      );
    }
    host = authority.slice(0, close + 1);
    const after = authority.slice(close + 1);
    if (after !== "" && !after.startsWith(":")) {
      throw new OriginError(
        "invalid_host",
        input,
        `${show(input)} has text after the "]" of its host.`,
      );
    }
    if (after !== "") port = after.slice(1);
  } else {
    const colon = authority.lastIndexOf(":");
    if (colon !== -1) {
      host = authority.slice(0, colon);
      port = authority.slice(colon + 1);
    }
  }
  if (host === "") {
    throw new OriginError(
      "no_host",
      input,
      `${show(input)} has no host; an origin names one, e.g. "${scheme}://shop.example.com".`,
    );
  }
  if (port === undefined || port === "") return;
  if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
    throw new OriginError(
      "invalid_port",
      input,
      `${show(input)} has the port "${port}"; a port is a number from 1 to 65535.`,
    );
  }
}

/** The refusal for an origin followed by a path, query or fragment; `origin` is what to use. */
function pathError(input: string, rest: string, origin: string): OriginError {
  const path = rest.match(/^[^?#]*/)![0];
  const query = rest.slice(path.length).match(/^\?[^#]*/)?.[0] ?? "";
  const fragment = rest.slice(path.length + query.length);
  if (path === "/" && !query && !fragment) {
    return new OriginError(
      "trailing_slash",
      input,
      `${show(input)} has a trailing slash; origins have no path — use "${origin}".`,
      { suggestion: origin },
    );
  }
  const parts: string[] = [];
  if (path) parts.push(`a path (${show(path)})`);
  if (query) parts.push(`a query (${show(query)})`);
  if (fragment) parts.push(`a fragment (${show(fragment)})`);
  const reason: OriginErrorReason = path ? "path" : query ? "query" : "fragment";
  return new OriginError(
    reason,
    input,
    `${show(input)} has ${parts.join(" and ")}; an origin is only scheme, host and port — ` +
      `use "${origin}".`,
    { suggestion: origin },
  );
}

/** The normalized origin of `url` even when it has a path (for suggestions), else undefined. */
function originOf(url: string): string | undefined {
  const normalized = tryNormalize(url);
  if (normalized !== undefined) return normalized;
  try {
    const parsed = new URL(url);
    return tryNormalize(`${parsed.protocol}//${parsed.host}`);
  } catch {
    return undefined;
  }
}

function tryNormalize(input: string): string | undefined {
  try {
    return normalizeAllowedOrigin(input);
  } catch {
    return undefined;
  }
}

/** `— use "x".` when there is a suggestion, else `fallback.` */
function use(suggestion: string | undefined, fallback = ""): string {
  return suggestion === undefined ? `${fallback}.` : ` — use "${suggestion}".`;
}

/** An input quoted for a message: JSON escaping (no raw control characters), bounded length. */
function show(s: string): string {
  return JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}…` : s);
}
