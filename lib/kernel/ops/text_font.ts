/**
 * The one font the `text` op draws with: Roboto Bold (Latin subset), bundled in
 * `lib/kernel/fonts/` (from the npm package `@fontsource/roboto@5.3.0`, SIL Open Font License
 * 1.1, `lib/kernel/fonts/OFL.txt`) and parsed by opentype.js. It is read from this repository, not
 * from the network or a package range that could move, so one string has the same outlines on
 * every host and in every release until the font file itself changes (a test pins its SHA-256).
 *
 * Loaded on first use, once per thread (the hub's validation and each render worker), and kept:
 * the file is 21 KB and parsing it takes milliseconds.
 */
import opentype from "opentype.js";

/** The bundled font file, relative to this module. */
export const TEXT_FONT_FILE = new URL("../fonts/roboto-latin-700-normal.woff", import.meta.url);
/** The bundled font's family and style, as docs name it. */
export const TEXT_FONT_NAME = "Roboto Bold";

/** One outline command in font units (y up), as opentype.js gives it. */
export type GlyphCommand =
  | { type: "M" | "L"; x: number; y: number }
  | { type: "Q"; x1: number; y1: number; x: number; y: number }
  | { type: "C"; x1: number; y1: number; x2: number; y2: number; x: number; y: number }
  | { type: "Z" };

/** One glyph as the text op needs it. */
export interface FontGlyph {
  /** The glyph's index in the font (kerning looks pairs up by it). */
  index: number;
  /** Advance width, font units. */
  advance: number;
  /** Its outline, font units, y up. */
  commands: readonly GlyphCommand[];
}

/** The font, as far as the text op uses it. */
export interface TextFont {
  /** Font units per em. */
  unitsPerEm: number;
  /** Height of capital letters (OS/2 `sCapHeight`), font units. */
  capHeight: number;
  /** Lowest descent below the baseline (hhea descender, negative), font units. */
  descender: number;
  /** Whether the text op draws this code point. */
  supports(codePoint: number): boolean;
  /** The glyph of a supported code point. */
  glyph(codePoint: number): FontGlyph;
  /** Pair adjustment between two glyphs (GPOS kerning), font units. */
  kerning(left: FontGlyph, right: FontGlyph): number;
}

/** The part of opentype.js's API used here (its package ships no types). */
interface OpentypeGlyph {
  index: number;
  advanceWidth?: number;
  path: { commands: GlyphCommand[] };
}
interface OpentypeFont {
  unitsPerEm: number;
  descender: number;
  tables: { os2: { sCapHeight: number }; cmap: { glyphIndexMap: Record<string, number> } };
  glyphs: { get(index: number): OpentypeGlyph };
  getKerningValue(left: OpentypeGlyph, right: OpentypeGlyph): number;
}

/**
 * Code points the font maps that are not drawn: controls, the soft hyphen, combining marks (they
 * need shaping to sit on their base letter), zero-width characters and the replacement character.
 */
function excluded(cp: number): boolean {
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp === 0xad ||
    (cp >= 0x300 && cp <= 0x36f) || cp === 0x200b || cp === 0xfeff || cp === 0xfffd;
}

let loaded: TextFont | undefined;

/**
 * The bundled font, parsed on first call (synchronously: ops evaluate synchronously).
 *
 * @example
 * ```ts
 * const font = textFont();
 * font.supports("A".codePointAt(0)!); // true
 * ```
 */
export function textFont(): TextFont {
  loaded ??= parseFont(Deno.readFileSync(TEXT_FONT_FILE));
  return loaded;
}

/** Wraps a parsed font file (`textFont` for the bundled one). */
export function parseFont(bytes: Uint8Array): TextFont {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const font = (opentype as unknown as { parse(data: ArrayBuffer): OpentypeFont }).parse(
    buffer as ArrayBuffer,
  );
  const map = font.tables.cmap.glyphIndexMap;
  const glyphs = new Map<number, FontGlyph & { source: OpentypeGlyph }>();
  const glyphOf = (cp: number) => {
    let glyph = glyphs.get(cp);
    if (glyph === undefined) {
      const source = font.glyphs.get(map[cp]);
      glyph = {
        index: source.index,
        advance: source.advanceWidth ?? 0,
        commands: Object.freeze(source.path.commands.map((c) => ({ ...c }))),
        source,
      };
      glyphs.set(cp, glyph);
    }
    return glyph;
  };
  return {
    unitsPerEm: font.unitsPerEm,
    capHeight: font.tables.os2.sCapHeight,
    descender: font.descender,
    supports: (cp) => Object.hasOwn(map, cp) && map[cp] !== 0 && !excluded(cp),
    glyph: glyphOf,
    kerning: (left, right) =>
      font.getKerningValue(
        (left as FontGlyph & { source: OpentypeGlyph }).source,
        (right as FontGlyph & { source: OpentypeGlyph }).source,
      ),
  };
}

/** Every code point the text op draws with the bundled font, ascending. */
export function supportedCodePoints(): number[] {
  const font = textFont();
  const out: number[] = [];
  for (let cp = 0; cp <= 0xffff; cp++) if (font.supports(cp)) out.push(cp);
  return out;
}
