/**
 * The HTML document pipeline: the CSP builder (lib/web/csp.ts) as a table of inputs and headers,
 * the document renderer (lib/web/document.ts), and every page kind's policy as the app answers it
 * in memory (framework pages, sign-in, the demo page, the hosted configurator and its error page).
 */
import assert from "node:assert/strict";
import { h } from "preact";
import {
  contentSecurityPolicy,
  type CspDirectives,
  type CspOptions,
  ISLAND_PAGE_DIRECTIVES,
  newNonce,
  NONCE,
  PAGE_DIRECTIVES,
} from "@/lib/web/csp.ts";
import { documentResponse, documentShell } from "@/lib/web/document.ts";
import { createSdkKey } from "@/lib/hub/sdk_keys.ts";
import { createTestApp } from "../_helpers/app.ts";
import { rid } from "../_helpers/redis.ts";
import { SettingsClient } from "../settings/_client.ts";

const SHOP = "https://shop.example.com";

/** The framework page's policy, as every layout page has sent it. */
const PAGE = "default-src 'self'; script-src 'self' 'nonce-N'; style-src 'self' 'nonce-N'; " +
  "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; " +
  "object-src 'none'; frame-ancestors 'none'";
/** The island page's policy up to connect-src's extra origins and frame-ancestors. */
const ISLANDS = (connect: string, ancestors: string) =>
  "default-src 'self'; script-src 'self' 'nonce-N' 'wasm-unsafe-eval'; style-src 'self' 'nonce-N'; " +
  `img-src 'self' data: blob:; connect-src 'self'${connect}; base-uri 'none'; ` +
  `form-action 'none'; object-src 'none'; frame-ancestors ${ancestors}`;
const ERROR_PAGE = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; " +
  "form-action 'none'";

Deno.test("csp - directives as data, the nonce where they name it, frame-ancestors as an option", () => {
  const table: Array<[string, CspDirectives, CspOptions, string]> = [
    ["framework page, framed by nobody", PAGE_DIRECTIVES, { nonce: "N", frameAncestors: [] }, PAGE],
    [
      "island page framed by two origins",
      ISLAND_PAGE_DIRECTIVES,
      { nonce: "N", frameAncestors: [SHOP, "http://localhost:3000"] },
      ISLANDS("", `${SHOP} http://localhost:3000`),
    ],
    [
      "island page with no allowed origin",
      ISLAND_PAGE_DIRECTIVES,
      { nonce: "N", frameAncestors: [] },
      ISLANDS("", "'none'"),
    ],
    [
      "no frame-ancestors option: the directive is left out",
      { "default-src": ["'none'"], "style-src": ["'unsafe-inline'"] },
      { nonce: "N" },
      "default-src 'none'; style-src 'unsafe-inline'",
    ],
    [
      "the nonce goes where the table puts it, in order",
      { "script-src": [NONCE, "'strict-dynamic'"], "img-src": ["'self'"] },
      { nonce: "abc" },
      "script-src 'nonce-abc' 'strict-dynamic'; img-src 'self'",
    ],
  ];
  for (const [name, directives, options, expected] of table) {
    assert.equal(contentSecurityPolicy(directives, options), expected, name);
  }
});

Deno.test("csp - refuses a nonce placeholder without a nonce and frame-ancestors in the table", () => {
  assert.throws(() => contentSecurityPolicy(PAGE_DIRECTIVES), TypeError);
  assert.throws(
    () =>
      contentSecurityPolicy({ "frame-ancestors": ["'self'"] }, { frameAncestors: ["https://a.b"] }),
    TypeError,
  );
  assert.match(newNonce(), /^[0-9a-f]{32}$/);
  assert.notEqual(newNonce(), newNonce());
});

Deno.test("document - one nonce for the tree and the header; the document's headers win", async () => {
  let seen = "";
  const res = documentResponse({
    csp: PAGE_DIRECTIVES,
    framing: "nobody",
    status: 422,
    headers: { "cache-control": "no-store", "x-frame-options": "SAMEORIGIN" },
    render(nonce) {
      seen = nonce;
      return documentShell({
        title: "T <1>",
        description: 'Says "what"',
        css: "p{}",
        nonce,
        body: [h("p", null, "hi"), h("script", { nonce }, "1")],
      });
    },
  });
  assert.equal(res.status, 422);
  assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.equal(res.headers.get("x-frame-options"), "DENY");
  assert.equal(
    res.headers.get("content-security-policy"),
    PAGE.replaceAll("'nonce-N'", `'nonce-${seen}'`),
  );
  assert.equal(
    await res.text(),
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"/>' +
      '<meta name="viewport" content="width=device-width, initial-scale=1"/>' +
      "<title>T &lt;1></title>" +
      '<meta name="description" content="Says &quot;what&quot;"/>' +
      '<link rel="icon" href="/favicon.svg" type="image/svg+xml"/>' +
      '<link rel="icon" href="/favicon.ico" sizes="16x16 32x32 48x48"/>' +
      `<style nonce="${seen}">p{}</style></head>` +
      `<body><p>hi</p><script nonce="${seen}">1</script></body></html>`,
  );
});

Deno.test("document - framing: nobody, a list of origins, or anyone", () => {
  const table: Array<[string, "nobody" | "anyone" | string[], RegExp | null, string | null]> = [
    ["nobody", "nobody", /frame-ancestors 'none'$/, "DENY"],
    // Framed by nobody either way: browsers without CSP 2 read X-Frame-Options.
    ["an empty list", [], /frame-ancestors 'none'$/, "DENY"],
    ["origins", [SHOP], new RegExp(`frame-ancestors ${SHOP}$`), null],
    ["anyone", "anyone", null, null],
  ];
  for (const [name, framing, ancestors, xfo] of table) {
    const res = documentResponse({
      csp: { "default-src": ["'none'"] },
      framing,
      render: () => documentShell({ title: "x", viewport: false, body: null }),
    });
    const csp = res.headers.get("content-security-policy") ?? "";
    if (ancestors) assert.match(csp, ancestors, name);
    else assert.equal(csp, "default-src 'none'", name);
    assert.equal(res.headers.get("x-frame-options"), xfo, name);
  }
});

Deno.test("document - every page kind's policy, as the app answers it", async (t) => {
  const app = await createTestApp({ seedDemo: true });
  const separate = await createTestApp({
    seedDemo: true,
    env: { KERNEL_URL: "https://kernel.example" },
  });
  try {
    const { record } = await createSdkKey(app.deps.kv, {
      partnerId: app.demo!.partnerId,
      label: "iframe",
      allowedOrigins: [SHOP, "http://localhost:3000"],
      allowedProjects: ["wall-bracket"],
    });
    const settings = new SettingsClient(app.url, app.fetch);
    await settings.signUp(`doc-${rid()}@shop.example`, "Document Co");
    const table: Array<[string, () => Promise<Response>, number, string, string | null]> = [
      ["settings page", () => settings.get("/settings/keys"), 200, PAGE, "DENY"],
      ["sign-in", () => app.request("/auth/signin"), 200, PAGE, "DENY"],
      // The demo page hosts the Configurator island: an island page, framed by nobody.
      ["demo page /", () => app.request("/"), 200, ISLANDS("", "'none'"), "DENY"],
      ["a doc page", () => app.request("/docs/api"), 200, PAGE, "DENY"],
      [
        "hosted configurator: framed by the key's origins",
        () => app.request(`/configurator/wall-bracket?key=${record.keyId}`),
        200,
        ISLANDS("", `${SHOP} http://localhost:3000`),
        null,
      ],
      [
        "hosted configurator with a separate render service",
        () => separate.request(`/configurator/wall-bracket?key=${separate.demo!.keyId}`),
        200,
        ISLANDS(" https://kernel.example", "http://localhost"),
        null,
      ],
      [
        "configurator error page: no script, frameable anywhere",
        () => app.request(`/configurator/wall-bracket?key=nope`),
        401,
        ERROR_PAGE,
        null,
      ],
      [
        "configurator error page for a project the key may not show",
        () => app.request(`/configurator/vase?key=${record.keyId}`),
        403,
        ERROR_PAGE,
        null,
      ],
    ];
    for (const [name, send, status, expected, xfo] of table) {
      await t.step(name, async () => {
        const res = await send();
        const html = await res.text();
        assert.equal(res.status, status);
        assert.match(res.headers.get("content-type") ?? "", /^text\/html; charset=utf-8$/);
        assert.ok(html.startsWith('<!DOCTYPE html><html lang="en">'), html.slice(0, 80));
        const csp = res.headers.get("content-security-policy") ?? "";
        const nonce = /'nonce-([0-9a-f]{32})'/.exec(csp)?.[1];
        assert.equal(csp, nonce ? expected.replaceAll("'nonce-N'", `'nonce-${nonce}'`) : expected);
        assert.equal(res.headers.get("x-frame-options"), xfo);
        // Every inline script and style carries the header's nonce (the error page has none).
        for (const m of html.matchAll(/<(script|style)(?![^>]*\bsrc=)([^>]*)>/g)) {
          if (nonce) assert.match(m[2], new RegExp(`nonce="${nonce}"`), m[0]);
          else assert.doesNotMatch(m[2], /nonce=/, m[0]);
        }
      });
    }
  } finally {
    await app.close();
    await separate.close();
  }
});
