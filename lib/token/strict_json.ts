/**
 * Strict JSON for token payloads. `JSON.parse` silently keeps the last of two members with the
 * same name, so `{"aud":"x","aud":"kernel-api"}` would mean different things to different parsers;
 * here a duplicate name is an error.
 *
 * How, cheaply (this is on the verify hot path): `JSON.parse` checks the grammar, then a scanner
 * counts the name separators (`:` outside strings) in the text. In valid JSON there is exactly one
 * per object member, so if the parsed value holds fewer members than the text wrote, some object
 * repeated a name. One native parse plus one tight scan costs less than a parser written in JS.
 */

import { TokenError } from "./errors.ts";

/** Deepest accepted nesting of objects and arrays; token claims are one flat object. */
export const MAX_JSON_DEPTH = 32;

// ignoreBOM keeps a leading BOM in the text, where JSON.parse rejects it. The lenient decoder is
// several times faster in Deno; it marks invalid input with U+FFFD, and only then does the fatal
// decoder have to tell a genuine U+FFFD from a broken sequence.
const lenientDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
const fatalDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A parsed JSON value. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [name: string]: JsonValue };

function badJson(message: string): TokenError {
  return new TokenError("bad_json", `payload is not valid JSON: ${message}`);
}

/**
 * Decodes UTF-8 (invalid sequences and a byte-order mark are rejected) and parses strictly.
 * Throws `TokenError` `bad_json` or `duplicate_key`.
 *
 * @example
 * ```ts
 * parseStrictJsonBytes(new TextEncoder().encode('{"a":1}')); // { a: 1 }
 * ```
 */
export function parseStrictJsonBytes(bytes: Uint8Array): JsonValue {
  let text = lenientDecoder.decode(bytes);
  if (text.includes("\uFFFD")) {
    try {
      text = fatalDecoder.decode(bytes);
    } catch {
      throw badJson("invalid UTF-8");
    }
  }
  return parseStrictJson(text);
}

/**
 * Parses one JSON text exactly like `JSON.parse` (no reviver), but throws `TokenError`
 * `duplicate_key` when any object repeats a member name, and `bad_json` for invalid JSON or
 * nesting deeper than `MAX_JSON_DEPTH`.
 *
 * @example
 * ```ts
 * parseStrictJson('{"a":1,"a":2}'); // throws TokenError("duplicate_key")
 * ```
 */
export function parseStrictJson(text: string): JsonValue {
  let value: JsonValue;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw badJson(err instanceof Error ? err.message : "syntax error");
  }
  if (typeof value === "object" && value !== null) {
    if (countMembers(value, 1) !== countNameSeparators(text)) {
      throw new TokenError("duplicate_key", "payload repeats a member name");
    }
  }
  return value;
}

/** Members of every object in `value`, after `JSON.parse` merged duplicates. */
function countMembers(value: JsonValue[] | { [name: string]: JsonValue }, depth: number): number {
  if (depth > MAX_JSON_DEPTH) throw badJson("nested too deeply");
  let n = 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  if (!Array.isArray(value)) n += children.length;
  for (const child of children) {
    if (typeof child === "object" && child !== null) n += countMembers(child, depth + 1);
  }
  return n;
}

/** `:` characters outside strings; only valid JSON (already parsed) is ever passed in. */
function countNameSeparators(text: string): number {
  let n = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string; a backslash always escapes the next char, so `\"` never ends it.
      for (i++; i < length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x22) break;
        if (d === 0x5c) i++;
      }
    } else if (c === 0x3a) {
      n++;
    }
  }
  return n;
}
