/**
 * The configurator's colours and their contrast (WCAG 2.2 AA): the theme variables a partner may
 * set (`--cad-accent`, …, documented in docs/embedding.md), the two documented themes, the pairs
 * that must contrast (text 4.5:1; focus rings and control boundaries 3:1), and the runtime guard:
 * a partner theme whose pair fails is not shown silently — the failing colour falls back to one
 * that passes against the partner's own background, with a console warning naming the pair.
 *
 * The stylesheet reads every colour as `--_cad-<name>: var(--cad-<name>, <default>)`, so a
 * partner's `--cad-*` set anywhere above (the element, a wrapper, `:root`) applies, and the guard
 * overrides the resolved `--_cad-*` on the configurator's root only.
 *
 * Runs in browsers: no Deno APIs here.
 */

/** The theme variables, without their `--cad-` prefix. */
export type ThemeColor =
  | "bg"
  | "surface"
  | "stage"
  | "ink"
  | "muted"
  | "line"
  | "border"
  | "accent"
  | "focus"
  | "danger"
  | "danger-bg"
  | "warn"
  | "warn-bg";

/** A whole theme: one colour per variable. */
export type Theme = Record<ThemeColor, string>;

/** The default (light) theme: the values the stylesheet falls back to. */
export const DEFAULT_THEME: Theme = {
  bg: "#ffffff",
  surface: "#ffffff",
  stage: "#eef1f5",
  ink: "#1d2330",
  muted: "#566070",
  line: "#e3e6ec",
  border: "#7b8494",
  accent: "#2f6fed",
  focus: "#1f5bd6",
  danger: "#b42318",
  "danger-bg": "#fff5f5",
  warn: "#93370d",
  "warn-bg": "#fffaeb",
};

/** A dark partner theme (docs/embedding.md shows it as CSS). */
export const DARK_THEME: Theme = {
  bg: "#151922",
  surface: "#1e2430",
  stage: "#232a37",
  ink: "#e9edf3",
  muted: "#aab3c2",
  line: "#2f3747",
  border: "#8690a2",
  accent: "#7ea6ff",
  focus: "#a9c4ff",
  danger: "#ffa39a",
  "danger-bg": "#3a1d1d",
  warn: "#fcc97a",
  "warn-bg": "#3a2c14",
};

/** The documented themes (a test checks every one of them). */
export const CONFIGURATOR_THEMES: Record<string, Theme> = {
  default: DEFAULT_THEME,
  dark: DARK_THEME,
};

/** One pair that must contrast: `fg` drawn on or next to `bg`. */
export interface ContrastPair {
  fg: ThemeColor;
  bg: ThemeColor;
  /** 4.5 for text, 3 for focus rings, control boundaries and the accent's states. */
  min: number;
  /** What is drawn with it (the warning says it). */
  use: string;
}

/** Every pair the configurator draws. */
export const CONTRAST_PAIRS: readonly ContrastPair[] = [
  { fg: "ink", bg: "bg", min: 4.5, use: "text" },
  { fg: "ink", bg: "surface", min: 4.5, use: "text in fields" },
  { fg: "muted", bg: "bg", min: 4.5, use: "secondary text" },
  { fg: "muted", bg: "surface", min: 4.5, use: "units in fields" },
  { fg: "muted", bg: "stage", min: 4.5, use: "text over the 3D view" },
  { fg: "border", bg: "bg", min: 3, use: "control boundaries" },
  { fg: "border", bg: "surface", min: 3, use: "control boundaries" },
  { fg: "accent", bg: "bg", min: 3, use: "selected swatches, switches, sliders" },
  { fg: "focus", bg: "bg", min: 3, use: "focus indicators" },
  { fg: "focus", bg: "surface", min: 3, use: "focus indicators" },
  { fg: "focus", bg: "stage", min: 3, use: "the 3D view's focus indicator" },
  { fg: "danger", bg: "bg", min: 4.5, use: "error text" },
  { fg: "danger", bg: "danger-bg", min: 4.5, use: "error text" },
  { fg: "warn", bg: "warn-bg", min: 4.5, use: "limited-value notes" },
];

/** An sRGB colour, channels 0–255, alpha 0–1. */
export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

/**
 * Parses `#rgb`, `#rrggbb`, `#rrggbbaa`, `rgb()`/`rgba()` (what browsers report); null for
 * anything else.
 */
export function parseColor(text: string): Rgba | null {
  const s = text.trim().toLowerCase();
  let m = s.match(/^#([0-9a-f]{3})$/);
  if (m) {
    const [r, g, b] = [...m[1]].map((c) => parseInt(c + c, 16));
    return { r, g, b, a: 1 };
  }
  m = s.match(/^#([0-9a-f]{6})([0-9a-f]{2})?$/);
  if (m) {
    const n = parseInt(m[1], 16);
    const a = m[2] ? parseInt(m[2], 16) / 255 : 1;
    return { r: n >> 16, g: (n >> 8) & 255, b: n & 255, a };
  }
  m = s.match(/^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/);
  if (m) {
    const alpha = m[4] === undefined
      ? 1
      : m[4].endsWith("%")
      ? parseFloat(m[4]) / 100
      : parseFloat(m[4]);
    return { r: +m[1], g: +m[2], b: +m[3], a: alpha };
  }
  return null;
}

/** WCAG 2.x relative luminance of an opaque sRGB colour. */
export function relativeLuminance(c: Rgba): number {
  const lin = (v: number) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

/** `fg` composited over the opaque `bg` (a translucent colour as drawn). */
export function over(fg: Rgba, bg: Rgba): Rgba {
  const a = fg.a;
  return {
    r: fg.r * a + bg.r * (1 - a),
    g: fg.g * a + bg.g * (1 - a),
    b: fg.b * a + bg.b * (1 - a),
    a: 1,
  };
}

/**
 * The WCAG contrast ratio of two colours (1–21); `fg` may be translucent (drawn over `bg`).
 *
 * @example
 * ```ts
 * contrastRatio("#2f6fed", "#ffffff"); // 4.7…
 * ```
 */
export function contrastRatio(fg: string | Rgba, bg: string | Rgba): number {
  const b = typeof bg === "string" ? parseColor(bg) : bg;
  const f = typeof fg === "string" ? parseColor(fg) : fg;
  if (!b || !f) throw new Error(`not a colour: ${!f ? String(fg) : String(bg)}`);
  const l1 = relativeLuminance(over(f, b));
  const l2 = relativeLuminance(b);
  return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
}

/** A pair that does not contrast enough. */
export interface ContrastIssue extends ContrastPair {
  ratio: number;
  fgColor: string;
  bgColor: string;
}

/**
 * The pairs of `theme` below their minimum (colours it cannot parse are skipped: the browser
 * normalises what it can, see `enforceThemeContrast`).
 *
 * @example
 * ```ts
 * checkThemeContrast(DARK_THEME); // []
 * ```
 */
export function checkThemeContrast(theme: Partial<Theme>): ContrastIssue[] {
  const issues: ContrastIssue[] = [];
  for (const pair of CONTRAST_PAIRS) {
    const fg = theme[pair.fg];
    const bg = theme[pair.bg];
    if (!fg || !bg) continue;
    const f = parseColor(fg);
    const b = parseColor(bg);
    if (!f || !b || b.a < 1) continue;
    const ratio = contrastRatio(f, b);
    if (ratio < pair.min) issues.push({ ...pair, ratio, fgColor: fg, bgColor: bg });
  }
  return issues;
}

/**
 * The colour to use instead of a failing `fg` on `bg`: the default theme's, the dark theme's,
 * then black or white (one of which always reaches 4.58:1) — the first that reaches `min` on
 * every background it is drawn on.
 */
export function fallbackColor(name: ThemeColor, backgrounds: string[], min: number): string {
  const candidates = [DEFAULT_THEME[name], DARK_THEME[name], "#000000", "#ffffff"];
  const ok = (c: string) => backgrounds.every((bg) => contrastRatio(c, bg) >= min);
  return candidates.find(ok) ??
    (backgrounds.every((bg) => contrastRatio("#000000", bg) >= contrastRatio("#ffffff", bg))
      ? "#000000"
      : "#ffffff");
}

/**
 * Reads the theme the configurator `root` resolves (its `--_cad-*` properties), and for every
 * pair below its minimum sets the foreground to `fallbackColor` on `root` and warns once in the
 * console; returns what it fixed. Calling it again first clears its own earlier fixes.
 */
export function enforceThemeContrast(root: HTMLElement): ContrastIssue[] {
  for (const name of Object.keys(DEFAULT_THEME)) root.style.removeProperty(`--_cad-${name}`);
  const style = getComputedStyle(root);
  const theme: Partial<Theme> = {};
  for (const name of Object.keys(DEFAULT_THEME) as ThemeColor[]) {
    const raw = style.getPropertyValue(`--_cad-${name}`).trim();
    const normal = raw ? normaliseColor(raw) : null;
    if (normal) theme[name] = normal;
  }
  const issues = checkThemeContrast(theme);
  const fixed = new Set<ThemeColor>();
  for (const issue of issues) {
    if (fixed.has(issue.fg)) continue;
    fixed.add(issue.fg);
    const pairs = CONTRAST_PAIRS.filter((p) => p.fg === issue.fg);
    const backgrounds = pairs.map((p) => theme[p.bg]).filter((c): c is string => !!c);
    const min = Math.max(...pairs.map((p) => p.min));
    const color = fallbackColor(issue.fg, backgrounds, min);
    root.style.setProperty(`--_cad-${issue.fg}`, color);
    console.warn(
      `cad-configurator: --cad-${issue.fg} (${issue.fgColor}) on --cad-${issue.bg} ` +
        `(${issue.bgColor}) contrasts ${issue.ratio.toFixed(2)}:1, below the ${issue.min}:1 ` +
        `WCAG 2.2 AA asks for ${issue.use}; using ${color} instead (docs/embedding.md, Accessibility).`,
    );
  }
  root.dataset.cadContrast = issues.length ? "fallback" : "ok";
  return issues;
}

/** Any CSS colour as `rgb()`/hex via a canvas (null when the browser cannot draw it). */
function normaliseColor(css: string): string | null {
  if (parseColor(css)) return css;
  if (typeof document === "undefined") return null;
  const ctx = document.createElement("canvas").getContext("2d");
  if (!ctx) return null;
  ctx.fillStyle = "#010203";
  ctx.fillStyle = css;
  const out = String(ctx.fillStyle);
  return out === "#010203" && css.trim() !== "#010203" ? null : parseColor(out) ? out : null;
}
