/**
 * The public pages' stylesheets (the demo page at `/`, the docs at `/docs`), inlined under the
 * page's CSP nonce: the site frame (top bar, buttons, footer), then each page's own part.
 */

/** The top bar, buttons, sections and footer every public page shares. */
export const SITE_CSS = `
:root { --ink: #1d2330; --muted: #5b6474; --line: #e3e6ec; --accent: #1d5bd8; --focus: #1d5bd8; --control: #767f8f; --bg: #f6f7f9;
  --soft: #eef3fe; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink); background: var(--bg); }
body { margin: 0; line-height: 1.5; }
a { color: var(--accent); }
code { background: #eef1f6; padding: 1px 5px; border-radius: 4px; font-size: 0.92em; }
pre { background: #0f1522; color: #d7e0f0; padding: 12px 14px; border-radius: 8px; overflow-x: auto;
  font-size: 13px; line-height: 1.45; }
pre code { background: none; padding: 0; font-size: inherit; color: inherit; }
.site-top { background: #fff; border-bottom: 1px solid var(--line); position: sticky; top: 0;
  z-index: 5; }
.site-top__in { max-width: 1160px; margin: 0 auto; padding: 10px 20px; display: flex;
  align-items: center; gap: 18px; }
.site-brand { font-weight: 700; color: var(--ink); text-decoration: none; display: flex;
  align-items: center; gap: 8px; white-space: nowrap; }
.site-brand__mark { width: 22px; height: 22px; border-radius: 6px;
  background: linear-gradient(135deg, #2f6fed, #7aa7ff); display: inline-block; }
.site-nav { display: flex; gap: 16px; margin-left: auto; align-items: center; }
.site-nav a { color: var(--ink); text-decoration: none; font-size: 14px; white-space: nowrap;
  min-height: 24px; display: inline-flex; align-items: center; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.site-brand { min-height: 24px; }
.site-nav a:hover { color: var(--accent); }
.site-nav .btn { color: #fff; }
.site-nav__wide { display: inline; }
@media (max-width: 640px) { .site-nav a.site-nav__wide { display: none; } .site-nav { gap: 12px; }
  .site-top__in { padding: 10px 16px; gap: 10px; } .site-brand { font-size: 15px; }
  .site-main { padding: 0 14px 40px; } }
@media (max-width: 420px) { .site-brand__mark { display: none; } }
.btn { display: inline-block; background: var(--accent); color: #fff; border: 0; border-radius: 8px;
  padding: 9px 16px; font-size: 14px; font-weight: 600; text-decoration: none; cursor: pointer;
  line-height: 1.3; }
.btn:hover { filter: brightness(1.08); }
.btn--ghost { background: #fff; color: var(--ink); border: 1px solid var(--control); }
.btn--small { padding: 6px 12px; font-size: 13px; }
.skip { position: absolute; left: 12px; top: -48px; z-index: 10; background: #fff; color: var(--accent);
  padding: 8px 12px; border-radius: 8px; }
.skip:focus { top: 8px; }
.site-main:focus { outline: none; }
.site-main { max-width: 1160px; margin: 0 auto; padding: 0 20px 48px; }
.site-foot { border-top: 1px solid var(--line); background: #fff; }
.site-foot__in { max-width: 1160px; margin: 0 auto; padding: 18px 20px; color: var(--muted);
  font-size: 13px; display: flex; flex-wrap: wrap; gap: 8px 18px; }
.site-foot a { color: var(--muted); min-height: 24px; display: inline-flex; align-items: center; }
`;

/** The demo page: hero, the live configurator, the gallery, embedding, docs. */
export const HOME_CSS = `
.hero { padding: 36px 0 20px; display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 16px 32px;
  align-items: end; }
.hero h1 { margin: 0 0 6px; font-size: 34px; letter-spacing: -0.02em; }
.hero p { margin: 0; color: var(--muted); font-size: 17px; max-width: 640px; }
.hero__cta { display: flex; gap: 10px; flex-wrap: wrap; }
@media (max-width: 760px) { .hero { grid-template-columns: 1fr; padding-top: 22px; }
  .hero__cta .btn { padding: 8px 12px; font-size: 13px; }
  .hero h1 { font-size: 28px; } .hero p { font-size: 15px; } }
.live { background: #fff; border: 1px solid var(--line); border-radius: 14px; overflow: hidden;
  box-shadow: 0 1px 2px rgba(16, 24, 40, 0.04), 0 8px 24px rgba(16, 24, 40, 0.05); scroll-margin-top: 64px; }
.live__head { display: flex; align-items: baseline; gap: 10px 14px; flex-wrap: wrap;
  padding: 14px 18px; border-bottom: 1px solid var(--line); }
.live__head h2 { margin: 0; font-size: 18px; }
.live__head p { margin: 0; color: var(--muted); font-size: 14px; flex: 1 1 280px; }
.live__stage { height: 600px; }
.live__stage .cad-configurator { border: 0; border-radius: 0; }
@media (max-width: 760px) { .live__stage { height: auto; } }
.live__note { margin: 0; padding: 10px 18px; border-top: 1px solid var(--line); background: #fafbfc;
  color: var(--muted); font-size: 13px; }
.notice { border: 1px solid #f1c27d; background: #fff8ec; color: #6b4a12; border-radius: 10px;
  padding: 12px 16px; margin: 0 0 16px; font-size: 14px; }
.notice--stage { margin: 18px; }
.tag { font-size: 11px; font-weight: 600; text-transform: uppercase; letter-spacing: 0.04em;
  color: #5a3fc0; background: #f0ecff; border-radius: 999px; padding: 2px 8px; white-space: nowrap; }
.section { margin-top: 40px; scroll-margin-top: 64px; }
.section > h2 { font-size: 22px; margin: 0 0 4px; letter-spacing: -0.01em; }
.section > p.sub { margin: 0 0 16px; color: var(--muted); }
.gallery { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 14px;
  list-style: none; padding: 0; margin: 0; }
.gallery__card { display: flex; flex-direction: column; gap: 6px; height: 100%; box-sizing: border-box;
  padding: 16px; background: #fff; border: 1px solid var(--line); border-radius: 12px;
  color: var(--ink); text-decoration: none; transition: border-color .15s, box-shadow .15s; }
.gallery__card:hover { border-color: #b9ccf7; box-shadow: 0 4px 14px rgba(47, 111, 237, 0.10); }
.gallery__card[aria-current="true"] { border-color: var(--accent); background: var(--soft);
  box-shadow: inset 0 0 0 1px var(--accent); }
.gallery__title { font-weight: 600; display: flex; gap: 8px; align-items: center; justify-content: space-between; }
.gallery__desc { color: var(--muted); font-size: 13px; flex: 1; }
.gallery__open { font-size: 13px; font-weight: 600; color: var(--accent); }
.cards { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 16px; }
@media (max-width: 860px) { .cards { grid-template-columns: 1fr; } }
.card { background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 18px 20px;
  min-width: 0; }
.card h3 { margin: 0 0 6px; font-size: 16px; }
.card p { margin: 0 0 10px; color: var(--muted); font-size: 14px; }
.card pre { margin: 8px 0 12px; }
.steps { margin: 0; padding-left: 20px; color: var(--muted); font-size: 14px; }
.steps li { margin-bottom: 6px; }
.status { display: grid; grid-template-columns: 80px minmax(0, 1fr); gap: 6px 12px; margin: 14px 0 0;
  font-size: 14px; }
.status dt { color: var(--muted); }
.status dd { margin: 0; min-width: 0; }
.status pre { margin: 0; }
#status[data-status="ready"] { color: #0f7b3f; font-weight: 600; }
#status[data-status="error"] { color: #b42318; }
.docs-list { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 12px;
  list-style: none; padding: 0; margin: 0; }
.docs-list a { display: block; height: 100%; box-sizing: border-box; padding: 14px 16px; background: #fff;
  border: 1px solid var(--line); border-radius: 12px; text-decoration: none; color: var(--ink); }
.docs-list a:hover { border-color: #b9ccf7; }
.docs-list strong { display: block; margin-bottom: 4px; }
.docs-list span { color: var(--muted); font-size: 13px; display: -webkit-box; -webkit-line-clamp: 3;
  -webkit-box-orient: vertical; overflow: hidden; }
`;

/** A doc page: readable measure, tables that scroll on small screens. */
export const DOCS_CSS = `
.doc { display: grid; grid-template-columns: 220px minmax(0, 1fr); gap: 32px; padding-top: 28px; }
@media (max-width: 860px) { .doc { grid-template-columns: minmax(0, 1fr); gap: 8px; padding-top: 16px; } }
.doc__body :not(pre) > code { overflow-wrap: anywhere; }
.doc__side { font-size: 14px; }
.doc__side ul { list-style: none; padding: 0; margin: 0; position: sticky; top: 72px; }
.doc__side li a { display: block; padding: 5px 10px; border-radius: 6px; color: var(--ink);
  text-decoration: none; }
.doc__side li a[aria-current="page"] { background: var(--soft); color: var(--accent); font-weight: 600; }
@media (max-width: 860px) { .doc__side ul { position: static; display: flex; flex-wrap: wrap; gap: 4px; }
  .doc__side li a { border: 1px solid var(--line); background: #fff; padding: 3px 10px; } }
.doc__body { background: #fff; border: 1px solid var(--line); border-radius: 12px;
  padding: 8px 36px 28px; min-width: 0; font-size: 15px; }
@media (max-width: 640px) { .doc__body { padding: 4px 16px 20px; } }
.doc__body h1 { font-size: 28px; letter-spacing: -0.01em; }
.doc__body h2 { font-size: 21px; margin-top: 32px; padding-top: 8px; border-top: 1px solid var(--line); }
.doc__body h3 { font-size: 17px; margin-top: 24px; }
.doc__body h1, .doc__body h2, .doc__body h3 { scroll-margin-top: 64px; }
.doc__body p, .doc__body li { max-width: 78ch; }
.doc__body blockquote { margin: 0; padding: 2px 16px; border-left: 3px solid var(--line); color: var(--muted); }
.md-table { overflow-x: auto; margin: 12px 0; }
.md-table table { border-collapse: collapse; font-size: 14px; }
.md-table th, .md-table td { border: 1px solid var(--line); padding: 6px 10px; text-align: left;
  vertical-align: top; }
.md-table th { background: #f6f7f9; }
.doc-index { padding-top: 28px; }
.doc-index h1 { margin: 0 0 6px; }
.doc-index > p { color: var(--muted); margin: 0 0 18px; }
`;
