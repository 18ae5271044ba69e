import assert from "node:assert/strict";
import {
  createShareUrl,
  decodeShareValue,
  encodeShareValue,
  readShareValue,
  restoreFromUrl,
  type ShareProject,
  shareUrl,
} from "../../lib/client/share_link.ts";
import {
  type ParameterDescriptor,
  validateParameterSchema,
  validateParameterValue,
} from "../../lib/dag/parameter_schema.ts";

const EXAMPLES = new URL("../../examples/projects/", import.meta.url);

async function exampleProjects(): Promise<ShareProject[]> {
  const out: ShareProject[] = [];
  for await (const entry of Deno.readDir(EXAMPLES)) {
    if (!entry.isDirectory) continue;
    const doc = JSON.parse(
      await Deno.readTextFile(new URL(`${entry.name}/parameters.schema.json`, EXAMPLES)),
    );
    out.push({ slug: entry.name, version: 7, schema: validateParameterSchema(doc) });
  }
  return out.sort((a, b) => a.slug.localeCompare(b.slug));
}

/** The value of `param` farthest from its default that the schema accepts ("the maxima"). */
function extreme(param: ParameterDescriptor): unknown {
  switch (param.kind) {
    case "Int":
    case "Float":
      return param.default === param.maximum ? param.minimum : param.maximum;
    case "Bool":
      return !param.default;
    case "Enum":
      return param.enum!.at(-1) === param.default ? param.enum![0] : param.enum!.at(-1);
    case "Color":
      return param.default === "#0a1b2c" ? "#ffffff" : "#0a1b2c";
    case "String": {
      // URL-hostile characters when the pattern allows them, else the default backwards.
      const hostile = "O'Neil & Co.+1?!";
      try {
        return validateParameterValue(param, hostile);
      } catch {
        return [...(param.default as string)].reverse().join("");
      }
    }
  }
}

/** A value on the step grid with many digits (the round trip must be bit-exact). */
function awkward(param: ParameterDescriptor): unknown {
  if (param.kind !== "Float") return extreme(param);
  const step = param.step ?? (param.maximum! - param.minimum!) / 7;
  const k = Math.floor((param.maximum! - param.minimum!) / step / 3);
  return param.minimum! + k * step + (param.step ? 0 : 1e-9);
}

const BASE = "https://shop.example.com/products/bracket?ref=mail";

Deno.test("share link - every example round-trips its defaults, maxima and awkward values", async (t) => {
  const projects = await exampleProjects();
  assert(projects.length >= 7);
  let longest = { slug: "", length: 0 };
  for (const project of projects) {
    await t.step(project.slug, () => {
      const params = project.schema!.parameters;
      const defaults = Object.fromEntries(params.map((p) => [p.name, p.default]));
      // Defaults: nothing but the header.
      const plain = createShareUrl(project, defaults, BASE);
      assert.deepEqual(readShareValue(plain), `1~${project.slug}~7`);
      assert.deepEqual(restoreFromUrl(plain, project), { values: {}, version: 7, notes: [] });
      for (const pick of [extreme, awkward]) {
        const values = Object.fromEntries(params.map((p) => [p.name, pick(p)]));
        const url = createShareUrl(project, values, BASE);
        const restored = restoreFromUrl(url, project)!;
        assert.deepEqual(restored.notes, []);
        // Exactly the values that differ from the default come back, bit for bit.
        const differing = Object.fromEntries(
          Object.entries(values).filter(([name, v]) => v !== defaults[name]),
        );
        assert.deepEqual(restored.values, differing);
        assert.deepEqual({ ...defaults, ...restored.values }, values);
        if (url.length > longest.length) longest = { slug: project.slug, length: url.length };
      }
    });
  }
  // Well under 2,000 characters: the whole URL, a 50-character partner base included.
  assert(longest.length < 400, `${longest.slug}: ${longest.length} characters`);
  console.log(`longest example link: ${longest.slug}, ${longest.length} characters`);
});

const ENUM_PROJECT: ShareProject = {
  slug: "sign",
  version: 3,
  schema: validateParameterSchema({
    type: "object",
    additionalProperties: false,
    properties: {
      font: { kind: "Enum", type: "string", default: "Sans", enum: ["Sans", "Ø 6 ~%7E & =+#?"] },
      size: { kind: "Float", type: "number", default: 10, minimum: -5, maximum: 100 },
      count: { kind: "Int", type: "integer", default: 1, minimum: 1, maximum: 9, step: 2 },
      lit: { kind: "Bool", type: "boolean", default: false },
      color: { kind: "Color", type: "string", default: "#000000" },
    },
  }),
};

Deno.test("share link - Enum choices with URL-special characters, negatives and small numbers", () => {
  const values = { font: "Ø 6 ~%7E & =+#?", size: -0.0000001, count: 5, lit: true };
  const url = createShareUrl(ENUM_PROJECT, values, "https://a.example/p#top");
  assert(url.startsWith("https://a.example/p?cad=1~sign~3~font~"), url);
  assert(url.endsWith("#top"), url);
  assert.deepEqual(restoreFromUrl(url, ENUM_PROJECT), { values, version: 3, notes: [] });
  // A server or router that re-serialises the query with URLSearchParams changes nothing.
  const reserialised = new URL(url);
  reserialised.search = new URLSearchParams(reserialised.search).toString();
  assert(reserialised.href.includes("%7E"));
  assert.deepEqual(restoreFromUrl(reserialised, ENUM_PROJECT)!.values, values);
});

Deno.test("share link - the URL keeps the base's other parameters and replaces an old cad", () => {
  const first = createShareUrl(ENUM_PROJECT, { size: 20 }, BASE);
  assert.deepEqual(first, `${BASE}&cad=1~sign~3~size~20`);
  const second = createShareUrl(ENUM_PROJECT, { size: 30 }, first);
  assert.deepEqual(second, `${BASE}&cad=1~sign~3~size~30`);
  // A link carried in the fragment is read too, and replaced by a query parameter.
  const inFragment = "https://a.example/p#cad=1~sign~3~lit~1&tab=2";
  assert.deepEqual(readShareValue(inFragment), "1~sign~3~lit~1");
  assert.deepEqual(shareUrl(inFragment, "1~sign~3"), "https://a.example/p?cad=1~sign~3#tab=2");
  assert.deepEqual(readShareValue("https://a.example/p"), null);
  assert.deepEqual(readShareValue("not a url"), null);
});

Deno.test("share link - values the form refuses are not encoded", () => {
  assert.deepEqual(
    encodeShareValue(ENUM_PROJECT, { size: 1000, count: 4, font: "Serif", color: "#ABCDEF" }),
    "1~sign~3",
  );
});

Deno.test("share link - bad values are dropped with a note, never thrown", async (t) => {
  const cases: Array<[string, string, string, string | undefined]> = [
    ["out of range", "size~1000", "invalid_value", "size"],
    ["off the step", "count~4", "invalid_value", "count"],
    ["not an integer", "count~3.5", "invalid_value", "count"],
    ["not a number", "size~abc", "invalid_value", "size"],
    ["hex number", "size~0x10", "invalid_value", "size"],
    ["infinity", "size~Infinity", "invalid_value", "size"],
    ["empty number", "size~", "invalid_value", "size"],
    ["bool not 0/1", "lit~true", "invalid_value", "lit"],
    ["upper-case colour", "color~ABCDEF", "invalid_value", "color"],
    ["short colour", "color~abc", "invalid_value", "color"],
    ["unknown choice", "font~Serif", "invalid_value", "font"],
    ["unknown name", "weight~3", "unknown_parameter", "weight"],
    ["a name twice", "size~5~size~6", "duplicate_parameter", "size"],
    ["prototype name", "__proto__~1", "unknown_parameter", "__proto__"],
  ];
  for (const [label, pairs, reason, name] of cases) {
    await t.step(label, () => {
      const [kept, keptValue] = name === "lit" ? ["font", "Sans"] : ["lit", true];
      const prefix = name === "lit" ? "font~Sans" : "lit~1";
      const restored = decodeShareValue(`1~sign~3~${prefix}~${pairs}`, ENUM_PROJECT)!;
      assert.deepEqual(restored.notes.length, 1, JSON.stringify(restored.notes));
      assert.deepEqual(restored.notes[0].reason, reason);
      assert.deepEqual(restored.notes[0].name, name);
      assert(restored.notes[0].message.length > 0);
      // What did validate still applies.
      assert.deepEqual(restored.values[kept], keptValue);
      assert.deepEqual(Object.getPrototypeOf(restored.values), Object.prototype);
    });
  }
});

Deno.test("share link - damaged links open with the defaults and say so", async (t) => {
  const cases: Array<[string, string]> = [
    ["", "malformed"],
    ["garbage", "malformed"],
    ["1~sign", "malformed"],
    ["1~sign~x", "malformed"],
    ["1~sign~0", "malformed"],
    ["1~sign~3~size", "malformed"],
    ["2~sign~3~size~5", "unsupported_format"],
  ];
  for (const [raw, reason] of cases) {
    await t.step(JSON.stringify(raw), () => {
      const restored = decodeShareValue(raw, ENUM_PROJECT)!;
      assert.deepEqual(restored.values, {});
      assert.deepEqual(restored.notes.map((n) => n.reason), [reason]);
    });
  }
});

Deno.test("share link - another project's link is not this configurator's", () => {
  assert.deepEqual(decodeShareValue("1~wall-bracket~3~width~50", ENUM_PROJECT), null);
  assert.deepEqual(restoreFromUrl("https://a.example/?cad=1~other~1~x~1", ENUM_PROJECT), null);
});

Deno.test("share link - a link from an older version restores what still validates", () => {
  // Version 2 had `weight` (since removed) and allowed size 200 (now at most 100).
  const restored = decodeShareValue("1~sign~2~size~50~weight~3~count~3~lit~1", ENUM_PROJECT)!;
  assert.deepEqual(restored.version, 2);
  assert.deepEqual(restored.values, { size: 50, count: 3, lit: true });
  assert.deepEqual(restored.notes.map((n) => n.reason), ["other_version", "unknown_parameter"]);
  assert.deepEqual(
    restored.notes[0].message,
    "This link was made for an earlier version of this design; 3 of its 4 settings still apply.",
  );
  const newer = decodeShareValue("1~sign~9~size~500", ENUM_PROJECT)!;
  assert.deepEqual(newer.values, {});
  assert.deepEqual(newer.notes.map((n) => n.reason), ["other_version", "invalid_value"]);
  assert(newer.notes[0].message.includes("another version"));
});
