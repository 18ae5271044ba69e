/**
 * A partner's first run: the product started as `deno task start` does, on a fresh KV file; every
 * command its start banner prints, run exactly as printed (in `sh`, from the repository); then the
 * demo page and the example storefront those commands started, looked at in Chromium: each draws
 * a model.
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import type { Frame, Page } from "playwright-core";
import { type ServerProcess, startServerProcess } from "../_helpers/process.ts";
import { ARTIFACTS, launchBrowser } from "./browser.ts";
import { modelPixels } from "./storefront_fixture.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The banner's commands: its indented lines, `\`-continued lines joined. */
function bannerCommands(output: string): string[] {
  const start = output.indexOf("CAD configurator hub + kernel on");
  const lines = output.slice(start).split("\n");
  const commands: string[] = [];
  let current = "";
  for (const line of lines) {
    if (!current && !/^ {4}\S/.test(line)) continue;
    current += line.trim().replace(/\\$/, "") + " ";
    if (!line.trimEnd().endsWith("\\")) {
      commands.push(current.trim());
      current = "";
    }
    if (/task hub --help$/.test(line.trim())) break;
  }
  return commands;
}

/** Waits until `output()` matches `pattern`. */
async function waitFor(output: () => string, pattern: RegExp, what: string): Promise<string> {
  const end = Date.now() + 60_000;
  for (;;) {
    const m = pattern.exec(output());
    if (m) return m[0];
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits for the configurator in `target` to finish a render, then counts the drawn pixels. */
async function drawn(target: Page | Frame, root = ""): Promise<number> {
  await target.locator(`${root} .cad-configurator[data-render-status="ready"]`.trim())
    .waitFor({ timeout: 60_000 });
  await target.waitForTimeout(300);
  const { drawn, total } = await modelPixels(target);
  assert.ok(drawn > total * 0.02, `a model covers pixels (${drawn} of ${total})`);
  return drawn;
}

Deno.test({
  name: "e2e - first run: every command the start banner prints works, and the storefront draws",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "first-run-" });
    // The same deno as this test on PATH, as it is for a partner who typed `deno task start`.
    const env = {
      KV_PATH: `${dir}/hub.kv`,
      PATH: `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? ""}`,
    };
    let server: ServerProcess | undefined;
    let shop: Deno.ChildProcess | undefined;
    let shopOut = "";
    const browser = await launchBrowser();
    try {
      server = await startServerProcess(env);
      await waitFor(server.output, /task hub --help\n/, "the banner");
      const banner = server.output();
      const keyId = /Demo key id \(publishable\): (\w+)/.exec(banner)?.[1];
      const partnerId = /Demo partner: (prt_\w+)/.exec(banner)?.[1];
      assert.ok(keyId && partnerId, banner);
      const commands = bannerCommands(banner);
      assert.equal(commands.length, 3, commands.join("\n"));
      const [curl, storefront, help] = commands;

      await t.step("the curl line mints a token for the demo project", async () => {
        const out = await new Deno.Command("sh", { args: ["-c", curl], cwd: ROOT, env }).output();
        assert.equal(out.code, 0);
        const body = JSON.parse(new TextDecoder().decode(out.stdout));
        assert.match(body.token, /^sv1\./);
        assert.equal(body.mode, "publishable");
      });

      await t.step("deno task hub --help lists the commands", async () => {
        const out = await new Deno.Command("sh", { args: ["-c", help], cwd: ROOT, env }).output();
        assert.equal(out.code, 0);
        assert.match(new TextDecoder().decode(out.stdout), /key create/);
      });

      await t.step(
        "the storefront line starts the storefront with both flows working",
        async () => {
          assert.match(storefront, new RegExp(`--partner ${partnerId} .*--key ${keyId} `));
          shop = new Deno.Command("sh", {
            args: ["-c", storefront],
            cwd: ROOT,
            env,
            stdout: "piped",
            stderr: "piped",
          }).spawn();
          const dec = new TextDecoder();
          for (const stream of [shop.stdout, shop.stderr]) {
            (async () => {
              for await (const chunk of stream) shopOut += dec.decode(chunk);
            })();
          }
          await waitFor(() => shopOut, /server flow: .*\n/, "the storefront's start report");
          assert.match(shopOut, /browser flow: key \w+ allows http:\/\/127\.0\.0\.1:8100/);
          assert.match(shopOut, /server flow: the secret key mints/);
          assert.ok(
            !/sdk_\w+_\w+/.test(shopOut + server!.output()),
            "the secret is printed nowhere",
          );
        },
      );

      await t.step("the demo page at / draws the demo project", async () => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
        await page.goto(`${server!.url}/`);
        await drawn(page);
        await page.close();
      });

      const pages: Array<[string, string]> = [
        ["/", "custom element, browser flow"],
        ["/iframe.html", "hosted configurator in an iframe"],
        ["/server-flow.html", "server flow"],
      ];
      for (const [path, what] of pages) {
        await t.step(`storefront ${path} (${what}) draws the wall bracket`, async () => {
          const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
          const errors: string[] = [];
          page.on("pageerror", (e) => errors.push(String(e)));
          await page.goto(`http://127.0.0.1:8100${path}`);
          if (path === "/iframe.html") {
            const frame = page.frameLocator("#frame");
            await frame.locator('.cad-configurator[data-render-status="ready"]')
              .waitFor({ timeout: 60_000 });
            const child = page.frames().find((f) => f.url().includes("/configurator/"))!;
            await drawn(child);
          } else await drawn(page, "cad-configurator");
          await page.screenshot({
            path: `${ARTIFACTS}first_run_storefront${path.replace(/\W+/g, "_")}.png`,
          });
          assert.deepEqual(errors, []);
          await page.close();
        });
      }
    } finally {
      await browser.close();
      if (shop) {
        // The pipeline's shell runs the storefront as its child: stop that child, then the shell.
        const kids = await Deno.readTextFile(`/proc/${shop.pid}/task/${shop.pid}/children`)
          .catch(() => "");
        for (const pid of kids.trim().split(/\s+/).filter(Boolean)) {
          try {
            Deno.kill(Number(pid), "SIGTERM");
          } catch {
            // already gone
          }
        }
        try {
          shop.kill("SIGTERM");
        } catch {
          // already gone
        }
        await shop.status;
      }
      await server?.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
