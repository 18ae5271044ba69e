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
 * Runs in browsers: no Deno APIs here.
 */

/** The configurator's CSS. */
export const CONFIGURATOR_CSS = `
:host { display: block; }
.cad-configurator {
  --cad-accent: #2f6fed; --cad-ink: #1d2330; --cad-muted: #5b6474; --cad-line: #e3e6ec;
  --cad-bg: #ffffff; --cad-stage: #eef1f5;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--cad-ink); background: var(--cad-bg);
  border: 1px solid var(--cad-line); border-radius: 12px; overflow: hidden; overflow: clip;
  display: flex; flex-direction: column; height: 100%; min-height: 480px; box-sizing: border-box;
  container: cad / inline-size;
}
.cad-configurator *, .cad-configurator *::before, .cad-configurator *::after { box-sizing: border-box; }
.cad-bar { display: flex; align-items: center; justify-content: space-between; gap: 12px;
  padding: 12px 18px; border-bottom: 1px solid var(--cad-line); }
.cad-title { margin: 0; font-size: 16px; font-weight: 600; }
.cad-body { flex: 1; display: grid; grid-template-columns: minmax(0, 1fr) 320px; min-height: 0; }
.cad-stage { position: relative; min-height: 320px; background: var(--cad-stage); }
.cad-viewer { position: absolute; inset: 0; }
.cad-viewer__canvas { position: absolute; inset: 0; }
.cad-viewer__canvas canvas { display: block; outline: none; }
.cad-viewer[data-context="lost"] .cad-viewer__canvas { visibility: hidden; }
.cad-viewer__overlay { position: absolute; inset: 0; display: flex; align-items: center;
  justify-content: center; gap: 10px; color: var(--cad-muted); font-weight: 500; pointer-events: none; }
.cad-viewer__overlay--corner { inset: auto 12px 12px auto; padding: 6px 12px; border-radius: 999px;
  background: rgba(255,255,255,.92); box-shadow: 0 1px 3px rgba(0,0,0,.12); font-size: 12px; }
.cad-viewer__error { position: absolute; left: 16px; right: 16px; top: 16px; padding: 12px 14px;
  border-radius: 10px; background: #fff5f5; border: 1px solid #f3c2c2; color: #8a1f1f;
  display: flex; flex-direction: column; gap: 4px; box-shadow: 0 2px 8px rgba(0,0,0,.06); }
.cad-viewer__fit { position: absolute; left: 12px; bottom: 12px; border: 1px solid var(--cad-line);
  background: #fff; border-radius: 8px; padding: 4px 10px; font: inherit; font-size: 12px; cursor: pointer; }
.cad-spinner { width: 16px; height: 16px; border-radius: 50%; border: 2px solid #c9d3e3;
  border-top-color: var(--cad-accent); animation: cad-spin .8s linear infinite; }
@keyframes cad-spin { to { transform: rotate(360deg); } }
.cad-panel { border-left: 1px solid var(--cad-line); overflow-y: auto; max-height: 100%; }
.cad-panel__placeholder { padding: 18px; color: var(--cad-muted); }
.cad-form { padding: 4px 0 12px; margin: 0; }
.cad-form__group { border: 0; margin: 0; padding: 10px 18px 6px; border-bottom: 1px solid var(--cad-line); }
.cad-form__group:last-child { border-bottom: 0; }
.cad-form__group legend { padding: 8px 0 2px; font-size: 11px; font-weight: 700; letter-spacing: .06em;
  text-transform: uppercase; color: var(--cad-muted); }
.cad-field { padding: 8px 0; }
.cad-field__head { display: flex; justify-content: space-between; align-items: baseline; gap: 8px; }
.cad-field__head label { font-weight: 600; }
.cad-field__value { color: var(--cad-muted); font-variant-numeric: tabular-nums; font-size: 13px; }
.cad-field__value--limited { color: #93370d; font-weight: 600; }
.cad-field__limit { margin: 4px 0 0; padding: 4px 8px; border-radius: 6px; background: #fffaeb;
  color: #93370d; font-size: 12px; }
.cad-visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.cad-field__help { margin: 4px 0 0; color: var(--cad-muted); font-size: 12px; }
.cad-field__error { margin: 4px 0 0; color: #b42318; font-size: 12px; font-weight: 500; }
.cad-range { display: flex; align-items: center; gap: 10px; margin-top: 4px; }
.cad-range input[type=range] { flex: 1; accent-color: var(--cad-accent); min-width: 0; }
.cad-number { display: inline-flex; align-items: center; min-width: 96px; border: 1px solid var(--cad-line);
  border-radius: 8px; padding: 0 8px 0 0; background: #fff; }
.cad-number input { width: 64px; border: 0; padding: 5px 4px 5px 8px; font: inherit; background: transparent;
  font-variant-numeric: tabular-nums; }
.cad-number input:focus { outline: none; }
.cad-number:focus-within { border-color: var(--cad-accent); box-shadow: 0 0 0 3px rgba(47,111,237,.15); }
.cad-number:has(input[aria-invalid="true"]) { border-color: #d92d20; }
.cad-unit { color: var(--cad-muted); font-size: 12px; }
.cad-toggle { display: inline-flex; align-items: center; gap: 8px; margin-top: 6px; cursor: pointer; }
.cad-toggle input { position: absolute; opacity: 0; width: 1px; height: 1px; }
.cad-toggle__track { width: 36px; height: 20px; border-radius: 999px; background: #cfd5df; position: relative;
  transition: background .15s; }
.cad-toggle__track::after { content: ""; position: absolute; top: 2px; left: 2px; width: 16px; height: 16px;
  border-radius: 50%; background: #fff; box-shadow: 0 1px 2px rgba(0,0,0,.2); transition: transform .15s; }
.cad-toggle input:checked + .cad-toggle__track { background: var(--cad-accent); }
.cad-toggle input:checked + .cad-toggle__track::after { transform: translateX(16px); }
.cad-toggle input:focus-visible + .cad-toggle__track { box-shadow: 0 0 0 3px rgba(47,111,237,.25); }
.cad-toggle__text { color: var(--cad-muted); font-size: 13px; }
.cad-select { margin-top: 6px; width: 100%; padding: 6px 8px; border: 1px solid var(--cad-line);
  border-radius: 8px; font: inherit; background: #fff; }
.cad-colors { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin-top: 6px; }
.cad-swatch { width: 26px; height: 26px; border-radius: 50%; border: 2px solid #fff; cursor: pointer;
  box-shadow: 0 0 0 1px var(--cad-line); padding: 0; }
.cad-swatch--on { box-shadow: 0 0 0 2px var(--cad-accent); }
.cad-picker { width: 34px; height: 28px; padding: 0; border: 1px solid var(--cad-line); border-radius: 6px;
  background: #fff; cursor: pointer; }
.cad-foot { display: flex; flex-wrap: wrap; gap: 16px; align-items: center; padding: 8px 18px;
  border-top: 1px solid var(--cad-line); color: var(--cad-muted); font-size: 12px; min-height: 36px; }
.cad-pill { display: inline-flex; align-items: center; gap: 6px; padding: 3px 10px; border-radius: 999px;
  font-size: 12px; font-weight: 600; background: #eef2f8; color: var(--cad-muted); }
.cad-pill__dot { width: 8px; height: 8px; border-radius: 50%; background: #9aa4b2; }
.cad-pill--ready .cad-pill__dot, .cad-pill--provided .cad-pill__dot { background: #12b76a; }
.cad-pill--ready, .cad-pill--provided { background: #ecfdf3; color: #067647; }
.cad-pill--error { background: #fef3f2; color: #b42318; }
.cad-pill--error .cad-pill__dot { background: #f04438; }
@container cad (max-width: 759px) {
  .cad-body { grid-template-columns: minmax(0, 1fr) 280px; }
  .cad-form__group { padding: 8px 14px 4px; }
  .cad-field { padding: 6px 0; }
}
@container cad (max-width: 559px) {
  .cad-bar { padding: 10px 14px; }
  .cad-body { display: flex; flex-direction: column; }
  .cad-stage { position: sticky; top: 0; z-index: 1; flex: none; height: min(46%, 46vh, 380px);
    min-height: 200px; border-bottom: 1px solid var(--cad-line); }
  .cad-panel { flex: 1 1 auto; min-height: 0; max-height: none; border-left: 0; }
  .cad-foot { flex-wrap: nowrap; gap: 10px; padding: 6px 14px; white-space: nowrap; overflow: hidden; }
  .cad-foot__item { overflow: hidden; text-overflow: ellipsis; }
}
.cad-notice { position: absolute; inset: 24px; display: flex; flex-direction: column; gap: 6px;
  align-items: center; justify-content: center; text-align: center; color: var(--cad-muted); }
.cad-notice strong { color: var(--cad-ink); font-size: 16px; }
`;
