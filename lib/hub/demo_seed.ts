/**
 * The demo on an empty store: a partner, a project and a key whose allowed origins include the
 * server's own origins, so `deno task start` shows a working mint at once. Idempotent: the ids
 * are remembered at `["demo"]` and later starts only widen the key's origins if needed.
 */
import { normalizeAllowedOrigin } from "../http/origin.ts";
import { createPartner } from "../store/partners.ts";
import { createProject, getProject } from "../store/projects.ts";
import { getSdkKey, updateSdkKey } from "../store/sdk_keys.ts";
import { createSdkKey } from "./sdk_keys.ts";

/** What the demo seed created or found. The demo's secret is never kept or printed. */
export interface DemoSeed {
  partnerId: string;
  projectSlug: string;
  keyId: string;
  created: boolean;
}

/** The demo project's slug. */
export const DEMO_PROJECT = "demo-bracket";

/** The origins a local demo is reached from. */
export function demoOrigins(publicUrl: string, port: number): string[] {
  const origins = new Set<string>();
  for (const o of [publicUrl, `http://localhost:${port}`, `http://127.0.0.1:${port}`]) {
    try {
      origins.add(normalizeAllowedOrigin(o));
    } catch {
      // e.g. PUBLIC_URL defaulted from PORT=0 before the real port was known
    }
  }
  return [...origins];
}

/** Creates the demo records on an empty store, or returns the existing ones. */
export async function seedDemo(kv: Deno.Kv, origins: string[]): Promise<DemoSeed> {
  const existing = (await kv.get<Omit<DemoSeed, "created">>(["demo"])).value;
  if (existing && await getSdkKey(kv, existing.keyId)) {
    // A different PORT or PUBLIC_URL since the first start: allow those origins too.
    await updateSdkKey(kv, existing.keyId, (r) => {
      const missing = origins.filter((o) => !r.allowedOrigins.includes(o));
      return missing.length ? { ...r, allowedOrigins: [...r.allowedOrigins, ...missing] } : r;
    });
    return { ...existing, created: false };
  }
  const partner = await createPartner(kv, "Demo Partner");
  if (!await getProject(kv, DEMO_PROJECT)) {
    await createProject(kv, {
      partnerId: partner.id,
      slug: DEMO_PROJECT,
      title: "Demo wall bracket",
    });
  }
  const { record } = await createSdkKey(kv, {
    partnerId: partner.id,
    label: "Demo key",
    allowedOrigins: origins,
    allowedProjects: [DEMO_PROJECT],
  });
  const seed = { partnerId: partner.id, projectSlug: DEMO_PROJECT, keyId: record.keyId };
  await kv.set(["demo"], seed);
  return { ...seed, created: true };
}

/** The remembered demo ids, or null when no demo was seeded. */
export async function getDemo(kv: Deno.Kv): Promise<Omit<DemoSeed, "created"> | null> {
  return (await kv.get<Omit<DemoSeed, "created">>(["demo"])).value;
}
