/**
 * Writes what is derived from the op specs and committed: `lib/dag/dag.schema.json` and the op
 * tables of `docs/dag.md` (`deno task dag-schema`). Both go through `deno fmt`, so the committed
 * files are exactly what this writes; `tests/kernel/dag_schema_test.ts` fails when they are stale.
 */
import { dagSchema } from "./dag_schema.ts";
import { withOpTables } from "./op_docs.ts";

/** The generated schema, relative to the repository root. */
export const SCHEMA_FILE = "lib/dag/dag.schema.json";
/** The document whose op tables are generated. */
export const DOCS_FILE = "docs/dag.md";

/** `text` as `deno fmt` (with the repository's configuration) writes it. */
async function denoFmt(text: string, ext: "json" | "md", root: URL): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", `--ext=${ext}`, "-"],
    cwd: root,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error(`deno fmt failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/**
 * The generated files by path, as they must be committed.
 *
 * @example
 * ```ts
 * const files = await generatedFiles(new URL("../../../", import.meta.url));
 * files["lib/dag/dag.schema.json"]; // the schema text
 * ```
 */
export async function generatedFiles(root: URL): Promise<Record<string, string>> {
  const docs = await Deno.readTextFile(new URL(DOCS_FILE, root));
  return {
    [SCHEMA_FILE]: await denoFmt(JSON.stringify(dagSchema(), null, 2) + "\n", "json", root),
    [DOCS_FILE]: await denoFmt(withOpTables(docs), "md", root),
  };
}

if (import.meta.main) {
  const root = new URL("../../../", import.meta.url);
  for (const [path, text] of Object.entries(await generatedFiles(root))) {
    await Deno.writeTextFile(new URL(path, root), text);
    console.log(`wrote ${path}`);
  }
}
