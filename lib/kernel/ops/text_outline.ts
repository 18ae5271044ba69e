/**
 * A string's outlines as closed polygons in millimetres: glyphs placed one after another along
 * the baseline (advance widths, pair kerning, extra letter spacing; no shaping, ligatures or line
 * breaks), curves flattened into chords, then aligned. The `text` op turns the contours into a
 * CrossSection with the non-zero fill rule, which resolves holes (the inside of an "O") and
 * overlaps whatever their winding.
 *
 * Deterministic by construction: only +, −, ×, ÷, `Math.sqrt` and `Math.ceil` on the font's
 * integer coordinates, all of which IEEE 754 rounds the same way on every host, and a fixed
 * subdivision per curve (not an adaptive one that depends on accumulated error).
 */
import type { FontGlyph, GlyphCommand, TextFont } from "./text_font.ts";

/** How text is placed relative to the origin, horizontally. */
export type TextHAlign = "left" | "center" | "right";
/** How text is placed relative to the origin, vertically (independent of which letters). */
export type TextVAlign = "baseline" | "bottom" | "center" | "top";

/** What `textOutline` lays out and how. */
export interface TextLayout {
  /** Height of capital letters, mm. */
  size: number;
  /** x = 0 at the start (left), the middle (center) or the end (right) of the advance. */
  halign: TextHAlign;
  /** y = 0 at the baseline, the lowest descent (bottom), half the cap height or the cap height. */
  valign: TextVAlign;
  /** Extra space between neighbouring letters, mm (negative tightens). */
  spacing: number;
  /** Largest distance of a flattened curve from the true curve, mm. */
  tolerance: number;
  /** Apply the font's pair kerning. */
  kerning: boolean;
}

/** A string's outline. */
export interface TextOutline {
  /** Closed contours of [x, y] mm (the last point is not repeated), outlines and holes alike. */
  contours: [number, number][][];
  /** Points in all contours. */
  vertices: number;
  /** Advance width of the whole string, mm. */
  width: number;
}

/** Most chords one curve is cut into, whatever the tolerance. */
export const MAX_CURVE_SEGMENTS = 64;

/**
 * The first character of `text` the font does not draw, with its index in code points, or
 * undefined when it draws them all.
 *
 * @example
 * ```ts
 * unsupportedCharacter("Zoë ✓", textFont()); // { index: 4, char: "✓" }
 * ```
 */
export function unsupportedCharacter(
  text: string,
  font: TextFont,
): { index: number; char: string } | undefined {
  let index = 0;
  for (const char of text) {
    if (!font.supports(char.codePointAt(0)!)) return { index, char };
    index++;
  }
  return undefined;
}

/** Number of characters (code points) in `text`. */
export function characterCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * The outlines of `text` (every character supported: see `unsupportedCharacter`), or undefined
 * as soon as they would hold more than `maxVertices` points.
 *
 * @example
 * ```ts
 * const outline = textOutline("Ada", { size: 8, halign: "center", valign: "center",
 *   spacing: 0, tolerance: 0.01, kerning: true }, textFont(), 20_000);
 * outline?.contours.length; // 4: "A" and its counter, "d" and its counter, "a" and its counter
 * ```
 */
export function textOutline(
  text: string,
  layout: TextLayout,
  font: TextFont,
  maxVertices: number,
): TextOutline | undefined {
  const scale = layout.size / font.capHeight;
  const tolerance = layout.tolerance / scale; // in font units
  const spacing = layout.spacing / scale;
  const placed: [FontGlyph, number][] = [];
  let pen = 0;
  let previous: FontGlyph | undefined;
  for (const char of text) {
    const glyph = font.glyph(char.codePointAt(0)!);
    if (previous) pen += spacing + (layout.kerning ? font.kerning(previous, glyph) : 0);
    placed.push([glyph, pen]);
    pen += glyph.advance;
    previous = glyph;
  }
  const width = pen;
  const dx = layout.halign === "left" ? 0 : layout.halign === "center" ? -width / 2 : -width;
  const dy = layout.valign === "baseline"
    ? 0
    : layout.valign === "bottom"
    ? -font.descender
    : layout.valign === "center"
    ? -font.capHeight / 2
    : -font.capHeight;
  const contours: [number, number][][] = [];
  let vertices = 0;
  for (const [glyph, x0] of placed) {
    for (const contour of flatten(glyph.commands, tolerance)) {
      vertices += contour.length;
      if (vertices > maxVertices) return undefined;
      contours.push(contour.map(([x, y]) => [(x0 + x + dx) * scale, (y + dy) * scale]));
    }
  }
  return { contours, vertices, width: width * scale };
}

/**
 * Chords per curve so that no point of the curve is farther than `tolerance` from them. For a
 * quadratic the distance is exactly |P0 − 2P1 + P2| / (4n²); for a cubic |B''| ≤ 6·max of its two
 * second differences, and a chord of parameter length 1/n is within |B''|max / (8n²).
 */
function segmentsFor(secondDifference: number, factor: number, tolerance: number): number {
  const n = Math.ceil(Math.sqrt(factor * secondDifference / tolerance));
  return Math.min(MAX_CURVE_SEGMENTS, Math.max(1, n));
}

/** A glyph's commands as closed contours, font units, repeated points dropped. */
function flatten(commands: readonly GlyphCommand[], tolerance: number): [number, number][][] {
  const contours: [number, number][][] = [];
  let points: [number, number][] = [];
  let x = 0, y = 0;
  const add = (px: number, py: number) => {
    const last = points[points.length - 1];
    if (!last || last[0] !== px || last[1] !== py) points.push([px, py]);
  };
  const close = () => {
    const [first, last] = [points[0], points[points.length - 1]];
    if (points.length > 1 && first[0] === last[0] && first[1] === last[1]) points.pop();
    if (points.length >= 3) contours.push(points);
    points = [];
  };
  for (const c of commands) {
    switch (c.type) {
      case "M":
        if (points.length > 0) close();
        add(c.x, c.y);
        break;
      case "L":
        add(c.x, c.y);
        break;
      case "Q": {
        const ddx = x - 2 * c.x1 + c.x, ddy = y - 2 * c.y1 + c.y;
        const n = segmentsFor(Math.sqrt(ddx * ddx + ddy * ddy), 1 / 4, tolerance);
        for (let k = 1; k <= n; k++) {
          const t = k / n, s = 1 - t;
          add(
            s * s * x + 2 * s * t * c.x1 + t * t * c.x,
            s * s * y + 2 * s * t * c.y1 + t * t * c.y,
          );
        }
        break;
      }
      case "C": {
        const ax = x - 2 * c.x1 + c.x2, ay = y - 2 * c.y1 + c.y2;
        const bx = c.x1 - 2 * c.x2 + c.x, by = c.y1 - 2 * c.y2 + c.y;
        const d = Math.max(Math.sqrt(ax * ax + ay * ay), Math.sqrt(bx * bx + by * by));
        const n = segmentsFor(d, 3 / 4, tolerance);
        for (let k = 1; k <= n; k++) {
          const t = k / n, s = 1 - t;
          const a = s * s * s, b = 3 * s * s * t, e = 3 * s * t * t, f = t * t * t;
          add(a * x + b * c.x1 + e * c.x2 + f * c.x, a * y + b * c.y1 + e * c.y2 + f * c.y);
        }
        break;
      }
      case "Z":
        close();
        break;
    }
    if (c.type !== "Z") [x, y] = [c.x, c.y];
  }
  if (points.length > 0) close();
  return contours;
}
