/**
 * The import graph of the app's own modules, read from `deno info --json` (type-only imports
 * included: a browser module that names a server type still couples the two). One `deno info`
 * over a generated module that imports every file of lib/, routes/, islands/ and components/ and
 * the root entry points, so files no entry reaches are in the graph too.
 */
import { join, relative } from "node:path";

/** Module path (relative to the root) → the app modules it imports. */
export type ImportGraph = Map<string, Set<string>>;

const SOURCE = /\.(ts|tsx|js)$/;
const SKIP = /(^|\/)(node_modules|static|data)(\/|$)|_test\.tsx?$|\.d\.ts$/;

async function sources(root: string, dir: string, out: string[]): Promise<void> {
  for await (const e of Deno.readDir(join(root, dir))) {
    const path = join(dir, e.name);
    if (SKIP.test(path)) continue;
    if (e.isDirectory) await sources(root, path, out);
    else if (SOURCE.test(e.name)) out.push(path);
  }
}

/** The graph of every app module under `root`. */
export async function importGraph(root: string): Promise<ImportGraph> {
  const files: string[] = ["main.ts", "cli.ts", "dev.ts", "manifest.gen.ts"];
  for (const dir of ["lib", "routes", "islands", "components", "packages/sdk/src"]) {
    await sources(root, dir, files);
  }
  const tmp = await Deno.makeTempDir();
  try {
    const all = join(tmp, "all.ts");
    const lines = files
      .filter((f) => !f.endsWith(".js"))
      .map((f) => `import ${JSON.stringify("file://" + join(root, f))};`);
    await Deno.writeTextFile(all, lines.join("\n") + "\n");
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", join(root, "deno.json"), all],
      cwd: root,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules: Array<{
        specifier: string;
        dependencies?: Array<{ code?: { specifier?: string }; type?: { specifier?: string } }>;
      }>;
    };
    const local = (specifier: string | undefined) => {
      if (!specifier?.startsWith("file://")) return undefined;
      const path = relative(root, decodeURIComponent(new URL(specifier).pathname));
      return path.startsWith("..") ? undefined : path;
    };
    const graph: ImportGraph = new Map();
    for (const m of info.modules) {
      const from = local(m.specifier);
      if (!from) continue;
      const deps = new Set<string>();
      for (const d of m.dependencies ?? []) {
        for (const s of [d.code?.specifier, d.type?.specifier]) {
          const to = local(s);
          if (to) deps.add(to);
        }
      }
      graph.set(from, deps);
    }
    return graph;
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

/** The folder a module belongs to for layering: `lib/<x>` inside lib/, else its top folder. */
export function layerOf(path: string): string {
  const parts = path.split("/");
  if (parts[0] === "lib") return parts.length > 2 ? `lib/${parts[1]}` : path;
  return parts.length > 1 ? parts[0] : path;
}

/** The strongly connected components with more than one member (Tarjan, iterative). */
export function cycles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  for (const start of edges.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; it: Iterator<string> }> = [];
    const enter = (node: string) => {
      index.set(node, next);
      low.set(node, next++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, it: (edges.get(node) ?? new Set()).values() });
    };
    enter(start);
    while (work.length) {
      const top = work.at(-1)!;
      const step = top.it.next();
      if (!step.done) {
        const w = step.value;
        if (!index.has(w)) enter(w);
        else if (onStack.has(w)) low.set(top.node, Math.min(low.get(top.node)!, index.get(w)!));
        continue;
      }
      work.pop();
      const parent = work.at(-1);
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== top.node);
        if (component.length > 1) found.push(component.sort());
      }
    }
  }
  return found;
}

/** The graph collapsed to layers (`layerOf`), with one example import per layer edge. */
export function layerGraph(graph: ImportGraph): {
  edges: Map<string, Set<string>>;
  example: (from: string, to: string) => string;
} {
  const edges = new Map<string, Set<string>>();
  const examples = new Map<string, string>();
  for (const [from, deps] of graph) {
    const a = layerOf(from);
    if (!edges.has(a)) edges.set(a, new Set());
    for (const to of deps) {
      const b = layerOf(to);
      if (a === b) continue;
      edges.get(a)!.add(b);
      examples.set(`${a}\0${b}`, examples.get(`${a}\0${b}`) ?? `${from} → ${to}`);
    }
  }
  return { edges, example: (from, to) => examples.get(`${from}\0${to}`) ?? "" };
}

/** Every module `entry` reaches, itself included. */
export function reachable(graph: ImportGraph, entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length) {
    const m = todo.pop()!;
    if (seen.has(m)) continue;
    seen.add(m);
    for (const d of graph.get(m) ?? []) todo.push(d);
  }
  return seen;
}
