import assert from "node:assert/strict";
import { createSdkKey, revokeSdkKey } from "@/lib/hub/sdk_keys.ts";
import { generatePartnerKey, secretForKeyId } from "@/lib/hub/partner_key.ts";
import { startTestServer, type TestServer } from "../_helpers/server.ts";
import { expectProblem, setupRender } from "../render/render_helpers.ts";

const HAND_OFF = "/api/v1/production-files";

/** A configured plate signed by the hub, as a storefront's browser gets it from its token. */
async function signedConfiguration(server: TestServer, s: { token: string; origin: string }) {
  const res = await fetch(`${server.url}/sdk/v1/configurations`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${s.token}`,
      origin: s.origin,
      "content-type": "application/json",
    },
    body: JSON.stringify({ values: { width: 120, holes: 2 } }),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text) as { configuration: string; payload: Record<string, unknown> };
}

function handOff(server: TestServer, key: string | null, body: unknown): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  return fetch(`${server.url}${HAND_OFF}`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
}

Deno.test("production files - a partner backend fetches the 3MF of a signed configuration with its secret", async (t) => {
  const server = await startTestServer();
  try {
    const s = await setupRender(server.deps.kv, server.url);
    const { configuration, payload } = await signedConfiguration(server, s);

    await t.step("the signed configuration says where and in which formats", () => {
      assert.deepEqual(payload.production, {
        url: `${server.config.hubUrl}${HAND_OFF}`,
        formats: ["glb", "stl", "3mf"],
      });
    });

    await t.step("the key's secret gets the 3MF of exactly that configuration", async () => {
      const res = await handOff(server, s.key, { configuration, format: "3mf" });
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(res.headers.get("content-type"), "model/3mf");
      assert.equal(
        res.headers.get("content-disposition"),
        `attachment; filename="${s.project}-v1-${String(payload.dagHash).slice(0, 12)}.3mf"`,
      );
      const zip = new Uint8Array(await res.arrayBuffer());
      assert.deepEqual([...zip.subarray(0, 4)], [0x50, 0x4b, 0x03, 0x04]);
    });

    await t.step(
      "STL too; the same export through a token stays refused (browser: GLB only)",
      async () => {
        const res = await handOff(server, s.key, { configuration, format: "stl" });
        assert.equal(res.status, 200);
        const stl = new Uint8Array(await res.arrayBuffer());
        assert.equal(stl.length, 84 + 50 * new DataView(stl.buffer).getUint32(80, true));
      },
    );

    const bad: Array<[string, string | null, unknown, number, string, string?]> = [
      ["no credential", null, { configuration, format: "3mf" }, 401, "unauthenticated"],
      ["a malformed key", "sdk_nope", { configuration, format: "3mf" }, 401, "invalid_key_format"],
      ["an unknown format", s.key, { configuration, format: "obj" }, 422, "validation_failed"],
      [
        "a tampered configuration",
        s.key,
        { configuration: configuration.slice(0, -4) + "AAAA", format: "3mf" },
        422,
        "invalid_configuration",
        "invalid_signature",
      ],
      [
        "junk",
        s.key,
        { configuration: "a.b.c", format: "3mf" },
        422,
        "invalid_configuration",
        "malformed",
      ],
    ];
    for (const [name, key, body, status, code, reason] of bad) {
      await t.step(`refused: ${name} (${code})`, async () => {
        const problem = await expectProblem(await handOff(server, key, body), status, code);
        if (reason) assert.equal(problem.reason, reason);
      });
    }

    await t.step(
      "refused: a wrong secret for the key; another key of the partner is fine",
      async () => {
        const other = await createSdkKey(server.deps.kv, {
          partnerId: s.partnerId,
          label: "other",
          allowedOrigins: [s.origin],
          allowedProjects: [s.project],
        });
        const forged =
          (await secretForKeyId(s.keyId, (await generatePartnerKey()).secret)).plaintext;
        await expectProblem(
          await handOff(server, forged, { configuration, format: "3mf" }),
          401,
          "invalid_credentials",
        );
        // Another key of the same partner that allows the project is fine.
        const res = await handOff(server, other.key, { configuration, format: "3mf" });
        assert.equal(res.status, 200);
        await res.body?.cancel();
      },
    );

    await t.step("refused: another partner's key (configuration_not_owned)", async () => {
      const stranger = await setupRender(server.deps.kv, server.url);
      await expectProblem(
        await handOff(server, stranger.key, { configuration, format: "3mf" }),
        403,
        "configuration_not_owned",
      );
    });

    await t.step("refused: a key that does not allow its server flow 3MF", async () => {
      const glbOnly = await createSdkKey(server.deps.kv, {
        partnerId: s.partnerId,
        label: "glb only",
        allowedOrigins: [s.origin],
        allowedProjects: [s.project],
        exportFormats: { browser: ["glb"], server: ["glb"] },
      });
      const problem = await expectProblem(
        await handOff(server, glbOnly.key, { configuration, format: "3mf" }),
        403,
        "export_format_not_allowed",
      );
      assert.equal(problem.flow, "server");
    });

    await t.step("refused: a revoked key", async () => {
      await revokeSdkKey(server.deps.kv, s.keyId);
      server.deps.hub!.keys.invalidate(s.keyId);
      await expectProblem(
        await handOff(server, s.key, { configuration, format: "3mf" }),
        401,
        "key_revoked",
      );
    });
  } finally {
    await server.close();
  }
});

Deno.test("production files - an expired configuration is refused", async () => {
  let now = Date.now();
  const server = await startTestServer({ clock: () => now });
  try {
    const s = await setupRender(server.deps.kv, server.url);
    const { configuration } = await signedConfiguration(server, s);
    now += 25 * 3600 * 1000;
    const problem = await expectProblem(
      await handOff(server, s.key, { configuration, format: "3mf" }),
      422,
      "invalid_configuration",
    );
    assert.equal(problem.reason, "expired");
  } finally {
    await server.close();
  }
});
