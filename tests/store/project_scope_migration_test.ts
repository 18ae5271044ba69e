import assert from "node:assert/strict";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { substitute } from "@/lib/dag/substitute.ts";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { createSdkKey } from "@/lib/hub/sdk_keys.ts";
import { openKv } from "@/lib/store/kv.ts";
import { createPartner } from "@/lib/store/partners.ts";
import { migrateGlobalProjects } from "@/lib/store/project_scope_migration.ts";
import {
  createProject,
  getProject,
  listPartnerProjectSlugs,
  projectKey,
  projectOwnerKey,
} from "@/lib/store/projects.ts";
import { getProjectVersion, listProjectVersions } from "@/lib/store/project_versions.ts";
import { createTestApp } from "../_helpers/app.ts";
import { legacyKeys, writeLegacyProject, writeLegacyVersion } from "./_legacy_projects.ts";

const EXAMPLES = new URL("../../examples/projects/", import.meta.url);

async function example(name: string) {
  const dir = new URL(`${name}/`, EXAMPLES);
  return {
    template: JSON.parse(await Deno.readTextFile(new URL("template.dag.json", dir))),
    schema: JSON.parse(await Deno.readTextFile(new URL("parameters.schema.json", dir))),
  };
}

/** The example with a description long enough to spread a version over several KV chunks. */
async function bigExample(name: string) {
  const docs = await example(name);
  return { ...docs, schema: { ...docs.schema, description: "x".repeat(150_000) } };
}

/** A partner with a key for `slugs`, made while the projects existed, then stored the old way. */
async function legacyPartner(kv: Deno.Kv, slugs: string[], origin: string) {
  const partner = await createPartner(kv, "Before scoping");
  // A key lists projects that exist; in the old store they existed globally.
  for (const slug of slugs) await createProject(kv, { partnerId: partner.id, slug, title: slug });
  const { record } = await createSdkKey(kv, {
    partnerId: partner.id,
    label: "old key",
    allowedOrigins: [origin],
    allowedProjects: slugs,
  });
  for (const slug of slugs) {
    const ref = { partnerId: partner.id, slug };
    await kv.atomic().delete(projectKey(ref)).delete(projectOwnerKey(ref)).commit();
    await writeLegacyProject(kv, { partnerId: partner.id, slug, title: `Old ${slug}` });
  }
  return { partnerId: partner.id, keyId: record.keyId };
}

Deno.test("project migration - a KV file in the old global layout keeps every project, version and key at start", async (t) => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/hub.kv`;
  const origin = "https://old-shop.example";
  let partnerId: string, keyId: string;
  const gear1 = await example("spur-gear");
  const gear2 = await bigExample("spur-gear");
  const vase = await example("vase");
  {
    const kv = await openKv(path);
    ({ partnerId, keyId } = await legacyPartner(kv, ["spur-gear", "vase"], origin));
    assert.equal(await writeLegacyVersion(kv, "spur-gear", gear1), 1);
    assert.equal(await writeLegacyVersion(kv, "spur-gear", gear2), 2);
    assert.equal(await writeLegacyVersion(kv, "vase", vase), 1);
    const chunks = await Array.fromAsync(
      kv.list({ prefix: ["project_version_chunks", "spur-gear", 2] }),
    );
    assert.ok(chunks.length >= 3, `version 2 spans ${chunks.length} chunks`);
    kv.close();
  }

  const kv = await openKv(path);
  // One worker, and a queue wait long enough for it to start on a busy machine.
  const app = await createTestApp({
    kv,
    env: { RENDER_WORKERS: "1", RENDER_QUEUE_WAIT_MS: "120000" },
  });
  try {
    await t.step("start-up moved everything and left no old key", async () => {
      assert.deepEqual(await legacyKeys(kv), []);
      assert.deepEqual((await listPartnerProjectSlugs(kv, partnerId)).sort(), [
        "spur-gear",
        "vase",
      ]);
      const gear = await getProject(kv, { partnerId, slug: "spur-gear" });
      assert.equal(gear?.title, "Old spur-gear");
      assert.equal(gear?.currentVersion, 2);
      const versions = await listProjectVersions(kv, { partnerId, slug: "spur-gear" });
      assert.deepEqual(versions.map((v) => [v.version, v.partnerId]), [[1, partnerId], [
        2,
        partnerId,
      ]]);
      const v2 = await getProjectVersion(kv, { partnerId, slug: "spur-gear" }, 2);
      assert.deepEqual(v2?.schema, gear2.schema, "a multi-chunk version reads back whole");
    });

    await t.step(
      "the public read serves the migrated versions (old URL: the slug is unique)",
      async () => {
        const current = await app.request("/api/v1/projects/spur-gear");
        assert.equal(current.status, 200);
        const body = await current.json();
        assert.equal(body.version, 2);
        assert.equal(body.title, "Old spur-gear");
        assert.equal(body.schema.description.length, 150_000);
        const first = await app.request(`/api/v1/projects/spur-gear?version=1&key=${keyId}`);
        assert.equal(first.status, 200);
        assert.deepEqual((await first.json()).schema, gear1.schema);
      },
    );

    await t.step("the old key mints and renders the migrated project", async () => {
      const minted = await app.mint({ keyId, projectId: "vase" }, { origin });
      assert.equal(minted.status, 200, await minted.clone().text());
      const { token } = await minted.json();
      const dag: Dag = substitute(vase.template, validateParameterSchema(vase.schema), {});
      const res = await app.request("/v1/kernels/manifold/render", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, origin, "content-type": "application/json" },
        body: JSON.stringify({ dag }),
      });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      assert.equal(JSON.parse(text).project, "vase");
    });

    await t.step("running it again changes nothing", async () => {
      assert.deepEqual(await migrateGlobalProjects(kv), { moved: [], conflicts: [] });
      assert.equal((await getProject(kv, { partnerId, slug: "spur-gear" }))?.currentVersion, 2);
    });
  } finally {
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("project migration - two processes starting on one old file at once move each project once", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/hub.kv`;
  const go = `${dir}/go`;
  const slugs = Array.from({ length: 12 }, (_, i) => `part-${i}`);
  const gear = await bigExample("spur-gear");
  const plate = await example("stud-plate");
  let partnerId: string;
  {
    const kv = await openKv(path);
    ({ partnerId } = await legacyPartner(kv, slugs, "https://two.example"));
    for (const slug of slugs) {
      await writeLegacyVersion(kv, slug, plate);
      await writeLegacyVersion(kv, slug, gear);
    }
    kv.close();
  }
  const spawn = () =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("./_migrate_main.ts", import.meta.url).pathname, path, go],
      stdout: "piped",
      stderr: "piped",
    }).output();
  const both = Promise.all([spawn(), spawn()]);
  // Release both together once both have the file open.
  while (
    (await Array.fromAsync(Deno.readDir(dir))).filter((e) => e.name.startsWith("go.ready")).length <
      2
  ) {
    await new Promise((r) => setTimeout(r, 20));
  }
  await Deno.writeTextFile(go, "");
  const outputs = await both;
  const dec = new TextDecoder();
  const results = outputs.map((o) => {
    assert.equal(o.code, 0, dec.decode(o.stderr));
    return JSON.parse(dec.decode(o.stdout)) as { moved: string[]; conflicts: string[] };
  });
  assert.deepEqual(results.flatMap((r) => r.moved).sort(), [...slugs].sort(), "each moved once");
  assert.deepEqual(results.flatMap((r) => r.conflicts), []);
  const kv = await openKv(path);
  try {
    assert.deepEqual(await legacyKeys(kv), []);
    for (const slug of slugs) {
      const ref = { partnerId, slug };
      assert.equal((await getProject(kv, ref))?.currentVersion, 2, slug);
      assert.deepEqual((await getProjectVersion(kv, ref, 1))?.schema, plate.schema, slug);
      assert.deepEqual((await getProjectVersion(kv, ref, 2))?.schema, gear.schema, slug);
    }
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("project migration - an old record whose slug the partner already has again is kept, not overwritten", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { partnerId } = await legacyPartner(kv, ["twice"], "https://t.example");
    await writeLegacyVersion(kv, "twice", await example("vase"));
    await createProject(kv, { partnerId, slug: "twice", title: "New twice" });
    assert.deepEqual(await migrateGlobalProjects(kv), { moved: [], conflicts: ["twice"] });
    assert.equal((await getProject(kv, { partnerId, slug: "twice" }))?.title, "New twice");
    assert.equal(
      (await kv.get<{ title: string }>(["projects", "twice"])).value?.title,
      "Old twice",
    );
    assert.ok((await legacyKeys(kv)).length > 0, "the old record and its version are still there");
  } finally {
    kv.close();
  }
});

Deno.test("project migration - a project another process moves right after this one read it is not a conflict", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await openKv(`${dir}/hub.kv`);
  try {
    await legacyPartner(kv, ["part-7"], "https://race.example");
    await writeLegacyVersion(kv, "part-7", await example("stud-plate"));
    // This run's first read of the old record returns, then a rival moves the project whole
    // before this run reads anything else: the interleaving two processes hit under load.
    let rival: Awaited<ReturnType<typeof migrateGlobalProjects>> | undefined;
    const racing = new Proxy(kv, {
      get(target, name) {
        if (name !== "get") return Reflect.get(target, name).bind(target);
        return async (key: Deno.KvKey) => {
          const read = await target.get(key);
          if (rival === undefined && key[0] === "projects" && key[1] === "part-7") {
            rival = await migrateGlobalProjects(target);
          }
          return read;
        };
      },
    });
    const mine = await migrateGlobalProjects(racing);
    assert.deepEqual(rival, { moved: ["part-7"], conflicts: [] });
    assert.deepEqual(mine, { moved: [], conflicts: [] }, "moved by the rival, not a conflict");
    assert.deepEqual(await legacyKeys(kv), []);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
