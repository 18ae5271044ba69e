/**
 * The hosted configurator (page, its mint), the SDK modules and signed configurations, answered in
 * memory (tests/_helpers/app.ts) with the demo seeded.
 */
import assert from "node:assert/strict";
import { createSdkKey } from "@/lib/hub/sdk_keys.ts";
import { updateSdkKey } from "@/lib/store/sdk_keys.ts";
import { createTestApp } from "../_helpers/app.ts";
import { staticImports } from "@/lib/web/islands_build.ts";
import { EMBED_BUNDLE_NAME } from "@/lib/sdk/bundle_route.ts";

const SHOP = "https://shop.example.com";

async function setup() {
  const app = await createTestApp({ seedDemo: true });
  const { record } = await createSdkKey(app.deps.kv, {
    partnerId: app.demo!.partnerId,
    label: "iframe",
    allowedOrigins: [SHOP, "http://localhost:3000"],
    allowedProjects: ["wall-bracket"],
  });
  return { app, keyId: record.keyId };
}

Deno.test("configurator page - framable only by the key's allowed origins; islands booted", async () => {
  const { app, keyId } = await setup();
  try {
    const res = await app.request(`/configurator/wall-bracket?key=${keyId}`);
    assert.equal(res.status, 200);
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, new RegExp(`frame-ancestors ${SHOP} http://localhost:3000(;|$)`));
    assert.match(csp, /script-src 'self' 'nonce-[0-9a-f]{32}'/);
    assert.equal(res.headers.get("x-frame-options"), null);
    const html = await res.text();
    assert.match(html, /<!--island:Configurator:0-->/);
    // Server-rendered first paint: the title and the generated form (disabled until hydrated).
    assert.match(html, /<h1 class="cad-title">Wall shelf bracket<\/h1>/);
    assert.match(html, /data-param="width"/);
    assert.match(html, /<meta name="description" content="Configure Wall shelf bracket in 3D: /);
    assert.match(html, /<script type="application\/json" id="__islands"/);
    assert.match(html, /<script type="module" src="\/build\/boot-[0-9a-f]{12}\.js"/);
    // three.js, which the viewer loads lazily, is preloaded beside the islands, under the nonce.
    const nonce = /'nonce-([0-9a-f]{32})'/.exec(csp)![1];
    const links = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)" nonce="([^"]+)"/g)];
    assert.ok(links.length >= 1, html);
    assert.ok(links.every((l) => l[2] === nonce));
    const preloaded = await Promise.all(
      links.map((l) => app.request(l[1]).then((r) => r.text())),
    );
    assert.ok(preloaded.some((code) => code.includes("THREE.WebGLRenderer")), "three.js");
    assert.ok(!html.includes("sdk_"), "no secret-shaped value in the page");
  } finally {
    await app.close();
  }
});

Deno.test("configurator page - refusals are HTML pages with the problem code", async () => {
  const { app, keyId } = await setup();
  try {
    const table: Array<[string, number, string]> = [
      [`/configurator/wall-bracket`, 401, "unknown_key"],
      [`/configurator/wall-bracket?key=abc`, 401, "unknown_key"],
      [`/configurator/vase?key=${keyId}`, 403, "project_not_allowed"],
    ];
    for (const [path, status, code] of table) {
      const res = await app.request(path);
      assert.equal(res.status, status, path);
      assert.match(res.headers.get("content-type") ?? "", /text\/html/);
      assert.match(await res.text(), new RegExp(`data-error-code="${code}"`));
    }
    await updateSdkKey(app.deps.kv, keyId, (r) => ({ ...r, revokedAt: Date.now() }));
    await new Promise((r) => setTimeout(r, 2100)); // the mint path's key cache holds 2 s
    const res = await app.request(`/configurator/wall-bracket?key=${keyId}`);
    assert.equal(res.status, 401);
    assert.match(await res.text(), /data-error-code="key_revoked"/);
  } finally {
    await app.close();
  }
});

Deno.test("configurator mint - same-origin hub pages only, parent must be allowed, token bound to the hub", async () => {
  const { app, keyId } = await setup();
  const url = "/configurator/wall-bracket/session-token";
  const post = (origin: string | null, body: unknown) =>
    app.request(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(origin ? { origin } : {}) },
      body: JSON.stringify(body),
    });
  try {
    const body = { keyId, projectId: "wall-bracket", parentOrigin: SHOP };
    const ok = await post(app.url, body);
    assert.equal(ok.status, 200);
    const { token } = await ok.json();
    const claims = JSON.parse(atob(token.split(".")[1].replaceAll("-", "+").replaceAll("_", "/")));
    assert.equal(claims.origin, app.url, "bound to the hub's own origin");
    const refusals: Array<[string | null, unknown, number, string]> = [
      [SHOP, body, 403, "origin_not_allowed"],
      [null, body, 403, "origin_not_allowed"],
      [app.url, { ...body, parentOrigin: "https://evil.example" }, 403, "origin_not_allowed"],
      [app.url, { ...body, projectId: "vase" }, 422, "validation_failed"],
      [app.url, { ...body, extra: 1 }, 422, "validation_failed"],
    ];
    for (const [origin, b, status, code] of refusals) {
      const res = await post(origin, b);
      assert.equal(res.status, status, JSON.stringify(b));
      assert.equal((await res.json()).code, code);
    }
  } finally {
    await app.close();
  }
});

Deno.test("sdk modules - stable URLs re-export the hashed build, start three.js before it runs, and are readable cross-origin", async () => {
  const { app } = await setup();
  try {
    for (const [path, target] of [["/sdk/v1/embed.js", "embed"], ["/sdk/v1/preact.js", "sdk"]]) {
      const res = await app.request(path, { headers: { origin: SHOP } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.match(res.headers.get("content-type") ?? "", /javascript/);
      const text = await res.text();
      // preact.js: static imports and `export *`. embed.js: the element's code inline (below),
      // then dynamic imports of the bundle and of the same chunks.
      const embed = target === "embed";
      const bundlePattern = `(${app.url}/build/${target}-[0-9a-f]{12}\\.js)`;
      const m = new RegExp(
        embed
          ? `^const ${EMBED_BUNDLE_NAME} = "${bundlePattern}";$`
          : `export \\* from "${bundlePattern}"`,
        "m",
      ).exec(text);
      assert.ok(m, text);
      const bundle = await app.fetch(m[1]);
      assert.equal(bundle.headers.get("access-control-allow-origin"), "*");
      assert.match(bundle.headers.get("cache-control") ?? "", /immutable/);
      // The start module first (below), then the chunks the bundle imports, so that they load
      // with the bundle, not after it.
      const imported = embed
        ? /^import\("([^"]+)"\)\.catch\(\(\) => \{\}\);$/gm
        : /^import "([^"]+)";$/gm;
      const [start, ...chunks] = [...text.matchAll(imported)].map((c) => c[1]);
      const bundleText = await bundle.text();
      const named = staticImports(bundleText).map((c) => new URL(c, m[1]).href);
      assert.deepEqual(chunks, named);
      if (embed) {
        assert.match(text, new RegExp(`^import\\(${EMBED_BUNDLE_NAME}\\)\\.catch`, "m"));
        // embed.js exports what the bundle does, but `mountConfigurator` (what the element
        // loads): the element's class.
        const names = (code: string) => {
          const exported = /export\s*\{([^}]*)\}\s*;?\s*$/m.exec(code);
          assert.ok(exported, "exports at the end");
          return exported[1].split(",").map((e) => e.trim().split(/\s+as\s+/).at(-1)).sort();
        };
        assert.deepEqual(names(bundleText), ["CadConfiguratorElement", "mountConfigurator"]);
        const shell = text.slice(0, text.indexOf(`import(${EMBED_BUNDLE_NAME})`));
        assert.deepEqual(names(shell), ["CadConfiguratorElement"]);
      }
      // three.js is not among them: the view loads it lazily, and the start module, which runs
      // before the bundle does, starts it, without the bundle waiting for it.
      const eager = [bundleText];
      for (const chunk of chunks) {
        const res = await app.fetch(chunk);
        assert.match(res.headers.get("cache-control") ?? "", /immutable/);
        eager.push(await res.text());
      }
      assert.ok(
        eager.every((code) => !code.includes("THREE.WebGLRenderer")),
        "no three.js eagerly",
      );
      assert.match(start, new RegExp(`^${app.url}/build/${target}_start-[0-9a-f]{12}\\.js$`));
      const started = await app.fetch(start);
      assert.equal(started.headers.get("access-control-allow-origin"), "*");
      assert.match(started.headers.get("cache-control") ?? "", /immutable/);
      const startText = await started.text();
      const preload = /^for \(const c of (\[[^\]]*\])\) import\(c\)\.catch\(\(\) => \{\}\);\n$/
        .exec(
          startText,
        );
      assert.ok(preload, startText);
      const preloads = (JSON.parse(preload[1]) as string[]).map((c) => new URL(c, start).href);
      assert.ok(preloads.length >= 1 && preloads.every((c) => !chunks.includes(c)), startText);
      const lazy = await Promise.all(preloads.map((c) => app.fetch(c).then((r) => r.text())));
      assert.ok(lazy.some((code) => code.includes("THREE.WebGLRenderer")), "three.js preloaded");
    }
  } finally {
    await app.close();
  }
});

Deno.test("sdk modules - embed.js defines the element and starts its early requests before anything it imports", async () => {
  const { app } = await setup();
  try {
    const text = await (await app.request("/sdk/v1/embed.js")).text();
    // The bundle's URL, then the shell's bundle inline: no static import (which would hold it
    // back until everything it names has arrived), no relative import (it does not run from
    // where it was built), and it defines the element and calls `fetch` for the early requests.
    const lines = text.split("\n");
    assert.match(lines[0], new RegExp(`^const ${EMBED_BUNDLE_NAME} = "[^"]+";$`));
    const shell = text.slice(lines[0].length + 1, text.indexOf(`import(${EMBED_BUNDLE_NAME})`));
    assert.ok(!/(^|[;}\s])import\s*["{*\w]/m.test(shell), "no static import");
    assert.ok(!/import\(\s*["'`]\./.test(shell), "no relative dynamic import");
    assert.match(shell, /customElements\.define\("cad-configurator"/);
    assert.match(shell, /session-tokens/);
    assert.ok(text.length < 12_000, `embed.js stays small: ${text.length} characters`);
  } finally {
    await app.close();
  }
});

Deno.test("configurations - signing needs a valid token from its own origin; verify answers valid or why not", async () => {
  const { app, keyId } = await setup();
  try {
    const minted = await app.request("/api/v1/sdk/session-tokens", {
      method: "POST",
      headers: { "content-type": "application/json", origin: SHOP },
      body: JSON.stringify({ keyId, projectId: "wall-bracket" }),
    });
    const { token } = await minted.json();
    const sign = (origin: string, auth: string, body: unknown) =>
      app.request("/sdk/v1/configurations", {
        method: "POST",
        headers: { "content-type": "application/json", origin, authorization: auth },
        body: JSON.stringify(body),
      });
    const ok = await sign(SHOP, `Bearer ${token}`, { values: { width: 80 } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get("access-control-allow-origin"), SHOP);
    const { configuration, payload } = await ok.json();
    assert.equal(payload.project, "wall-bracket");
    assert.equal(payload.values.width, 80);
    const table: Array<[string, string, unknown, number, string]> = [
      ["https://evil.example", `Bearer ${token}`, { values: {} }, 403, "origin_mismatch"],
      [SHOP, "Bearer sv1.x.y", { values: {} }, 401, "invalid_token"],
      [SHOP, `Bearer ${token}`, { values: { width: 5 } }, 422, "invalid_parameters"],
      [SHOP, `Bearer ${token}`, { values: {}, project: "vase" }, 422, "validation_failed"],
    ];
    for (const [origin, auth, body, status, code] of table) {
      const res = await sign(origin, auth, body);
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal((await res.json()).code, code);
    }
    const verify = (body: unknown) =>
      app.request("/sdk/v1/configurations/verify", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    assert.deepEqual((await (await verify({ configuration })).json()).valid, true);
    assert.deepEqual(await (await verify({ configuration: "x.y.z" })).json(), {
      valid: false,
      reason: "malformed",
    });
    const bad = await verify({});
    assert.equal(bad.status, 422);
    assert.equal((await bad.json()).code, "validation_failed");
  } finally {
    await app.close();
  }
});
