/**
 * Tokens for the hub's hosted configurator (`/configurator/<project>?key=<keyId>`), an iframe whose
 * own origin is the hub's. Design (docs/embedding.md, "How the hosted configurator gets tokens"):
 *
 * - Its renders are sent from the hub's origin, so its tokens are bound to the hub's origin.
 * - The partner does NOT add the hub to allowed_origins (that would let any page that copied the
 *   keyId mint through the ordinary browser flow from a hub page). Instead the configurator mints
 *   through this dedicated path, which accepts only same-origin requests from the hub's own pages
 *   (`Origin` = the hub's origin; JavaScript on another site cannot send that) and requires the
 *   embedding page's origin (`parentOrigin`, read by the iframe from `location.ancestorOrigins`)
 *   to be one of the key's allowed origins — the same list the page's CSP `frame-ancestors` is
 *   built from, so the browser has already refused to show the configurator anywhere else.
 * - Everything else is the ordinary mint policy: active key, allowed project, TTL bounds, the
 *   key's rate limit and budget.
 * - Usage (lib/hub/usage.ts) counts these mints like the mint endpoint's, under the embedding
 *   page's origin (`parentOrigin`), refusals included when they named an existing key.
 */
import { AppError } from "../http/problem.ts";
import { originAllowed } from "../http/origin.ts";
import { validate } from "../http/validate.ts";
import { z } from "zod";
import { isWellFormedKeyId } from "./partner_key.ts";
import type { ParameterSchema } from "../dag/parameter_schema.ts";
import { publishedVersion, versionSchema } from "./published_versions.ts";
import type { SdkKeyRecord } from "../store/sdk_keys.ts";
import { issue, loadActiveKey, type MintDeps, type MintResult, recordMintFailure } from "./mint.ts";

/** The body the hosted configurator posts. */
export const ConfiguratorMintBody = z.object({
  keyId: z.string().min(1).max(64),
  projectId: z.string().min(1).max(64),
  parentOrigin: z.string().min(1).max(2048),
}).strict();

/** What the hosted configurator's mint request brings besides its body. */
export interface ConfiguratorMintInput {
  /** The `Origin` header, or null. */
  origin: string | null;
  /** The hub's own origins (the request URL's and `PUBLIC_URL`'s). */
  hubOrigins: readonly string[];
  body: unknown;
  /** The client's IP address, for the per-client-IP mint limit. */
  clientIp?: string;
}

/**
 * Mints a token bound to `hubOrigin` for the hosted configurator embedded by `parentOrigin`.
 * Throws `AppError`: `origin_not_allowed` (caller is not a hub page, or the parent is not allowed),
 * `unknown_key`, `key_revoked`, `project_not_allowed`, `rate_limited`, `validation_failed`.
 *
 * @example
 * ```ts
 * await mintForConfigurator(deps, { origin: "https://hub.example.com", hubOrigins: ["https://hub.example.com"], body });
 * ```
 */
export async function mintForConfigurator(
  deps: MintDeps,
  input: ConfiguratorMintInput,
): Promise<MintResult> {
  const seen: { key?: SdkKeyRecord; parentOrigin?: string } = {};
  try {
    const result = await mintHosted(deps, input, seen);
    // Counted under the embedding page's origin: that is where the partner's traffic came from.
    deps.usage?.recordMint(result.claims.client_id, "ok", seen.parentOrigin, [
      seen.parentOrigin!,
    ]);
    return result;
  } catch (err) {
    recordMintFailure(deps, seen.key, seen.parentOrigin, err);
    throw err;
  }
}

async function mintHosted(
  deps: MintDeps,
  input: ConfiguratorMintInput,
  seen: { key?: SdkKeyRecord; parentOrigin?: string },
): Promise<MintResult> {
  if (input.origin === null || !input.hubOrigins.includes(input.origin)) {
    throw new AppError(
      "origin_not_allowed",
      "This endpoint serves only the hub's own hosted configurator; partners mint at /api/v1/sdk/session-tokens.",
    );
  }
  const body = validate(ConfiguratorMintBody, input.body);
  if (!isWellFormedKeyId(body.keyId)) {
    throw new AppError("unknown_key", `"${body.keyId}" is not a keyId.`);
  }
  seen.parentOrigin = body.parentOrigin;
  const key = await loadActiveKey(deps, body.keyId, "unknown_key", seen);
  if (!originAllowed(body.parentOrigin, key.allowedOrigins)) {
    throw new AppError(
      "origin_not_allowed",
      `"${body.parentOrigin}" may not embed this configurator: it is not an allowed origin of the key.`,
    );
  }
  // Any client can claim the hub's Origin outside a browser: the per-client-IP limit applies here too.
  return await issue(deps, key, "publishable", {
    projectId: body.projectId,
    origin: input.origin,
    clientIp: input.clientIp,
  });
}

/** What the hosted configurator page needs to know about its key and project. */
export interface ConfiguratorPageInfo {
  title: string;
  allowedOrigins: string[];
  /** The current version's parameter schema (server-rendered form), or null (no template). */
  schema: ParameterSchema | null;
}

/**
 * Checks that `keyId` may show `project` in the hosted configurator: the key exists, is not
 * revoked, lists the project, and the project has a published version. Throws `AppError`.
 */
export async function configuratorPageCheck(
  keys: MintDeps["keys"],
  kv: Deno.Kv,
  keyId: string,
  project: string,
): Promise<ConfiguratorPageInfo> {
  if (!keyId) {
    throw new AppError(
      "unknown_key",
      "The configurator URL needs ?key=<keyId> (the publishable key id).",
    );
  }
  if (!isWellFormedKeyId(keyId)) throw new AppError("unknown_key", `"${keyId}" is not a keyId.`);
  const key = await loadActiveKey({ keys } as MintDeps, keyId, "unknown_key");
  if (!key.allowedProjects.includes(project)) {
    throw new AppError(
      "project_not_allowed",
      `The project "${project}" is not allowed for this key.`,
    );
  }
  // The key's partner's project: slugs are unique per partner only.
  const published = await publishedVersion(kv, { partnerId: key.partnerId, slug: project });
  if (!published) {
    throw new AppError("unknown_project_version", `No project "${project}" is published.`);
  }
  return {
    title: published.project.title,
    allowedOrigins: [...key.allowedOrigins],
    schema: versionSchema(published.version),
  };
}
