/**
 * The "test an origin" explanation: whether a browser at a given origin or page URL would be
 * allowed by a key, and if not, which allowed entry is nearest and how it differs.
 */
import {
  normalizeAllowedOrigin,
  originAllowed,
  OriginError,
  type OriginErrorReason,
} from "./origin.ts";
import { isIpLiteral, isLoopback, looseParts, type OriginParts, partsOf } from "./origin_parts.ts";

/** What `explainOriginMatch` found out about a candidate origin. */
export interface OriginMatchExplanation {
  /** Whether a browser on `candidate` would be allowed. */
  matches: boolean;
  /** The origin such a browser sends, when one can be derived from `candidate`. */
  normalized?: string;
  /** Why `candidate` is not a usable origin, when it is not. */
  error?: string;
  /** The allowed entry nearest to `candidate`, whenever `candidate` is not itself an entry. */
  closest?: string;
  /** How `closest` differs from the candidate, in words. */
  hint?: string;
}

/**
 * Explains whether a browser at `candidate` (an origin or a page URL) would be allowed, and if
 * the candidate is not exactly an entry, which allowed entry is nearest — for the settings page's
 * "test an origin" tool and for 403 messages. Never throws on bad input.
 *
 * @example
 * ```ts
 * explainOriginMatch("http://shop.example.com", ["https://shop.example.com"]);
 * // { matches: false, normalized: "http://shop.example.com",
 * //   closest: "https://shop.example.com", hint: "the scheme differs (http vs https)" }
 * ```
 */
export function explainOriginMatch(
  candidate: string,
  allowed: readonly string[],
): OriginMatchExplanation {
  if (originAllowed(candidate, allowed)) return { matches: true, normalized: candidate };
  const result: OriginMatchExplanation = { matches: false };
  let target: OriginParts | undefined;
  try {
    result.normalized = normalizeAllowedOrigin(candidate);
  } catch (err) {
    if (!(err instanceof OriginError)) throw err;
    // A page URL is a fair thing to test: the browser on that page sends the URL's origin.
    if (PAGE_URL_REASONS.has(err.reason) && err.suggestion !== undefined) {
      result.normalized = err.suggestion;
    } else {
      result.error = err.message;
      target = looseParts(err.suggestion ?? candidate);
    }
  }
  if (result.normalized !== undefined) {
    result.matches = allowed.includes(result.normalized);
    target = partsOf(result.normalized);
  }
  if (result.matches) {
    result.closest = result.normalized;
    result.hint = `a browser there sends "${result.normalized}", which is allowed`;
    return result;
  }
  const near = target && closestEntry(target, allowed);
  if (near) {
    result.closest = near.entry;
    result.hint = near.hint;
  }
  return result;
}

const PAGE_URL_REASONS: ReadonlySet<OriginErrorReason> = new Set<OriginErrorReason>([
  "trailing_slash",
  "path",
  "query",
  "fragment",
  "userinfo",
  "whitespace",
]);

/** The allowed entry most like `target`, with how it differs; undefined when none is alike. */
function closestEntry(
  target: OriginParts,
  allowed: readonly string[],
): { entry: string; hint: string } | undefined {
  let best: { entry: string; hint: string; score: number } | undefined;
  for (const entry of allowed) {
    const e = partsOf(entry);
    if (!e) continue;
    const host = hostRelation(target.host, e.host);
    if (!host) continue;
    const differences: string[] = [];
    let score = host.score;
    if (target.scheme !== undefined && target.scheme !== e.scheme) {
      score -= 10;
      differences.push(`the scheme differs (${target.scheme} vs ${e.scheme})`);
    }
    if (host.what) differences.push(host.what);
    if (target.port !== undefined && target.port !== e.port) {
      score -= 5;
      differences.push(`the port differs (${target.port || "default"} vs ${e.port || "default"})`);
    }
    // Strictly greater: on a tie the earlier entry wins, so the answer follows the partner's order.
    if (!best || score > best.score) {
      best = {
        entry,
        score,
        hint: differences.join("; ") || "the same origin, once written correctly",
      };
    }
  }
  return best && { entry: best.entry, hint: best.hint };
}

/** How alike two hosts are (higher is closer), or undefined when they are unrelated. */
function hostRelation(a: string, b: string): { score: number; what: string } | undefined {
  if (a === b) return { score: 100, what: "" };
  if (isLoopback(a) && isLoopback(b)) {
    return {
      score: 80,
      what: `the host differs (${a} vs ${b}); browsers treat localhost, 127.0.0.1 and [::1] as ` +
        `different origins`,
    };
  }
  const bare = (h: string) => h.replace(/^www\./, "");
  if (bare(a) === bare(b)) {
    return { score: 70, what: `the host differs only by "www." (${a} vs ${b})` };
  }
  if (a.startsWith("*.")) {
    const domain = a.slice(2);
    if (b === domain || b.endsWith(`.${domain}`)) {
      return { score: 60, what: `${b} is one origin the wildcard meant; list each one exactly` };
    }
  }
  if (Math.abs(a.length - b.length) <= 2 && a.length <= 253 && editDistance(a, b) <= 2) {
    return { score: 55, what: `the host is spelled differently (${a} vs ${b})` };
  }
  // A heuristic (no public-suffix list): good enough to point at a sibling subdomain.
  const parent = isIpLiteral(a) || isIpLiteral(b) ? undefined : parentDomain(a);
  if (parent !== undefined && parent === parentDomain(b)) {
    return { score: 50, what: `a different subdomain (${a} vs ${b})` };
  }
  return undefined;
}

function parentDomain(host: string): string | undefined {
  const labels = host.split(".").filter((l) => l !== "");
  return labels.length >= 2 ? labels.slice(-2).join(".") : undefined;
}

/** Levenshtein distance; callers bound the lengths. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}
