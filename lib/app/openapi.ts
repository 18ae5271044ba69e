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
import { ProductionFileBody } from "../hub/production_file.ts";
import { EXPORT_FORMAT_INFO, EXPORT_FORMATS } from "../dag/export_format.ts";
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

/** The 200 of an export: the file in its format, as an attachment. */
function exportFileResponse(): Record<string, unknown> {
  return {
    description: "The file, as an attachment named `<project>-v<version>-<hash12>.<ext>`.",
    headers: {
      "Content-Disposition": header('`attachment; filename="…"`.', true),
    },
    content: Object.fromEntries(
      EXPORT_FORMATS.map((f) => [
        EXPORT_FORMAT_INFO[f].contentType,
        { schema: { type: "string", format: "binary" } },
      ]),
    ),
  };
}

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
            "budget (atomic, per jti; once per Idempotency-Key) → L1 → L2 → evaluation. See " +
            "docs/api.md, Render.",
          security: [{ sessionToken: [] }],
          parameters: [{
            name: "Origin",
            in: "header",
            required: true,
            description: "Must equal the token's `origin` claim on every request.",
            schema: { type: "string" },
          }, {
            name: "Accept",
            in: "header",
            required: false,
            description: "`application/vnd.cad-render` (weighed at least as high as JSON) asks " +
              "for the binary form; anything else gets JSON.",
            schema: { type: "string" },
          }, {
            name: "Idempotency-Key",
            in: "header",
            required: false,
            description: "One random key per logical render (16–64 of `A-Z a-z 0-9 _ -`, bare or " +
              "in double quotes), sent unchanged when the render is retried: a retry with the " +
              "same key and DAG spends no second budget unit. See docs/api.md, Idempotent retries.",
            schema: { type: "string", pattern: '^"?[A-Za-z0-9_-]{16,64}"?$' },
          }],
          requestBody: {
            required: true,
            description: `At most ${MAX_RENDER_BODY_BYTES} bytes.`,
            content: json("RenderBody"),
          },
          responses: {
            "200": {
              description: "The scene, with the meshes the client does not hold; brotli or " +
                "gzip when Accept-Encoding allows (Vary: Accept, Accept-Encoding).",
              content: {
                ...json("RenderResponse"),
                "application/vnd.cad-render": {
                  schema: { type: "string", format: "binary" },
                  description: "The same members in the binary form: a 16-byte header, a JSON " +
                    "head (scene, meshes naming byte ranges), the meshopt buffers aligned to 4 " +
                    "bytes, then a JSON tail (omitted, kernel, …, budget). See docs/api.md, " +
                    "render response.",
                },
              },
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
              invalid_idempotency_key: "The Idempotency-Key header is malformed.",
              idempotency_key_reused:
                "The Idempotency-Key already paid for a render of another DAG with this token.",
              internal_error: "A render worker crashed; it was replaced.",
              render_timeout: "The evaluation ran past its deadline and was stopped.",
              kernel_busy: "Not admitted to the evaluation pool (docs/api.md); retry later.",
              service_unavailable:
                "Redis does not answer (budgets, quotas fail closed) or the revocation replica is stale.",
            }),
          },
        },
        options: preflight(
          "CORS preflight (authorization, content-type and idempotency-key from any origin)",
        ),
      },
      "/v1/kernels/{kernel}/export": {
        servers: [{ url: config.kernelUrl, description: "kernel-api" }],
        parameters: [pathParam("kernel", "The geometry kernel; `manifold` is the only one.")],
        post: {
          operationId: "exportConfiguration",
          summary: "A finished DAG's file (GLB, STL or 3MF) from the exact geometry",
          description: "A render's body, checks and cost (one budget unit), then the key's " +
            "export formats for session tokens (default GLB only). See docs/exports.md.",
          security: [{ sessionToken: [] }],
          parameters: [{
            name: "format",
            in: "query",
            required: true,
            description: "The file format.",
            schema: { enum: [...EXPORT_FORMATS] },
          }, {
            name: "Origin",
            in: "header",
            required: true,
            description: "Must equal the token's `origin` claim.",
            schema: { type: "string" },
          }],
          requestBody: {
            required: true,
            description: `At most ${MAX_RENDER_BODY_BYTES} bytes.`,
            content: json("RenderBody"),
          },
          responses: {
            "200": exportFileResponse(),
            ...problems({
              ...BODY_CODES,
              invalid_token: "No token (reason `missing`) or a bad one (with its reason).",
              token_expired: "The token's `exp` is past; mint a new one.",
              token_revoked: "The token or the key that minted it was revoked.",
              origin_mismatch: "The Origin header is missing or not the token's origin.",
              unknown_kernel: "No such kernel.",
              unknown_export_format: "`format` is missing or not glb, stl or 3mf.",
              export_format_not_allowed:
                "The token's key does not allow session tokens this format (no unit spent).",
              validation_failed: "The body is not a render body.",
              invalid_dag: "Not an instance of the template, or a limit of docs/dag.md.",
              budget_exhausted: "The token's render budget is spent.",
              quota_exceeded: "The key's render quota for the UTC day or month is spent.",
              body_too_large: `The body is larger than ${MAX_RENDER_BODY_BYTES} bytes.`,
              internal_error: "A render worker crashed; it was replaced (the unit is refunded).",
              render_timeout: "The evaluation ran past its deadline (the unit is refunded).",
              kernel_busy: "Not admitted to the evaluation pool; retry later.",
              service_unavailable: "Redis does not answer, or the revocation replica is stale.",
            }),
          },
        },
        options: preflight("CORS preflight (authorization and content-type from any origin)"),
      },
      "/v1/kernels/{kernel}/ar-ticket": {
        servers: [{ url: config.kernelUrl, description: "kernel-api" }],
        parameters: [pathParam("kernel", "The geometry kernel; `manifold` is the only one.")],
        post: {
          operationId: "arTicket",
          summary: "A short-lived URL of a finished DAG's GLB that needs no token (Scene Viewer)",
          description: "The GLB export's body, checks and cost (one budget unit; the key must " +
            "allow GLB for session tokens), answered as a URL that any client fetches without " +
            "a token or Origin for 5 minutes. See docs/security.md, AR tickets.",
          security: [{ sessionToken: [] }],
          parameters: [{
            name: "Origin",
            in: "header",
            required: true,
            description: "Must equal the token's `origin` claim.",
            schema: { type: "string" },
          }],
          requestBody: {
            required: true,
            description: `At most ${MAX_RENDER_BODY_BYTES} bytes.`,
            content: json("RenderBody"),
          },
          responses: {
            "200": { description: "The ticket's URL and expiry.", content: json("ArTicket") },
            ...problems({
              ...BODY_CODES,
              invalid_token: "No token (reason `missing`) or a bad one (with its reason).",
              token_expired: "The token's `exp` is past; mint a new one.",
              token_revoked: "The token or the key that minted it was revoked.",
              origin_mismatch: "The Origin header is missing or not the token's origin.",
              unknown_kernel: "No such kernel.",
              export_format_not_allowed:
                "The token's key does not allow session tokens GLB (no unit spent).",
              validation_failed: "The body is not a render body.",
              invalid_dag: "Not an instance of the template, or a limit of docs/dag.md.",
              budget_exhausted: "The token's render budget is spent.",
              quota_exceeded: "The key's render quota for the UTC day or month is spent.",
              body_too_large: `The body is larger than ${MAX_RENDER_BODY_BYTES} bytes.`,
              internal_error: "A render worker crashed; it was replaced (the unit is refunded).",
              render_timeout: "The evaluation ran past its deadline (the unit is refunded).",
              kernel_busy: "Not admitted to the evaluation pool; retry later.",
              service_unavailable: "Redis does not answer (the ticket cannot be stored), or " +
                "the revocation replica is stale.",
            }),
          },
        },
        options: preflight("CORS preflight (authorization and content-type from any origin)"),
      },
      "/v1/kernels/{kernel}/ar/{file}": {
        servers: [{ url: config.kernelUrl, description: "kernel-api" }],
        parameters: [
          pathParam("kernel", "The geometry kernel; `manifold` is the only one."),
          pathParam("file", "`<ticket>.glb`, from POST /v1/kernels/{kernel}/ar-ticket."),
        ],
        get: {
          operationId: "arTicketModel",
          summary: "The GLB an AR ticket names: no token, no Origin, readable from any origin",
          description: "Fetch it as often as needed until the ticket expires; nothing is paid " +
            "again. `Cache-Control: private, max-age=<seconds left>`. See docs/security.md.",
          responses: {
            "200": {
              description: "The GLB.",
              content: { "model/gltf-binary": { schema: { type: "string", format: "binary" } } },
            },
            ...problems({
              ar_ticket_unknown: "No such ticket: expired, never issued, or not `<ticket>.glb`.",
              unknown_kernel: "No such kernel.",
            }),
          },
        },
      },
      "/api/v1/production-files": {
        post: {
          operationId: "productionFile",
          summary: "The order hand-off: a signed configuration's production file, for its " +
            "partner's backend",
          description: "Checked in order: the key's format, the body, the configuration's " +
            "signature and expiry, the key and secret, that the key is the configuration's " +
            "partner's and allows its project, and the key's export formats for its secret. " +
            "Counted on the key's render quota. See docs/exports.md, Order hand-off.",
          security: [{ partnerSecretKey: [] }],
          requestBody: {
            required: true,
            content: { "application/json": { schema: schema(ProductionFileBody) } },
          },
          responses: {
            "200": exportFileResponse(),
            ...problems({
              ...BODY_CODES,
              unauthenticated: "No `Authorization: Bearer sdk_<keyId>_<secret>`.",
              invalid_key_format: "The partner key is malformed.",
              invalid_credentials: "Unknown key, or the secret does not match it.",
              key_revoked: "The key was revoked.",
              validation_failed: "The body is not `{configuration, format}`.",
              invalid_configuration:
                "The configuration does not verify (`reason`: invalid_signature, expired, " +
                "malformed).",
              configuration_not_owned:
                "The configuration is another partner's, or for a project the key does not allow.",
              export_format_not_allowed: "The key does not allow its secret this format.",
            }),
          },
        },
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
      "/api/v1/partners/{partnerId}/projects/{slug}/versions/{version}": {
        get: {
          operationId: "getProjectVersionForKernel",
          summary: "A published version as a kernel node renders it (hub only; public)",
          description: "The feed kernel nodes (`ROLE=kernel`, no Deno KV) load projects from " +
            "(docs/api.md, Kernel feeds). A numbered version is immutable; `current` is cached " +
            "5 s and revalidated with If-None-Match.",
          parameters: [
            pathParam("partnerId"),
            pathParam("slug"),
            pathParam("version", "`current` or a positive integer."),
            IF_NONE_MATCH,
          ],
          responses: {
            "200": {
              description: "The version (public, `Access-Control-Allow-Origin: *`).",
              headers: {
                ETag: header("Strong: the stored hash of template and schema, and the version."),
                "Cache-Control": header("Immutable for a number, `max-age=5` for `current`."),
              },
              content: json("KernelProjectVersion"),
            },
            "304": { description: "The ETag matches If-None-Match." },
            ...problems({
              unknown_project_version: "No such partner, project or version.",
              validation_failed: "The version is neither `current` nor a positive integer.",
            }),
          },
        },
      },
      "/api/v1/revocations": {
        get: {
          operationId: "getRevocationLog",
          summary: "The revocation log after a position, a page at a time (hub only; public)",
          description: "What a kernel node's revocation replica polls every second " +
            "(docs/tokens.md, Revocation). A page below the head (`upTo` < `head.seq`) was full: " +
            "ask again with `after=upTo`.",
          parameters: [
            {
              name: "after",
              in: "query",
              required: false,
              description: "The last position the reader holds (default 0).",
              schema: { type: "integer", minimum: 0 },
            },
            {
              name: "limit",
              in: "query",
              required: false,
              description: "Most entries in the page (default and most 2000).",
              schema: { type: "integer", minimum: 1, maximum: 2000 },
            },
          ],
          responses: {
            "200": {
              description: "The head and a page (`no-store`).",
              content: json("RevocationPage"),
            },
            ...problems({ validation_failed: "`after` or `limit` is not an integer in range." }),
          },
        },
      },
      "/api/v1/keys/{keyId}/render-quota": {
        get: {
          operationId: "getKeyRenderQuota",
          summary: "A key's render quota settings (hub only; public)",
          description: "Read by kernel nodes, which hold no Deno KV (docs/api.md, Kernel feeds).",
          parameters: [pathParam("keyId", "A publishable keyId.")],
          responses: {
            "200": { description: "The settings (`no-store`).", content: json("KeyRenderQuota") },
            ...problems({ not_found: "No key has this keyId." }),
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
            "The file (brotli or gzip when accepted and it compresses; an ETag per coding).",
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
            "The file (brotli or gzip when accepted; an ETag per coding).",
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
          summary: "Readiness for a load balancer (docs/deploy.md, Kernel nodes)",
          responses: {
            "200": {
              description: "Serving: `ok`, or `degraded` (a kernel node serving from its caches).",
              content: json("Readiness"),
            },
            "503": {
              description: "Cannot serve: KV or Redis down, or revocations past their bound.",
              content: json("Readiness"),
            },
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
