/** Test data: each test creates its own partner, project and key with random ids. */
import { createSdkKey, type CreateSdkKeyInput } from "@/lib/hub/sdk_keys.ts";
import { createPartner } from "@/lib/store/partners.ts";
import { createProject } from "@/lib/store/projects.ts";
import { rid } from "./redis.ts";

/** A partner with one project and one key, as a test fixture. */
export interface KeyFixture {
  partnerId: string;
  project: string;
  keyId: string;
  key: string;
  origin: string;
}

/** Creates a partner, a project and a key for `origin` (overrides go to the key). */
export async function createKeyFixture(
  kv: Deno.Kv,
  overrides: Partial<CreateSdkKeyInput> = {},
): Promise<KeyFixture> {
  const partner = await createPartner(kv, `Partner ${rid()}`);
  const project = `proj-${rid()}`;
  await createProject(kv, { partnerId: partner.id, slug: project, title: "Test project" });
  const origin = `https://shop-${rid()}.example`;
  const { key, record } = await createSdkKey(kv, {
    partnerId: partner.id,
    label: "test key",
    allowedOrigins: [origin],
    allowedProjects: [project],
    ...overrides,
  });
  return {
    partnerId: partner.id,
    project,
    keyId: record.keyId,
    key,
    origin: record.allowedOrigins[0],
  };
}
