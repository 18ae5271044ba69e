/**
 * The demo seed: an older store brought up to date without undoing the partner's changes, and two
 * starts at once on one store seeding one demo.
 */
import assert from "node:assert/strict";
import { cp } from "node:fs/promises";
import { demoOrigins, type DemoRecord, seedDemo } from "@/lib/hub/demo_seed.ts";
import { readProjectDir } from "@/lib/hub/project_dir.ts";
import { publishProject } from "@/lib/hub/publish.ts";
import { listPartners } from "@/lib/store/partners.ts";
import { getProjectVersion, listProjectVersions } from "@/lib/store/project_versions.ts";
import { getSdkKey, listPartnerSdkKeys, updateSdkKey } from "@/lib/store/sdk_keys.ts";
import { openKv } from "@/lib/store/kv.ts";

const EXAMPLES = new URL("../../examples/projects/", import.meta.url);
const HUB = "http://localhost:8000";

/** A copy of the examples (only `only`, when given) that a test may change. */
async function examplesCopy(only?: string[]): Promise<URL> {
  const dir = await Deno.makeTempDir({ prefix: "demo-examples-" });
  for await (const e of Deno.readDir(EXAMPLES)) {
    if (e.isDirectory && (!only || only.includes(e.name))) {
      await cp(new URL(e.name, EXAMPLES).pathname, `${dir}/${e.name}`, { recursive: true });
    }
  }
  return new URL(`file://${dir}/`);
}

Deno.test("demo seed - the demo key allows the server's origins and the storefront's", () => {
  assert.deepEqual(demoOrigins("http://localhost:8000", 8000), [
    "http://localhost:8000",
    "http://127.0.0.1:8000",
    "http://127.0.0.1:8100",
    "http://localhost:8100",
  ]);
});

Deno.test("demo seed - a store seeded by an earlier version gets the new projects and origins", async () => {
  const kv = await Deno.openKv(":memory:");
  const old = await examplesCopy(["vase", "wall-bracket"]);
  try {
    // What an earlier version left: two projects, the server's origins, a record of ids only.
    const first = await seedDemo(kv, [HUB, "http://127.0.0.1:8000"], old);
    await kv.set(["demo"], { partnerId: first.partnerId, keyId: first.keyId });
    // A project the partner published over an example stays current.
    const own = await readProjectDir(new URL("vase/", old));
    (own.schema as { title: string }).title = "Our own vase";
    await publishProject(kv, "vase", own, { partnerId: first.partnerId });

    const now = await seedDemo(kv, demoOrigins(HUB, 8000));
    assert.equal(now.partnerId, first.partnerId);
    assert.equal(now.keyId, first.keyId);
    assert.equal(now.created, false);
    const key = await getSdkKey(kv, now.keyId);
    assert.deepEqual(new Set(key!.allowedOrigins), new Set(demoOrigins(HUB, 8000)));
    assert.deepEqual(new Set(key!.allowedProjects), new Set(now.projects));
    assert.ok(now.projects.includes("spur-gear") && now.projects.includes("shelf"));
    const vase = await getProjectVersion(kv, { partnerId: now.partnerId, slug: "vase" });
    assert.equal((vase!.schema as { title: string }).title, "Our own vase");
    assert.equal(vase!.version, 2);
    assert.equal((await listPartners(kv)).filter((p) => p.name === "Demo Partner").length, 1);
  } finally {
    kv.close();
    await Deno.remove(old.pathname, { recursive: true });
  }
});

Deno.test("demo seed - what the partner removed stays removed; a changed example is republished", async () => {
  const kv = await Deno.openKv(":memory:");
  const dir = await examplesCopy();
  try {
    const origins = demoOrigins(HUB, 8000);
    const seed = await seedDemo(kv, origins, dir);
    await updateSdkKey(kv, seed.keyId, (r) => ({
      ...r,
      allowedOrigins: r.allowedOrigins.filter((o) => o !== "http://localhost:8100"),
      allowedProjects: r.allowedProjects.filter((p) => p !== "stud-plate"),
    }));
    // The example changes on disk while the current version is still the seed's own.
    const schemaFile = new URL("wall-bracket/parameters.schema.json", dir);
    const schema = JSON.parse(await Deno.readTextFile(schemaFile));
    schema.description = "Changed in the example folder.";
    await Deno.writeTextFile(schemaFile, JSON.stringify(schema, null, 2));

    const again = await seedDemo(kv, origins, dir);
    const key = await getSdkKey(kv, again.keyId);
    assert.ok(!key!.allowedOrigins.includes("http://localhost:8100"));
    assert.ok(!key!.allowedProjects.includes("stud-plate"));
    assert.ok(key!.allowedProjects.includes("wall-bracket"));
    const ref = { partnerId: seed.partnerId, slug: "wall-bracket" };
    assert.equal((await listProjectVersions(kv, ref)).length, 2);
    const current = await getProjectVersion(kv, ref);
    assert.equal((current!.schema as { description: string }).description, schema.description);
    // A third start with nothing new publishes nothing.
    await seedDemo(kv, origins, dir);
    assert.equal((await listProjectVersions(kv, ref)).length, 2);
    const record = (await kv.get<DemoRecord>(["demo"])).value!;
    assert.ok(record.offered!.origins.includes("http://localhost:8100"));
  } finally {
    kv.close();
    await Deno.remove(dir.pathname, { recursive: true });
  }
});

Deno.test("demo seed - two processes starting at once on one store seed one demo", async () => {
  const dir = await Deno.makeTempDir({ prefix: "demo-seed-" });
  const a = await openKv(`${dir}/hub.kv`);
  const b = await openKv(`${dir}/hub.kv`);
  try {
    const origins = demoOrigins(HUB, 8000);
    const [x, y] = await Promise.all([seedDemo(a, origins), seedDemo(b, origins)]);
    assert.equal(x.partnerId, y.partnerId);
    assert.equal(x.keyId, y.keyId);
    assert.deepEqual([x.created, y.created].sort(), [false, true]);
    assert.equal((await listPartners(a)).filter((p) => p.name === "Demo Partner").length, 1);
    assert.equal((await listPartnerSdkKeys(a, x.partnerId)).length, 1);
    const ref = { partnerId: x.partnerId, slug: "spur-gear" };
    assert.equal((await listProjectVersions(a, ref)).length, 1);
    assert.equal((await a.get(["demo", "seed_lease"])).value, null, "the lease is released");
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});
