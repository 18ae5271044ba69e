/**
 * The island layer, server side (ARCHITECTURE: "ours and small"). A page renders an island with
 * `collector.island(name, Component, props)`: the component's server-rendered HTML between two
 * comment markers, `<!--island:Name:3-->…<!--/island:3-->`, while its props are collected. The
 * page ends with `collector.boot(nonce)`: one `<script type="application/json">` holding every
 * island's props as escaped JSON plus the content-hashed module URLs, and the client boot module
 * (`islands_client.ts`) that renders each island into its marked range.
 *
 * Props must be JSON (no functions, no class instances): they cross from server to browser.
 */
import { type ComponentType, Fragment, h, type VNode } from "preact";

/** The module URLs a page's boot script points at. */
export interface IslandModules {
  /** The client boot module. */
  boot: string;
  /** Island name → module URL (content-hashed). */
  modules: Record<string, string>;
  /**
   * Island name → the chunks its lazily imported parts need and it does not (three.js, for the
   * viewer): a page with the island preloads them (`<link rel="modulepreload">`).
   */
  preloads?: Record<string, string[]>;
}

/** What a build produced (`islands_build.ts`): URL paths under the site root. */
export interface IslandBuild extends IslandModules {
  /** Extra entry name → module URL (the app's own bundles). */
  entries: Record<string, string>;
  /**
   * Extra entry name → the URLs of the chunks its bundle imports statically: a stable module that
   * imports them beside the bundle lets the browser fetch them together, one round trip sooner.
   */
  entryImports: Record<string, string[]>;
  /**
   * Extra entry name → the URLs of the chunks its lazily imported parts import and the bundle does
   * not (three.js, for the view): what its start module (`entryStarts`) starts.
   */
  entryPreloads?: Record<string, string[]>;
  /**
   * Extra entry name → the URL of its start module, when it has lazy chunks: a module that starts
   * them with `import()`, for a stable module to import before the bundle (`islands_build.ts`).
   */
  entryStarts?: Record<string, string>;
  /** The hash of the inputs this build came from. */
  inputHash: string;
  /** How long the build took (0 when reused). */
  ms: number;
}

/** The id of the boot data script element. */
export const ISLAND_DATA_ID = "__islands";

/** One island occurrence on a page. */
export interface IslandEntry {
  id: number;
  name: string;
  props: Record<string, unknown>;
}

/** What the client boot reads from the boot data script. */
export interface IslandBootData {
  islands: IslandEntry[];
  /** Island name → its module URL (content-hashed). */
  modules: Record<string, string>;
}

/**
 * The islands in `manifest.islands` by name (`./islands/Viewer.tsx` → `Viewer`): each module's
 * default export.
 *
 * @example
 * ```ts
 * const registry = islandRegistry(manifest.islands);
 * registry.get("Configurator");
 * ```
 */
export function islandRegistry(
  islands: Record<string, Record<string, unknown>>,
): Map<string, ComponentType<Record<string, unknown>>> {
  const registry = new Map<string, ComponentType<Record<string, unknown>>>();
  for (const [path, module] of Object.entries(islands)) {
    const name = islandName(path);
    if (typeof module.default === "function") {
      registry.set(name, module.default as ComponentType<Record<string, unknown>>);
    }
  }
  return registry;
}

/** The island name of a file path: its base name without extension. */
export function islandName(path: string): string {
  return path.split("/").at(-1)!.replace(/\.(tsx|ts)$/, "");
}

/**
 * JSON safe inside a `<script>` element: `<`, `>`, `&` and the JS line separators are escaped, so
 * no prop value can close the element or start a comment.
 *
 * @example
 * ```ts
 * escapeJsonForScript({ a: "</script>" }); // '{"a":"\\u003c/script\\u003e"}'
 * ```
 */
export function escapeJsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll("<", "\\u003c")
    .replaceAll(">", "\\u003e")
    .replaceAll("&", "\\u0026")
    .replaceAll("\u2028", "\\u2028")
    .replaceAll("\u2029", "\\u2029");
}

/**
 * Collects the islands of one page render. Rendering is depth-first in document order, so a
 * `boot()` placed after the islands sees all of them.
 */
export class IslandCollector {
  readonly entries: IslandEntry[] = [];
  readonly #build: IslandModules;

  /** A collector whose boot script points at the modules of `build`. */
  constructor(build: IslandModules) {
    this.#build = build;
  }

  /** The island `Component` (registered as `name`) with `props`, between its markers. */
  island<P extends Record<string, unknown>>(
    name: string,
    Component: ComponentType<P>,
    props: P,
  ): VNode {
    if (!this.#build.modules[name]) throw new Error(`no island module named ${name} was built`);
    const id = this.entries.length;
    this.entries.push({ id, name, props: JSON.parse(JSON.stringify(props)) });
    return h(
      Fragment,
      null,
      h(Fragment, { UNSTABLE_comment: `island:${name}:${id}` } as Record<string, unknown>),
      h(Component as ComponentType<Record<string, unknown>>, props),
      h(Fragment, { UNSTABLE_comment: `/island:${id}` } as Record<string, unknown>),
    );
  }

  /** The boot data and the client boot module (place after every island). */
  boot(nonce: string): VNode {
    const modules: Record<string, string> = {};
    for (const e of this.entries) modules[e.name] = this.#build.modules[e.name];
    const data: IslandBootData = { islands: this.entries, modules };
    const preloads = new Set(this.entries.flatMap((e) => this.#build.preloads?.[e.name] ?? []));
    return h(
      Fragment,
      null,
      // Fetched and compiled beside the islands, not after the lazy part that imports them.
      [...preloads].map((href) => h("link", { rel: "modulepreload", href, nonce })),
      h("script", {
        type: "application/json",
        id: ISLAND_DATA_ID,
        nonce,
        dangerouslySetInnerHTML: { __html: escapeJsonForScript(data) },
      }),
      h("script", { type: "module", src: this.#build.boot, nonce }),
    );
  }
}
