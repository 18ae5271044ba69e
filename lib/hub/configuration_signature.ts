/**
 * Hub-signed configurations: what an end user configured (project, version, values, the finished
 * DAG's hash), signed by the hub so a partner's server can trust it for add-to-cart or pricing.
 *
 * The format is a standard compact JWS (RFC 7515) with `alg: EdDSA` (Ed25519), `kid` and
 * `typ: cad-configuration+jwt`, signed with the hub's current token-signing key. A partner verifies
 * it with any JOSE library against the hub's JWKS (`/.well-known/jwks.json`) — no shared secret —
 * or posts it to `/sdk/v1/configurations/verify`. The hub signs only values that are valid for the
 * project version (it substitutes them into the template itself and hashes the result), so the
 * `dagHash` is the hub's, never the browser's.
 *
 * The order hand-off (docs/exports.md): `production` tells the partner's backend where to fetch
 * the production file of exactly this configuration with its secret (`POST production.url` with
 * `{ configuration, format }`) and which formats its key allows the server flow; the signature's
 * `exp` bounds how long that works.
 */
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify, SignJWT } from "jose";
import { AppError } from "../http/problem.ts";
import { dagHash } from "../dag/canonical_dag.ts";
import { DagError } from "../dag/dag_errors.ts";
import type { Dag } from "../dag/dag_types.ts";
import type { ParameterSchema } from "../dag/parameter_schema.ts";
import { substitute } from "../dag/substitute.ts";
import type { ExportFormat } from "../dag/export_format.ts";

/** The JWS `typ` of a signed configuration. */
export const CONFIGURATION_TYP = "cad-configuration+jwt";
/** How long a signed configuration stays valid (a cart or quote flow, not a permanent record). */
export const CONFIGURATION_TTL_SECONDS = 24 * 60 * 60;

/** The claims of a signed configuration. */
export interface ConfigurationClaims {
  iss: "hub";
  /** The partner the token (and so the configuration) belongs to. */
  partner: string;
  /** The key that minted the session token. */
  client_id: string;
  /** The end user (the token's `sub`). */
  sub: string;
  project: string;
  version: number;
  /** Every parameter's value (defaults filled in). */
  values: Record<string, unknown>;
  /** SHA-256 of the canonical finished DAG: the same hash the render service keys its cache on. */
  dagHash: string;
  /** Where and in which formats the partner's backend fetches this configuration's file. */
  production?: ProductionHandOff;
  iat: number;
  exp: number;
}

/** The order hand-off part of a signed configuration (docs/exports.md, Order hand-off). */
export interface ProductionHandOff {
  /** `POST` here with `Authorization: Bearer sdk_<keyId>_<secret>` and `{ configuration, format }`. */
  url: string;
  /** The formats the key allows its server flow (its secret) when the configuration was signed. */
  formats: ExportFormat[];
}

/** What signing needs: the project version's documents, the token's claims, a key and a clock. */
export interface SignConfigurationInput {
  template: Dag;
  schema: ParameterSchema;
  project: string;
  version: number;
  values: Record<string, unknown>;
  token: { partner: string; client_id?: string; sub: string };
  signingKey: { kid: string; privateKey: CryptoKey };
  /** Milliseconds since the epoch. */
  now: number;
  /** The order hand-off to sign in (absent: none). */
  production?: ProductionHandOff;
}

/**
 * Validates `values` against the project version and signs the configuration. Throws `AppError`
 * `invalid_parameters` (with `pointer`) when a value is not valid.
 *
 * @example
 * ```ts
 * const { configuration, claims } = await signConfiguration({ template, schema, project: "vase",
 *   version: 1, values: { height: 180 }, token: claims, signingKey: keyring.signingKey(), now: Date.now() });
 * ```
 */
export async function signConfiguration(
  input: SignConfigurationInput,
): Promise<{ configuration: string; claims: ConfigurationClaims }> {
  let dag: Dag;
  try {
    dag = substitute(input.template, input.schema, input.values);
  } catch (err) {
    if (err instanceof DagError) {
      throw new AppError(
        err.code === "invalid_parameters" ? "invalid_parameters" : "invalid_dag",
        err.message,
        {
          extensions: { pointer: err.pointer, reason: err.reason },
        },
      );
    }
    throw err;
  }
  const values: Record<string, unknown> = {};
  for (const p of input.schema.parameters) {
    values[p.name] = Object.hasOwn(input.values, p.name) ? input.values[p.name] : p.default;
  }
  const iat = Math.floor(input.now / 1000);
  const claims: ConfigurationClaims = {
    iss: "hub",
    partner: input.token.partner,
    client_id: input.token.client_id ?? "",
    sub: input.token.sub,
    project: input.project,
    version: input.version,
    values,
    dagHash: await dagHash(dag),
    ...(input.production ? { production: input.production } : {}),
    iat,
    exp: iat + CONFIGURATION_TTL_SECONDS,
  };
  const configuration = await new SignJWT({ ...claims })
    .setProtectedHeader({ alg: "EdDSA", kid: input.signingKey.kid, typ: CONFIGURATION_TYP })
    .sign(input.signingKey.privateKey);
  return { configuration, claims };
}

/** Why a configuration did not verify. */
export class ConfigurationError extends Error {
  /** Stable reason: `invalid_signature`, `expired`, `malformed`. */
  readonly reason: string;
  /** A configuration that does not verify, with the reason. */
  constructor(reason: string, message: string) {
    super(message);
    this.name = "ConfigurationError";
    this.reason = reason;
  }
}

/**
 * Verifies a signed configuration against a JWKS (the hub's `/.well-known/jwks.json` document)
 * and returns its claims; throws `ConfigurationError`. This is what a partner's server runs.
 *
 * @example
 * ```ts
 * const jwks = await (await fetch("https://hub.example.com/.well-known/jwks.json")).json();
 * const claims = await verifyConfiguration(configuration, jwks, { now: Date.now() });
 * ```
 */
export async function verifyConfiguration(
  configuration: string,
  jwks: JSONWebKeySet,
  options: { now: number },
): Promise<ConfigurationClaims> {
  if (typeof configuration !== "string" || configuration.length > 16_384) {
    throw new ConfigurationError("malformed", "a configuration is a compact JWS string");
  }
  try {
    const { payload } = await jwtVerify(configuration, createLocalJWKSet(jwks), {
      algorithms: ["EdDSA", "Ed25519"],
      typ: CONFIGURATION_TYP,
      issuer: "hub",
      currentDate: new Date(options.now),
      clockTolerance: 60,
    });
    const claims = payload as unknown as ConfigurationClaims;
    if (
      typeof claims.project !== "string" || typeof claims.version !== "number" ||
      typeof claims.dagHash !== "string" || typeof claims.values !== "object"
    ) {
      throw new ConfigurationError(
        "malformed",
        "the configuration lacks project, version, values or dagHash",
      );
    }
    return claims;
  } catch (err) {
    if (err instanceof ConfigurationError) throw err;
    const code = (err as { code?: string }).code;
    if (code === "ERR_JWT_EXPIRED") {
      throw new ConfigurationError("expired", "the configuration expired");
    }
    if (code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED" || code === "ERR_JWKS_NO_MATCHING_KEY") {
      throw new ConfigurationError(
        "invalid_signature",
        "the signature does not verify with the hub's keys",
      );
    }
    throw new ConfigurationError("malformed", err instanceof Error ? err.message : String(err));
  }
}
