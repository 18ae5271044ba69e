import assert from "node:assert/strict";
import { APP_MANIFEST_TYPES } from "@/lib/app/context.ts";
import { generateManifest, MANIFEST_FILE } from "@/lib/web/manifest.ts";

Deno.test("manifest - the committed route manifest is up to date", async () => {
  const root = new URL("../../", import.meta.url).pathname;
  const committed = await Deno.readTextFile(root + MANIFEST_FILE);
  const fresh = await generateManifest(root, APP_MANIFEST_TYPES);
  assert.equal(
    committed,
    fresh,
    "manifest.gen.ts is stale: run `deno task manifest` and commit it",
  );
  assert.ok(committed.startsWith("// DO NOT EDIT"));
});

Deno.test("manifest - lists every route and island file and skips tests", async () => {
  const root = await Deno.makeTempDir();
  try {
    for (
      const f of [
        "routes/index.tsx",
        "routes/a/[id].ts",
        "routes/a/[id]_test.ts",
        "islands/Viewer.tsx",
      ]
    ) {
      const path = `${root}/${f}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(path, "export {};\n");
    }
    const text = await generateManifest(root, APP_MANIFEST_TYPES);
    assert.match(text, /"\.\/routes\/index\.tsx": \$\d+/);
    assert.match(text, /"\.\/routes\/a\/\[id\]\.ts": \$\d+/);
    assert.match(text, /"\.\/islands\/Viewer\.tsx": \$\$\d+/);
    assert.doesNotMatch(text, /_test/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
