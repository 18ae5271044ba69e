/**
 * The OpenAPI 3.1 document served at `/openapi.json`. Request and response schemas come from the
 * same zod schemas the handlers validate with, so the description cannot drift from the code.
 */
import { z } from "zod";
import type { Config } from "../config.ts";
import { ERROR_CODES } from "../http/error_codes.ts";
import { BrowserMintBody, MintResponse, ServerMintBody } from "../hub/mint_request.ts";
import { MAX_RENDER_BODY_BYTES, RenderBody } from "../kernel/render_request.ts";
import { ConfigurationBody } from "../hub/configuration_request.ts";
import { ConfiguratorMintBody } from "../hub/configurator_mint.ts";

function schema(s: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(s, { io: "input" }) as Record<string, unknown>;
  return rest;
}

const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
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
        "finished DAGs for a token holder (kernel-api). See docs/api.md and docs/dag.md.",
    },
    servers: [{ url: config.hubUrl, description: "hub" }],
    paths: {
      "/v1/kernels/{kernel}/render": {
        servers: [{ url: config.kernelUrl, description: "kernel-api" }],
        parameters: [{
          name: "kernel",
          in: "path",
          required: true,
          description: "The geometry kernel; `manifold` is the only one.",
          schema: { type: "string", examples: ["manifold"] },
        }],
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
            content: {
              "application/json": { schema: { $ref: "#/components/schemas/RenderBody" } },
            },
          },
          responses: {
            "200": {
              description: "The scene, with the meshes the client does not hold.",
              content: {
                "application/json": { schema: { $ref: "#/components/schemas/RenderResponse" } },
              },
            },
            "400": problem("The body is not UTF-8 JSON (invalid_body); NaN is not JSON."),
            "401": problem(
              "No or a bad token (invalid_token, with reason), token_expired, or token_revoked.",
            ),
            "403": problem("Origin missing or not the token's origin (origin_mismatch)."),
            "404": problem("Unknown kernel (unknown_kernel) or project version."),
            "413": problem(`Body larger than ${MAX_RENDER_BODY_BYTES} bytes (body_too_large).`),
            "415": problem("Body is not application/json."),
            "422": problem(
              "validation_failed (body shape), invalid_dag (with reason and pointer: not an " +
                "instance of the template, a limit of docs/dag.md), invalid_parameters, or " +
                "render_failed (a computed NaN, overflow, division by zero, empty geometry).",
            ),
            "429": problem("The token's render budget is spent (budget_exhausted)."),
            "500": problem("A render worker crashed (internal_error); it was replaced."),
            "503": problem(
              "render_timeout (deadline), kernel_busy (queue full), or service_unavailable " +
                "(Redis down: budgets and revocations fail closed); see Retry-After.",
            ),
          },
        },
        options: {
          summary: "CORS preflight (allows authorization and content-type from any origin)",
          responses: { "204": { description: "Preflight answer." } },
        },
      },
      "/api/v1/projects/{slug}": {
        get: {
          operationId: "getProject",
          summary: "The current (or a named) version of a published project: template and schema",
          parameters: [
            {
              name: "slug",
              in: "path",
              required: true,
              schema: { type: "string" },
            },
            {
              name: "version",
              in: "query",
              required: false,
              description: "A published version; the current one when absent.",
              schema: { type: "integer", minimum: 1 },
            },
            {
              name: "If-None-Match",
              in: "header",
              required: false,
              schema: { type: "string" },
            },
          ],
          responses: {
            "200": {
              description:
                "Public and cacheable (a named version is immutable; the current one for 60 s).",
              headers: {
                ETag: { schema: { type: "string" } },
                "Cache-Control": { schema: { type: "string" } },
              },
              content: {
                "application/json": { schema: { $ref: "#/components/schemas/Project" } },
              },
            },
            "304": { description: "The ETag matches If-None-Match." },
            "404": problem("No such project or version (unknown_project_version)."),
            "422": problem("`version` is not a positive integer (validation_failed)."),
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
                schema: {
                  oneOf: [{ $ref: "#/components/schemas/BrowserMintBody" }, {
                    $ref: "#/components/schemas/ServerMintBody",
                  }],
                },
              },
            },
          },
          responses: {
            "200": {
              description: "A minted token.",
              headers: {
                RateLimit: { schema: { type: "string" } },
                "RateLimit-Policy": { schema: { type: "string" } },
              },
              content: {
                "application/json": { schema: { $ref: "#/components/schemas/MintResponse" } },
              },
            },
            "400": problem(
              "Malformed JSON, or the browser flow without an Origin header (origin_required).",
            ),
            "401": problem(
              "No credentials, a malformed or unknown key, a wrong secret, or a revoked key.",
            ),
            "403": problem("Origin not in allowed_origins, or projectId not in allowed_projects."),
            "413": problem("Body larger than 16 KiB."),
            "415": problem("Body is not application/json."),
            "422": problem(
              "Validation failed, ttlSeconds out of bounds, or body origin ≠ Origin header.",
            ),
            "429": problem("Per-key mint rate limit exceeded; see Retry-After."),
          },
        },
        options: {
          summary: "CORS preflight",
          responses: { "204": { description: "Preflight answer." } },
        },
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
            "200": { description: "`{configuration, payload}`" },
            "401": problem("invalid_token, token_expired, token_revoked"),
            "403": problem("origin_mismatch"),
            "422": problem("invalid_parameters, validation_failed"),
          },
        },
      },
      "/sdk/v1/configurations/verify": {
        post: {
          operationId: "verifyConfiguration",
          summary: "Check a signed configuration against the hub's JWKS",
          responses: {
            "200": { description: "`{valid: true, payload}` or `{valid: false, reason}`" },
            "422": problem("validation_failed"),
          },
        },
      },
      "/configurator/{project}/session-token": {
        post: {
          operationId: "mintConfiguratorToken",
          summary:
            "The hub's hosted configurator mints here (same-origin only; see docs/embedding.md)",
          parameters: [{ name: "project", in: "path", required: true, schema: { type: "string" } }],
          requestBody: {
            required: true,
            content: { "application/json": { schema: schema(ConfiguratorMintBody) } },
          },
          responses: {
            "200": { description: "`{token, expiresAt, mode}`" },
            "403": problem("origin_not_allowed, project_not_allowed"),
          },
        },
      },
      "/.well-known/jwks.json": {
        get: {
          operationId: "getJwks",
          summary: "The hub's Ed25519 token-signing public keys",
          responses: {
            "200": {
              description: "JWK set.",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Jwks" } } },
            },
          },
        },
      },
      "/healthz": {
        get: {
          summary: "Liveness",
          responses: {
            "200": {
              description: "Up.",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Health" } } },
            },
          },
        },
      },
      "/readyz": {
        get: {
          summary: "Readiness (KV and Redis reachable)",
          responses: {
            "200": {
              description: "Ready.",
              content: {
                "application/json": { schema: { $ref: "#/components/schemas/Readiness" } },
              },
            },
            "503": {
              description: "A dependency is down.",
              content: {
                "application/json": { schema: { $ref: "#/components/schemas/Readiness" } },
              },
            },
          },
        },
      },
      "/metrics": {
        get: {
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
        RenderResponse: RENDER_RESPONSE,
        Scene: SCENE,
        EncodedMesh: ENCODED_MESH,
        Project: PROJECT,
        Problem: {
          type: "object",
          required: ["type", "title", "status", "detail", "code"],
          properties: {
            type: { type: "string" },
            title: { type: "string" },
            status: { type: "integer" },
            detail: { type: "string" },
            code: { enum: Object.keys(ERROR_CODES) },
            instance: { type: "string" },
            reason: { type: "string" },
            pointer: { type: "string", description: "RFC 6901 pointer into the DAG or body." },
            errors: {
              type: "array",
              items: {
                type: "object",
                required: ["pointer", "detail"],
                properties: { pointer: { type: "string" }, detail: { type: "string" } },
              },
            },
          },
        },
        Jwks: {
          type: "object",
          required: ["keys"],
          properties: {
            keys: {
              type: "array",
              items: {
                type: "object",
                required: ["kty", "crv", "x", "kid"],
                additionalProperties: false,
                properties: {
                  kty: { const: "OKP" },
                  crv: { const: "Ed25519" },
                  x: { type: "string", pattern: "^[A-Za-z0-9_-]{43}$" },
                  kid: { type: "string" },
                  use: { const: "sig" },
                  alg: { const: "EdDSA" },
                },
              },
            },
          },
        },
        Health: {
          type: "object",
          required: ["status"],
          properties: { status: { const: "ok" }, role: { enum: ["all", "hub", "kernel"] } },
        },
        Readiness: {
          type: "object",
          required: ["status", "checks"],
          properties: {
            status: { enum: ["ok", "unavailable"] },
            checks: {
              type: "object",
              properties: {
                kv: { enum: ["ok", "down"] },
                redis: { enum: ["ok", "down", "in-process"] },
              },
            },
          },
        },
      },
    },
  };
}

const HEX64 = { type: "string", pattern: "^[0-9a-f]{64}$" };
const VEC3 = { type: "array", items: { type: "number" }, minItems: 3, maxItems: 3 };
const BASE64 = { type: "string", pattern: "^[A-Za-z0-9+/]*={0,2}$" };

/** A mesh as sent: quantized positions and delta-coded indices (lib/kernel/scene.ts). */
const ENCODED_MESH = {
  type: "object",
  required: ["positions", "min", "scale", "indices", "vertexCount", "triangleCount"],
  additionalProperties: false,
  description: "Coordinate k of a vertex decodes as min[k] + q · scale[k], within half a step " +
    "(scale[k] / 2) of the kernel's value. See docs/api.md, render response.",
  properties: {
    positions: {
      ...BASE64,
      description: "Uint16 q per coordinate (x, y, z per vertex), little-endian, base64.",
    },
    min: { ...VEC3, description: "The mesh's bounding-box minimum per axis (q = 0)." },
    scale: {
      ...VEC3,
      items: { type: "number", minimum: 0 },
      description: "The quantization step per axis: (max − min) / 65535; 0 on a flat axis.",
    },
    indices: {
      ...BASE64,
      description: "Three vertex indices per triangle: LEB128 varints of the zigzag-mapped " +
        "differences of consecutive indices (the first from 0), base64.",
    },
    vertexCount: { type: "integer", minimum: 0 },
    triangleCount: { type: "integer", minimum: 0 },
  },
};

/** The scene without its meshes (lib/kernel/scene.ts). */
const SCENE = {
  type: "object",
  required: ["parts", "bbox", "triangles", "volume"],
  additionalProperties: false,
  properties: {
    parts: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "color", "mesh", "instances"],
        additionalProperties: false,
        properties: {
          name: { type: "string" },
          color: { type: "string", pattern: "^#[0-9a-f]{6}$" },
          mesh: HEX64,
          instances: {
            type: "array",
            description: "Column-major 4×4 transforms, one per drawn instance.",
            items: { type: "array", items: { type: "number" }, minItems: 16, maxItems: 16 },
          },
        },
      },
    },
    bbox: {
      type: "object",
      required: ["min", "max"],
      additionalProperties: false,
      properties: { min: VEC3, max: VEC3 },
    },
    triangles: { type: "integer", minimum: 0 },
    volume: { type: "number" },
  },
};

/** The render response (lib/kernel/render.ts, RenderResponse). */
const RENDER_RESPONSE = {
  type: "object",
  required: [
    "kernel",
    "kernelVersion",
    "project",
    "version",
    "dagHash",
    "cache",
    "budget",
    "scene",
    "meshes",
    "omitted",
  ],
  additionalProperties: false,
  properties: {
    kernel: { type: "string" },
    kernelVersion: { type: "string" },
    project: { type: "string" },
    version: { type: "integer", minimum: 1 },
    dagHash: { ...HEX64, description: "SHA-256 of the RFC 8785 canonical finished DAG." },
    cache: { enum: ["l1", "l2", "miss"] },
    budget: {
      type: "object",
      required: ["remaining"],
      additionalProperties: false,
      properties: { remaining: { type: ["integer", "null"], minimum: 0 } },
    },
    scene: { $ref: "#/components/schemas/Scene" },
    meshes: {
      type: "object",
      description: "Meshes by hash, except those listed in the request's `have`.",
      propertyNames: HEX64,
      additionalProperties: { $ref: "#/components/schemas/EncodedMesh" },
    },
    omitted: { type: "array", items: HEX64 },
  },
};

/** GET /api/v1/projects/<slug>. */
const PROJECT = {
  type: "object",
  required: ["slug", "title", "version", "mode", "template", "schema"],
  additionalProperties: false,
  properties: {
    slug: { type: "string" },
    title: { type: "string" },
    version: { type: "integer", minimum: 1 },
    mode: { enum: ["template", "python"] },
    template: {
      type: "object",
      description: "The DAG template (docs/dag.md); ParameterInput nodes carry no `value`.",
      required: ["dag", "nodes", "output"],
      properties: {
        dag: { const: 1 },
        nodes: { type: "object" },
        output: { type: "string" },
      },
    },
    schema: { type: "object", description: "parameters.schema.json (docs/dag.md)." },
  },
};
