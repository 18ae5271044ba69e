/** The render request body (docs/api.md, render), as a strict zod schema. */
import { z } from "zod";

/** Longest render body accepted, in bytes (the DAG dominates). */
export const MAX_RENDER_BODY_BYTES = 256 * 1024;

/** A mesh hash: SHA-256 in lowercase hex. */
export const MeshHash = z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 hex mesh hash");

/** `POST /v1/kernels/<kernel>/render` body. */
export const RenderBody = z.strictObject({
  /** The finished DAG: the project template with every ParameterInput's `value` filled. */
  dag: z.record(z.string(), z.unknown()),
  /** The project version the DAG was made from; the current version when absent. */
  version: z.int().min(1).optional(),
  /** Mesh hashes the client already holds; their data is left out of the response. */
  have: z.array(MeshHash).max(1000).optional(),
});

/** A parsed render body. */
export type RenderBody = z.infer<typeof RenderBody>;
