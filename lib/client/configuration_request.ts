/**
 * Asks the hub to sign the current configuration (`POST {hub}/sdk/v1/configurations` with the
 * session token): the answer is a compact JWS the partner's server verifies with the hub's JWKS
 * (docs/embedding.md). The hub re-validates the values and computes the DAG hash itself.
 *
 * Runs in browsers: no Deno APIs here.
 */
import { isRecord, networkError, readProblem, RenderError } from "./problem.ts";

/** A signed configuration and its (already verified by the hub) payload. */
export interface SignedConfiguration {
  /** The compact JWS to hand to the partner's server. */
  configuration: string;
  /** Its claims: project, version, values, dagHash, production (order hand-off), partner, iat, exp. */
  payload: Record<string, unknown>;
}

/**
 * Requests a signed configuration for `values` of project `version`. Rejects with `RenderError`.
 *
 * @example
 * ```ts
 * const { configuration } = await requestConfiguration(hub, await session.getToken(), values, 1);
 * ```
 */
export async function requestConfiguration(
  hubBaseUrl: string,
  token: string,
  values: Record<string, unknown>,
  version: number,
  fetchFn: typeof fetch = globalThis.fetch.bind(globalThis),
): Promise<SignedConfiguration> {
  let res: Response;
  try {
    res = await fetchFn(`${hubBaseUrl.replace(/\/+$/, "")}/sdk/v1/configurations`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ values, version }),
      credentials: "omit",
    });
  } catch (err) {
    throw networkError(RenderError, err);
  }
  if (!res.ok) throw await readProblem(res, RenderError, Date.now());
  const body: unknown = await res.json().catch(() => null);
  if (!isRecord(body) || typeof body.configuration !== "string" || !isRecord(body.payload)) {
    throw new RenderError({
      code: "invalid_response",
      status: res.status,
      detail: "The configuration answer lacks configuration or payload.",
    });
  }
  return { configuration: body.configuration, payload: body.payload };
}
