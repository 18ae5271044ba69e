/**
 * The public project document: a published version's JSON, serialized once per process and served
 * as a coded asset (strong ETag of its bytes, 304, codings), the current version followed at once
 * after a publish, and a project's new title served at once.
 */
import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { assetRequest } from "@/lib/http/coded_asset.ts";
import { AppError } from "@/lib/http/problem.ts";
import { projectDocumentResponse } from "@/lib/hub/project_document.ts";
import { publishProject } from "@/lib/hub/publish.ts";
import { getProject, projectKey } from "@/lib/store/projects.ts";
import { publishFixture, readProjectFixture } from "../_helpers/projects.ts";
import { withMemoryKv } from "../_helpers/memory_kv.ts";

const partnerId = "prt_document_test";

/** GET of the document of `slug` (`version` named or current) with `headers`. */
function get(
  kv: Deno.Kv,
  slug: string,
  headers: Record<string, string> = {},
  version?: number,
): Promise<Response> {
  return projectDocumentResponse(kv, {
    slug,
    scope: { partner: partnerId },
    version,
    asset: assetRequest(new Request("http://hub.test/api/v1/projects/x", { headers })),
  });
}

async function json(res: Response): Promise<Record<string, unknown>> {
  assert.equal(res.status, 200);
  return await res.json();
}

Deno.test(
  "project document - the version's JSON, a strong ETag of its bytes, and 304",
  withMemoryKv(async (kv) => {
    await publishFixture(kv, partnerId, "doc-etag");
    const { template, schema } = await readProjectFixture("plate");
    const res = await get(kv, "doc-etag");
    assert.match(res.headers.get("etag")!, /^"[0-9a-f]{32}"$/);
    assert.equal(res.headers.get("cache-control"), "public, max-age=60");
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.equal(res.headers.get("access-control-expose-headers"), "etag");
    assert.equal(res.headers.get("content-type"), "application/json");
    const etag = res.headers.get("etag")!;
    assert.deepEqual(await json(res), {
      slug: "doc-etag",
      title: "Fixture plate",
      version: 1,
      mode: "template",
      template,
      schema,
    });
    const again = await get(kv, "doc-etag", { "if-none-match": etag });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get("access-control-allow-origin"), "*");
    const gzip = await get(kv, "doc-etag", { "accept-encoding": "gzip" });
    assert.equal(gzip.headers.get("content-encoding"), "gzip");
    assert.equal(gzip.headers.get("etag"), etag.replace(/"$/, '-gz"'));
    const decoded = JSON.parse(new TextDecoder().decode(gunzipSync(await gzip.bytes())));
    assert.equal(decoded.title, "Fixture plate");
    const named = await get(kv, "doc-etag", {}, 1);
    assert.equal(named.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(named.headers.get("etag"), etag, "the same bytes as the current version");
    await named.body?.cancel();
  }),
);

Deno.test(
  "project document - a version's records are read once per process; a publish and a new title are seen at once",
  withMemoryKv(async (kv) => {
    await publishFixture(kv, partnerId, "doc-cache");
    const first = await json(await get(kv, "doc-cache"));
    // The version's chunks gone from KV: the document is served from the process's copy.
    for await (const e of kv.list({ prefix: ["partner_project_chunks", partnerId, "doc-cache"] })) {
      await kv.delete(e.key);
    }
    assert.deepEqual(await json(await get(kv, "doc-cache")), first);

    const plate = await readProjectFixture("plate");
    const schema = { ...(plate.schema as Record<string, unknown>), description: "Version two." };
    await publishProject(kv, "doc-cache", { ...plate, schema }, { partnerId });
    const second = await json(await get(kv, "doc-cache"));
    assert.equal(second.version, 2, "the current version follows the project record at once");
    assert.deepEqual(second.schema, schema);
    assert.equal((await json(await get(kv, "doc-cache", {}, 1))).version, 1);

    const ref = { partnerId, slug: "doc-cache" };
    const project = (await getProject(kv, ref))!;
    await kv.set(projectKey(ref), { ...project, title: "Renamed" });
    const renamed = await json(await get(kv, "doc-cache"));
    assert.equal(renamed.title, "Renamed");
    assert.equal(renamed.version, 2);
  }),
);

Deno.test(
  "project document - no such project or version is unknown_project_version",
  withMemoryKv(async (kv) => {
    await publishFixture(kv, partnerId, "doc-missing");
    for (const [slug, version] of [["doc-missing", 7], ["no-such-project", undefined]] as const) {
      await assert.rejects(get(kv, slug, {}, version), (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.code, "unknown_project_version");
        return true;
      });
    }
  }),
);
