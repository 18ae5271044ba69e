/**
 * The `pattern` of a String parameter (docs/dag.md, "Parameter schema"): the characters a value may
 * use, written as one JSON Schema / ECMAScript character class, `^[…]*$` — e.g.
 * `^[A-Za-z0-9 .'&\-]*$`. Only this form is accepted: it says "these characters" and nothing else,
 * means the same in every JSON Schema validator, and is checked here by walking the value once
 * against a list of ranges, never by a regular-expression engine (so a partner's pattern cannot
 * make the form or the kernel backtrack).
 *
 * Inside the brackets: literal characters, ranges `a-z`, and the escapes `\\`, `\]`, `\[`, `\-`,
 * `\^` and `\/`; a `-` first or last is literal. A leading `^` (a negated class) is refused.
 *
 * Runs in browsers too: no Deno APIs here.
 */

/** Inclusive code point ranges, ascending as written. */
export type CharacterRanges = readonly (readonly [number, number])[];

const ESCAPABLE = new Set(["\\", "]", "[", "-", "^", "/"]);

/**
 * The ranges a pattern allows, or a sentence saying why it is not a `^[…]*$` class.
 *
 * @example
 * ```ts
 * parseStringPattern("^[A-Z0-9 \\-]*$"); // { ranges: [[65, 90], [48, 57], [32, 32], [45, 45]] }
 * ```
 */
export function parseStringPattern(
  pattern: string,
): { ranges: CharacterRanges } | { error: string } {
  if (!pattern.startsWith("^[") || !pattern.endsWith("]*$") || pattern.length < 6) {
    return { error: "a String pattern is one character class: ^[…]*$" };
  }
  const chars = [...pattern.slice(2, -3)];
  if (chars[0] === "^") return { error: "a String pattern lists allowed characters (no [^…])" };
  // Each item: [code point, escaped?] (an escaped "-" never makes a range).
  const items: [number, boolean][] = [];
  for (let k = 0; k < chars.length; k++) {
    const c = chars[k];
    if (c === "\\") {
      const next = chars[++k];
      if (next === undefined || !ESCAPABLE.has(next)) {
        return { error: "in a String pattern, \\ escapes only \\ ] [ - ^ /" };
      }
      items.push([next.codePointAt(0)!, true]);
    } else if (c === "]" || c === "[") {
      return { error: `in a String pattern, ${c} is written \\${c}` };
    } else {
      items.push([c.codePointAt(0)!, false]);
    }
  }
  const ranges: [number, number][] = [];
  const DASH = 0x2d;
  for (let k = 0; k < items.length; k++) {
    const [cp] = items[k];
    const dash = k + 1 < items.length - 1 && items[k + 1][0] === DASH && !items[k + 1][1];
    if (!dash) {
      ranges.push([cp, cp]);
      continue;
    }
    const hi = items[k + 2][0];
    if (hi < cp) return { error: "a range in a String pattern runs from low to high" };
    ranges.push([cp, hi]);
    k += 2;
  }
  return { ranges };
}

/** Whether every character of `value` is within `ranges`; else the first one that is not. */
export function firstDisallowed(value: string, ranges: CharacterRanges): string | undefined {
  for (const char of value) {
    const cp = char.codePointAt(0)!;
    if (!ranges.some(([lo, hi]) => cp >= lo && cp <= hi)) return char;
  }
  return undefined;
}

/**
 * The allowed characters in a shopper's words: "A–Z, a–z, 0–9, space, ., ', & and -".
 *
 * @example
 * ```ts
 * describeCharacters([[65, 90], [32, 32]]); // "A–Z and space"
 * ```
 */
export function describeCharacters(ranges: CharacterRanges): string {
  const name = (cp: number) => cp === 0x20 ? "space" : String.fromCodePoint(cp);
  const parts = ranges.map(([lo, hi]) => lo === hi ? name(lo) : `${name(lo)}–${name(hi)}`);
  return parts.length <= 1
    ? parts.join("")
    : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}

/** Number of characters (code points) of `value`, as JSON Schema's `maxLength` counts them. */
export function codePointLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}
