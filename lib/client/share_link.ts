/**
 * Share links: a configuration carried in one URL parameter (`cad`), so a shopper can send,
 * bookmark or reopen exactly what they configured (docs/embedding.md, "Share links").
 *
 * The parameter's value is `1~<project>~<version>` followed by `~<name>~<value>` for each value
 * that differs from the schema's default, in form order:
 *
 *   `?cad=1~wall-bracket~3~width~120~holeCount~4~countersink~0~color~aa3355`
 *
 * - `1` is the format (a later format takes another number; this reader refuses it visibly).
 * - Numbers in JavaScript's shortest round-trip form (`String(x)`, so the value comes back
 *   bit-exact), Bool `1`/`0`, Color the six hex digits without `#`, Enum and String the text
 *   itself with `%` and `~` escaped as `%25` and `%7E`.
 * - `~` separates: it is unreserved in RFC 3986, so a link shows it as is, and neither a parameter
 *   name (`[A-Za-z0-9_.-]`) nor a number contains it. What a URL would otherwise escape (an
 *   Enum's spaces, non-ASCII) is escaped by the URL layer as usual, and any reader that decodes
 *   the parameter once (`URLSearchParams`) gets the value back, whoever re-serialised the URL.
 *
 * On load the value is checked against the project's schema: a value for an unknown name, of the
 * wrong kind, out of range or off its step is dropped with a note, never an error; a link made for
 * another version of the project keeps what still validates and says so; a link for another
 * project is not this configurator's and is ignored. The longest example link (storage-box, every
 * value changed) is 235 characters on a 50-character page URL (tests/client/share_link_test.ts).
 *
 * Runs in browsers: no Deno APIs here.
 */
import type { ParameterValue } from "../dag/dag_types.ts";
import {
  type ParameterDescriptor,
  type ParameterSchema,
  validateParameterValue,
} from "../dag/parameter_schema.ts";

/** The URL parameter (query, else fragment) that carries a configuration. */
export const SHARE_PARAM = "cad";
/** The format this module writes and reads. */
export const SHARE_FORMAT = "1";

const SEP = "~";
const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
const HEX6 = /^[0-9a-f]{6}$/;

/** What a share link is encoded against: the loaded project's slug, version and schema. */
export interface ShareProject {
  slug: string;
  version: number;
  schema: ParameterSchema | null;
}

/** Why part (or all) of a link was not restored. */
export type ShareNoteReason =
  | "malformed"
  | "unsupported_format"
  | "other_version"
  | "unknown_parameter"
  | "invalid_value"
  | "duplicate_parameter";

/** One thing the shopper should know about a restored link. */
export interface ShareNote {
  reason: ShareNoteReason;
  /** The parameter concerned, when there is one. */
  name?: string;
  /** The note in the shopper's words. */
  message: string;
}

/** What a share link restores. */
export interface ShareRestore {
  /** The values restored (only those the link carried and the schema accepts). */
  values: Record<string, ParameterValue>;
  /** The project version the link was made for (null when unreadable). */
  version: number | null;
  /** Values that were dropped, or the link as a whole; empty when all of it applied. */
  notes: ShareNote[];
}

/**
 * The parameter value for `values`: only those that validate and differ from their default.
 *
 * @example
 * ```ts
 * encodeShareValue(project, { width: 120, depth: 150 }); // "1~wall-bracket~3~width~120"
 * ```
 */
export function encodeShareValue(project: ShareProject, values: Record<string, unknown>): string {
  const parts = [SHARE_FORMAT, project.slug, String(project.version)];
  for (const param of project.schema?.parameters ?? []) {
    if (!Object.hasOwn(values, param.name)) continue;
    let value: ParameterValue;
    try {
      value = validateParameterValue(param, values[param.name]);
    } catch {
      continue; // a value the form refuses is not part of the configuration
    }
    if (value === param.default) continue;
    parts.push(param.name, encodeValue(param, value));
  }
  return parts.join(SEP);
}

/**
 * Reads a parameter value written by `encodeShareValue` against the current project. Null when
 * the link is another project's (not this configurator's to restore).
 *
 * @example
 * ```ts
 * decodeShareValue("1~wall-bracket~2~width~120~hole~6", project);
 * // { values: { width: 120 }, version: 2, notes: [{ reason: "other_version", … }, …] }
 * ```
 */
export function decodeShareValue(raw: string, project: ShareProject): ShareRestore | null {
  const tokens = raw.split(SEP);
  if (tokens.length >= 2 && tokens[1] !== project.slug && tokens[0] === SHARE_FORMAT) return null;
  if (tokens[0] !== SHARE_FORMAT) {
    const unsupported = /^\d+$/.test(tokens[0]);
    return {
      values: {},
      version: null,
      notes: [{
        reason: unsupported ? "unsupported_format" : "malformed",
        message: unsupported
          ? "This link was made by a newer configurator; it opened with the default settings."
          : "This link is damaged; it opened with the default settings.",
      }],
    };
  }
  const version = /^[1-9]\d{0,8}$/.test(tokens[2] ?? "") ? Number(tokens[2]) : null;
  const pairs = tokens.slice(3);
  if (version === null || pairs.length % 2 !== 0) {
    return {
      values: {},
      version,
      notes: [{
        reason: "malformed",
        message: "This link is damaged; it opened with the default settings.",
      }],
    };
  }
  const values: Record<string, ParameterValue> = {};
  const notes: ShareNote[] = [];
  const byName = new Map((project.schema?.parameters ?? []).map((p) => [p.name, p]));
  const seen = new Set<string>();
  for (let i = 0; i < pairs.length; i += 2) {
    const name = pairs[i];
    const param = byName.get(name);
    if (seen.has(name)) {
      notes.push({ reason: "duplicate_parameter", name, message: `${name} was given twice.` });
      continue;
    }
    seen.add(name);
    if (!param) {
      notes.push({
        reason: "unknown_parameter",
        name,
        message: `${shown(name)} is no longer offered.`,
      });
      continue;
    }
    const value = decodeValue(param, pairs[i + 1]);
    if (value === undefined) {
      notes.push({
        reason: "invalid_value",
        name,
        message: `${param.label}: the link's value is not allowed now; the default is used.`,
      });
      continue;
    }
    values[name] = value;
  }
  if (version !== project.version) {
    const kept = Object.keys(values).length;
    const total = pairs.length / 2;
    notes.unshift({
      reason: "other_version",
      message: `This link was made for ${
        version < project.version ? "an earlier" : "another"
      } version of this design; ${kept} of its ${total} setting${
        total === 1 ? "" : "s"
      } still appl${kept === 1 ? "ies" : "y"}.`,
    });
  }
  return { values, version, notes };
}

/**
 * `base` with the `cad` parameter set to `value` (any `cad` in its query or fragment replaced);
 * `~` is written as is.
 *
 * @example
 * ```ts
 * shareUrl("https://shop.example.com/bracket?ref=mail", "1~wall-bracket~3~width~120");
 * // "https://shop.example.com/bracket?ref=mail&cad=1~wall-bracket~3~width~120"
 * ```
 */
export function shareUrl(base: string | URL, value: string): string {
  const url = new URL(String(base));
  url.searchParams.delete(SHARE_PARAM);
  if (url.hash.length > 1) {
    const fragment = new URLSearchParams(url.hash.slice(1));
    if (fragment.has(SHARE_PARAM)) {
      fragment.delete(SHARE_PARAM);
      url.hash = fragment.toString();
    }
  }
  const encoded = new URLSearchParams({ [SHARE_PARAM]: value }).toString().replaceAll("%7E", SEP);
  url.search = url.search.length > 1 ? `${url.search.slice(1)}&${encoded}` : encoded;
  return url.href;
}

/**
 * The `cad` parameter of `url`: from its query, else from its fragment (`#cad=…`, for pages whose
 * server must not see it); null when there is none.
 */
export function readShareValue(url: string | URL): string | null {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return null;
  }
  const fromQuery = parsed.searchParams.get(SHARE_PARAM);
  if (fromQuery !== null) return fromQuery;
  if (parsed.hash.length <= 1) return null;
  return new URLSearchParams(parsed.hash.slice(1)).get(SHARE_PARAM);
}

/**
 * A share link of `values` on `base` (default: the current page, without its own `cad`).
 *
 * @example
 * ```ts
 * createShareUrl(project, values); // "https://shop.example.com/bracket?cad=1~wall-bracket~3~…"
 * ```
 */
export function createShareUrl(
  project: ShareProject,
  values: Record<string, unknown>,
  base: string | URL = globalThis.location?.href ?? "",
): string {
  return shareUrl(base, encodeShareValue(project, values));
}

/** What the link in `url` restores for `project`; null when it carries none for this project. */
export function restoreFromUrl(url: string | URL, project: ShareProject): ShareRestore | null {
  const raw = readShareValue(url);
  return raw === null ? null : decodeShareValue(raw, project);
}

function encodeValue(param: ParameterDescriptor, value: ParameterValue): string {
  switch (param.kind) {
    case "Bool":
      return value ? "1" : "0";
    case "Color":
      return (value as string).slice(1);
    case "Int":
    case "Float":
      return String(value);
    default:
      return String(value).replaceAll("%", "%25").replaceAll(SEP, "%7E");
  }
}

/** The value of `token` for `param` if the schema accepts it, else undefined. */
function decodeValue(param: ParameterDescriptor, token: string): ParameterValue | undefined {
  let value: unknown;
  switch (param.kind) {
    case "Bool":
      value = token === "1" ? true : token === "0" ? false : undefined;
      break;
    case "Color":
      value = HEX6.test(token) ? `#${token}` : undefined;
      break;
    case "Int":
    case "Float":
      value = NUMBER.test(token) ? Number(token) : undefined;
      break;
    default:
      value = token.replace(/%(25|7E)/g, (m) => (m === "%25" ? "%" : SEP));
  }
  if (value === undefined) return undefined;
  try {
    return validateParameterValue(param, value);
  } catch {
    return undefined;
  }
}

/** A name from a link, bounded for display (the link is the shopper's input). */
function shown(name: string): string {
  return name.length > 40 ? `${name.slice(0, 40)}…` : name;
}
