/**
 * The configurator's stylesheet, one source for the hosted page (inlined with the CSP nonce) and
 * the `<cad-configurator>` element (inside its shadow root, so a partner's CSS and ours never
 * meet). Every class is prefixed `cad-`. Custom properties (`--cad-accent`, …) are the theming
 * surface a partner may set on the element.
 *
 * Layout follows the configurator's own width (a container query, not the page's: an element in
 * a narrow column of a wide page is narrow): viewer and form side by side from 560 px (a 280 px
 * form below 760 px), stacked below that — the viewer on top at a bounded height and the form
 * scrolling under it, so the model stays in view while a shopper scrolls to a field. With a fixed
 * height (the hosted page, a sized element) the form pane scrolls; with an automatic height the
 * page scrolls and the viewer sticks to the top of the viewport (`overflow: clip`, unlike
 * `hidden`, keeps `position: sticky` working inside the rounded frame).
 *
 * Colours come from the theme variables (`theme_contrast.ts`): each rule reads `--_cad-<name>`,
 * which is the partner's `--cad-<name>` or the default, and which the contrast guard may
 * override. Accessibility (WCAG 2.2 AA): focus indicators are 2–3 px solid rings in `--cad-focus`
 * (3:1 against the background, checked), control boundaries in `--cad-border` (3:1), targets at
 * least 24 px (32 px swatches and view buttons) and 44 px on touch screens (`pointer: coarse`),
 * and no animation under `prefers-reduced-motion: reduce`.
 *
 * Runs in browsers: no Deno APIs here.
 */

import { DEFAULT_THEME } from "./theme_contrast.ts";

/** `--_cad-<name>: var(--cad-<name>, <default>)` for every theme colour. */
const THEME_VARIABLES = Object.entries(DEFAULT_THEME)
  .map(([name, value]) => `--_cad-${name}: var(--cad-${name}, ${value});`)
  .join(" ");

/** The configurator's CSS. */
export const CONFIGURATOR_CSS = `
:host { display: block; }
.cad-configurator {
  ${THEME_VARIABLES}
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--_cad-ink); background: var(--_cad-bg);
  border: 1px solid var(--_cad-line); border-radius: 12px; overflow: hidden; overflow: clip;
  display: flex; flex-direction: column; height: 100%; min-height: 480px; box-sizing: border-box;
  container: cad / inline-size;
}
.cad-configurator *, .cad-configurator *::before, .cad-configurator *::after { box-sizing: border-box; }
.cad-configurator :focus-visible { outline: 2px solid var(--_cad-focus); outline-offset: 2px; }
.cad-bar { display: flex; align-items: center; justify-content: space-between; gap: 12px;
  padding: 12px 18px; border-bottom: 1px solid var(--_cad-line); }
.cad-title { margin: 0; font-size: 16px; font-weight: 600; }
.cad-body { flex: 1; display: grid; grid-template-columns: minmax(0, 1fr) 320px; min-height: 0; }
.cad-stage { position: relative; min-height: 320px; background: var(--_cad-stage); }
.cad-viewer { position: absolute; inset: 0; }
.cad-viewer__canvas { position: absolute; inset: 0; }
.cad-viewer__canvas canvas { display: block; outline: none; }
.cad-viewer__canvas:focus-visible { outline: none; }
.cad-viewer__canvas:focus-visible::after { content: ""; position: absolute; inset: 0; pointer-events: none;
  border: 3px solid var(--_cad-focus); box-shadow: inset 0 0 0 2px var(--_cad-bg); }
.cad-viewer[data-context="lost"] .cad-viewer__canvas { visibility: hidden; }
.cad-viewer__hint { position: absolute; left: 12px; right: 12px; top: 12px; margin: 0; padding: 6px 10px;
  border-radius: 8px; background: var(--_cad-bg); color: var(--_cad-ink); font-size: 12px;
  border: 1px solid var(--_cad-border); width: fit-content; max-width: calc(100% - 24px); pointer-events: none; }
.cad-viewer__canvas:not(:focus-visible) ~ .cad-viewer__hint { position: absolute; width: 1px; height: 1px;
  margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.cad-viewer__overlay { position: absolute; inset: 0; display: flex; align-items: center;
  justify-content: center; gap: 10px; color: var(--_cad-muted); font-weight: 500; pointer-events: none; }
.cad-viewer__overlay--corner { inset: auto 12px 12px auto; padding: 6px 12px; border-radius: 999px;
  background: var(--_cad-bg); box-shadow: 0 1px 3px rgba(0,0,0,.12); font-size: 12px; }
.cad-viewer__error { position: absolute; left: 16px; right: 16px; top: 16px; padding: 12px 14px;
  border-radius: 10px; background: var(--_cad-danger-bg); border: 1px solid var(--_cad-danger);
  color: var(--_cad-danger); display: flex; flex-direction: column; gap: 4px;
  box-shadow: 0 2px 8px rgba(0,0,0,.06); }
.cad-viewer__tools { position: absolute; left: 12px; bottom: 12px; display: flex; gap: 6px; }
.cad-viewer__tools button { min-width: 32px; min-height: 32px; border: 1px solid var(--_cad-border);
  background: var(--_cad-surface); color: var(--_cad-ink); border-radius: 8px; padding: 4px 10px;
  font: inherit; font-size: 13px; line-height: 1; cursor: pointer; }
.cad-viewer__tools button[data-icon] { padding: 4px; font-size: 16px; }
.cad-viewer__tools.cad-ar { left: auto; bottom: auto; right: 12px; top: 12px; }
.cad-ar__button { font-weight: 600; }
.cad-spinner { width: 16px; height: 16px; border-radius: 50%; border: 2px solid var(--_cad-line);
  border-top-color: var(--_cad-accent); animation: cad-spin .8s linear infinite; }
@keyframes cad-spin { to { transform: rotate(360deg); } }
.cad-panel { border-left: 1px solid var(--_cad-line); overflow-y: auto; max-height: 100%; }
.cad-panel__placeholder { padding: 18px; color: var(--_cad-muted); }
.cad-form { padding: 4px 0 12px; margin: 0; }
.cad-form__group { border: 0; margin: 0; padding: 10px 18px 6px; border-bottom: 1px solid var(--_cad-line); }
.cad-form__group:last-child { border-bottom: 0; }
.cad-form__group legend { padding: 8px 0 2px; font-size: 11px; font-weight: 700; letter-spacing: .06em;
  text-transform: uppercase; color: var(--_cad-muted); }
.cad-field { padding: 8px 0; }
.cad-field__head { display: flex; justify-content: space-between; align-items: baseline; gap: 8px; }
.cad-field__head label { font-weight: 600; }
.cad-field__value { color: var(--_cad-muted); font-variant-numeric: tabular-nums; font-size: 13px; }
.cad-field__value--limited { color: var(--_cad-warn); font-weight: 600; }
.cad-field__limit { margin: 4px 0 0; padding: 4px 8px; border-radius: 6px; background: var(--_cad-warn-bg);
  color: var(--_cad-warn); font-size: 12px; }
.cad-share-note { margin: 12px 18px 0; padding: 8px 10px; border-radius: 8px; background: var(--_cad-warn-bg);
  color: var(--_cad-warn); font-size: 12px; display: flex; gap: 8px; align-items: flex-start; }
.cad-share-note ul { margin: 2px 0 0; padding-left: 16px; }
.cad-share-note__text { flex: 1; }
.cad-share-note button { flex: none; min-width: 24px; min-height: 24px; border: 1px solid var(--_cad-warn);
  border-radius: 6px; background: transparent; color: var(--_cad-warn); font: inherit; cursor: pointer; }
.cad-visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.cad-field__help { margin: 4px 0 0; color: var(--_cad-muted); font-size: 12px; }
.cad-field__error { margin: 4px 0 0; color: var(--_cad-danger); font-size: 12px; font-weight: 500; }
.cad-range { display: flex; align-items: center; gap: 10px; margin-top: 4px; }
.cad-range input[type=range] { flex: 1; accent-color: var(--_cad-accent); min-width: 0; height: 24px; margin: 0; }
.cad-number { display: inline-flex; align-items: center; min-width: 96px; min-height: 32px;
  border: 1px solid var(--_cad-border); border-radius: 8px; padding: 0 8px 0 0; background: var(--_cad-surface); }
.cad-number input { width: 64px; border: 0; padding: 5px 4px 5px 8px; font: inherit; background: transparent;
  color: var(--_cad-ink); font-variant-numeric: tabular-nums; }
.cad-number input:focus, .cad-number input:focus-visible { outline: none; }
.cad-number:focus-within { outline: 2px solid var(--_cad-focus); outline-offset: 2px; }
.cad-number:has(input[aria-invalid="true"]) { border-color: var(--_cad-danger); border-width: 2px; }
.cad-unit { color: var(--_cad-muted); font-size: 12px; }
.cad-toggle { position: relative; display: inline-flex; align-items: center; gap: 8px; margin-top: 6px; }
.cad-toggle input { position: absolute; left: 0; top: 50%; transform: translateY(-50%); width: 40px;
  height: 24px; margin: 0; opacity: 0; cursor: pointer; z-index: 1; }
.cad-toggle__track { flex: none; width: 40px; height: 24px; border-radius: 999px; background: var(--_cad-surface);
  border: 2px solid var(--_cad-border); position: relative; transition: background .15s; }
.cad-toggle__track::after { content: ""; position: absolute; top: 2px; left: 2px; width: 16px; height: 16px;
  border-radius: 50%; background: var(--_cad-border); transition: transform .15s; }
.cad-toggle input:checked + .cad-toggle__track { background: var(--_cad-accent); border-color: var(--_cad-accent); }
.cad-toggle input:checked + .cad-toggle__track::after { transform: translateX(16px); background: var(--_cad-bg); }
.cad-toggle input:focus-visible { outline: none; }
.cad-toggle input:focus-visible + .cad-toggle__track { outline: 2px solid var(--_cad-focus); outline-offset: 2px; }
.cad-toggle__text { color: var(--_cad-muted); font-size: 13px; }
.cad-select, .cad-text { margin-top: 6px; width: 100%; min-height: 32px; padding: 6px 8px; border: 1px solid var(--_cad-border);
  border-radius: 8px; font: inherit; background: var(--_cad-surface); color: var(--_cad-ink); }
.cad-colors { display: flex; flex-wrap: wrap; align-items: center; gap: 10px; margin-top: 6px; padding: 2px; }
.cad-swatch { width: 32px; height: 32px; border-radius: 50%; border: 1px solid var(--_cad-border); cursor: pointer;
  padding: 0; }
.cad-swatch--on { box-shadow: 0 0 0 2px var(--_cad-bg), 0 0 0 4px var(--_cad-accent); }
.cad-swatch:focus-visible { outline: 2px solid var(--_cad-focus); outline-offset: 5px; }
.cad-picker { width: 40px; height: 32px; padding: 0 2px; border: 1px solid var(--_cad-border); border-radius: 6px;
  background: var(--_cad-surface); cursor: pointer; }
.cad-foot { display: flex; flex-wrap: wrap; gap: 16px; align-items: center; padding: 8px 18px;
  border-top: 1px solid var(--_cad-line); color: var(--_cad-muted); font-size: 12px; min-height: 36px; }
.cad-pill { display: inline-flex; align-items: center; gap: 6px; padding: 3px 10px; border-radius: 999px;
  font-size: 12px; font-weight: 600; border: 1px solid var(--_cad-line); color: var(--_cad-muted); }
.cad-pill__dot { width: 8px; height: 8px; border-radius: 50%; background: var(--_cad-muted); }
.cad-pill--ready .cad-pill__dot, .cad-pill--provided .cad-pill__dot { background: #12b76a; }
.cad-pill--ready, .cad-pill--provided { color: var(--_cad-ink); }
.cad-pill--error { color: var(--_cad-danger); border-color: var(--_cad-danger); }
.cad-pill--error .cad-pill__dot { background: var(--_cad-danger); }
@media (pointer: coarse) {
  .cad-range input[type=range] { height: 44px; }
  .cad-number, .cad-select, .cad-text, .cad-viewer__tools button { min-height: 44px; }
  .cad-viewer__tools button { min-width: 44px; }
  .cad-swatch { width: 44px; height: 44px; }
  .cad-picker { width: 52px; height: 44px; }
  .cad-toggle input { width: 48px; height: 44px; }
}
@media (prefers-reduced-motion: reduce) {
  .cad-configurator *, .cad-configurator *::before, .cad-configurator *::after {
    animation: none !important; transition: none !important; }
}
@container cad (max-width: 759px) {
  .cad-body { grid-template-columns: minmax(0, 1fr) 280px; }
  .cad-form__group { padding: 8px 14px 4px; }
  .cad-field { padding: 6px 0; }
}
@container cad (max-width: 559px) {
  .cad-bar { padding: 10px 14px; }
  .cad-body { display: flex; flex-direction: column; }
  .cad-stage { position: sticky; top: 0; z-index: 2; flex: none; height: min(46%, 46vh, 380px);
    min-height: 200px; border-bottom: 1px solid var(--_cad-line); }
  .cad-panel { flex: 1 1 auto; min-height: 0; max-height: none; border-left: 0; }
  .cad-foot { flex-wrap: nowrap; gap: 10px; padding: 6px 14px; white-space: nowrap; overflow: hidden; }
  .cad-foot__item { overflow: hidden; text-overflow: ellipsis; }
}
.cad-notice { position: absolute; inset: 24px; display: flex; flex-direction: column; gap: 6px;
  align-items: center; justify-content: center; text-align: center; color: var(--_cad-muted); }
.cad-notice strong { color: var(--_cad-ink); font-size: 16px; }
`;
