/**
 * The project page's preview shows a picture: the current version drawn by the hub at its
 * defaults, inline as a PNG the page's CSP allows (`img-src data:`), next to the numbers.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../_helpers/app.ts";
import { decodePng } from "../hub/_png_decode.ts";
import { setUpPartner } from "./_setup.ts";

Deno.test("project preview - the preview shows a picture of the model", async () => {
  const app = await createTestApp();
  try {
    const a = await setUpPartner(app.url, "Alpha", app.fetch);
    const before = await a.client.html(`/settings/projects/${a.project}`);
    assert.ok(!before.includes('id="preview-picture"'), "no picture before asking");
    const res = await a.client.post(`/settings/projects/${a.project}`, { action: "preview" });
    const html = await res.text();
    assert.equal(res.status, 200, html.slice(0, 300));
    assert.match(res.headers.get("content-security-policy") ?? "", /img-src [^;]*data:/);
    const img = /<figure class="preview-picture" id="preview-picture"><img ([^>]*)>/.exec(html);
    assert.ok(img, `a picture in the preview: ${/class="error"[^>]*>([^<]*)/.exec(html)?.[1]}`);
    const src = /src="data:image\/png;base64,([A-Za-z0-9+/=]+)"/.exec(img[1])?.[1];
    assert.ok(src, "an inline PNG");
    assert.match(img[1], /width="800"/);
    assert.match(img[1], /height="500"/);
    assert.match(img[1], /alt="Wall bracket, version 1, at its default parameters: [^"]+"/);
    const png = await decodePng(Uint8Array.fromBase64(src));
    assert.equal(png.width, 800);
    assert.equal(png.height, 500);
    let covered = 0;
    for (let i = 0; i < png.rgb.length; i += 3) {
      if (Math.abs(png.rgb[i] - 0xee) + Math.abs(png.rgb[i + 2] - 0xf5) > 4) covered++;
    }
    assert.ok(covered > 800 * 500 * 0.05, `the model covers ${covered} pixels`);
    // The numbers stay beside it.
    assert.match(html, /id="preview-triangles">[\d,]+</);
  } finally {
    await app.close();
  }
});
