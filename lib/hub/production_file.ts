/**
 * The order hand-off (docs/exports.md): `POST /api/v1/production-files` — the partner's backend,
 * holding a hub-signed configuration from its checkout (`getConfiguration()` in the browser, then
 * its own verification) and its key's secret, fetches the production file of exactly that
 * configuration. Checked before anything else, in this order: the credential's format, the
 * body's shape, the configuration's signature and expiry (the hub's keys), the key and its
 * secret, that the key is the configuration's partner's and allows its project, and that the key
 * lets its server flow export this format. Then the version the configuration names is loaded,
 * its values substituted and hashed (the hash must be the signed one), and the file comes from
 * the export cache or a render worker, counted against the key's render quota like a render.
 */
import type { JSONWebKeySet } from "jose";
import { z } from "zod";
import { AppError } from "../http/problem.ts";
import { validate } from "../http/validate.ts";
import { EXPORT_FORMATS, exportFormatsOf } from "../dag/export_format.ts";
import { substitute } from "../dag/substitute.ts";
import { cacheKey } from "../dag/canonical_dag.ts";
import type { CacheLevel } from "../dag/render_response.ts";
import { KERNEL_VERSION } from "../kernel/kernel_version.ts";
import { checkInstance } from "../kernel/template_instance.ts";
import type { SdkKeyRecord } from "../store/sdk_keys.ts";
import type { ExportDeps, ExportOutcome } from "../render/export_request.ts";
import { assertExportAllowed, exportFilename } from "../render/export_request.ts";
import { EXPORT_FORMAT_INFO } from "../dag/export_format.ts";
import { DagError } from "../dag/dag_errors.ts";
import { ConfigurationError, verifyConfiguration } from "./configuration_signature.ts";
import { parsePartnerKey, PartnerKeyFormatError } from "./partner_key.ts";
import { secretAccepted } from "./sdk_keys.ts";

/** The request body. */
export const ProductionFileBody = z.object({
  /** The compact JWS `getConfiguration()` returned. */
  configuration: z.string().min(1).max(16_384),
  format: z.enum(EXPORT_FORMATS),
}).strict();

/** Problem codes of an evaluation not served through no fault of the request: no quota spent. */
const NOT_CHARGED: ReadonlySet<string> = new Set([
  "kernel_busy",
  "render_timeout",
  "internal_error",
]);

/** What the hand-off needs from the process. */
export interface ProductionFileDeps {
  /** The hub's key records (its key cache). */
  keys: { get(keyId: string): Promise<SdkKeyRecord | null> };
  /** The hub's published verification keys (`/.well-known/jwks.json`'s document). */
  jwks(): Promise<JSONWebKeySet>;
  clock: () => number;
  /** The render services of this process; absent on a hub that does not evaluate (ROLE=hub). */
  render?: Pick<ExportDeps, "exports" | "exportFile" | "quotas" | "templates">;
}

/**
 * Checks a backend's request and returns the production file.
 *
 * @example
 * ```ts
 * const file = await productionFileRequest(deps, {
 *   authorization: "Bearer sdk_…", body: { configuration, format: "3mf" },
 * });
 * ```
 */
export async function productionFileRequest(
  deps: ProductionFileDeps,
  input: { authorization: string | null; body: unknown },
): Promise<Omit<ExportOutcome, "remaining">> {
  const credential = parseCredential(input.authorization);
  const body = validate(ProductionFileBody, input.body);
  let claims;
  try {
    claims = await verifyConfiguration(body.configuration, await deps.jwks(), {
      now: deps.clock(),
    });
  } catch (err) {
    if (err instanceof ConfigurationError) {
      throw new AppError(
        "invalid_configuration",
        `The configuration does not verify: ${err.message}.`,
        {
          extensions: { reason: err.reason },
        },
      );
    }
    throw err;
  }
  const key = await deps.keys.get(credential.keyId);
  if (!key) throw new AppError("invalid_credentials", "The key is not valid.");
  if (key.revokedAt !== null) {
    throw new AppError("key_revoked", `The key "${key.keyId}" was revoked.`);
  }
  if (!(await secretAccepted(key, credential.secret, deps.clock()))) {
    throw new AppError("invalid_credentials", "The secret does not match this key.");
  }
  if (key.partnerId !== claims.partner || !key.allowedProjects.includes(claims.project)) {
    throw new AppError(
      "configuration_not_owned",
      key.partnerId !== claims.partner
        ? "This configuration was signed for another partner's configurator."
        : `This key does not allow the project "${claims.project}".`,
    );
  }
  assertExportAllowed(exportFormatsOf(key), "server", body.format);
  const render = deps.render;
  if (!render) {
    throw new AppError(
      "service_unavailable",
      "This hub does not evaluate designs (ROLE=hub); call a process that also renders.",
    );
  }
  const project = await render.templates.get(
    { partnerId: claims.partner, slug: claims.project },
    claims.version,
  );
  if (!project.template) {
    throw new AppError("invalid_configuration", "This project has no DAG template to export.", {
      extensions: { reason: "no_template" },
    });
  }
  let dag, dagHash;
  try {
    const finished = substitute(project.template, project.schema, claims.values);
    ({ dag, dagHash } = await checkInstance(
      finished,
      project.template,
      project.templateHash,
      project.schema,
    ));
  } catch (err) {
    if (!(err instanceof DagError)) throw err;
    throw new AppError("invalid_configuration", `The configuration's values: ${err.message}.`, {
      extensions: { reason: "values" },
    });
  }
  if (dagHash !== claims.dagHash) {
    throw new AppError(
      "invalid_configuration",
      "The configuration's values no longer give the DAG it was signed for.",
      { extensions: { reason: "dag_hash" } },
    );
  }
  await render.quotas?.spend(key.keyId);
  let built: { file: Uint8Array; cache: CacheLevel };
  try {
    built = await render.exports.getOrBuild(
      body.format,
      await cacheKey(KERNEL_VERSION, dagHash),
      () =>
        render.exportFile(dag, body.format, claims.project, undefined, {
          token: `key:${key.keyId}`,
          partner: key.partnerId,
        }),
    );
  } catch (err) {
    const code = (err as { code?: unknown })?.code;
    if (typeof code === "string" && NOT_CHARGED.has(code)) {
      await render.quotas?.refund(key.keyId).catch(() => {});
    }
    throw err;
  }
  return {
    file: built.file,
    format: body.format,
    contentType: EXPORT_FORMAT_INFO[body.format].contentType,
    filename: exportFilename(claims.project, claims.version, dagHash, body.format),
    cache: built.cache,
  };
}

function parseCredential(authorization: string | null): { keyId: string; secret: string } {
  const match = /^Bearer +(\S+)$/i.exec(authorization?.trim() ?? "");
  if (!match) {
    throw new AppError(
      "unauthenticated",
      "Send the key's secret as `Authorization: Bearer sdk_<keyId>_<secret>`.",
    );
  }
  try {
    return parsePartnerKey(match[1]);
  } catch (err) {
    if (err instanceof PartnerKeyFormatError) {
      throw new AppError("invalid_key_format", err.message, { extensions: { reason: err.reason } });
    }
    throw err;
  }
}
