/**
 * The OpenAPI 3.1 document served at `/openapi.json`. Request and response schemas come from the
 * same zod schemas the handlers validate with, so the description cannot drift from the code.
 */
import { z } from "zod";
import type { Config } from "../config.ts";
import { ERROR_CODES } from "../http/error_codes.ts";
import { BrowserMintBody, MintResponse, ServerMintBody } from "../hub/mint_request.ts";

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
      description: "Mint short-lived sv1 session tokens (hub). See docs/api.md.",
    },
    servers: [{ url: config.hubUrl, description: "hub" }],
    paths: {
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
