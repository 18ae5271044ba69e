/** The partner, project and browser-flow SDK key the mint benchmark loads the hub with. */
import { createSdkKey } from "../lib/hub/sdk_keys.ts";
import { createPartner } from "../lib/store/partners.ts";
import { createProject } from "../lib/store/projects.ts";

/** What a browser-flow mint request needs. */
export interface MintFixture {
  keyId: string;
  projectId: string;
  origin: string;
}

/** The fixture key's rate limit: one the benchmark cannot reach. */
export const FIXTURE_RATE_LIMIT = { points: 1_000_000, durationSeconds: 60 };

/** Creates a partner with one project and a key whose rate limits the benchmark cannot reach. */
export async function createMintFixture(kv: Deno.Kv): Promise<MintFixture> {
  const partner = await createPartner(kv, "Bench Furniture GmbH");
  const projectId = "oak-dining-chair";
  await createProject(kv, { partnerId: partner.id, slug: projectId, title: "Oak dining chair" });
  const origin = "https://shop.bench-furniture.example";
  const { record } = await createSdkKey(kv, {
    partnerId: partner.id,
    label: "bench storefront",
    allowedOrigins: [origin],
    allowedProjects: [projectId],
    rateLimit: FIXTURE_RATE_LIMIT,
    // The load generator is one address standing for many browsers: its per-address limit must
    // not be reached either (the check itself still runs, as in production).
    clientIpRateLimit: FIXTURE_RATE_LIMIT,
  });
  return { keyId: record.keyId, projectId, origin };
}
