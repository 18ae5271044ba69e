/**
 * Render responses on the wire, from a real server (issue 15): the form follows `Accept` (JSON by
 * default, the binary form for `application/vnd.cad-render`), the coding follows
 * `Accept-Encoding` (brotli preferred, gzip, or none) with `Vary: Accept, Accept-Encoding, Origin`;
 * compressed bodies decompress to the identity bytes' members, and `have`/`omitted` work the same
 * in both forms. Bytes are read with node:http, which does not decompress.
 */
import assert from "node:assert/strict";
import http from "node:http";
import zlib from "node:zlib";
import { createKeyFixture, mint, startTestServer } from "../_helpers/server.ts";
import { finishedDag, publishFixture } from "../_helpers/projects.ts";
import { decodeRenderBody } from "@/lib/client/render_body.ts";
import { RENDER_BINARY_TYPE } from "@/lib/dag/render_binary.ts";
import { negotiateRenderForm } from "@/lib/render/render_form.ts";

const RENDER = "/v1/kernels/manifold/render";

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: Uint8Array;
}

/** POSTs and returns the body bytes exactly as sent (no content decoding). */
function post(url: string, headers: Record<string, string>, body: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers }, (res) => {
      const chunks: Uint8Array[] = [];
      res.on("data", (c: Uint8Array) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          bytes: new Uint8Array(Buffer.concat(chunks)),
        }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

function identity(raw: Raw): Uint8Array {
  const coding = raw.headers["content-encoding"];
  if (coding === "br") return new Uint8Array(zlib.brotliDecompressSync(raw.bytes));
  if (coding === "gzip") return new Uint8Array(zlib.gunzipSync(raw.bytes));
  assert.equal(coding, undefined);
  return raw.bytes;
}

Deno.test("render wire - Accept picks the form", () => {
  assert.equal(negotiateRenderForm(null), "json");
  assert.equal(negotiateRenderForm("*/*"), "json");
  assert.equal(negotiateRenderForm("application/json"), "json");
  assert.equal(negotiateRenderForm(RENDER_BINARY_TYPE), "binary");
  assert.equal(negotiateRenderForm(`${RENDER_BINARY_TYPE}, application/json;q=0.5`), "binary");
  assert.equal(negotiateRenderForm(`${RENDER_BINARY_TYPE};q=0.4, application/json`), "json");
  assert.equal(negotiateRenderForm(`${RENDER_BINARY_TYPE};q=0`), "json");
});

Deno.test("render wire - forms, codings, Vary and have/omitted on real responses", async (t) => {
  const server = await startTestServer();
  try {
    const f = await createKeyFixture(server.deps.kv, { budget: 100 });
    await publishFixture(server.deps.kv, f.partnerId, f.project);
    const minted = await mint(server.url, { keyId: f.keyId, projectId: f.project }, {
      origin: f.origin,
    });
    const { token } = await minted.json();
    const dag = await finishedDag("plate", { width: 100, holes: 3 });
    const ask = (accept: string | null, encoding: string, have?: string[]) => {
      const headers: Record<string, string> = {
        "content-type": "application/json",
        authorization: `Bearer ${token}`,
        origin: f.origin,
        "accept-encoding": encoding,
      };
      if (accept) headers.accept = accept;
      return post(server.url + RENDER, headers, JSON.stringify(have ? { dag, have } : { dag }));
    };
    const geometry = async (raw: Raw) => {
      const body = await decodeRenderBody(identity(raw));
      const { meshes, cache: _cache, budget: _budget, ...rest } = body;
      return { rest, meshes: [...meshes] };
    };

    let reference: Awaited<ReturnType<typeof geometry>> | undefined;
    for (
      const [accept, type] of [[null, "application/json"], [RENDER_BINARY_TYPE, RENDER_BINARY_TYPE]]
    ) {
      for (
        // In either form, a client that prefers brotli but takes gzip gets gzip until the dense
        // brotli prefix is ready (made off the request path once the scene is asked for again);
        // a client that takes only brotli gets brotli at once.
        const [encoding, coding] of [
          ["gzip, deflate, br, zstd", "gzip"],
          ["br", "br"],
          ["gzip", "gzip"],
          ["identity", undefined],
        ]
      ) {
        await t.step(`${accept ?? "no Accept"}, Accept-Encoding ${encoding}`, async () => {
          const raw = await ask(accept, encoding!);
          assert.equal(raw.status, 200, new TextDecoder().decode(raw.bytes).slice(0, 300));
          assert.equal(raw.headers["content-type"], type);
          assert.equal(raw.headers["content-encoding"], coding);
          assert.equal(raw.headers["vary"], "Accept, Accept-Encoding, Origin");
          assert.equal(raw.headers["access-control-allow-origin"], f.origin);
          const got = await geometry(raw);
          reference ??= got;
          assert.deepEqual(
            got,
            reference,
            "the same members and geometry in every form and coding",
          );
        });
      }
    }

    await t.step(
      "a client that prefers brotli gets it once the dense prefix is ready",
      async () => {
        for (const accept of [null, RENDER_BINARY_TYPE]) {
          let raw = await ask(accept, "gzip, deflate, br, zstd");
          // The dense coding runs on the compression thread: ask again until it is in.
          for (let i = 0; i < 400 && raw.headers["content-encoding"] !== "br"; i++) {
            await new Promise((resolve) => setTimeout(resolve, 10));
            raw = await ask(accept, "gzip, deflate, br, zstd");
          }
          assert.equal(raw.headers["content-encoding"], "br");
          assert.deepEqual(await geometry(raw), reference);
        }
      },
    );

    await t.step("have: held meshes are omitted, in both forms and codings", async () => {
      const feet = reference!.rest.scene.parts[1].mesh;
      const plate = reference!.rest.scene.parts[0].mesh;
      for (const accept of [null, RENDER_BINARY_TYPE]) {
        for (const encoding of ["br", "gzip", "identity"]) {
          const raw = await ask(accept, encoding, [feet]);
          const body = await decodeRenderBody(identity(raw));
          assert.deepEqual(body.omitted, [feet]);
          assert.deepEqual([...body.meshes.keys()], [plate]);
          assert.equal(body.cache, "l1");
          assert.deepEqual(
            body.meshes.get(plate),
            reference!.meshes.find(([h]) => h === plate)![1],
          );
        }
      }
    });
  } finally {
    await server.close();
  }
});
