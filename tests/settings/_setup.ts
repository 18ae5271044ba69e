/** A signed-up partner with a published project and a key, created through the settings pages. */
import { rid } from "../_helpers/redis.ts";
import { type Fetch, SettingsClient } from "./_client.ts";

const WALL_BRACKET = new URL("../../examples/projects/wall-bracket/", import.meta.url);

/** What a settings test partner holds. */
export interface PartnerSetup {
  client: SettingsClient;
  project: string;
  keyId: string;
  key: string;
  origin: string;
}

/** Uploads the wall-bracket example as a new version of `slug`. */
export async function publishExample(client: SettingsClient, slug: string): Promise<Response> {
  const form = new FormData();
  form.set("_csrf", client.csrf);
  for (
    const [field, file] of [["template", "template.dag.json"], ["schema", "parameters.schema.json"]]
  ) {
    form.set(
      field,
      new File([await Deno.readFile(new URL(file, WALL_BRACKET))], file, {
        type: "application/json",
      }),
    );
  }
  return await client.fetch(`${client.baseUrl}/settings/projects/${slug}`, {
    method: "POST",
    headers: { cookie: client.cookie, origin: client.baseUrl, "sec-fetch-site": "same-origin" },
    body: form,
    redirect: "manual",
  });
}

/**
 * Signs up a partner, creates and publishes a project, and creates a key for `origin`, through
 * `fetch` (a server's, or the app's in memory).
 */
export async function setUpPartner(
  baseUrl: string,
  name: string,
  fetch?: Fetch,
): Promise<PartnerSetup> {
  const client = new SettingsClient(baseUrl, fetch);
  await client.signUp(`${name.toLowerCase()}-${rid()}@shop.example`, `Partner ${name}`);
  const project = `bracket-${rid()}`;
  const created = await client.post("/settings/projects", { title: "Wall bracket", slug: project });
  await created.body?.cancel();
  if (created.status !== 303) throw new Error(`project create: ${created.status}`);
  await client.html(`/settings/projects/${project}`);
  const published = await publishExample(client, project);
  await published.body?.cancel();
  if (published.status !== 303) throw new Error(`publish: ${published.status}`);
  const origin = `https://${name.toLowerCase()}-${rid()}.example`;
  const res = await client.post("/settings/keys", {
    label: `${name} storefront`,
    origins: origin,
    projects: [project],
    defaultTtl: "30",
    maxTtl: "120",
    budget: "",
  });
  const html = await res.text();
  if (res.status !== 200) throw new Error(`key create: ${res.status} ${html.slice(0, 500)}`);
  const key = /id="key-plaintext">(sdk_[a-z2-7]+_[a-z2-7]+)</.exec(html)?.[1];
  if (!key) throw new Error("no plaintext key on the created page");
  return { client, project, keyId: key.split("_")[1], key, origin };
}
