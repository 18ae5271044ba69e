/**
 * Runs the design package (`design/cadparam`, standard-library Python) as the README documents it:
 * `PYTHONPATH=design python3 -m cadparam …` from the repository root.
 */

/** The repository root. */
export const ROOT = new URL("../../", import.meta.url);
/** The example projects. */
export const PROJECTS = new URL("examples/projects/", ROOT);
/** The example slugs (one folder each, every one authored in Python). */
export async function exampleSlugs(): Promise<string[]> {
  const slugs: string[] = [];
  for await (const entry of Deno.readDir(PROJECTS)) if (entry.isDirectory) slugs.push(entry.name);
  return slugs.sort();
}

/** The result of one python3 run. */
export interface PythonRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `python3 args…` in the repository root with the design package on PYTHONPATH. */
export async function python(args: string[], cwd: URL = ROOT): Promise<PythonRun> {
  const out = await new Deno.Command("python3", {
    args,
    cwd,
    env: { PYTHONPATH: new URL("design", ROOT).pathname, PYTHONDONTWRITEBYTECODE: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
  };
}

/** `python3 -m cadparam args…`; throws with the output when it fails. */
export async function cadparam(args: string[]): Promise<string> {
  const run = await python(["-m", "cadparam", ...args]);
  if (run.code !== 0) {
    throw new Error(`cadparam ${args.join(" ")} exited ${run.code}:\n${run.stderr}${run.stdout}`);
  }
  return run.stdout;
}
