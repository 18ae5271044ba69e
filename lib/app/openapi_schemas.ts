/**
 * The JSON Schemas of the OpenAPI document's responses that have no zod schema in a handler: what
 * the routes build by hand (scenes, projects, problems, the JWKS). Request bodies come from the
 * handlers' zod schemas (lib/app/openapi.ts); tests/web/openapi_responses_test.ts checks real
 * responses of every operation against these.
 */
import { ERROR_CODES } from "../http/error_codes.ts";

const HEX64 = { type: "string", pattern: "^[0-9a-f]{64}$" };
const VEC3 = { type: "array", items: { type: "number" }, minItems: 3, maxItems: 3 };
const BASE64 = { type: "string", pattern: "^[A-Za-z0-9+/]*={0,2}$" };

/** A mesh as sent in the JSON form: meshoptimizer-coded buffers (lib/dag/scene.ts). */
const ENCODED_MESH = {
  type: "object",
  required: ["vertexCount", "triangleCount", "min", "scale", "vertices", "indices"],
  additionalProperties: false,
  description: "Coordinate k of a vertex decodes as min[k] + q · scale[k], within half a step " +
    "(scale[k] / 2) of the kernel's value. See docs/api.md, render response.",
  properties: {
    vertexCount: { type: "integer", minimum: 0 },
    triangleCount: { type: "integer", minimum: 0 },
    min: { ...VEC3, description: "The mesh's bounding-box minimum per axis (q = 0)." },
    scale: {
      ...VEC3,
      items: { type: "number", minimum: 0 },
      description: "The quantization step per axis: (max − min) / 65535; 0 on a flat axis.",
    },
    vertices: {
      ...BASE64,
      description: "meshoptimizer vertex codec (version 1) over 8 bytes per vertex: Uint16 " +
        "q of x, y, z and a zero pad, little-endian; base64.",
    },
    indices: {
      ...BASE64,
      description: "meshoptimizer index codec over the triangle list (three 32-bit indices per " +
        "triangle); base64.",
    },
  },
};

/** The scene without its meshes (lib/dag/scene.ts). */
const SCENE = {
  type: "object",
  required: ["parts", "bbox", "triangles", "volume"],
  additionalProperties: false,
  properties: {
    parts: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "color", "mesh"],
        oneOf: [{ required: ["translations"] }, { required: ["matrices"] }],
        additionalProperties: false,
        properties: {
          name: { type: "string" },
          color: { type: "string", pattern: "^#[0-9a-f]{6}$" },
          mesh: HEX64,
          translations: {
            type: "array",
            items: { type: "number" },
            description: "x, y, z per drawn instance, when every instance only moves the part.",
          },
          matrices: {
            type: "array",
            items: { type: "number" },
            description: "Column-major 4×4 transforms, 16 numbers per drawn instance.",
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
    effective: {
      type: "object",
      description: "Parameters the DAG limited in this render, by name (absent when none was): " +
        "the value the design used, the value requested, the bound's direction and the " +
        "parameters it is computed from (docs/api.md, render).",
      additionalProperties: {
        type: "object",
        required: ["value", "requested", "bound", "by"],
        additionalProperties: false,
        properties: {
          value: { type: "number" },
          requested: { type: "number" },
          bound: { enum: ["min", "max"] },
          by: { type: "array", items: { type: "string" } },
        },
      },
    },
  },
};

/** The render response (lib/render/render.ts, RenderResponse). */
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

/**
 * GET /api/v1/projects/<slug>: a template-mode version carries its DAG template; a python-mode
 * version has `template: null` and carries the design's Python `source` (docs/design.md).
 */
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
      type: ["object", "null"],
      description: "The DAG template (docs/dag.md); ParameterInput nodes carry no `value`. " +
        "null for a python-mode project.",
      required: ["dag", "nodes", "output"],
      properties: {
        dag: { const: 1 },
        nodes: { type: "object" },
        output: { type: "string" },
      },
    },
    schema: { type: "object", description: "parameters.schema.json (docs/dag.md)." },
    source: {
      type: "string",
      description: "Python-mode only: design.py, run in the browser (docs/design.md).",
    },
  },
  oneOf: [
    {
      title: "template mode",
      properties: { mode: { const: "template" }, template: { type: "object" } },
      not: { required: ["source"] },
    },
    {
      title: "python mode",
      required: ["source"],
      properties: { mode: { const: "python" }, template: { type: "null" } },
    },
  ],
};

/** Codes whose problems always say which check failed in `reason` (docs/errors.md). */
const REASONED_CODES = ["invalid_key_format", "invalid_token", "render_failed", "csrf_rejected"];

/** An RFC 9457 problem with this service's members (docs/errors.md). */
const PROBLEM = {
  type: "object",
  required: ["type", "title", "status", "detail", "code"],
  description: `${REASONED_CODES.join(", ")} always carry \`reason\`.`,
  if: { required: ["code"], properties: { code: { enum: REASONED_CODES } } },
  then: { required: ["reason"] },
  properties: {
    type: { type: "string", pattern: "^/problems/[a-z_]+$" },
    title: { type: "string" },
    status: { type: "integer", minimum: 400, maximum: 599 },
    detail: { type: "string" },
    code: { enum: Object.keys(ERROR_CODES) },
    instance: { type: "string", pattern: "^urn:request:" },
    reason: { type: "string", description: "Which rule or check failed (docs/errors.md)." },
    pointer: { type: "string", description: "RFC 6901 pointer into the DAG or body." },
    errors: {
      type: "array",
      items: {
        type: "object",
        required: ["pointer", "detail"],
        properties: { pointer: { type: "string" }, detail: { type: "string" } },
      },
    },
    minimum: { type: "integer" },
    maximum: { type: "integer" },
    maxBytes: { type: "integer" },
    scope: {
      enum: ["key", "client_ip"],
      description: "rate_limited: the key's mint limit, or the client address's for this key.",
    },
    quota: { enum: ["day", "month"], description: "quota_exceeded: the UTC period that is spent." },
    limit: { type: "integer", minimum: 0, description: "quota_exceeded: the period's quota." },
  },
};

/** The claims of a signed configuration (lib/hub/configuration_signature.ts). */
const CONFIGURATION_CLAIMS = {
  type: "object",
  required: [
    "iss",
    "partner",
    "client_id",
    "sub",
    "project",
    "version",
    "values",
    "dagHash",
    "iat",
    "exp",
  ],
  properties: {
    iss: { const: "hub" },
    partner: { type: "string" },
    client_id: { type: "string" },
    sub: { type: "string" },
    project: { type: "string" },
    version: { type: "integer", minimum: 1 },
    values: { type: "object", description: "Every parameter's value (defaults filled in)." },
    dagHash: HEX64,
    production: {
      type: "object",
      description: "The order hand-off (docs/exports.md): POST `url` with the key's secret and " +
        "`{configuration, format}` for the production file, until `exp`.",
      required: ["url", "formats"],
      properties: {
        url: { type: "string", format: "uri" },
        formats: { type: "array", items: { enum: ["glb", "stl", "3mf"] } },
      },
    },
    iat: { type: "integer" },
    exp: { type: "integer" },
  },
};

const COMPACT_JWS = {
  type: "string",
  pattern: "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$",
};

/** Component schemas by name, for `components.schemas`. */
export const RESPONSE_SCHEMAS: Record<string, unknown> = {
  RenderResponse: RENDER_RESPONSE,
  Scene: SCENE,
  EncodedMesh: ENCODED_MESH,
  Project: PROJECT,
  Problem: PROBLEM,
  SignedConfiguration: {
    type: "object",
    required: ["configuration", "payload"],
    additionalProperties: false,
    properties: {
      configuration: { ...COMPACT_JWS, description: "EdDSA, typ cad-configuration+jwt." },
      payload: { $ref: "#/components/schemas/ConfigurationClaims" },
    },
  },
  ConfigurationClaims: CONFIGURATION_CLAIMS,
  ArTicket: {
    type: "object",
    required: ["url", "expiresAt"],
    additionalProperties: false,
    properties: {
      url: {
        type: "string",
        format: "uri",
        description: "`<kernel>/v1/kernels/<kernel>/ar/<ticket>.glb`: the GLB with no token.",
      },
      expiresAt: { type: "integer", description: "When the URL stops working (ms since epoch)." },
    },
  },
  VerifyConfigurationBody: {
    type: "object",
    required: ["configuration"],
    properties: {
      configuration: {
        type: "string",
        description: "A compact JWS from POST /sdk/v1/configurations.",
      },
    },
  },
  VerifyConfigurationResult: {
    oneOf: [
      {
        type: "object",
        required: ["valid", "payload"],
        additionalProperties: false,
        properties: {
          valid: { const: true },
          payload: { $ref: "#/components/schemas/ConfigurationClaims" },
        },
      },
      {
        type: "object",
        required: ["valid", "reason"],
        additionalProperties: false,
        properties: {
          valid: { const: false },
          reason: { enum: ["invalid_signature", "expired", "malformed"] },
        },
      },
    ],
  },
  ProblemType: {
    type: "object",
    required: ["code", "status", "title"],
    additionalProperties: false,
    properties: {
      code: { enum: Object.keys(ERROR_CODES) },
      status: { type: "integer", minimum: 400, maximum: 599 },
      title: { type: "string" },
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
      status: { enum: ["ok", "degraded", "unavailable"] },
      checks: {
        type: "object",
        required: ["redis"],
        properties: {
          kv: { enum: ["ok", "down"] },
          redis: { enum: ["ok", "down", "in-process"] },
          hub: {
            type: "object",
            required: ["state", "ageMs"],
            properties: {
              state: { enum: ["ok", "degraded"] },
              ageMs: { type: ["integer", "null"] },
            },
          },
          revocations: {
            type: "object",
            required: ["state", "ageMs"],
            properties: {
              state: { enum: ["ok", "stale"] },
              ageMs: { type: ["integer", "null"] },
            },
          },
        },
      },
      warnings: { type: "array", items: { type: "string" } },
    },
  },
  KernelProjectVersion: {
    type: "object",
    required: ["partnerId", "slug", "version", "mode", "template", "schema", "templateHash"],
    properties: {
      partnerId: { type: "string" },
      slug: { type: "string" },
      version: { type: "integer", minimum: 1 },
      mode: { enum: ["template", "python"] },
      template: { type: ["object", "null"] },
      schema: { type: "object" },
      templateHash: { type: "string", pattern: "^[0-9a-f]{64}$" },
    },
  },
  RevocationPage: {
    type: "object",
    required: ["head", "upTo", "entries"],
    properties: {
      head: {
        type: "object",
        required: ["seq", "versionstamp"],
        properties: {
          seq: { type: "integer", minimum: 0 },
          versionstamp: { type: ["string", "null"] },
        },
      },
      upTo: { type: "integer", minimum: 0 },
      entries: {
        type: "array",
        items: {
          type: "object",
          required: ["seq", "entry"],
          properties: {
            seq: { type: "integer", minimum: 1 },
            entry: {
              type: "object",
              required: ["kind", "id", "at", "until"],
              properties: {
                kind: { enum: ["key", "token"] },
                id: { type: "string" },
                at: { type: "integer" },
                until: { type: "integer" },
              },
            },
          },
        },
      },
    },
  },
  KeyRenderQuota: {
    type: "object",
    required: ["keyId", "renderQuota"],
    properties: {
      keyId: { type: "string" },
      renderQuota: {
        type: "object",
        required: ["day", "month"],
        properties: {
          day: { type: ["integer", "null"], minimum: 0 },
          month: { type: ["integer", "null"], minimum: 0 },
        },
      },
    },
  },
  OpenApiDocument: {
    type: "object",
    required: ["openapi", "info", "paths"],
    properties: {
      openapi: { const: "3.1.0" },
      info: { type: "object" },
      paths: { type: "object" },
    },
  },
};
