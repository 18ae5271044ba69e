/** The configurator's theme colours and their contrast (lib/client/theme_contrast.ts). */
import assert from "node:assert/strict";
import {
  checkThemeContrast,
  CONFIGURATOR_THEMES,
  CONTRAST_PAIRS,
  contrastRatio,
  DEFAULT_THEME,
  fallbackColor,
  parseColor,
} from "@/lib/client/theme_contrast.ts";
import { CONFIGURATOR_CSS } from "@/lib/client/configurator_styles.ts";

Deno.test("contrast - WCAG ratios of known pairs", () => {
  assert.equal(contrastRatio("#000000", "#ffffff"), 21);
  assert.equal(contrastRatio("#777777", "#777777"), 1);
  // The WCAG example: #767676 on white is the lightest grey reaching 4.5:1.
  assert.equal(contrastRatio("#767676", "#ffffff").toFixed(2), "4.54");
  // A translucent colour is measured as drawn over its background (the old 15 % focus halo).
  assert.equal(contrastRatio("rgba(47,111,237,.15)", "#ffffff").toFixed(2), "1.22");
  assert.deepEqual(parseColor("#abc"), { r: 0xaa, g: 0xbb, b: 0xcc, a: 1 });
  assert.deepEqual(parseColor("rgb(1 2 3 / 50%)"), { r: 1, g: 2, b: 3, a: 0.5 });
  assert.equal(parseColor("oklch(0.5 0.1 200)"), null);
});

Deno.test("contrast - every documented theme passes every pair the configurator draws", () => {
  for (const [name, theme] of Object.entries(CONFIGURATOR_THEMES)) {
    assert.deepEqual(checkThemeContrast(theme), [], `theme ${name}`);
    for (const pair of CONTRAST_PAIRS) {
      assert.ok(contrastRatio(theme[pair.fg], theme[pair.bg]) >= pair.min, `${name} ${pair.fg}`);
    }
  }
});

Deno.test("contrast - a failing partner pair is found and its fallback passes", () => {
  // A dark background with the default (dark) ink and a navy accent: both fail.
  const partner = { ...CONFIGURATOR_THEMES.dark, ink: "#1d2330", accent: "#1a2a6c" };
  const issues = checkThemeContrast(partner);
  assert.deepEqual(issues.map((i) => `${i.fg}/${i.bg}`), ["ink/bg", "ink/surface", "accent/bg"]);
  const ink = fallbackColor("ink", [partner.bg, partner.surface], 4.5);
  assert.equal(
    ink,
    CONFIGURATOR_THEMES.dark.ink,
    "the dark theme's ink is tried after the default",
  );
  const accent = fallbackColor("accent", [partner.bg], 3);
  assert.ok(contrastRatio(accent, partner.bg) >= 3);
  // A mid grey background where neither theme's muted text passes: black or white does.
  const muted = fallbackColor("muted", ["#808080"], 4.5);
  assert.ok(contrastRatio(muted, "#808080") >= 4.5, muted);
});

Deno.test("contrast - the stylesheet reads every theme colour through its variable", () => {
  for (const [name, value] of Object.entries(DEFAULT_THEME)) {
    assert.ok(CONFIGURATOR_CSS.includes(`--_cad-${name}: var(--cad-${name}, ${value});`), name);
    assert.ok(CONFIGURATOR_CSS.includes(`var(--_cad-${name})`), `${name} is used`);
  }
});
