/**
 * Python-mode designs publish from the settings: the shelf example's design.py and schema
 * uploaded on the project page become a python-mode version; refused uploads show the problem the
 * CLI (`project publish --dir`) gives for the same files — code, file, pointer and reason.
 */
import assert from "node:assert/strict";
import { runCli } from "@/lib/hub/cli.ts";
import { toAppError } from "@/lib/http/problem.ts";
import { createTestApp } from "../_helpers/app.ts";
import type { SettingsClient } from "./_client.ts";
import { setUpPartner } from "./_setup.ts";

const SHELF = new URL("../../examples/projects/shelf/", import.meta.url);

/** Posts the python form with `files` (field → [file name, text]); null leaves a field out. */
async function upload(
  client: SettingsClient,
  slug: string,
  files: { source?: [string, string] | null; schema?: [string, string] | null },
  csrf = client.csrf,
): Promise<Response> {
  const form = new FormData();
  form.set("_csrf", csrf);
  for (const field of ["source", "schema"] as const) {
    const f = files[field];
    if (f === null) continue;
    // A browser sends a part with an empty file name when no file was chosen.
    form.set(field, f ? new File([f[1]], f[0]) : new File([], ""));
  }
  return await client.fetch(`${client.baseUrl}/settings/projects/${slug}/publish-python`, {
    method: "POST",
    headers: { cookie: client.cookie, origin: client.baseUrl, "sec-fetch-site": "same-origin" },
    body: form,
    redirect: "manual",
  });
}

/** The problem the page shows: the error box's data attributes. */
function shownProblem(html: string): Record<string, string> {
  const box = /<div[^>]*id="publish-python-error"[^>]*>/.exec(html)?.[0];
  assert.ok(box, `an error box in ${html.slice(0, 400)}`);
  const out: Record<string, string> = {};
  // An empty value may be written as a bare attribute.
  for (const m of box.matchAll(/data-([a-z]+)(?:="([^"]*)")?/g)) {
    out[m[1]] = (m[2] ?? "").replaceAll("&quot;", '"').replaceAll("&amp;", "&");
  }
  return out;
}

Deno.test("publish python - the shelf's files publish a python-mode version from the form", async () => {
  const app = await createTestApp();
  try {
    const a = await setUpPartner(app.url, "Alpha", app.fetch);
    const page = await a.client.html(`/settings/projects/${a.project}`);
    assert.match(page, /action="\/settings\/projects\/[a-z0-9-]+\/publish-python"/);
    assert.match(page, /name="source"/);
    const source = await Deno.readTextFile(new URL("design.py", SHELF));
    const schema = await Deno.readTextFile(new URL("parameters.schema.json", SHELF));
    const res = await upload(a.client, a.project, {
      source: ["design.py", source],
      schema: ["parameters.schema.json", schema],
    });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), `/settings/projects/${a.project}?published=2`);
    // What the hub now serves for the project: the uploaded source and schema, python mode.
    const read = await app.request(`/api/v1/projects/${a.project}`);
    const v = await read.json();
    assert.equal(read.status, 200, JSON.stringify(v));
    assert.equal(v.version, 2);
    assert.equal(v.mode, "python");
    assert.equal(v.source, source);
    assert.deepEqual(v.schema, JSON.parse(schema));
    assert.equal(v.template ?? null, null);
    const after = await a.client.html(`/settings/projects/${a.project}?published=2`);
    assert.match(after, /Published version 2/);
    assert.match(after, /<td>python<\/td>/);
    const audit = await (await a.client.get("/settings/audit?format=json")).text();
    assert.match(audit, /"project\.publish"/);
    assert.match(audit, /"mode":"python"/);
    // The preview says plainly why it cannot draw a python-mode version.
    const preview = await a.client.post(`/settings/projects/${a.project}`, { action: "preview" });
    const html = await preview.text();
    assert.equal(preview.status, 200);
    assert.match(html, /python-mode design/);
    assert.ok(!html.includes('id="preview-picture"'));
  } finally {
    await app.close();
  }
});

Deno.test("publish python - refused uploads show the CLI's problem for the same files", async (t) => {
  const app = await createTestApp();
  try {
    const a = await setUpPartner(app.url, "Alpha", app.fetch);
    await a.client.html(`/settings/projects/${a.project}`);
    const source = await Deno.readTextFile(new URL("design.py", SHELF));
    const schema = JSON.parse(await Deno.readTextFile(new URL("parameters.schema.json", SHELF)));
    const badBounds = structuredClone(schema);
    badBounds.properties.boards.minimum = 99;
    const cases: Array<[string, string, string]> = [
      ["schema not JSON", source, "{ not json"],
      ["schema min above max", source, JSON.stringify(badBounds)],
      ["schema not an object", source, "[1, 2]"],
      ["empty design.py", "", JSON.stringify(schema)],
      ["design.py too large", "#".repeat(256 * 1024 + 1), JSON.stringify(schema)],
    ];
    for (const [name, design, schemaText] of cases) {
      await t.step(name, async () => {
        // The CLI, on a folder holding the same two files.
        const dir = await Deno.makeTempDir();
        let cli: Record<string, unknown> | undefined;
        try {
          await Deno.writeTextFile(`${dir}/design.py`, design);
          await Deno.writeTextFile(`${dir}/parameters.schema.json`, schemaText);
          await runCli(app.deps.kv, [
            "project",
            "publish",
            "--slug",
            a.project,
            "--dir",
            dir,
          ]);
        } catch (err) {
          const e = toAppError(err);
          cli = { code: e.code, status: e.status, ...e.extensions };
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
        assert.ok(cli, "the CLI refuses the files");
        const res = await upload(a.client, a.project, {
          source: ["design.py", design],
          schema: ["parameters.schema.json", schemaText],
        });
        const html = await res.text();
        assert.equal(res.status, cli.status, html.slice(0, 300));
        const shown = shownProblem(html);
        assert.equal(shown.code, cli.code);
        for (const member of ["file", "pointer", "reason"]) {
          assert.equal(shown[member], cli[member] as string | undefined, member);
        }
        assert.match(html, /name="_csrf"/, "the form is shown again");
      });
    }
    await t.step("a file not chosen is named", async () => {
      const res = await upload(a.client, a.project, {
        source: undefined,
        schema: ["parameters.schema.json", JSON.stringify(schema)],
      });
      assert.equal(res.status, 422);
      assert.deepEqual(shownProblem(await res.text()), {
        code: "validation_failed",
        file: "design.py",
        pointer: "",
      });
    });
    await t.step("swapped files are called swapped", async () => {
      const res = await upload(a.client, a.project, {
        source: ["parameters.schema.json", JSON.stringify(schema)],
        schema: ["design.py", source],
      });
      assert.equal(res.status, 422);
      const shown = shownProblem(await res.text());
      assert.equal(shown.code, "validation_failed");
      assert.equal(shown.reason, "files_swapped");
    });
    await t.step("without the form token nothing is published", async () => {
      const res = await upload(a.client, a.project, {
        source: ["design.py", source],
        schema: ["parameters.schema.json", JSON.stringify(schema)],
      }, "not-the-token");
      await res.body?.cancel();
      assert.equal(res.status, 403);
      const page = await a.client.html(`/settings/projects/${a.project}`);
      const rows = /<table class="list" id="versions">[\s\S]*?<\/table>/.exec(page)![0];
      assert.equal(rows.split("<tr>").length - 2, 1, "only the setup's template version");
    });
    await t.step("another partner's project answers 404", async () => {
      const b = await setUpPartner(app.url, "Bravo", app.fetch);
      const res = await upload(b.client, a.project, {
        source: ["design.py", source],
        schema: ["parameters.schema.json", JSON.stringify(schema)],
      });
      await res.body?.cancel();
      assert.equal(res.status, 404);
    });
  } finally {
    await app.close();
  }
});
