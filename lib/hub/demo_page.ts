/**
 * What the demo page at `/` shows: the demo key, the example projects it may show (title,
 * description, mode) for the gallery, and the one on the stage with what its server-rendered first
 * paint needs. Reads the store as it is now, so a partner's edits to the demo key (a project
 * removed, the key revoked) show on the page.
 */
import type { ParameterSchema } from "../dag/parameter_schema.ts";
import { originAllowed } from "../http/origin.ts";
import { toAppError } from "../http/problem.ts";
import type { ProjectMode } from "../store/project_versions.ts";
import { publishedVersion } from "./published_versions.ts";
import { getSdkKey } from "../store/sdk_keys.ts";
import { configuratorPageCheck } from "./configurator_mint.ts";
import { getDemo } from "./demo_seed.ts";
import type { MintDeps } from "./mint.ts";

/** One example in the gallery. */
export interface DemoProjectCard {
  slug: string;
  title: string;
  description: string;
  mode: ProjectMode;
}

/** The demo page's data. */
export interface DemoPageInfo {
  partnerId: string;
  keyId: string;
  projects: DemoProjectCard[];
  /** The project on the stage (null when the key may show none). */
  selected: DemoProjectCard | null;
  /** The stage's schema for the first paint (template projects). */
  schema: ParameterSchema | null;
  /** Whether the page's own origin is on the demo key (else the browser flow cannot mint). */
  originAllowed: boolean;
  /** Why the stage cannot show the configurator (a revoked key, a project no longer published). */
  problem: { code: string; detail: string } | null;
}

/**
 * The demo page for a request from `pageOrigin` asking for `asked` (`?project=`); null when no
 * demo was seeded.
 *
 * @example
 * ```ts
 * const info = await loadDemoPage(kv, hub.keys, "http://localhost:8000", "vase");
 * info?.selected?.title; // "Vase"
 * ```
 */
export async function loadDemoPage(
  kv: Deno.Kv,
  keys: MintDeps["keys"],
  pageOrigin: string,
  asked: string | null,
): Promise<DemoPageInfo | null> {
  const demo = await getDemo(kv);
  const key = demo ? await getSdkKey(kv, demo.keyId) : null;
  if (!demo || !key) return null;
  const projects: DemoProjectCard[] = [];
  for (const slug of key.allowedProjects) {
    const published = await publishedVersion(kv, { partnerId: demo.partnerId, slug });
    if (!published) continue;
    const { project, version } = published;
    const schema = version.schema as { description?: unknown } | null;
    projects.push({
      slug,
      title: project.title,
      description: typeof schema?.description === "string" ? schema.description : "",
      mode: version.mode,
    });
  }
  const selected = projects.find((p) => p.slug === asked) ??
    projects.find((p) => p.mode === "template") ?? projects[0] ?? null;
  let schema: ParameterSchema | null = null;
  let problem: DemoPageInfo["problem"] = null;
  if (selected) {
    try {
      schema = (await configuratorPageCheck(keys, kv, key.keyId, selected.slug)).schema;
    } catch (err) {
      const e = toAppError(err);
      problem = { code: e.code, detail: e.message };
    }
  } else {
    problem = {
      code: "project_not_allowed",
      detail: "The demo key lists no published project.",
    };
  }
  return {
    partnerId: demo.partnerId,
    keyId: key.keyId,
    projects,
    selected,
    schema,
    originAllowed: originAllowed(pageOrigin, key.allowedOrigins),
    problem,
  };
}
