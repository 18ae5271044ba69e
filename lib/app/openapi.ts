/**
 * The OpenAPI 3.1 document served at `/openapi.json`. Request schemas come from the zod schemas
 * the handlers validate with; response schemas from lib/app/openapi_schemas.ts. Each operation
 * lists the problem codes it can answer, and their statuses come from the one code → status
 * mapping (lib/http/error_codes.ts). tests/web/openapi_responses_test.ts sends real responses of
 * every operation and every listed code through a validator, so the document cannot drift.
 */
import { z } from "zod";
import type { Config } from "../config.ts";
import { ERROR_CODES, type ErrorCode } from "../http/error_codes.ts";
import { BrowserMintBody, MintResponse, ServerMintBody } from "../hub/mint_request.ts";
import { MAX_RENDER_BODY_BYTES, RenderBody } from "../render/render_request.ts";
import { ConfigurationBody } from "../hub/configuration_request.ts";
import { ConfiguratorMintBody } from "../hub/configurator_mint.ts";
import { RESPONSE_SCHEMAS } from "./openapi_schemas.ts";
import { PYODIDE_FILES } from "../sdk/python_assets.ts";

function schema(s: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(s, { io: "input" }) as Record<string, unknown>;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ "application/json": { schema: ref(name) } });
const header = (description: string, required = false) => ({
  description,
  required,
  schema: { type: "string" },
});

/** Headers some problem statuses always carry. */
const PROBLEM_HEADERS: Record<number, Record<string, unknown>> = {
  401: {
    "WWW-Authenticate": header(
      'The challenge (RFC 9110 §11.6.1): `Bearer realm="partner-key"` or `Bearer ' +
        'realm="session-token"`, with `error="invalid_token"` when a credential was sent and ' +
        "refused (RFC 6750 §3). See docs/errors.md, Challenges.",
      true,
    ),
  },
  503: { "Retry-After": header("Seconds until a retry may succeed.", true) },
};

/**
 * The problem responses of an operation: `codes` maps each code it can answer to when, and the
 * codes are grouped under their catalogue status. `headers` adds headers by status.
 */
function problems(
  codes: Partial<Record<ErrorCode, string>>,
  headers: Record<number, Record<string, unknown>> = {},
): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(codes) as ErrorCode[]) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const statusHeaders = { ...PROBLEM_HEADERS[status], ...headers[status] };
    out[String(status)] = {
      description: list.map((c) => `\`${c}\`: ${codes[c]}`).join(" "),
      ...(Object.keys(statusHeaders).length ? { headers: statusHeaders } : {}),
      content: {
        "application/problem+json": {
          schema: {
            ...ref("Problem"),
            properties: { status: { const: status }, code: { enum: list } },
          },
        },
      },
    };
  }
  return out;
}

const RATE_LIMITED = { "Retry-After": header("Seconds until the limit resets.", true) };

/** What every JSON-body endpoint answers before its handler looks at the content. */
const BODY_CODES = {
  invalid_body: "The body is not UTF-8 JSON (NaN is not JSON).",
  unsupported_media_type: "The body is not application/json.",
} as const;

/** A CORS preflight operation. */
const preflight = (summary: string) => ({
  summary,
  responses: {
    "204": {
      description: "Preflight answer: allow headers when the origin and request are allowed.",
    },
  },
});

/** A public SDK file: the JavaScript module at a stable URL. */
const sdkModule = (operationId: string, summary: string) => ({
  get: {
    operationId,
    summary,
    responses: {
      "200": {
        description: "A one-line module re-exporting the content-hashed build (any origin).",
        headers: {
          "X-TypeScript-Types": header("The URL of the module's declarations (`/sdk/v1/types/…`)."),
        },
        content: { "text/javascript": { schema: { type: "string" } } },
      },
    },
  },
  options: preflight("CORS preflight (GET from any origin)"),
});

/** A cacheable static file answer: 200, 304 on a matching ETag, 404 for any other name. */
const assetResponses = (types: string[], description: string) => ({
  "200": {
    description,
    headers: { ETag: header("Changes with the file."), "Cache-Control": header("Cache lifetime.") },
    content: Object.fromEntries(
      types.map((t) => [t, { schema: t === "application/json" ? { type: "object" } : {} }]),
    ),
  },
  "304": { description: "The ETag matches If-None-Match." },
  ...problems({ not_found: "No such file (or another version)." }),
});

const IF_NONE_MATCH = { name: "If-None-Match", in: "header", schema: { type: "string" } };
const pathParam = (name: string, description?: string) => ({
  name,
  in: "path",
  required: true,
  ...(description ? { description } : {}),
  schema: { type: "string" },
});

/** The OpenAPI document for this deployment's public URLs. */
export function openApiDocument(
  config: Pick<Config, "hubUrl" | "kernelUrl">,
): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "CAD configurator — partner session tokens",
      version: "1.0.0",
      description:
        "Mint short-lived sv1 session tokens (hub), read published projects (hub) and render " +
        "finished DAGs for a token holder (kernel-api). See docs/api.md, docs/dag.md and, for " +
        "every problem code, docs/errors.md.",
    },
    servers: [{ url: config.hubUrl, description: "hub" }],
    paths: {
      "/v1/kernels/{kernel}/render": {
        servers: [{ url: config.kernelUrl, description: "kernel-api" }],
        parameters: [pathParam("kernel", "The geometry kernel; `manifold` is the only one.")],
        post: {
          operationId: "render",
          summary:
            "Render a finished DAG (an instance of the token's project template) into meshes",
          description:
            "Steps in order, each with its own problem code: body size → token → revocation → " +
            "Origin = token origin → body shape → template instance and parameter values → " +
            "budget (atomic, per jti) → L1 → L2 → evaluation. See docs/api.md, Render.",
          security: [{ sessionToken: [] }],
          parameters: [{
            name: "Origin",
            in: "header",
            required: true,
            description: "Must equal the token's `origin` claim on every request.",
            schema: { type: "string" },
          }],
          requestBody: {
            required: true,
            description: `At most ${MAX_RENDER_BODY_BYTES} bytes.`,
            content: json("RenderBody"),
          },
          responses: {
            "200": {
              description: "The scene, with the meshes the client does not hold.",
              content: json("RenderResponse"),
            },
            ...problems({
              ...BODY_CODES,
              body_too_large: `The body is larger than ${MAX_RENDER_BODY_BYTES} bytes.`,
              invalid_token: "No token (reason `missing`) or a bad one (with its reason).",
              token_expired: "The token's `exp` is past; mint a new one.",
              token_revoked: "The token or the key that minted it was revoked.",
              origin_mismatch: "The Origin header is missing or not the token's origin.",
              unknown_kernel: "No such kernel.",
              unknown_project_version:
                "The token's project (or the named version) is not published.",
              validation_failed: "The body is not a render body.",
              invalid_dag:
                "Not an instance of the template, a limit of docs/dag.md, or (python mode) not " +
                "concrete; with `reason` and `pointer`.",
              invalid_parameters: "A parameter value is out of range, off-step or unknown.",
              render_failed: "A computed NaN, overflow, division by zero or empty geometry.",
              budget_exhausted: "The token's render budget is spent.",
              quota_exceeded: "The key's render quota for the UTC day or month is spent.",
              internal_error: "A render worker crashed; it was replaced.",
              render_timeout: "The evaluation ran past its deadline and was stopped.",
              kernel_busy: "Not admitted to the evaluation pool (docs/api.md); retry later.",
              service_unavailable:
                "Redis does not answer (budgets, quotas fail closed) or the revocation replica is stale.",
            }),
          },
        },
        options: preflight("CORS preflight (authorization and content-type from any origin)"),
      },
      "/api/v1/projects/{slug}": {
        get: {
          operationId: "getProject",
          summary: "The current (or a named) version of a published project: template and schema",
          description: "Slugs are unique per partner, not globally: `key` (a publishable keyId " +
            "of the partner) or `partner` (a partner id, the `partner` claim of a session token) " +
            "names whose project is meant. Without either, the slug alone must name exactly one " +
            "published project; when several partners have published it the answer is 409 " +
            "`project_ambiguous`.",
          parameters: [
            pathParam("slug"),
            {
              name: "key",
              in: "query",
              required: false,
              description: "A publishable keyId of the partner (not the secret key).",
              schema: { type: "string" },
            },
            {
              name: "partner",
              in: "query",
              required: false,
              description: "The partner id (a session token's `partner` claim). Not with `key`.",
              schema: { type: "string" },
            },
            {
              name: "version",
              in: "query",
              required: false,
              description: "A published version; the current one when absent.",
              schema: { type: "integer", minimum: 1 },
            },
            IF_NONE_MATCH,
          ],
          responses: {
            "200": {
              description:
                "Public and cacheable (a named version is immutable; the current one for 60 s).",
              headers: {
                ETag: header("The version's ETag."),
                "Cache-Control": header("Immutable for a named version, 60 s for the current one."),
              },
              content: json("Project"),
            },
            "304": { description: "The ETag matches If-None-Match." },
            ...problems({
              unknown_project_version: "No such project or version (of the named partner).",
              validation_failed:
                "`version` is not a positive integer, or both `key` and `partner`.",
              unknown_key: "`key` is not a keyId of any partner.",
              key_revoked: "`key` was revoked.",
              project_ambiguous:
                "No `key` or `partner`, and several partners have published this slug.",
            }),
          },
        },
      },
      "/api/v1/sdk/session-tokens": {
        post: {
          operationId: "mintSessionToken",
          summary:
            "Mint a session token (browser flow with keyId + Origin, or server flow with a secret key)",
          security: [{}, { partnerSecretKey: [] }],
          parameters: [{
            name: "Origin",
            in: "header",
            required: false,
            description:
              "Browser flow: attached by the browser; must be one of the key's allowed origins.",
            schema: { type: "string" },
          }],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: { oneOf: [ref("BrowserMintBody"), ref("ServerMintBody")] },
              },
            },
          },
          responses: {
            "200": {
              description: "A minted token.",
              headers: {
                RateLimit: header(
                  "The key's remaining mints (draft-ietf-httpapi-ratelimit); in the browser " +
                    'flow also the client address\'s ("mint-ip").',
                ),
                "RateLimit-Policy": header("The key's mint limit (and the per-address one)."),
              },
              content: json("MintResponse"),
            },
            ...problems({
              ...BODY_CODES,
              origin_required: "Browser flow (no Authorization) without an Origin header.",
              body_too_large: "The body is larger than 16 KiB.",
              unauthenticated: "Neither a keyId nor `Authorization: Bearer sdk_…`.",
              invalid_key_format: "The secret key is malformed; `reason` says which check failed.",
              invalid_credentials: "Server flow: an unknown key or a wrong secret.",
              unknown_key: "Browser flow: no key has this keyId.",
              key_revoked: "The key was revoked.",
              origin_not_allowed: "The origin is not one of the key's allowed origins.",
              project_not_allowed: "projectId is not one of the key's allowed projects.",
              validation_failed: "The body is not a mint body.",
              origin_conflict: "Browser flow: the body origin differs from the Origin header.",
              ttl_out_of_bounds: "ttlSeconds is below 60 or above the key's max TTL.",
              rate_limited: "A mint limit is exhausted: the key's (`scope` `key`) or, in the " +
                "browser flow, the client address's for this key (`scope` `client_ip`).",
              service_unavailable: "The token's render budget could not be opened (Redis down).",
            }, { 429: RATE_LIMITED }),
          },
        },
        options: preflight("CORS preflight (origins some key lists)"),
      },
      "/sdk/v1/configurations": {
        post: {
          operationId: "signConfiguration",
          summary:
            "Sign the token holder's configuration (compact JWS, EdDSA; see docs/embedding.md)",
          security: [{ sessionToken: [] }],
          requestBody: {
            required: true,
            content: { "application/json": { schema: schema(ConfigurationBody) } },
          },
          responses: {
            "200": {
              description: "The signed configuration and its claims.",
              content: json("SignedConfiguration"),
            },
            ...problems({
              ...BODY_CODES,
              body_too_large: "The body is larger than 16 KiB.",
              invalid_token: "No token (reason `missing`) or a bad one (with its reason).",
              token_expired: "The token's `exp` is past.",
              token_revoked: "The token or its key was revoked.",
              origin_mismatch: "The Origin header is not the token's origin.",
              unknown_project_version: "No such version of the token's project.",
              validation_failed: "The body is not `{values, version?}`.",
              invalid_parameters: "A value is out of range, off-step or unknown.",
              invalid_dag: "The project is python-mode: it has no template to configure.",
              service_unavailable: "Revocations cannot be checked (Redis down).",
            }),
          },
        },
        options: preflight("CORS preflight (authorization and content-type from any origin)"),
      },
      "/sdk/v1/configurations/verify": {
        post: {
          operationId: "verifyConfiguration",
          summary: "Check a signed configuration against the hub's JWKS",
          requestBody: { required: true, content: json("VerifyConfigurationBody") },
          responses: {
            "200": {
              description: "`{valid: true, payload}` or `{valid: false, reason}`.",
              content: json("VerifyConfigurationResult"),
            },
            ...problems({
              ...BODY_CODES,
              body_too_large: "The body is larger than 16 KiB.",
              validation_failed: "The body has no `configuration` string.",
            }),
          },
        },
      },
      "/configurator/{project}/session-token": {
        post: {
          operationId: "mintConfiguratorToken",
          summary:
            "The hub's hosted configurator mints here (same-origin only; see docs/embedding.md)",
          parameters: [pathParam("project")],
          requestBody: {
            required: true,
            content: { "application/json": { schema: schema(ConfiguratorMintBody) } },
          },
          responses: {
            "200": {
              description: "A token bound to the hub's origin.",
              content: json("MintResponse"),
            },
            ...problems({
              ...BODY_CODES,
              body_too_large: "The body is larger than 16 KiB.",
              unknown_key: "No key has this keyId.",
              key_revoked: "The key was revoked.",
              origin_not_allowed:
                "The caller is not a hub page, or parentOrigin is not an allowed origin.",
              project_not_allowed: "The project is not one of the key's allowed projects.",
              validation_failed: "The body is not a configurator mint body, or its projectId " +
                "is not the project in the path.",
              rate_limited: "A mint limit is exhausted: the key's (`scope` `key`) or, in the " +
                "browser flow, the client address's for this key (`scope` `client_ip`).",
              service_unavailable: "The token's render budget could not be opened (Redis down).",
            }, { 429: RATE_LIMITED }),
          },
        },
      },
      "/.well-known/jwks.json": {
        get: {
          operationId: "getJwks",
          summary: "The hub's Ed25519 token-signing public keys",
          responses: { "200": { description: "JWK set.", content: json("Jwks") } },
        },
      },
      "/problems/{code}": {
        get: {
          operationId: "getProblemType",
          summary: "What a problem `type` means: the code's status and title",
          parameters: [pathParam("code")],
          responses: {
            "200": { description: "The problem type.", content: json("ProblemType") },
            ...problems({ not_found: "No such problem code." }),
          },
        },
      },
      "/openapi.json": {
        get: {
          operationId: "getOpenApi",
          summary: "This document",
          responses: { "200": { description: "OpenAPI 3.1.", content: json("OpenApiDocument") } },
        },
      },
      "/sdk/v1/embed.js": sdkModule("getEmbedModule", "The `<cad-configurator>` element"),
      "/sdk/v1/preact.js": sdkModule("getPreactModule", "The Preact components and hooks"),
      "/sdk/v1/types/{path}": {
        get: {
          operationId: "getSdkDeclarations",
          summary: "The SDK modules' TypeScript declarations, named by `X-TypeScript-Types`",
          parameters: [{
            ...pathParam("path", "`<build hash>/<file>.d.ts`; may contain `/` (a catch-all)."),
            "x-multi-segment": true,
          }],
          responses: {
            "200": {
              description: "The declaration file (any origin).",
              content: { "application/typescript": { schema: { type: "string" } } },
            },
            ...problems({ not_found: "No such file, or the hash of another build." }),
          },
        },
      },
      "/sdk/v1/pyodide/{version}/{file}": {
        get: {
          operationId: "getPyodideFile",
          summary: "A file of the Pyodide runtime of the Python fallback (immutable)",
          parameters: [
            pathParam("version", "The Pyodide release the hub serves."),
            pathParam("file", `One of ${Object.keys(PYODIDE_FILES).join(", ")}.`),
            IF_NONE_MATCH,
          ],
          responses: assetResponses(
            [...new Set(Object.values(PYODIDE_FILES).map((t) => t.split(";")[0]))],
            "The file (gzip when accepted and it compresses).",
          ),
        },
      },
      "/sdk/v1/python/{file}": {
        get: {
          operationId: "getPythonRuntimeFile",
          summary: "The Python fallback's worker script or design package",
          parameters: [pathParam("file", "`worker.js` or `cadparam.json`."), IF_NONE_MATCH],
          responses: assetResponses(
            ["text/javascript", "application/json"],
            "The file (gzip when accepted).",
          ),
        },
      },
      "/healthz": {
        get: {
          operationId: "getHealth",
          summary: "Liveness",
          responses: { "200": { description: "Up.", content: json("Health") } },
        },
      },
      "/readyz": {
        get: {
          operationId: "getReadiness",
          summary: "Readiness (KV and Redis reachable)",
          responses: {
            "200": { description: "Ready.", content: json("Readiness") },
            "503": { description: "A dependency is down.", content: json("Readiness") },
          },
        },
      },
      "/metrics": {
        get: {
          operationId: "getMetrics",
          summary: "Prometheus metrics",
          responses: {
            "200": {
              description: "Text exposition format.",
              content: { "text/plain": { schema: { type: "string" } } },
            },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        sessionToken: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "sv1.<claims>.<signature>",
          description: "A session token minted by the hub, bound to the request's Origin.",
        },
        partnerSecretKey: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "sdk_<keyId>_<secret>",
          description: "Server flow only. Never send the secret from a browser.",
        },
      },
      schemas: {
        BrowserMintBody: schema(BrowserMintBody),
        ServerMintBody: schema(ServerMintBody),
        MintResponse: schema(MintResponse),
        RenderBody: schema(RenderBody),
        ...RESPONSE_SCHEMAS,
      },
    },
  };
}
