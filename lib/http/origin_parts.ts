/**
 * Rough parsing of origins and origin-like strings into scheme, host and port: for messages and
 * suggestions only, never for an allow decision (that is an exact string match).
 */
/** Longest origin accepted when saving a key (longer than any real one; bounds the work). */
export const MAX_ORIGIN_LENGTH = 2048;

/** Scheme, host and explicit port ("" when default) of an origin, or a best guess at them. */
export interface OriginParts {
  scheme?: string;
  host: string;
  port?: string;
}

/** The scheme, host and port of a valid origin, or undefined. */
export function partsOf(origin: string): OriginParts | undefined {
  try {
    const url = new URL(origin);
    return { scheme: url.protocol.slice(0, -1), host: url.hostname, port: url.port };
  } catch {
    return undefined;
  }
}

/** Scheme, host and port read off something that is not a valid origin (no scheme, wildcards). */
export function looseParts(s: string): OriginParts | undefined {
  if (typeof s !== "string" || s.length > MAX_ORIGIN_LENGTH) return undefined;
  const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)(?::(\d*))?/i
    .exec(s.trim());
  if (!m || !m[2]) return undefined;
  const scheme = m[1]?.toLowerCase();
  const port = m[3] === undefined || m[3] === "" ? "" : m[3];
  const defaultPort = scheme === "https" ? "443" : scheme === "http" ? "80" : undefined;
  return {
    scheme,
    host: m[2].toLowerCase(),
    port: scheme === undefined && port === "" ? undefined : port === defaultPort ? "" : port,
  };
}

/** Whether `host` is a loopback name or address (localhost, 127.x, [::1]). */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/** Whether `host` is an IPv4 or bracketed IPv6 literal. */
export function isIpLiteral(host: string): boolean {
  return host.startsWith("[") || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host);
}
