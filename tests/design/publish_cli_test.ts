/** `deno task hub project publish --dir` publishes a template folder or a python-mode folder. */
import assert from "node:assert/strict";
import { AppError } from "@/lib/http/problem.ts";
import { runCli } from "@/lib/hub/cli.ts";
import { getProjectVersion } from "@/lib/store/project_versions.ts";
import { rid } from "../_helpers/server.ts";
import { PROJECTS } from "./_python.ts";

Deno.test("design - the publish CLI takes a template folder or a design.py folder", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { partnerId } = await runCli(kv, ["partner", "create", "--name", "Shelves"]) as {
      partnerId: string;
    };
    for (const [example, mode] of [["shelf", "python"], ["vase", "template"]] as const) {
      const slug = `${example}-${rid()}`;
      await runCli(kv, [
        "project",
        "create",
        "--partner",
        partnerId,
        "--slug",
        slug,
        "--title",
        slug,
      ]);
      const dir = new URL(example, PROJECTS).pathname;
      assert.deepEqual(await runCli(kv, ["project", "publish", "--slug", slug, "--dir", dir]), {
        slug,
        version: 1,
      });
      const stored = await getProjectVersion(kv, { partnerId, slug });
      assert.equal(stored?.mode, mode);
      if (mode === "python") {
        assert.equal(stored?.source, await Deno.readTextFile(`${dir}/design.py`));
        assert.equal(stored?.template, null);
      } else {
        assert.equal(stored?.source, null);
        assert.equal((stored?.template as { dag: number }).dag, 1);
      }
    }
    const empty = await Deno.makeTempDir();
    try {
      await Deno.writeTextFile(`${empty}/parameters.schema.json`, "{}");
      await assert.rejects(
        runCli(kv, ["project", "publish", "--slug", "x", "--dir", empty]),
        /neither template\.dag\.json nor design\.py/,
      );
    } finally {
      await Deno.remove(empty, { recursive: true });
    }
  } finally {
    kv.close();
  }
});

Deno.test("design - publishing with the two files swapped says so, and publishes nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  const dir = await Deno.makeTempDir();
  try {
    const { partnerId } = await runCli(kv, ["partner", "create", "--name", "Swapped"]) as {
      partnerId: string;
    };
    const slug = `vase-${rid()}`;
    await runCli(kv, ["project", "create", "--partner", partnerId, "--slug", slug, "--title", "V"]);
    const example = new URL("vase/", PROJECTS);
    await Deno.copyFile(new URL("template.dag.json", example), `${dir}/parameters.schema.json`);
    await Deno.copyFile(new URL("parameters.schema.json", example), `${dir}/template.dag.json`);
    const err = await runCli(kv, ["project", "publish", "--slug", slug, "--dir", dir]).then(
      () => assert.fail("published swapped files"),
      (e) => e,
    );
    assert.ok(err instanceof AppError);
    assert.equal(err.code, "invalid_parameter_schema");
    assert.equal(err.extensions.reason, "files_swapped");
    assert.equal(err.extensions.file, "parameters.schema.json");
    assert.match(err.message, /swapped/);
    assert.equal(await getProjectVersion(kv, { partnerId, slug }), null);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
