/** Shared steps of the render-route tests: a published project, a minted token, a render call. */
import assert from "node:assert/strict";
import { publishProject } from "@/lib/hub/publish.ts";
import type { CreateSdkKeyInput } from "@/lib/hub/sdk_keys.ts";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { substitute } from "@/lib/dag/substitute.ts";
import { createKeyFixture, type KeyFixture, mint } from "../_helpers/server.ts";
import { publishFixture } from "../_helpers/projects.ts";

/** The render path of the manifold kernel. */
export const RENDER = "/v1/kernels/manifold/render";

/** A key fixture with a freshly minted token for its origin. */
export interface RenderSetup extends KeyFixture {
  token: string;
}

/** A template and schema published inline (not from tests/fixtures). */
export interface InlineProject {
  template: unknown;
  schema: unknown;
}

/**
 * Creates a partner, key and project in `kv`, publishes the plate fixture (or `project`) as
 * version 1 and mints a token from `hubUrl` for the key's origin.
 */
export async function setupRender(
  kv: Deno.Kv,
  hubUrl: string,
  keyOverrides: Partial<CreateSdkKeyInput> = {},
  project?: InlineProject,
): Promise<RenderSetup> {
  const f = await createKeyFixture(kv, keyOverrides);
  if (project) await publishProject(kv, f.project, project);
  else await publishFixture(kv, f.partnerId, f.project);
  return { ...f, token: await mintToken(hubUrl, f) };
}

/** Mints a new token for the fixture's key, project and origin. */
export async function mintToken(hubUrl: string, f: KeyFixture): Promise<string> {
  const res = await mint(hubUrl, { keyId: f.keyId, projectId: f.project }, { origin: f.origin });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text).token;
}

/** POSTs a render request; a string body is sent as is. */
export function render(
  url: string,
  token: string | null,
  origin: string | null,
  body: unknown,
  init: { path?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json", ...init.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  if (origin) headers.origin = origin;
  return fetch(`${url}${init.path ?? RENDER}`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Asserts a problem response's status and code; returns its body. */
export async function expectProblem(
  res: Response,
  status: number,
  code: string,
): Promise<Record<string, unknown>> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.match(res.headers.get("content-type") ?? "", /^application\/problem\+json/);
  const body = JSON.parse(text);
  assert.equal(body.code, code, text);
  return body;
}

/** The finished DAG of an inline project with `values` (defaults for the rest). */
export function finish(project: InlineProject, values: Record<string, unknown> = {}): Dag {
  return substitute(
    project.template as Dag,
    validateParameterSchema(project.schema),
    values,
  );
}

/** A one-part assembly whose part draws node `child`, merged into `nodes`. */
export function assemblyOf(nodes: Record<string, unknown>, child: string): Dag {
  return {
    dag: 1,
    nodes: {
      ...nodes,
      color: { op: "ParameterInput", parameter: "color", fallback: "#8899aa" },
      part: { op: "part", name: "Part", color: { ref: "color" }, child: { ref: child } },
      out: { op: "assembly", parts: [{ ref: "part" }] },
    },
    output: "out",
  } as unknown as Dag;
}

/** A parameter schema with a Color parameter `color` and the given extra properties. */
export function schemaWith(properties: Record<string, unknown> = {}): unknown {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    additionalProperties: false,
    properties: {
      color: {
        kind: "Color",
        type: "string",
        default: "#8899aa",
        pattern: "^#[0-9a-f]{6}$",
      },
      ...properties,
    },
  };
}

/**
 * A template that takes seconds to evaluate: the union of `count` rotated 256-segment spheres
 * (every boolean works on tens of thousands of triangles).
 */
export function heavyProject(count = 16): InlineProject {
  const nodes: Record<string, unknown> = {
    ball: { op: "sphere", radius: 10, segments: 256 },
  };
  const children = [];
  for (let i = 0; i < count; i++) {
    nodes[`r${i}`] = { op: "rotate", child: { ref: "ball" }, degrees: [i * 7, i * 11, i * 3] };
    nodes[`t${i}`] = { op: "translate", child: { ref: `r${i}` }, offset: [i * 0.37, 0.1, 0] };
    children.push({ ref: `t${i}` });
  }
  nodes.blob = { op: "union", children };
  return { template: assemblyOf(nodes, "blob"), schema: schemaWith() };
}

/** The claims of a token, read without verifying (tests only: the token came from our hub). */
export function tokenClaims(token: string): { jti: string; exp: number; iat: number } {
  const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(payload));
}
