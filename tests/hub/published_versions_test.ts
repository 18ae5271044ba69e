/**
 * Published versions read once per process: the version's records are read once and shared
 * frozen, the current version follows the project record at once, a project made again under
 * its slug is read afresh, and a version not published yet is asked again next time.
 */
import assert from "node:assert/strict";
import { publishedVersion, versionSchema } from "@/lib/hub/published_versions.ts";
import { publishProject } from "@/lib/hub/publish.ts";
import { getProject, projectKey } from "@/lib/store/projects.ts";
import { publishFixture, readProjectFixture } from "../_helpers/projects.ts";
import { withMemoryKv } from "../_helpers/memory_kv.ts";

const partnerId = "prt_versions_test";

async function dropChunks(kv: Deno.Kv, slug: string): Promise<void> {
  for await (const e of kv.list({ prefix: ["partner_project_chunks", partnerId, slug] })) {
    await kv.delete(e.key);
  }
}

Deno.test(
  "published versions - read once, shared frozen; the current one follows a publish",
  withMemoryKv(async (kv) => {
    const ref = { partnerId, slug: "pv-once" };
    assert.equal(await publishedVersion(kv, ref), null, "no such project");
    await publishFixture(kv, partnerId, ref.slug);
    const first = (await publishedVersion(kv, ref))!;
    assert.equal(first.version.version, 1);
    assert.equal(first.project.title, "Fixture plate");
    assert.ok(Object.isFrozen(first.version.template), "shared by every caller: frozen");
    assert.ok(Object.isFrozen((first.version.schema as { properties: object }).properties));
    const schema = versionSchema(first.version)!;
    assert.ok(schema.parameters.length > 0);
    assert.equal(versionSchema(first.version), schema, "validated once");

    await dropChunks(kv, ref.slug);
    const again = (await publishedVersion(kv, ref))!;
    assert.equal(again.version, first.version, "the records are not read again");

    const plate = await readProjectFixture("plate");
    const changed = { ...(plate.schema as Record<string, unknown>), description: "Version two." };
    await publishProject(kv, ref.slug, { ...plate, schema: changed }, { partnerId });
    const second = (await publishedVersion(kv, ref))!;
    assert.equal(second.version.version, 2, "the project record says which is current");
    assert.deepEqual(second.version.schema, changed);
    assert.equal((await publishedVersion(kv, ref, 1))!.version, first.version);
    assert.equal(await publishedVersion(kv, ref, 3), null, "no version 3");
  }),
);

Deno.test(
  "published versions - a project made again under its slug is read afresh; a missing version is asked again",
  withMemoryKv(async (kv) => {
    const ref = { partnerId, slug: "pv-again" };
    await publishFixture(kv, partnerId, ref.slug);
    const first = (await publishedVersion(kv, ref))!;
    assert.equal(await publishedVersion(kv, ref, 2), null);
    const plate = await readProjectFixture("plate");
    const changed = { ...(plate.schema as Record<string, unknown>), description: "Later." };
    await publishProject(kv, ref.slug, { ...plate, schema: changed }, { partnerId });
    assert.deepEqual(
      (await publishedVersion(kv, ref, 2))!.version.schema,
      changed,
      "a version that was not there is read once it is",
    );

    const project = (await getProject(kv, ref))!;
    await kv.set(projectKey(ref), { ...project, createdAt: project.createdAt + 1 });
    const fresh = (await publishedVersion(kv, ref, 1))!;
    assert.notEqual(fresh.version, first.version, "another project under the same slug");
    assert.deepEqual(fresh.version.template, first.version.template);
  }),
);
