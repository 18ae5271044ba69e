/**
 * The SDK modules' declarations: `/sdk/v1/embed.js` and `/sdk/v1/preact.js` name them in
 * `X-TypeScript-Types`, the hub serves them (emitted by tsc from the same sources as the bundles),
 * every relative import in them resolves to another served file, and a Deno program importing the
 * hub's URL is type-checked against them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createTestApp } from "../_helpers/app.ts";
import { startTestServer } from "../_helpers/server.ts";
import { declarationSpecifiers } from "@/lib/sdk/types_build.ts";

Deno.test("sdk types - specifiers of emitted declarations point at .d.ts neighbours", () => {
  const text = [
    'import type { A } from "./a.ts";',
    'export * from "../../islands/Configurator.tsx";',
    'export type X = import("./x.ts").X;',
    'import { h } from "preact";',
  ].join("\n");
  assert.equal(
    declarationSpecifiers(text),
    [
      'import type { A } from "./a.d.ts";',
      'export * from "../../islands/Configurator.d.ts";',
      'export type X = import("./x.d.ts").X;',
      'import { h } from "preact";',
    ].join("\n"),
  );
});

Deno.test("sdk types - X-TypeScript-Types names served declarations; their imports resolve", async () => {
  const app = await createTestApp();
  try {
    for (const [module, name] of [["embed", "CadConfiguratorElement"], ["preact", "mount"]]) {
      const res = await app.request(`/sdk/v1/${module}.js`);
      await res.body?.cancel();
      const types = res.headers.get("x-typescript-types") ?? "";
      assert.match(types, /\/sdk\/v1\/types\/[0-9a-f]{16}\/lib\/sdk\/\w+\.d\.ts$/);
      assert.match(res.headers.get("access-control-expose-headers") ?? "", /X-TypeScript-Types/);
      const path = new URL(types).pathname;
      const dts = await app.request(path);
      assert.equal(dts.status, 200);
      assert.match(dts.headers.get("content-type") ?? "", /typescript/);
      assert.match(dts.headers.get("cache-control") ?? "", /immutable/);
      assert.equal(dts.headers.get("access-control-allow-origin"), "*");
      const text = await dts.text();
      // Exported by the entry, declared there or in a file it imports (followed below).
      assert.match(text, new RegExp(`export (declare (class|function) |\\{[^}]*)${name}\\b`));
      const declared: string[] = [];
      // Follow every relative import, transitively: each is a served declaration file.
      const seen = new Set([path]);
      const queue = [{ path, text }];
      while (queue.length) {
        const { path: from, text: body } = queue.pop()!;
        for (const [, spec] of body.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
          assert.match(spec, /\.d\.ts$/, `${from} imports ${spec}`);
          const next = new URL(spec, `http://hub${from}`).pathname;
          if (seen.has(next)) continue;
          seen.add(next);
          const r = await app.request(next);
          assert.equal(r.status, 200, `${next} (imported by ${from})`);
          queue.push({ path: next, text: await r.text() });
        }
        if (new RegExp(`export declare (class|function) ${name}\\b`).test(body)) {
          declared.push(from);
        }
      }
      assert.equal(declared.length, 1, `${name} is declared once: ${declared}`);
      assert.ok(seen.size > 5, `the declarations span several files (${seen.size})`);
    }
  } finally {
    await app.close();
  }
});

Deno.test("sdk types - a wrong hash or path is a 404 problem", async () => {
  const app = await createTestApp();
  try {
    for (
      const path of [
        "/sdk/v1/types/0000000000000000/lib/sdk/embed_element.d.ts",
        "/sdk/v1/types/nothex/lib/sdk/embed_element.d.ts",
        "/sdk/v1/types/0123456789abcdef/../deno.json",
      ]
    ) {
      const res = await app.request(path);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get("content-type") ?? "", /problem\+json/, path);
      assert.equal((await res.json()).code, "not_found");
    }
  } finally {
    await app.close();
  }
});

Deno.test({
  name: "sdk types - deno check of a program importing the hub's embed.js uses its types",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await startTestServer({ redis: false });
    const dir = await Deno.makeTempDir();
    try {
      const host = new URL(server.url).host;
      const program = (value: string) =>
        `import { CadConfiguratorElement } from "${server.url}/sdk/v1/embed.js";\n` +
        `const status: ${value} = (null as unknown as CadConfiguratorElement).tokenStatus.state;\n` +
        `console.log(status);\n`;
      const check = async (source: string) => {
        await Deno.writeTextFile(join(dir, "main.ts"), source);
        return await new Deno.Command(Deno.execPath(), {
          // The repository's config gives the bare specifiers (preact, three) of the declarations.
          args: [
            "check",
            "--no-lock",
            `--allow-import=${host}`,
            "--config",
            `${Deno.cwd()}/deno.json`,
            "main.ts",
          ],
          cwd: dir,
          env: { NO_COLOR: "1" },
          stdout: "piped",
          stderr: "piped",
        }).output();
      };
      const good = await check(program('"loading" | "ready" | "error" | "provided"'));
      assert.ok(good.success, new TextDecoder().decode(good.stderr));
      const bad = await check(program("number"));
      assert.ok(!bad.success, "a wrong type is refused");
      assert.match(new TextDecoder().decode(bad.stderr), /TS2322/);
    } finally {
      await Deno.remove(dir, { recursive: true });
      await server.close();
    }
  },
});
