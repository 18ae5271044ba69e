/**
 * `POST /sdk/v1/configurations`: a session-token holder asks the hub to sign its configuration.
 * The token proves who asks (verified like a render: signature, audience, time, revocation, and
 * the request's `Origin` equal to the token's `origin`); the project comes from the token, never
 * from the body; the values are validated against that project version by substitution.
 */
import { AppError } from "../http/problem.ts";
import { validateParameterSchema } from "../dag/parameter_schema.ts";
import type { Dag } from "../dag/dag_types.ts";
import { publishedVersion } from "./published_versions.ts";
import { getSdkKey } from "../store/sdk_keys.ts";
import { exportFormatsOf } from "../dag/export_format.ts";
import type { SessionClaims } from "../token/claims.ts";
import { TokenError } from "../token/errors.ts";
import { verifyToken } from "../token/verify.ts";
import { z } from "zod";
import { validate } from "../http/validate.ts";
import { type ConfigurationClaims, signConfiguration } from "./configuration_signature.ts";

/** The request body. */
export const ConfigurationBody = z.object({
  values: z.record(z.string(), z.unknown()),
  version: z.number().int().min(1).optional(),
}).strict();

/** What signing a request needs from the process. */
export interface ConfigurationDeps {
  kv: Deno.Kv;
  keyring: {
    resolve(kid: string): Promise<CryptoKey | undefined>;
    signingKey(): { kid: string; privateKey: CryptoKey };
  };
  /** Revocation check when this process has one (ROLE=all). */
  isRevoked?: (claims: SessionClaims) => Promise<boolean>;
  clock: () => number;
  /** The order hand-off URL (`<hub>/api/v1/production-files`) signed into each configuration. */
  productionUrl?: string;
}

/**
 * Verifies the caller's session token and signs its configuration. Throws `AppError`.
 *
 * @example
 * ```ts
 * const { configuration, claims } = await signConfigurationRequest(deps, { authorization, origin, body });
 * ```
 */
export async function signConfigurationRequest(
  deps: ConfigurationDeps,
  input: { authorization: string | null; origin: string | null; body: unknown },
  trace: { tokenOrigin?: string } = {},
): Promise<{ configuration: string; claims: ConfigurationClaims }> {
  // As on the render route: anything after "Bearer " is verified (a wrong prefix is `bad_prefix`).
  const match = /^Bearer +(\S+)$/i.exec(input.authorization?.trim() ?? "");
  if (!match) {
    throw new AppError("invalid_token", "Send the session token as Authorization: Bearer sv1.…", {
      extensions: { reason: "missing" },
    });
  }
  let claims: SessionClaims;
  try {
    claims = await verifyToken(match[1], (kid) => deps.keyring.resolve(kid), {
      now: Math.floor(deps.clock() / 1000),
    });
  } catch (err) {
    if (err instanceof TokenError) {
      const origin = err.verifiedPayload?.origin;
      if (typeof origin === "string") trace.tokenOrigin = origin;
      throw new AppError(err.code, err.message, { extensions: { reason: err.reason } });
    }
    throw err;
  }
  trace.tokenOrigin = claims.origin;
  if (deps.isRevoked && await deps.isRevoked(claims)) {
    throw new AppError("token_revoked", "This token, or the key that minted it, was revoked.");
  }
  if (input.origin !== claims.origin) {
    throw new AppError(
      "origin_mismatch",
      `The Origin "${
        input.origin ?? "(none)"
      }" does not match this token's origin "${claims.origin}".`,
    );
  }
  const body = validate(ConfigurationBody, input.body);
  const version = (await publishedVersion(
    deps.kv,
    { partnerId: claims.partner, slug: claims.project },
    body.version,
  ))?.version;
  if (!version) {
    throw new AppError(
      "unknown_project_version",
      `No version ${body.version ?? "(current)"} of "${claims.project}".`,
    );
  }
  if (version.mode !== "template") {
    throw new AppError("invalid_dag", "This project has no DAG template to configure.");
  }
  return await signConfiguration({
    template: version.template as Dag,
    schema: validateParameterSchema(version.schema),
    project: version.slug,
    version: version.version,
    values: body.values,
    token: claims,
    signingKey: deps.keyring.signingKey(),
    now: deps.clock(),
    production: deps.productionUrl
      ? {
        url: deps.productionUrl,
        formats: exportFormatsOf(await getSdkKey(deps.kv, claims.client_id)).server,
      }
      : undefined,
  });
}
