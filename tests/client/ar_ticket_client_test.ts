/**
 * "View in AR" on Android with a kernel AR ticket (docs/embedding.md, View in AR): the render
 * client asks the kernel for a ticket of the scene on screen with the session's token, and
 * `viewInAr` opens the Scene Viewer intent whose `file` is the ticket's URL, which serves the GLB
 * without a token. A key that keeps GLB from session tokens refuses with a clear error.
 */
import assert from "node:assert/strict";
import { ArError, viewInAr } from "@/lib/client/ar_launch.ts";
import { RenderError } from "@/lib/client/problem.ts";
import { RenderClient } from "@/lib/client/render_client.ts";
import { SessionClient } from "@/lib/client/session_client.ts";
import { settledResult } from "@/lib/client/snapshot.ts";
import type { CreateSdkKeyInput } from "@/lib/hub/sdk_keys.ts";
import { publishFixture } from "../_helpers/projects.ts";
import { createKeyFixture, startTestServer, type TestServer } from "../_helpers/server.ts";

const PAGE = "https://shop.example/product";

/** A browser's fetch: adds the page's Origin, which Deno's fetch does not. */
function browserFetch(origin: string): typeof fetch {
  return ((input: RequestInfo | URL, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("origin", origin);
    return fetch(input, { ...init, headers });
  }) as typeof fetch;
}

async function withClient(
  server: TestServer,
  key: Partial<CreateSdkKeyInput>,
  fn: (renderer: RenderClient) => Promise<void>,
): Promise<void> {
  const k = await createKeyFixture(server.deps.kv, key);
  await publishFixture(server.deps.kv, k.partnerId, k.project);
  const net = browserFetch(k.origin);
  const session = new SessionClient({
    keyId: k.keyId,
    projectKey: k.project,
    hubBaseUrl: server.url,
    fetch: net,
  });
  const renderer = new RenderClient({ baseUrl: server.url, session, fetch: net });
  try {
    await renderer.loadProject(k.project);
    await fn(renderer);
  } finally {
    renderer.dispose();
    session.dispose();
  }
}

/** The `file` parameter of a Scene Viewer intent URL. */
function intentFile(url: string): string {
  const m = /^intent:\/\/arvr\.google\.com\/scene-viewer\/1\.0\?([^#]*)#Intent;/.exec(url);
  assert.ok(m, url);
  return new URLSearchParams(m[1]).get("file")!;
}

Deno.test("ar ticket client - Android opens Scene Viewer on the kernel's ticket URL, which serves the GLB with no token", async (t) => {
  const server = await startTestServer();
  try {
    await t.step("the ticket of the scene on screen goes into the intent URL", async () => {
      await withClient(server, { budget: 5 }, async (renderer) => {
        await assert.rejects(renderer.arTicket(), (err: unknown) => {
          assert.ok(err instanceof RenderError);
          assert.equal(err.code, "no_scene");
          return true;
        });
        await renderer.render({ width: 90 });
        const opened: string[] = [];
        const launch = await viewInAr({
          mode: "scene-viewer",
          scene: () => settledResult(renderer.state),
          glbUrl: async () => (await renderer.arTicket()).url,
          title: "Plate",
          fallbackUrl: PAGE,
          open: (u) => opened.push(u),
        });
        assert.deepEqual(opened, [launch.url]);
        const file = intentFile(launch.url);
        assert.match(
          file,
          new RegExp(`^${server.config.kernelUrl}/v1/kernels/manifold/ar/[A-Za-z0-9_-]{22}\\.glb$`),
        );
        // The render and the ticket spent one unit each.
        assert.equal(renderer.state.value.budgetRemaining, 3);
        // What Scene Viewer does: a plain GET, no token, no Origin.
        const res = await fetch(`${server.url}${new URL(file).pathname}`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-type"), "model/gltf-binary");
        const glb = new Uint8Array(await res.arrayBuffer());
        assert.equal(new TextDecoder().decode(glb.subarray(0, 4)), "glTF");
      });
    });

    await t.step("a key that keeps GLB from session tokens: a clear error", async () => {
      await withClient(
        server,
        { exportFormats: { browser: [], server: ["glb"] } },
        async (renderer) => {
          await renderer.render({});
          const opened: string[] = [];
          await assert.rejects(
            viewInAr({
              mode: "scene-viewer",
              scene: () => settledResult(renderer.state),
              glbUrl: async () => (await renderer.arTicket()).url,
              fallbackUrl: PAGE,
              open: (u) => opened.push(u),
            }),
            (err: unknown) => {
              assert.ok(err instanceof ArError);
              assert.equal(err.code, "ar_model_unavailable");
              assert.match(err.message, /does not allow glb exports/);
              assert.ok(err.cause instanceof RenderError);
              assert.equal((err.cause as RenderError).code, "export_format_not_allowed");
              return true;
            },
          );
          assert.deepEqual(opened, []);
        },
      );
    });
  } finally {
    await server.close();
  }
});
